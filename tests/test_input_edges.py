"""Bad input at the edges, in the estimators: constant features for
the class-prior estimators, sparse X, DataFrames with non-numeric columns, XGBoost
parameters of PULSCAR / PULSNAR, n_estimators <= 0 (at fit and in the config). The other
config-time checks are in test_config_edges.py."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import yaml

from pu_lib.workflow import registry
from pu_lib._validation import DegenerateFeaturesWarning, SparseInputError, accepts_sparse, varying_columns
from pu_lib.base import fit_inputs
from pu_lib.workflow.experiments.config import ConfigError, validate_config
from pu_lib.workflow.experiments.methods import make_method
from pu_lib.prior import PULSCAR, PULSNAR, ElkanNotoPrior, TIcE


def _pu(n=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    s = np.zeros(n, dtype=int)
    s[: n // 5] = 1
    X[: n // 5] += 1.0
    return X, s


def _priors():
    from pu_lib.base_learners import make_base_estimator

    return [TIcE(random_state=0), PULSCAR(random_state=0), PULSNAR(random_state=0, max_clusters=3),
            ElkanNotoPrior(estimator=make_base_estimator("logistic_regression"), random_state=0)]


def _spec(name):
    spec = {"method": name, "params": {}}
    if registry.get(name).takes_base:
        spec["base"] = "logistic_regression"
    schema = registry.parameter_schema(name)
    if "prior" in schema:
        spec["params"]["prior"] = 0.4
    if "label_frequency" in schema:
        spec["params"]["label_frequency"] = 0.5
    for p in ("n_estimators", "base_n_estimators"):
        if p in schema:
            spec["params"][p] = 3
    if "epochs" in schema:  # the networks: these tests check input handling, not training
        spec["params"]["epochs"] = 2
    return spec


def _fit_kwargs(est, y, n):
    supplied = {"y_true": y, "propensity": np.full(n, 0.5), "propensity_attributes": [0]}
    return {k: supplied[k] for k in fit_inputs(est)}


# --------------------------------------------------------------------------- constant features
@pytest.mark.parametrize("est", _priors(), ids=lambda e: type(e).__name__)
def test_prior_estimators_refuse_x_with_every_feature_constant(est):
    X, s = _pu()
    with pytest.raises(ValueError, match="every feature of X is constant"):
        est.fit(np.ones_like(X), s)
    with pytest.raises(ValueError, match=type(est).__name__):
        est.fit(np.full_like(X, 3.5), s)


@pytest.mark.parametrize("est", _priors(), ids=lambda e: type(e).__name__)
def test_prior_estimators_warn_but_still_estimate_when_no_feature_varies_among_the_labeled(est):
    X, s = _pu()
    X[s == 1] = 0.25
    with pytest.warns(DegenerateFeaturesWarning, match="labeled rows"):
        est.fit(X, s)
    # an estimate, not an error: the raw value is finite (the base class clips alpha_ to [0, 1],
    # so a bound on alpha_ could not fail)
    assert np.isfinite(est.raw_estimate_)
    # a varying feature among the labeled: no warning
    X, s = _pu()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateFeaturesWarning)
        est.fit(X, s)


def test_a_classifier_estimating_its_prior_on_constant_x_fails_naming_the_cause():
    X, s = _pu()
    est = make_method({"method": "pu_decision_tree", "params": {"prior": "tice", "max_depth": 2}}, random_state=0)
    with pytest.raises(ValueError, match="every feature of X is constant"):
        est.fit(np.zeros_like(X), s)


def test_varying_columns_counts_nan_as_a_value():
    X = np.array([[1, 2, np.nan, np.nan, 5], [1, 3, np.nan, 4, 5.0], [1, 2, np.nan, np.nan, 5]])
    assert varying_columns(X).tolist() == [False, True, False, True, False]
    # PULSCAR / PULSNAR take NaN: a column of one number and NaN is informative
    X, s = _pu()
    Xn = np.ones_like(X)
    Xn[::3, 0] = np.nan
    PULSCAR(random_state=0).fit(Xn, s)


# --------------------------------------------------------------------------- sparse and non-numeric X
@pytest.mark.parametrize("name", registry.names())
def test_sparse_x_is_refused_naming_sparse_input(name):
    X, s = _pu()
    est = make_method(_spec(name), random_state=0)
    if accepts_sparse(est):
        pytest.skip("takes sparse input (tests/test_sparse_input.py)")
    with pytest.raises(SparseInputError, match="sparse matrix.*toarray") as exc:
        est.fit(sp.csr_matrix(X), s, **_fit_kwargs(est, s, len(s)))
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, TypeError)


@pytest.mark.parametrize("name", registry.names())
def test_a_dataframe_with_non_numeric_columns_is_refused_naming_them(name):
    X, s = _pu()
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    df["colour"] = ["red", "blue"] * (len(df) // 2)
    df["kind"] = pd.Categorical(["u", "v", "w"] * (len(df) // 3))
    est = make_method(_spec(name), random_state=0)
    with pytest.raises(ValueError, match=r"non-numeric column\(s\) \['colour', 'kind'\]"):
        est.fit(df, s, **_fit_kwargs(est, s, len(s)))


@pytest.mark.parametrize("name", registry.names("classifier"))
def test_predict_names_non_numeric_columns_and_sparse_input(name):
    X, s = _pu()
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    est = make_method(_spec(name), random_state=0)
    est.fit(df, s, **_fit_kwargs(est, s, len(s)))
    bad = df.assign(d=["x"] * len(df))
    with pytest.raises(ValueError, match=r"non-numeric column\(s\) \['d'\]"):
        est.predict_proba(bad)
    if not accepts_sparse(est):  # the others: tests/test_sparse_input.py
        with pytest.raises(SparseInputError):
            est.predict(sp.csr_matrix(X))


def test_boolean_and_numeric_categorical_columns_are_numeric():
    X, s = _pu()
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    df["flag"] = df["a"] > 0
    df["level"] = pd.Categorical((df["b"] > 0).astype(int))
    TIcE(random_state=0).fit(df, s)


# --------------------------------------------------------------------------- XGBoost parameters
@pytest.mark.parametrize("cls", [PULSCAR, PULSNAR])
@pytest.mark.parametrize("params, named", [
    ({"subsample": 2}, "xgb_params['subsample'] = 2: XGBoost rejects it"),
    ({"gamma": "abc"}, "xgb_params['gamma'] = 'abc': XGBoost rejects it"),
    ({"max_bin": 1}, "xgb_params['max_bin'] = 1: XGBoost rejects it"),
    ({"objective": "nonsense"}, "xgb_params['objective'] = 'nonsense': XGBoost rejects it"),
    ({"colsample_bytreee": 0.5}, "xgb_params['colsample_bytreee'] = 0.5: not an XGBoost parameter"),
    ({"n_estimators": 0}, "xgb_params['n_estimators'] must be an integer >= 1"),
    ({"n_estimators": -2}, "xgb_params['n_estimators'] must be an integer >= 1"),
    ({"max_depth": 3}, "xgb_params must not set ['max_depth']"),
    ({"tree_method": "fast"}, "xgb_params['tree_method'] = 'fast': XGBoost rejects it"),
])
def test_xgboost_parameter_errors_are_caught_at_fit_naming_the_parameter(cls, params, named):
    X, s = _pu()
    est = cls(xgb_params=params, random_state=0)
    with pytest.raises(ValueError, match=re.escape(named)):
        est.fit(X, s)
    # ... and before any job runs: the config check (registry.check_params) names it too
    with pytest.raises(ValueError):
        registry.check_params(cls.__name__.lower(), {"xgb_params": params})


@pytest.mark.parametrize("cls", [PULSCAR, PULSNAR])
def test_an_xgboost_estimator_with_a_bad_parameter_is_named(cls):
    from xgboost import XGBClassifier

    X, s = _pu()
    with pytest.raises(ValueError, match=r"estimator \(XGBoost\) parameter\['subsample'\] = 3"):
        cls(estimator=XGBClassifier(subsample=3), random_state=0).fit(X, s)
    with pytest.raises(ValueError, match=r"parameter\['n_estimators'\] must be an integer >= 1"):
        cls(estimator=XGBClassifier(n_estimators=0), random_state=0).fit(X, s)
    with pytest.raises(ValueError, match=r"estimator \(XGBoost\) parameter\['tree_method'\] = 'fast'"):
        cls(estimator=XGBClassifier(tree_method="fast"), random_state=0).fit(X, s)


def test_xgboost_errors_inside_a_fold_become_value_errors():
    from xgboost import XGBClassifier

    from pu_lib.oof import cv_probabilities

    X, s = _pu()
    with pytest.raises(ValueError, match=r"XGBoost failed to fit with parameters \{.*'max_bin': 1.*max_bin"):
        cv_probabilities(X, s, estimator=XGBClassifier(max_bin=1), random_state=0)


def test_valid_xgb_params_are_accepted_and_give_a_finite_estimate():
    X, s = _pu()
    a = PULSCAR(xgb_params={"subsample": 1.0, "n_estimators": 50, "reg_lambda": 2.0}, random_state=0).fit(X, s)
    assert np.isfinite(a.raw_estimate_)  # alpha_ itself is clipped to [0, 1] by the base class


# --------------------------------------------------------------------------- n_estimators <= 0
ENSEMBLE_PARAMS = [(n, p) for n in registry.names() for p in registry.parameter_schema(n)
                   if p == "n_estimators" or p.endswith("_n_estimators")]


def test_every_ensemble_declares_its_tree_count():
    assert {n for n, _ in ENSEMBLE_PARAMS} >= {"pu_extra_trees", "pn_extra_trees", "supervised_et", "naive_pu_et",
                                               "pu_bagging_et", "pu_hellinger_forest", "ada_pu", "pn_boosting"}


@pytest.mark.parametrize("name, param", ENSEMBLE_PARAMS)
@pytest.mark.parametrize("value", [0, -1])
def test_n_estimators_below_one_is_refused_at_fit_and_in_the_config(name, param, value, repo, schema_path):
    X, s = _pu()
    spec = _spec(name)
    spec["params"][param] = value
    est = make_method({**spec, "params": {k: v for k, v in spec["params"].items() if k != param}}, random_state=0)
    est.set_params(**{param: value})
    with pytest.raises(ValueError, match=f"'{param}' parameter"):
        est.fit(X, s, **_fit_kwargs(est, s, len(s)))
    with open(repo / "config" / "config.yaml") as fh:
        cfg = yaml.safe_load(fh)
    cfg["methods"]["bad"] = spec
    with pytest.raises(ConfigError, match=rf"methods\.bad\.params: The '{param}' parameter"):
        validate_config(cfg, schema_path)


# --------------------------------------------------------------------------- public functions
def _public_function_calls():
    from pu_lib import metrics
    from pu_lib.labeling import scar_label_frequency, stratified_holdout
    from pu_lib.prior.calibration import calibrate_probabilities, flip_labels
    from pu_lib.prior.dedpul import dedpul_alpha

    p, s, y = [0.9, 0.2, 0.4, 0.7], [1, 0, 0, 0], np.array([1, 1, 0, 0])
    return [
        ("n_bins", lambda v: flip_labels(p, s, 0.5, n_bins=v), [0, True, 2.0]),
        ("alpha", lambda v: calibrate_probabilities(p, s, v), [1.5, float("nan"), True]),
        ("method", lambda v: calibrate_probabilities(p, s, 0.5, method=v), ["platt"]),
        ("method", lambda v: dedpul_alpha([1.0, 0.5], v), ["median"]),
        ("prior", lambda v: metrics.pu_risk_01(s, s, v), [-0.1, "0.3"]),
        ("c", lambda v: scar_label_frequency(y, v), [0.0, False]),
        ("test_size", lambda v: stratified_holdout(y, v), [1.0]),
    ]


@pytest.mark.parametrize("param, call, values", _public_function_calls(), ids=lambda v: v if isinstance(v, str) else "")
def test_public_functions_refuse_a_bad_parameter_by_name(param, call, values):
    """Public functions declare their parameters (pu_lib._validation.validate_params): a
    value out of range, of the wrong type, or a bool where a number is expected is a
    ValueError naming the parameter."""
    for value in values:
        with pytest.raises(ValueError, match=f"'{param}' parameter"):
            call(value)
