"""PULSCAR's density machinery (Kumar & Lambert, PeerJ Computer Science 10:e2451, 2024;
the paper is ``pulsnar.md``): beta-kernel densities of classifier probabilities, the
histogram bin rules, the bandwidth (Algorithm 2), the objective (eq. 3) and the choice
of alpha (Algorithm 1, lines 2-18), as plain functions of probability vectors.

The estimators built on them are :class:`pu_lib.prior.PULSCAR` (:mod:`pu_lib.prior.pulscar`)
and :class:`pu_lib.prior.PULSNAR` (:mod:`pu_lib.prior.pulsnar`).

With out-of-fold class-1 probabilities ``p`` of a classifier separating labeled
(``s = 1``) from unlabeled (``s = 0``) rows, beta-kernel densities ``f_p`` of ``p[s == 1]``
and ``f_u`` of ``p[s == 0]`` (Chen 1999, eq. 4) are estimated on ``n_bins`` equidistant
grid points of [0, 1]; since ``f_u = alpha f_p + (1 - alpha) f_n`` (eq. 2) and
``f_n >= 0``, alpha is the largest value keeping ``f_u - alpha f_p`` non-negative,
located as the sharpest change of the objective (eq. 3)

    f(alpha) = log10( | min_{x_i > 0.5} ( f_u(x_i) - alpha f_p(x_i) ) | + eps ).

Implementation choices (the paper's text lost its formulas; the authors' code,
``unmtransinfo/PULSNAR``, supplied the facts marked "authors")
------------------------------------------------------------------------------------------
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
* **Bandwidth** (:func:`estimate_bandwidth`, Algorithm 2): in ``bandwidth_range``
  (default [0.01, 0.5], the authors' class default; their example scripts narrow it per
  data set), minimising the MSE between the histogram density (``np.histogram(values,
  n_bins, range=(0, 1), density=True)``) and the beta-kernel density, by
  ``scipy.optimize.minimize_scalar(method="bounded")`` (``search="local"``: what every
  example script of the authors uses, ``optim='local'``) or by
  ``scipy.optimize.differential_evolution`` seeded with ``random_state``
  (``search="global"``: the authors' class default, ``optim='global'``). The kernel is
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

The kernel sums run in fixed-size blocks, on ``n_jobs`` threads; the blocks are added in
a fixed order, so the densities (and alpha) do not depend on the number of threads.
"""

from __future__ import annotations

import math
import numbers
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np

from pu_lib._seeding import seed_to_int
from pu_lib._validation import Interval, StrOptions, check_probabilities, validate_params
from pu_lib.distributed import effective_n_jobs, parallel_map

