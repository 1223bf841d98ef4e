"""KM1 and KM2: mixture proportion estimation by kernel embedding of distributions
(H. G. Ramaswamy, C. Scott, A. Tewari, "Mixture proportion estimation via kernel
embedding of distributions", ICML 2016).

**Setting.** The mixture ``F`` is the distribution of the unlabeled rows, the component
``H`` that of the labeled positives (under SCAR the positives among the unlabeled follow
``H``), so ``F = kappa* H + (1 - kappa*) G`` and the maximal proportion ``kappa*`` of
``H`` in ``F`` is ``alpha``, the fraction of positives among the unlabeled
(:mod:`pu_lib.prior.base`); the estimate is returned as ``("alpha", kappa_hat)``.

**Distance curve** (paper, section 4). With ``lambda >= 1`` and ``G_lambda = lambda F +
(1 - lambda) H``, ``d(lambda)`` is the RKHS distance between the (empirical) kernel mean
embedding of ``G_lambda`` and the set of embeddings of distributions on the sample
points. With the ``n = N + M`` points (``N`` mixture, ``M`` component), Gram matrix ``K``
and ``u_lambda = (lambda / N, ..., lambda / N, (1 - lambda) / M, ...)``,

    d(lambda)^2 = min_{v >= 0, sum v = 1} (u_lambda - v)^T K (u_lambda - v),

a quadratic program over the simplex. ``d(1) = 0``; ``d`` is convex and its slope grows
from about 0 (``lambda < 1 / (1 - kappa*)``) to ``d_inf = ||mu_F - mu_H||`` (the RKHS
distance of the two embeddings), with the kink at ``lambda* = 1 / (1 - kappa*)``.

**Gradient thresholding** (paper, section 4, "KM1" / "KM2" of the experiments; values
from the authors' released code, ``http://web.eecs.umich.edu/~cscott/code.html#kmpe``,
``KMPE.py`` as redistributed in ``dimonenka/DEDPUL``): ``lambda*`` is found by bisection
on ``[1, lambda_upper]`` (``lambda_upper = 8``) until the bracket is at most
``epsilon = 0.04`` wide; at the bracket's midpoint ``m`` the slope is the finite
difference ``(d(m + epsilon/2) - d(m)) / (epsilon/2)``, and the right end moves to ``m``
when the slope exceeds the threshold, the left end otherwise; ``lambda_hat`` is the final
midpoint and ``kappa_hat = (lambda_hat - 1) / lambda_hat``. The thresholds:

* **KM1**: ``1 / sqrt(min(N, M))``; when that exceeds ``0.9 d_inf`` the KM2 threshold is
  used instead (the authors' wrapper);
* **KM2**: ``0.8 s_0 + 0.2 d_inf``, ``s_0 = (d(1.05) - d(1)) / 0.05`` the initial slope.

Which threshold is "KM1" follows the authors' code: its ``wrapper`` returns
``(kappa_1/sqrt(min), kappa_initial_slope)`` and its example unpacks that pair as
``(KM1, KM2)`` (two independent ports, Garg et al.'s and the SuMPE authors', read the
paper the same way). Since ``d`` is convex the estimate grows with the threshold, so KM1 >=
KM2 exactly when ``1 / sqrt(min(N, M)) >= 0.8 s_0 + 0.2 d_inf`` (tested); the paper does not
order the two in general. ``kappa_hat <= 1 - 1 / lambda_upper = 0.875``: larger
proportions cannot be returned (the authors' bracket).

**Kernel** (authors' code, ``compute_best_rbf_kernel_width``): Gaussian,
``k(x, y) = exp(-||x - y||^2 / (2 w^2))``, on the raw features (no scaling); ``w`` is the
one of ``w_med * {0.1, 0.316, 1, 3.16, 10}`` (``logspace(-1, 1, 5)``; ``w_med`` = the
square root of the median of all ``n^2`` squared pairwise distances, zeros of the
diagonal included) that maximises ``d_inf`` (the first on ties).

**Sample-size cap** (``max_samples``). The authors' code itself takes every point (its
cost is an ``n x n`` interior-point QP per ``lambda``). The Bekker thesis (section 3.3.2,
the TIcE comparison with the authors' ``kernel_MPE.zip``): "KM1 and KM2 cannot handle
large datasets. Therefore, like the authors of those papers, we subsampled the datasets
to have at most 2000 examples"; other studies that ran the code cap differently (DEDPUL's
experiments: ``max_sample=4000`` rows, every labeled positive kept; Garg et al.'s port:
at most 2,000 of each sample). We keep at most ``max_samples = 2000`` rows in total, a
seeded draw without replacement stratified by ``s`` (labeled and unlabeled rows in their
proportions, at least 2 of each; None keeps all), so KM runs on any data size (the PULSNAR
paper reports KM failing at 50,000 and 100,000 unlabeled rows, Table 2) at the price of
the subsample's variance.

**Solver** (ours; the authors call ``cvxopt.coneqp``, a dense interior-point method, with
its default tolerances, ``abstol = 1e-7`` on the objective ``d^2``). Repeated points
(integer features: letter, dry bean) make ``K`` singular; since the objective depends only
on the total weight at each distinct point, the QP is solved on the distinct points with
their summed weights (the same value). ``d(1) = 0`` exactly (``u`` is on the simplex).
Three exact solvers:

* when the Gram matrix has low numerical rank (a pivoted Cholesky factor ``K ~ L L^T``
  reaches a largest residual diagonal below ``1e-12`` within ``n / 4`` columns -- wide
  kernels, low dimensions; the factor is a Python loop of one column a pivot, so a larger
  cap costs seconds on every full-rank kernel), the QP becomes the non-negative least-squares problem
  ``min_{v >= 0} ||L^T v - L^T u||^2 + rho^2 (sum v - 1)^2`` with ``rho = 1e4 sqrt(n)``,
  solved by an active-set method (``scipy.optimize.nnls``; ``|sum v - 1| < 1e-9``);
* otherwise (narrow kernels, many features) block principal pivoting on ``K`` (an
  active-set method for the KKT conditions; Kim & Park, SIAM J. Sci. Comput. 33, 2011,
  adapted to the simplex): guess the support ``S`` of ``v``, solve the equality-constrained
  problem on ``S`` exactly (one Cholesky factor of ``K_SS``), then move every index whose
  ``v_i < 0`` out of ``S`` and every index off ``S`` whose multiplier ``2 (K (v - u))_i + y``
  is negative into it, until none is left (Kim & Park's backup rule, one index at a time,
  after three swaps that do not reduce the count). The guess is the support of the
  solution at the nearest ``lambda`` already solved (the mixture points for the first), so
  along the bisection most QPs take one to three factorisations of ``K_SS`` where an
  interior-point method takes 9-10 of the whole ``K``: about 10x faster at ``n = 2,000``
  (``benchmarks/bench_priors.py``). The result is the exact optimum (KKT conditions to
  rounding), which makes ``d`` near ``lambda = 1``, where ``d`` is about 0, exact too
  (an interior-point duality gap ``g`` leaves ``d`` uncertain by ``sqrt(g)``).
* When ``K_SS`` cannot be factored accurately (a nearly singular kernel: Wilt, 5 features,
  eigenvalues down to 1e-13 at rank 1,997 of 2,000) or the pivoting has not converged
  after 100 swaps (or cannot: its one-index backup swaps have more infeasible indices left
  than swaps), that QP and the rest of the curve go to a primal active-set method
  (Lawson & Hanson's NNLS scheme on the simplex, :func:`_simplex_qp_primal`): from the
  solution at the nearest ``lambda`` it adds one point at a time, the one with the most
  negative multiplier, so ``K_SS`` grows only by points that are not numerically in the
  span of the others, and its Cholesky factor is updated (one triangular solve per point
  added, a compiled rank-one update per point removed) instead of recomputed, and so are the
  forward-substituted right-hand sides, so a step costs one back substitution and a
  product with the support's rows of ``K``. The whole loop is compiled. Exact and
  KKT-checked like the block method; on Wilt 0.01-0.3 s a QP where the interior point
  takes 1.4-2.9 s (about 90 s a fit with the interior point).
* Only when both fail is the QP solved by a primal-dual interior-point method (Mehrotra
  predictor-corrector, one Cholesky factor per iteration, duality gap ``<= 1e-11``): the
  authors' method with a tighter tolerance, about as fast as cvxopt on the same QP.

The bisection asks for ``2 + 2 * 8`` distances per variant (memoised; KM1 and KM2 share
them in one fit).

**Threads.** The solvers run BLAS on one thread (:func:`pu_lib.distributed.limit_threads`): they make thousands of
small BLAS calls (a matrix-vector product per primal step, a factor per pivoting swap, one
pivot column at a time), and multithreaded BLAS gained nothing on an idle 2-core machine
(synthetic 2,000-point fits: 9 features 2.2 s on one thread against 5.1 s on two, 50
features 1.0 s against 2.2 s, 5 features 7.8 s against 7.6 s) while it lost 12-26x when
another process kept one core busy (the threads wait for each other: 92-137 s against 8-10
s on one thread, which is unaffected).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from scipy.optimize import nnls
from sklearn.utils._param_validation import Interval, StrOptions

from pu_lib._seeding import check_random_state, derive_seed, seed_to_int
from pu_lib.base import RANDOM_STATE_CONSTRAINT
from pu_lib.distributed import limit_threads
from pu_lib.prior._km_kernel import primal_kernel
from pu_lib.prior.base import BasePriorEstimator

__all__ = ["KM_DEFAULTS", "KMPriorEstimator", "distance_curve", "km_kernel", "km_estimate"]

#: the authors' settings (module docstring): width grid, bisection bracket and step, KM2's
#: initial-slope point and weight; the sample cap of the studies that ran their code
KM_DEFAULTS: dict = {
    "width_factors": tuple(np.logspace(-1, 1, 5)),
    "lambda_upper": 8.0,
    "epsilon": 0.04,
    "initial_slope_lambda": 1.05,
    "km2_weight": 0.2,
    "km1_fallback": 0.9,
    "max_samples": 2000,  # rows in total (labeled + unlabeled)
}

_CHOL_TOL = 1e-12


def km_kernel(X_mixture, X_component, width_factors=KM_DEFAULTS["width_factors"]):
    """The authors' kernel choice: ``(width, K, d_inf)`` with ``K`` the Gaussian Gram
    matrix of the stacked points (mixture first) at the width of ``w_med * width_factors``
    that maximises ``d_inf = ||mu_F - mu_H||_K`` (see the module docstring)."""
    X = np.vstack([X_mixture, X_component]).astype(np.float64)
    N, M = X_mixture.shape[0], X_component.shape[0]
    sq = np.einsum("ij,ij->i", X, X)
    D2 = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T)
    np.maximum(D2, 0.0, out=D2)
    np.fill_diagonal(D2, 0.0)
    w_med = math.sqrt(float(np.median(D2)))
    if w_med <= 0.0:
        raise ValueError("KM: the median pairwise distance is 0 (more than half of the point pairs coincide); "
                         "the Gaussian kernel width rule needs distinct points")
    diff = np.concatenate([np.full(N, 1.0 / N), np.full(M, -1.0 / M)])
    best = (-1.0, None, None)
    for f in width_factors:
        w = float(f) * w_med
        K = np.exp(-D2 / (2.0 * w * w))
        d = math.sqrt(max(float(diff @ (K @ diff)), 0.0))
        if d > best[0]:
            best = (d, w, K)
    d_inf, width, K = best
    return width, K, d_inf


def _pivoted_cholesky(K, tol=_CHOL_TOL, max_rank=None):
    """``L`` (``n x r``) with ``K ~ L L^T``, greedy diagonal pivoting until the largest
    residual diagonal is at most ``tol`` (one vectorised column update per pivot); None
    when that needs more than ``max_rank`` columns."""
    n = K.shape[0]
    max_rank = n if max_rank is None else min(int(max_rank), n)
    diag = K.diagonal().astype(np.float64).copy()
    L = np.zeros((n, max_rank))
    r = 0
    while True:
        if r == max_rank:
            return None if max_rank < n else L

        j = int(np.argmax(diag))
        if diag[j] <= tol:
            break
        col = (K[:, j] - L[:, :r] @ L[j, :r]) / math.sqrt(diag[j])
        L[:, r] = col
        diag -= col * col
        diag[j] = 0.0
        r += 1
    return L[:, :r]


def _simplex_qp_ipm(K, u, tol=1e-11, max_iter=40):
    """``min_v (v - u)^T K (v - u)`` over the simplex by a primal-dual interior-point
    method (Mehrotra predictor-corrector; the method of the authors' ``cvxopt.coneqp``):
    per iteration one Cholesky factor of ``2K + diag(z / v)`` and the equality by its
    Schur complement. Stops at a duality gap ``v^T z <= tol`` (then ``d`` is exact to
    about ``sqrt(tol)``, far tighter than cvxopt's default ``abstol = 1e-7``) with the
    residuals small, or after ``max_iter`` iterations (the gap stalls near ``1e-11`` in
    double precision; about 15-20 iterations usually reach it). Returns the optimal
    value (``d^2``)."""
    from scipy.linalg import cho_factor, cho_solve

    n = K.shape[0]
    P = 2.0 * K
    q = -2.0 * (K @ u)
    one = np.ones(n)
    v, z, y = np.full(n, 1.0 / n), np.ones(n), 0.0
    jitter = 1e-14 * float(np.trace(P)) / n

    def step_to_boundary(x, dx):
        neg = dx < 0
        return min(1.0, float(np.min(-x[neg] / dx[neg]))) if neg.any() else 1.0

    for _ in range(max_iter):
        r_d = P @ v + q - z + y * one
        r_p = v.sum() - 1.0
        mu = float(v @ z) / n
        if mu * n <= tol and abs(r_p) <= 1e-12 and float(np.abs(r_d).max()) <= 1e-9 * (1.0 + float(np.abs(q).max())):
            break
        H = P.copy()
        H[np.diag_indices(n)] += z / v + jitter
        fac = cho_factor(H, lower=True, check_finite=False)
        b = cho_solve(fac, one, check_finite=False)

        def direction(r_c):
            a = cho_solve(fac, -r_d + r_c / v, check_finite=False)
            dy = (a.sum() + r_p) / b.sum()
            dv = a - dy * b
            dz = (r_c - z * dv) / v
            return dv, dz, dy

        dv_a, dz_a, _ = direction(-v * z)
        alpha_a = min(step_to_boundary(v, dv_a), step_to_boundary(z, dz_a))
        mu_a = float((v + alpha_a * dv_a) @ (z + alpha_a * dz_a)) / n
        sigma = (mu_a / mu) ** 3 if mu > 0 else 0.0
        dv, dz, dy = direction(-v * z - dv_a * dz_a + sigma * mu)
        alpha = 0.99 * min(step_to_boundary(v, dv), step_to_boundary(z, dz))
        v, z, y = v + alpha * dv, z + alpha * dz, y + alpha * dy
        v = np.maximum(v, 1e-300)
        z = np.maximum(z, 1e-300)
    w = v / v.sum() - u
    return max(float(w @ (K @ w)), 0.0)


def _simplex_qp_active(K, u, support, max_swaps=100):
    """``min_v (v - u)^T K (v - u)`` over the simplex by block principal pivoting from the
    initial support ``support`` (indices; module docstring). Returns ``(d^2, v)`` at a
    point that satisfies the KKT conditions (checked: ``v >= 0``, gradients equal on the
    support to 1e-9, none smaller off it), or None when ``K_SS`` cannot be factored
    accurately or no KKT point is found within ``max_swaps`` swaps (the caller then uses
    :func:`_simplex_qp_primal`, and :func:`_simplex_qp_ipm` if that fails too). It gives up
    early once the backup rule (one index a swap) would need more swaps than are left to
    fix the infeasible indices: on the nearly singular kernels of Wilt and MAGIC the count
    stalls near 500 after a few block swaps, and the 90-odd single-index swaps that
    followed, about 1 s a fit, never converged."""
    from scipy.linalg import LinAlgError, cho_factor, cho_solve

    n = K.shape[0]
    Ku = K @ u
    scale = 1.0 + float(np.abs(Ku).max())
    in_s = np.zeros(n, dtype=bool)
    in_s[np.asarray(support, dtype=np.int64)] = True
    best, backup = n + 1, 3
    for swap in range(max_swaps):
        if not in_s.any():  # an empty support cannot sum to 1: start from the steepest descent index
            in_s[int(np.argmin(-Ku))] = True
        S = np.flatnonzero(in_s)
        try:
            fac = cho_factor(K[np.ix_(S, S)], lower=True, check_finite=False)
        except LinAlgError:
            return None
        a = cho_solve(fac, Ku[S], check_finite=False)
        b = cho_solve(fac, np.ones(S.shape[0]), check_finite=False)
        h = (a.sum() - 1.0) / b.sum()  # half the multiplier of sum v = 1
        v_s = a - h * b
        v = np.zeros(n)
        v[S] = v_s
        Kv = K @ v
        z = 2.0 * (Kv - Ku + h)  # multipliers of v >= 0 (0 on S)
        if float(np.abs(z[S]).max()) > 1e-9 * scale:
            return None  # K_SS too close to singular for an accurate solve (nearly singular kernel)
        bad_v = S[v_s < 0.0]
        bad_z = np.flatnonzero(~in_s & (z < -1e-12 * scale))
        n_bad = bad_v.shape[0] + bad_z.shape[0]
        if n_bad == 0:
            w = v - u
            return max(float(w @ (Kv - Ku)), 0.0), v
        if n_bad < best:
            best, backup = n_bad, 3
            flip = np.concatenate([bad_v, bad_z])
        elif backup > 0:
            backup -= 1
            flip = np.concatenate([bad_v, bad_z])
        elif n_bad > max_swaps - swap - 1:
            # one index a swap cannot fix n_bad infeasible indices in the swaps left: hand the
            # QP over now rather than after max_swaps factorisations
            return None
        else:  # Kim & Park's backup rule: the largest infeasible index alone
            flip = np.array([max(int(bad_v.max(initial=-1)), int(bad_z.max(initial=-1)))])
        in_s[flip] = ~in_s[flip]
    return None


def _simplex_qp_primal(K, u, v0, max_iter=None, rel_tol=1e-12):
    """``min_v (v - u)^T K (v - u)`` over the simplex by a primal active-set method in the
    manner of Lawson & Hanson's NNLS, from the feasible point ``v0`` (the solution at the
    nearest ``lambda``): solve the equality-constrained problem on the support ``S``; if
    its solution leaves the simplex, step from ``v`` towards it up to the boundary and
    drop the points that reach 0; once inside, add the one point off ``S`` with the most
    negative multiplier, until none is negative. The Cholesky factor of ``K_SS`` is
    updated, not recomputed: a point is added by one triangular solve (refused when its
    pivot is below ``rel_tol`` times its diagonal, i.e. it is numerically in the span of
    ``S``), removed by a rank-one update of the trailing block (compiled, ``O(|S|^2)``
    each). Adding one point at a time keeps ``K_SS`` well conditioned where block pivoting
    cannot factor it (nearly singular kernels: few features and a wide kernel, e.g. Wilt).
    Returns ``(d^2, v)`` at a KKT-checked point (as :func:`_simplex_qp_active`), or None
    (a point that cannot be added, an inaccurate solve, or more than ``max_iter`` steps,
    default ``3 n``). ``K`` is a Gram matrix (symmetric). The whole loop is compiled
    (:func:`primal_kernel`; before, a Python loop of numpy calls): a step costs one
    back substitution and ``K v`` over the support's rows only (``O(n |S|)``, where a
    dense ``K @ v`` reads all of ``K``)."""
    K = np.ascontiguousarray(K, dtype=np.float64)
    u = np.ascontiguousarray(u, dtype=np.float64)
    Ku = K @ u
    scale = 1.0 + float(np.abs(Ku).max())
    n = K.shape[0]
    ok, d2, v = primal_kernel(K, u, Ku, np.ascontiguousarray(v0, dtype=np.float64),
                               3 * n if max_iter is None else int(max_iter), float(rel_tol), scale)
    return (d2, v) if ok else None


class _DistanceCurve:
    """``d(lambda)`` of the module docstring, memoised: on a low-rank factor ``L`` by NNLS,
    or (``L`` None) on the full ``K`` by block principal pivoting warm-started from the
    nearest solved ``lambda``; once that fails, by the primal active set from the nearest
    solution (the interior-point method where both fail)."""

    def __init__(self, L, N, M, K=None, inverse=None):
        # weights of the (unique) points in the mixture and the component: u = lam w_mix +
        # (1 - lam) w_comp; ``inverse`` maps each of the N + M points to its unique point
        inv = np.arange(N + M) if inverse is None else np.asarray(inverse, dtype=np.int64).reshape(-1)
        n = int(inv.max()) + 1
        self.w_mix = np.bincount(inv[:N], minlength=n) / N
        self.w_comp = np.bincount(inv[N:], minlength=n) / M
        self.cache: dict[float, float] = {1.0: 0.0}  # u itself is on the simplex at lambda = 1
        self.max_constraint_violation = 0.0
        # lambda -> optimal v (active-set warm starts); at lambda = 1, v = u = the mixture's weights
        self.solutions: dict[float, np.ndarray] = {1.0: self.w_mix}
        self.block_pivoting = True  # False once K_SS proved too close to singular for it
        self.n_primal = 0  # QPs solved by the primal active set
        self.n_fallback = 0  # QPs both active-set methods handed to the interior-point method
        self.K = K
        if L is None:
            if K is None:
                raise ValueError("either a factor L or the kernel matrix K is needed")
            return
        self.A = np.ascontiguousarray(L.T)
        self.rho = 1e4 * math.sqrt(n)
        self.A_aug = np.vstack([self.A, np.full((1, n), self.rho)])
        self.a_mix = self.A @ self.w_mix  # L^T (mixture mean weights)
        self.a_comp = self.A @ self.w_comp
        self.K = None

    def __call__(self, lam: float) -> float:
        lam = float(lam)
        if lam not in self.cache:
            with limit_threads(1):  # one BLAS thread (module docstring)
                self._solve(lam)
        return self.cache[lam]

    def _solve(self, lam: float) -> None:
        if self.K is not None:  # the full kernel: block pivoting, the primal method, the interior point
            u = lam * self.w_mix + (1.0 - lam) * self.w_comp
            # warm start: the solution at the nearest lambda solved so far (feasible for every lambda)
            v0 = self.solutions[min(self.solutions, key=lambda x: (abs(x - lam), x))]
            res = _simplex_qp_active(self.K, u, np.flatnonzero(v0 > 0.0)) if self.block_pivoting else None
            if res is None:
                self.block_pivoting = False
                res = _simplex_qp_primal(self.K, u, v0)
                self.n_primal += res is not None
            if res is None:
                self.n_fallback += 1
                self.cache[lam] = math.sqrt(_simplex_qp_ipm(self.K, u))
            else:
                self.solutions[lam] = res[1]
                self.cache[lam] = math.sqrt(res[0])
        else:  # the low-rank factor: NNLS
            b = lam * self.a_mix + (1.0 - lam) * self.a_comp
            v, _ = nnls(self.A_aug, np.append(b, self.rho), maxiter=50 * self.A.shape[1])
            self.max_constraint_violation = max(self.max_constraint_violation, abs(float(v.sum()) - 1.0))
            self.cache[lam] = float(np.linalg.norm(self.A @ v - b))


def distance_curve(X_mixture, X_component, K):
    """The memoised ``d(lambda)`` of the points ``X_mixture`` (first) and ``X_component``
    with Gram matrix ``K`` (:func:`km_kernel`), on the solver the module docstring chooses:
    the distinct points only (repeated points make ``K`` singular; the QP's value depends
    only on the total weight at each distinct point), then NNLS on a pivoted Cholesky factor
    of at most ``n / 4`` columns, else the active set on ``K``. Returns ``(curve, rank)``
    (``rank`` None on the active-set branch)."""
    N, M = X_mixture.shape[0], X_component.shape[0]
    _, first, inverse = np.unique(np.vstack([X_mixture, X_component]), axis=0, return_index=True,
                                  return_inverse=True)
    if first.shape[0] < N + M:  # K in the order of the distinct points, which inverse indexes
        K = K[np.ix_(first, first)]
    else:
        inverse = None
    with limit_threads(1):
        L = _pivoted_cholesky(K, max_rank=max(1, first.shape[0] // 4))
    curve = _DistanceCurve(L, N, M, K=None if L is not None else K, inverse=inverse)
    return curve, (L.shape[1] if L is not None else None)


def _solver_label(curve):
    """``"active-set"``, with how many QPs the primal method and the interior point took
    (``"active-set (k primal, m interior point)"``) when any did."""
    parts = [f"{k} {name}" for k, name in ((curve.n_primal, "primal"), (curve.n_fallback, "interior point")) if k]
    return "active-set" + (f" ({', '.join(parts)})" if parts else "")


def _bisect(curve, threshold, lambda_upper, epsilon):
    """The authors' bisection for the first ``lambda`` whose slope exceeds ``threshold``."""
    lo, hi = 1.0, float(lambda_upper)
    while hi - lo > epsilon:
        mid = (lo + hi) / 2.0
        slope = (curve(mid + epsilon / 2.0) - curve(mid)) * 2.0 / epsilon
        if slope > threshold:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2.0


