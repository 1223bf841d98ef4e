"""KM1 / KM2 (Ramaswamy, Scott & Tewari 2016; pu_lib.prior.km): the kernel-width rule,
the distance curve (QP over the simplex), the thresholds, recovery of known mixture
proportions, the alpha / prior / c interface, determinism and bad input."""

from __future__ import annotations

from functools import partial

import math

import numpy as np
import pytest

from pu_lib.workflow import registry
from pu_lib.prior import KMPriorEstimator
from pu_lib.prior._km_kernel import back_solve, chol_append, chol_delete, forward_from
from pu_lib.prior.km import (_DistanceCurve, _pivoted_cholesky, _simplex_qp_active, _simplex_qp_ipm, _simplex_qp_primal,
                             km_estimate, km_kernel)
from conftest import mixture_sample


two_gaussians = partial(mixture_sample, shift=3.0)


@pytest.fixture(scope="module")
def fits():
    """KM on 600 unlabeled / 400 labeled rows, alpha 0.2 / 0.5 / 0.8, two seeds each."""
    out = {}
    for alpha in (0.2, 0.5, 0.8):
        for seed in (0, 1):
            X, s = two_gaussians(alpha, 600, 400, seed)
            out[alpha, seed] = (X, s, KMPriorEstimator(random_state=0).fit(X, s))
    return out


# --------------------------------------------------------------------------- kernel and curve
def test_kernel_width_rule_picks_the_largest_embedding_distance():
    rng = np.random.default_rng(0)
    Xm, Xc = rng.normal(0, 1, (40, 3)), rng.normal(1, 1, (30, 3))
    width, K, d_inf = km_kernel(Xm, Xc)
    X = np.vstack([Xm, Xc])
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    w_med = math.sqrt(np.median(D2))  # the median over all n^2 pairs, diagonal zeros included
    diff = np.r_[np.full(40, 1 / 40), np.full(30, -1 / 30)]
    dists = {f: math.sqrt(diff @ np.exp(-D2 / (2 * (f * w_med) ** 2)) @ diff) for f in np.logspace(-1, 1, 5)}
    best = max(dists, key=dists.get)
    assert width == pytest.approx(best * w_med)
    assert d_inf == pytest.approx(dists[best])
    np.testing.assert_allclose(K, np.exp(-D2 / (2 * width**2)), atol=1e-12)


def test_distance_is_the_simplex_qp_optimum():
    """d(lambda) is the minimum of (u - v)' K (u - v) over the simplex: no random feasible
    v does better, d(1) = 0, and the optimum satisfies the KKT conditions."""
    rng = np.random.default_rng(3)
    Xm, Xc = rng.normal(0, 1, (30, 2)), rng.normal(2, 1, (20, 2))
    _, K, _ = km_kernel(Xm, Xc)
    curve = _DistanceCurve(_pivoted_cholesky(K), 30, 20)
    assert curve(1.0) < 1e-6
    lam = 2.5
    u = np.r_[np.full(30, lam / 30), np.full(20, (1 - lam) / 20)]
    d = curve(lam)
    V = rng.dirichlet(np.ones(50) * 0.3, size=2000)
    trial = np.sqrt(np.einsum("ij,jk,ik->i", u - V, K, u - V))
    assert d <= trial.min() + 1e-9
    # solve again through the factor to get v and check KKT: gradient equal on the support, larger off it
    from scipy.optimize import nnls

    v, _ = nnls(curve.A_aug, np.append(curve.A @ u, curve.rho))
    g = 2 * K @ (v - u)
    on = v > 1e-10
    assert abs(v.sum() - 1) < 1e-9
    assert np.ptp(g[on]) < 1e-6
    assert g[~on].min() >= g[on].max() - 1e-6
    assert d == pytest.approx(math.sqrt((u - v) @ K @ (u - v)), abs=1e-7)


