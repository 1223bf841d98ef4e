"""AlphaMax (Jain, White, Trosset & Radivojac, "Nonparametric semi-supervised learning of
class proportions", arXiv:1601.01944, 2016) and AlphaMax-N (Jain, White & Radivojac,
"Estimating the class prior and posterior from noisy positives and unlabeled data",
NeurIPS 2016), as class-prior estimators.

**Sources.** The method is the authors' released MATLAB code, github.com/shajain/AlphaMax
(Shantanu Jain's repository, commit ``f8a994187d74dd47002177d1a80181d157080df5``):
``estimateMixprop.m`` (entry point and defaults), ``Algorithms/compute_llCurve.m``
(the likelihood curve), ``Algorithms/init_learnbeta.m`` (the likelihood and its
constraint), ``Algorithms/ll_beta.m`` (the curve's values), ``densityEstimation/densEst_hist.m``
with ``distributions/mixture.m`` (``fixedCompsFit``: the histogram mixture),
``Algorithms/llCurve_correction.m``, ``Algorithms/inflectionScript.m`` (the knee rule),
``Algorithms/AlphaMax_noisy.m`` (AlphaMax-N), ``Transformations/transform_nn.m`` (the
univariate transform) and ``README.txt`` (the authors' advice on the grid); the later
port by D. Zeiberg (github.com/Dzeiberg/AlphaMax, commit ``978c555``,
``alphamax/Algorithms/LLCurve.m``) keeps the curve's defaults; its ``runAlphaMax.m`` can
replace the knee rule by a trained network (``useEstimatorNet``, ``getAlphaMaxEstimate.m``;
the "AlphaMaxNet" of its README), which we do not reproduce. Facts and formulas are taken
from them; no code is copied. Of the papers we could read the abstracts only (not their
full text), so the steps cite the code files, not section or equation numbers.

**The problem** (arXiv:1601.01944). The unlabeled sample is a two-component
mixture ``f_U = alpha f_1 + (1 - alpha) f_0`` of which the labeled sample gives ``f_1``;
``alpha`` is identifiable only as the largest proportion of ``f_1`` that fits in
``f_U`` (the "canonical form", ``a*``), and AlphaMax finds it as the knee of the
maximised log-likelihood as a function of ``alpha``.

1. **Univariate transform** (both papers; the NeurIPS abstract: univariate transforms
   built on discriminative classifiers preserve the class prior): out-of-fold ``Pr(s = 1 | x)``
   of every row (:func:`pu_lib.oof.cv_probabilities`, ``n_folds = 5`` stratified folds).
   *Deviation*: the authors' ``transform_nn`` averages the out-of-bag outputs of 100
   bagged networks with 5 hidden units (25 % of each bootstrap sample for early
   stopping); we use XGBoost (``tree_method="hist"``, ``max_depth = 4``,
   ``scale_pos_weight = |U|/|L|`` per fold), as :class:`~pu_lib.prior.DEDPUL` and
   :class:`~pu_lib.prior.PULSCAR` do, or any classifier with ``predict_proba``
   (``estimator``). The authors' ``README.txt``: a more accurate (higher-AUC) transform
   gives better estimates.
2. **Densities** (``densEst_hist``): both samples share one histogram, of bin width
   ``delta`` chosen from the component (labeled) sample and edges
   ``min, min + delta, ...`` up to past the maximum of both samples; the mixture density is a
   mixture of the uniform densities of the bins (``h_i``, weights ``w_i``) fitted to
   ``x_U`` by EM with the components fixed (``fixedCompsFit``), which for disjoint bins
   is the bin frequencies ``w_i = m_i / n_U``; ``f_1``'s estimate is the labeled
   sample's histogram ``q_i / delta``, ``q_i = n_i / n_L``. *Deviation*: MATLAB's
   ``histogram`` picks the width by its ``'auto'`` rule (to our knowledge Scott's rule with
   the width rounded to a "round" number; not checked against MATLAB, which we did not
   have); we use Scott's rule ``3.5 sd(x_L) n_L^(-1/3)`` unrounded. A row on a
   bin edge is counted in the bin to its right (MATLAB's closed uniform supports give it
   to both). With every labeled score equal (no width), 10 equal bins over the range (the
   count of MATLAB's ``hist``), one bin if every score is equal.
3. **Likelihood curve** (``compute_llCurve`` with the defaults
   ``loss_str="combined2"``, ``consType="eq"``, ``gamma = 1/n_U``, ``gamma1 = 1/n_L``):
   the positive component is the reweighted mixture ``f_1 = sum_i beta_i w_i h_i / alpha``,
   ``f_0 = sum_i (1 - beta_i) w_i h_i / (1 - alpha)``, ``0 <= beta_i <= 1``, under the
   equality constraint ``sum_i beta_i w_i = alpha``; for each ``alpha`` of the grid
   ``0.01, 0.02, ..., 0.99`` (``DEF.constraints``; ``grid_step``, the authors' README
   recommends 0.001) the objective maximised over ``beta`` is
   ``1/n_U sum_{x in U} log(sum_i (1 - beta_i) w_i h_i(x) + alpha f1_hat(x))
   + 1/n_L sum_{x in L} log(sum_i beta_i w_i h_i(x) / alpha)``.
   With bins as components it is separable: per bin
   ``w_i log((1 - beta_i) w_i + alpha q_i) + q_i log beta_i`` (+ constants), concave, and
   the authors' ``fmincon`` problem has a unique optimum, which we compute exactly: for a
   Lagrange multiplier ``lambda`` of the constraint each ``beta_i`` is the root in
   ``(0, 1]`` of a quadratic (the stationarity condition
   ``q_i / beta - w_i^2 / (w_i + alpha q_i - w_i beta) = lambda w_i``), and ``lambda`` is
   found by bisection (``sum_i beta_i w_i`` decreases in it), for all grid points at once.
   The curve's values are ``ll_beta``'s (``ll_cmb2``): the same objective, the labeled
   sample's density floored at ``1e-14`` (labeled rows in bins no unlabeled row reaches).
   *Deviation*: ``init_learnbeta`` floors the densities inside the optimised loss at
   ``1e-5``; we optimise the unfloored (exact) objective.
4. **Knee**: the curve is made non-increasing (``llCurve_correction``: each
   value raised to the largest value at a larger ``alpha``), negated, smoothed by the
   median of each grid point's 5 nearest grid points, scaled to [0, 1]
   (``inflectionScript``); for every grid point ``j`` with 10 points on either side
   (``npts = 10``), two lines are fitted by least squares to the 10 points after and the
   10 points up to ``j``, each constrained to lie below every point of the curve and to a
   slope of at least 1/100 of the curve's mean slope (the authors' ``quadprog``; here an
   exact 1-D convex search over the slope, the intercept being the constrained optimum
   for a slope); the score is the slope increase over ``median(curve before j) + 0.01``
   and the estimate the grid value of largest score (the first grid point when no score is
   positive, as MATLAB's ``max`` over the zero-initialised scores). A flat curve (every
   ``alpha`` fits equally, e.g. no separation of L and U) gives the largest grid value
   (MATLAB divides 0 by 0 there). The authors' ``README.txt`` warns that this window rule
   is unreliable for ``alpha*`` close to 0 or 1 (within ~10 grid points of the ends).

**AlphaMax-N** (NeurIPS 2016; ``AlphaMax_noisy.m``): the labeled sample is itself a
mixture ``f_L = beta f_1 + (1 - beta) f_0`` (positives contaminated by negatives). Two
AlphaMax runs on the same transform give ``a_U`` = the largest proportion of ``f_L`` in
``f_U`` (U as mixture, L as component) and ``a_L = 1 - `` the largest proportion of
``f_U`` in ``f_L`` (L as mixture, U as component; bins from the unlabeled sample,
``gamma = 1/n_L``, ``gamma1 = 1/n_U``); then ``alpha = a_U a_L / (1 - a_U (1 - a_L))``
and ``beta = a_L / (1 - a_U (1 - a_L))`` (for ``alpha < beta`` these are the proportions
``a_U = alpha / beta`` and ``a_L = (beta - alpha) / (1 - alpha)`` solved for ``alpha`` and
``beta``). ``alpha_`` is then the fraction of *true* positives among the unlabeled and
``labeled_purity_`` the estimated ``beta``. Note that ``prior_`` and ``c_`` are still
computed by the PU conversions of :mod:`pu_lib.prior.base`, which count every labeled row
as positive; with noisy labels the population prior is ``alpha_`` (case-control) or
``labeled_fraction_ * labeled_purity_ + (1 - labeled_fraction_) * alpha_``
(``noisy_prior_``).

The authors' options not reproduced: ``mixprop_prior`` (extra log-spaced grid points
below 0.1 / above 0.9 when the user expects such a prior), the sub-sampling of samples
above 10,000 labeled / 100,000 unlabeled rows (our curve costs the same at any size),
the Elkan-Noto / GMM / PDF-ratio / CDF baselines of ``estimateMixprop``.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import HasMethods, Interval

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import validate_params
from pu_lib.base import RANDOM_STATE_CONSTRAINT, SparseWhen, learner_accepts_sparse
from pu_lib.oof import check_extra_xgb_params, check_xgb_estimator, cv_probabilities
from pu_lib.prior.base import BasePriorEstimator
from pu_lib.prior.tuning import TUNE_CONSTRAINT, check_tune, tune_classifier

__all__ = ["ALPHAMAX_DEFAULTS", "AlphaMax", "AlphaMaxN", "alpha_grid", "alphamax_curve", "histogram_mixture",
           "inflection_estimate", "noisy_combination"]

#: the authors' settings (``estimateMixprop.m``, ``compute_llCurve.m``, ``inflectionScript.m``)
ALPHAMAX_DEFAULTS: dict = {
    "grid_step": 0.01,  # DEF.constraints = 0.01:0.01:0.99
    "n_folds": 5,  # ours (the authors bag 100 networks)
    "knee_points": 10,  # inflectionScript DEF.npts
    "smooth_k": 5,  # inflectionScript DEF.k
    "slope_fraction": 0.01,  # min_slope = mean slope / 100
    "median_offset": 1e-2,  # sr = slope increase / (median + 10^-2)
    "component_floor": 1e-14,  # ll_beta: max(pdf, 10^-14)
}

_LAMBDA_T = 60.0  # bisection on lambda = sinh(t), t in [-60, 60]
_LAMBDA_ITER = 80
_SLOPE_ITER = 100


@validate_params({"step": [Interval(Real, 0, 0.04, closed="right")]})
def alpha_grid(step: float = ALPHAMAX_DEFAULTS["grid_step"]) -> np.ndarray:
    """The grid ``step, 2 step, ...`` below 1 (the authors' ``0.01:0.01:0.99`` for 0.01)."""
    m = int(math.floor((1.0 - 1e-9) / step))
    return np.round(np.arange(1, m + 1) * step, 12)


def _bin_width(comp: np.ndarray, lo: float, hi: float) -> float:
    n = comp.shape[0]
    sd = float(comp.std(ddof=1)) if n > 1 else 0.0
    width = 3.5 * sd * n ** (-1.0 / 3.0)
    if not (np.isfinite(width) and width > 0):
        width = (hi - lo) / 10.0 if hi > lo else 1.0
    return width


def histogram_mixture(mixture, component):
    """``(w, q, delta)``: the bin frequencies of the mixture and the component sample on
    their shared histogram (step 2 of the module docstring), and the bin width."""
    x = np.asarray(mixture, dtype=np.float64).ravel()
    x1 = np.asarray(component, dtype=np.float64).ravel()
    lo = float(min(x.min(), x1.min()))
    hi = float(max(x.max(), x1.max()))
    delta = _bin_width(x1, lo, hi)
    n_bins = int(math.floor((hi - lo) / delta)) + 1
    n_bins = max(1, min(n_bins, 1 << 20))

    def freq(v):
        idx = np.clip(np.floor((v - lo) / delta).astype(np.int64), 0, n_bins - 1)
        return np.bincount(idx, minlength=n_bins) / v.shape[0]

    return freq(x), freq(x1), delta


def _betas(lam, alpha, w, q):
    """The maximiser over ``[0, 1]`` of ``w log(w + alpha q - w beta) + q log beta - lam w beta``
    (bins with ``w > 0``), elementwise; broadcasting ``lam``, ``alpha`` (G, 1) against ``w``,
    ``q`` (K,)."""
    c = w + alpha * q
    a = lam * w
    b = -(w + q + lam * c)
    k = q * c / w
    sq = np.sqrt(np.maximum(b * b - 4.0 * a * k, 0.0))
    # the root in (0, c / w): (b + sq) / (-2 a) when b > 0 (then lam < 0), else 2 k / (sq - b)
    with np.errstate(divide="ignore", invalid="ignore"):
        pos_b = (b + sq) / np.where(a < 0, -2.0 * a, 1.0)
        neg_b = 2.0 * k / np.where(sq - b > 0, sq - b, 1.0)
    beta = np.where(b > 0, pos_b, np.where(sq - b > 0, neg_b, 0.0))
    return np.clip(beta, 0.0, 1.0)


def _optimal_betas(alphas, w, q):
    """``beta`` (G, K) maximising the per-bin objective under ``sum_i beta_i w_i = alpha``
    for every ``alpha`` of ``alphas`` (bisection on the multiplier)."""
    a = alphas[:, None]
    lo = np.full_like(a, -_LAMBDA_T)
    hi = np.full_like(a, _LAMBDA_T)
    for _ in range(_LAMBDA_ITER):
        mid = 0.5 * (lo + hi)
        total = _betas(np.sinh(mid), a, w, q) @ w
        big = (total > alphas)[:, None]  # sum too large: raise the multiplier
        lo = np.where(big, mid, lo)
        hi = np.where(big, hi, mid)
    return _betas(np.sinh(0.5 * (lo + hi)), a, w, q)


@validate_params({"mixture": ["array-like"], "component": ["array-like"], "alphas": ["array-like"]})
def alphamax_curve(mixture, component, alphas):
    """``(ll, betas)``: AlphaMax's maximised log-likelihood (the authors' ``ll_cmb2``) at
    each ``alpha`` of ``alphas`` for univariate samples ``mixture`` (U) and ``component``
    (L), and the optimal bin weights ``beta`` (G, bins) (steps 2-3 of the module
    docstring)."""
    alphas = np.asarray(alphas, dtype=np.float64).ravel()
    if alphas.size == 0 or np.any((alphas <= 0) | (alphas >= 1)):
        raise ValueError("alphas must be values in the open interval (0, 1)")
    w_all, q_all, delta = histogram_mixture(mixture, component)
    fit = w_all > 0
    w, q = w_all[fit], q_all[fit]
    betas = _optimal_betas(alphas, w, q)
    a = alphas[:, None]
    with np.errstate(divide="ignore"):
        mix = np.log(np.maximum((1.0 - betas) * w + a * q, 1e-300) / delta) @ w
        comp_dens = np.maximum(betas * w / (a * delta), ALPHAMAX_DEFAULTS["component_floor"])
        comp = np.where(q > 0, np.log(comp_dens), 0.0) @ q
    # labeled rows in bins without unlabeled rows: the floored density, the same at every alpha
    comp = comp + float(q_all[~fit].sum()) * math.log(ALPHAMAX_DEFAULTS["component_floor"])
    full = np.zeros((alphas.shape[0], w_all.shape[0]))
    full[:, fit] = betas
    return mix + comp, full


def _constrained_line_slopes(a, f, starts, npts, min_slope):
    """Slopes of the least-squares lines through ``f[st:st+npts]`` (each ``st`` of
    ``starts``) constrained below every point ``(a_k, f_k)`` with slope ``>= min_slope``."""
    idx = starts[:, None] + np.arange(npts)[None, :]
    aw, fw = a[idx], f[idx]
    am, fm = aw.mean(axis=1), fw.mean(axis=1)
    sec = np.diff(f) / np.diff(a)
    s_hi = max(min_slope, float(sec.max())) if sec.size else min_slope

    def cost(s):
        c = np.minimum(fm - s * am, (f[None, :] - s[:, None] * a[None, :]).min(axis=1))
        return (((c[:, None] + s[:, None] * aw) - fw) ** 2).sum(axis=1)

    lo = np.full(starts.shape[0], float(min_slope))
    hi = np.full(starts.shape[0], float(s_hi))
    for _ in range(_SLOPE_ITER):  # ternary search: the cost is convex in the slope
        m1 = lo + (hi - lo) / 3.0
        m2 = hi - (hi - lo) / 3.0
        left = cost(m1) <= cost(m2)
        hi = np.where(left, m2, hi)
        lo = np.where(left, lo, m1)
    return 0.5 * (lo + hi)


@validate_params({"alphas": ["array-like"], "neg_ll": ["array-like"],
                  "npts": [Interval(Integral, 2, None, closed="left")],
                  "k": [Interval(Integral, 1, None, closed="left")]})
def inflection_estimate(alphas, neg_ll, npts=ALPHAMAX_DEFAULTS["knee_points"], k=ALPHAMAX_DEFAULTS["smooth_k"]):
    """``(alpha, details)``: the authors' ``inflectionScript`` on the negated (corrected)
    log-likelihood curve (step 4 of the module docstring)."""
    a = np.asarray(alphas, dtype=np.float64).ravel()
    f = np.asarray(neg_ll, dtype=np.float64).ravel()
    keep = ~np.isnan(f)
    a, f = a[keep], f[keep]
    order = np.argsort(a, kind="stable")
    a, f = a[order], f[order]
    n = a.shape[0]
    if n < 2 * npts + 1:
        raise ValueError(f"the knee rule needs at least {2 * npts + 1} grid points, got {n}")
    near = np.argsort(np.abs(a[:, None] - a[None, :]), axis=1, kind="stable")[:, :min(k, n)]
    f = np.median(f[near], axis=1)
    span = f.max() - f.min()
    if not span > 0:
        return float(a[-1]), {"flat": True, "scores": np.zeros(n)}
    f = (f - f.min()) / span
    min_slope = (f[-1] - f[0]) / (a[-1] - a[0]) * ALPHAMAX_DEFAULTS["slope_fraction"]
    starts = np.arange(0, n - npts + 1)
    slopes = _constrained_line_slopes(a, f, starts, npts, min_slope)
    js = np.arange(npts - 1, n - npts)  # 0-based j: windows j-npts+1..j and j+1..j+npts
    before = slopes[js - npts + 1]
    after = slopes[js + 1]
    med = np.median(f[(js - npts + 1)[:, None] + np.arange(npts)[None, :]], axis=1)
    scores = np.zeros(n)
    scores[js] = (after - before) / (med + ALPHAMAX_DEFAULTS["median_offset"])
    ix = int(np.argmax(scores))
    return float(a[ix]), {"flat": False, "scores": scores}


def _estimate_curve(mixture, component, alphas):
    ll, betas = alphamax_curve(mixture, component, alphas)
    ll_corrected = np.maximum.accumulate(ll[::-1])[::-1]  # llCurve_correction: non-increasing
    est, det = inflection_estimate(alphas, -ll_corrected)
    return est, {"log_likelihood_raw": ll, "log_likelihood": ll_corrected, "betas": betas, **det}


def noisy_combination(a_u, a_l):
    """``(alpha, beta)`` from AlphaMax-N's two estimates (``AlphaMax_noisy.m``): ``a_u`` the
    proportion of the labeled distribution in the unlabeled one, ``a_l`` one minus the
    proportion of the unlabeled distribution in the labeled one."""
    den = 1.0 - a_u * (1.0 - a_l)
    if not den > 0:  # a_u = 1 and a_l = 0: L and U the same distribution
        return 1.0, 1.0
    return float(np.clip(a_u * a_l / den, 0.0, 1.0)), float(np.clip(a_l / den, 0.0, 1.0))


class AlphaMax(BasePriorEstimator):
    """AlphaMax class-prior estimator (Jain et al. 2016; module docstring for every step).

    Parameters
    ----------
    estimator : None (XGBoost, as DEDPUL and PULSCAR; the authors bag neural networks) or
        a scikit-learn classifier with ``predict_proba``, cloned per fold: the univariate
        transform ``Pr(s = 1 | x)`` (out-of-fold).
    n_folds : folds of the out-of-fold predictions (5).
    max_depth : ``max_depth`` of the default XGBoost (4).
    xgb_params : further parameters of the default XGBoost (dict).
    grid_step : spacing of the ``alpha`` grid ``grid_step, ..., < 1`` (0.01, the authors'
        code; their README recommends 0.001); at most 0.04 (the knee rule needs 21 points).
    tune : None or ``"cv_logloss"``, as :class:`~pu_lib.prior.DEDPUL`'s.
    random_state : None, int, Generator or RandomState (folds and models).
    n_jobs : threads for the folds.

    Attributes
    ----------
    alpha_, prior_, c_, ... : see :class:`~pu_lib.prior.base.BasePriorEstimator`.
    probs_ : out-of-fold ``Pr(s = 1 | x)`` of every row (the univariate transform).
    alphas_ : the grid; ``log_likelihood_`` : the corrected (non-increasing) curve on it.
    details_ : raw curve, bin weights ``betas`` and knee scores.
    """

    _parameter_constraints: dict = {
        "estimator": [None, HasMethods(["fit", "predict_proba"])],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "xgb_params": [None, dict],
        "grid_step": [Interval(Real, 0, 0.04, closed="right")],
        "tune": TUNE_CONSTRAINT,
        "random_state": RANDOM_STATE_CONSTRAINT,
        "n_jobs": [None, Interval(Integral, None, -1, closed="right"), Interval(Integral, 1, None, closed="left")],
    }
    _allow_nan = True
    _noisy = False
    _MIN_LABELED_WHY = "one per fold of the stratified n_folds={self.n_folds} cross-validation of its transform"

    _accepts_sparse = SparseWhen(lambda est: learner_accepts_sparse(est.estimator, default=True),
                                 "with a classifier that takes sparse input; XGBoost reads absent entries as missing")

    def __init__(self, estimator=None, *, n_folds=5, max_depth=4, xgb_params=None, grid_step=0.01, tune=None,
                 random_state=None, n_jobs=1):
        self.estimator = estimator
        self.n_folds = n_folds
        self.max_depth = max_depth
        self.xgb_params = xgb_params
        self.grid_step = grid_step
        self.tune = tune
        self.random_state = random_state
        self.n_jobs = n_jobs

    def min_labeled(self) -> int:
        """``n_folds``: the transform comes from stratified cross-validation, which needs a
        labeled row in every fold."""
        return int(self.n_folds)

    def _validate_params(self):
        super()._validate_params()
        check_extra_xgb_params(self.xgb_params)
        check_xgb_estimator(self.estimator)
        check_tune(self)

    def _transform(self, X, s):
        # one seed key for both classes: AlphaMaxN's first run is AlphaMax's on the same seed
        name = "AlphaMax"
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        if self.tune is not None:
            return tune_classifier(self, X, s, derive_seed(name, seed, "cv"))[2]
        return cv_probabilities(X, s, estimator=self.estimator, n_folds=self.n_folds,
                                random_state=derive_seed(name, seed, "cv"), n_jobs=self.n_jobs,
                                max_depth=self.max_depth, xgb_params=self.xgb_params)

    def _estimate(self, X, s):
        probs = self._transform(X, s)
        alphas = alpha_grid(self.grid_step)
        x_u, x_l = probs[s == 0], probs[s == 1]
        est, det = _estimate_curve(x_u, x_l, alphas)
        self.probs_ = probs
        self.alphas_ = alphas
        self.log_likelihood_ = det["log_likelihood"]
        if not self._noisy:
            self.details_ = det
            return "alpha", est
        est_l, det_l = _estimate_curve(x_l, x_u, alphas)  # L as the mixture, U as the component
        a_u, a_l = est, 1.0 - est_l
        alpha, beta = noisy_combination(a_u, a_l)
        self.labeled_purity_ = beta
        self.log_likelihood_labeled_ = det_l["log_likelihood"]
        self.details_ = {"unlabeled": det, "labeled": det_l, "a_u": a_u, "a_l": a_l}
        return "alpha", alpha


class AlphaMaxN(AlphaMax):
    """AlphaMax-N (Jain, White & Radivojac, NeurIPS 2016): AlphaMax for labeled positives
    contaminated by negatives (module docstring, "AlphaMax-N"). Parameters as
    :class:`AlphaMax`.

    Attributes (besides :class:`AlphaMax`'s)
    ----------------------------------------
    alpha_ : fraction of true positives among the unlabeled.
    labeled_purity_ : estimated fraction of positives among the labeled (``beta``).
    noisy_prior_ : the whole sample's positive fraction,
        ``l * labeled_purity_ + (1 - l) * alpha_`` (``prior_`` assumes pure labels).
    log_likelihood_labeled_ : the curve of the second run (L as the mixture).
    details_ : both runs' details and the two intermediate estimates ``a_u``, ``a_l``.
    """

    _noisy = True

    def _set_estimate(self, kind, value, s, sample_weight=None):
        super()._set_estimate(kind, value, s, sample_weight)
        lf = self.labeled_fraction_
        self.noisy_prior_ = lf * self.labeled_purity_ + (1.0 - lf) * self.alpha_
