"""Small, fast settings of every registered method for the estimator checks: one table
for scikit-learn's checks with the PU properties (:mod:`pu_lib.utils.estimator_checks`) and
for the tests of scikit-learn's tools (pickle, clone, pipelines, cross-validation, grid
search). The settings change speed only (the checks test the API, not accuracy); the
adjustments to scikit-learn's check data, which label every row of class 1, are a second,
smaller table.

Keyed by the workflow's method names (plain strings: this module imports no estimator and
no registry). Use::

    registry.make_estimator(name, check_params(name, check_data=True), random_state=0)
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.base import BaseEstimator

__all__ = ["CHECK_DATA_PARAMS", "FAST_PARAMS", "LabeledSharePrior", "check_params", "unit_propensity"]

#: the neural learners in the checks: a small MLP, full batches (integer weights ==
#: repeated rows holds for whole-set batches), float64
_NEURAL = {"hidden_sizes": (16,), "epochs": 10, "batch_size": 1000, "learning_rate": 3e-2, "dtype": "float64"}
#: prior-taking classifiers get a numeric prior (no prior estimator in the loop)
_PRIOR = {"prior": 0.4}
_XGB_FEW = {"n_estimators": 5}


def unit_propensity(X):
    """The constant propensity 1 (module-level, so that a fitted estimator pickles)."""
    return np.ones(np.shape(X)[0])


class LabeledSharePrior(BaseEstimator):
    """A prior "estimator" returning the (weighted) labeled share: the truth of scikit-learn's
    check data, which label every row of class 1 (module-level, so that it pickles)."""

    def fit(self, X, s, sample_weight=None):
        s = np.asarray(s)
        w = np.ones(s.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        self.prior_ = float(w[s == 1].sum() / w.sum())
        self.alpha_ = 0.0
        return self


#: registry name -> constructor parameters that make the checks fast
FAST_PARAMS: dict[str, dict] = {
    # tree methods: few trees
    "pu_extra_trees": {"n_estimators": 5, **_PRIOR},
    "pu_decision_tree": dict(_PRIOR),
    "pu_hellinger_tree": dict(_PRIOR),
    "pu_hellinger_forest": {"n_estimators": 5, **_PRIOR},
    "pn_extra_trees": {"n_estimators": 5},
    "supervised_et": {"n_estimators": 5},
    "naive_pu_et": {"n_estimators": 5},
    "pu_bagging_et": {"n_estimators": 3, "base_n_estimators": 5},
    "pu_bagging": {"n_estimators": 5},
    "adasyn_rf": {"n_estimators": 10},
    # Lee and Liu's selection of C on two candidates (the default grid's C = inf runs lbfgs
    # to max_iter on the checks' separable data)
    "pu_weighted_lr": {"C_grid": (0.1, 1.0)},
    # PU risks by XGBoost and Ada-PU: 10 rounds
    "upu_xgb": {"n_estimators": 10, **_PRIOR},
    "nnpu_xgb": {"n_estimators": 10, **_PRIOR},
    "imbalanced_nnpu_xgb": {"n_estimators": 10, **_PRIOR},
    "nnpu_xgb_csboost": {"n_estimators": 10, **_PRIOR},
    "imbalanced_nnpu_xgb_csboost": {"n_estimators": 10, **_PRIOR},
    "ada_pu": {"n_estimators": 10, **_PRIOR},
    "pn_boosting": {"n_estimators": 5},
    # class-prior estimators: few small XGBoost models, 2 folds, at most 2 GMM components
    "pulscar": {"n_folds": 2, "max_depth": 2, "n_bins": 8, "xgb_params": _XGB_FEW},
    "pulsnar": {"n_folds": 2, "max_depth": 2, "n_bins": 8, "xgb_params": _XGB_FEW, "max_clusters": 2},
    "tice": {"max_splits": 20},
    "dedpul": {"n_folds": 2, "max_depth": 2, "xgb_params": _XGB_FEW},
    "alphamax": {"n_folds": 2, "max_depth": 2, "xgb_params": _XGB_FEW},
    "alphamax_n": {"n_folds": 2, "max_depth": 2, "xgb_params": _XGB_FEW},
    # SAR methods (Bekker thesis ch. 5): a propensity function in place of the fit input and a
    # given label frequency, both 1, the first column as propensity attribute, few EM iterations
    "propensity_weighted": {"propensity_function": unit_propensity},
    "label_frequency_weighted": {"label_frequency": 1.0},
    "sar_em": {"propensity_attributes": [0], "max_iter": 5},
    # neural PU learners
    "upu": {**_PRIOR, **_NEURAL},
    "nnpu": {**_PRIOR, **_NEURAL},
    "imbalanced_nnpu": {**_PRIOR, **_NEURAL},
    "vpu": dict(_NEURAL),
    # Self-PU: the same small network without batch norm, 12 epochs, a selection after epoch 3
    # and the teachers from epoch 6, so that every mechanism runs
    "selfpu": {**_PRIOR, **_NEURAL, "batch_norm": False, "epochs": 12, "self_paced_start": 3, "self_paced_ramp": 12,
               "ema_start": 6},
}

#: the scenario of the prior-taking classifiers on scikit-learn's check data: they hold up
#: to 82.5% rows of class 1 (read as labeled), so a single-training-set prior of 0.4 is below
#: their labeled share and refused (pu_lib._validation.check_prior_feasible); in the
#: case-control scenario the prior is that of the unlabeled rows' population, which the
#: labeled share does not bound
_CASE_CONTROL = {"scenario": "case_control"}
#: registry name -> what scikit-learn's check data need on top of :data:`FAST_PARAMS`: the
#: case-control scenario, or the labeled share as the prior (its truth there: Ada-PU and two
#: of the XGBoost risks fall below check_classifiers_train's accuracy at a prior of 0.4)
CHECK_DATA_PARAMS: dict[str, dict] = {
    **{name: _CASE_CONTROL for name in ("pu_extra_trees", "pu_decision_tree", "pu_hellinger_tree",
                                        "pu_hellinger_forest", "upu", "nnpu", "imbalanced_nnpu", "selfpu")},
    **{name: {"prior": LabeledSharePrior()} for name in ("ada_pu", "upu_xgb", "nnpu_xgb", "imbalanced_nnpu_xgb",
                                                         "nnpu_xgb_csboost", "imbalanced_nnpu_xgb_csboost")},
}


def check_params(name: str, check_data: bool = False) -> dict:
    """A fresh copy of the fast settings of method ``name`` (empty for a method that needs
    none), with the adjustments to scikit-learn's check data when ``check_data``."""
    params = copy.deepcopy(FAST_PARAMS.get(name, {}))
    if check_data:
        params.update(copy.deepcopy(CHECK_DATA_PARAMS.get(name, {})))
    return params
