"""Evaluation of a fitted PULSCAR / PULSNAR beyond its estimate: calibration
(Kumar & Lambert 2024, Algorithm 4, Figures 6-11) and classification with and without
the estimate (Algorithm 5, Figures 12-13). Used by the workflow's class-prior
experiments (``prior_evaluation:`` in a config); a plain function of the estimator and
the data, usable without the workflow.
"""

from __future__ import annotations

import json
from numbers import Integral

import numpy as np

from pu_lib._seeding import derive_seed
from pu_lib._validation import Interval, validate_params

__all__ = ["CALIBRATION_CURVE_BINS", "evaluates", "pulsnar_evaluation"]


#: bins of the calibration curves of :func:`pulsnar_evaluation`
CALIBRATION_CURVE_BINS = 10


def evaluates(cls) -> bool:
    """True when :func:`pulsnar_evaluation` gives columns for estimators of class ``cls``
    (PULSCAR, PULSNAR and their subclasses); the one place that decides it."""
    from pu_lib.prior import PULSCAR, PULSNAR

    return issubclass(cls, (PULSCAR, PULSNAR))


@validate_params({"options": [dict], "seed": [Interval(Integral, 0, None, closed="left")]},
                 prefer_skip_nested_validation=False)  # options reach calibrate_* unchecked here
def pulsnar_evaluation(est, X, s, y, options: dict, seed: int) -> dict:
    """Calibration (PULSNAR Algorithm 4, Figures 6-11) and classification with and without
    the estimate (Algorithm 5, Figures 12-13) for a fitted PULSCAR or PULSNAR; other
    estimators get no extra columns.

    * calibration: for ``data`` in 'PU' and 'U' (isotonic by default, ``options.method``),
      the calibration curve (10 equal bins) of the uncalibrated and calibrated
      probabilities against the true classes -- on all rows for 'PU', on the unlabeled
      for 'U' -- as JSON in column ``calibration_curves``, plus the Brier scores
      ``calib_brier_{uncal,PU,U}`` of the unlabeled rows. The uncalibrated probabilities
      are PULSCAR's out-of-fold ``probs_``; for PULSNAR the per-cluster out-of-fold
      probabilities combined by eq. 6 without rescaling (one probability per unlabeled
      row, as the paper plots), and the labeled rows' own-cluster probabilities.
    * classification: ``clf_with_<metric>`` from
      :func:`pu_lib.prior.classification.improve_classification` (top alpha |U| unlabeled by
      'U'-calibrated probability relabeled, XGBoost with 5-fold CV) and
      ``clf_without_<metric>`` from ``baseline_classification`` (XGBoost on the PU
      labels), both on all rows against the true classes.
    """
    from pu_lib.prior import PULSNAR
    from pu_lib.prior import calibration as cal
    from pu_lib.prior import classification as clf

    if not evaluates(type(est)):
        return {}
    n_bins = int(options.get("n_bins", 100))
    method = options.get("method", "isotonic")
    is_snar = isinstance(est, PULSNAR)
    calibrate = cal.calibrate_pulsnar if is_snar else cal.calibrate_pulscar
    unl = np.flatnonzero(s == 0)
    lab = np.flatnonzero(s == 1)
    out: dict = {}
    results = {}
    for data in ("PU", "U"):
        results[data] = calibrate(est, s, n_bins=n_bins, method=method, data=data,
                                  random_state=derive_seed(seed, "calibrate", data))
    if options.get("calibration"):
        if is_snar:
            raw_u = cal.combine_cluster_probabilities(np.asarray(est.cluster_probs_unlabeled_))
            raw = np.ones(s.shape[0])  # labeled rows of dropped small clusters (label -1) stay at 1
            raw[unl] = raw_u
            for j in range(est.n_clusters_):
                raw[lab[np.asarray(est.cluster_labels_) == j]] = est.cluster_probs_labeled_[j]
        else:
            raw = np.asarray(est.probs_, dtype=float)
        curves = {}
        for data, rows in (("PU", np.arange(s.shape[0])), ("U", unl)):
            res = results[data]
            calibrated = res.probs  # rows of res.rows: all rows for PU, unlabeled for U
            curves[data] = {
                "uncalibrated": {k: np.asarray(v).tolist() for k, v in cal.calibration_curve_data(
                    raw[rows], y[rows], n_bins=CALIBRATION_CURVE_BINS).items()},
                "calibrated": {k: np.asarray(v).tolist() for k, v in cal.calibration_curve_data(
                    np.clip(calibrated, 0, 1), y[rows], n_bins=CALIBRATION_CURVE_BINS).items()},
            }
        out["calibration_curves"] = json.dumps(curves)
        yu = y[unl].astype(float)
        out["calib_brier_uncal"] = float(np.mean((raw[unl] - yu) ** 2))
        out["calib_brier_PU"] = float(np.mean((results["PU"].unlabeled_probs - yu) ** 2))
        out["calib_brier_U"] = float(np.mean((results["U"].unlabeled_probs - yu) ** 2))
        out["calib_sum_U"] = float(np.sum(results["U"].unlabeled_probs))
    if options.get("classification"):
        with_ = clf.improve_classification(X, s, y, est.alpha_, results["U"].unlabeled_probs,
                                           random_state=derive_seed(seed, "with"))
        without = clf.baseline_classification(X, s, y, random_state=derive_seed(seed, "without"))
        out.update({f"clf_with_{k}": float(v) for k, v in with_.items()})
        out.update({f"clf_without_{k}": float(v) for k, v in without.items()})
    return out
