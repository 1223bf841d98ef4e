"""pu_lib.workflow.experiments: predefined splits, the true-prior substitution, the fit-input
contract (oracle labels, propensities) and the zero-one risks in the result rows (real data: scikit-learn's breast cancer and,
when the mirror is present, MNIST and thyroid)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from sklearn.base import BaseEstimator, ClassifierMixin

from pu_lib import metrics
from pu_lib.workflow import registry
from pu_lib.datasets import prepare_dataset
from pu_lib.workflow.experiments.classifier_eval import pu_risk_estimator, pu_risk_scenario
from pu_lib.workflow.experiments.config import Grid, normalise_dataset_entry, validate_config
from pu_lib.workflow.experiments.runner import (
    build_tasks,
    fit_kwargs,
    make_label_sets,
    resolve_method_spec,
    run_repetition,
)
from pu_lib.labeling import make_label_set

from conftest import SHARED_DATASETS as MIRROR
from conftest import needs_mirror


# --------------------------------------------------------------------------- estimators
class PriorLogReg(ClassifierMixin, BaseEstimator):
    """A small PU estimator with a ``prior`` parameter: logistic regression on the given
    target; records what it was fitted on. ``prior_`` is the prior it was given."""

    def __init__(self, prior=None, risk="upu", random_state=None):
        self.prior = prior
        self.risk = risk
        self.random_state = random_state

    def _fit(self, X, target):
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        self.fit_target_ = np.asarray(target).copy()
        self.model_ = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)).fit(X, target)
        self.classes_ = np.array([0, 1])
        if self.prior is not None:
            self.prior_ = float(self.prior)
        return self

    def fit(self, X, s):
        return self._fit(X, s)

    def predict_proba(self, X):
        return self.model_.predict_proba(X)

    def predict(self, X):
        return self.model_.predict(X).astype(np.int8)


class OracleLogReg(PriorLogReg):
    """SupervisedET-style oracle: declares that fit needs the true classes."""

    __metadata_request__fit = {"y_true": True}

    def fit(self, X, s, y_true=None):
        return self._fit(X, y_true)


class PropensityLogReg(PriorLogReg):
    """A SAR-style estimator: declares that fit needs the true propensity scores and
    records them."""

    __metadata_request__fit = {"propensity": True}

    def fit(self, X, s, propensity=None):
        self.propensity_seen_ = np.asarray(propensity).copy()
        return self._fit(X, s)


@pytest.fixture()
def registered(monkeypatch):
    """Register the test estimators under method names (in the real registry)."""
    for name, cls in (("test_prior_lr", "PriorLogReg"), ("test_oracle_lr", "OracleLogReg"),
                      ("test_propensity_lr", "PropensityLogReg")):
        monkeypatch.setitem(registry.METHODS, name,
                            registry.Method(f"{__name__}:{cls}", "classifier", "test estimator", "tests"))


@pytest.fixture(scope="module")
def bc_path(tmp_path_factory):
    d = tmp_path_factory.mktemp("bc")
    return str(prepare_dataset("breast_cancer", d / "breast_cancer.parquet", cache_dir=d / "cache"))


def _config(methods: dict, split: dict, setting=None, metrics_=("f1",)) -> dict:
    return {
        "seed": 11,
        "methods": methods,
        "experiments": {
            "e": {
                "datasets": ["breast_cancer"],
                "settings": [setting or {"mechanism": "case_control", "n_labeled": 60}],
                "split": split,
                "methods": list(methods),
                "repetitions": 2,
                "metrics": list(metrics_),
            }
        },
    }


def _run(cfg, schema_path, data_path):
    grid = Grid(validate_config(cfg, schema_path))
    rows = []
    for cell in grid.cells():
        spec = grid.fit_spec(cell)
        labels = make_label_sets(spec, data_path)
        rows += [run_repetition(t) for t in build_tasks(spec, data_path, labels)]
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- prior: true
def test_resolve_method_spec_substitutes_the_true_prior_without_touching_the_spec():
    y = np.array([1, 0, 0, 1, 0, 0, 0, 0], dtype=np.int8)
    for flag in (True, "true", "True"):
        spec = {"method": "x", "params": {"prior": flag, "n": 3}}
        out, prior = resolve_method_spec(spec, y)
        assert prior == 0.25 and out["params"] == {"prior": 0.25, "n": 3}
        assert spec["params"]["prior"] == flag  # the shared spec is not modified
    assert resolve_method_spec({"method": "x", "params": {"prior": 0.4}}, y)[1] == 0.4
    spec = {"method": "x", "params": {}}
    assert resolve_method_spec(spec, y) == (spec, None)
    assert resolve_method_spec({"method": "x"}, y)[1] is None


def test_resolve_method_spec_substitutes_the_true_label_frequency():
    """``label_frequency: true`` -> the mean true propensity of the training positives
    (the SAR experiments' "SCAR with the true c", as the authors compute it)."""
    y = np.array([1, 0, 1, 1, 0], dtype=np.int8)
    e = np.array([0.2, 0.9, 0.4, 0.6, np.nan])
    spec = {"method": "label_frequency_weighted", "params": {"label_frequency": True}}
    out, prior = resolve_method_spec(spec, y, e)
    assert out["params"]["label_frequency"] == pytest.approx(0.4) and prior is None
    assert spec["params"]["label_frequency"] is True
    with pytest.raises(ValueError, match="true propensities"):
        resolve_method_spec(spec, y)


def test_fit_kwargs_passes_requested_inputs_and_skips_ones_set_as_parameters():
    from pu_lib.sar import SAREMClassifier

    supplied = {"y_true": None, "propensity": None, "propensity_attributes": [1, 2]}
    assert fit_kwargs(SAREMClassifier(), supplied) == {"propensity_attributes": [1, 2]}
    none = dict(supplied, propensity_attributes=None)
    with pytest.raises(ValueError, match="propensity_attributes"):
        fit_kwargs(SAREMClassifier(), none)
    assert fit_kwargs(SAREMClassifier(propensity_attributes=[0]), none) == {}


def test_sar_label_sets_record_the_propensity_attributes(registered, schema_path, bc_path):
    cfg = validate_config({
        "methods": {"em": {"method": "sar_em"}},
        "experiments": {"e": {"datasets": [{"name": "breast_cancer", "scale": "minus1_1"}],
                              "settings": [{"mechanism": "sar", "k": 2, "min_std": 0.3},
                                           {"mechanism": "scar_c", "c": 0.5}],
                              "methods": ["em"], "repetitions": 2, "metrics": ["brier"]}},
    }, schema_path)
    grid = Grid(cfg)
    for cell in grid.cells("e"):
        spec = grid.fit_spec(cell)
        labels = make_label_sets(spec, bc_path)
        attrs = [json.loads(v) for v in labels.groupby("rep")["propensity_attributes"].first()]
        if spec["setting"]["mechanism"] == "sar":
            assert all(len(a) == 2 for a in attrs)
            task = build_tasks(spec, bc_path, labels)[0]
            assert task["labels"]["propensity_attributes"] == attrs[0]
            row = run_repetition(task)
            assert np.isfinite(row["brier"]) and np.isfinite(row["propensity_mse"])
        else:  # SCAR labels hold no attributes: SAR-EM says what is missing
            assert attrs == [None, None]
            with pytest.raises(ValueError, match="propensity_attributes"):
                run_repetition(build_tasks(spec, bc_path, labels)[0])


def test_run_repetition_passes_the_true_prior_and_records_it(registered, schema_path, bc_path):
    cfg = _config({"plr": {"method": "test_prior_lr", "params": {"prior": True}}}, {"test_size": 0.25})
    df = _run(cfg, schema_path, bc_path)
    assert len(df) == 2
    # prior_given = positive fraction of the training rows = prior_true
    assert np.allclose(df["prior_given"], df["prior_true"])
    assert np.allclose(df["prior_hat"], df["prior_true"])  # the estimator got it as its prior
    assert (df["fit_on"] == "s").all()
    assert (df["pu_risk_estimator"] == "upu").all()  # the estimator's `risk` parameter
    assert np.allclose(df["pu_risk_prior"], df["prior_true"])
    assert '"prior": true' in df["method_spec"].iloc[0]  # the config's spec, unchanged


def test_config_accepts_prior_true_and_rejects_bad_priors(registered, schema_path):
    from pu_lib.workflow.experiments.config import ConfigError

    validate_config(_config({"p": {"method": "test_prior_lr", "params": {"prior": "true"}}}, {}), schema_path)
    validate_config(_config({"p": {"method": "test_prior_lr", "params": {"prior": 0.3}}}, {}), schema_path)
    for bad in (1.5, "yes", False):
        with pytest.raises(ConfigError, match=r"methods\.p\.params\.prior"):
            validate_config(_config({"p": {"method": "test_prior_lr", "params": {"prior": bad}}}, {}), schema_path)


def test_prior_given_is_nan_for_methods_without_one(schema_path, bc_path):
    cfg = _config({"naive_lr": {"method": "naive", "base": "logistic_regression"}}, {"test_size": 0.25})
    df = _run(cfg, schema_path, bc_path)
    assert df["prior_given"].isna().all()
    assert np.allclose(df["pu_risk_prior"], df["prior_true"])  # no prior_: the true prior
    assert (df["pu_risk_estimator"] == "nnpu").all()


# --------------------------------------------------------------------------- oracle
def test_fit_kwargs_supplies_exactly_the_requested_inputs():
    y = np.array([1, 1, 0, 0], dtype=np.int8)
    e = np.array([0.5, 0.2, 0.0, 0.0])
    supplied = {"y_true": y, "propensity": e}
    assert fit_kwargs(PriorLogReg(), supplied) == {}
    assert fit_kwargs(OracleLogReg(), supplied)["y_true"] is y
    assert list(fit_kwargs(PropensityLogReg(), supplied)) == ["propensity"]
    with pytest.raises(ValueError, match="requests 'propensity', which the label file does not provide"):
        fit_kwargs(PropensityLogReg(), {"y_true": y, "propensity": None})


def test_propensity_method_gets_the_label_files_propensities(registered, schema_path, bc_path):
    """A SAR-style method receives the true propensity scores of exactly its training rows."""
    setting = {"mechanism": "scar_c", "c": 0.5}
    cfg = _config({"sar": {"method": "test_propensity_lr"}}, {"test_size": 0.25}, setting=setting)
    grid = Grid(validate_config(cfg, schema_path))
    spec = grid.fit_spec(next(grid.cells()))
    labels = make_label_sets(spec, bc_path)
    task = build_tasks(spec, bc_path, labels)[0]
    from pu_lib.workflow.experiments.methods import make_method
    from pu_lib.workflow.experiments.runner import RepetitionData, load_cell_dataset

    X, _, _ = load_cell_dataset(spec["dataset"], bc_path, 0)
    lab = task["labels"]
    cell = RepetitionData(X, lab["row"], lab["split"], lab["s"], lab["y"], lab["propensity"], lab["split"] == "train")
    est = make_method(spec["method_spec"], random_state=task["seed"])
    est.fit(cell.X_tr, cell.s_tr, **fit_kwargs(est, {"y_true": cell.y_tr, "propensity": cell.propensity_tr}))
    part = labels[(labels["rep"] == 0) & (labels["split"] == "train")]
    np.testing.assert_array_equal(est.propensity_seen_, part["propensity"].to_numpy())
    # SCAR with c = 0.5: one propensity for every row, the realised label frequency
    # (an exact count of the data set's positives labeled, so 0.5 up to rounding)
    assert np.unique(est.propensity_seen_).size == 1
    assert est.propensity_seen_[0] == pytest.approx(0.5, abs=0.01)
    row = run_repetition(task)
    assert row["fit_on"] == "s" and 0.0 < row["accuracy"]


def test_oracle_method_is_fitted_on_the_true_classes(registered, schema_path, bc_path):
    cfg = _config({"oracle": {"method": "test_oracle_lr"}, "pu": {"method": "test_prior_lr"}}, {"test_size": 0.25})
    df = _run(cfg, schema_path, bc_path)
    assert set(df.loc[df["method"] == "oracle", "fit_on"]) == {"y"}
    assert set(df.loc[df["method"] == "pu", "fit_on"]) == {"s"}
    # a classifier that sees the true classes is far better than one that sees s
    oracle = df.loc[df["method"] == "oracle", "accuracy"].mean()
    pu = df.loc[df["method"] == "pu", "accuracy"].mean()
    assert oracle > 0.9 and oracle > pu


# --------------------------------------------------------------------------- zero-one risks
def test_result_rows_carry_the_zero_one_risks(schema_path, bc_path):
    cfg = _config({"naive_lr": {"method": "naive", "base": "logistic_regression"}}, {"test_size": 0.25},
                  metrics_=("train_pu_risk_01", "test_pn_risk_01"))
    df = _run(cfg, schema_path, bc_path)
    assert np.allclose(df["test_pn_risk_01"], 1 - df["accuracy"])
    assert df["train_pu_risk_01"].between(0, 1).all()
    assert (df["pu_risk_scenario"] == "single_training_set").all() and (df["scenario"] == "case_control").all()


def test_train_pu_risk_matches_a_hand_computation(registered, schema_path, bc_path):
    """Recompute the training PU risk from the label file and a refitted estimator."""
    from pu_lib.workflow.experiments.runner import load_cell_dataset
    from pu_lib.workflow.experiments.methods import make_method

    cfg = _config({"plr": {"method": "test_prior_lr", "params": {"prior": True, "risk": "nnpu"}}},
                  {"test_size": 0.25})
    grid = Grid(validate_config(cfg, schema_path))
    cell = next(grid.cells())
    spec = grid.fit_spec(cell)
    labels = make_label_sets(spec, bc_path)
    task = build_tasks(spec, bc_path, labels)[0]
    row = run_repetition(task)
    X, _, _ = load_cell_dataset(spec["dataset"], bc_path, 0)
    lab = labels[(labels["rep"] == 0) & (labels["split"] == "train")]
    s, y = lab["s"].to_numpy(), lab["y"].to_numpy()
    est = make_method({"method": "test_prior_lr", "params": {"prior": float(y.mean()), "risk": "nnpu"}},
                      random_state=task["seed"]).fit(X[lab["row"].to_numpy()], s)
    pred = est.predict(X[lab["row"].to_numpy()])
    pi = y.mean()
    n_p, n = int(s.sum()), len(s)
    fn_p = int(((pred == 0) & (s == 1)).sum())
    pp_p = int(((pred == 1) & (s == 1)).sum())
    pp_u = int((pred == 1).sum())  # U = all training rows (P is a subset of U)
    expected = pi * fn_p / n_p + max(0.0, pp_u / n - pi * pp_p / n_p)
    assert row["train_pu_risk_01"] == pytest.approx(expected)
    assert row["pu_risk_estimator"] == "nnpu" and row["prior_given"] == pytest.approx(pi)


class ScenarioLogReg(PriorLogReg):
    def __init__(self, scenario="single_training_set", prior=None, risk="upu", random_state=None):
        super().__init__(prior=prior, risk=risk, random_state=random_state)
        self.scenario = scenario


def test_pu_risk_helpers_read_the_estimators_risk_and_scenario_parameters():
    assert pu_risk_estimator(PriorLogReg(risk="upu")) == "upu"
    assert pu_risk_estimator(PriorLogReg(risk="nnpu")) == "nnpu"
    assert pu_risk_estimator(PriorLogReg(risk="quadratic")) == "nnpu"
    assert math.isnan(metrics.evaluate([0, 1], [0.2, 0.9])["train_pu_risk_01"])
    assert pu_risk_scenario(PriorLogReg()) == "single_training_set"
    # an estimator that reads s as stacked P and U samples
    assert pu_risk_scenario(ScenarioLogReg(scenario="case_control")) == "case_control"
    assert pu_risk_scenario(ScenarioLogReg(scenario="single_training_set")) == "single_training_set"


# --------------------------------------------------------------------------- predefined split
def test_make_label_set_with_a_predefined_split_on_breast_cancer():
    from sklearn.datasets import load_breast_cancer

    X, target = load_breast_cancer(return_X_y=True)
    y = (target == 0).astype(np.int8)
    split = np.where(np.arange(len(y)) < 400, "train", "test")
    a = make_label_set(X, y, mechanism="case_control", params={"n_labeled": 50}, val_size=0.2,
                       predefined_split=split, random_state=5)
    assert set(a.loc[a["split"] == "test", "row"]) == set(range(400, len(y)))
    tr_val = a.loc[a["split"] != "test", "row"]
    assert set(tr_val) == set(range(400))
    # val: a stratified 20% of the 400 training rows, seeded
    va = a[a["split"] == "val"]
    n_pos_tr = int(y[:400].sum())
    assert len(va) == round(0.2 * n_pos_tr) + round(0.2 * (400 - n_pos_tr))
    b = make_label_set(X, y, mechanism="case_control", params={"n_labeled": 50}, val_size=0.2,
                       predefined_split=split, random_state=5)
    pd.testing.assert_frame_equal(a, b)
    c = make_label_set(X, y, mechanism="case_control", params={"n_labeled": 50}, val_size=0.2,
                       predefined_split=split, random_state=6)
    assert not a["row"].equals(c["row"])  # another seed draws another validation part
    # test_size is ignored with a predefined split
    d = make_label_set(X, y, mechanism="scar_c", params={"c": 0.5}, test_size=0.5,
                       predefined_split=split, random_state=5)
    assert (d["split"] == "test").sum() == len(y) - 400
    with pytest.raises(ValueError, match="only hold 'train' and 'test'"):
        make_label_set(X, y, mechanism="scar_c", params={"c": 0.5},
                       predefined_split=np.where(split == "test", "valid", split))
    with pytest.raises(ValueError, match="one entry per row"):
        make_label_set(X, y, mechanism="scar_c", params={"c": 0.5}, predefined_split=split[:10])


def test_predefined_split_without_split_column_is_a_config_error(schema_path):
    from pu_lib.workflow.experiments.config import ConfigError

    cfg = _config({"naive_lr": {"method": "naive", "base": "logistic_regression"}}, {"predefined": True})
    with pytest.raises(ConfigError, match=r"experiments\.e\.split\.predefined: dataset 'breast_cancer'.*no 'split'"):
        validate_config(cfg, schema_path)


def test_make_label_sets_runtime_check_names_the_dataset(bc_path):
    spec = {
        "seed": 1, "experiment": "e", "dataset": normalise_dataset_entry("breast_cancer"),
        "setting": {"mechanism": "scar_c", "c": 0.5}, "setting_id": "scar_c-c0.5",
        "split": {"predefined": True, "test_size": 0.3, "val_size": 0.0, "max_samples": None,
                  "evaluate_on": "test"},
        "repetitions": 1,
    }
    with pytest.raises(ValueError, match="'breast_cancer' has no 'split' meta column"):
        make_label_sets(spec, bc_path)


@needs_mirror
@pytest.mark.slow
def test_predefined_split_mnist_and_thyroid(tmp_path, schema_path):
    cfg = {
        "seed": 3,
        "methods": {"naive_lr": {"method": "naive", "base": "logistic_regression"}},
        "experiments": {
            "pet": {
                "datasets": [{"name": "mnist", "positive": "pu_extra_trees"},
                             {"name": "thyroid_ann_uci", "positive": "pu_hellinger"}],
                "settings": [{"mechanism": "case_control", "n_labeled": 100}],
                "split": {"predefined": True, "val_size": 0.1},
                "methods": ["naive_lr"],
                "repetitions": 1,
            }
        },
    }
    grid = Grid(validate_config(cfg, schema_path))
    sizes = {}
    for did in ("mnist-pos_pu_extra_trees", "thyroid_ann_uci-pos_pu_hellinger"):
        entry = grid.dataset_entry("pet", did)
        path = prepare_dataset(entry["name"], tmp_path / f"{entry['name']}.parquet", data_mirror=MIRROR,
                               cache_dir=tmp_path / "cache", download=False)
        lab = make_label_sets(grid.label_spec("pet", did, "case_control-n_labeled100"), str(path))
        sizes[entry["name"]] = lab["split"].value_counts().to_dict()
        assert int(lab.loc[lab["split"] == "train", "s"].sum()) == 100
    assert sizes["mnist"]["test"] == 10000
    assert sizes["mnist"]["train"] + sizes["mnist"]["val"] == 60000
    assert sizes["mnist"]["val"] == pytest.approx(6000, abs=2)
    assert sizes["thyroid_ann_uci"]["test"] == 3428
    assert sizes["thyroid_ann_uci"]["train"] + sizes["thyroid_ann_uci"]["val"] == 3772


@needs_mirror
def test_predefined_auto_mixes_own_and_random_splits(tmp_path, schema_path):
    cfg = {
        "seed": 3,
        "methods": {"naive_lr": {"method": "naive", "base": "logistic_regression"}},
        "experiments": {
            "pet": {
                "datasets": [{"name": "thyroid_ann_uci", "positive": "pu_hellinger"}, "breast_cancer"],
                "settings": [{"mechanism": "case_control", "n_labeled": 20}],
                "split": {"predefined": "auto", "test_size": 0.2},
                "methods": ["naive_lr"],
                "repetitions": 1,
            }
        },
    }
    grid = Grid(validate_config(cfg, schema_path))
    sizes = {}
    for did in grid.experiments["pet"]["datasets"]:
        entry = grid.dataset_entry("pet", did)
        path = prepare_dataset(entry["name"], tmp_path / f"{entry['name']}.parquet", data_mirror=MIRROR,
                               cache_dir=tmp_path / "cache", download=False)
        lab = make_label_sets(grid.label_spec("pet", did, "case_control-n_labeled20"), str(path))
        sizes[entry["name"]] = lab["split"].value_counts().to_dict()
    assert sizes["thyroid_ann_uci"] == {"train": 3772, "test": 3428}           # its own split
    assert sizes["breast_cancer"]["test"] == pytest.approx(0.2 * 569, abs=1)    # random 80/20


# --------------------------------------------------------------------------- dataset scale / extend
def test_load_cell_dataset_scales_and_extends_the_features(bc_path):
    from pu_lib._seeding import derive_seed
    from pu_lib.workflow.experiments.runner import load_cell_dataset
    from pu_lib.labeling import extend_attributes, scale_minus1_1

    X0, y0, g0 = load_cell_dataset(normalise_dataset_entry("breast_cancer"), bc_path, 0)
    scaled = normalise_dataset_entry({"name": "breast_cancer", "scale": "minus1_1"})
    Xs, ys, gs = load_cell_dataset(scaled, bc_path, 0)
    np.testing.assert_array_equal(ys, y0)
    np.testing.assert_array_equal(gs, g0)
    assert Xs.shape == X0.shape and Xs.dtype == X0.dtype
    varied = X0.max(axis=0) > X0.min(axis=0)
    assert varied.any()
    assert np.all(Xs >= -1) and np.all(Xs <= 1)
    np.testing.assert_array_equal(Xs.min(axis=0)[varied], -1.0)
    np.testing.assert_array_equal(Xs.max(axis=0)[varied], 1.0)
    np.testing.assert_array_equal(Xs[:, ~varied], 0.0)
    np.testing.assert_allclose(Xs, scale_minus1_1(X0), atol=1e-6)
    # the cached dataset itself is not modified
    np.testing.assert_array_equal(load_cell_dataset(normalise_dataset_entry("breast_cancer"), bc_path, 0)[0], X0)

    ext = normalise_dataset_entry({"name": "breast_cancer", "scale": "minus1_1", "extend": {}})
    Xe, ye, _ = load_cell_dataset(ext, bc_path, 0)
    d = X0.shape[1]
    assert Xe.shape == (X0.shape[0], d + 10) and Xe.dtype == X0.dtype
    np.testing.assert_array_equal(Xe[:, :d], Xs)
    np.testing.assert_array_equal(ye, y0)
    assert set(np.unique(Xe[:, d:]).tolist()) == {-1.0, 1.0}
    # the same columns for every repetition, from the seed of (name, positive)
    np.testing.assert_array_equal(load_cell_dataset(ext, bc_path, 1)[0], Xe)
    seed = derive_seed(0, "breast_cancer", "default", "extend")
    np.testing.assert_array_equal(Xe, extend_attributes(Xs, y0, 5, 5, 0.3, random_state=seed).astype(Xe.dtype))
    corr = [np.corrcoef(Xe[:, j], y0)[0, 1] for j in range(d, d + 10)]
    assert min(corr[:5]) > 0.2 and max(abs(c) for c in corr[5:]) < 0.15
    # extension without scaling appends to the raw features
    raw_ext = normalise_dataset_entry({"name": "breast_cancer", "extend": {"n_correlated": 1, "n_noise": 2}})
    Xr, _, _ = load_cell_dataset(raw_ext, bc_path, 0)
    np.testing.assert_array_equal(Xr[:, :d], X0)
    assert Xr.shape[1] == d + 3


def test_label_sets_and_repetitions_see_the_transformed_features(schema_path, bc_path):
    """A SAR setting on an extended column (index 30 exists only in the extended data) and
    a method fitted on the 40 columns."""
    from pu_lib.workflow.experiments.runner import load_cell_dataset
    from pu_lib.labeling import sar_propensity, scale_minus1_1

    cfg = _config({"naive_lr": {"method": "naive", "base": "logistic_regression"}}, {"test_size": 0.25},
                  setting={"mechanism": "sar", "k": 1, "attributes": [30]})
    cfg["experiments"]["e"]["datasets"] = [{"name": "breast_cancer", "scale": "minus1_1", "extend": {}}]
    grid = Grid(validate_config(cfg, schema_path))
    cell = next(grid.cells())
    assert cell.dataset == "breast_cancer-scaled-ext5c5n"
    spec = grid.fit_spec(cell)
    labels = make_label_sets(spec, bc_path)
    X, _, _ = load_cell_dataset(spec["dataset"], bc_path, 0)
    assert X.shape[1] == 40
    lab = labels[labels["rep"] == 0].sort_values("row")
    e = sar_propensity(scale_minus1_1(X[:, [30]]))
    np.testing.assert_allclose(lab["propensity"].to_numpy(), e[lab["row"].to_numpy()])
    assert set(np.round(lab["propensity"], 12)) == {0.2, 0.8}  # a +-1 column: p- or p+
    rows = [run_repetition(t) for t in build_tasks(spec, bc_path, labels)]
    assert len(rows) == 2 and all(0 < r["f1"] <= 1 for r in rows)


# --------------------------------------------------------------------------- dataset missing values
@needs_mirror
def test_missing_zero_keeps_every_row_of_mice_protein_with_nan_as_zero(tmp_path):
    """PULSNAR's Mice Protein (1,080 rows, many NaN): the authors keep every row and set
    NaN to 0 (their ``pulscar_mouse_protein_alpha_estimation.py``); the default drops the
    incomplete rows, which leaves too few positives for alpha = 0.5 under ``pulsnar_alpha``."""
    from pu_lib.datasets import load_canonical
    from pu_lib.workflow.experiments.runner import load_cell_dataset, make_label_sets

    path = str(prepare_dataset("mice_protein", tmp_path / "mice_protein.parquet", data_mirror=MIRROR,
                               cache_dir=tmp_path / "cache", download=False))
    raw = load_canonical(path, dropna=False)
    assert raw.X.shape == (1080, 77) and np.isnan(raw.X).any()
    dropped = normalise_dataset_entry({"name": "mice_protein", "positive": "pulsnar"})
    zero = normalise_dataset_entry({"name": "mice_protein", "positive": "pulsnar", "missing": "zero"})
    Xd, yd, _ = load_cell_dataset(dropped, path, 0)
    Xz, yz, gz = load_cell_dataset(zero, path, 0)
    complete = ~np.isnan(raw.X).any(axis=1)
    assert Xd.shape[0] == complete.sum() < 1080
    assert Xz.shape == (1080, 77) and Xz.dtype == raw.X.dtype and not np.isnan(Xz).any()
    np.testing.assert_array_equal(Xz, np.where(np.isnan(raw.X), 0, raw.X))
    np.testing.assert_array_equal(Xz[complete], Xd)
    assert (yz == 1).sum() == 570 and (yz == 0).sum() == 510  # c-* against t-*, every row
    assert set(gz[yz == 1]) == {"c-CS-m", "c-CS-s", "c-SC-m", "c-SC-s"}
    # the cached data set is not modified by the fill
    assert np.isnan(load_canonical(path, dropna=False).X).any()
    # alpha = 0.5 needs 510 unlabeled positives: there with every row, not without the NaN rows
    spec = {"seed": 1, "experiment": "e", "setting": {"mechanism": "pulsnar_alpha", "alpha": 0.5},
            "setting_id": "pulsnar_alpha-alpha0.5",
            "split": {"test_size": 0.0, "val_size": 0.0, "max_samples": None, "evaluate_on": "unlabeled"},
            "repetitions": 1}
    lab = make_label_sets({**spec, "dataset": zero}, path)
    assert ((lab["s"] == 0) & (lab["y"] == 1)).sum() == 510 and (lab["s"] == 1).sum() == 60
    with pytest.raises(ValueError, match="alpha=0.5 needs"):
        make_label_sets({**spec, "dataset": dropped}, path)
    with pytest.raises(ValueError, match="unknown missing='mean'"):
        load_cell_dataset({**zero, "missing": "mean"}, path, 0)
