"""PE (du Plessis & Sugiyama 2014; pu_lib.prior.pe) and pen-L1 (du Plessis, Niu & Sugiyama
2015; pu_lib.prior.pen_l1): the authors' settings, the closed forms and the cross-validation
against direct re-computations, recovery of known mixture proportions, PE's upward bias on
overlapping classes that pen-L1 removes, determinism and bad input."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest

from conftest import mixture_sample
from pu_lib._seeding import check_random_state
from pu_lib.prior import PEPriorEstimator, PenL1PriorEstimator
from pu_lib.prior._gauss_basis import cv_folds
from pu_lib.prior.pe import PE_DEFAULTS, pe_estimate
from pu_lib.prior.pen_l1 import PEN_L1_DEFAULTS, pen_l1_estimate, prior_grid

separated = partial(mixture_sample, shift=3.0)  # means 4.2 apart in 2-D: little overlap
overlapping = partial(mixture_sample, shift=1.5)  # means 2.1 apart: the classes overlap


def _sq(A, B):
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)


# --------------------------------------------------------------------------- authors' settings
def test_defaults_are_the_authors_settings():
    # PEPriorEst (MATLAB): sigma_list = linspace(1/5, 5, 10) * med_dist, lambda_list = logspace(-3, 1, 9), 5 folds
    np.testing.assert_allclose(PE_DEFAULTS["sigma_factors"], np.linspace(0.2, 5, 10))
    np.testing.assert_allclose(PE_DEFAULTS["lambdas"], np.logspace(-3, 1, 9))
    # PenL1CP (MATLAB): sigma_list = sqrt(median(du(:))) * logspace(-2, 1, 10), lambda_list = logspace(-3, 1, 10),
    # n_basis 300, 5 folds, prior_list 0.05:.05:.95 (ours: step 0.01, documented deviation)
    np.testing.assert_allclose(PEN_L1_DEFAULTS["sigma_factors"], np.logspace(-2, 1, 10))
    np.testing.assert_allclose(PEN_L1_DEFAULTS["lambdas"], np.logspace(-3, 1, 10))
    assert PEN_L1_DEFAULTS["n_basis"] == 300 and PEN_L1_DEFAULTS["n_folds"] == PE_DEFAULTS["n_folds"] == 5
    np.testing.assert_allclose(prior_grid(0.05), np.arange(1, 20) * 0.05)
    np.testing.assert_allclose(prior_grid(0.01), np.arange(1, 100) * 0.01)
    for cls, defaults in ((PEPriorEstimator, PE_DEFAULTS), (PenL1PriorEstimator, PEN_L1_DEFAULTS)):
        est = cls()
        assert est.sigma_factors == defaults["sigma_factors"] and est.lambdas == defaults["lambdas"]
        assert est.n_basis == defaults["n_basis"] and est.n_folds == 5
    assert PenL1PriorEstimator().prior_step == 0.01


# --------------------------------------------------------------------------- closed forms
def test_pe_closed_form_matches_the_authors_formulas():
    """One width, one lambda, every labeled row a centre (n_P <= n_basis), every pair in the
    median (n <= 2000): theta = 1 / (2 a'h - a'Ha) with the authors' H = p1 Phi_P Phi_P' / n_P
    + (1 - p1) Phi_U Phi_U' / n_U, p1 = n_P / (n_P + n_U)."""
    X, s = separated(0.4, 120, 60, 0)
    Xp, Xu = X[s == 1], X[s == 0]
    res = pe_estimate(Xp, Xu, sigma_factors=(1.0,), lambdas=(0.05,), random_state=0)
    pooled = np.vstack([Xp, Xu])
    sigma = math.sqrt(np.median(_sq(pooled, pooled)))
    assert res["sigma"] == pytest.approx(sigma) and res["lambda"] == 0.05 and res["n_basis"] == 60
    Pp = np.exp(-_sq(Xp, Xp) / (2 * sigma**2))
    Pu = np.exp(-_sq(Xu, Xp) / (2 * sigma**2))
    n1, n2 = len(Xp), len(Xu)
    p1 = n1 / (n1 + n2)
    H = p1 * Pp.T @ Pp / n1 + (1 - p1) * Pu.T @ Pu / n2
    h = Pp.mean(axis=0)
    a = np.linalg.solve(H + 0.05 * np.eye(n1), h)
    theta = 1 / (2 * a @ h - a @ H @ a)
    assert res["theta"] == pytest.approx(theta, rel=1e-9)
    assert res["divergence"] == pytest.approx(theta**2 * (a @ h - a @ H @ a / 2) - theta + 0.5, abs=1e-9)


