"""PULSCAR and PULSNAR class-prior estimators (Kumar & Lambert, PeerJ Computer Science
10:e2451, 2024; the paper is ``pulsnar.md``).

Both estimate ``alpha``, the fraction of positives among the unlabeled examples.

**PULSCAR** (Algorithm 1, SCAR data). Out-of-fold class-1 probabilities ``p`` of a
classifier (XGBoost, 5-fold CV) trained to separate labeled (``s = 1``) from unlabeled
(``s = 0``) rows; beta-kernel densities ``f_p`` of ``p[s == 1]`` and ``f_u`` of
``p[s == 0]`` (Chen 1999, eq. 4) on ``n_bins`` equidistant grid points of [0, 1]; since
``f_u = alpha f_p + (1 - alpha) f_n`` (eq. 2) and ``f_n >= 0``, alpha is the largest
value keeping ``f_u - alpha f_p`` non-negative, located as the sharpest change of the
objective (eq. 3)

    f(alpha) = log10( | min_{x_i > 0.5} ( f_u(x_i) - alpha f_p(x_i) ) | + eps ).

**PULSNAR** (Algorithm 3, SNAR data). Labeled positives are clustered (Gaussian mixture
on the features an XGBoost model uses, each scaled by its gain importance; number of
clusters from the knee of the BIC curve, Zhao, Hautamaki & Franti 2008), PULSCAR is run
on every cluster's labeled positives together with all unlabeled rows, and the cluster
alphas are summed (eq. 5).

Implementation choices (the paper's text lost its formulas; the authors' code,
``unmtransinfo/PULSNAR``, supplied the facts marked "authors")
------------------------------------------------------------------------------------------
* **Beta kernel** (:func:`beta_kernel_density`): ``mean_t Beta(t; x/b + 1, (1-x)/b + 1)``
  evaluated exactly (vectorised log-density, chunked; no binning of the data). Chen's
  estimator does not integrate to one (data near 0 or 1 lose mass: a point at
  ``t = 0.999`` contributes only 0.42 for ``b = 0.01``), so it is normalised to mean 1
  over its ``n_bins`` grid points (each point standing for a cell of width
  ``1 / n_bins``) -- the authors' unit-sum normalisation up to the common factor
  ``n_bins``, which cancels in the objective's slope. (A trapezoidal normalisation,
  tried too, halves the weight of the end point ``x = 1`` where ``f_p`` peaks and
  shifted PULSCAR's alpha by about +0.04 on the synthetic SCAR data.)
* **Bin count** (:func:`n_bins_rule`): the rule ("scott" by default -- the authors'
  default) applied to ALL probabilities (P and U; authors), the integer count
  (``ceil``) rounded to the *nearest* power of two (arithmetic distance, ties up --
  authors) and capped at 512 (authors); at least 2. The authors do not round Sturges'
  count; here every rule is rounded, for one consistent family of grids.
* **Bandwidth** (:func:`estimate_bandwidth`, Algorithm 2): in [0.01, 0.5], minimising the
  MSE between the histogram density (``np.histogram(values, n_bins, range=(0, 1),
  density=True)``) and the beta-kernel density, by
  ``scipy.optimize.differential_evolution`` seeded with ``random_state``. The kernel is
  evaluated on the PULSCAR grid ``np.linspace(0, 1, n_bins)`` and compared bin by bin
  (the authors' code) -- not at the bin centres as the paper's text says: at the bin
  centres the MSE decreases down to the lower bound 0.01 (always, on the synthetic
  data), and alpha becomes noisy (``evaluate_at="centres"`` gives that variant). ONE
  bandwidth, estimated on all probabilities, is used for both ``f_p`` and ``f_u``
  (authors).
* **Objective** (:func:`pulscar_objective`, eq. 3): the minimum is taken over the grid
  points ``x > 0.5`` only (authors); ``eps = |min_x f_p(x)|`` over the whole grid, or
  ``1e-10`` when that is 0 (Algorithm 1, lines 8-11; authors).
* **alpha** (:func:`select_alpha`): ``alpha`` runs over ``0, 0.0001, ..., 1``;
  ``d = diff(f) / diff(alpha)`` is the finite-difference slope and alpha is the middle
  point of the first maximum of ``|diff(d)|`` (Algorithm 1, lines 13-18; the first
  maximum is the sharpest change closest to zero).
* **Number of clusters** (:func:`bic_knee`): Zhao et al.'s angle-based knee detection
  (facts from the first author's reference implementation, ``AngleCalc``), on
  ``F = -BIC`` (scikit-learn's BIC is lower-is-better, Zhao's higher-is-better):
  candidates are the local minima of the successive difference
  ``F(m-1) + F(m+1) - 2 F(m)`` that are negative (concave bends; the curve is padded
  with 0 at both ends so the first and last interior points can qualify), ``F`` is
  rescaled to ``[0, K-1]`` (``K`` = number of BIC values; Zhao rescales by the first and
  last value, min/max is the same for a monotone curve and also defined otherwise), and
  the knee is the candidate whose angle to the first and the last point of the curve is
  smallest. Without a candidate the BIC minimum is used. ``m = 1`` is never a knee
  (paper: "this approach always returns more than one cluster").
* **Features** (:class:`PULSNAR`, ``top_fraction``): the XGBoost importance model uses
  (nearly) every column, noise included, so "the features the trees used" can be all of
  them. On the project's synthetic SNAR data (10 informative of 50 features) the 40
  noise columns, scaled by gains only about half those of the informative ones, swamp
  the mixture: the BIC rises from k = 1 and the clusters are unrelated to the
  subclasses (adjusted Rand index ~0.05). Keeping the top half by gain -- the authors'
  ``top50p_covars`` option -- recovers the five subclasses (knee at 5, ARI 0.84-0.96),
  so ``top_fraction=0.5`` is the default; ``top_fraction=1.0`` is Algorithm 3 as written.
  The per-cluster classifiers use the kept features only (authors).
* **Clusters** (:class:`PULSNAR`): ``GaussianMixture(covariance_type="full",
  max_iter=250)``, the other parameters at their defaults; features with missing values
  are imputed by the labeled positives' column mean for clustering only. Components
  that receive no labeled row are dropped; a cluster with fewer than ``n_folds``
  labeled rows cannot be cross-validated, so its rows are moved to their next most
  likely component.
* **Classifier**: ``xgboost.XGBClassifier(tree_method="hist", max_depth=...)`` with
  ``scale_pos_weight = |U| / |P|`` per fold (paper); ``xgb_params`` passes further
  parameters (the authors' synthetic-data configs use ``max_depth`` 4 and, for PULSNAR,
  ``learning_rate`` 0.2). The estimates depend strongly on the classifier: on the
  synthetic SCAR data ``max_depth=4`` gave a mean absolute error of 0.014 (40 data
  sets) against 0.030 for the default 6. The residual error is mostly the noise of
  ``min f_u / f_p`` where few labeled probabilities exceed 0.5, so alpha tends to be
  underestimated; on the synthetic SNAR data (400 labeled per cluster) PULSNAR's sum
  was within 0.05 of the truth in 8 of 12 data sets (``max_depth=4``, errors -0.13 to
  +0.01), while PULSCAR missed by up to 0.38.

Parallelism and determinism: CV folds (of all clusters together), the GMM fits of the
BIC sweep and the per-cluster alpha estimation run in parallel -- on ``n_jobs`` local
threads, or as Dask tasks when a Dask client is active. All seeds are derived up front
from ``random_state`` (:func:`pu_lib._seeding.derive_seed`); XGBoost ``hist`` models are
bit-identical for any thread count, GMMs are fitted with one BLAS thread and the kernel
density uses no BLAS, so a seed gives the same alpha whatever ``n_jobs`` or Dask.
"""