__all__ = [
    "ALPHA_STEP",
    "BANDWIDTH_RANGE",
    "BANDWIDTH_SEARCHES",
    "DEFAULT_BANDWIDTH_SEARCH",
    "BIN_RULES",
    "DEFAULT_BIN_RULE",
    "EPS_FALLBACK",
    "MAX_BINS",
    "OBJECTIVE_THRESHOLD",
    "PulscarResult",
    "beta_kernel_density",
    "check_bandwidth_range",
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
#: bandwidth optimisers: "local" = bounded Brent (authors' examples), "global" = differential evolution
BANDWIDTH_SEARCHES = ("local", "global")
#: default bandwidth optimiser (every example script of the authors: optim='local')
DEFAULT_BANDWIDTH_SEARCH = "local"
#: PULSCAR's alpha grid step (paper: "step size of 0.0001")
ALPHA_STEP = 1e-4
#: grid points above this enter the objective's minimum (authors)
OBJECTIVE_THRESHOLD = 0.5
#: eps of eq. 3 when min f_p is exactly 0 (authors)
EPS_FALLBACK = 1e-10

_CHUNK = 4096  # data points per block in the kernel sums (bounds memory to n_grid x 4096)
_LOG0 = -1e300  # finite stand-in for log(0): 0 * _LOG0 = 0 and c * _LOG0 -> exp = 0


# --------------------------------------------------------------------------- argument checks
#: parameter constraints of the public functions (:func:`pu_lib._validation.validate_params`)
_BANDWIDTH = [Interval(Real, 0.0, None, closed="neither")]
_N_BINS = [Interval(Integral, 2, None, closed="left")]
_BIN_RULE = [StrOptions(BIN_RULES)]
_BANDWIDTH_SEARCH = [StrOptions(BANDWIDTH_SEARCHES)]


def _check_probs(values, name: str = "values") -> np.ndarray:
    return check_probabilities(values, name, allow_empty=False)


def _check_bandwidth(bandwidth, name: str = "bandwidth") -> float:
    if isinstance(bandwidth, bool) or not isinstance(bandwidth, numbers.Real):
        raise ValueError(f"{name} must be a positive number, got {bandwidth!r}")
    b = float(bandwidth)
    if not math.isfinite(b) or b <= 0.0:
        raise ValueError(f"{name} must be a positive finite number, got {bandwidth!r}")
    return b


def check_bandwidth_range(bandwidth_range) -> tuple[float, float]:
    """``bandwidth_range`` as a pair ``(low, high)`` of positive finite numbers with
    ``low < high`` (what a parameter constraint cannot express: PULSCAR and PULSNAR check
    their ``bandwidth_range`` with it, :func:`estimate_bandwidth` too)."""
    try:
        lo, hi = bandwidth_range
    except (TypeError, ValueError):
        raise ValueError(f"bandwidth_range must be a pair (low, high), got {bandwidth_range!r}") from None
    lo, hi = _check_bandwidth(lo, "bandwidth_range's low"), _check_bandwidth(hi, "bandwidth_range's high")
    if not lo < hi:
        raise ValueError(f"bandwidth_range must have low < high, got {bandwidth_range!r}")
    return lo, hi


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

        parts = parallel_map(block, [(s,) for s in starts], n_jobs=n_jobs)
        total = np.zeros(x.shape[0])
        for p in parts:  # fixed block order: identical sums for any thread count
            total += p
        return total / self.n


@validate_params({"values": ["array-like"], "bandwidth": _BANDWIDTH, "n_bins": _N_BINS, "normalize": ["boolean"]})
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
    n_bins, b = int(n_bins), float(bandwidth)
    if not math.isfinite(b):
        raise ValueError(f"bandwidth must be a positive finite number, got {bandwidth!r}")
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


@validate_params({"values": ["array-like"], "rule": _BIN_RULE})
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
    v = _check_probs(values)
    count = nearest_power_of_two(max(1, _raw_bin_count(v, rule)))
    return int(min(MAX_BINS, max(2, count)))


# --------------------------------------------------------------------------- bandwidth
@validate_params({"values": ["array-like"], "n_bins": _N_BINS, "bandwidth_range": ["array-like"],
                  "evaluate_at": [StrOptions(("grid", "centres"))], "search": _BANDWIDTH_SEARCH})
def estimate_bandwidth(values, n_bins, random_state=None, *, bandwidth_range=BANDWIDTH_RANGE, evaluate_at="grid",
                       search=DEFAULT_BANDWIDTH_SEARCH, n_jobs=1) -> float:
    """Beta-kernel bandwidth fitted to the histogram (paper Algorithm 2).

    Minimises, over ``b`` in ``bandwidth_range`` (default [0.01, 0.5]), the mean squared
    error between the histogram density ``np.histogram(values, n_bins, range=(0, 1),
    density=True)`` and the beta-kernel density (normalised like the histogram, to mean
    1 over its ``n_bins`` points), bin ``k`` against point ``k``.

    ``search`` -- the optimiser:

    * ``"local"`` (default; every example script of the authors, ``optim='local'``):
      ``scipy.optimize.minimize_scalar(method="bounded")`` (Brent's method on the
      interval, ``xatol`` 1e-5); deterministic, ``random_state`` is not used. It finds a
      local minimum; the MSE curve is usually unimodal in ``b``.
    * ``"global"`` (the authors' class default, ``optim='global'``):
      ``scipy.optimize.differential_evolution`` seeded by ``random_state`` (same seed,
      same bandwidth); about 10x more kernel evaluations.

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
    from scipy.optimize import differential_evolution, minimize_scalar

    lo, hi = check_bandwidth_range(bandwidth_range)
    n_bins = int(n_bins)
    values = _check_probs(values)
    data = _BetaKernelData(values)
    hist, edges = np.histogram(values, bins=n_bins, range=(0.0, 1.0), density=True)
    x = np.linspace(0.0, 1.0, n_bins) if evaluate_at == "grid" else (edges[:-1] + edges[1:]) / 2.0
    n_threads = effective_n_jobs(n_jobs)

    def mse(b):
        f = _unit_mean(data.raw_density(x, float(np.ravel(b)[0]), n_threads))
        return float(np.mean((f - hist) ** 2))

    if search == "local":
        res = minimize_scalar(mse, bounds=(lo, hi), method="bounded")
        return float(np.clip(res.x, lo, hi))
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


@validate_params({"probs_pos": ["array-like"], "probs_unl": ["array-like"], "n_bins": [None, *_N_BINS],
                  "bin_rule": _BIN_RULE, "bandwidth": [None, *_BANDWIDTH], "bandwidth_range": ["array-like"],
                  "bandwidth_search": _BANDWIDTH_SEARCH})
def pulscar_alpha(probs_pos, probs_unl, n_bins=None, bin_rule=DEFAULT_BIN_RULE, random_state=None, *,
                  bandwidth=None, bandwidth_range=BANDWIDTH_RANGE, bandwidth_search=DEFAULT_BANDWIDTH_SEARCH,
                  n_jobs=1) -> PulscarResult:
    """PULSCAR's alpha from class-1 probabilities of labeled positives and unlabeled rows
    (paper Algorithm 1, lines 2-18).

    ``n_bins`` None: :func:`n_bins_rule` with ``bin_rule`` on all probabilities. The
    bandwidth (None: :func:`estimate_bandwidth` on all probabilities with
    ``bandwidth_search``, seeded by ``random_state``) is shared by ``f_p`` and ``f_u``; then :func:`pulscar_objective` and
    :func:`select_alpha`. Returns a :class:`PulscarResult` (``alpha`` first).
    """
    pp = _check_probs(probs_pos, "probs_pos")
    pu = _check_probs(probs_unl, "probs_unl")
    allp = np.concatenate([pp, pu])
    n_bins = n_bins_rule(allp, bin_rule) if n_bins is None else int(n_bins)
    if bandwidth is None:
        bandwidth = estimate_bandwidth(allp, n_bins, random_state, bandwidth_range=bandwidth_range,
                                       search=bandwidth_search, n_jobs=n_jobs)
    else:
        bandwidth = _check_bandwidth(bandwidth)
    grid = np.linspace(0.0, 1.0, n_bins)
    fp = beta_kernel_density(pp, bandwidth, n_bins, n_jobs=n_jobs)
    fu = beta_kernel_density(pu, bandwidth, n_bins, n_jobs=n_jobs)
    alphas, obj, eps = pulscar_objective(fp, fu, grid)
    alpha = select_alpha(alphas, obj)
    return PulscarResult(alpha, int(n_bins), float(bandwidth), grid, fp, fu, alphas, obj, float(eps))
