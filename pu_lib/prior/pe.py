"""PE: class-prior estimation by partial matching under the Pearson divergence
(M. C. du Plessis and M. Sugiyama, "Class prior estimation from positive and unlabeled
data", IEICE Transactions on Information and Systems E97-D(5):1358-1362, 2014), a
comparator of the Bekker thesis (Tables 3.3-3.4, "PE").

**Idea.** Let ``q(x)`` be the density of the data the estimate is about and ``p_P(x)`` that
of the labeled positives. PE fits ``theta p_P`` to ``q`` by minimising the Pearson (chi^2)
divergence

    PE(theta) = 1/2 int (theta p_P(x) / q(x) - 1)^2 q(x) dx
              = theta^2 / 2 int p_P^2 / q dx - theta + 1/2,

whose minimiser is ``theta = 1 / int p_P(x)^2 / q(x) dx``. The integral is estimated
without densities by least-squares density-ratio fitting (uLSIF) of
``r(x) = p_P(x) / q(x) ~ a' phi(x)``: with ``h = mean_{x in P} phi(x)``,
``H = mean_{x in Q} phi(x) phi(x)'`` and ``a = (H + lambda I)^{-1} h``,
``int p_P^2 / q ~ 2 a' h - a' H a``, so

    theta_hat = 1 / (2 a' h - a' H a)

(always positive: ``2 a'h - a'Ha = h'(H + lambda I)^{-1} h + lambda a'a``).

**What ``q`` is** (the authors' code). The authors' MATLAB ``PEPriorEst`` (header
"PUpepriorest", "the version used in the paper"; found through the code index of this
project, no repository attached: the file starts ``% USAGE: [theta, PE] =
PUpepriorest(xp, xm, sigma_list, lambda_list)``; an independent Python port,
``PEPriorEst_Per_User``, computes the same) weighs the two samples by their shares,
``H = p1 Phi_P Phi_P' / n_P + (1 - p1) Phi_M Phi_M' / n_M`` with ``p1 = n_P / (n_P + n_M)``,
i.e. ``q`` is the **pooled** sample (labeled and unlabeled rows together), and clips
``theta`` to ``[n_P / (n_P + n_M), 1]``. So ``theta`` is the class prior of the whole
sample, our ``prior_`` (:mod:`pu_lib.prior.base`); the estimate is returned as ``alpha =
(theta - l) / (1 - l)`` (``l`` the labeled fraction) and ``pe_prior_`` keeps ``theta``
unclipped. Pooling is right in both scenarios: labeled positives plus ``n_U`` unlabeled
rows with a fraction ``alpha`` of positives form a mixture with positive share ``l + (1 -
l) alpha``.

**Why it over-estimates** (du Plessis, Niu & Sugiyama, ACML 2015 / Machine Learning 106,
2017, section 3; the motivation of :mod:`pu_lib.prior.pen_l1`). Since ``q >= theta* p_P``,
``int p_P^2 / q <= 1 / theta*``, so the minimiser ``1 / int p_P^2 / q`` is at least the
true prior ``theta*``, with equality only when the classes do not overlap (``p_N = 0``
wherever ``p_P > 0``): on overlapping classes PE is biased upward even with infinite data.

**Settings** (the authors' code):

* Gaussian basis functions ``exp(-||x - c||^2 / (2 sigma^2))`` centred on labeled rows;
* ``sigma`` in ``m * linspace(1/5, 5, 10)``, ``m`` the square root of the median squared
  distance over all pairs of the pooled rows; ``lambda`` in ``logspace(-3, 1, 9)``;
* both chosen by 5-fold cross-validation of the uLSIF criterion ``1/2 a' H_te a - a'
  h_te`` summed over the folds (``a`` fitted on the other folds, whose labeled rows alone
  carry the basis functions: "numerator without test samples"); the first minimum;
* the final fit on all rows with the chosen pair.

**Deviations.** (1) The authors centre a basis function on *every* labeled row ("For large
datasets, fix the number of basis functions", their note); we centre at most ``n_basis =
300`` (the number of basis functions of the same lab's pen-L1 code), a seeded draw spread
evenly over the CV folds, so a fit costs ``O(n b^2)`` per kernel width instead of
``O(n n_P^2)``. With at most 300 labeled rows every labeled row is a centre, as in the
paper. (2) The median distance is computed on at most 2,000 pooled rows (seeded; all pairs
of 20,000 rows would be 400 million distances). (3) The uLSIF solutions for all ``lambda``
come from one eigendecomposition of ``H_tr`` per fold and width (the same values as the
authors' ``linsolve`` per ``lambda``). BLAS runs on one thread (:func:`pu_lib.distributed.limit_threads`):
the products are small (``b x b``), and on the shared 2-core machine a 1,500-row fit took
2.0 s with two BLAS threads against 0.6 s with one.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from scipy.sparse import vstack as sp_vstack
from sklearn.utils._param_validation import Interval

from pu_lib._seeding import check_random_state, derive_seed, seed_to_int
from pu_lib._validation import is_sparse
from pu_lib.base import RANDOM_STATE_CONSTRAINT
from pu_lib.distributed import limit_threads
from pu_lib.prior._gauss_basis import cv_folds, median_distance, sq_dists, split_samples, take_rows
from pu_lib.prior.base import BasePriorEstimator

__all__ = ["PE_DEFAULTS", "PEPriorEstimator", "pe_estimate"]

#: the authors' settings (module docstring) and our basis-function cap
PE_DEFAULTS: dict = {
    "sigma_factors": tuple(float(v) for v in np.linspace(0.2, 5.0, 10)),
    "lambdas": tuple(float(v) for v in np.logspace(-3, 1, 9)),
    "n_folds": 5,
    "n_basis": 300,
    "median_rows": 2000,
}


def _check_grid(values, name):
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size == 0 or not np.all(np.isfinite(v)) or np.any(v <= 0):
        raise ValueError(f"{name} must be a non-empty sequence of positive numbers, got {values!r}")
    return v


def _ulsif_all_lambdas(H, h, lambdas):
    """``a(lambda) = (H + lambda I)^{-1} h`` for every ``lambda`` (rows), from one
    eigendecomposition of the symmetric ``H``."""
    e, V = np.linalg.eigh(H)
    Vh = V.T @ h
    return (Vh[None, :] / (e[None, :] + lambdas[:, None])) @ V.T


def pe_estimate(Xp, Xu, *, sigma_factors=PE_DEFAULTS["sigma_factors"], lambdas=PE_DEFAULTS["lambdas"],
                n_folds=PE_DEFAULTS["n_folds"], n_basis=PE_DEFAULTS["n_basis"],
                median_rows=PE_DEFAULTS["median_rows"], random_state=0):
    """PE on labeled rows ``Xp`` and unlabeled rows ``Xu`` (dense or CSR): a dict with
    ``theta`` (the unclipped prior of the pooled sample), ``sigma``, ``lambda``,
    ``cv_scores`` (``n_sigma x n_lambda``), ``sigmas``, ``n_basis`` and ``divergence``
    (``PE(theta_hat)``, the Pearson divergence at the estimate). See the module docstring."""
    sigma_factors = _check_grid(sigma_factors, "sigma_factors")
    lambdas = _check_grid(lambdas, "lambdas")
    n_p, n_u = Xp.shape[0], Xu.shape[0]
    if n_p < n_folds or n_u < n_folds:
        raise ValueError(f"PE needs at least n_folds={n_folds} labeled and unlabeled rows, got {n_p} and {n_u}")
    rng = check_random_state(random_state)
    pooled = sp_vstack([Xp, Xu], format="csr") if is_sparse(Xp) else np.vstack([Xp, Xu])
    med = median_distance(pooled, rng, median_rows)
    if med <= 0.0:
        raise ValueError("PE: the median pairwise distance is 0 (more than half of the point pairs coincide); "
                         "the Gaussian kernel width rule needs distinct points")
    sigmas = med * sigma_factors
    folds_p = cv_folds(n_p, n_folds, rng)
    folds_u = cv_folds(n_u, n_folds, rng)
    # centres: labeled rows spread evenly over the folds (every labeled row when n_p <= n_basis)
    order = np.argsort(folds_p, kind="stable")
    b = min(int(n_basis), n_p)
    centres = np.sort(order[np.unique(np.round(np.linspace(0, n_p - 1, b)).astype(np.int64))])
    centre_fold = folds_p[centres]
    Xc = take_rows(Xp, centres)
    Dp = sq_dists(Xp, Xc)
    Du = sq_dists(Xu, Xc)
    cnt_p = np.bincount(folds_p, minlength=n_folds).astype(np.float64)
    cnt_u = np.bincount(folds_u, minlength=n_folds).astype(np.float64)
    scores = np.zeros((sigmas.size, lambdas.size))
    for i, sigma in enumerate(sigmas):
        Pp = np.exp(-Dp / (2.0 * sigma * sigma))
        Pu = np.exp(-Du / (2.0 * sigma * sigma))
        # per-fold second moments and sums of the basis functions
        G = np.empty((n_folds, b, b))
        s_p = np.empty((n_folds, b))
        for k in range(n_folds):
            A, B = Pp[folds_p == k], Pu[folds_u == k]
            G[k] = A.T @ A + B.T @ B
            s_p[k] = A.sum(axis=0)
        G_all, s_all = G.sum(axis=0), s_p.sum(axis=0)
        for k in range(n_folds):
            cols = np.flatnonzero(centre_fold != k)  # basis on the training fold's labeled rows
            n_tr = (cnt_p.sum() - cnt_p[k]) + (cnt_u.sum() - cnt_u[k])
            n_te = cnt_p[k] + cnt_u[k]
            H_tr = (G_all - G[k])[np.ix_(cols, cols)] / n_tr
            h_tr = (s_all - s_p[k])[cols] / (cnt_p.sum() - cnt_p[k])
            H_te = G[k][np.ix_(cols, cols)] / n_te
            h_te = s_p[k][cols] / cnt_p[k]
            a = _ulsif_all_lambdas(H_tr, h_tr, lambdas)  # n_lambda x |cols|
            scores[i] += 0.5 * np.einsum("lj,jk,lk->l", a, H_te, a) - a @ h_te
    i_s, i_l = np.unravel_index(int(np.argmin(scores)), scores.shape)  # the first minimum, row-wise
    sigma, lam = float(sigmas[i_s]), float(lambdas[i_l])
    Pp = np.exp(-Dp / (2.0 * sigma * sigma))
    Pu = np.exp(-Du / (2.0 * sigma * sigma))
    H = (Pp.T @ Pp + Pu.T @ Pu) / (n_p + n_u)
    h = Pp.mean(axis=0)
    a = np.linalg.solve(H + lam * np.eye(b), h)
    integral = 2.0 * float(a @ h) - float(a @ H @ a)  # estimate of int p_P^2 / q
    theta = 1.0 / integral
    return {"theta": theta, "sigma": sigma, "lambda": lam, "cv_scores": scores, "sigmas": sigmas,
            "n_basis": b, "divergence": 0.5 - 0.5 * theta}


class PEPriorEstimator(BasePriorEstimator):
    """PE class-prior estimator (du Plessis & Sugiyama, IEICE 2014): partial matching of
    ``theta p_P`` to the pooled data under the Pearson divergence, the density ratio by
    uLSIF with Gaussian basis functions, width and regularisation by 5-fold CV (module
    docstring: equations, the authors' settings and our deviations). Registered as ``pe``.

    Over-estimates the prior when the classes overlap (module docstring); pen-L1
    (:class:`~pu_lib.prior.pen_l1.PenL1PriorEstimator`) is its correction.

    Parameters
    ----------
    n_basis : at most this many labeled rows carry a basis function (300; the authors: all
        labeled rows).
    sigma_factors : kernel widths as multiples of the median pairwise distance (the
        authors' ``linspace(1/5, 5, 10)``).
    lambdas : the regularisation grid (the authors' ``logspace(-3, 1, 9)``).
    n_folds : cross-validation folds (5, the authors').
    random_state : None, int, Generator or RandomState (the folds, the centres and the
        rows of the median distance).

    Attributes
    ----------
    alpha_, prior_, c_, ... : see :class:`~pu_lib.prior.base.BasePriorEstimator`.
    pe_prior_ : the unclipped estimate ``theta_hat = 1 / (2 a'h - a'Ha)`` of the pooled
        sample's prior (``prior_`` is it clipped to ``[labeled fraction, 1]``).
    sigma_, lambda_ : the kernel width and regularisation chosen by cross-validation.
    kernel_widths_ : the width grid (``sigma_factors`` times the median distance).
    cv_scores_ : ``n_sigma x n_lambda`` cross-validated uLSIF criterion.
    n_basis_ : the number of basis functions used.
    divergence_ : the estimated Pearson divergence at ``theta_hat``, ``1/2 - theta_hat / 2``.
    """

    _parameter_constraints: dict = {
        "n_basis": [Interval(Integral, 2, None, closed="left")],
        "sigma_factors": ["array-like"],
        "lambdas": ["array-like"],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }
    _accepts_sparse = True
    _MIN_LABELED_WHY = "each of the n_folds={self.n_folds} cross-validation folds needs a labeled row"

    def __init__(self, *, n_basis=300, sigma_factors=PE_DEFAULTS["sigma_factors"], lambdas=PE_DEFAULTS["lambdas"],
                 n_folds=5, random_state=None):
        self.n_basis = n_basis
        self.sigma_factors = sigma_factors
        self.lambdas = lambdas
        self.n_folds = n_folds
        self.random_state = random_state

    def min_labeled(self) -> int:
        """``n_folds``: every cross-validation fold needs a labeled row (the criterion
        averages the basis functions over each fold's labeled rows)."""
        return int(self.n_folds)

    def _estimate(self, X, s):
        Xp, Xu = split_samples(X, s, self.n_folds, type(self).__name__)
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        with limit_threads(1):  # many small BLAS calls: one thread (module docstring)
            res = pe_estimate(Xp, Xu, sigma_factors=self.sigma_factors, lambdas=self.lambdas, n_folds=self.n_folds,
                              n_basis=self.n_basis, random_state=derive_seed("PE", seed))
        self.pe_prior_ = res["theta"]
        self.sigma_, self.lambda_ = res["sigma"], res["lambda"]
        self.kernel_widths_ = res["sigmas"]
        self.cv_scores_ = res["cv_scores"]
        self.n_basis_ = res["n_basis"]
        self.divergence_ = res["divergence"]
        lf = Xp.shape[0] / X.shape[0]
        return "alpha", (res["theta"] - lf) / (1.0 - lf)
