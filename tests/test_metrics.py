"""Tests for pu_lib.metrics: agreement with scikit-learn, threshold tuning, PU criterion."""

import math
import subprocess
import sys

import numpy as np
import pytest
from sklearn import metrics as skm

from pu_lib import metrics as m
from pu_lib._validation import CASE_CONTROL, SCENARIOS, SINGLE_TRAINING_SET


def _random_cases(n_cases=60, seed=0):
    """Random (y, score) pairs with many ties, both classes present."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n_cases:
        n = int(rng.integers(2, 120))
        y = rng.integers(0, 2, n)
        if y.min() == y.max():
            continue
        levels = int(rng.integers(1, 8))
        if rng.random() < 0.3:
            score = rng.random(n)  # continuous, no ties
        else:
            score = rng.integers(0, levels + 1, n) / max(levels, 1)  # heavy ties, in [0,1]
        out.append((y, score))
    return out


CASES = _random_cases()


# ------------------------------------------------------------ sklearn agreement


@pytest.mark.parametrize("i", range(len(CASES)))
def test_metrics_match_sklearn_on_random_cases_with_ties(i):
    y, score = CASES[i]
    y_pred = (score >= 0.5).astype(int)
    assert m.accuracy(y, y_pred) == pytest.approx(skm.accuracy_score(y, y_pred), abs=1e-12)
    assert m.f1(y, y_pred) == pytest.approx(skm.f1_score(y, y_pred, zero_division=0), abs=1e-12)
    assert m.mcc(y, y_pred) == pytest.approx(skm.matthews_corrcoef(y, y_pred), abs=1e-12)
    assert m.auc_roc(y, score) == pytest.approx(skm.roc_auc_score(y, score), abs=1e-12)
    assert m.auc_pr(y, score) == pytest.approx(skm.average_precision_score(y, score), abs=1e-12)
    assert m.brier(y, score) == pytest.approx(skm.brier_score_loss(y, score), abs=1e-12)
    other = np.random.default_rng(i).normal(size=y.shape[0])
    assert m.mse(score, other) == pytest.approx(skm.mean_squared_error(score, other), abs=1e-12)


def test_auc_with_unbounded_scores_matches_sklearn():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 500)
    score = np.round(rng.normal(size=500) * 3 + y, 0)  # ties, negative values
    assert m.auc_roc(y, score) == pytest.approx(skm.roc_auc_score(y, score), abs=1e-12)
    assert m.auc_pr(y, score) == pytest.approx(skm.average_precision_score(y, score), abs=1e-12)


def test_f1_is_zero_without_positives_and_mcc_is_zero_for_constant_predictions():
    y = np.zeros(5, int)
    assert m.f1(y, np.zeros(5, int)) == 0.0
    assert skm.f1_score(y, np.zeros(5, int), zero_division=0) == 0.0
    # constant prediction -> a zero factor in the MCC denominator -> 0
    y2 = np.array([0, 1, 1, 0])
    assert m.mcc(y2, np.ones(4, int)) == 0.0
    assert m.mcc(y2, y2) == 1.0
    assert m.mcc(y2, 1 - y2) == -1.0


def test_boolean_inputs_count_as_0_and_1():
    y = np.array([True, False, True, True])
    p = np.array([True, False, False, True])
    assert m.accuracy(y, p) == 0.75
    assert m.f1(y, p) == pytest.approx(0.8)


def test_auc_single_class_is_nan():
    assert math.isnan(m.auc_roc([1, 1, 1], [0.1, 0.5, 0.9]))
    assert math.isnan(m.auc_pr([0, 0, 0], [0.1, 0.5, 0.9]))


def test_prior_abs_error_is_the_absolute_difference_of_priors_in_0_1():
    assert m.prior_abs_error(0.25, 0.4) == pytest.approx(0.15)
    assert m.prior_abs_error(0.0, 1.0) == 1.0
    with pytest.raises(ValueError, match="prior_hat"):
        m.prior_abs_error(1.2, 0.4)
    with pytest.raises(ValueError, match="'prior' parameter"):
        m.prior_abs_error(0.2, -0.1)
    with pytest.raises(ValueError, match="prior_hat"):
        m.prior_abs_error(float("nan"), 0.3)


# ------------------------------------------------------------------ validation


def test_validation_errors_name_the_argument():
    with pytest.raises(ValueError, match="y_pred"):
        m.accuracy([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="y must hold only 0 and 1"):
        m.f1([0, 2, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="score contains 1 NaN"):
        m.auc_roc([0, 1, 1], [0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match="score"):
        m.best_f1_threshold([0, 1], [0.2, np.nan])
    with pytest.raises(ValueError, match="score has 2 entries"):
        m.auc_pr([0, 1, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match="proba"):
        m.brier([0, 1], [0.2, 1.5])
    with pytest.raises(ValueError, match="b has 2 entries"):
        m.mse([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="a contains"):
        m.mse([1.0, np.nan], [1.0, 2.0])
    with pytest.raises(ValueError, match="y_pred"):
        m.lee_liu([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="proba_test"):
        m.evaluate([0, 1], [0.2, np.nan])
    with pytest.raises(ValueError, match="y_test"):
        m.evaluate([0, 3], [0.2, 0.4])
    with pytest.raises(ValueError, match="s_test"):
        m.evaluate([0, 1], [0.2, 0.4], s_test=[0, 1, 1])
    with pytest.raises(ValueError, match="y_val and proba_val"):
        m.evaluate([0, 1], [0.2, 0.4], y_val=[0, 1])


# ---------------------------------------------------------- threshold tuning


def _brute_force_best(y, score):
    """Max F1 over all candidate thresholds; ties -> the largest threshold."""
    cands = np.unique(score)
    f1s = np.array([skm.f1_score(y, (score >= t).astype(int), zero_division=0) for t in cands])
    best = f1s.max()
    tied = cands[np.isclose(f1s, best, rtol=0, atol=1e-12)]
    return float(tied.max()), float(best)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_best_f1_threshold_equals_brute_force_search(i):
    y, score = CASES[i]
    t, f = m.best_f1_threshold(y, score)
    t_bf, f_bf = _brute_force_best(y, score)
    assert f == pytest.approx(f_bf, abs=1e-12)
    assert t == t_bf
    # the returned F1 is the F1 actually obtained at that threshold
    assert f == pytest.approx(skm.f1_score(y, (score >= t).astype(int)), abs=1e-12)


def test_best_f1_threshold_hand_case_and_tie_to_the_larger_threshold():
    # score >= 0.8 -> {1}: tp=1, F1 = 2/(1+2) = 2/3
    # score >= 0.5 -> {1, 0}: tp=1, pp=2 -> 2/4
    # score >= 0.2 -> all: tp=2, pp=3 -> 4/5  (best)
    t, f = m.best_f1_threshold([1, 0, 1], [0.8, 0.5, 0.2])
    assert (t, f) == (0.2, pytest.approx(0.8))
    # exact tie: t=0.9 -> tp=1, pp=1, P=2 -> 2/3 ; t=0.1 -> tp=2, pp=4 -> 4/6 = 2/3
    t, f = m.best_f1_threshold([1, 0, 0, 1], [0.9, 0.5, 0.5, 0.1])
    assert t == 0.9 and f == pytest.approx(2 / 3)
    # no positives: F1 is 0 everywhere, the largest score is returned
    t, f = m.best_f1_threshold([0, 0, 0], [0.3, 0.7, 0.1])
    assert (t, f) == (0.7, 0.0)


def test_best_f1_threshold_midpoint_is_the_middle_of_the_gap():
    # best: score >= 0.9 (tp=1 of P=2: 2/3 tie with all 4 -> larger threshold); gap down to 0.5
    assert m.best_f1_threshold([1, 0, 0, 1], [0.9, 0.5, 0.5, 0.1], midpoint=True) == (0.7, pytest.approx(2 / 3))
    # every row predicted positive: no lower score, the lowest score itself
    assert m.best_f1_threshold([1, 0, 1], [0.8, 0.5, 0.2], midpoint=True)[0] == 0.2
    # same predictions on the tuning scores, for any scores
    rng = np.random.default_rng(0)
    for _ in range(20):
        y = rng.integers(0, 2, 50)
        score = np.round(rng.random(50), 1)
        t_up, f_up = m.best_f1_threshold(y, score)
        t_mid, f_mid = m.best_f1_threshold(y, score, midpoint=True)
        assert f_mid == f_up and t_mid <= t_up
        assert np.array_equal(score >= t_up, score >= t_mid)


def test_f1_at_best_threshold_transfers_the_middle_of_the_gap():
    # validation leaves at 0.2 / 0.6 (positives); a refitted tree's positive leaf at 0.58
    # is still above the midpoint 0.4, not above the validation level 0.6
    y_val, s_val = [0, 0, 1, 1], [0.2, 0.2, 0.6, 0.6]
    assert m.f1_at_best_threshold(y_val, s_val, [0, 1, 1], [0.2, 0.58, 0.58]) == 1.0


def test_best_f1_threshold_on_200k_rows_with_many_ties_is_the_best_candidate():
    """200,000 rows, scores on a grid of 0.001 (about 1,300 distinct values, ~150 rows
    each): the threshold is the largest of the candidates of highest F1, every candidate's
    F1 counted directly (the small random cases compare with scikit-learn's f1_score over
    every candidate, ``test_best_f1_threshold_equals_brute_force_search``); its F1 is
    scikit-learn's at that threshold. Its speed is measured by no test."""
    rng = np.random.default_rng(7)
    n = 200_000
    y = rng.integers(0, 2, n)
    score = np.round(rng.random(n) + 0.3 * y, 3)
    t, f = m.best_f1_threshold(y, score)
    assert f == pytest.approx(skm.f1_score(y, (score >= t).astype(int)), abs=1e-12)
    cands = np.unique(score)
    f1s = np.empty(cands.shape[0])
    pos = y == 1
    for lo in range(0, cands.shape[0], 100):  # 100 candidates at a time: 20 MB of predictions
        pred = score[None, :] >= cands[lo:lo + 100, None]
        f1s[lo:lo + 100] = 2.0 * (pred & pos).sum(axis=1) / (pred.sum(axis=1) + pos.sum())
    best = f1s.max()  # ratios of integers, correctly rounded: equal ratios compare equal
    assert f == best
    assert t == cands[f1s == best].max()


