"""Scoring one class-prior estimator on one repetition (a result row's estimate columns).

The estimator is fitted on the training rows ``(X_tr, s_tr)``; the truth comes from
their hidden classes ``y_tr``. Every alpha-like column says which quantity it is:

* ``prior_true`` / ``prior_hat``: the class prior of the whole training sample
  (``prior_``; Bekker thesis eq. 2.5, ``prior = L / (c T)``), error ``prior_abs_error``
  -- the thesis's |alpha_hat - alpha| (Tables 3.2-3.4);
* ``alpha_u_true`` / ``alpha_u_hat``: the fraction of positives among the unlabeled
  training rows (``alpha_``; PULSNAR's alpha), error ``alpha_u_abs_error`` (PULSNAR
  Figures 3-5);
* ``c_true`` / ``c_hat``: the label frequency, error ``c_abs_error``;
* ``fit_seconds`` and ``ms_per_example`` (fit time per training row, thesis Table 3.3);
* with ``prior_evaluation`` set, the calibration and classification columns of
  :func:`pu_lib.prior.evaluation.pulsnar_evaluation`.
"""

from __future__ import annotations

import time

from pu_lib._seeding import derive_seed

__all__ = ["prior_row"]


def prior_row(est, cell, fit_kwargs: dict, task: dict) -> dict:
    """Fit the prior estimator ``est`` on the training rows of ``cell``
    (:class:`~pu_lib.experiments.runner.RepetitionData`) and return its estimate columns."""
    X_tr, s_tr, y_tr = cell.X_tr, cell.s_tr, cell.y_tr
    t0 = time.perf_counter()
    est.fit(X_tr, s_tr, **fit_kwargs)
    fit_seconds = time.perf_counter() - t0
    n_pos = int(y_tr.sum())
    unl = s_tr == 0
    prior_true = float(y_tr.mean())
    alpha_u_true = float(y_tr[unl].mean())
    c_true = float(s_tr.sum() / n_pos) if n_pos else float("nan")
    n_train = int(s_tr.shape[0])
    row = {
        "n_eval": int(unl.sum()),
        "prior_true": prior_true,
        "prior_hat": float(est.prior_),
        "alpha_u_true": alpha_u_true,
        "alpha_u_hat": float(est.alpha_),
        "c_true": c_true,
        "c_hat": float(est.c_),
        "raw_estimate": float(getattr(est, "raw_estimate_", float("nan"))),
        "n_clusters": float(getattr(est, "n_clusters_", float("nan"))),
        "fit_seconds": fit_seconds,
        "prior_abs_error": abs(float(est.prior_) - prior_true),
        "alpha_u_abs_error": abs(float(est.alpha_) - alpha_u_true),
        "c_abs_error": abs(float(est.c_) - c_true),
        "ms_per_example": 1000.0 * fit_seconds / max(1, n_train),
    }
    pe = task.get("prior_evaluation") or {}
    if pe.get("calibration") or pe.get("classification"):
        from pu_lib.prior.evaluation import pulsnar_evaluation

        row.update(pulsnar_evaluation(est, X_tr, s_tr, y_tr, pe, derive_seed(task["seed"], "prior_evaluation")))
    return row
