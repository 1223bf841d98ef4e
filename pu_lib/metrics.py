"""Evaluation metrics for PU learning experiments.

Conventions
-----------
* ``y`` is the true class (0/1), ``s`` the labeled indicator (1 = labeled positive,
  0 = unlabeled), ``y_pred`` hard 0/1 predictions, ``score`` any continuous ranking
  score (higher = more positive; ``+-inf`` allowed, NaN not) and ``proba`` an
  estimate of ``Pr(y = 1 | x)`` in ``[0, 1]``.
* Invalid inputs (length mismatch, non-binary labels, NaN scores, probabilities
  outside ``[0, 1]``) raise ``ValueError`` naming the offending argument.
* All metrics are computed with NumPy only (no scikit-learn import); the test-suite
  checks them against ``sklearn.metrics``. Importing this module is cheap.

The one-stop entry point is :func:`evaluate`; :data:`METRICS` describes each of its
keys (direction and display label) for table and statistics code, and is the one list
of metric names: :data:`EVALUATE_METRICS` (the keys of :func:`evaluate`) and
:data:`PRIOR_METRICS` (what a class-prior experiment reports) are derived from it.
"""

from __future__ import annotations

import math

import numpy as np

from numbers import Real

from pu_lib._validation import (SCENARIOS, SINGLE_TRAINING_SET, Interval, StrOptions, as_1d, check_binary,
                                check_probabilities, validate_params)

#: a class prior, as the metric functions take it
_PRIOR = [Interval(Real, 0.0, 1.0, closed="both")]

__all__ = [
    "EVALUATE_METRICS",
    "METRICS",
    "PRIOR_METRICS",
    "PRIOR_SCORER_NAMES",
    "PU_RISK_ESTIMATORS",
    "PU_SCORER_NAMES",
    "accuracy",
    "auc_pr",
    "auc_roc",
    "best_f1_threshold",
    "brier",
    "evaluate",
    "f1",
    "f1_at_best_threshold",
    "lee_liu",
    "mcc",
    "mse",
    "pn_risk_01",
    "population_mask",
    "prior_abs_error",
    "pu_risk_01",
    "pu_risk_from_losses",
]

#: Every metric a result row can hold, in output order: ``greater_is_better`` (its
#: direction), ``label`` (for tables and figures), ``result_column`` (True: not computed by
#: :func:`evaluate` but a column the experiment records itself) and ``prior`` (True: a
#: class-prior estimation experiment reports it). The config schema's ``metrics`` enum
#: (workflow/schemas/config.schema.yaml) lists these keys; tests/test_metrics.py checks it.
METRICS: dict[str, dict] = {
    "accuracy": {"greater_is_better": True, "label": "Accuracy"},
    "f1": {"greater_is_better": True, "label": "F1"},
    "f1_tuned": {"greater_is_better": True, "label": "F1 (tuned threshold)"},
    # the best F1 over the PU Hellinger authors' threshold grid on the test rows themselves:
    # an oracle (it reads the test labels), the F1 that paper prints (docs/pu_hellinger_trees.md)
    "f1_test_oracle": {"greater_is_better": True, "label": "F1 (test-optimal grid threshold, oracle)"},
    "auc_roc": {"greater_is_better": True, "label": "AUC-ROC"},
    "auc_pr": {"greater_is_better": True, "label": "AUC-PR"},
    "brier": {"greater_is_better": False, "label": "Brier score"},
    "mcc": {"greater_is_better": True, "label": "MCC"},
    "lee_liu": {"greater_is_better": True, "label": "Lee & Liu r^2/Pr(y_hat=1)"},
    "prior_abs_error": {"greater_is_better": False, "label": "|prior_hat - prior| (class prior of the sample)",
                        "prior": True},
    "train_pu_risk_01": {"greater_is_better": False, "label": "Training PU risk (0-1 loss)"},
    "test_pn_risk_01": {"greater_is_better": False, "label": "Test PN risk (0-1 loss)"},
    # not computed by evaluate(): a column of every result row (PU ET paper, Table 10)
    "fit_seconds": {"greater_is_better": False, "label": "Fit time (s)", "result_column": True, "prior": True},
    # class-prior estimation experiments (pu_lib.prior; rows of pu_lib.workflow.experiments.prior_eval.prior_row)
    "alpha_u_abs_error": {"greater_is_better": False, "result_column": True, "prior": True,
                          "label": "|alpha_u_hat - alpha_u| (alpha_u: positive fraction of the unlabeled)"},
    # SAR experiments (Bekker thesis Table 5.3): the learned propensity model's MSE against
    # the true propensity scores on the evaluation positives (pu_lib.workflow.experiments.classifier_eval)
    "propensity_mse": {"greater_is_better": False, "label": "Propensity model MSE", "result_column": True},
    "c_abs_error": {"greater_is_better": False, "label": "|c_hat - c|", "result_column": True, "prior": True},
    "ms_per_example": {"greater_is_better": False, "label": "Time per example (ms)", "result_column": True,
                       "prior": True},
    # PU estimates of the true-label metrics from (s, predictions) and the class prior
    # (pu_lib.model_selection; on the rows lee_liu is computed on), for data without negatives
    "pu_auc": {"greater_is_better": True, "label": "AUC labeled vs unlabeled", "result_column": True},
    "pu_auc_corrected": {"greater_is_better": True, "label": "PU AUC corrected to the PN AUC",
                         "result_column": True},
    "pu_f1": {"greater_is_better": True, "label": "PU estimate of F1", "result_column": True},
    "pu_accuracy": {"greater_is_better": True, "label": "PU estimate of accuracy", "result_column": True},
    "nnpu_risk": {"greater_is_better": False, "label": "nnPU risk (sigmoid loss)", "result_column": True},
}

