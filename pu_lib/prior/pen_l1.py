"""pen-L1: class-prior estimation by penalised L1-distance minimisation (M. C. du Plessis,
G. Niu and M. Sugiyama, "Class-prior estimation for learning from positive and unlabeled
data", ACML 2015, PMLR 45:221-236; journal version Machine Learning 106(4):463-492, 2017,
arXiv:1611.01586), a comparator of the Bekker thesis (Tables 3.3-3.4, "pen-L1"). The thesis
cites it as "Christoffel, Niu & Sugiyama (2016)": PMLR lists the first author, Marthinus
Christoffel du Plessis, under his middle name; it is the same paper and the same author as
PE's (:mod:`pu_lib.prior.pe`).

**Setting.** ``p(x)`` is the density of the unlabeled rows, ``p_P(x)`` that of the labeled
positives, ``p = theta p_P + (1 - theta) p_N``: ``theta`` is the prior of the unlabeled
sample, our ``alpha`` (:mod:`pu_lib.prior.base`), returned as ``("alpha", theta_hat)``.

**Why not PE.** Partial matching of ``theta p_P`` to ``p`` under an f-divergence (PE is the
Pearson one) over-estimates ``theta`` when the classes overlap, because ``theta p_P`` is not
a density and the divergence rewards matching ``p`` also where ``p_N > 0`` (paper, section 3;
:mod:`pu_lib.prior.pe`). The fix is to penalise ``theta p_P(x) > p(x)``, which no true
``theta`` can produce: with the L1 distance, whose penalised form has an analytic solution.

**Estimator** (paper, section 4; the formulas as the MATLAB ``PenL1CP`` of T. Sakai,
University of Tokyo, computes them -- its header: ``[priorh, penL1_list] = PenL1CP(xp, xu,
prior_list, options)``, "estimates the class-prior p(y=+1) based on penalized L1-distance
minimization [1]", [1] = the ACML paper; found through this project's code index, no
repository attached). Gaussian basis functions ``phi_l(x) = exp(-||x - c_l||^2 / (2
sigma^2))``, ``l = 1..b``, centred on ``b`` unlabeled rows drawn at random; for a candidate
``theta``

    beta_l = theta mean_{x in P} phi_l(x) - mean_{x in U} phi_l(x),
    a_l    = max(0, beta_l) / lambda,
    penL1(theta) = a' beta - theta + 1 = (1 / lambda) sum_l max(0, beta_l)^2 - theta + 1,

and ``theta_hat`` is the candidate of least ``penL1`` (the first on ties). ``1 - theta`` is the
L1 distance's value where ``theta p_P <= p`` everywhere; the penalty grows as soon as some
basis function sees more (scaled) positive than unlabeled mass, so the minimum sits at the
largest ``theta`` for which ``theta p_P`` still fits under ``p``.

**Model selection** (the code): for each candidate ``theta`` separately, ``(sigma,
lambda)`` minimises the 5-fold cross-validated score ``-(1/5) sum_f a_tr' beta_te`` (``a`` from
the other folds, ``beta`` of fold ``f``; the first minimum in MATLAB's column-major order,
``sigma`` fastest), then ``penL1(theta)`` is computed on all rows with that pair.

**Defaults** (the code's): ``b = 300`` centres (all unlabeled rows when fewer);
``sigma`` in ``m * logspace(-2, 1, 10)``, ``m`` the square root of the median squared
distance between the unlabeled rows and the centres; ``lambda`` in ``logspace(-3, 1, 10)``;
5 folds (each sample split separately, as the code does).

**Deviation: the candidate grid.** The code's default is ``theta`` in ``0.05, 0.10, ...,
0.95``; we use ``0.01, 0.02, ..., 0.99`` (``prior_step = 0.01``), so the estimate is not
rounded to a multiple of 0.05 and reaches ``[0.01, 0.99]``. Everything is vectorised over
the candidates (a candidate costs ``O(n_folds b)`` per width), so the finer grid adds
little time; ``prior_step=0.05`` gives the authors' grid.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval

from pu_lib._seeding import check_random_state, derive_seed, seed_to_int
from pu_lib.base import RANDOM_STATE_CONSTRAINT
from pu_lib.distributed import limit_threads
from pu_lib.prior._gauss_basis import cv_folds, fold_sums, sq_dists, split_samples, take_rows
from pu_lib.prior.base import BasePriorEstimator

__all__ = ["PEN_L1_DEFAULTS", "PenL1PriorEstimator", "pen_l1_estimate", "prior_grid"]

#: the authors' settings (module docstring); ``prior_step`` is ours (the code's grid: 0.05)
PEN_L1_DEFAULTS: dict = {
    "sigma_factors": tuple(float(v) for v in np.logspace(-2, 1, 10)),
    "lambdas": tuple(float(v) for v in np.logspace(-3, 1, 10)),
    "n_folds": 5,
    "n_basis": 300,
    "prior_step": 0.01,
}


def prior_grid(step: float) -> np.ndarray:
    """The candidates ``step, 2 step, ...`` below 1 (the code's ``0.05:.05:.95`` for 0.05)."""
    k = int(np.floor((1.0 - 1e-9) / step))
    return np.round(np.arange(1, k + 1) * step, 12)


def _check_grid(values, name):
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size == 0 or not np.all(np.isfinite(v)) or np.any(v <= 0):
        raise ValueError(f"{name} must be a non-empty sequence of positive numbers, got {values!r}")
    return v


def pen_l1_estimate(Xp, Xu, *, priors=None, sigma_factors=PEN_L1_DEFAULTS["sigma_factors"],
                    lambdas=PEN_L1_DEFAULTS["lambdas"], n_folds=PEN_L1_DEFAULTS["n_folds"],
                    n_basis=PEN_L1_DEFAULTS["n_basis"], random_state=0):
    """pen-L1 on labeled rows ``Xp`` and unlabeled rows ``Xu`` (dense or CSR): a dict with
    ``theta`` (the estimate of the unlabeled sample's prior), ``priors`` (the candidates),
    ``pen_l1`` (``penL1`` of each candidate), ``sigma`` / ``lambda`` (the pair chosen for each
    candidate), ``sigmas`` and ``n_basis``. See the module docstring."""
    priors = prior_grid(PEN_L1_DEFAULTS["prior_step"]) if priors is None else np.asarray(priors, dtype=np.float64)
    if priors.size == 0 or priors.min() <= 0.0 or priors.max() >= 1.0:
        raise ValueError("the candidate priors must lie in the open interval (0, 1)")
    sigma_factors = _check_grid(sigma_factors, "sigma_factors")
    lambdas = _check_grid(lambdas, "lambdas")
    n_p, n_u = Xp.shape[0], Xu.shape[0]
    if n_p < n_folds or n_u < n_folds:
        raise ValueError(f"pen-L1 needs at least n_folds={n_folds} labeled and unlabeled rows, got {n_p} and {n_u}")
    rng = check_random_state(random_state)
    b = min(int(n_basis), n_u)
    centres = rng.choice(n_u, b, replace=False)
    Xc = take_rows(Xu, centres)
    Dp, Du = sq_dists(Xp, Xc), sq_dists(Xu, Xc)
    med = float(np.sqrt(np.median(Du)))
    if med <= 0.0:
        raise ValueError("pen-L1: the median distance between the unlabeled rows and the centres is 0; "
                         "the Gaussian kernel width rule needs distinct points")
    sigmas = med * sigma_factors
    folds_p, folds_u = cv_folds(n_p, n_folds, rng), cv_folds(n_u, n_folds, rng)
    cnt_p = np.bincount(folds_p, minlength=n_folds).astype(np.float64)[:, None]
    cnt_u = np.bincount(folds_u, minlength=n_folds).astype(np.float64)[:, None]
    n_s, n_l, n_t = sigmas.size, lambdas.size, priors.size
    # cv[s, t] = (1/n_folds) sum_f max(0, beta_tr) . beta_te; the score is -cv / lambda
    cv = np.empty((n_s, n_t))
    mean_p, mean_u = np.empty((n_s, b)), np.empty((n_s, b))
    for i, sigma in enumerate(sigmas):
        Kp = np.exp(-Dp / (2.0 * sigma * sigma))
        Ku = np.exp(-Du / (2.0 * sigma * sigma))
        Sp, Su = fold_sums(Kp, folds_p, n_folds), fold_sums(Ku, folds_u, n_folds)
        tp, tu = Sp.sum(axis=0), Su.sum(axis=0)
        mean_p[i], mean_u[i] = tp / n_p, tu / n_u
        mp_te, mu_te = Sp / cnt_p, Su / cnt_u
        mp_tr, mu_tr = (tp - Sp) / (n_p - cnt_p), (tu - Su) / (n_u - cnt_u)
        beta_tr = priors[:, None, None] * mp_tr[None] - mu_tr[None]  # n_t x n_folds x b
        beta_te = priors[:, None, None] * mp_te[None] - mu_te[None]
        cv[i] = np.einsum("tfb,tfb->t", np.maximum(beta_tr, 0.0), beta_te) / n_folds
    score = -cv[:, None, :] / lambdas[None, :, None]  # n_s x n_l x n_t
    if n_s == 1 and n_l == 1:
        score[:] = -np.inf
    # the first minimum in column-major order (sigma fastest), as MATLAB's min(table(:))
    flat = np.transpose(score, (2, 1, 0)).reshape(n_t, n_l * n_s)
    best = np.argmin(flat, axis=1)
    i_l, i_s = best // n_s, best % n_s
    beta = priors[:, None] * mean_p[i_s] - mean_u[i_s]  # n_t x b, each at its chosen width
    pen = (np.maximum(beta, 0.0) ** 2).sum(axis=1) / lambdas[i_l] - priors + 1.0
    j = int(np.argmin(pen))
    return {"theta": float(priors[j]), "priors": priors, "pen_l1": pen, "sigma": sigmas[i_s], "lambda": lambdas[i_l],
            "sigmas": sigmas, "n_basis": b}


class PenL1PriorEstimator(BasePriorEstimator):
    """pen-L1 class-prior estimator (du Plessis, Niu & Sugiyama, ACML 2015; cited in the
    Bekker thesis as Christoffel, Niu & Sugiyama 2016): the candidate ``theta`` of least
    penalised L1 distance between ``theta p_P`` and the unlabeled density, in closed form
    per candidate, with Gaussian basis functions and per-candidate cross-validation of the
    width and regularisation (module docstring). Registered as ``pen_l1``.

    Parameters
    ----------
    n_basis : number of unlabeled rows that carry a basis function (300, the authors').
    sigma_factors : kernel widths as multiples of the median distance (the authors'
        ``logspace(-2, 1, 10)``).
    lambdas : the regularisation grid (the authors' ``logspace(-3, 1, 10)``).
    prior_step : spacing of the candidate priors ``step, 2 step, ... < 1`` (0.01; the
        authors' grid is 0.05).
    n_folds : cross-validation folds (5, the authors').
    random_state : None, int, Generator or RandomState (the centres and the folds).

    Attributes
    ----------
    alpha_, prior_, c_, ... : see :class:`~pu_lib.prior.base.BasePriorEstimator`.
    priors_ : the candidate priors; ``pen_l1_`` their penalised L1 distances.
    sigma_, lambda_ : the width and regularisation chosen for the estimate.
    kernel_widths_ : the width grid; ``n_basis_`` the number of basis functions used.
    """

    _parameter_constraints: dict = {
        "n_basis": [Interval(Integral, 1, None, closed="left")],
        "sigma_factors": ["array-like"],
        "lambdas": ["array-like"],
        "prior_step": [Interval(Real, 0.0, 0.5, closed="right")],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }
    _accepts_sparse = True
    _MIN_LABELED_WHY = "each of the n_folds={self.n_folds} cross-validation folds needs a labeled row"

    def __init__(self, *, n_basis=300, sigma_factors=PEN_L1_DEFAULTS["sigma_factors"],
                 lambdas=PEN_L1_DEFAULTS["lambdas"], prior_step=0.01, n_folds=5, random_state=None):
        self.n_basis = n_basis
        self.sigma_factors = sigma_factors
        self.lambdas = lambdas
        self.prior_step = prior_step
        self.n_folds = n_folds
        self.random_state = random_state

    def min_labeled(self) -> int:
        """``n_folds``: every cross-validation fold needs a labeled row (its ``beta``
        averages the basis functions over the fold's labeled rows)."""
        return int(self.n_folds)

    def _estimate(self, X, s):
        Xp, Xu = split_samples(X, s, self.n_folds, type(self).__name__)
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        with limit_threads(1):
            res = pen_l1_estimate(Xp, Xu, priors=prior_grid(self.prior_step), sigma_factors=self.sigma_factors,
                                  lambdas=self.lambdas, n_folds=self.n_folds, n_basis=self.n_basis,
                                  random_state=derive_seed("pen-L1", seed))
        j = int(np.argmin(res["pen_l1"]))
        self.priors_, self.pen_l1_ = res["priors"], res["pen_l1"]
        self.sigma_, self.lambda_ = float(res["sigma"][j]), float(res["lambda"][j])
        self.kernel_widths_ = res["sigmas"]
        self.n_basis_ = res["n_basis"]
        return "alpha", res["theta"]
