"""DEDPUL: Difference-of-Estimated-Densities-based Positive-Unlabeled Learning
(D. Ivanov, ICMLA 2020, arXiv:1902.06965), as a class-prior estimator.

**Pipeline** (paper, Algorithm 1 and section 3; defaults from the authors' code,
``dimonenka/DEDPUL``, ``algorithms.py``: ``estimate_poster_cv`` -> ``estimate_diff`` ->
``estimate_poster_em``). The authors' code works with the share of *negatives* in U and
with predictions ``y(x) = Pr(U | x)``; we follow it and convert at the end
(``alpha = 1 - alpha_N``, the note in their README).

1. **Non-traditional classifier**: out-of-fold probabilities of a labeled-vs-unlabeled
   classifier (:func:`pu_lib.oof.cv_probabilities`, 5 stratified folds), ``y = 1 -
   Pr(s = 1 | x)``. *Deviation*: the authors train an ensemble of neural networks
   (``estimate_preds_cv``; their experiments: 5 folds, 1 network); we use XGBoost as
   PULSCAR does (``tree_method="hist"``, ``max_depth = 4``, ``scale_pos_weight =
   |U|/|P|`` per fold), any classifier with ``predict_proba`` (``estimator``), or, with
   ``booster="catboost"``, CatBoost as the PULSNAR paper ran DEDPUL, with the settings of
   the authors' own CatBoost variant (``estimate_preds_cv_catboost``;
   :data:`pu_lib.oof.CATBOOST_DEFAULTS`). The
   density ratio of the next step does not depend on a monotone recalibration of ``y``.
2. **Densities** of ``y`` on P and on U (``estimate_diff``, ``kde_mode="logit"``): Gaussian
   kernel densities of ``z = log(y / (1 - y + 1e-5))`` with ``scipy.stats.gaussian_kde``'s
   scalar bandwidth factors ``bw_pos = 0.1`` (P) and ``bw_mix = 0.05`` (U), i.e. kernel
   standard deviations ``0.1 sd(z_P)`` and ``0.05 sd(z_U)``, mapped back by the Jacobian,
   ``f(y) = g(z) / (y (1 - y) + 1e-5)``. *Implementation*: the kernel sums are evaluated
   by linear binning on a grid with spacing at most 1/20 of the smaller bandwidth (at least
   2,048 and at most 2**20 points) and an FFT convolution, then interpolated linearly at
   the U points (the exact sums cost ``n_U (n_U + n_P)`` kernel evaluations, 10**10 at
   U = 100,000); ``y`` is clipped to ``[1e-12, 1]`` before the logit, and a standard
   deviation of the logits below ``1e-3`` (every prediction of a sample equal, where
   ``gaussian_kde`` raises) is raised to ``1e-3``.
3. **Density ratio** ``r = f_P / (f_U + 1e-5)`` at the U points, in increasing order of
   ``y``, then processed as the authors do: values above 50 set to 50; a centred rolling
   median of window 11 (``rolling_apply(diff, 5)``: the window shrinks symmetrically at
   the ends, ``2 min(k, i, n-1-i) + 1`` values at position ``i``); below the threshold
   ``(mean y_U + mean y_P) / 2`` (``threshold="mid"``) ``r`` is made non-increasing in
   ``y`` (a reversed cumulative maximum); a second rolling median with ``k_neighbours =
   n_U // 20``; the monotonizing trends (``MT=True``, ``MT_coef=0.2``, class
   ``MonotonizingTrends``, run from the highest ``y`` down: every value is raised to the
   largest earlier value still "alive", a value's counter starting at 1, gaining 1 for
   every later value at least as large and losing ``MT_coef`` for every smaller one, and
   dying at 0 -- we count exactly, so a counter of ``1 - 5 * 0.2`` dies, where the
   authors' float sums leave it at ``5.6e-17``, alive for one more step); finally the
   values are sorted and reassigned so that ``r`` is non-increasing in ``y``.
4. **Prior** (``estimate_poster_em``, the authors' default ``estimator="dedpul"``; the
   paper's "EM" variant): with posteriors ``p_N(alpha_N) = max(1 - r (1 - alpha_N), 0)``,
   (a) *converge*: ``alpha_N = 0``, then ``alpha_N <- mean p_N(alpha_N)`` until the
   change is below ``1e-5`` or every posterior is positive (at most 1,000 times);
   (b) *non-converge*: on the grid ``alpha_N = 0, 0.001, ..., 0.999`` the errors
   ``e = mean p_N - alpha_N``, and the grid point (interior, ``e < 0.05``) of largest
   second difference of ``e``; (b) is returned only when it is below (a) and either at
   most one grid error is negative or (a) is at least ``0.999``, else (a). Our ``alpha`` is
   ``1 - alpha_N``. ``method="dmin"`` is the paper's
   other estimate (``estimate_poster_dedpul``): ``alpha_N = 1 - 1 / max(q, 1)``, ``q`` the
   0.95-quantile (``"higher"``) of ``r`` -- ``alpha = 1 / max(q, 1)``, the infimum of
   ``f_U / f_P`` relaxed by 5 %.

All loops over rows are compiled (numba: the rolling medians, the monotonizing trends
on a lazy segment tree, ``O(n log n)``) or vectorised (the error grid through sorted
cumulative sums).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import validate_params
from pu_lib.base import RANDOM_STATE_CONSTRAINT, SparseWhen, learner_accepts_sparse
from pu_lib.oof import (CV_BOOSTERS, check_booster, check_catboost_params, check_extra_xgb_params, check_xgb_estimator,
                        cv_probabilities, hist_boost_params)
from pu_lib.prior._dedpul_kernel import monotonize_kernel, rolling_median_kernel
from pu_lib.prior.base import BasePriorEstimator
from pu_lib.prior.tuning import TUNE_CONSTRAINT, check_tune, tune_classifier

__all__ = ["DEDPUL", "DEDPUL_DEFAULTS", "dedpul_alpha", "density_ratio", "monotonize_trends", "rolling_median"]

#: the authors' defaults (``estimate_diff`` / ``estimate_poster_em`` / ``estimate_poster_dedpul``)
DEDPUL_DEFAULTS: dict = {
    "bw_mix": 0.05,
    "bw_pos": 0.1,
    "ratio_cap": 50.0,
    "first_window": 5,
    "mt_coef": 0.2,
    "em_tol": 1e-5,
    "em_max_iter": 1000,
    "em_step": 0.001,
    "em_max_diff": 0.05,
    "dmin_quantile": 0.05,
}

_EPS = 1e-5
_SD_FLOOR = 1e-3

#: constraints of the DEDPUL parameters the public functions share with the class
_STEP_CONSTRAINTS: dict = {
    "method": [StrOptions({"em", "dmin"})],
    "bw_mix": [Interval(Real, 0, None, closed="neither")],
    "bw_pos": [Interval(Real, 0, None, closed="neither")],
    "k_neighbours": [None, Interval(Integral, 0, None, closed="left")],
    "monotonize": ["boolean"],
    "mt_coef": [Interval(Real, 0, None, closed="neither")],
}


# --------------------------------------------------------------------------- numpy steps
@validate_params({"a": ["array-like"], "k": [Interval(Integral, None, None, closed="neither")]})
def rolling_median(a, k: int) -> np.ndarray:
    """Centred rolling median of ``a`` with half-width ``k``, shrinking symmetrically at
    the ends (the authors' ``rolling_apply``); ``k <= 0`` returns a copy of ``a``."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    k = int(k)
    if k <= 0 or a.shape[0] <= 1:
        return a.copy()
    return rolling_median_kernel(a, k)


@validate_params({"a": ["array-like"], "mt_coef": _STEP_CONSTRAINTS["mt_coef"]})
def monotonize_trends(a, mt_coef: float = DEDPUL_DEFAULTS["mt_coef"]) -> np.ndarray:
    """The authors' ``MonotonizingTrends`` on ``a`` in the given order (module docstring)."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    if a.shape[0] == 0:
        return a.copy()
    values, ranks = np.unique(a, return_inverse=True)
    return monotonize_kernel(a, ranks.astype(np.int64), values, float(mt_coef), 1e-9)


def monotonize_trends_reference(a, mt_coef: float = DEDPUL_DEFAULTS["mt_coef"]) -> np.ndarray:
    """The authors' ``MonotonizingTrends`` written plainly (a dict of counters, one Python
    step per element): the statement :func:`monotonize_trends` is tested and benchmarked
    against. Not used in fitting (quadratic in the number of live counters)."""
    counter, out = {}, []
    for p in np.asarray(a, dtype=np.float64).tolist():
        out.append(max(p, max(counter)) if counter else p)
        for key in list(counter):
            counter[key] += 1 if key <= p else -mt_coef
        for key in [k for k, v in counter.items() if v <= 1e-9]:
            counter.pop(key)
        counter.setdefault(p, 1)
    return np.array(out)


def _binned_kde(sample, bandwidth, points):
    """Gaussian kernel density of ``sample`` (kernel sd ``bandwidth``) at ``points``:
    linear binning + FFT convolution on a grid, linear interpolation (module docstring)."""
    from scipy.signal import fftconvolve

    lo = min(sample.min(), points.min()) - 5.0 * bandwidth
    hi = max(sample.max(), points.max()) + 5.0 * bandwidth
    g = int(min(2**20, max(2048, math.ceil((hi - lo) / (bandwidth / 20.0)) + 1)))
    grid = np.linspace(lo, hi, g)
    delta = grid[1] - grid[0]
    pos = (sample - lo) / delta
    i0 = np.clip(np.floor(pos).astype(np.int64), 0, g - 2)
    frac = pos - i0
    counts = np.bincount(i0, weights=1.0 - frac, minlength=g) + np.bincount(i0 + 1, weights=frac, minlength=g)
    half = int(min(g - 1, math.ceil(5.0 * bandwidth / delta)))
    offs = np.arange(-half, half + 1) * delta
    kern = np.exp(-0.5 * (offs / bandwidth) ** 2) / (bandwidth * math.sqrt(2.0 * math.pi))
    dens = fftconvolve(counts, kern, mode="same") / sample.shape[0]
    np.maximum(dens, 0.0, out=dens)
    return np.interp(points, grid, dens)


@validate_params({"preds_pos": ["array-like"], "preds_unl": ["array-like"],
                  **{k: _STEP_CONSTRAINTS[k] for k in ("bw_mix", "bw_pos", "k_neighbours", "monotonize", "mt_coef")}})
def density_ratio(preds_pos, preds_unl, bw_mix=DEDPUL_DEFAULTS["bw_mix"], bw_pos=DEDPUL_DEFAULTS["bw_pos"],
                  k_neighbours=None, monotonize=True, mt_coef=DEDPUL_DEFAULTS["mt_coef"]):
    """The processed density ratio ``f_P / f_U`` at the unlabeled points (steps 2-3 of the
    module docstring), in the order of ``preds_unl``. ``preds_*`` are ``y = Pr(U | x)``."""
    yp = np.asarray(preds_pos, dtype=np.float64)
    yu = np.asarray(preds_unl, dtype=np.float64)
    n_u = yu.shape[0]
    threshold = yu.mean() / 2.0 + yp.mean() / 2.0
    if k_neighbours is None:
        k_neighbours = n_u // 20

    def logit(y):
        y = np.clip(y, 1e-12, 1.0)
        return np.log(y / (1.0 - y + _EPS))

    zp, zu = logit(yp), logit(yu)
    # gaussian_kde's bandwidth is a factor of the sample's standard deviation; a sample
    # whose logits (nearly) coincide -- a classifier that gives every row the same
    # probability -- makes it raise; we floor that deviation at _SD_FLOOR instead
    sd_p = max(zp.std(ddof=1) if zp.shape[0] > 1 else 0.0, _SD_FLOOR)
    sd_u = max(zu.std(ddof=1) if zu.shape[0] > 1 else 0.0, _SD_FLOOR)
    order = np.argsort(yu, kind="stable")
    ys = yu[order]
    zs = zu[order]
    jac = ys * (1.0 - ys) + _EPS
    f_pos = _binned_kde(zp, bw_pos * sd_p, zs) / jac
    f_unl = _binned_kde(zu, bw_mix * sd_u, zs) / jac
    r = f_pos / (f_unl + _EPS)
    np.minimum(r, DEDPUL_DEFAULTS["ratio_cap"], out=r)
    r = rolling_median(r, DEDPUL_DEFAULTS["first_window"])
    below = ys <= threshold
    nb = int(below.sum())  # ys is sorted: the rows below the threshold are a prefix
    if nb:
        r[:nb] = np.maximum.accumulate(r[:nb][::-1])[::-1]
    r = rolling_median(r, k_neighbours)
    if monotonize:
        r = monotonize_trends(r[::-1], mt_coef)[::-1]
    r = np.sort(r)[::-1]  # non-increasing in y
    out = np.empty(n_u)
    out[order] = r
    return out


def _mean_posteriors(ratio, alphas_n):
    """``mean(max(1 - r (1 - a), 0))`` for every ``a`` in ``alphas_n`` (sorted cumulative sums)."""
    rs = np.sort(ratio)
    csum = np.concatenate([[0.0], np.cumsum(rs)])
    scale = 1.0 - np.asarray(alphas_n, dtype=np.float64)
    with np.errstate(divide="ignore"):
        cut = np.where(scale > 0, 1.0 / np.where(scale > 0, scale, 1.0), np.inf)
    m = np.searchsorted(rs, cut, side="left")  # rows with r < 1 / (1 - a) have positive posteriors
    return (m - scale * csum[m]) / rs.shape[0]


@validate_params({"ratio": ["array-like"], "method": _STEP_CONSTRAINTS["method"]})
def dedpul_alpha(ratio, method="em"):
    """``(alpha, details)``: the fraction of positives among the unlabeled from the processed
    density ratio, by the authors' EM procedure (``"em"``) or ``"dmin"`` (module docstring)."""
    d = DEDPUL_DEFAULTS
    ratio = np.asarray(ratio, dtype=np.float64)
    if method == "dmin":
        q = float(np.quantile(ratio, 1.0 - d["dmin_quantile"], method="higher"))
        return 1.0 / max(q, 1.0), {"quantile": q}
    # (a) converge
    a_conv = 0.0
    for _ in range(d["em_max_iter"]):
        post = np.maximum(1.0 - ratio * (1.0 - a_conv), 0.0)
        mean_post = float(post.mean())
        if abs(mean_post - a_conv) < d["em_tol"] or post.min() > 0:
            break
        a_conv = mean_post
    # (b) non-converge
    grid = np.arange(0.0, 1.0, d["em_step"])
    errors = _mean_posteriors(ratio, grid) - grid
    inner = errors[1:-1] < d["em_max_diff"]
    a_nonconv = None
    if inner.any():
        second = np.diff(np.diff(errors))[inner]
        a_nonconv = float(grid[1:-1][inner][int(np.argmax(second))])
    use_conv = (a_nonconv is None or a_nonconv >= a_conv
                or ((errors < 0).sum() > 1 and a_conv < 1.0 - d["em_step"]))
    alpha_n = a_conv if use_conv else a_nonconv
    return 1.0 - alpha_n, {"alpha_n_converge": a_conv, "alpha_n_nonconverge": a_nonconv,
                           "chosen": "converge" if use_conv else "nonconverge"}