#: the PU estimates (pu_lib.model_selection) an experiment can report as result columns
PU_ESTIMATE_METRICS: tuple[str, ...] = ("pu_auc", "pu_auc_corrected", "pu_f1", "pu_accuracy", "nnpu_risk")

#: the names of the PU scorers of :mod:`pu_lib.model_selection` (the keys of its
#: ``PU_SCORERS``, in order) and those of them that need the class prior (its
#: ``PRIOR_SCORERS``): here, where importing costs no scikit-learn, so that ``pu-lib --help``
#: lists them at once (tests/test_model_selection.py checks they match)
PU_SCORER_NAMES: tuple[str, ...] = ("lee_liu", "pu_f1", "pu_accuracy", "pu_auc", "pu_auc_corrected", "upu_risk",
                                    "nnpu_risk")
PRIOR_SCORER_NAMES: frozenset[str] = frozenset({"pu_f1", "pu_accuracy", "pu_auc_corrected", "upu_risk", "nnpu_risk"})

#: the keys of :func:`evaluate`, in order: every metric that is not a result column
EVALUATE_METRICS: tuple[str, ...] = tuple(k for k, info in METRICS.items() if not info.get("result_column"))

#: metrics a class-prior estimation experiment can report (its rows have no predictions)
PRIOR_METRICS: tuple[str, ...] = tuple(k for k, info in METRICS.items() if info.get("prior"))


# --------------------------------------------------------------------------- helpers


def _labels(v, name: str, n: int | None = None, ref: str = "y") -> np.ndarray:
    """0/1 vector check with a length message naming both arguments."""
    v_arr = np.asarray(v)
    if v_arr.ndim == 2 and v_arr.shape[1] == 1:
        v_arr = v_arr.ravel()
    if n is not None and v_arr.ndim == 1 and v_arr.shape[0] != n:
        raise ValueError(f"{name} has {v_arr.shape[0]} entries but {ref} has {n}")
    out = check_binary(v_arr, name)
    if out.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    return out


def _scores(v, name: str, n: int | None, ref: str = "y") -> np.ndarray:
    """1-D float vector of length ``n`` (any length for None) without NaN (infinities
    are allowed)."""
    v = as_1d(v, name, n, ref)
    if not (np.issubdtype(v.dtype, np.number) or v.dtype == bool):
        raise ValueError(f"{name} must be numeric, got dtype {v.dtype}")
    v = v.astype(np.float64)
    if np.isnan(v).any():
        raise ValueError(f"{name} contains {int(np.isnan(v).sum())} NaN value(s)")
    return v


def _probas(v, name: str, n: int, ref: str = "y") -> np.ndarray:
    """Like :func:`_scores` but finite and within ``[0, 1]``
    (:func:`pu_lib._validation.check_probabilities`)."""
    return check_probabilities(v, name, n=n, ref=ref)