from __future__ import annotations

import math
import numbers
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import check_probabilities
from pu_lib.prior._cv import (
    _check_xgb_params,
    active_dask_client,
    cv_probabilities,
    cv_probabilities_many,
    effective_n_jobs,
    xgb_gain_importances,
)
from pu_lib.prior.base import BasePriorEstimator

__all__ = [
    "BIN_RULES",
    "PULSCAR",
    "PULSNAR",
    "PulscarResult",
    "beta_kernel_density",
    "bic_knee",
    "estimate_bandwidth",
    "n_bins_rule",
    "nearest_power_of_two",
    "pulscar_alpha",
    "pulscar_objective",
    "select_alpha",
]

#: histogram bin-count rules of the paper ("Histogram bin count")
BIN_RULES = ("sqrt", "sturges", "rice", "scott", "fd")
#: default bin rule (the authors' default)
DEFAULT_BIN_RULE = "scott"
#: largest number of bins / grid points (authors)
MAX_BINS = 512
#: default bandwidth search interval (paper, Algorithm 2)
BANDWIDTH_RANGE = (0.01, 0.5)
#: PULSCAR's alpha grid step (paper: "step size of 0.0001")
ALPHA_STEP = 1e-4
#: grid points above this enter the objective's minimum (authors)
OBJECTIVE_THRESHOLD = 0.5
#: eps of eq. 3 when min f_p is exactly 0 (authors)
EPS_FALLBACK = 1e-10

_CHUNK = 4096  # data points per block in the kernel sums (bounds memory to n_grid x 4096)
_LOG0 = -1e300  # finite stand-in for log(0): 0 * _LOG0 = 0 and c * _LOG0 -> exp = 0


# --------------------------------------------------------------------------- validation
def _check_probs(values, name: str = "values") -> np.ndarray:
    return check_probabilities(values, name, allow_empty=False)


def _check_bandwidth(bandwidth) -> float:
    if isinstance(bandwidth, bool) or not isinstance(bandwidth, numbers.Real):
        raise ValueError(f"bandwidth must be a positive number, got {bandwidth!r}")
    b = float(bandwidth)
    if not math.isfinite(b) or b <= 0.0:
        raise ValueError(f"bandwidth must be a positive finite number, got {bandwidth!r}")
    return b


def _check_bandwidth_range(bandwidth_range) -> tuple[float, float]:
    try:
        lo, hi = bandwidth_range
    except (TypeError, ValueError):
        raise ValueError(f"bandwidth_range must be a pair (low, high), got {bandwidth_range!r}") from None
    lo, hi = _check_bandwidth(lo), _check_bandwidth(hi)
    if not lo < hi:
        raise ValueError(f"bandwidth_range must have low < high, got {bandwidth_range!r}")
    return lo, hi