def test_f1_at_best_threshold_applies_the_validation_threshold_to_test():
    rng = np.random.default_rng(11)
    y_val = rng.integers(0, 2, 300)
    s_val = np.round(rng.random(300) + 0.4 * y_val, 2)
    y_test = rng.integers(0, 2, 200)
    s_test = np.round(rng.random(200) + 0.4 * y_test, 2)
    t, _ = m.best_f1_threshold(y_val, s_val)
    expected = skm.f1_score(y_test, (s_test >= t).astype(int), zero_division=0)
    assert m.f1_at_best_threshold(y_val, s_val, y_test, s_test) == pytest.approx(expected)
    with pytest.raises(ValueError, match="score_test"):
        m.f1_at_best_threshold(y_val, s_val, y_test, s_test[:-1])


# ------------------------------------------------------------------ Lee & Liu


def test_lee_liu_is_recall_squared_over_positive_rate_by_hand():
    # 4 labeled (s=1), 3 of them predicted positive -> r = 3/4
    # 10 examples, 5 predicted positive -> Pr(y_hat = 1) = 1/2
    s = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    y_pred = np.array([1, 1, 1, 0, 1, 1, 0, 0, 0, 0])
    assert m.lee_liu(s, y_pred) == pytest.approx((3 / 4) ** 2 / 0.5)
    # predict everything positive: r = 1, Pr = 1 -> 1
    assert m.lee_liu(s, np.ones(10, int)) == 1.0
    # predict exactly the labeled: r = 1, Pr = 0.4 -> 2.5 (criterion is not bounded by 1)
    assert m.lee_liu(s, s) == pytest.approx(2.5)
    # nothing predicted positive -> 0 by convention
    assert m.lee_liu(s, np.zeros(10, int)) == 0.0
    # positives predicted only among unlabeled: r = 0 -> 0
    assert m.lee_liu(s, 1 - s) == 0.0
    with pytest.raises(ValueError, match="no labeled positives"):
        m.lee_liu(np.zeros(4, int), [1, 0, 1, 0])