def _confusion(y: np.ndarray, y_pred: np.ndarray) -> tuple[int, int, int, int]:
    """(tp, fp, fn, tn) as Python ints."""
    y_b = y.astype(bool)
    p_b = y_pred.astype(bool)
    tp = int(np.count_nonzero(y_b & p_b))
    fp = int(np.count_nonzero(~y_b & p_b))
    fn = int(np.count_nonzero(y_b & ~p_b))
    tn = int(y.shape[0] - tp - fp - fn)
    return tp, fp, fn, tn


def _descending_groups(y: np.ndarray, score: np.ndarray):
    """Sort by descending score and collapse ties.

    Returns ``(thresholds, tp, pp)``: the distinct scores in descending order and,
    for each, the number of true positives ``tp`` and of predicted positives ``pp``
    when predicting positive for ``score >= threshold``. O(n log n).
    """
    order = np.argsort(-score, kind="stable")
    s_sorted = score[order]
    y_sorted = y[order].astype(np.int64)
    # last index of each run of equal scores
    last = np.flatnonzero(np.r_[s_sorted[1:] != s_sorted[:-1], True])
    tp = np.cumsum(y_sorted)[last]
    pp = last + 1
    return s_sorted[last], tp, pp


# --------------------------------------------------------------------- hard metrics


def accuracy(y, y_pred) -> float:
    """Fraction of correct hard predictions (as ``sklearn.metrics.accuracy_score``)."""
    y = _labels(y, "y")
    y_pred = _labels(y_pred, "y_pred", n=y.shape[0])
    return float(np.mean(y == y_pred))


def f1(y, y_pred) -> float:
    """F1 score of the positive class 1: ``2 tp / (2 tp + fp + fn)``.

    Returns 0.0 when there are neither predicted nor true positives (the
    denominator is 0), like ``sklearn.metrics.f1_score(..., zero_division=0)``.
    """
    y = _labels(y, "y")
    y_pred = _labels(y_pred, "y_pred", n=y.shape[0])
    tp, fp, fn, _ = _confusion(y, y_pred)
    den = 2 * tp + fp + fn
    return 0.0 if den == 0 else 2.0 * tp / den


def mcc(y, y_pred) -> float:
    """Matthews correlation coefficient.

    ``(tp tn - fp fn) / sqrt((tp+fp)(tp+fn)(tn+fp)(tn+fn))``; 0.0 when any factor of
    the denominator is 0 (as ``sklearn.metrics.matthews_corrcoef``).
    """
    y = _labels(y, "y")
    y_pred = _labels(y_pred, "y_pred", n=y.shape[0])
    tp, fp, fn, tn = _confusion(y, y_pred)
    # Python ints: no overflow; float products for the square root.
    den = math.sqrt(float(tp + fp) * float(tp + fn)) * math.sqrt(float(tn + fp) * float(tn + fn))
    if den == 0.0:
        return 0.0
    return float((tp * tn - fp * fn) / den)


# ------------------------------------------------------------------ ranking metrics


def auc_roc(y, score) -> float:
    """Area under the ROC curve (ties in ``score`` count 1/2, as sklearn).

    Computed as the Mann-Whitney statistic with mid-ranks. Returns NaN (instead of
    raising, unlike sklearn) when ``y`` contains a single class, because the AUC is
    undefined there and experiment tables should record a missing value.
    """
    y = _labels(y, "y")
    score = _scores(score, "score", y.shape[0])
    n_pos = int(y.sum())
    n_neg = y.shape[0] - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    order = np.argsort(score, kind="stable")
    s_sorted = score[order]
    # mid-ranks (1-based) of tied runs
    starts = np.flatnonzero(np.r_[True, s_sorted[1:] != s_sorted[:-1]])
    ends = np.r_[starts[1:], s_sorted.shape[0]]
    mid = (starts + ends + 1) / 2.0  # average of ranks starts+1 .. ends
    run_id = np.repeat(np.arange(starts.shape[0]), ends - starts)
    ranks = np.empty_like(s_sorted)
    ranks[order] = mid[run_id]
    rank_sum_pos = float(ranks[y == 1].sum())
    u = rank_sum_pos - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))