class DEDPUL(BasePriorEstimator):
    """DEDPUL class-prior estimator (Ivanov 2020; module docstring for every step).

    Parameters
    ----------
    estimator : None (XGBoost, as PULSCAR; the authors use neural networks) or a
        scikit-learn classifier with ``predict_proba``, cloned per fold.
    n_folds : folds of the out-of-fold predictions (5, the authors' experiments).
    max_depth : ``max_depth`` of the default XGBoost (4, as PULSCAR).
    xgb_params : further parameters of the default XGBoost (dict).
    method : ``"em"`` (default; the authors' ``estimator="dedpul"``) or ``"dmin"``.
    bw_mix, bw_pos : bandwidth factors of the U and P densities (0.05, 0.1: the authors').
    k_neighbours : half-width of the second rolling median; None = ``n_U // 20`` (authors').
    monotonize : apply the monotonizing trends (True; authors' ``MT=True``).
    mt_coef : their coefficient (0.2, the authors' function default; their synthetic-data
        experiments use 0.25, their UCI experiments ``MT=False``).
    tune : None (default: ``max_depth`` and ``xgb_params`` as given) or ``"cv_logloss"``:
        the default XGBoost's ``max_depth``, ``learning_rate`` and ``n_estimators`` chosen
        by the cross-validated log-loss of ``s`` on the estimator's own folds, whose
        out-of-fold probabilities are then used (:mod:`pu_lib.prior.tuning`; no true label).
    random_state : None, int, Generator or RandomState (folds and models).
    n_jobs : threads for the folds (or Dask tasks, as :func:`pu_lib.oof.cv_probabilities`);
        with ``booster="catboost"`` the threads left over by the concurrent folds go to each
        CatBoost model (``thread_count``).
    booster : ``"xgboost"`` (default, as above), ``"hist_boost"`` (the same trees by
        :mod:`pu_lib.hist_boost`) or ``"catboost"``: CatBoost, as the PULSNAR paper ran
        DEDPUL (its Discussion; the extra ``catboost``, ``pip install "pu_lib[catboost]"``),
        with the settings of the DEDPUL authors' CatBoost variant
        (:data:`pu_lib.oof.CATBOOST_DEFAULTS`: 500 iterations, depth 8, learning rate
        0.02, ``l2_leaf_reg`` 10, early stopping after 25 rounds on the held-out fold, each
        class weighted by the other's share); ``max_depth`` and ``xgb_params`` are then unused.
    catboost_params : None or a dict of CatBoost parameters over those settings
        (``booster="catboost"`` only; not the seed, threads or class weights).

    Attributes
    ----------
    alpha_, prior_, c_, ... : see :class:`~pu_lib.prior.base.BasePriorEstimator`.
    probs_ : out-of-fold ``Pr(s = 1 | x)`` of every row.
    ratio_ : processed density ratio ``f_P / f_U`` of every unlabeled row (row order).
    posterior_ : ``Pr(y = 1 | x)`` of every unlabeled row, ``1 - max(1 - r (1 - alpha_N), 0)``.
    details_ : the EM (or dmin) intermediate values.
    tuned_params_, tuning_results_ : with ``tune``, as :class:`~pu_lib.prior.PULSCAR`'s.
    """

    _parameter_constraints: dict = {
        "estimator": [None, HasMethods(["fit", "predict_proba"])],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "xgb_params": [None, dict],
        **_STEP_CONSTRAINTS,
        "tune": TUNE_CONSTRAINT,
        "random_state": RANDOM_STATE_CONSTRAINT,
        "n_jobs": [None, Interval(Integral, None, -1, closed="right"), Interval(Integral, 1, None, closed="left")],
        "booster": [StrOptions(set(CV_BOOSTERS))],
        "catboost_params": [None, dict],
    }
    _allow_nan = True
    _MIN_LABELED_WHY = "one per fold of the stratified n_folds={self.n_folds} cross-validation of its predictions"

    def min_labeled(self) -> int:
        """``n_folds``: the out-of-fold predictions (and ``tune``'s) come from stratified
        cross-validation, which needs a labeled row in every fold."""
        return int(self.n_folds)

    #: sparse X with a classifier that takes it (the default XGBoost does; it reads absent
    #: entries as missing values, as for PULSCAR: pu_lib.prior.pulscar.SPARSE_WITH_XGBOOST)
    _accepts_sparse = SparseWhen(lambda est: est.booster == "xgboost" and learner_accepts_sparse(est.estimator,
                                                                                                 default=True),
                                 "with booster='xgboost' and a classifier that takes sparse input; XGBoost reads "
                                 "absent entries as missing")

    def __init__(self, estimator=None, *, n_folds=5, max_depth=4, xgb_params=None, method="em", bw_mix=0.05,
                 bw_pos=0.1, k_neighbours=None, monotonize=True, mt_coef=0.2, tune=None, random_state=None,
                 n_jobs=1, booster="xgboost", catboost_params=None):
        self.estimator = estimator
        self.n_folds = n_folds
        self.max_depth = max_depth
        self.xgb_params = xgb_params
        self.method = method
        self.bw_mix = bw_mix
        self.bw_pos = bw_pos
        self.k_neighbours = k_neighbours
        self.monotonize = monotonize
        self.mt_coef = mt_coef
        self.tune = tune
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.booster = booster
        self.catboost_params = catboost_params

    def _validate_params(self):
        super()._validate_params()
        check_booster(self.booster, self.estimator, CV_BOOSTERS)
        if self.booster == "catboost":
            if self.xgb_params:
                raise ValueError('xgb_params are XGBoost parameters; with booster="catboost" use catboost_params')
            check_catboost_params(self.catboost_params)
        else:
            if self.catboost_params is not None:
                raise ValueError(f'catboost_params needs booster="catboost", got booster={self.booster!r}')
            if self.booster == "hist_boost":
                hist_boost_params(self.max_depth, self.xgb_params)
            else:
                check_extra_xgb_params(self.xgb_params)
        check_xgb_estimator(self.estimator)
        check_tune(self)

    def _estimate(self, X, s):
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        if self.tune is not None:  # the chosen setting's out-of-fold probabilities, on the same folds
            probs = tune_classifier(self, X, s, derive_seed("DEDPUL", seed, "cv"))[2]
        else:
            probs = cv_probabilities(X, s, estimator=self.estimator, n_folds=self.n_folds,
                                     random_state=derive_seed("DEDPUL", seed, "cv"), n_jobs=self.n_jobs,
                                     max_depth=self.max_depth, xgb_params=self.xgb_params, booster=self.booster,
                                     catboost_params=self.catboost_params)
        preds = 1.0 - probs  # the authors' y(x) = Pr(U | x)
        ratio = density_ratio(preds[s == 1], preds[s == 0], bw_mix=self.bw_mix, bw_pos=self.bw_pos,
                              k_neighbours=self.k_neighbours, monotonize=self.monotonize, mt_coef=self.mt_coef)
        alpha, details = dedpul_alpha(ratio, self.method)
        self.probs_ = probs
        self.ratio_ = ratio
        self.posterior_ = 1.0 - np.maximum(1.0 - ratio * alpha, 0.0)
        self.details_ = details
        return "alpha", alpha