# ------------------------------------------------------------------- evaluate


def test_evaluate_returns_evaluate_metrics_matching_sklearn():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 400)
    proba = 0.35 * y + rng.random(400) * 0.65
    out = m.evaluate(y, proba)
    assert list(out) == list(m.EVALUATE_METRICS)
    assert "fit_seconds" not in out
    assert all(isinstance(v, float) for v in out.values())
    y_pred = (proba >= 0.5).astype(int)
    assert out["accuracy"] == pytest.approx(skm.accuracy_score(y, y_pred))
    assert out["f1"] == pytest.approx(skm.f1_score(y, y_pred))
    assert out["mcc"] == pytest.approx(skm.matthews_corrcoef(y, y_pred))
    assert out["auc_roc"] == pytest.approx(skm.roc_auc_score(y, proba))
    assert out["auc_pr"] == pytest.approx(skm.average_precision_score(y, proba))
    assert out["brier"] == pytest.approx(skm.brier_score_loss(y, proba))
    for key in ("f1_tuned", "lee_liu", "prior_abs_error"):
        assert math.isnan(out[key])

    # custom threshold and explicit predictions
    out_t = m.evaluate(y, proba, threshold=0.7)
    assert out_t["f1"] == pytest.approx(skm.f1_score(y, (proba >= 0.7).astype(int)))
    out_p = m.evaluate(y, proba, np.ones(400, int))
    assert out_p["accuracy"] == pytest.approx(y.mean())


