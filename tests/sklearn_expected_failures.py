"""The one place where scikit-learn estimator checks that cannot apply to PU input are
declared, each with its reason (used by ``tests/test_sklearn_checks.py`` through
``parametrize_with_checks(expected_failed_checks=...)``; a listed check that starts
passing fails the suite, ``xfail_strict``).

Keys are class names; values map a check name to the reason it cannot pass.
"""

from __future__ import annotations

# --- reasons shared by the PU estimators whose fit takes (X, s) with s the 0/1 labeled indicator
_S_NAMED_S = ("fit(X, s): the PU labels are named s across pu_lib (1 = labeled positive, 0 = unlabeled), "
              "never y, to keep them apart from the true classes y")
_S_KEYWORD_Y = ("calls fit(X, y=..., sample_weight=...) with the keyword y; fit's target is named s "
                "(integer weights == repeated rows is tested in tests/test_baselines.py and test_prior_base.py)")
_S_LABELS_1_2 = ("fits on labels {1, 2}; s must be the 0/1 labeled indicator (pu_lib._validation.check_binary "
                 "refuses other encodings so that the labeled class is never guessed); the same property with 0/1 "
                 "labels is tested in tests/test_baselines.py / test_prior_base.py")
_S_STRING_CLASSES = ("fits on string labels and expects predictions in them; s is the 0/1 labeled indicator and "
                     "a PU classifier predicts the true class y in {0, 1}, not a value of s")
_PU_CLASSIFIER = {
    "check_fit_score_takes_y": _S_NAMED_S,
    "check_sample_weight_equivalence_on_dense_data": _S_KEYWORD_Y,
    "check_estimators_dtypes": _S_LABELS_1_2,
    "check_sample_weights_pandas_series": _S_LABELS_1_2,
    "check_sample_weights_not_an_array": _S_LABELS_1_2,
    "check_sample_weights_shape": _S_LABELS_1_2,
    "check_sample_weights_not_overwritten": _S_LABELS_1_2,
    "check_classifier_data_not_an_array": _S_LABELS_1_2,
    "check_fit2d_1feature": _S_LABELS_1_2,
    "check_classifiers_classes": _S_STRING_CLASSES,
}
_PU_TREE = {
    "check_sample_weight_equivalence_on_dense_data": (
        "calls fit(X, y=..., sample_weight=...) with the keyword y; fit's target is named s (integer weights == "
        "repeated rows and zero weights == removed rows are tested for every tree estimator in "
        "tests/test_tree_weights.py)"),
}
_PRIOR_ESTIMATOR = {
    "check_fit_score_takes_y": _S_NAMED_S,
    "check_estimators_dtypes": _S_LABELS_1_2,
    "check_fit2d_1feature": _S_LABELS_1_2,
}
_PRIOR_ESTIMATOR_WEIGHTED = {
    **_PRIOR_ESTIMATOR,
    "check_sample_weight_equivalence_on_dense_data": _S_KEYWORD_Y,
    "check_sample_weights_pandas_series": _S_LABELS_1_2,
    "check_sample_weights_not_an_array": _S_LABELS_1_2,
    "check_sample_weights_shape": _S_LABELS_1_2,
    "check_sample_weights_not_overwritten": _S_LABELS_1_2,
}

#: class name -> {check name: reason}
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    # baselines (pu_lib.baselines: Naive, Elkan-Noto)
    "NaivePUClassifier": dict(_PU_CLASSIFIER),
    "ElkanNotoClassifier": dict(_PU_CLASSIFIER),
    # uPU / nnPU / imbalanced nnPU by XGBoost (weights == repeated rows: tests/test_nnpu_xgb.py)
    "PURiskXGBClassifier": dict(_PU_CLASSIFIER),
    # Rank Pruning and Spy-EM take no sample_weight (out-of-fold / spy draws over rows)
    "RankPruningClassifier": {k: v for k, v in _PU_CLASSIFIER.items() if "sample_weight" not in k},
    "SpyEMClassifier": {k: v for k, v in _PU_CLASSIFIER.items() if "sample_weight" not in k},
    # PU tree estimators (pu_lib.trees, pu_lib.baselines); PN trees, HDT and SupervisedET pass every check
    "PUDecisionTreeClassifier": dict(_PU_CLASSIFIER, **_PU_TREE),
    "PUExtraTreesClassifier": dict(_PU_CLASSIFIER, **_PU_TREE),
    "NaivePUExtraTreesClassifier": dict(_PU_CLASSIFIER, **_PU_TREE),
    "PUBaggingExtraTreesClassifier": dict(_PU_CLASSIFIER, **_PU_TREE),
    # PU bagging on any base, Lee & Liu's weighted LR, ADASYN + RF (pu_lib.baselines)
    "PUBaggingClassifier": dict(_PU_CLASSIFIER),
    "PUWeightedLogisticRegression": dict(_PU_CLASSIFIER),
    "ADASYNRandomForestClassifier": dict(_PU_CLASSIFIER, check_sample_weight_equivalence_on_dense_data=(
        "calls fit(X, y=..., sample_weight=...) with the keyword y; fit's target is named s. Integer weights could "
        "not equal repeated rows anyway: ADASYN takes no weights, and repeating a row changes its neighbourhoods "
        "and the number of synthetic rows (zero weight == removed row is tested in tests/test_adasyn_rf.py)")),
    "PUHellingerTreeClassifier": dict(_PU_CLASSIFIER, **_PU_TREE),
    "PUHellingerForestClassifier": dict(_PU_CLASSIFIER, **_PU_TREE),
    # Ada-PU (pu_lib.ensemble); sample-weight equivalence is tested in tests/test_ada_pu.py
    "AdaPUClassifier": dict(_PU_CLASSIFIER),
    # the Ada-PU paper's PN boosting baselines (pu_lib.baselines.pn_boosting)
    "PNBoostingClassifier": {
        "check_sample_weight_equivalence_on_dense_data": (
            "fits on a random PN subsample of the rows (n_p positives, (pi_n/2pi_p)^2 n_p negatives): repeating a "
            "row changes which rows are drawn, so integer weights cannot equal repeated rows; with n_positives and "
            "n_negatives None (every row) the booster gets the weights (tested in tests/test_pn_boosting.py)"),
    },
    # SAR methods (pu_lib.sar) and the supervised oracle on any base classifier
    "PropensityWeightedClassifier": dict(_PU_CLASSIFIER),
    "LabelFrequencyWeightedClassifier": dict(_PU_CLASSIFIER),
    "SAREMClassifier": dict(_PU_CLASSIFIER),
    "SupervisedClassifier": {k: v for k, v in _PU_CLASSIFIER.items()
                             if k not in ("check_fit_score_takes_y", "check_sample_weight_equivalence_on_dense_data")},
    # class-prior estimators (pu_lib.prior): not classifiers, fit(X, s) only
    "TIcE": dict(_PRIOR_ESTIMATOR),
    "PULSCAR": dict(_PRIOR_ESTIMATOR),
    "PULSNAR": dict(_PRIOR_ESTIMATOR),
    "ElkanNotoPrior": dict(_PRIOR_ESTIMATOR_WEIGHTED),
    "KMPriorEstimator": dict(_PRIOR_ESTIMATOR),
    "DEDPUL": dict(_PRIOR_ESTIMATOR),
}


def expected_failed_checks(estimator) -> dict[str, str]:
    return dict(EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {}))