def _check_n_bins(n_bins, name: str = "n_bins") -> int:
    if isinstance(n_bins, bool) or not isinstance(n_bins, (numbers.Integral, np.integer)) or n_bins < 2:
        raise ValueError(f"{name} must be an integer >= 2, got {n_bins!r}")
    return int(n_bins)


def _check_bin_rule(rule) -> str:
    if not isinstance(rule, str) or rule not in BIN_RULES:
        raise ValueError(f"bin_rule must be one of {BIN_RULES}, got {rule!r}")
    return rule


# --------------------------------------------------------------------------- beta kernel
class _BetaKernelData:
    """log t and log(1 - t) of the data, computed once for many kernel evaluations."""

    def __init__(self, values):
        t = _check_probs(values)
        self.n = t.shape[0]
        with np.errstate(divide="ignore"):
            self.log_t = np.where(t > 0.0, np.log(np.where(t > 0.0, t, 1.0)), _LOG0)
            self.log_1mt = np.where(t < 1.0, np.log1p(-np.where(t < 1.0, t, 0.0)), _LOG0)

    def raw_density(self, x: np.ndarray, bandwidth: float, n_jobs: int = 1) -> np.ndarray:
        """Chen's estimate ``mean_t Beta(t; x/b + 1, (1-x)/b + 1)`` at the points ``x``."""
        from scipy.special import betaln

        x = np.asarray(x, dtype=np.float64)
        am1 = x / bandwidth  # a - 1
        bm1 = (1.0 - x) / bandwidth  # b - 1
        c = -betaln(am1 + 1.0, bm1 + 1.0)
        starts = list(range(0, self.n, _CHUNK))

        def block(s):
            lt = self.log_t[s:s + _CHUNK]
            l1 = self.log_1mt[s:s + _CHUNK]
            m = np.multiply.outer(am1, lt)
            m += np.multiply.outer(bm1, l1)
            m += c[:, None]
            np.exp(m, out=m)
            return m.sum(axis=1)

        n_threads = max(1, min(int(n_jobs), len(starts)))
        if n_threads == 1:
            parts = [block(s) for s in starts]
        else:
            with ThreadPoolExecutor(n_threads) as ex:
                parts = list(ex.map(block, starts))
        total = np.zeros(x.shape[0])
        for p in parts:  # fixed block order: identical sums for any thread count
            total += p
        return total / self.n


def beta_kernel_density(values, bandwidth, n_bins, *, normalize=True, n_jobs=1) -> np.ndarray:
    """Beta-kernel density estimate (Chen 1999; paper eq. 4) on ``np.linspace(0, 1, n_bins)``.

    At every grid point ``x`` the estimate is the mean over the data ``t`` of the beta
    density ``Beta(t; x / b + 1, (1 - x) / b + 1)`` with bandwidth ``b``. It is computed
    exactly (log-density, exponentiated in blocks of 4,096 data points, so memory stays
    at ``n_bins x 4096`` floats; 100,000 values on 512 points take well under a second).

    ``normalize=True`` (default) rescales the estimate so that its mean over the grid is
    1, i.e. it integrates to one when every grid point stands for a cell of width
    ``1 / n_bins`` (the authors normalise to unit sum, the same up to the factor
    ``n_bins``; on fine grids the trapezoidal integral also tends to 1). Chen's estimator
    itself does not integrate to one: data near 0 and 1 lose mass (see the module
    docstring). ``n_jobs`` threads share the blocks; the result does not depend on it.
    Returns a float64 array of length ``n_bins``.
    """
    n_bins = _check_n_bins(n_bins)
    b = _check_bandwidth(bandwidth)
    x = np.linspace(0.0, 1.0, n_bins)
    f = _BetaKernelData(values).raw_density(x, b, effective_n_jobs(n_jobs))
    return _unit_mean(f) if normalize else f


def _unit_mean(f: np.ndarray) -> np.ndarray:
    m = float(f.mean())
    if not m > 0.0:  # pragma: no cover - every kernel is positive inside (0, 1)
        raise ValueError("the beta-kernel density is zero on the whole grid")
    return f / m


# --------------------------------------------------------------------------- bin count
def nearest_power_of_two(v) -> int:
    """The power of two nearest to ``v >= 1`` (arithmetic distance; ties go up, as in
    the authors' code)."""
    v = float(v)
    if not math.isfinite(v) or v < 1.0:
        raise ValueError(f"value must be a finite number >= 1, got {v!r}")
    lo = 2 ** math.floor(math.log2(v))
    hi = lo if lo == v else 2 * lo
    return int(lo if v - lo < hi - v else hi)


def _raw_bin_count(v: np.ndarray, rule: str) -> float:
    n = v.shape[0]
    if rule == "sqrt":
        return math.ceil(math.sqrt(n))
    if rule == "sturges":
        return math.ceil(math.log2(n)) + 1
    if rule == "rice":
        return math.ceil(2.0 * n ** (1.0 / 3.0))
    if rule == "scott":
        h = 3.5 * float(np.std(v)) / n ** (1.0 / 3.0)
    else:  # fd
        q75, q25 = np.percentile(v, [75, 25])
        h = 2.0 * float(q75 - q25) / n ** (1.0 / 3.0)
    span = float(v.max() - v.min())
    if h <= 0.0 or span <= 0.0:
        return 1
    return math.ceil(span / h)


