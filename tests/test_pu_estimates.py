"""The PU estimates every classifier result row carries (``pu_auc``,
``pu_auc_corrected``, ``pu_f1``, ``pu_accuracy``, ``nnpu_risk``): computed by
:func:`pu_lib.workflow.experiments.classifier_eval.pu_estimates` with the functions of
:mod:`pu_lib.model_selection` on the rows Lee & Liu's criterion is computed on."""
import numpy as np
import pytest

from pu_lib import model_selection as ms
from pu_lib.baselines.naive import NaivePUClassifier
from pu_lib.workflow.experiments.classifier_eval import pu_estimates, ranking_score
from pu_lib.metrics import METRICS, PU_ESTIMATE_METRICS


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(np.int8)
    s = (y & (rng.random(300) < 0.5)).astype(np.int8)
    est = NaivePUClassifier().fit(X, s)
    proba = est.predict_proba(X)[:, 1]
    return s, est.predict(X), proba, ranking_score(est, X, proba)


def test_each_estimate_is_the_model_selection_function_on_the_same_rows(fitted):
    s, pred, proba, score = fitted
    out = pu_estimates(s, pred, proba, score, 0.5, "single_training_set")
    assert out == {
        "pu_auc": ms.pu_roc_auc_score(s, score),
        "pu_auc_corrected": ms.pu_roc_auc_corrected(s, score, 0.5),
        "pu_f1": ms.pu_f1_score(s, pred, 0.5),
        "pu_accuracy": ms.pu_accuracy_score(s, pred, 0.5),
        "nnpu_risk": ms.pu_risk_sigmoid(s, proba, 0.5, "nnpu", "proba"),
    }
    assert list(out) == list(PU_ESTIMATE_METRICS)
    assert all(METRICS[name]["result_column"] for name in PU_ESTIMATE_METRICS)


def test_without_a_prior_or_without_both_label_values_the_estimates_are_nan(fitted):
    s, pred, proba, score = fitted
    out = pu_estimates(s, pred, proba, score, None, "single_training_set")
    assert 0.0 <= out["pu_auc"] <= 1.0
    assert all(np.isnan(out[name]) for name in PU_ESTIMATE_METRICS if name != "pu_auc")
    for s_bad in (np.zeros_like(s), np.ones_like(s)):
        assert all(np.isnan(v) for v in pu_estimates(s_bad, pred, proba, score, 0.5, "single_training_set").values())