def km_estimate(X_mixture, X_component, variants=("km1", "km2"), *, lambda_upper=8.0, epsilon=0.04,
                width_factors=KM_DEFAULTS["width_factors"]):
    """KM estimates of ``kappa*`` (the proportion of the component in the mixture) for the
    given ``variants``; returns a dict with ``kappa`` (variant -> estimate), ``lambda``,
    ``threshold`` (variant -> absolute slope threshold), ``width``, ``d_inf``,
    ``initial_slope``, ``rank`` (of the kernel factor) and ``curve`` (evaluated
    ``lambda -> d(lambda)``). No subsampling here (see :class:`KMPriorEstimator`)."""
    Xm = np.asarray(X_mixture, dtype=np.float64)
    Xc = np.asarray(X_component, dtype=np.float64)
    N, M = Xm.shape[0], Xc.shape[0]
    if N < 2 or M < 2:
        raise ValueError(f"KM needs at least 2 mixture and 2 component points, got {N} and {M}")
    width, K, d_inf = km_kernel(Xm, Xc, width_factors)
    if d_inf <= 0.0:
        raise ValueError("KM: the mixture and component samples have the same kernel embedding (d_inf = 0)")
    curve, rank = distance_curve(Xm, Xc, K)
    del K
    s0_lam = KM_DEFAULTS["initial_slope_lambda"]
    initial_slope = (curve(s0_lam) - curve(1.0)) / (s0_lam - 1.0)
    w2 = KM_DEFAULTS["km2_weight"]
    thr_km2 = (1.0 - w2) * initial_slope + w2 * d_inf
    thr_km1 = 1.0 / math.sqrt(min(N, M))
    if thr_km1 / d_inf > KM_DEFAULTS["km1_fallback"]:
        thr_km1 = thr_km2
    thresholds = {"km1": thr_km1, "km2": thr_km2}
    out = {"kappa": {}, "lambda": {}, "threshold": {}}
    for v in variants:
        lam = _bisect(curve, thresholds[v], lambda_upper, epsilon)
        out["lambda"][v] = lam
        out["kappa"][v] = (lam - 1.0) / lam
        out["threshold"][v] = thresholds[v]
    out.update(width=width, d_inf=d_inf, initial_slope=initial_slope, rank=rank,
               solver="nnls" if rank is not None else _solver_label(curve),
               curve=dict(sorted(curve.cache.items())), constraint_violation=curve.max_constraint_violation)
    return out