def test_pe_cross_validation_matches_a_direct_loop():
    """The CV table equals the authors' loop: per fold the basis functions sit on the
    training fold's labeled rows, a = (H_tr + lambda I)^{-1} h_tr, score 1/2 a'H_te a - a'h_te
    summed over folds (the same folds: cv_folds from the same seeded generator)."""
    X, s = overlapping(0.5, 80, 40, 1)
    Xp, Xu = X[s == 1], X[s == 0]
    sf, lams = (0.5, 1.0, 2.0), (0.01, 0.1, 1.0)
    res = pe_estimate(Xp, Xu, sigma_factors=sf, lambdas=lams, random_state=7)
    rng = check_random_state(7)  # n <= 2000: the median draws nothing from the generator
    fp, fu = cv_folds(len(Xp), 5, rng), cv_folds(len(Xu), 5, rng)
    pooled = np.vstack([Xp, Xu])
    med = math.sqrt(np.median(_sq(pooled, pooled)))
    ref = np.zeros((3, 3))
    for i, f in enumerate(sf):
        sig = f * med
        for k in range(5):
            xp_tr, xp_te, xu_tr, xu_te = Xp[fp != k], Xp[fp == k], Xu[fu != k], Xu[fu == k]
            phi = lambda Z: np.exp(-_sq(Z, xp_tr) / (2 * sig**2))  # noqa: E731
            p_tr = len(xp_tr) / (len(xp_tr) + len(xu_tr))
            p_te = len(xp_te) / (len(xp_te) + len(xu_te))
            H_tr = p_tr * phi(xp_tr).T @ phi(xp_tr) / len(xp_tr) + (1 - p_tr) * phi(xu_tr).T @ phi(xu_tr) / len(xu_tr)
            H_te = p_te * phi(xp_te).T @ phi(xp_te) / len(xp_te) + (1 - p_te) * phi(xu_te).T @ phi(xu_te) / len(xu_te)
            h_tr, h_te = phi(xp_tr).mean(0), phi(xp_te).mean(0)
            for j, lam in enumerate(lams):
                a = np.linalg.solve(H_tr + lam * np.eye(len(xp_tr)), h_tr)
                ref[i, j] += a @ H_te @ a / 2 - a @ h_te
    np.testing.assert_allclose(res["cv_scores"], ref, rtol=1e-7, atol=1e-10)
    i, j = np.unravel_index(np.argmin(ref), ref.shape)
    assert res["sigma"] == pytest.approx(sf[i] * med) and res["lambda"] == lams[j]


def test_pen_l1_closed_form_matches_a_direct_computation():
    """One width, one lambda (the code skips CV), every unlabeled row a centre (n_U <=
    n_basis): penL1(theta) = sum_l max(0, beta_l)^2 / lambda - theta + 1 with beta_l = theta
    mean_P phi_l - mean_U phi_l, and theta_hat its first minimiser."""
    X, s = overlapping(0.3, 150, 80, 2)
    Xp, Xu = X[s == 1], X[s == 0]
    res = pen_l1_estimate(Xp, Xu, sigma_factors=(0.5,), lambdas=(0.1,), random_state=3)
    sigma = 0.5 * math.sqrt(np.median(_sq(Xu, Xu)))  # the centres are all unlabeled rows
    mp = np.exp(-_sq(Xp, Xu) / (2 * sigma**2)).mean(0)
    mu = np.exp(-_sq(Xu, Xu) / (2 * sigma**2)).mean(0)
    thetas = prior_grid(0.01)
    beta = thetas[:, None] * mp - mu
    pen = (np.maximum(beta, 0) ** 2).sum(1) / 0.1 - thetas + 1
    np.testing.assert_allclose(res["pen_l1"], pen, rtol=1e-9, atol=1e-12)
    assert res["theta"] == thetas[np.argmin(pen)]
    # below the truth no basis function sees more scaled positive than unlabeled mass: penL1 = 1 - theta
    assert np.allclose(res["pen_l1"][thetas <= 0.15], 1 - thetas[thetas <= 0.15])