def auc_pr(y, score) -> float:
    """Area under the precision-recall curve as *average precision*.

    ``AP = sum_k (R_k - R_{k-1}) P_k`` over the distinct score thresholds in
    decreasing order (step-wise, no interpolation), identical to
    ``sklearn.metrics.average_precision_score``. Returns NaN when ``y`` contains a
    single class (see :func:`auc_roc`).
    """
    y = _labels(y, "y")
    score = _scores(score, "score", y.shape[0])
    n_pos = int(y.sum())
    if n_pos == 0 or n_pos == y.shape[0]:
        return float("nan")
    _, tp, pp = _descending_groups(y, score)
    precision = tp / pp
    recall = tp / n_pos
    d_recall = np.diff(np.r_[0.0, recall])
    return float(np.sum(d_recall * precision))


# ---------------------------------------------------------- probability metrics


def brier(y, proba) -> float:
    """Brier score ``mean((proba - y)^2)`` for ``proba = Pr(y = 1 | x)`` (lower is better)."""
    y = _labels(y, "y")
    proba = _probas(proba, "proba", y.shape[0])
    return float(np.mean((proba - y) ** 2))


def _finite(v, name: str, n: int | None, ref: str = "y") -> np.ndarray:
    """Like :func:`_scores` but without infinities either."""
    v = _scores(v, name, n, ref)
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} contains infinite values")
    return v


def mse(a, b) -> float:
    """Mean squared error ``mean((a - b)^2)`` between two finite numeric vectors."""
    a = _finite(a, "a", None)
    if a.shape[0] == 0:
        raise ValueError("a is empty")
    b = _finite(b, "b", a.shape[0], ref="a")
    return float(np.mean((a - b) ** 2))


@validate_params({"prior_hat": _PRIOR, "prior": _PRIOR})
def prior_abs_error(prior_hat, prior) -> float:
    """Absolute class-prior estimation error ``|prior_hat - prior|``; both in ``[0, 1]``."""
    return abs(float(prior_hat) - float(prior))


# ------------------------------------------------------------- threshold tuning


@validate_params({"y": ["array-like"], "score": ["array-like"], "midpoint": ["boolean"]})
def best_f1_threshold(y, score, midpoint: bool = False) -> tuple[float, float]:
    """Threshold maximising F1 when predicting positive for ``score >= threshold``.

    Every distinct value of ``score`` is a candidate (predicting positive for
    ``score >= t`` only changes at these values); all candidates are evaluated at
    once after a single sort, O(n log n). With ``P`` true positives, ``tp(t)`` true
    positives and ``pp(t)`` predicted positives, ``F1(t) = 2 tp(t) / (pp(t) + P)``.

    Ties in F1 are broken towards the **larger** threshold (the more conservative
    classifier). The F1 values of different candidates are compared exactly
    (ratios of integers, correctly rounded, so equal ratios compare equal). If ``y``
    has no positives every candidate has F1 = 0 and the largest score is returned.

    ``midpoint=True`` returns, instead of the lowest score predicted positive, the
    midpoint between it and the next lower distinct score (the highest score predicted
    negative): the same predictions on ``score``, but the middle of the gap when the
    threshold is applied to other scores -- a test set, or a model refitted on more rows
    whose discrete scores (tree leaves) move slightly. When every row is predicted
    positive there is no lower score and the lowest score is returned.

    Returns ``(threshold, f1)`` as floats.
    """
    y = _labels(y, "y")
    score = _scores(score, "score", y.shape[0])
    n_pos = int(y.sum())
    thresholds, tp, pp = _descending_groups(y, score)
    f1_vals = 2.0 * tp / (pp + n_pos)
    k = int(np.argmax(f1_vals))  # first maximum = largest threshold (descending order)
    t = float(thresholds[k])
    if midpoint and k + 1 < thresholds.shape[0]:
        t = 0.5 * (t + float(thresholds[k + 1]))
    return t, float(f1_vals[k])


#: rules for the ``f1_tuned`` threshold (experiment config ``split.threshold_rule``)
F1_THRESHOLD_RULES = {
    "midpoint": "every distinct validation score is a candidate, predict score >= t, ties to the larger t, "
                "the middle of the F1-optimal gap (best_f1_threshold(midpoint=True)); on decision scores "
                "when the method has them",
    "grid": "the PU Hellinger authors' rule (expsetup.py of CarlosOrtegaV/PU_Hellinger_Trees): on the "
            "probabilities, the 100 thresholds numpy.linspace(0.01, 0.99, 100), predict proba > t (strict), "
            "the first maximum (the smallest t)",
}