class KMPriorEstimator(BasePriorEstimator):
    """KM1 / KM2 class-prior estimator (Ramaswamy, Scott & Tewari, ICML 2016).

    Registered twice: ``km1`` (``variant="km1"``) and ``km2`` (``variant="km2"``). The
    mixture is the unlabeled rows, the component the labeled positives; the estimate is
    ``alpha`` (module docstring for the distance curve, thresholds, kernel and solver).

    Parameters
    ----------
    variant : ``"km2"`` (default; the variant DEDPUL and the TIcE thesis compare with) or
        ``"km1"``.
    max_samples : at most this many rows in total enter the kernel matrix, drawn without
        replacement and stratified by ``s`` (seeded); None keeps all (memory ``8 n^2``
        bytes). Default 2000 (the Bekker thesis' cap "like the authors"; module docstring).
    lambda_upper : right end of the bisection bracket (8, the authors'); estimates are at
        most ``1 - 1 / lambda_upper``.
    epsilon : bracket width at which the bisection stops, also twice the finite-difference
        step of the slope (0.04, the authors').
    random_state : None, int, Generator or RandomState (the subsample only; without subsampling the
        estimate is deterministic).

    Attributes
    ----------
    alpha_, prior_, c_, ... : see :class:`~pu_lib.prior.base.BasePriorEstimator`.
    kappa_ : dict with the KM1 and KM2 estimates of the same fit (``alpha_`` is
        ``kappa_[variant]``).
    lambda_, threshold_ : ``lambda_hat`` and the slope threshold of the chosen variant.
    thresholds_ : dict with the KM1 and KM2 slope thresholds of the same fit.
    kernel_width_, d_inf_, initial_slope_ : the kernel width, ``||mu_F - mu_H||`` and
        the initial slope ``s_0``.
    solver_, rank_ : ``"nnls"`` with the rank of the kernel factor, or ``"active-set"``
        (rank above ``n / 4``; ``"active-set (k primal, m interior point)"`` when ``k`` QPs
        were solved by the primal active set and ``m``
        fell back to the interior-point method) with ``rank_`` None.
    distance_curve_ : dict ``lambda -> d(lambda)`` of the evaluated points.
    n_mixture_used_, n_component_used_ : the sample sizes after the cap.
    """

    _parameter_constraints: dict = {
        "variant": [StrOptions({"km1", "km2"})],
        "max_samples": [None, Interval(Integral, 2, None, closed="left")],
        "lambda_upper": [Interval(Real, 1.0, None, closed="neither")],
        "epsilon": [Interval(Real, 0.0, None, closed="neither")],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(self, *, variant="km2", max_samples=2000, lambda_upper=8.0, epsilon=0.04, random_state=None):
        self.variant = variant
        self.max_samples = max_samples
        self.lambda_upper = lambda_upper
        self.epsilon = epsilon
        self.random_state = random_state

    #: the distance curve compares the kernel mean embedding of the labeled rows with
    #: convex combinations of them (the authors' code needs two labeled and two unlabeled rows)
    _MIN_LABELED = 2
    _MIN_LABELED_WHY = "the kernel embedding of the labeled component needs two rows"

    def _estimate(self, X, s):
        Xm, Xc = X[s == 0], X[s == 1]
        if Xm.shape[0] < 2 or Xc.shape[0] < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 unlabeled and 2 labeled rows, got "
                             f"{Xm.shape[0]} and {Xc.shape[0]}")
        n = Xm.shape[0] + Xc.shape[0]
        if self.max_samples is not None and n > self.max_samples:
            if self.max_samples < 4:
                raise ValueError(f"max_samples={self.max_samples} leaves fewer than 2 labeled and 2 unlabeled rows")
            seed = seed_to_int(self.random_state, fresh_if_none=True)
            rng = check_random_state(derive_seed("KM", seed, "subsample"))
            n_c = int(min(max(round(self.max_samples * Xc.shape[0] / n), 2), self.max_samples - 2))
            n_m = self.max_samples - n_c
            Xm = Xm[np.sort(rng.choice(Xm.shape[0], n_m, replace=False))]
            Xc = Xc[np.sort(rng.choice(Xc.shape[0], n_c, replace=False))]
        res = km_estimate(Xm, Xc, variants=("km1", "km2"), lambda_upper=self.lambda_upper, epsilon=self.epsilon)
        self.kappa_ = dict(res["kappa"])
        self.lambda_ = res["lambda"][self.variant]
        self.threshold_ = res["threshold"][self.variant]
        self.thresholds_ = dict(res["threshold"])
        self.kernel_width_ = res["width"]
        self.d_inf_ = res["d_inf"]
        self.initial_slope_ = res["initial_slope"]
        self.rank_ = res["rank"]
        self.solver_ = res["solver"]
        self.distance_curve_ = res["curve"]
        self.n_mixture_used_, self.n_component_used_ = Xm.shape[0], Xc.shape[0]
        return "alpha", self.kappa_[self.variant]