def n_bins_rule(values, rule=DEFAULT_BIN_RULE) -> int:
    """Number of histogram bins / grid points (paper, "Histogram bin count").

    ``n`` values, standard deviation ``sigma``, interquartile range ``IQR``:

    * ``"sqrt"``: ``ceil(sqrt(n))``;
    * ``"sturges"``: ``ceil(log2(n)) + 1``;
    * ``"rice"``: ``ceil(2 n^(1/3))``;
    * ``"scott"`` (default, as the authors'): width ``h = 3.5 sigma / n^(1/3)``, count
      ``ceil((max - min) / h)``;
    * ``"fd"`` (Freedman-Diaconis): ``h = 2 IQR / n^(1/3)``, count ``ceil((max - min) / h)``.

    A zero width or range counts as 1 bin. The count is then rounded to the nearest
    power of two (:func:`nearest_power_of_two`), capped at 512 and raised to at least 2.
    PULSCAR applies the rule to ALL probabilities (labeled and unlabeled).
    """
    rule = _check_bin_rule(rule)
    v = _check_probs(values)
    count = nearest_power_of_two(max(1, _raw_bin_count(v, rule)))
    return int(min(MAX_BINS, max(2, count)))


# --------------------------------------------------------------------------- bandwidth
def estimate_bandwidth(values, n_bins, random_state=None, *, bandwidth_range=BANDWIDTH_RANGE, evaluate_at="grid",
                       n_jobs=1) -> float:
    """Beta-kernel bandwidth fitted to the histogram (paper Algorithm 2).

    Minimises, over ``b`` in ``bandwidth_range`` (default [0.01, 0.5]), the mean squared
    error between the histogram density ``np.histogram(values, n_bins, range=(0, 1),
    density=True)`` and the beta-kernel density (normalised like the histogram, to mean
    1 over its ``n_bins`` points), bin ``k`` against point ``k``, using
    ``scipy.optimize.differential_evolution`` seeded by ``random_state`` (same seed, same
    bandwidth).

    ``evaluate_at`` -- where the kernel density is evaluated:

    * ``"grid"`` (default; the authors' code): the PULSCAR grid
      ``np.linspace(0, 1, n_bins)``, the points where the densities of eq. 3 are used;
    * ``"centres"`` (the paper's wording, "beta kernel density estimate at those bin
      centers"): the bin centres ``(k + 1/2) / n_bins``.

    The two differ in practice: at the bin centres the MSE keeps decreasing as the
    kernel narrows, so the lower bound 0.01 is returned nearly always (on the project's
    synthetic SCAR data, every time), and PULSCAR's alpha becomes noisy (it then
    underestimates by up to 0.1-0.2); on the grid the offset between points and bin
    centres penalises kernels narrower than about a bin, giving ``b ~ 0.7 / n_bins``.
    ``n_jobs`` threads evaluate the kernel sums (the result does not depend on it).
    """
    from scipy.optimize import differential_evolution

    lo, hi = _check_bandwidth_range(bandwidth_range)
    n_bins = _check_n_bins(n_bins)
    if evaluate_at not in ("grid", "centres"):
        raise ValueError(f'evaluate_at must be "grid" or "centres", got {evaluate_at!r}')
    values = _check_probs(values)
    data = _BetaKernelData(values)
    hist, edges = np.histogram(values, bins=n_bins, range=(0.0, 1.0), density=True)
    x = np.linspace(0.0, 1.0, n_bins) if evaluate_at == "grid" else (edges[:-1] + edges[1:]) / 2.0
    n_threads = effective_n_jobs(n_jobs)

    def mse(b):
        f = _unit_mean(data.raw_density(x, float(b[0]), n_threads))
        return float(np.mean((f - hist) ** 2))

    seed = seed_to_int(random_state, fresh_if_none=True)
    res = differential_evolution(mse, bounds=[(lo, hi)], rng=np.random.default_rng(seed))
    return float(np.clip(res.x[0], lo, hi))


# --------------------------------------------------------------------------- objective
def pulscar_objective(density_pos, density_unl, grid, alphas=None, *, threshold=OBJECTIVE_THRESHOLD):
    """PULSCAR's objective (paper eq. 3; Algorithm 1, lines 8-15).

    ``f(alpha) = log10(|min_{x_i > threshold} (f_u(x_i) - alpha f_p(x_i))| + eps)`` with
    ``eps = |min_x f_p(x)|`` over the whole grid (``1e-10`` when that is 0). The minimum
    runs over grid points above ``threshold`` = 0.5 (authors). ``alphas`` defaults to
    ``0, 0.0001, ..., 1``. Returns ``(alphas, objective, eps)``.
    """
    fp = np.asarray(density_pos, dtype=np.float64)
    fu = np.asarray(density_unl, dtype=np.float64)
    x = np.asarray(grid, dtype=np.float64)
    if not (fp.ndim == fu.ndim == x.ndim == 1 and fp.shape == fu.shape == x.shape):
        raise ValueError(f"densities and grid must be 1-D of equal length, got {fp.shape}, {fu.shape}, {x.shape}")
    if not (np.all(np.isfinite(fp)) and np.all(np.isfinite(fu))):
        raise ValueError("densities must be finite")
    if alphas is None:
        alphas = np.linspace(0.0, 1.0, int(round(1.0 / ALPHA_STEP)) + 1)
    alphas = np.asarray(alphas, dtype=np.float64)
    if alphas.ndim != 1 or alphas.shape[0] < 3 or np.any(np.diff(alphas) <= 0):
        raise ValueError("alphas must be an increasing 1-D grid of at least 3 values")
    mask = x > threshold
    if not mask.any():
        raise ValueError(f"no grid point above {threshold}; use more bins")
    eps = abs(float(fp.min()))
    if eps == 0.0:
        eps = EPS_FALLBACK
    err = np.min(fu[mask][None, :] - alphas[:, None] * fp[mask][None, :], axis=1)
    return alphas, np.log10(np.abs(err) + eps), eps