def test_evaluate_computes_optional_metrics_only_from_their_inputs():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 300)
    proba = 0.3 * y + rng.random(300) * 0.7
    y_val = rng.integers(0, 2, 200)
    proba_val = 0.3 * y_val + rng.random(200) * 0.7
    s = y * (rng.random(300) < 0.5)
    out = m.evaluate(
        y, proba, y_val=y_val, proba_val=proba_val, s_test=s, prior_true=0.5, prior_hat=0.42
    )
    assert out["f1_tuned"] == pytest.approx(m.f1_at_best_threshold(y_val, proba_val, y, proba))
    assert out["lee_liu"] == pytest.approx(m.lee_liu(s, (proba >= 0.5).astype(int)))
    assert out["prior_abs_error"] == pytest.approx(0.08)
    # only one prior -> NaN; s_test without labeled examples -> NaN
    out2 = m.evaluate(y, proba, s_test=np.zeros(300, int), prior_hat=0.4)
    assert math.isnan(out2["prior_abs_error"]) and math.isnan(out2["lee_liu"])


def test_evaluate_single_class_gives_nan_aucs_not_error():
    out = m.evaluate([1, 1, 1, 1], [0.2, 0.6, 0.9, 0.7])
    assert math.isnan(out["auc_roc"]) and math.isnan(out["auc_pr"])
    assert out["accuracy"] == 0.75
    assert out["f1"] == pytest.approx(2 * 3 / (2 * 3 + 1))


