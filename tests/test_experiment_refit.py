"""``split.refit``: tune the F1 threshold on a model fitted on the training part, then refit a
clone on training + validation rows and score that model (the PU Hellinger trees protocol as
the authors' expsetup.py runs it). Checked against a computation by hand from the label file
(real data: scikit-learn's breast cancer)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from estimator_doubles import LogisticOnS

from pu_lib import metrics
from pu_lib.workflow import registry
from pu_lib.datasets import prepare_dataset
from pu_lib.workflow.experiments.classifier_eval import ranking_score
from pu_lib.workflow.experiments.config import ConfigError, Grid, validate_config
from pu_lib.workflow.experiments.methods import make_method
from pu_lib.workflow.experiments.runner import build_tasks, load_cell_dataset, make_label_sets, run_repetition

SPLIT = {"test_size": 0.3, "val_size": 0.5, "refit": True}


class PriorRecorder(LogisticOnS):
    """Logistic regression on s that records the prior it was given (``prior_``) and the
    rows it was fitted on."""

    def __init__(self, prior=None, random_state=None):
        self.prior = prior
        self.random_state = random_state

    def fit(self, X, s):
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        self.n_fit_ = int(X.shape[0])
        self.prior_ = float(self.prior)
        return self._fit_on_s(make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)), X, s)


@pytest.fixture()
def registered(monkeypatch):
    monkeypatch.setitem(registry.METHODS, "test_prior_recorder",
                        registry.Method(f"{__name__}:PriorRecorder", "classifier", "test estimator", "tests"))


@pytest.fixture(scope="module")
def bc_path(tmp_path_factory):
    d = tmp_path_factory.mktemp("bc")
    return str(prepare_dataset("breast_cancer", d / "breast_cancer.parquet", cache_dir=d / "cache"))


def _config(methods: dict, split: dict, metrics_=("f1_tuned", "auc_pr")) -> dict:
    return {
        "seed": 5,
        "methods": methods,
        "experiments": {
            "e": {
                "datasets": ["breast_cancer"],
                "settings": [{"mechanism": "scar_flip", "flip_ratio": 0.5}],
                "split": split,
                "methods": list(methods),
                "repetitions": 2,
                "metrics": list(metrics_),
            }
        },
    }


def _tasks(cfg, schema_path, data_path):
    grid = Grid(validate_config(cfg, schema_path))
    spec = grid.fit_spec(next(grid.cells()))
    labels = make_label_sets(spec, data_path)
    return spec, labels, build_tasks(spec, data_path, labels)


NAIVE = {"naive_lr": {"method": "naive", "base": "logistic_regression"}}


def test_refit_scores_a_model_fitted_on_train_and_val_at_the_threshold_tuned_on_val(schema_path, bc_path):
    spec, labels, tasks = _tasks(_config(NAIVE, SPLIT), schema_path, bc_path)
    X, _, _ = load_cell_dataset(spec["dataset"], bc_path, 0)
    for task in tasks:
        row = run_repetition(task)
        lab = labels[labels["rep"] == task["rep"]]
        part = {k: lab[lab["split"] == k] for k in ("train", "val", "test")}
        trva = pd.concat([part["train"], part["val"]])

        def fit(rows):
            est = make_method(spec["method_spec"], random_state=task["seed"], n_jobs=1)
            return est.fit(X[rows["row"].to_numpy()], rows["s"].to_numpy())

        def score(est, rows):
            Xp = X[rows["row"].to_numpy()]
            return ranking_score(est, Xp, est.predict_proba(Xp)[:, 1])

        # by hand: tune on val with the model fitted on train, refit on train + val
        tuned = fit(part["train"])
        t, _ = metrics.best_f1_threshold(part["val"]["y"].to_numpy(), score(tuned, part["val"]), midpoint=True)
        refit = fit(trva)
        y_te = part["test"]["y"].to_numpy()
        s_te = score(refit, part["test"])
        assert row["f1_threshold"] == t
        assert row["f1_tuned"] == pytest.approx(metrics.f1(y_te, (s_te >= t).astype(np.int8)))
        assert row["auc_pr"] == pytest.approx(metrics.auc_pr(y_te, s_te))
        assert row["auc_roc"] == pytest.approx(metrics.auc_roc(y_te, s_te))
        assert row["n_train"] == len(trva) and row["n_val"] == len(part["val"])
        assert row["n_labeled"] == int(trva["s"].sum())
        assert row["prior_true"] == pytest.approx(trva["y"].mean())
        # the model scored is not the one fitted on the training part only: without the
        # refit, its test ranking (and so AUC-PR) would be that of `tuned`
        assert row["auc_pr"] != pytest.approx(metrics.auc_pr(y_te, score(tuned, part["test"])))


def test_without_refit_the_validation_part_is_never_trained_on(schema_path, bc_path):
    split = {k: v for k, v in SPLIT.items() if k != "refit"}
    spec, labels, tasks = _tasks(_config(NAIVE, split), schema_path, bc_path)
    X, _, _ = load_cell_dataset(spec["dataset"], bc_path, 0)
    row = run_repetition(tasks[0])
    lab = labels[labels["rep"] == 0]
    tr, te = lab[lab["split"] == "train"], lab[lab["split"] == "test"]
    est = make_method(spec["method_spec"], random_state=tasks[0]["seed"], n_jobs=1)
    est.fit(X[tr["row"].to_numpy()], tr["s"].to_numpy())
    Xt = X[te["row"].to_numpy()]
    s_te = ranking_score(est, Xt, est.predict_proba(Xt)[:, 1])
    assert row["auc_pr"] == pytest.approx(metrics.auc_pr(te["y"].to_numpy(), s_te))
    assert row["n_train"] == len(tr) and "f1_threshold" not in row


def test_refit_gives_the_clone_the_true_prior_of_train_and_val(registered, schema_path, bc_path):
    cfg = _config({"rec": {"method": "test_prior_recorder", "params": {"prior": True}}}, SPLIT)
    _, labels, tasks = _tasks(cfg, schema_path, bc_path)
    row = run_repetition(tasks[0])
    lab = labels[labels["rep"] == 0]
    trva = lab[lab["split"] != "test"]
    assert row["prior_given"] == pytest.approx(trva["y"].mean())
    assert row["prior_hat"] == pytest.approx(trva["y"].mean())  # the refitted model's prior_


def test_refit_config_checks_and_hash(schema_path):
    with pytest.raises(ConfigError, match=r"experiments\.e\.split\.refit: .*val_size"):
        validate_config(_config(NAIVE, {"test_size": 0.3, "refit": True}), schema_path)
    prior_cfg = _config({"t": {"method": "tice"}}, SPLIT, metrics_=("prior_abs_error",))
    with pytest.raises(ConfigError, match=r"split\.refit: applies to classifiers only"):
        validate_config(prior_cfg, schema_path)
    # refit: false (the default) leaves existing configs' hashes and label specs unchanged
    plain = Grid(validate_config(_config(NAIVE, {"test_size": 0.3, "val_size": 0.5}), schema_path))
    explicit = Grid(validate_config(_config(NAIVE, {"test_size": 0.3, "val_size": 0.5, "refit": False}),
                                    schema_path))
    refit = Grid(validate_config(_config(NAIVE, SPLIT), schema_path))
    assert plain.experiment_hash("e") == explicit.experiment_hash("e") != refit.experiment_hash("e")
    cell = next(plain.cells())
    assert "refit" not in plain.label_spec("e", cell.dataset, cell.setting)["split"]
    assert refit.fit_spec(next(refit.cells()))["split"]["refit"] is True


class FailingFit(PriorRecorder):
    """Raises ValueError in fit, as Elkan-Noto does with a single labeled positive."""

    def fit(self, X, s):
        raise ValueError("cannot fit this")


def test_fit_errors_record_leaves_the_row_without_scores(monkeypatch, schema_path, bc_path):
    monkeypatch.setitem(registry.METHODS, "test_failing",
                        registry.Method(f"{__name__}:FailingFit", "classifier", "test estimator", "tests"))
    for split in (SPLIT, {"test_size": 0.3}):
        _, _, tasks = _tasks(_config({"f": {"method": "test_failing"}}, split), schema_path, bc_path)
        with pytest.raises(ValueError, match="cannot fit this"):  # the default: the job fails
            run_repetition(tasks[0])
        _, _, tasks = _tasks(_config({"f": {"method": "test_failing", "fit_errors": "record"}}, split),
                             schema_path, bc_path)
        row = run_repetition(tasks[0])
        assert row["fit_error"] == "ValueError: cannot fit this"
        assert "f1_tuned" not in row and row["method"] == "f" and row["rep"] == 0
    with pytest.raises(ConfigError, match="fit_errors"):
        validate_config(_config({"f": {"method": "naive", "base": "logistic_regression", "fit_errors": "skip"}},
                                SPLIT), schema_path)
    # without the key the spec (and so the config hash) is unchanged
    cfg = validate_config(_config(NAIVE, SPLIT), schema_path)
    assert "fit_errors" not in cfg["methods"]["naive_lr"]
