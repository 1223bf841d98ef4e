"""The PU estimates a workflow result row can carry (``pu_auc``, ``pu_auc_corrected``,
``pu_f1``, ``pu_accuracy``, ``nnpu_risk``): computed by
:func:`pu_lib.experiments.classifier_eval.pu_estimates` with the functions of
:mod:`pu_lib.model_selection`, only for the experiments that report them."""
import numpy as np
import pytest

from pu_lib import model_selection as ms
from pu_lib.baselines.naive import NaivePUClassifier
from pu_lib.experiments.classifier_eval import pu_estimates
from pu_lib.metrics import METRICS, PU_ESTIMATE_METRICS


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(np.int8)
    s = (y & (rng.random(300) < 0.5)).astype(np.int8)
    est = NaivePUClassifier().fit(X, s)
    return est, X, s


def test_each_estimate_is_the_model_selection_function_on_the_same_rows(fitted):
    est, X, s = fitted
    pred = est.predict(X)
    proba = est.predict_proba(X)[:, 1]
    score = est.decision_function(X) if hasattr(est, "decision_function") else proba
    out = pu_estimates(list(PU_ESTIMATE_METRICS), est, X, s, pred, 0.5, "single_training_set")
    assert out == {
        "pu_auc": ms.pu_roc_auc_score(s, score),
        "pu_auc_corrected": ms.pu_roc_auc_corrected(s, score, 0.5),
        "pu_f1": ms.pu_f1_score(s, pred, 0.5),
        "pu_accuracy": ms.pu_accuracy_score(s, pred, 0.5),
        "nnpu_risk": ms.pu_risk_sigmoid(s, proba, 0.5, "nnpu", "proba"),
    }
    assert all(name in METRICS and METRICS[name]["result_column"] for name in PU_ESTIMATE_METRICS)


def test_without_a_prior_or_without_both_label_values_the_estimates_are_nan(fitted):
    est, X, s = fitted
    pred = est.predict(X)
    out = pu_estimates(["pu_auc", "pu_f1", "nnpu_risk"], est, X, s, pred, None, "single_training_set")
    assert 0.0 <= out["pu_auc"] <= 1.0 and np.isnan(out["pu_f1"]) and np.isnan(out["nnpu_risk"])
    for s_bad in (np.zeros_like(s), np.ones_like(s)):
        assert all(np.isnan(v) for v in pu_estimates(["pu_auc"], est, X, s_bad, pred, 0.5,
                                                      "single_training_set").values())
    assert pu_estimates([], est, X, s, pred, 0.5, "single_training_set") == {}