def test_metrics_table_describes_every_metric_and_derives_the_lists():
    assert list(m.METRICS) == [
        "accuracy", "f1", "f1_tuned", "f1_test_oracle", "auc_roc", "auc_pr", "brier", "mcc", "lee_liu",
        "prior_abs_error", "train_pu_risk_01", "test_pn_risk_01", "fit_seconds",
        "alpha_u_abs_error", "propensity_mse", "c_abs_error", "ms_per_example",
        "pu_auc", "pu_auc_corrected", "pu_f1", "pu_accuracy", "nnpu_risk",
    ]
    assert m.EVALUATE_METRICS == (
        "accuracy", "f1", "f1_tuned", "f1_test_oracle", "auc_roc", "auc_pr", "brier", "mcc", "lee_liu",
        "prior_abs_error", "train_pu_risk_01", "test_pn_risk_01",
    )
    assert m.PRIOR_METRICS == ("prior_abs_error", "fit_seconds", "alpha_u_abs_error", "c_abs_error", "ms_per_example")
    for name, info in m.METRICS.items():
        assert set(info) - {"result_column", "prior"} == {"greater_is_better", "label"}, name
        assert isinstance(info["greater_is_better"], bool) and info["label"]
    assert m.METRICS["brier"]["greater_is_better"] is False
    assert m.METRICS["prior_abs_error"]["greater_is_better"] is False
    assert m.METRICS["train_pu_risk_01"]["greater_is_better"] is False
    assert m.METRICS["test_pn_risk_01"]["greater_is_better"] is False
    assert m.METRICS["f1"]["label"] == "F1"


def test_config_schema_metric_enum_is_the_metrics_table(schema_path):
    from pu_lib.workflow.experiments.config import _load_schema, with_registry_names

    schema = with_registry_names(_load_schema(schema_path))
    metrics = schema["properties"]["experiments"]["additionalProperties"]["properties"]["metrics"]
    assert metrics["items"]["enum"] == list(m.METRICS)
    assert "enum" not in _load_schema(schema_path)["properties"]["experiments"]["additionalProperties"][
        "properties"]["metrics"]["items"]  # the schema file keeps no copy of the list


