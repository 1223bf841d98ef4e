"""Bootstrap confidence intervals for class-prior estimates.

:func:`bootstrap_ci` refits a prior estimator (any estimator of :mod:`pu_lib.prior`, or
anything with ``fit(X, s)`` setting ``alpha_``, ``prior_`` and ``c_``) on ``B``
resamples of the PU data and returns percentile intervals (Efron & Tibshirani, *An
Introduction to the Bootstrap*, 1993, chapter 13) for all three quantities:

* ``alpha`` -- the fraction of positives among the unlabeled (``alpha_``);
* ``prior`` -- the class prior of the whole sample (``prior_``);
* ``c`` -- the label frequency (``c_``).

**Resampling** (``resampling``; :func:`resample_rows`), stratified by the label ``s``:

* ``"half"`` (default; see below for why): stratified half-sampling (described next).
* ``"bootstrap"``: every resample draws ``|L|`` rows with replacement from the
  labeled rows and ``|U|`` rows with replacement from the unlabeled rows, so it keeps the
  sizes of both sets (and the labeled fraction, hence the conversions between alpha,
  prior and c). This is the bootstrap of the case-control sampling design (labeled and
  unlabeled sets drawn separately); in the single-training-set scenario it conditions on
  the number of labeled rows. But see "When the bootstrap itself misleads" below.
* ``"half"``: ``floor(|L|/2)`` labeled and ``floor(|U|/2)``
  unlabeled rows drawn *without* replacement (McCarthy's half samples, 1969; a
  subsampling plan in the sense of Politis & Romano, 1994). No row is repeated, so an
  estimator's internal splits cannot see copies of a row on both sides. For a mean, the
  variance of the half-sample mean over random half samples of the data is exactly the
  usual variance estimate of the full-sample mean (``S^2/m (1 - m/n) = S^2/n`` for
  ``m = n/2``), so the half-sample estimates need no rescaling; for an estimator whose bias depends on the sample size
  (TIcE's bound shrinks with ``1/sqrt(T)``) they are centred on the estimate at half the
  data.

**What the interval covers.** A percentile interval describes the sampling variability of
the *estimator* -- how much the estimate moves when the data are redrawn (including the
estimator's own randomness: every refit gets its own seed). It does not correct the
estimator's *bias*: an estimator that is biased on the data at hand (e.g. PULSCAR under
SNAR labeling, TIcE without a nearly pure positive subdomain, Elkan-Noto's e1 with
overlapping classes) is biased on every resample too, and its interval can miss the true
value however many resamples are drawn. The interval is only as good as the estimator is
unbiased. Efron & Tibshirani recommend about 1000 or more resamples for interval end
points (against 50-200 for a standard error); the default 200 trades precision of the end
points for time (every resample is a full fit).

**When the bootstrap itself misleads.** The percentile interval assumes that the
estimator, applied to resamples, varies around its full-data value as the full-data value
varies around its expectation. Two properties of the class-prior estimators break this:
they split the data internally (TIcE's tree and estimation folds, PULSCAR/PULSNAR's
cross-validation folds, Elkan-Noto's hold-out), and a resample's duplicated rows then fall
on both sides of a split; and some take a maximum over noisy quantities (TIcE's largest
lower bound, Elkan-Noto's e3), a statistic the bootstrap does not reproduce. Measured on
PULSNAR's synthetic SCAR data (1,000 labeled, 3,000 unlabeled, 50 informative features,
alpha 0.3, seed 0): TIcE's full-data alpha is 0.80 (0.80 +- 0.03 over 10 fold seeds), the
mean of 30 bootstrap estimates 0.55 (0.655 when the copies of a row share a TIcE fold);
PULSCAR collapses: full-data alpha 0.278 (0.27-0.29 over seeds), the 10 bootstrap
estimates 0.013 +- 0.004 -- its out-of-fold XGBoost probabilities of an unlabeled row whose
copy is in the training folds are near 0, so the unlabeled positives vanish. Elkan-Noto e1
is unaffected there (0.735 against 0.737, and 0.739 with the resample given as integer
``sample_weight`` instead of duplicated rows). With ``resampling="half"`` on the same data
the estimates are centred on the full-data value and spread like the estimate over
independent draws of the data: TIcE half-sample mean 0.771, sd 0.082 (full data 0.799;
sd over 8 independent draws 0.087); Elkan-Noto e1 0.793, sd 0.077 (0.735; 0.086);
PULSCAR 0.267, sd 0.048 (0.249; 0.046). Hence ``"half"`` is the default (the with-replacement bootstrap stays available as
``"bootstrap"``).
Every :class:`Interval` carries ``shift`` (mean of the resample estimates minus the
full-data estimate; the bootstrap's bias estimate, Efron & Tibshirani chapter 10), and
:func:`bootstrap_ci` warns when the full-data ``alpha_`` lies outside its own interval.

**Parallelism and determinism.** All seeds are derived up front from ``random_state``
(:func:`pu_lib._seeding.derive_seed`): resample ``b`` draws its rows with
``derive_seed("bootstrap_ci", seed, b, "rows")`` and refits a clone of the estimator with
``random_state = derive_seed("bootstrap_ci", seed, b, "fit")`` (when the estimator takes a
``random_state``). The resamples run through :func:`pu_lib.distributed.parallel_map`: on
``n_jobs`` threads, or, with ``use_dask=True``, as tasks of the current Dask client (never
because a client happens to be active); each fit runs with BLAS/OpenMP limited to one
thread. The result is therefore identical for any ``n_jobs``, with or without Dask, and
for any number of Dask workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import Interval as Range  # this module's Interval is the result type
from pu_lib._validation import StrOptions, validate_params
from pu_lib.distributed import effective_n_jobs, limit_threads, parallel_map, resolve_client

__all__ = ["BootstrapResult", "BootstrapShiftWarning", "Interval", "QUANTITIES", "RESAMPLING", "bootstrap_ci",
           "resample_rows"]

#: the quantities of a bootstrap result: attribute name of the result -> fitted attribute
QUANTITIES = {"alpha": "alpha_", "prior": "prior_", "c": "c_"}


class BootstrapShiftWarning(UserWarning):
    """The full-data estimate lies outside its own bootstrap interval."""


class Interval(NamedTuple):
    """One quantity's bootstrap result: ``estimate`` (the fit on the full data), the
    percentile interval ``[low, high]`` and the ``B`` bootstrap estimates ``samples``."""

    estimate: float
    low: float
    high: float
    samples: np.ndarray

    @property
    def shift(self) -> float:
        """Mean of the bootstrap estimates minus the full-data estimate (the bootstrap
        estimate of bias; large values flag a resampling artefact, see the module
        docstring)."""
        return float(np.mean(self.samples) - self.estimate)


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """What :func:`bootstrap_ci` returns: an :class:`Interval` for ``alpha`` (positives
    among the unlabeled), ``prior`` (whole-sample prior) and ``c`` (label frequency), the
    ``confidence`` level, ``n_resamples``, ``resampling``, the per-resample row seeds
    ``row_seeds`` (``resample_rows(s, row_seeds[b], resampling)`` reproduces resample
    ``b``) and fit seeds
    ``fit_seeds``, and ``estimator``, the clone fitted on the full data."""

    alpha: Interval
    prior: Interval
    c: Interval
    confidence: float
    n_resamples: int
    resampling: str
    row_seeds: np.ndarray
    fit_seeds: np.ndarray
    estimator: object

    @property
    def estimates(self) -> np.ndarray:
        """The bootstrap estimates, shape ``(n_resamples, 3)``: columns alpha, prior, c."""
        return np.column_stack([getattr(self, q).samples for q in QUANTITIES])

    def covers(self, value: float, quantity: str = "alpha") -> bool:
        """Whether the interval of ``quantity`` contains ``value``."""
        iv = getattr(self, _check_quantity(quantity))
        return bool(iv.low <= value <= iv.high)


def _check_quantity(quantity: str) -> str:
    if quantity not in QUANTITIES:
        raise ValueError(f"quantity must be one of {list(QUANTITIES)}, got {quantity!r}")
    return quantity


def _check_labels(s, n_rows: int) -> np.ndarray:
    s = np.asarray(s)
    if s.ndim != 1:
        s = s.ravel() if s.ndim == 2 and 1 in s.shape else s
    if s.ndim != 1:
        raise ValueError(f"s must be a 1-d array of 0/1 labels, got shape {np.shape(s)}")
    if s.shape[0] != n_rows:
        raise ValueError(f"X has {n_rows} rows but s has {s.shape[0]} labels")
    if not np.isin(s, (0, 1)).all():
        raise ValueError("s must hold only 0 (unlabeled) and 1 (labeled positive)")
    s = s.astype(np.int8)
    if s.sum() == 0 or s.sum() == s.shape[0]:
        raise ValueError("s needs at least one labeled (1) and one unlabeled (0) row for a stratified bootstrap")
    return s


#: the resampling plans of :func:`bootstrap_ci` (see the module docstring)
RESAMPLING = ("bootstrap", "half")


@validate_params({"resampling": [StrOptions(set(RESAMPLING))]})
def resample_rows(s, seed: int, resampling: str = "bootstrap") -> np.ndarray:
    """Row indices of one stratified resample of PU labels ``s``
    (``numpy.random.default_rng(seed)``): for ``"bootstrap"`` ``|L|`` labeled rows drawn
    with replacement from the labeled rows, then ``|U|`` unlabeled rows drawn with
    replacement from the unlabeled rows; for ``"half"`` ``floor(|L|/2)`` and
    ``floor(|U|/2)`` rows drawn without replacement (no row twice)."""
    s = np.asarray(s)
    lab = np.flatnonzero(s == 1)
    unl = np.flatnonzero(s == 0)
    rng = np.random.default_rng(int(seed))
    if resampling == "half":
        return np.concatenate([rng.choice(lab, size=lab.size // 2, replace=False),
                               rng.choice(unl, size=unl.size // 2, replace=False)])
    return np.concatenate([rng.choice(lab, size=lab.size, replace=True),
                           rng.choice(unl, size=unl.size, replace=True)])


def _take(X, rows):
    from sklearn.utils import _safe_indexing

    return _safe_indexing(X, rows, axis=0)


def _with_seed(estimator, seed: int | None, only_if_none: bool = False):
    """A clone of ``estimator`` with ``random_state = seed`` (when it takes one; with
    ``only_if_none`` only when its own is None)."""
    from sklearn.base import clone

    est = clone(estimator)
    params = est.get_params(deep=False)
    if seed is not None and "random_state" in params and (not only_if_none or params["random_state"] is None):
        est.set_params(random_state=int(seed))
    return est


def _estimates(est) -> tuple[float, float, float]:
    out = []
    for attr in QUANTITIES.values():
        if not hasattr(est, attr):
            raise ValueError(f"{type(est).__name__} has no {attr} after fit; bootstrap_ci needs a prior "
                             "estimator setting alpha_, prior_ and c_")
        out.append(float(getattr(est, attr)))
    return tuple(out)


def _fit_resample(X, s, estimator, resampling, row_seed, fit_seed):
    """One bootstrap replicate (a task of :func:`parallel_map`)."""
    rows = resample_rows(s, row_seed, resampling)
    est = _with_seed(estimator, fit_seed)
    est.fit(_take(X, rows), s[rows])
    return _estimates(est)


def _fit_resample_dask(X, s, estimator, resampling, row_seed, fit_seed):
    with limit_threads(1):
        return _fit_resample(X, s, estimator, resampling, row_seed, fit_seed)


@validate_params({
    "n_resamples": [Range(Integral, 2, None, closed="left")],
    "confidence": [Range(Real, 0.0, 1.0, closed="neither")],
    "n_jobs": [None, Integral],
    "resampling": [StrOptions(set(RESAMPLING))],
    "use_dask": ["boolean"],
}, prefer_skip_nested_validation=False)  # it fits the estimator it is given
def bootstrap_ci(estimator, X, s, n_resamples: int = 200, confidence: float = 0.95, random_state=None,
                 n_jobs=None, resampling: str = "half", use_dask: bool = False, progress=None) -> BootstrapResult:
    """Stratified-bootstrap percentile intervals for ``alpha_``, ``prior_`` and ``c_`` of a
    class-prior estimator (see the module docstring for the resampling, what the interval
    covers, and the seeds).

    Parameters
    ----------
    estimator : prior estimator
        An estimator with ``fit(X, s)`` setting ``alpha_``, ``prior_`` and ``c_`` (e.g.
        ``TIcE()``, ``PULSCAR(max_depth=4)``), cloned and never modified (by name:
        ``bootstrap_ci(make_prior_estimator("tice"), ...)``, :mod:`pu_lib.prior._names`; this
        module is imported by every prior estimator, which the names lead to, so it resolves
        none). The point estimate is a clone fitted on ``(X, s)``; a clone whose
        ``random_state`` is None gets one derived from ``random_state``.
    X : array-like or DataFrame, shape (n, d)
    s : array-like of 0/1, shape (n,)
        1 = labeled positive, 0 = unlabeled; both must occur.
    n_resamples : int >= 2
        ``B``, the number of bootstrap resamples (each a full refit).
    confidence : float in (0, 1)
        Level of the percentile interval: the ``(1 - confidence) / 2`` and
        ``(1 + confidence) / 2`` quantiles of the ``B`` bootstrap estimates
        (``numpy.quantile``, linear interpolation; the percentile interval of Efron &
        Tibshirani 1993, chapter 13).
    random_state : None, int, numpy Generator or numpy RandomState
        Fixes every resample and refit seed (None: fresh entropy).
    n_jobs : int or None
        Threads for the resamples (scikit-learn's convention; None = 1). Give the
        estimator ``n_jobs=1`` to avoid oversubscription.
    resampling : ``"bootstrap"`` or ``"half"``
        Stratified bootstrap with replacement, or stratified half-sampling without
        replacement (see the module docstring: ``"half"`` for estimators that split the
        data internally -- TIcE, PULSCAR, PULSNAR).
    use_dask : bool
        False (default): the resamples run on ``n_jobs`` threads, even when a Dask client
        is active. True: they are tasks of the current Dask client (``ValueError`` when
        there is none; docs/cluster.md, "Dask by explicit choice"). Same result either way.
    progress : callable or None
        Called as ``progress(n)`` with the number of resamples just finished: ``1`` after
        each resample on threads (from the worker thread), ``n_resamples`` once at the end
        with Dask. For progress display (``pu-lib prior``); it does not change the result.

    Returns
    -------
    BootstrapResult
        ``result.alpha`` / ``.prior`` / ``.c`` are :class:`Interval` s ``(estimate, low,
        high, samples)`` with ``shift``. The interval covers the estimator's variance, not
        its bias: a biased estimator's interval can miss the truth. A
        :class:`BootstrapShiftWarning` says that the full-data ``alpha_`` lies outside its
        interval (see the module docstring).
    """
    n_resamples, confidence = int(n_resamples), float(confidence)
    effective_n_jobs(n_jobs)  # ValueError for a bad n_jobs before any fit
    client = resolve_client(use_dask)  # ValueError for a bad use_dask, or True without a client
    seed = seed_to_int(random_state, "random_state", fresh_if_none=True)
    if not hasattr(estimator, "fit") or not hasattr(estimator, "get_params"):
        hint = (" (a name: make_prior_estimator(name) from pu_lib.prior._names makes the estimator)"
                if isinstance(estimator, str) else "")
        raise ValueError(f"estimator must be a prior estimator (fit, get_params), got {estimator!r}{hint}")
    n_rows = X.shape[0] if hasattr(X, "shape") else len(X)
    s = _check_labels(s, n_rows)
    need = estimator.min_labeled() if hasattr(estimator, "min_labeled") else 1
    n_res = int(s.sum()) // 2 if resampling == "half" else int(s.sum())
    if n_res < need:  # every resample would fail in fit: say why once, before any fit
        raise ValueError(f"{type(estimator).__name__} needs at least {need} labeled rows (min_labeled()); a "
                         f"{'half-sample' if resampling == 'half' else 'resample'} of these data holds {n_res} "
                         f"of the {int(s.sum())}")
    if not hasattr(X, "iloc"):
        X = np.asarray(X)

    row_seeds = np.array([derive_seed("bootstrap_ci", seed, b, "rows") for b in range(n_resamples)], dtype=np.int64)
    fit_seeds = np.array([derive_seed("bootstrap_ci", seed, b, "fit") for b in range(n_resamples)], dtype=np.int64)
    tasks = [(resampling, int(r), int(f)) for r, f in zip(row_seeds, fit_seeds)]
    with limit_threads(1):
        point = _with_seed(estimator, derive_seed("bootstrap_ci", seed, "point"), only_if_none=True).fit(X, s)
        point_values = _estimates(point)
        if client is not None:
            reps = parallel_map(_fit_resample_dask, tasks, client=client, shared=(X, s, estimator))
            if progress is not None:
                progress(n_resamples)
        else:
            fit = _fit_resample
            if progress is not None:
                def fit(*args):
                    out = _fit_resample(*args)
                    progress(1)
                    return out
            reps = parallel_map(fit, tasks, n_jobs=n_jobs, shared=(X, s, estimator))
    samples = np.asarray(reps, dtype=np.float64).reshape(n_resamples, len(QUANTITIES))
    tail = (1.0 - confidence) / 2.0
    lows, highs = np.quantile(samples, [tail, 1.0 - tail], axis=0)
    intervals = {
        q: Interval(point_values[j], float(lows[j]), float(highs[j]), samples[:, j].copy())
        for j, q in enumerate(QUANTITIES)
    }
    a = intervals["alpha"]
    if not a.low <= a.estimate <= a.high:
        import warnings

        warnings.warn(
            f"{type(point).__name__}: the full-data alpha_ {a.estimate:.4g} lies outside its {confidence:g} "
            f"bootstrap interval [{a.low:.4g}, {a.high:.4g}] (bootstrap mean {np.mean(a.samples):.4g}); the "
            "resamples shift the estimator (internal data splits see duplicated rows on both sides, or the "
            "estimate is a maximum): do not read this interval as a confidence interval"
            + ("; try resampling='half'" if resampling == "bootstrap" else ""),
            BootstrapShiftWarning, stacklevel=2)
    return BootstrapResult(**intervals, confidence=confidence, n_resamples=n_resamples, resampling=resampling,
                           row_seeds=row_seeds, fit_seeds=fit_seeds, estimator=point)