#: the authors' threshold grid of the ``"grid"`` rule
F1_THRESHOLD_GRID = np.linspace(0.01, 0.99, num=100)


def grid_f1_threshold(y, proba, grid=None) -> tuple[float, float]:
    """The PU Hellinger authors' F1 threshold (their ``expsetup.py``): of the thresholds
    ``grid`` (default :data:`F1_THRESHOLD_GRID`, ``numpy.linspace(0.01, 0.99, 100)``) in
    increasing order, the first that maximises F1 when predicting positive for
    ``proba > t`` (strict), i.e. the smallest F1-optimal grid value. F1 is 0 when nothing
    is predicted positive. Returns ``(threshold, f1)`` as floats."""
    y = _labels(y, "y")
    proba = _scores(proba, "proba", y.shape[0])
    grid = F1_THRESHOLD_GRID if grid is None else np.asarray(grid, dtype=np.float64)
    pred = proba[None, :] > grid[:, None]  # (n_grid, n)
    tp = (pred & (y[None, :] == 1)).sum(axis=1)
    pp = pred.sum(axis=1)
    denom = pp + int(y.sum())
    f1_vals = np.where(denom > 0, 2.0 * tp / np.maximum(denom, 1), 0.0)
    k = int(np.argmax(f1_vals))  # first maximum (numpy.where(f1 == max)[0][0] in their code)
    return float(grid[k]), float(f1_vals[k])


def f1_at_best_threshold(y_val, score_val, y_test, score_test, rule: str = "midpoint") -> float:
    """Test-set F1 at the threshold that maximises F1 on a validation set.

    Protocol of the PU Hellinger-trees paper: "the threshold is optimized according
    to a validation set to maximize the F1-score for all techniques", which makes
    F1 comparable across methods with badly calibrated scores. ``rule`` (one of
    :data:`F1_THRESHOLD_RULES`): ``"midpoint"`` (default) -- the threshold comes from
    :func:`best_f1_threshold` on ``(y_val, score_val)`` with ``midpoint=True`` (the
    middle of the F1-optimal gap between validation scores) and the test predictions
    are ``score_test >= threshold``; ``"grid"`` -- the authors' rule,
    :func:`grid_f1_threshold` (the scores must be probabilities), test predictions
    ``score_test > threshold``.
    """
    if rule not in F1_THRESHOLD_RULES:
        raise ValueError(f"rule must be one of {sorted(F1_THRESHOLD_RULES)}, got {rule!r}")
    y_val = _labels(y_val, "y_val")
    score_val = _scores(score_val, "score_val", y_val.shape[0], ref="y_val")
    y_test = _labels(y_test, "y_test")
    score_test = _scores(score_test, "score_test", y_test.shape[0], ref="y_test")
    if rule == "grid":
        t, _ = grid_f1_threshold(y_val, score_val)
        return f1(y_test, (score_test > t).astype(np.int8))
    t, _ = best_f1_threshold(y_val, score_val, midpoint=True)
    return f1(y_test, (score_test >= t).astype(np.int8))


# ------------------------------------------------------------- PU populations and risks


def population_mask(s: np.ndarray, scenario: str) -> np.ndarray:
    """The rows that represent the distribution of ``X`` (U of the PU risks, the
    denominator of Lee & Liu's ``Pr(y_hat = 1)``): every row in the single-training-set
    scenario, the unlabeled rows (``s == 0``) in the case-control scenario. ``ValueError``
    when there is none."""
    pop = np.ones(s.shape[0], dtype=bool) if scenario == SINGLE_TRAINING_SET else s == 0
    if not pop.any():
        raise ValueError("the unlabeled set U is empty (every s == 1): the case_control scenario takes U "
                         "from the unlabeled rows")
    return pop


