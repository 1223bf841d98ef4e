"""Classification improvement of PULSCAR / PULSNAR (Kumar & Lambert, PeerJ CS 2024,
Appendix, Algorithm 5) and its comparison "without PULSCAR/PULSNAR".

Notation as in :mod:`pu_lib.prior.calibration`: ``s`` are the PU labels (1 = labeled
positive, 0 = unlabeled), ``U`` the unlabeled rows, ``alpha`` the estimated fraction of
positives among them.

:func:`improve_classification` relabels the top ``round(alpha |U|)`` unlabeled rows by
calibrated probability (Algorithm 4, :mod:`pu_lib.prior.calibration`) as positives
(:func:`relabel_top_unlabeled`), trains a second classifier (XGBoost by default,
five-fold CV through :func:`pu_lib.oof.cv_probabilities`) on the relabeled data and
scores its out-of-fold probabilities against the true labels
(:func:`classification_metrics`, keys :data:`CLASSIFICATION_METRICS`);
:func:`baseline_classification` is the paper's comparison "without PULSCAR/PULSNAR"
(the same classifier trained on the PU labels as they are).

Every count ``round(x)`` is round half up (:func:`pu_lib._rounding.round_half_up`).
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from pu_lib._rounding import round_half_up
from pu_lib._validation import Interval, check_binary, check_probabilities, validate_params
from pu_lib.oof import cv_probabilities
from pu_lib.prior.calibration import ALPHA_CONSTRAINT

__all__ = [
    "CLASSIFICATION_METRICS",
    "THRESHOLD",
    "baseline_classification",
    "classification_metrics",
    "improve_classification",
    "relabel_top_unlabeled",
]

#: keys of the metric dicts of Algorithm 5, in the paper's order
CLASSIFICATION_METRICS = ("accuracy", "auc_roc", "brier", "f1", "mcc", "average_precision")

#: decision threshold for the hard predictions of Algorithm 5 (``proba >= 0.5`` -> 1)
THRESHOLD = 0.5


@validate_params({"y_true": ["array-like"], "probs": ["array-like"],
                  "threshold": [Interval(Real, 0.0, 1.0, closed="both")]})
def classification_metrics(y_true, probs, threshold=THRESHOLD) -> dict[str, float]:
    """The six metrics of Algorithm 5 from class-1 probabilities and true 0/1 labels:
    ``accuracy``, ``auc_roc``, ``brier``, ``f1``, ``mcc`` (hard predictions
    ``probs >= threshold``, 0.5 by default -- the convention of
    :func:`pu_lib.metrics.evaluate`) and ``average_precision`` (step-wise, as
    ``sklearn.metrics.average_precision_score``; :func:`pu_lib.metrics.auc_pr`).
    AUC-ROC and average precision are NaN when ``y_true`` holds one class."""
    from pu_lib import metrics as M

    y = check_binary(y_true, "y_true")
    p = check_probabilities(probs, "probs", n=y.shape[0], ref="y_true")
    pred = (p >= float(threshold)).astype(np.int8)
    return {
        "accuracy": M.accuracy(y, pred),
        "auc_roc": M.auc_roc(y, p),
        "brier": M.brier(y, p),
        "f1": M.f1(y, pred),
        "mcc": M.mcc(y, pred),
        "average_precision": M.auc_pr(y, p),
    }


def _check_X_rows(X, n):
    shape = getattr(X, "shape", None)
    if shape is None:
        X = np.asarray(X)
        shape = X.shape
    if len(shape) != 2:
        raise ValueError(f"X must be 2-D, got shape {tuple(shape)}")
    if shape[0] != n:
        raise ValueError(f"X has {shape[0]} rows but s has {n}")
    return X


def _check_s_y(s, y_true):
    s = check_binary(s, "s")
    y = check_binary(y_true, "y_true")
    if y.shape[0] != s.shape[0]:
        raise ValueError(f"y_true has {y.shape[0]} entries but s has {s.shape[0]}")
    if np.any((s == 1) & (y == 0)):
        raise ValueError("y_true is 0 on some labeled rows (s == 1); labeled rows must be positives")
    return s, y


@validate_params({"s": ["array-like"], "alpha": ALPHA_CONSTRAINT, "calibrated_unlabeled": ["array-like"]})
def relabel_top_unlabeled(s, alpha, calibrated_unlabeled) -> np.ndarray:
    """Algorithm 5, lines 2-4: labels with the top ``round(alpha |U|)`` (round half up)
    unlabeled rows, by decreasing calibrated probability (ties by row order), set to 1;
    labeled rows keep 1, the other unlabeled rows 0. ``calibrated_unlabeled`` holds one
    probability per unlabeled row, in row order."""
    s = np.asarray(s)
    unl = np.flatnonzero(s == 0)
    cal = np.asarray(calibrated_unlabeled, dtype=np.float64).ravel()
    if cal.shape[0] != unl.shape[0]:
        raise ValueError(f"calibrated_unlabeled must hold one probability per unlabeled row ({unl.shape[0]}), "
                         f"got {cal.shape[0]}")
    k = round_half_up(float(alpha) * unl.shape[0])
    order = np.lexsort((np.arange(cal.shape[0]), -cal))  # decreasing prob, then row order
    y2 = (s == 1).astype(np.int8)
    y2[unl[order[:k]]] = 1
    return y2


@validate_params({"s": ["array-like"], "y_true": ["array-like"], "alpha": ALPHA_CONSTRAINT,
                  "calibrated_unlabeled": ["array-like"], "return_probs": ["boolean"]},
                 prefer_skip_nested_validation=False)  # the caller's estimator is fitted inside
def improve_classification(X, s, y_true, alpha, calibrated_unlabeled, estimator=None, n_folds=5,
                           random_state=None, n_jobs=1, *, scale_pos_weight="auto", return_probs=False):
    """Classification with PULSCAR / PULSNAR (Algorithm 5, lines 2-6).

    Parameters
    ----------
    X : features of all rows (2-D; NaN allowed for XGBoost).
    s : PU labels (1 = labeled positive).
    y_true : true 0/1 labels, used only for the metrics.
    alpha : estimated fraction of positives among the unlabeled.
    calibrated_unlabeled : calibrated probabilities of the unlabeled rows in row order
        (line 1: :func:`calibrate_probabilities` with ``data="U"`` --
        ``calibrate_pulscar(est, s, data="U").unlabeled_probs`` or, for PULSNAR, the
        eq. 6 combination ``calibrate_pulsnar(est, s, data="U").unlabeled_probs``).
    estimator, n_folds, random_state, n_jobs, scale_pos_weight : passed to
        :func:`pu_lib.oof.cv_probabilities` (None = XGBoost; ``scale_pos_weight``
        ``"auto"`` = ``#class 0 / #class 1`` per fold, as for the first classifier).
    return_probs : also return the out-of-fold probabilities.

    Lines 2-4: the unlabeled rows are sorted by decreasing calibrated probability (ties
    by row order, so the choice is deterministic) and the top ``round(alpha |U|)`` (round
    half up) are relabeled 1 ("probable positives"); labeled rows keep label 1, the other
    unlabeled rows 0. Line 5: a second classifier is trained and tested with
    ``n_folds``-fold CV on these labels, giving out-of-fold class-1 probabilities of
    **all rows**. Line 6: the metrics (:func:`classification_metrics`, threshold 0.5) are
    computed on all rows from those probabilities and ``y_true`` ("calculated using the
    second classifier-estimated class 1 probabilities and the true labels of the
    examples").

    Returns the metric dict (keys :data:`CLASSIFICATION_METRICS`), or ``(metrics,
    probs)`` with ``return_probs=True``.
    """
    s, y = _check_s_y(s, y_true)
    X = _check_X_rows(X, s.shape[0])
    alpha = float(alpha)
    unl = np.flatnonzero(s == 0)
    if unl.shape[0] == 0:
        raise ValueError("s has no unlabeled rows (all s == 1)")
    cal = np.asarray(calibrated_unlabeled, dtype=np.float64).ravel() \
        if np.ndim(calibrated_unlabeled) <= 2 else None
    if cal is None or cal.shape[0] != unl.shape[0]:
        raise ValueError(f"calibrated_unlabeled must hold one probability per unlabeled row ({unl.shape[0]}), "
                         f"got shape {np.shape(calibrated_unlabeled)}")
    if not np.all(np.isfinite(cal)):
        raise ValueError("calibrated_unlabeled contains NaN or infinite values")
    y2 = relabel_top_unlabeled(s, alpha, cal)
    if y2.min() == 1:
        raise ValueError("after relabeling, every row is class 1 (alpha rounds to |U|); "
                         "the second classifier needs both classes")
    probs = cv_probabilities(X, y2, estimator=estimator, n_folds=n_folds, random_state=random_state,
                             n_jobs=n_jobs, scale_pos_weight=scale_pos_weight)
    m = classification_metrics(y, probs)
    return (m, probs) if return_probs else m


def baseline_classification(X, s, y_true, estimator=None, n_folds=5, random_state=None, n_jobs=1, *,
                            scale_pos_weight="auto", return_probs=False):
    """The paper's comparison "without PULSCAR/PULSNAR": the same classifier trained with
    ``n_folds``-fold CV on the PU labels as they are (labeled = 1, unlabeled = 0),
    metrics of its out-of-fold probabilities of all rows against ``y_true`` (as
    :func:`improve_classification`)."""
    s, y = _check_s_y(s, y_true)
    X = _check_X_rows(X, s.shape[0])
    probs = cv_probabilities(X, s, estimator=estimator, n_folds=n_folds, random_state=random_state,
                             n_jobs=n_jobs, scale_pos_weight=scale_pos_weight)
    m = classification_metrics(y, probs)
    return (m, probs) if return_probs else m