def test_import_does_not_load_sklearn_or_heavy_modules():
    code = (
        "import sys, pu_lib.metrics; "
        "bad = [k for k in ('sklearn', 'numba', 'dask', 'xgboost') if k in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_evaluate_ranks_on_score_when_given_and_keeps_brier_on_probabilities():
    # A clipped probability ties the top examples; the unclipped score keeps their order.
    from pu_lib.metrics import evaluate

    y = np.array([0, 0, 1, 0, 1, 1])
    score = np.array([0.1, 0.2, 0.3, 1.5, 2.0, 3.0])
    proba = np.clip(score, 0, 1)
    clipped = evaluate(y, proba)
    ranked = evaluate(y, proba, score_test=score)
    assert ranked["auc_roc"] == pytest.approx(m.auc_roc(y, score))
    assert ranked["auc_pr"] == pytest.approx(m.auc_pr(y, score))
    assert clipped["auc_roc"] == pytest.approx(m.auc_roc(y, proba))
    assert ranked["auc_roc"] > clipped["auc_roc"]
    assert ranked["brier"] == clipped["brier"]  # calibration metrics stay on probabilities
    with pytest.raises(ValueError, match="score_val is required"):
        evaluate(y, proba, y_val=y, proba_val=proba, score_test=score)
    with pytest.raises(ValueError, match="score_val given without score_test"):
        evaluate(y, proba, score_val=score)
    tuned = evaluate(y, proba, y_val=y, proba_val=proba, score_test=score, score_val=score)
    assert tuned["f1_tuned"] == pytest.approx(m.f1_at_best_threshold(y, score, y, score))


# ------------------------------------------------------------- zero-one risks (PU ET App. K)


def test_pn_risk_01_is_the_error_rate():
    assert m.pn_risk_01([1, 0, 1, 0], [1, 1, 0, 0]) == 0.5
    assert m.pn_risk_01([1, 1, 0], [1, 1, 0]) == 0.0
    assert m.pn_risk_01(np.array([True, False]), np.array([0, 1])) == 1.0
    with pytest.raises(ValueError, match="pred01 has 2 entries"):
        m.pn_risk_01([1, 0, 1], [1, 0])


# 10 training rows: P = the first 4 (s = 1); predictions: 3 of P positive, 2 of the
# 6 unlabeled rows positive.
_S = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
_PRED = np.array([1, 1, 1, 0, 1, 1, 0, 0, 0, 0])


def test_pu_risk_01_single_training_set_by_hand():
    # U = all 10 rows; n_p = 4, n_u = 10; FN_P = 1, PP_P = 3, PP_U = 5.
    # prior 0.5: w_p = 0.125, w_u = 0.1 -> positive part 0.125, negative part 0.5 - 0.375 = 0.125
    assert m.pu_risk_01(_S, _PRED, 0.5, "upu", SINGLE_TRAINING_SET) == pytest.approx(0.25)
    assert m.pu_risk_01(_S, _PRED, 0.5, "nnpu", SINGLE_TRAINING_SET) == pytest.approx(0.25)
    # prior 0.8: w_p = 0.2 -> positive part 0.2, negative part 0.5 - 0.6 = -0.1
    assert m.pu_risk_01(_S, _PRED, 0.8, "upu") == pytest.approx(0.1)
    assert m.pu_risk_01(_S, _PRED, 0.8, "nnpu") == pytest.approx(0.2)  # max(0, -0.1) = 0
    # defaults: nnpu, single_training_set
    assert m.pu_risk_01(_S, _PRED, 0.8) == pytest.approx(0.2)


def test_pu_risk_01_case_control_by_hand():
    # U = the 6 rows with s = 0; PP_U = 2, w_u = 1/6.
    # prior 0.5: positive part 0.125, negative part 2/6 - 0.375 = -1/24
    assert m.pu_risk_01(_S, _PRED, 0.5, "upu", CASE_CONTROL) == pytest.approx(0.125 - 1 / 24)
    assert m.pu_risk_01(_S, _PRED, 0.5, "nnpu", CASE_CONTROL) == pytest.approx(0.125)
    # prior 0.2: w_p = 0.05 -> positive part 0.05, negative part 1/3 - 0.15
    assert m.pu_risk_01(_S, _PRED, 0.2, "upu", CASE_CONTROL) == pytest.approx(0.05 + 1 / 3 - 0.15)


def test_pu_risk_01_extremes_and_named_errors():
    # everything predicted positive: uPU = prior * 0 - prior * 1 + 1 = 1 - prior
    s = np.array([1, 0, 0, 0])
    assert m.pu_risk_01(s, np.ones(4, int), 0.3, "upu") == pytest.approx(0.7)
    # everything predicted negative: risk = prior (all of P missed, no U loss)
    assert m.pu_risk_01(s, np.zeros(4, int), 0.3, "nnpu") == pytest.approx(0.3)
    assert m.pu_risk_01(s, np.zeros(4, int), 0.3, "upu") == pytest.approx(0.3)
    with pytest.raises(ValueError, match="'estimator' parameter"):
        m.pu_risk_01(s, s, 0.3, "quad")
    assert SCENARIOS == ("single_training_set", "case_control")
    with pytest.raises(ValueError, match="'scenario' parameter"):
        m.pu_risk_01(s, s, 0.3, "nnpu", "single-training-set")  # the old label-file spelling
    with pytest.raises(ValueError, match="'prior' parameter"):
        m.pu_risk_01(s, s, 1.5)
    with pytest.raises(ValueError, match="no labeled positives"):
        m.pu_risk_01(np.zeros(4, int), s, 0.3)
    with pytest.raises(ValueError, match="U is empty"):
        m.pu_risk_01(np.ones(3, int), np.ones(3, int), 0.3, "nnpu", CASE_CONTROL)


def test_evaluate_reports_test_pn_risk_always_and_train_pu_risk_with_its_inputs():
    y = np.array([1, 0, 1, 0, 1])
    proba = np.array([0.9, 0.8, 0.2, 0.1, 0.7])
    out = m.evaluate(y, proba)
    assert out["test_pn_risk_01"] == pytest.approx(0.4) and math.isnan(out["train_pu_risk_01"])
    out = m.evaluate(y, proba, s_train=_S, y_pred_train=_PRED, prior_train=0.5, pu_risk="upu",
                     pu_scenario="case_control")
    assert out["train_pu_risk_01"] == pytest.approx(0.125 - 1 / 24)


def test_grid_threshold_rule_is_the_pu_hellinger_authors_first_maximum_with_strict_inequality():
    # their expsetup.py: thresholds linspace(0.01, 0.99, 100), predict proba > t, first maximum
    grid = np.linspace(0.01, 0.99, 100)
    # F1 = 1 for every t in [0.3, 0.6): the first (smallest) such grid value
    assert m.grid_f1_threshold([1, 0, 1, 0], [0.8, 0.3, 0.6, 0.2]) == (grid[grid >= 0.3][0], 1.0)
    # strict: a negative scored exactly at a grid value is predicted negative at that value
    assert m.grid_f1_threshold([1, 0], [0.9, grid[40]]) == (grid[40], 1.0)
    # brute force against the definition on random data
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    proba = np.clip(0.3 * y + rng.random(300) * 0.7, 0, 1)
    t, f = m.grid_f1_threshold(y, proba)
    f1s = [m.f1(y, (proba > g).astype(int)) for g in grid]
    assert f == pytest.approx(max(f1s)) and t == grid[int(np.argmax(f1s))]


def test_f1_test_oracle_is_the_best_grid_f1_on_the_test_rows():
    """The grid's best F1 on the test probabilities: never below the F1 of any grid
    threshold (0.5 among them, up to the strict > of the grid), and reached by one."""
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.3).astype(int)
    proba = np.clip(0.3 * y + rng.random(300) * 0.7, 0, 1)
    out = m.evaluate(y, proba)
    per_t = [m.f1(y, (proba > t).astype(int)) for t in m.F1_THRESHOLD_GRID]
    assert out["f1_test_oracle"] == pytest.approx(max(per_t))
    assert out["f1_test_oracle"] >= out["f1"] - 1e-12 or np.any(proba == 0.5)