def select_alpha(alphas, objective) -> float:
    """alpha at the first point of sharpest change of the objective's slope (Algorithm 1,
    lines 16-18): ``d = diff(f) / diff(alpha)``, ``i = argmax |diff(d)|`` (first
    maximum), alpha = ``alphas[i + 1]`` (the middle of the three points)."""
    a = np.asarray(alphas, dtype=np.float64)
    f = np.asarray(objective, dtype=np.float64)
    d = np.diff(f) / np.diff(a)
    return float(a[int(np.argmax(np.abs(np.diff(d)))) + 1])


class PulscarResult(NamedTuple):
    """Result of :func:`pulscar_alpha`: the estimate and its diagnostics."""

    alpha: float
    n_bins: int
    bandwidth: float
    grid: np.ndarray
    density_pos: np.ndarray
    density_unl: np.ndarray
    alphas: np.ndarray
    objective: np.ndarray
    eps: float


def pulscar_alpha(probs_pos, probs_unl, n_bins=None, bin_rule=DEFAULT_BIN_RULE, random_state=None, *,
                  bandwidth=None, bandwidth_range=BANDWIDTH_RANGE, n_jobs=1) -> PulscarResult:
    """PULSCAR's alpha from class-1 probabilities of labeled positives and unlabeled rows
    (paper Algorithm 1, lines 2-18).

    ``n_bins`` None: :func:`n_bins_rule` with ``bin_rule`` on all probabilities. The
    bandwidth (None: :func:`estimate_bandwidth` on all probabilities, seeded by
    ``random_state``) is shared by ``f_p`` and ``f_u``; then :func:`pulscar_objective` and
    :func:`select_alpha`. Returns a :class:`PulscarResult` (``alpha`` first).
    """
    pp = _check_probs(probs_pos, "probs_pos")
    pu = _check_probs(probs_unl, "probs_unl")
    allp = np.concatenate([pp, pu])
    if n_bins is None:
        n_bins = n_bins_rule(allp, bin_rule)
    else:
        _check_bin_rule(bin_rule)
        n_bins = _check_n_bins(n_bins)
    if bandwidth is None:
        bandwidth = estimate_bandwidth(allp, n_bins, random_state, bandwidth_range=bandwidth_range, n_jobs=n_jobs)
    else:
        bandwidth = _check_bandwidth(bandwidth)
    grid = np.linspace(0.0, 1.0, n_bins)
    fp = beta_kernel_density(pp, bandwidth, n_bins, n_jobs=n_jobs)
    fu = beta_kernel_density(pu, bandwidth, n_bins, n_jobs=n_jobs)
    alphas, obj, eps = pulscar_objective(fp, fu, grid)
    alpha = select_alpha(alphas, obj)
    return PulscarResult(alpha, int(n_bins), float(bandwidth), grid, fp, fu, alphas, obj, float(eps))


# --------------------------------------------------------------------------- BIC knee
def bic_knee(bic) -> int:
    """Number of clusters at the knee of a BIC curve (Zhao, Hautamaki & Franti 2008,
    angle-based knee point detection; see the module docstring).

    ``bic[k - 1]`` is scikit-learn's BIC (lower is better) of a ``k``-component model,
    ``k = 1..K``. With ``F = -bic``: candidates are the negative local minima of
    ``F(m-1) + F(m+1) - 2 F(m)``, ``m = 2..K-1`` (padded with 0 at both ends); ``F`` is
    rescaled to ``[0, K-1]``; the knee is the candidate with the smallest angle between
    the segments to the first point ``(1, F(1))`` and the last point ``(K, F(K))``
    (ties: the more concave candidate). No candidate (or ``K < 3``): the BIC minimum.
    Returns ``k`` (1-based).
    """
    b = np.asarray(bic, dtype=np.float64)
    if b.ndim != 1 or b.shape[0] == 0 or not np.all(np.isfinite(b)):
        raise ValueError("bic must be a non-empty 1-D array of finite values")
    K = b.shape[0]
    if K < 3:
        return int(np.argmin(b)) + 1
    F = -b
    df = np.zeros(K + 2)  # df[m] for m = 1..K (1-based); df[0] = df[K+1] = 0 padding
    df[2:K] = F[:-2] + F[2:] - 2.0 * F[1:-1]
    cands = [m for m in range(2, K) if df[m] < 0.0 and df[m] < df[m - 1] and df[m] <= df[m + 1]]
    span = F.max() - F.min()
    if not cands or span <= 0.0:
        return int(np.argmin(b)) + 1
    Fn = (K - 1) * (F - F.min()) / span
    first = np.array([1.0, Fn[0]])
    last = np.array([float(K), Fn[-1]])
    best, best_key = None, None
    for m in cands:
        p = np.array([float(m), Fn[m - 1]])
        v1, v2 = first - p, last - p
        cosang = float(np.dot(v1, v2) / (np.linalg.norm(v1) * np.linalg.norm(v2)))
        angle = math.acos(min(1.0, max(-1.0, cosang)))
        key = (angle, df[m], m)
        if best_key is None or key < best_key:
            best, best_key = m, key
    return int(best)


