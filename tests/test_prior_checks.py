"""Priors checked where they enter: a prior that the data make impossible is refused by the
classifiers (pu_lib._validation.check_prior_feasible through pu_lib.prior.resolve_prior)
and by the command line, every prior estimator refuses fewer labeled rows than it
supports (BasePriorEstimator.min_labeled), and model selection marks a model that predicts
one class on every fold and never ranks it first."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from conftest import two_gaussians
from pu_lib.workflow import cli, registry
from pu_lib._validation import check_prior_feasible
from pu_lib.workflow.experiments.methods import select_params
from pu_lib.model_selection import degenerate_predictions
from pu_lib.prior import BasePriorEstimator, TIcE, resolve_prior


def _data(n=400, seed=0):
    X, s, _ = two_gaussians(n=n, seed=seed)
    return X, s


# --------------------------------------------------------------------------- impossible priors
@pytest.mark.parametrize("method", ["pu_extra_trees", "pu_hellinger_tree", "ada_pu"])
def test_a_prior_below_the_labeled_share_is_refused_with_both_numbers(method):
    X, s = _data()
    n_l, n = int(s.sum()), s.size
    est = registry.make_estimator(method, {"prior": 0.05}, random_state=0)
    with pytest.raises(ValueError) as err:
        est.fit(X, s)
    msg = str(err.value)
    assert "prior 0.05 is below the labeled share" in msg
    assert f"{n_l / n:.4g}" in msg and f"({n_l} of {n} rows labeled)" in msg


def test_the_labeled_share_itself_is_a_possible_prior_and_case_control_has_no_bound():
    X, s = _data()
    share = s.mean()
    assert check_prior_feasible(share, s) == pytest.approx(share)  # every positive labeled
    # case control: the prior is that of the unlabeled rows' population; the labeled rows,
    # drawn beside it, do not bound it
    assert check_prior_feasible(0.05, s, "case_control") == 0.05
    est = registry.make_estimator("pu_extra_trees", {"prior": 0.05, "scenario": "case_control",
                                                     "n_estimators": 5}, random_state=0)
    est.fit(X, s)
    assert est.prior_ == 0.05


def test_the_weighted_labeled_share_bounds_a_weighted_fit():
    s = np.array([1, 0, 0, 0])
    w = np.array([3.0, 1.0, 1.0, 1.0])  # labeled share 3 / 6 = 0.5 by weight, 0.25 by rows
    assert check_prior_feasible(0.3, s) == 0.3
    with pytest.raises(ValueError, match=r"below the labeled share 0.5 \(3 of 6 weighted rows labeled\)"):
        check_prior_feasible(0.3, s, sample_weight=w)


class _Impossible(BasePriorEstimator):
    """An estimator object whose prior_ is below the labeled share (as a buggy or
    unclipped user estimator could report)."""

    def _estimate(self, X, s):
        return "alpha", 0.0

    def fit(self, X, s):
        super().fit(X, s)
        self.prior_ = 0.01
        return self


def test_an_impossible_estimated_prior_is_refused_not_clipped():
    X, s = _data()
    with pytest.raises(ValueError, match=r"prior estimated by _Impossible \(single_training_set\) 0.01 is below"):
        resolve_prior(_Impossible(), X, s)


# --------------------------------------------------------------------------- fewest labeled rows
def _with_labeled(n_labeled, n=300, seed=0):
    X, _, y = two_gaussians(n=n, seed=seed)
    s = np.zeros(n, dtype=int)
    s[np.flatnonzero(y == 1)[:n_labeled]] = 1
    return X, s


def test_tice_on_one_labeled_row_refuses_instead_of_returning_an_estimate():
    X, s = _with_labeled(1)
    with pytest.raises(ValueError, match=r"TIcE needs at least 5 labeled rows \(one per fold \(n_folds=5\)"):
        TIcE(random_state=0).fit(X, s)
    assert TIcE(n_folds=3).min_labeled() == 3


@pytest.mark.parametrize("name", registry.names("prior"))
def test_every_prior_estimator_states_its_minimum_and_refuses_below_it(name):
    est = registry.make_estimator(name, kind="prior", random_state=0)
    need = est.min_labeled()
    assert isinstance(need, int) and need >= 2  # one labeled row never identifies a prior
    X, s = _with_labeled(need - 1)
    with pytest.raises(ValueError, match=f"needs at least {need} labeled rows"):
        est.fit(X, s)


def test_a_half_sample_below_the_minimum_is_refused_before_any_fit():
    from pu_lib.prior import bootstrap_ci

    X, s = _with_labeled(7)  # 7 labeled rows: enough for TIcE's 5 folds, a half-sample holds 3
    with pytest.raises(ValueError, match=r"TIcE needs at least 5 labeled rows .* a half-sample of these data "
                                         r"holds 3 of the 7"):
        bootstrap_ci(TIcE(), X, s, n_resamples=4, random_state=0)


def test_pu_lib_prior_names_the_minimum(capsys, tmp_path):
    X, s = _with_labeled(1)
    path = tmp_path / "one.csv"
    pd.DataFrame(X, columns=["a", "b", "c"]).assign(s=s).to_csv(path, index=False)
    rc, out, err = _main(capsys, "-q", "prior", path, "--s", "s", "--method", "tice", "--bootstrap", "0")
    assert rc == 1 and out == ""
    assert "tice needs at least 5 labeled rows" in err and "has 1" in err


# --------------------------------------------------------------------------- command line
def _main(capsys, *args):
    rc = cli.main([*map(str, args)])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def pu_file(tmp_path):
    X, s = _data(n=300, seed=1)
    df = pd.DataFrame(X, columns=["x1", "x2", "x3"]).assign(s=s)
    path = tmp_path / "pu.csv"
    df.to_csv(path, index=False)
    return path, int(s.sum()), len(s)


@pytest.mark.parametrize("command", [
    ["select", "--methods", "naive", "--prior", "0.05", "--cv", "3"],
    ["fit", "--method", "pu_extra_trees", "--param", "prior=0.05", "--out", "{tmp}/m.joblib"],
])
def test_the_command_line_refuses_an_impossible_prior_with_both_numbers(capsys, pu_file, tmp_path, command):
    path, n_l, n = pu_file
    args = [command[0], path, "--s", "s", *[a.replace("{tmp}", str(tmp_path)) for a in command[1:]]]
    rc, out, err = _main(capsys, *args)
    assert rc == 1 and out == ""
    assert "prior 0.05 is below the labeled share" in err and f"({n_l} of {n} rows labeled)" in err
    assert "cross-validation" not in err  # select: refused before any method is fitted


def test_select_without_prior_names_the_method_and_the_option_before_reading_the_file(capsys, pu_file):
    path, _, _ = pu_file
    rc, out, err = _main(capsys, "select", path, "--s", "s", "--methods", "naive,pu_extra_trees")
    assert rc == 1 and out == ""
    assert "pu_extra_trees needs the class prior" in err and "--prior" in err
    assert f"--prior {cli.DEFAULT_PRIOR_ESTIMATOR}" in err
    assert "naive" not in err.split("error:")[1].split("needs")[0]  # naive needs none
    assert "reading" not in err and "cross-validation" not in err  # nothing read, nothing fitted


def test_select_marks_a_model_that_predicts_one_class_and_lists_it_last(capsys, pu_file):
    path, _, _ = pu_file
    # naive with a logistic regression regularised to a constant: P(s = 1 | x) is about the
    # labeled share (< 0.5) everywhere, so it predicts 0 for every row of every fold, and
    # PU accuracy at prior 0.4 gives it 1 - 0.4 = 0.6
    common = ["select", path, "--s", "s", "--methods", "naive,pu_extra_trees", "--base", "logistic_regression",
              "--base-param", "C=1e-8", "--param", "pu_extra_trees.n_estimators=10", "--prior", "0.4", "--cv", "3",
              "--scoring", "pu_accuracy", "-q"]
    rc, out, err = _main(capsys, *common, "--json")
    assert rc == 0, err
    rows = json.loads(out)["rows"]
    assert [r["method"] for r in rows][-1] == "naive"
    assert rows[-1]["degenerate"] == "predicts only 0" and rows[-1]["positive_rate"] == 0.0
    assert rows[-1]["pu_accuracy"] == pytest.approx(0.6)
    rc, out, err = _main(capsys, *common)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].split()[-1] == "note"
    assert lines[-3].startswith("naive") and lines[-3].endswith("degenerate: predicts only 0")
    assert "listed last" in lines[-1]


# --------------------------------------------------------------------------- the degenerate rule
def test_degenerate_predictions_needs_one_class_on_every_fold():
    assert degenerate_predictions([0.0, 0.0, 0.0]) == "predicts only 0"
    assert degenerate_predictions([1.0, 1.0]) == "predicts only 1"
    assert degenerate_predictions([0.0, 0.1, 0.0]) is None
    assert degenerate_predictions([0.0, 1.0]) is None
    assert degenerate_predictions([]) is None


class _MaybeConstant(ClassifierMixin, BaseEstimator):
    """Predicts 0 everywhere (``constant=True``) or the row's first feature above 1.5."""

    def __init__(self, constant=False):
        self.constant = constant

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X):
        X = np.asarray(X)
        return np.zeros(len(X), int) if self.constant else (X[:, 0] > 1.5).astype(int)


def test_select_params_never_chooses_a_point_that_predicts_one_class():
    X, s = _data(n=600)
    select = {"grid": {"constant": [True, False]}, "scorer": "pu_accuracy", "cv": 3}
    # at a small prior, "all negative" scores 1 - prior under PU accuracy: the best mean
    chosen, cols = select_params(_MaybeConstant(), select, X, s, prior=s.mean(), random_state=0)
    scores = json.loads(cols["selection_scores"])
    const, real = scores
    assert const["degenerate"] == "predicts only 0" and "degenerate" not in real
    assert const["mean"] > real["mean"]  # it would have been chosen by its score alone
    assert chosen.constant is False and json.loads(cols["selected_params"]) == {"constant": False}
