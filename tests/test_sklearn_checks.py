"""The estimator checks of :mod:`pu_lib.utils.estimator_checks` (scikit-learn's checks and
the PU properties) on every registered estimator.

Each estimator of :data:`pu_lib.registry.METHODS` is checked with
``pu_lib.utils.estimator_checks.parametrize_with_checks``; the instances below use small
settings where the defaults would make a check slow (the checks test the API, not
accuracy). Checks an estimator cannot pass are declared, with reasons, by the estimator
itself (its ``_expected_failed_checks()``) and run as strict xfail.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from conftest import is_neural, torch_or_skip
from pu_lib import registry
from pu_lib.base import PUClassifierMixin
from pu_lib.prior.base import BasePriorEstimator
from pu_lib.utils.estimator_checks import (
    check_pu_n_jobs_invariance,
    check_pu_s_must_be_binary,
    check_pu_sample_weight_equivalence,
    expected_failed_checks,
    parametrize_with_checks,
    pu_checks,
    sklearn_checks,
)

NEURAL_CHECK_PARAMS = {"hidden_sizes": (16,), "epochs": 20, "batch_size": 1000, "learning_rate": 3e-2,
                      "dtype": "float64"}
#: the scenario of the prior-taking classifiers in the checks: scikit-learn's check data hold
#: up to 82.5% rows of class 1 (read as labeled), so a single-training-set prior of 0.4 is
#: below their labeled share and refused (pu_lib._validation.check_prior_feasible); in the
#: case-control scenario the prior is that of the unlabeled rows' population, which the
#: labeled share does not bound
CASE_CONTROL = {"scenario": "case_control"}
#: registry name -> constructor parameters used for the checks (speed only)
CHECK_PARAMS: dict[str, dict] = {
    # tree methods: few trees; PU trees get a numeric prior (no prior estimator in the loop)
    "pu_extra_trees": {"n_estimators": 5, "prior": 0.4, **CASE_CONTROL},
    "pu_decision_tree": {"prior": 0.4, **CASE_CONTROL},
    "pu_hellinger_tree": {"prior": 0.4, **CASE_CONTROL},
    "pu_hellinger_forest": {"n_estimators": 5, "prior": 0.4, **CASE_CONTROL},
    "pn_extra_trees": {"n_estimators": 5},
    "supervised_et": {"n_estimators": 5},
    "naive_pu_et": {"n_estimators": 5},
    "pu_bagging_et": {"n_estimators": 3, "base_n_estimators": 5},
    "pu_bagging": {"n_estimators": 5},
    "adasyn_rf": {"n_estimators": 10},
    # PU risks by XGBoost: 10 rounds, the prior set below (the labeled share; in the
    # case-control scenario at 0.4 two variants fall below check_classifiers_train's accuracy)
    "upu_xgb": {"n_estimators": 10},
    "nnpu_xgb": {"n_estimators": 10},
    "imbalanced_nnpu_xgb": {"n_estimators": 10},
    "nnpu_xgb_csboost": {"n_estimators": 10},
    "imbalanced_nnpu_xgb_csboost": {"n_estimators": 10},
    # Ada-PU: a numeric prior, 10 rounds
    # (its prior: the labeled share, set below -- in the case-control scenario at 0.4 Ada-PU
    # falls below check_classifiers_train's accuracy)
    "ada_pu": {"n_estimators": 10},
    "pn_boosting": {"n_estimators": 5},
    # class-prior estimators: few small XGBoost models, 2 folds, at most 2 GMM components
    "pulscar": {"n_folds": 2, "max_depth": 2, "n_bins": 8, "xgb_params": {"n_estimators": 5}},
    "pulsnar": {"n_folds": 2, "max_depth": 2, "n_bins": 8, "xgb_params": {"n_estimators": 5}, "max_clusters": 2},
    "tice": {"max_splits": 20},
    "dedpul": {"n_folds": 2, "max_depth": 2, "xgb_params": {"n_estimators": 5}},
    "alphamax": {"n_folds": 2, "max_depth": 2, "xgb_params": {"n_estimators": 5}},
    "alphamax_n": {"n_folds": 2, "max_depth": 2, "xgb_params": {"n_estimators": 5}},
    # SAR methods (Bekker thesis ch. 5): a propensity function in place of the fit input
    # and a given label frequency, both 1 (the checks fit on y: every positive labeled, so
    # e = 1 is the truth), the first column as propensity attribute, few EM iterations
    "propensity_weighted": {"propensity_function": "one"},
    "label_frequency_weighted": {"label_frequency": 1.0},
    "sar_em": {"propensity_attributes": [0], "max_iter": 20},
    # neural PU learners: a small MLP, full batches (integer weights == repeated rows holds
    # for whole-set batches), float64, a numeric prior
    "upu": {"prior": 0.4, **CASE_CONTROL, **NEURAL_CHECK_PARAMS},
    "nnpu": {"prior": 0.4, **CASE_CONTROL, **NEURAL_CHECK_PARAMS},
    "imbalanced_nnpu": {"prior": 0.4, **CASE_CONTROL, **NEURAL_CHECK_PARAMS},
    "vpu": {**NEURAL_CHECK_PARAMS},
    # Self-PU: the same small network without batch norm, 12 epochs, a selection after epoch 3
    # and the teachers from epoch 6, so that every mechanism runs
    "selfpu": {"prior": 0.4, **CASE_CONTROL, **NEURAL_CHECK_PARAMS, "batch_norm": False, "epochs": 12,
               "self_paced_start": 3, "self_paced_ramp": 12, "ema_start": 6},
}


def unit_propensity(X):
    """The constant propensity 1 (module-level, so that the fitted estimator pickles)."""
    return np.ones(np.shape(X)[0])


CHECK_PARAMS["propensity_weighted"]["propensity_function"] = unit_propensity


class LabeledSharePrior(BaseEstimator):
    """A prior "estimator" returning the (weighted) labeled share: the truth of the check
    data, which label every row of class 1 (module-level, so that it pickles)."""

    def fit(self, X, s, sample_weight=None):
        s = np.asarray(s)
        w = np.ones(s.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        self.prior_ = float(w[s == 1].sum() / w.sum())
        self.alpha_ = 0.0
        return self


for _name in ("ada_pu", "upu_xgb", "nnpu_xgb", "imbalanced_nnpu_xgb", "nnpu_xgb_csboost",
              "imbalanced_nnpu_xgb_csboost"):
    CHECK_PARAMS[_name]["prior"] = LabeledSharePrior()


def _instances():
    return [registry.make_estimator(name, CHECK_PARAMS.get(name), random_state=0) for name in registry.names()]


ESTIMATORS = _instances()


def test_every_registered_method_is_checked():
    assert [type(e).__name__ for e in ESTIMATORS] == [
        registry.METHODS[n].target.split(":")[1] for n in registry.names()
    ]


def _check_names(estimator) -> set[str]:
    return {c.func.__name__ if isinstance(c, partial) else c.__name__
            for _, c in (*sklearn_checks(estimator), *pu_checks(estimator))}


def test_every_exemption_names_a_check_that_runs_and_has_a_reason():
    """An estimator's declared exemptions name checks that run on it, each with a reason."""
    assert any(expected_failed_checks(e) for e in ESTIMATORS)
    for est in ESTIMATORS:
        declared = expected_failed_checks(est)
        assert set(declared) <= _check_names(est), (type(est).__name__, set(declared) - _check_names(est))
        for check, reason in declared.items():
            assert isinstance(reason, str) and len(reason) > 20, (type(est).__name__, check)


