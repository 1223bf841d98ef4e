"""scikit-learn's own estimator checks on every registered estimator.

Each estimator of :data:`pu_lib.registry.METHODS` is checked with
``parametrize_with_checks``; the instances below use small settings where the defaults
would make a check slow (the checks test the API, not accuracy). Checks that cannot
apply to PU input are listed, with reasons, in ``sklearn_expected_failures.py``.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.estimator_checks import parametrize_with_checks

from pu_lib import registry
from sklearn_expected_failures import EXPECTED_FAILED_CHECKS, expected_failed_checks

#: registry name -> constructor parameters used for the checks (speed only)
CHECK_PARAMS: dict[str, dict] = {
    # tree methods: few trees; PU trees get a numeric prior (no prior estimator in the loop)
    "pu_extra_trees": {"n_estimators": 5, "prior": 0.4},
    "pu_decision_tree": {"prior": 0.4},
    "pu_hellinger_tree": {"prior": 0.4},
    "pu_hellinger_forest": {"n_estimators": 5, "prior": 0.4},
    "pn_extra_trees": {"n_estimators": 5},
    "supervised_et": {"n_estimators": 5},
    "naive_pu_et": {"n_estimators": 5},
    "pu_bagging_et": {"n_estimators": 3, "base_n_estimators": 5},
    "pu_bagging": {"n_estimators": 5},
    "adasyn_rf": {"n_estimators": 10},
    # PU risks by XGBoost: a numeric prior, 10 rounds
    "upu_xgb": {"n_estimators": 10, "prior": 0.4},
    "nnpu_xgb": {"n_estimators": 10, "prior": 0.4},
    "imbalanced_nnpu_xgb": {"n_estimators": 10, "prior": 0.4},
    # Ada-PU: a numeric prior, 10 rounds
    "ada_pu": {"n_estimators": 10, "prior": 0.4},
    "pn_boosting": {"n_estimators": 5},
    # class-prior estimators: few small XGBoost models, 2 folds, at most 2 GMM components
    "pulscar": {"n_folds": 2, "max_depth": 2, "n_bins": 8, "xgb_params": {"n_estimators": 5}},
    "pulsnar": {"n_folds": 2, "max_depth": 2, "n_bins": 8, "xgb_params": {"n_estimators": 5}, "max_clusters": 2},
    "tice": {"max_splits": 20},
    "dedpul": {"n_folds": 2, "max_depth": 2, "xgb_params": {"n_estimators": 5}},
    # SAR methods (Bekker thesis ch. 5): a propensity function in place of the fit input
    # and a given label frequency, both 1 (the checks fit on y: every positive labeled, so
    # e = 1 is the truth), the first column as propensity attribute, few EM iterations
    "propensity_weighted": {"propensity_function": "one"},
    "label_frequency_weighted": {"label_frequency": 1.0},
    "sar_em": {"propensity_attributes": [0], "max_iter": 20},
}


def unit_propensity(X):
    """The constant propensity 1 (module-level, so that the fitted estimator pickles)."""
    return np.ones(np.shape(X)[0])


CHECK_PARAMS["propensity_weighted"]["propensity_function"] = unit_propensity


def _instances():
    return [registry.make_estimator(name, CHECK_PARAMS.get(name), random_state=0) for name in registry.names()]


ESTIMATORS = _instances()


def test_every_registered_method_is_checked():
    assert [type(e).__name__ for e in ESTIMATORS] == [
        registry.METHODS[n].target.split(":")[1] for n in registry.names()
    ]


def test_every_exemption_names_a_registered_estimator_and_has_a_reason():
    classes = {type(e).__name__ for e in ESTIMATORS}
    for cls, checks in EXPECTED_FAILED_CHECKS.items():
        assert cls in classes, cls
        for check, reason in checks.items():
            assert isinstance(reason, str) and len(reason) > 20, (cls, check)


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks, xfail_strict=True)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