def pu_risk_from_losses(loss_pos, loss_neg, s: np.ndarray, prior: float, estimator: str, scenario: str) -> float:
    """The uPU / nnPU risk of per-row losses ``loss_pos = l(g(x), +1)`` and
    ``loss_neg = l(g(x), -1)``, with P the rows with ``s == 1`` and U
    :func:`population_mask`:

    * uPU: ``prior E_P[l(+1)] - prior E_P[l(-1)] + E_U[l(-1)]``;
    * nnPU: ``prior E_P[l(+1)] + max(0, E_U[l(-1)] - prior E_P[l(-1)])``

    (du Plessis et al. 2014/2015; Kiryo et al. 2017, eq. 6). The zero-one
    (:func:`pu_risk_01`) and the sigmoid (:func:`pu_lib.model_selection.pu_risk_sigmoid`)
    risks are this with their losses."""
    lab = s == 1
    if not lab.any():
        raise ValueError("s has no labeled positives (no s == 1); the PU risk needs a P set")
    pop = population_mask(s, scenario)
    positive_part = prior * float(np.mean(loss_pos[lab]))
    negative_part = float(np.mean(loss_neg[pop])) - prior * float(np.mean(loss_neg[lab]))
    if estimator == "nnpu":
        negative_part = max(0.0, negative_part)
    return float(positive_part + negative_part)


# ------------------------------------------------------------------- PU criterion


def lee_liu(s, y_pred, sample_weight=None, scenario: str = SINGLE_TRAINING_SET) -> float:
    """PU model-selection criterion ``r^2 / Pr(y_hat = 1)`` of Lee & Liu (2003), the one
    implementation (``pu_lib.model_selection``'s scorer and ``PUWeightedLogisticRegression``'s
    C search call it).

    ``r = Pr(y_hat = 1 | s = 1)`` is the recall measured on the labeled positives,
    which under SCAR equals the recall on all positives, and ``Pr(y_hat = 1)`` is
    the fraction of the rows that represent the distribution of ``X`` predicted positive:
    every row in the single-training-set scenario, the unlabeled rows only in the
    case-control scenario. Both are weighted by ``sample_weight`` when given. The criterion
    equals ``p r / Pr(y = 1)`` (precision times recall over the prior), so it behaves like
    F1 but needs only PU data (Bekker & Davis, survey / Bekker thesis, section 2.3.1,
    eq. 2.8). Returns 0.0 when nothing is predicted positive (``Pr(y_hat=1) = 0``,
    where also ``r = 0``). Raises ``ValueError`` if ``s`` has no labeled example, or (case
    control) no unlabeled one.
    """
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {SCENARIOS}, got {scenario!r}")
    s = _labels(s, "s") == 1
    y_pred = _labels(y_pred, "y_pred", n=s.shape[0], ref="s") == 1
    w = (np.ones(s.shape[0]) if sample_weight is None
         else as_1d(sample_weight, "sample_weight", s.shape[0], "s").astype(np.float64))
    if not s.any():
        raise ValueError("s has no labeled positives (no s == 1); the recall r is undefined")
    pop = population_mask(s, scenario)
    rate = w[pop & y_pred].sum() / w[pop].sum()
    if rate == 0:
        return 0.0
    r = w[s & y_pred].sum() / w[s].sum()
    return float(r * r / rate)


# --------------------------------------------------------------- zero-one risks


def pn_risk_01(y_true01, pred01) -> float:
    """PN risk under the zero-one loss ``l01(v, y) = (1 - sign(v y)) / 2``: the error rate
    ``mean(pred != y)`` (PU Extra Trees, Appendix K, Table 11: test risk)."""
    y = _labels(y_true01, "y_true01")
    pred = _labels(pred01, "pred01", n=y.shape[0], ref="y_true01")
    return float(np.mean(y != pred))


#: the PU risk estimators of :func:`pu_risk_01`
PU_RISK_ESTIMATORS = ("upu", "nnpu")


@validate_params({"s": ["array-like"], "pred01": ["array-like"], "prior": _PRIOR,
                  "estimator": [StrOptions(PU_RISK_ESTIMATORS)], "scenario": [StrOptions(SCENARIOS)]})