def test_every_pu_estimator_gets_the_pu_checks():
    """Every PU classifier and prior estimator is checked for its 0/1 s; prior estimators
    for their alpha_ / prior_ / c_; PU classifiers with a prior for its three forms;
    estimators with n_jobs for its invariance."""
    for est in ESTIMATORS:
        names = {c.func.__name__ for _, c in pu_checks(est)}
        params = est.get_params()
        if isinstance(est, BasePriorEstimator):
            assert {"check_pu_s_must_be_binary", "check_pu_prior_attributes_agree"} <= names
        if isinstance(est, PUClassifierMixin):
            assert "check_pu_s_must_be_binary" in names, type(est).__name__
            assert ("check_pu_prior_forms" in names) == ("prior" in params), type(est).__name__
        assert ("check_pu_n_jobs_invariance" in names) == ("n_jobs" in params), type(est).__name__


class _Broken(PUClassifierMixin, BaseEstimator):
    """A PU classifier that breaks the PU properties: it takes any s, ignores its weights
    and gives n_jobs=2 another model."""

    def __init__(self, n_jobs=None):
        self.n_jobs = n_jobs

    def fit(self, X, s, sample_weight=None):
        s = np.asarray(s)
        self.classes_ = np.array([0, 1])
        self.p_ = float(np.mean(s == s.max())) + (0.1 if self.n_jobs == 2 else 0.0)
        return self

    def predict_proba(self, X):
        p = np.full(len(X), self.p_ * (1 + 0.1 * np.asarray(X)[:, 0] ** 2) / 2)
        return np.column_stack([1 - p, p])


@pytest.mark.parametrize("check", [check_pu_s_must_be_binary, check_pu_sample_weight_equivalence,
                                   check_pu_n_jobs_invariance], ids=lambda c: c.__name__)
def test_the_pu_checks_fail_on_a_broken_estimator(check):
    with pytest.raises(AssertionError):
        check("_Broken", _Broken())


@parametrize_with_checks(ESTIMATORS)
def test_estimator_checks(estimator, check):
    if is_neural(estimator):
        torch_or_skip()
    check(estimator)
