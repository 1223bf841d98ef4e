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
* on data that is PU already (a user dataset with an ``s_column``) the true classes are
  unknown: the ``*_true`` and ``*_abs_error`` columns are NaN, the estimates stay;
* ``fit_seconds`` and ``ms_per_example`` (fit time per training row, thesis Table 3.3);
* with ``prior_evaluation`` set, the calibration and classification columns of
  :func:`pu_lib.prior.evaluation.pulsnar_evaluation`;
* with ``prior_evaluation.bootstrap: B`` (for the methods in
  ``prior_evaluation.bootstrap_methods``, default all), the stratified-bootstrap
  percentile interval (:func:`pu_lib.prior.bootstrap.bootstrap_ci`, ``B`` refits, level
  ``bootstrap_confidence``, default 0.95; resampling plan ``bootstrap_resampling``,
  default ``"half"``) of each estimate: ``alpha_u_ci_low`` /
  ``alpha_u_ci_high``, ``prior_ci_low`` / ``prior_ci_high``, ``c_ci_low`` /
  ``c_ci_high``, with ``alpha_u_boot_mean`` (the mean of the bootstrap estimates of
  alpha_u; far from ``alpha_u_hat`` it flags a resampling artefact, see
  :mod:`pu_lib.prior.bootstrap`), ``n_bootstrap``, ``ci_confidence`` and
  ``ci_resampling`` and ``bootstrap_seconds``.
  The resamples run in the repetition's own task (one thread); their seeds derive from
  the repetition's seed.
"""

from __future__ import annotations

import time

import numpy as np

from pu_lib._seeding import derive_seed

__all__ = ["BOOTSTRAP_COLUMNS", "bootstrap_columns", "prior_row"]

#: the per-repetition bootstrap columns: quantity of the result row -> attribute of the
#: :class:`~pu_lib.prior.bootstrap.BootstrapResult`
BOOTSTRAP_COLUMNS = {"alpha_u": "alpha", "prior": "prior", "c": "c"}


def prior_row(est, cell, fit_kwargs: dict, task: dict) -> dict:
    """Fit the prior estimator ``est`` on the training rows of ``cell``
    (:class:`~pu_lib.workflow.experiments.runner.RepetitionData`) and return its estimate columns."""
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
    if not getattr(cell, "y_known", True):  # data that is PU already: the estimates only
        row.update({k: float("nan") for k in ("prior_true", "alpha_u_true", "c_true", "prior_abs_error",
                                              "alpha_u_abs_error", "c_abs_error")})
    pe = task.get("prior_evaluation") or {}
    if pe.get("calibration") or pe.get("classification"):
        from pu_lib.prior.evaluation import pulsnar_evaluation

        row.update(pulsnar_evaluation(est, X_tr, s_tr, y_tr, pe, derive_seed(task["seed"], "prior_evaluation")))
    if pe.get("bootstrap") and task["method"] in pe.get("bootstrap_methods", [task["method"]]):
        if fit_kwargs:
            raise ValueError(f"prior_evaluation.bootstrap: method {task['method']!r} is fitted with "
                             f"{sorted(fit_kwargs)}, which the bootstrap refits cannot pass")
        row.update(bootstrap_columns(est, X_tr, s_tr, int(pe["bootstrap"]), float(pe.get("bootstrap_confidence", 0.95)),
                                     derive_seed(task["seed"], "bootstrap"),
                                     pe.get("bootstrap_resampling", "half")))
    return row


def bootstrap_columns(est, X, s, n_resamples: int, confidence: float, seed: int,
                      resampling: str = "half") -> dict:
    """The bootstrap columns of a result row (see the module docstring) for the prior
    estimator ``est`` (cloned, refitted ``n_resamples`` times on one thread)."""
    from pu_lib.prior.bootstrap import bootstrap_ci

    t0 = time.perf_counter()
    res = bootstrap_ci(est, X, s, n_resamples=n_resamples, confidence=confidence, random_state=seed, n_jobs=1,
                       resampling=resampling)
    out = {"n_bootstrap": n_resamples, "ci_confidence": confidence, "ci_resampling": resampling}
    for col, q in BOOTSTRAP_COLUMNS.items():
        iv = getattr(res, q)
        out[f"{col}_ci_low"] = iv.low
        out[f"{col}_ci_high"] = iv.high
    out["alpha_u_boot_mean"] = float(np.mean(res.alpha.samples))
    out["bootstrap_seconds"] = time.perf_counter() - t0
    return out