@pytest.mark.parametrize("lam", [1.05, 1.5, 3.0])
def test_the_two_solvers_agree(lam):
    """NNLS on the low-rank factor, the active sets on K (this low-rank K sends block
    pivoting to the primal method) and the interior-point method give the same d (the
    interior point to about the square root of its duality gap, from above)."""
    rng = np.random.default_rng(5)
    Xm, Xc = rng.normal(0, 1, (120, 2)), rng.normal(0.7, 1, (80, 2))
    _, K, _ = km_kernel(Xm, Xc)
    L = _pivoted_cholesky(K)
    assert L.shape[1] < 200 // 2
    u = np.r_[np.full(120, lam / 120), np.full(80, (1 - lam) / 80)]
    d_ipm = math.sqrt(_simplex_qp_ipm(K, u))
    assert _DistanceCurve(L, 120, 80)(lam) == pytest.approx(d_ipm, abs=2e-6)
    on_k = _DistanceCurve(None, 120, 80, K=K)
    assert on_k(lam) == pytest.approx(d_ipm, abs=2e-6) and on_k(lam) <= d_ipm + 1e-12
    assert on_k.n_fallback == 0


def test_high_dimensional_data_use_the_active_set_solver():
    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(0.5, 1, (60, 50)), rng.normal(0, 1, (140, 50))])
    s = np.r_[np.ones(60, int), np.zeros(140, int)]
    est = KMPriorEstimator().fit(X, s)
    assert est.solver_ == "active-set" and est.rank_ is None
    # every distance of the bisection is the QP's optimum: the interior point's d to about
    # the square root of its duality gap (1e-11), from above (a bound on alpha_ could not
    # fail: the bracket caps it at 0.875 and the base class clips it to [0, 1])
    _, K, _ = km_kernel(X[s == 0], X[s == 1])
    assert len(est.distance_curve_) > 2
    for lam, d in est.distance_curve_.items():
        u = np.r_[np.full(140, lam / 140), np.full(60, (1 - lam) / 60)]
        d_ipm = math.sqrt(_simplex_qp_ipm(K, u))
        assert d == pytest.approx(d_ipm, abs=5e-6) and d <= d_ipm + 1e-9, lam