def test_pen_l1_cross_validation_picks_per_candidate_the_first_minimum_in_column_major_order():
    """The code's per-candidate choice: score -(1/5) sum_f max(0, beta_tr) . beta_te / lambda,
    first minimum of the (sigma, lambda) table in MATLAB's column-major order."""
    X, s = overlapping(0.5, 200, 100, 3)
    Xp, Xu = X[s == 1], X[s == 0]
    sf, lams = (0.3, 1.0, 3.0), (0.01, 1.0)
    res = pen_l1_estimate(Xp, Xu, sigma_factors=sf, lambdas=lams, random_state=5)
    rng = check_random_state(5)
    centres = rng.choice(len(Xu), len(Xu), replace=False)
    fp, fu = cv_folds(len(Xp), 5, rng), cv_folds(len(Xu), 5, rng)
    med = math.sqrt(np.median(_sq(Xu, Xu[centres])))
    for t_i, theta in enumerate(res["priors"][::7]):
        table = np.zeros((3, 2))
        for i, f in enumerate(sf):
            Kp = np.exp(-_sq(Xp, Xu[centres]) / (2 * (f * med) ** 2))
            Ku = np.exp(-_sq(Xu, Xu[centres]) / (2 * (f * med) ** 2))
            for k in range(5):
                b_tr = theta * Kp[fp != k].mean(0) - Ku[fu != k].mean(0)
                b_te = theta * Kp[fp == k].mean(0) - Ku[fu == k].mean(0)
                for j, lam in enumerate(lams):
                    table[i, j] -= (np.maximum(b_tr, 0) / lam) @ b_te / 5
        idx = np.argmin(table.ravel(order="F"))
        assert res["sigma"][t_i * 7] == pytest.approx(sf[idx % 3] * med)
        assert res["lambda"][t_i * 7] == lams[idx // 3]


# --------------------------------------------------------------------------- recovery
@pytest.mark.parametrize("alpha", [0.2, 0.5, 0.8])
@pytest.mark.slow  # accuracy over several fits: slow tier (the fast tier keeps the API checks)
def test_both_recover_alpha_on_well_separated_classes(alpha):
    """1,000 unlabeled / 500 labeled rows, means 4.2 apart. Tolerances from 10 seeds x 3
    alphas run while writing this test: PE's largest error 0.034 (its upward bias is small
    without overlap), pen-L1's 0.08 (a 0.01 grid and per-candidate CV of the width make it
    noisier); the bounds are about 1.5-2x those, and 0.06 is about 4 binomial standard
    deviations of a proportion from 1,000 rows (sqrt(0.25 / 1000) = 0.016)."""
    for seed in (0, 1):
        X, s = separated(alpha, 1000, 500, seed)
        pe = PEPriorEstimator(random_state=seed).fit(X, s)
        pl = PenL1PriorEstimator(random_state=seed).fit(X, s)
        assert abs(pe.alpha_ - alpha) <= 0.06, (seed, pe.alpha_)
        assert abs(pl.alpha_ - alpha) <= 0.12, (seed, pl.alpha_)
        lf = 500 / 1500
        assert pe.prior_ == pytest.approx(float(np.clip(pe.pe_prior_, lf, 1.0)))  # PE's theta: the pooled prior
        assert pl.alpha_ == pytest.approx(pl.priors_[np.argmin(pl.pen_l1_)])  # pen-L1's theta: the prior of U


@pytest.mark.slow  # accuracy over several fits: slow tier (the fast tier keeps the API checks)
def test_pe_over_estimates_on_overlapping_classes_and_pen_l1_corrects_it():
    """du Plessis, Niu & Sugiyama (2015, section 3): since q >= theta p_P, PE's target
    1 / int p_P^2 / q is at least the true prior, strictly when the classes overlap. Means
    2.1 apart, 1,000 unlabeled / 500 labeled rows, 3 seeds, alpha 0.3 and 0.5: while writing
    this test PE's error was +0.13 to +0.22 on 5 seeds each, pen-L1's -0.04 to +0.11 (mean
    absolute 0.04); the assertions ask for a mean PE bias above 0.08 and pen-L1 closer on
    average."""
    pe_err, pl_err = [], []
    for alpha in (0.3, 0.5):
        for seed in range(3):
            X, s = overlapping(alpha, 1000, 500, seed)
            pe_err.append(PEPriorEstimator(random_state=seed).fit(X, s).alpha_ - alpha)
            pl_err.append(PenL1PriorEstimator(random_state=seed).fit(X, s).alpha_ - alpha)
    pe_err, pl_err = np.array(pe_err), np.array(pl_err)
    assert pe_err.mean() > 0.08 and (pe_err > 0).all(), pe_err
    assert np.abs(pl_err).mean() < np.abs(pe_err).mean(), (pl_err, pe_err)


# --------------------------------------------------------------------------- determinism, input
@pytest.mark.parametrize("cls", [PEPriorEstimator, PenL1PriorEstimator])
def test_same_random_state_same_estimate(cls):
    X, s = overlapping(0.4, 400, 200, 4)
    a = cls(random_state=11).fit(X, s)
    b = cls(random_state=11).fit(X, s)
    assert a.alpha_ == b.alpha_ and a.sigma_ == b.sigma_ and a.lambda_ == b.lambda_
    c = cls(random_state=np.random.RandomState(11)).fit(X, s)
    d = cls(random_state=np.random.RandomState(11)).fit(X, s)
    assert c.alpha_ == d.alpha_


@pytest.mark.parametrize("cls", [PEPriorEstimator, PenL1PriorEstimator])
def test_bad_input_and_parameters_are_refused(cls):
    X, s = overlapping(0.4, 60, 30, 5)
    with pytest.raises(ValueError, match="n_folds"):
        cls(n_folds=1).fit(X, s)
    s4 = np.zeros_like(s)
    s4[:4] = 1
    with pytest.raises(ValueError, match="at least 5 labeled rows"):
        cls().fit(X, s4)
    assert cls(n_folds=3).fit(X[:40], np.r_[np.ones(3, int), np.zeros(37, int)]).alpha_ >= 0  # 3 folds, 3 rows
    s_few_u = np.ones_like(s)
    s_few_u[:4] = 0
    with pytest.raises(ValueError, match="unlabeled rows"):
        cls().fit(X, s_few_u)
    with pytest.raises(ValueError, match="sigma_factors"):
        cls(sigma_factors=(1.0, -1.0)).fit(X, s)
    with pytest.raises(ValueError, match="lambdas"):
        cls(lambdas=()).fit(X, s)
    with pytest.raises(ValueError, match="n_basis"):
        cls(n_basis=0).fit(X, s)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        cls().fit(Xn, s)
    # more than half of the pairs coincide: the median distance is 0 and no width can be set
    Xd = np.zeros_like(X)
    Xd[:5] = np.arange(10).reshape(5, 2)
    with pytest.raises(ValueError, match="median"):
        cls().fit(Xd, s)


def test_pen_l1_prior_step_is_checked():
    X, s = overlapping(0.4, 60, 30, 5)
    with pytest.raises(ValueError, match="prior_step"):
        PenL1PriorEstimator(prior_step=0.7).fit(X, s)
    est = PenL1PriorEstimator(prior_step=0.05, random_state=0).fit(X, s)
    np.testing.assert_allclose(est.priors_, np.arange(1, 20) * 0.05)