def test_f1_tuned_takes_the_threshold_rule():
    y_val, p_val = np.array([1, 0, 1, 0]), np.array([0.8, 0.3, 0.6, 0.2])
    y_te, p_te = np.array([1, 1, 0]), np.array([0.95, 0.45, 0.05])
    mid = m.f1_at_best_threshold(y_val, p_val, y_te, p_te)  # t = (0.6 + 0.3) / 2 = 0.45
    grid = m.f1_at_best_threshold(y_val, p_val, y_te, p_te, rule="grid")  # t = 0.3 (first max), 0.45 > t
    assert mid == 1.0 and grid == 1.0
    # the grid's smallest optimal threshold transfers differently: 0.31 > 0.30 on the test row
    assert m.f1_at_best_threshold(y_val, p_val, [1, 0], [0.31, 0.05], rule="grid") == 1.0
    assert m.f1_at_best_threshold(y_val, p_val, [1, 0], [0.31, 0.05]) == 0.0
    res = m.evaluate(y_te, p_te, y_val=y_val, proba_val=p_val, threshold_rule="grid")
    assert res["f1_tuned"] == grid
    with pytest.raises(ValueError, match="rule"):
        m.f1_at_best_threshold(y_val, p_val, y_te, p_te, rule="exact")
    with pytest.raises(ValueError):
        m.evaluate(y_te, p_te, y_val=y_val, proba_val=p_val, threshold_rule="exact")