# --------------------------------------------------------------------------- estimators
def _check_int(v, name, minimum):
    if isinstance(v, bool) or not isinstance(v, (numbers.Integral, np.integer)) or v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {v!r}")
    return int(v)


def _pmap(fn, items, n_jobs, client=None):
    """``[fn(*it) for it in items]`` on a Dask client (if given) or ``n_jobs`` threads."""
    items = list(items)
    if client is not None:
        futures = [client.submit(fn, *it, pure=False) for it in items]
        return client.gather(futures)
    n = max(1, min(effective_n_jobs(n_jobs), len(items)))
    if n == 1:
        return [fn(*it) for it in items]
    with ThreadPoolExecutor(n) as ex:
        return list(ex.map(lambda it: fn(*it), items))


def _pulscar_task(pp, pu, n_bins, bin_rule, seed, bandwidth_range):
    return pulscar_alpha(pp, pu, n_bins=n_bins, bin_rule=bin_rule, random_state=seed,
                         bandwidth_range=bandwidth_range)


class _PulscarParams:
    def _check_common(self):
        if self.estimator is not None and not hasattr(self.estimator, "predict_proba"):
            raise ValueError(f"estimator must be None or a classifier with predict_proba, got {self.estimator!r}")
        _check_int(self.n_folds, "n_folds", 2)
        _check_int(self.max_depth, "max_depth", 1)
        _check_bin_rule(self.bin_rule)
        if self.n_bins is not None:
            _check_n_bins(self.n_bins)
        _check_bandwidth_range(self.bandwidth_range)
        _check_xgb_params(self.xgb_params)
        effective_n_jobs(self.n_jobs)


class PULSCAR(_PulscarParams, BasePriorEstimator):
    """PULSCAR class-prior estimator for SCAR data (Kumar & Lambert 2024, Algorithm 1).

    Parameters
    ----------
    estimator : None (XGBoost, ``tree_method="hist"``, ``max_depth``) or a scikit-learn
        classifier with ``predict_proba``, cloned per CV fold.
    n_folds : CV folds for the out-of-fold probabilities (5 in the paper).
    max_depth : ``max_depth`` of the default XGBoost (6; the authors' per-dataset configs
        use 4, which is much more accurate on the paper's synthetic data).
    bin_rule : ``"scott"`` (default), ``"fd"``, ``"sqrt"``, ``"sturges"`` or ``"rice"``.
    n_bins : None (from ``bin_rule``) or a fixed grid size >= 2.
    bandwidth_range : bandwidth search interval, default (0.01, 0.5).
    xgb_params : further parameters of the default XGBoost (dict; not ``max_depth``,
        ``random_state``, ``n_jobs``, ``tree_method``, ``scale_pos_weight``).
    random_state : None, int or Generator; None draws a fresh seed per fit.
    n_jobs : threads (CV folds and kernel sums); a Dask client, when active, runs the
        folds. The estimate does not depend on ``n_jobs`` or Dask.

    Attributes
    ----------
    alpha_, prior_, c_, ... : see :class:`~pu_lib.prior.base.BasePriorEstimator`.
    probs_ : out-of-fold class-1 probabilities of all rows, in row order.
    n_bins_, bandwidth_ : grid size and beta-kernel bandwidth used.
    grid_, density_pos_, density_unl_ : the grid and the densities ``f_p``, ``f_u``.
    alphas_, objective_ : the alpha grid and the objective curve (eq. 3).
    """

    _allow_nan = True

    def __init__(self, estimator=None, n_folds=5, max_depth=6, bin_rule=DEFAULT_BIN_RULE, n_bins=None,
                 bandwidth_range=BANDWIDTH_RANGE, xgb_params=None, random_state=None, n_jobs=1):
        self.estimator = estimator
        self.n_folds = n_folds
        self.max_depth = max_depth
        self.xgb_params = xgb_params
        self.bin_rule = bin_rule
        self.n_bins = n_bins
        self.bandwidth_range = bandwidth_range
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _estimate(self, X, s):
        self._check_common()
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        probs = cv_probabilities(X, s, estimator=self.estimator, n_folds=self.n_folds,
                                 random_state=derive_seed("PULSCAR", seed, "cv"), n_jobs=self.n_jobs,
                                 max_depth=self.max_depth, xgb_params=self.xgb_params)
        res = pulscar_alpha(probs[s == 1], probs[s == 0], n_bins=self.n_bins, bin_rule=self.bin_rule,
                            random_state=derive_seed("PULSCAR", seed, "bandwidth"),
                            bandwidth_range=self.bandwidth_range, n_jobs=effective_n_jobs(self.n_jobs))
        self.probs_ = probs
        self.n_bins_ = res.n_bins
        self.bandwidth_ = res.bandwidth
        self.grid_ = res.grid
        self.density_pos_ = res.density_pos
        self.density_unl_ = res.density_unl
        self.alphas_ = res.alphas
        self.objective_ = res.objective
        return "alpha", res.alpha