def pu_risk_01(s, pred01, prior, estimator: str = "nnpu", scenario: str = SINGLE_TRAINING_SET) -> float:
    """Empirical PU risk under the zero-one loss (PU Extra Trees, eqs. 5-6; Appendix K,
    Table 11: training risk).

    With ``l01(v, +1) = 1`` iff the prediction is -1 (``pred01 == 0``) and
    ``l01(v, -1) = 1`` iff it is +1 (``pred01 == 1``), ``w_p = prior / n_p`` and
    ``w_u = 1 / n_u``:

    * uPU (eq. 5): ``sum_P w_p l(+1) - sum_P w_p l(-1) + sum_U w_u l(-1)``
      = ``prior * FN_P / n_p - prior * PP_P / n_p + PP_U / n_u``;
    * nnPU (eq. 6): ``sum_P w_p l(+1) + max(0, sum_U w_u l(-1) - sum_P w_p l(-1))``,

    where ``FN_P`` / ``PP_P`` count the P rows predicted -1 / +1 and ``PP_U`` the U rows
    predicted +1. P is always the rows with ``s == 1``. U depends on ``scenario``
    (one of :data:`pu_lib._validation.SCENARIOS`):

    * ``"single_training_set"``: U = ALL rows (P is a subset of U): the rows are one
      sample of p(x) in which some positives are marked, e.g. the PU Extra Trees / nnPU
      protocol (1,000 positives as P, the whole training set as U; mechanism
      ``case_control`` of :mod:`pu_lib.labeling`) or any SCAR labeling of a training set;
    * ``"case_control"``: U = the rows with ``s == 0`` only: P and U are separate samples
      stacked into one array (e.g. the output of
      :func:`pu_lib.labeling.expand_case_control`).

    ``prior`` is the class prior of U (in [0, 1]). uPU can be negative; nnPU cannot.
    Raises ``ValueError`` for an unknown estimator or scenario, a prior outside [0, 1],
    or an empty P or U.
    """
    s = _labels(s, "s")
    pred = _labels(pred01, "pred01", n=s.shape[0], ref="s")
    pi = float(prior)
    wrong_pos = (pred == 0).astype(np.float64)  # l01(v, +1) = 1
    return pu_risk_from_losses(wrong_pos, 1.0 - wrong_pos, s, pi, estimator, scenario)


# ---------------------------------------------------------------------- evaluate


@validate_params({"threshold": [Interval(Real, None, None, closed="neither")], "prior_true": [None, *_PRIOR],
                  "prior_hat": [None, *_PRIOR], "prior_train": [None, *_PRIOR],
                  "pu_risk": [StrOptions(PU_RISK_ESTIMATORS)], "pu_scenario": [StrOptions(SCENARIOS)],
                  "threshold_rule": [StrOptions(set(F1_THRESHOLD_RULES))]})