def _full_rank_kernel(N=150, M=100, d=30, seed=7):
    rng = np.random.default_rng(seed)
    Xm, Xc = rng.normal(0, 1, (N, d)), rng.normal(0.4, 1, (M, d))
    _, K, _ = km_kernel(Xm, Xc)
    assert _pivoted_cholesky(K, max_rank=(N + M) // 4) is None  # the full-rank branch of distance_curve
    return K, N, M


@pytest.mark.parametrize("lam", [1.0, 1.02, 1.5, 3.0, 8.0])
@pytest.mark.parametrize("start", ["mixture", "all", "component", "empty"])
def test_active_set_reaches_the_kkt_point_from_any_support(lam, start):
    """Block principal pivoting ends at the exact optimum whatever support it starts from:
    v on the simplex, equal gradients on the support, no smaller gradient off it, and the
    same d as the interior-point method (which is exact to sqrt(duality gap) ~ 3e-6)."""
    K, N, M = _full_rank_kernel()
    n = N + M
    u = np.r_[np.full(N, lam / N), np.full(M, (1 - lam) / M)]
    support = {"mixture": np.arange(N), "all": np.arange(n), "component": np.arange(N, n),
               "empty": np.array([], dtype=int)}[start]
    d2, v = _simplex_qp_active(K, u, support)
    assert v.min() >= 0.0 and v.sum() == pytest.approx(1.0, abs=1e-12)
    g = 2 * K @ (v - u)
    on = v > 0
    assert np.ptp(g[on]) < 1e-10
    assert g[~on].min(initial=np.inf) >= g[on].max() - 1e-10
    assert d2 == pytest.approx((v - u) @ K @ (v - u), abs=1e-14)
    assert math.sqrt(d2) == pytest.approx(math.sqrt(_simplex_qp_ipm(K, u)), abs=5e-6)
    if lam == 1.0:  # u itself is feasible: d(1) = 0 exactly
        assert d2 < 1e-20


def test_active_set_warm_start_does_not_change_the_curve():
    """The curve on the full-rank branch is the same whatever order its points are asked
    in (each QP's optimum is unique; the warm start only changes the path to it)."""
    K, N, M = _full_rank_kernel(seed=8)
    lams = [1.0, 1.05, 4.5, 4.52, 2.75, 2.77, 1.875, 1.895]
    a, b = _DistanceCurve(None, N, M, K=K), _DistanceCurve(None, N, M, K=K)
    da = {x: a(x) for x in lams}
    db = {x: b(x) for x in reversed(lams)}
    for x in lams:
        assert da[x] == pytest.approx(db[x], rel=1e-9, abs=1e-12)
    assert a.n_fallback == b.n_fallback == 0


def test_active_set_gives_up_where_it_cannot_solve_exactly():
    """A singular K_SS (identical points) or too few swaps: None, and the caller solves
    that QP by the interior-point method instead."""
    u = np.array([0.5, 0.5, 0.0])
    assert _simplex_qp_active(np.ones((3, 3)), u, np.arange(3)) is None
    K, N, M = _full_rank_kernel()
    u = np.r_[np.full(N, 3.0 / N), np.full(M, -2.0 / M)]
    assert _simplex_qp_active(K, u, np.arange(N, N + M), max_swaps=1) is None


def _assert_simplex_kkt(K, u, v):
    """``v`` is the optimum of ``min (v - u)^T K (v - u)`` over the simplex (the problem is
    convex, so its KKT conditions are sufficient): primal feasibility (``v >= 0`` exactly --
    the solvers set points off the support to 0 -- and ``sum v = 1`` to 1e-12, the rounding
    of a sum of a few hundred terms of size <= 1), complementary slackness (the gradient
    ``g = 2 K (v - u)`` equal on the support) and dual feasibility (no smaller gradient off
    it). The gradient tolerance is the one both active-set solvers accept their own points
    with (multipliers on the support at most ``1e-9 * scale``, ``scale = 1 + max |K u|``):
    a correct solve's residual is rounding, ``n * eps * scale`` ~ 1e-13 * scale here."""
    scale = 1.0 + float(np.abs(K @ u).max())
    assert v.min() >= 0.0 and v.sum() == pytest.approx(1.0, abs=1e-12)
    g = 2 * K @ (v - u)
    on = v > 0
    assert np.ptp(g[on]) < 1e-9 * scale
    assert g[~on].min(initial=np.inf) >= g[on].max() - 1e-9 * scale


def test_block_pivoting_hand_over_still_gives_the_exact_qp_solution():
    """3 features and a wide kernel, where block pivoting stalls (the count of infeasible
    indices stops falling) and hands the QP to the primal active set: the curve's solution
    is the QP's exact optimum (KKT conditions), the primal method's from the mixture's
    weights (the curve's first warm start) and the interior point's d (exact to about the
    square root of its duality gap, 1e-11). How many factorisations of ``K_SS`` block
    pivoting spends before it gives up depends on the BLAS's rounding (10 to 54 across
    OpenBLAS kernels), so it is not asserted; when it does finish, its point must be the
    same optimum."""
    rng = np.random.default_rng(0)
    N, M, lam = 200, 100, 3.0
    _, K, _ = km_kernel(rng.normal(0, 1, (N, 3)), rng.normal(0.8, 1, (M, 3)), width_factors=(1.0,))
    u = np.r_[np.full(N, lam / N), np.full(M, (1 - lam) / M)]
    curve = _DistanceCurve(None, N, M, K=K)
    d = curve(lam)
    assert curve.n_fallback == 0
    v = curve.solutions[lam]
    _assert_simplex_kkt(K, u, v)
    assert d == pytest.approx(math.sqrt((v - u) @ K @ (v - u)), rel=1e-12)
    d2_p, v_p = _simplex_qp_primal(K, u, np.r_[np.full(N, 1 / N), np.zeros(M)])
    # the optimum is unique: K on its support (7 points) has condition number ~6e3 and the
    # smallest weight there is 0.027, so two exact solves differ by ~cond * eps ~ 1e-12
    np.testing.assert_allclose(v, v_p, rtol=0, atol=1e-9)
    assert d == pytest.approx(math.sqrt(d2_p), rel=1e-9)
    assert d == pytest.approx(math.sqrt(_simplex_qp_ipm(K, u)), abs=5e-6)
    res = _simplex_qp_active(K, u, np.arange(N))
    if res is not None:
        _assert_simplex_kkt(K, u, res[1])
        np.testing.assert_allclose(res[1], v_p, rtol=0, atol=1e-9)


def test_cholesky_updates_match_a_fresh_factor():
    """Appending points one at a time, removing one from the middle and solving with the
    updated factor give the factor and solutions of K_SS computed from scratch; a point in
    the span of the others is refused."""
    rng = np.random.default_rng(3)
    A = rng.normal(size=(20, 20))
    K = A @ A.T + np.eye(20)
    L, S = np.zeros((20, 20)), []
    for j in range(10):
        assert chol_append(L, len(S), K[S, j] if S else np.empty(0), K[j, j], 1e-12)
        S.append(j)
    np.testing.assert_allclose(L[:10, :10], np.linalg.cholesky(K[:10, :10]), atol=1e-10)
    chol_delete(L, 10, 3)
    del S[3]
    np.testing.assert_allclose(L[:9, :9], np.linalg.cholesky(K[np.ix_(S, S)]), atol=1e-10)
    assert not L[9].any() and not np.triu(L[:9, :9], 1).any()
    b = rng.normal(size=9)
    y = np.zeros(9)
    forward_from(L, 9, b, y, 0)
    np.testing.assert_allclose(back_solve(L, 9, y), np.linalg.solve(K[np.ix_(S, S)], b), rtol=1e-9)
    y_part = y.copy()
    y_part[4:] = 0.0
    forward_from(L, 9, b, y_part, 4)  # only rows 4.. redone
    np.testing.assert_array_equal(y_part, y)
    B = rng.normal(size=(3, 5))  # rank 3: the fourth point is in the span of the first three
    K3 = B.T @ B
    L3 = np.zeros((5, 5))
    for j in range(3):
        assert chol_append(L3, j, K3[:j, j], K3[j, j], 1e-12)
    assert not chol_append(L3, 3, K3[:3, 3], K3[3, 3], 1e-12)


def _nearly_singular_kernel(N=160, M=90, seed=11):
    """4 features and a wide kernel (width factor 3.16): eigenvalues fall to rounding level."""
    rng = np.random.default_rng(seed)
    Xm, Xc = rng.normal(0, 1, (N, 4)), rng.normal(0.8, 1, (M, 4))
    _, K, _ = km_kernel(Xm, Xc, width_factors=(3.16,))
    ev = np.linalg.eigvalsh(K)
    assert ev[0] < 1e-12 * ev[-1]
    return K, N, M


@pytest.mark.parametrize("lam", [1.05, 2.0, 6.0])
def test_primal_active_set_solves_a_nearly_singular_kernel(lam):
    """Where block pivoting gives up (K_SS not accurately factorable), the primal active
    set, from the mixture's uniform weights, reaches the KKT point with the interior
    point's d (or below it: the interior point is exact only to sqrt of its gap); started
    at the optimum it stops at once."""
    K, N, M = _nearly_singular_kernel()
    u = np.r_[np.full(N, lam / N), np.full(M, (1 - lam) / M)]
    assert _simplex_qp_active(K, u, np.arange(N)) is None
    d2, v = _simplex_qp_primal(K, u, np.r_[np.full(N, 1 / N), np.zeros(M)])
    assert v.min() >= 0.0 and v.sum() == pytest.approx(1.0, abs=1e-12)
    g = 2 * K @ (v - u)
    on = v > 0
    assert np.ptp(g[on]) < 1e-8
    assert g[~on].min() >= g[on].max() - 1e-8
    d_ipm = math.sqrt(_simplex_qp_ipm(K, u))
    assert math.sqrt(d2) == pytest.approx(d_ipm, abs=5e-6) and math.sqrt(d2) <= d_ipm + 1e-9
    d2_again, _ = _simplex_qp_primal(K, u, v, max_iter=1)
    assert d2_again == pytest.approx(d2, rel=1e-9, abs=1e-15)
    assert _simplex_qp_primal(K, u, np.r_[np.full(N, 1 / N), np.zeros(M)], max_iter=1) is None


def test_curve_on_a_nearly_singular_kernel_needs_no_interior_point():
    """The curve hands the QPs block pivoting cannot solve to the primal method, warm
    started from the nearest solution: no interior-point fallback, the same distances."""
    K, N, M = _nearly_singular_kernel()
    curve = _DistanceCurve(None, N, M, K=K)
    for lam in (1.05, 1.5, 3.0, 3.02):
        u = np.r_[np.full(N, lam / N), np.full(M, (1 - lam) / M)]
        assert curve(lam) == pytest.approx(math.sqrt(_simplex_qp_ipm(K, u)), abs=5e-6)
    assert curve.n_fallback == 0 and curve.n_primal >= 1 and not curve.block_pivoting


def test_repeated_points_are_merged_with_the_same_distances():
    """Repeated points make K singular; km_estimate solves the QP on the distinct points
    with summed weights: the same d as the interior-point method on all points, with no
    fallback, and d(1) = 0 exactly."""
    rng = np.random.default_rng(9)
    Xm, Xc = rng.normal(0, 1, (150, 30)), rng.normal(0.4, 1, (100, 30))
    Xm[1] = Xm[0]
    Xc[5] = Xm[2]
    Xc[7] = Xc[6]
    res = km_estimate(Xm, Xc)
    assert res["solver"] == "active-set"
    _, K, _ = km_kernel(Xm, Xc)
    assert res["curve"][1.0] == 0.0
    for lam in sorted(res["curve"])[1:6]:
        u = np.r_[np.full(150, lam / 150), np.full(100, (1 - lam) / 100)]
        assert res["curve"][lam] == pytest.approx(math.sqrt(_simplex_qp_ipm(K, u)), abs=5e-6)


def test_distance_curve_is_convex_and_starts_at_zero(fits):
    curve = fits[0.5, 0][2].distance_curve_
    lams = np.array(sorted(curve))
    d = np.array([curve[x] for x in lams])
    assert lams[0] == 1.0 and d[0] < 1e-6
    assert np.all(np.diff(d) >= -1e-9)  # non-decreasing
    slopes = np.diff(d) / np.diff(lams)
    mids = (lams[1:] + lams[:-1]) / 2
    order = np.argsort(mids)
    assert np.all(np.diff(slopes[order]) >= -1e-6)  # convex


# --------------------------------------------------------------------------- thresholds
def test_thresholds_are_the_authors(fits):
    est = fits[0.5, 0][2]
    km2 = 0.8 * est.initial_slope_ + 0.2 * est.d_inf_
    assert est.threshold_ == pytest.approx(km2)
    n_min = min(est.n_mixture_used_, est.n_component_used_)
    km1 = 1 / math.sqrt(n_min) if 1 / math.sqrt(n_min) / est.d_inf_ <= 0.9 else km2
    res = km_estimate(*(lambda X, s: (X[s == 0], X[s == 1]))(*fits[0.5, 0][:2]))
    assert res["threshold"]["km1"] == pytest.approx(km1)
    assert res["kappa"] == pytest.approx(est.kappa_)
    assert est.thresholds_ == pytest.approx(res["threshold"]) and est.thresholds_[est.variant] == est.threshold_


def test_bisection_returns_the_kink_within_epsilon(fits):
    """lambda_hat brackets the first lambda whose finite-difference slope exceeds the
    threshold: at lambda_hat - epsilon the slope is at most the threshold, at
    lambda_hat + epsilon above it (d is convex)."""
    X, s, est = fits[0.5, 1]
    res = km_estimate(X[s == 0], X[s == 1], variants=("km2",))
    curve = _DistanceCurve(_pivoted_cholesky(km_kernel(X[s == 0], X[s == 1])[1]), int((s == 0).sum()),
                           int(s.sum()))
    lam, thr, h = res["lambda"]["km2"], res["threshold"]["km2"], 0.02
    slope = lambda x: (curve(x + h) - curve(x)) / h  # noqa: E731
    assert slope(lam - 0.04) <= thr + 1e-9
    assert slope(lam + 0.04) > thr


def test_km1_and_km2_are_ordered_like_their_thresholds(fits):
    """The estimate grows with the threshold (d convex), so KM1 >= KM2 exactly when KM1's
    threshold 1/sqrt(min(N, M)) is at least KM2's (the paper does not order them otherwise)."""
    for _, _, est in fits.values():
        dk = est.kappa_["km1"] - est.kappa_["km2"]
        dt = est.thresholds_["km1"] - est.thresholds_["km2"]
        assert dk * dt >= 0 or abs(dk) < 1e-12


# --------------------------------------------------------------------------- recovery
@pytest.mark.parametrize("alpha, tol", [(0.2, 0.05), (0.5, 0.05), (0.8, 0.15)])
def test_km2_recovers_the_mixture_proportion(fits, alpha, tol):
    """600 unlabeled / 400 labeled rows, 2-D Gaussians 3 apart per axis: KM2 within 0.05 at
    alpha = 0.2 and 0.5 and within 0.15 at 0.8, where it underestimates (six seeds gave
    0.19-0.21, 0.47-0.51 and 0.67-0.79; with 1,000 / 600 rows 0.72-0.81)."""
    for seed in (0, 1):
        assert abs(fits[alpha, seed][2].alpha_ - alpha) < tol, (alpha, seed, fits[alpha, seed][2].alpha_)


def test_km1_recovers_the_mixture_proportion_more_loosely(fits):
    """KM1 (threshold 1/sqrt(min(N, M))) within 0.12 on the same samples."""
    for (alpha, seed), (_, _, est) in fits.items():
        assert abs(est.kappa_["km1"] - alpha) < 0.12, (alpha, seed, est.kappa_)


def test_estimate_is_capped_by_the_bracket():
    X, s = two_gaussians(0.97, 300, 200, 0)
    est = KMPriorEstimator(random_state=0).fit(X, s)
    assert est.alpha_ <= 1 - 1 / 8 + 1e-12


# --------------------------------------------------------------------------- interface
def test_alpha_prior_c_follow_the_base_class(fits):
    X, s, est = fits[0.2, 0]
    l = s.mean()
    assert est.alpha_ == pytest.approx(est.kappa_["km2"])
    assert est.prior_ == pytest.approx(l + est.alpha_ * (1 - l))
    assert est.c_ == pytest.approx(l / est.prior_)
    assert est.labeled_fraction_ == pytest.approx(l)


def test_registry_names_select_the_variant(fits):
    X, s, est = fits[0.8, 0]
    km1 = registry.make_estimator("km1", random_state=0)
    km2 = registry.make_estimator("km2", random_state=0)
    assert km1.variant == "km1" and km2.variant == "km2"
    assert km1.fit(X, s).alpha_ == pytest.approx(est.kappa_["km1"])
    assert km2.fit(X, s).alpha_ == pytest.approx(est.kappa_["km2"])


def test_subsampling_is_seeded_and_capped():
    X, s = two_gaussians(0.5, 500, 300, 4)
    a = KMPriorEstimator(max_samples=200, random_state=5).fit(X, s)
    b = KMPriorEstimator(max_samples=200, random_state=5).fit(X, s)
    c = KMPriorEstimator(max_samples=200, random_state=6).fit(X, s)
    assert (a.n_mixture_used_, a.n_component_used_) == (125, 75)  # 200 rows in the proportions 500 : 300
    assert a.alpha_ == b.alpha_ and a.distance_curve_ == b.distance_curve_
    assert a.distance_curve_ != c.distance_curve_
    # below the cap the estimate does not depend on the seed
    full = [KMPriorEstimator(max_samples=800, random_state=r).fit(X, s).alpha_ for r in (0, 1)]
    assert full[0] == full[1]


def test_row_order_does_not_matter_without_subsampling():
    X, s = two_gaussians(0.5, 200, 150, 2)
    perm = np.random.default_rng(0).permutation(len(s))
    a = KMPriorEstimator(max_samples=None).fit(X, s).alpha_
    # the kernel and the QP are invariant to the order within each sample
    b = KMPriorEstimator(max_samples=None).fit(X[perm], s[perm]).alpha_
    assert a == pytest.approx(b, abs=1e-9)


def test_bad_input_is_refused():
    X, s = two_gaussians(0.5, 50, 30, 0)
    with pytest.raises(ValueError, match="variant"):
        KMPriorEstimator(variant="km3").fit(X, s)
    with pytest.raises(ValueError, match="max_samples"):
        KMPriorEstimator(max_samples=1).fit(X, s)
    with pytest.raises(ValueError, match="lambda_upper"):
        KMPriorEstimator(lambda_upper=1.0).fit(X, s)
    with pytest.raises(ValueError, match="NaN|nan|infinity"):
        Xn = X.copy()
        Xn[0, 0] = np.nan
        KMPriorEstimator().fit(Xn, s)
    with pytest.raises(ValueError, match="labeled"):
        KMPriorEstimator().fit(X, np.zeros(len(s), int))
    s1 = np.zeros(len(s), int)
    s1[0] = 1
    with pytest.raises(ValueError, match="at least 2"):
        KMPriorEstimator().fit(X, s1)


def test_the_qp_solvers_run_blas_on_one_thread(monkeypatch):
    """The curve's QPs (and the kernel factor) run with BLAS limited to one thread (module
    docstring, "Threads"), and the limit is lifted afterwards."""
    from threadpoolctl import threadpool_info

    import pu_lib.prior.km as km

    seen = []
    solve = km._simplex_qp_active

    def spy(*args, **kwargs):
        seen.append({i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"})
        return solve(*args, **kwargs)

    monkeypatch.setattr(km, "_simplex_qp_active", spy)
    K, N, M = _full_rank_kernel()
    before = {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}
    _DistanceCurve(None, N, M, K=K)(2.0)
    assert seen == [{1}]
    assert {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"} == before