def _impute_columns(Z: np.ndarray) -> np.ndarray:
    """Replace NaN by the column mean (0 for an all-NaN column)."""
    if not np.isnan(Z).any():
        return Z
    import warnings

    Z = Z.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN column
        means = np.nanmean(Z, axis=0)
    means = np.where(np.isfinite(means), means, 0.0)
    r, c = np.nonzero(np.isnan(Z))
    Z[r, c] = means[c]
    return Z


def _fit_gmm(Z, k, seed):
    """``GaussianMixture(k, covariance_type="full", max_iter=250)``: (BIC, responsibilities).
    Callers limit BLAS to one thread (results then do not depend on the thread count)."""
    from sklearn.mixture import GaussianMixture

    gm = GaussianMixture(n_components=k, covariance_type="full", max_iter=250, random_state=seed).fit(Z)
    return float(gm.bic(Z)), gm.predict_proba(Z)


def _fit_gmm_dask(Z, k, seed):
    from pu_lib.distributed import limit_threads

    with limit_threads(1):
        return _fit_gmm(Z, k, seed)


def _fit_gmms(Z, ks, seeds, n_jobs, client):
    """Fit one GMM per ``k`` (threads with one BLAS thread each, or Dask tasks)."""
    if client is not None:
        Zr = client.scatter(Z, broadcast=True)
        return _pmap(_fit_gmm_dask, [(Zr, k, sd) for k, sd in zip(ks, seeds)], n_jobs, client)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _pmap(_fit_gmm, [(Z, k, sd) for k, sd in zip(ks, seeds)], n_jobs)