def evaluate(
    y_test,
    proba_test,
    y_pred_test=None,
    *,
    threshold: float = 0.5,
    y_val=None,
    proba_val=None,
    s_test=None,
    prior_true=None,
    prior_hat=None,
    score_test=None,
    score_val=None,
    s_train=None,
    y_pred_train=None,
    prior_train=None,
    pu_risk: str = "nnpu",
    pu_scenario: str = SINGLE_TRAINING_SET,
    threshold_rule: str = "midpoint",
) -> dict[str, float]:
    """Compute the metrics :data:`EVALUATE_METRICS` for one fitted model.

    Parameters
    ----------
    y_test : true 0/1 classes of the test set.
    proba_test : ``Pr(y = 1 | x)`` estimates in ``[0, 1]`` on the test set; used for
        the AUCs, the Brier score and (with ``threshold``) the hard predictions.
    y_pred_test : hard 0/1 predictions; default ``proba_test >= threshold``.
    threshold : decision threshold used when ``y_pred_test`` is not given.
    y_val, proba_val : validation classes and probabilities; both or neither. When
        given, ``f1_tuned`` is the test F1 at the validation-optimal threshold
        (:func:`f1_at_best_threshold` with ``threshold_rule``: ``"midpoint"`` on the
        ranking scores, ``"grid"`` -- the PU Hellinger authors' rule -- on the
        probabilities); otherwise NaN. ``f1_test_oracle`` is the best test F1 over the PU
        Hellinger authors' grid of thresholds on the test probabilities themselves
        (:func:`grid_f1_threshold` on ``(y_test, proba_test)``): an oracle that reads the
        test labels, not a usable threshold, kept because it is the F1 that paper prints
        (their released ``experimental_results.csv`` is never below the test F1 at 0.5;
        docs/pu_hellinger_trees.md).
    s_test : labeled indicator of the test set; when given (and containing at least
        one labeled example) ``lee_liu`` is computed from it and the hard
        predictions; otherwise NaN.
    prior_true, prior_hat : true and estimated class prior; ``prior_abs_error`` is
        NaN unless both are given.
    score_test, score_val : optional continuous scores (e.g. ``decision_function``)
        used instead of the probabilities for the ranking metrics (``auc_roc``,
        ``auc_pr``) and for tuning the ``f1_tuned`` threshold. Probabilities that a
        method clips to ``[0, 1]`` (Elkan-Noto's ``g(x)/c``) tie every example above
        the clip and lose ranking information that the unclipped score keeps. When
        ``score_test`` is given together with a validation set, ``score_val`` is
        required (a threshold must be tuned on the same scale it is applied to).
    s_train, y_pred_train, prior_train : PU labels of the training rows, the model's hard
        0/1 predictions on them and the prior the method used; when all three are given
        ``train_pu_risk_01`` is :func:`pu_risk_01` with estimator ``pu_risk`` and
        scenario ``pu_scenario``; otherwise NaN. ``test_pn_risk_01`` (the test error
        rate, :func:`pn_risk_01`) is always computed.

    Returns
    -------
    dict mapping each key of :data:`EVALUATE_METRICS` (the :data:`METRICS` that are not
    ``result_column`` entries, same order) to a float. ``auc_roc``
    and ``auc_pr`` are NaN (no exception) when ``y_test`` holds a single class.
    """
    y_test = _labels(y_test, "y_test")
    n = y_test.shape[0]
    proba_test = _probas(proba_test, "proba_test", n, ref="y_test")
    thr = float(threshold)
    if y_pred_test is None:
        y_pred_test = (proba_test >= thr).astype(np.int8)
    else:
        y_pred_test = _labels(y_pred_test, "y_pred_test", n=n, ref="y_test")

    if (y_val is None) != (proba_val is None):
        raise ValueError("y_val and proba_val must be given together (or both omitted)")
    rank_test = proba_test
    if score_test is not None:
        rank_test = _scores(score_test, "score_test", n, ref="y_test")
        if y_val is not None and score_val is None:
            raise ValueError("score_val is required when score_test and a validation set are given")
    elif score_val is not None:
        raise ValueError("score_val given without score_test")
    if y_val is not None:
        y_val = _labels(y_val, "y_val")
        proba_val = _scores(proba_val, "proba_val", y_val.shape[0], ref="y_val")
        rank_val = proba_val
        if score_val is not None:
            rank_val = _scores(score_val, "score_val", y_val.shape[0], ref="y_val")
        if threshold_rule == "grid":  # the authors' grid lives on the probability scale
            f1_tuned = f1_at_best_threshold(y_val, proba_val, y_test, proba_test, rule="grid")
        else:
            f1_tuned = f1_at_best_threshold(y_val, rank_val, y_test, rank_test, rule=threshold_rule)
    else:
        f1_tuned = float("nan")

    if s_test is not None:
        s_test = _labels(s_test, "s_test", n=n, ref="y_test")
        ll = lee_liu(s_test, y_pred_test) if s_test.any() else float("nan")
    else:
        ll = float("nan")

    if prior_true is not None and prior_hat is not None:
        pae = prior_abs_error(prior_hat, prior_true)
    else:
        pae = float("nan")

    if s_train is not None and y_pred_train is not None and prior_train is not None:
        train_pu = pu_risk_01(s_train, y_pred_train, prior_train, estimator=pu_risk, scenario=pu_scenario)
    else:
        train_pu = float("nan")

    out = {
        "accuracy": accuracy(y_test, y_pred_test),
        "f1": f1(y_test, y_pred_test),
        "f1_tuned": f1_tuned,
        "f1_test_oracle": grid_f1_threshold(y_test, proba_test)[1],
        "auc_roc": auc_roc(y_test, rank_test),
        "auc_pr": auc_pr(y_test, rank_test),
        "brier": brier(y_test, proba_test),
        "mcc": mcc(y_test, y_pred_test),
        "lee_liu": ll,
        "prior_abs_error": pae,
        "train_pu_risk_01": train_pu,
        "test_pn_risk_01": pn_risk_01(y_test, y_pred_test),
    }
    return {k: float(out[k]) for k in EVALUATE_METRICS}