class PULSNAR(_PulscarParams, BasePriorEstimator):
    """PULSNAR class-prior estimator for SNAR data (Kumar & Lambert 2024, Algorithm 3).

    Parameters
    ----------
    estimator, n_folds, max_depth, bin_rule, n_bins, bandwidth_range, xgb_params, random_state, n_jobs :
        as :class:`PULSCAR` (the importance model is always the default XGBoost, with
        ``max_depth`` and ``xgb_params``). ``n_jobs`` threads (or the Dask client) run
        the GMM fits, the CV folds of all clusters together and the per-cluster alphas.
    max_clusters : largest number of GMM components tried for the BIC curve (25).
    n_clusters : None (BIC knee, :func:`bic_knee`) or a fixed number of clusters.
    top_fraction : fraction of the features the importance model used that are kept,
        by decreasing gain (at least one): they are clustered on (scaled by gain) and
        the per-cluster classifiers use them. 1.0 keeps every feature the trees used
        (Algorithm 3 as written, the authors' default); the default 0.5 is the authors'
        ``top50p_covars`` option (``floor(n_used / 2)`` features) -- see the module
        docstring for why.

    Attributes
    ----------
    alpha_ : sum of the cluster alphas, clipped to [0, 1] (``raw_estimate_`` unclipped).
    n_clusters_ : number of (non-empty) clusters.
    cluster_labels_ : cluster (0..n_clusters_-1) of every labeled row, in the order of
        ``np.flatnonzero(s == 1)``.
    cluster_alphas_ : PULSCAR alpha of every cluster.
    cluster_probs_labeled_ : list; out-of-fold probabilities of cluster j's labeled rows
        (row order) in cluster j's model.
    cluster_probs_unlabeled_ : array (n_clusters_, n_unlabeled); out-of-fold probabilities
        of every unlabeled row (row order) in cluster j's model.
    cluster_n_bins_, cluster_bandwidths_ : per-cluster grid size and bandwidth.
    important_features_ : indices of the kept features (``top_fraction`` of those the
        importance model used, by decreasing gain): clustered on and used by the
        per-cluster classifiers.
    feature_importances_ : their gain importances.
    used_features_, used_feature_importances_ : every feature the importance model used
        and its gain (decreasing gain).
    bic_ : BIC of 1..max_clusters components (empty when ``n_clusters`` is given).
    n_clusters_bic_ : number of GMM components chosen (before dropping empty/small ones).
    """

    _allow_nan = True

    def __init__(self, estimator=None, n_folds=5, max_depth=6, bin_rule=DEFAULT_BIN_RULE, n_bins=None,
                 bandwidth_range=BANDWIDTH_RANGE, xgb_params=None, max_clusters=25, n_clusters=None, top_fraction=0.5,
                 random_state=None, n_jobs=1):
        self.estimator = estimator
        self.n_folds = n_folds
        self.max_depth = max_depth
        self.xgb_params = xgb_params
        self.bin_rule = bin_rule
        self.n_bins = n_bins
        self.bandwidth_range = bandwidth_range
        self.max_clusters = max_clusters
        self.n_clusters = n_clusters
        self.top_fraction = top_fraction
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _cluster(self, Z, seed, client):
        """GMM on the labeled positives: BIC sweep (or fixed k), knee, final labels."""
        n_l = Z.shape[0]
        if self.n_clusters is not None:
            k = min(_check_int(self.n_clusters, "n_clusters", 1), n_l)
            _, resp = _fit_gmms(Z, [k], [derive_seed("PULSNAR", seed, "gmm", k)], 1, None)[0]
            return k, np.empty(0), resp
        ks = list(range(1, min(_check_int(self.max_clusters, "max_clusters", 1), n_l) + 1))
        fits = _fit_gmms(Z, ks, [derive_seed("PULSNAR", seed, "gmm", k) for k in ks], self.n_jobs, client)
        bic = np.array([f[0] for f in fits])
        k = bic_knee(bic)
        return k, bic, fits[k - 1][1]

    def _labels_from_resp(self, resp, min_size):
        """Argmax labels; drop empty components and move the rows of components with
        fewer than ``min_size`` rows to their next most likely component."""
        allowed = np.ones(resp.shape[1], dtype=bool)
        while True:
            r = np.where(allowed[None, :], resp, -1.0)
            lab = np.argmax(r, axis=1)
            counts = np.bincount(lab, minlength=resp.shape[1])
            allowed &= counts > 0
            small = np.flatnonzero(allowed & (counts < min_size))
            if small.size == 0 or allowed.sum() <= 1:
                break
            allowed[small[np.argmin(counts[small])]] = False
        used = np.flatnonzero(np.bincount(lab, minlength=resp.shape[1]) > 0)
        remap = np.full(resp.shape[1], -1, dtype=np.int64)
        remap[used] = np.arange(used.size)
        return remap[lab]

    def _estimate(self, X, s):
        self._check_common()
        if self.n_clusters is not None:
            _check_int(self.n_clusters, "n_clusters", 1)
        _check_int(self.max_clusters, "max_clusters", 1)
        tf = self.top_fraction
        if isinstance(tf, bool) or not isinstance(tf, numbers.Real) or not 0.0 < float(tf) <= 1.0:
            raise ValueError(f"top_fraction must be a number in (0, 1], got {tf!r}")
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        client = active_dask_client()
        lab_rows = np.flatnonzero(s == 1)
        unl_rows = np.flatnonzero(s == 0)

        # Algorithm 3, line 1: important features and gain scores from XGBoost on all (X, s)
        idx, gains = xgb_gain_importances(X, s, max_depth=self.max_depth,
                                          random_state=derive_seed("PULSNAR", seed, "importance"),
                                          n_jobs=self.n_jobs, xgb_params=self.xgb_params)
        if idx.size == 0:  # no split at all: cluster on (and classify with) all features
            idx = np.arange(X.shape[1], dtype=np.int64)
            gains = np.ones(X.shape[1])
        self.used_features_ = idx
        self.used_feature_importances_ = gains
        n_keep = max(1, int(math.floor(float(tf) * idx.size + 1e-9)))
        idx, gains = idx[:n_keep], gains[:n_keep]
        self.important_features_ = idx
        self.feature_importances_ = gains

        # lines 2-4: scale important features by gain, cluster the labeled positives
        Z = _impute_columns(np.asarray(X[np.ix_(lab_rows, idx)], dtype=np.float64)) * gains[None, :]
        k, bic, resp = self._cluster(Z, seed, client)
        self.bic_ = bic
        self.n_clusters_bic_ = int(k)
        labels = self._labels_from_resp(resp, int(self.n_folds))
        n_clusters = int(labels.max()) + 1
        self.n_clusters_ = n_clusters
        self.cluster_labels_ = labels

        # lines 5-10: PULSCAR on (cluster j positives + all unlabeled), CV folds of all clusters together
        Xi = np.ascontiguousarray(X[:, idx])
        problems = []
        for j in range(n_clusters):
            rows = np.sort(np.concatenate([lab_rows[labels == j], unl_rows]))
            problems.append((rows, derive_seed("PULSNAR", seed, "cluster", j, "cv")))
        probs = cv_probabilities_many(Xi, s, problems, estimator=self.estimator, n_folds=self.n_folds,
                                      n_jobs=self.n_jobs, max_depth=self.max_depth, xgb_params=self.xgb_params)
        probs_lab, probs_unl = [], np.empty((n_clusters, unl_rows.shape[0]))
        for j, ((rows, _), p) in enumerate(zip(problems, probs)):
            is_lab = s[rows] == 1
            probs_lab.append(p[is_lab])
            probs_unl[j] = p[~is_lab]
        tasks = [
            (probs_lab[j], probs_unl[j], self.n_bins, self.bin_rule,
             derive_seed("PULSNAR", seed, "cluster", j, "bandwidth"), tuple(self.bandwidth_range))
            for j in range(n_clusters)
        ]
        results = _pmap(_pulscar_task, tasks, self.n_jobs, client)
        self.cluster_alphas_ = np.array([r.alpha for r in results], dtype=np.float64)
        self.cluster_n_bins_ = np.array([r.n_bins for r in results], dtype=np.int64)
        self.cluster_bandwidths_ = np.array([r.bandwidth for r in results], dtype=np.float64)
        self.cluster_objectives_ = [r.objective for r in results]
        self.cluster_probs_labeled_ = probs_lab
        self.cluster_probs_unlabeled_ = probs_unl
        return "alpha", float(self.cluster_alphas_.sum())
