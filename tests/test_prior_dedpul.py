"""DEDPUL (Ivanov 2020; pu_lib.prior.dedpul): the compiled ratio processing against
plain-Python statements of the authors' definitions, the densities against
scipy.stats.gaussian_kde, the EM / dmin estimates, recovery of known proportions, the
alpha / prior / c interface, determinism and bad input."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from scipy.stats import gaussian_kde

from pu_lib.workflow import registry
from pu_lib.prior import DEDPUL
from conftest import mixture_sample
from pu_lib.prior.dedpul import (
    _binned_kde,
    _mean_posteriors,
    dedpul_alpha,
    density_ratio,
    monotonize_trends,
    monotonize_trends_reference,
    rolling_median,
)


two_gaussians = partial(mixture_sample, shift=2.0)


# --------------------------------------------------------------------------- compiled steps
def _median_ref(a, k):
    n = len(a)
    return np.array([np.median(a[i - min(k, i, n - 1 - i): i + min(k, i, n - 1 - i) + 1]) for i in range(n)])


@pytest.mark.parametrize("n, k", [(1, 3), (7, 2), (50, 5), (400, 20), (41, 30)])
def test_rolling_median_shrinks_symmetrically_at_the_ends(n, k):
    a = np.random.default_rng(n).normal(size=n).round(1)  # ties included
    np.testing.assert_array_equal(rolling_median(a, k), _median_ref(a, k))


@pytest.mark.parametrize("coef", [0.2, 0.25, 1.0, 3.0])
@pytest.mark.parametrize("n", [1, 30, 800])
def test_monotonize_trends_matches_the_definition(n, coef):
    rng = np.random.default_rng(n)
    a = np.round(np.cumsum(rng.normal(size=n)) + 3 * rng.normal(size=n), 1)
    np.testing.assert_array_equal(monotonize_trends(a, coef), monotonize_trends_reference(a, coef))


def test_monotonize_trends_keeps_a_peak_for_one_over_coef_smaller_values():
    # a key dies after 1/coef smaller values: with coef 0.25, the 5 is kept for 4 steps
    out = monotonize_trends(np.array([5.0, 1, 1, 1, 1, 1, 1]), 0.25)
    np.testing.assert_array_equal(out, [5, 5, 5, 5, 5, 1, 1])


@pytest.mark.parametrize("bw", [0.05, 0.1])
def test_binned_kde_matches_gaussian_kde(bw):
    rng = np.random.default_rng(0)
    x = np.r_[rng.normal(0, 1, 3000), rng.normal(4, 0.5, 1000)]
    pts = np.sort(rng.choice(x, 400))
    exact = gaussian_kde(x, bw)(pts)
    np.testing.assert_allclose(_binned_kde(x, bw * x.std(ddof=1), pts), exact, rtol=1e-3)


def test_mean_posteriors_by_sorted_sums_match_the_direct_mean():
    r = np.random.default_rng(1).gamma(1.0, 1.0, 500)
    grid = np.arange(0, 1, 0.001)
    direct = np.array([np.maximum(1 - r * (1 - a), 0).mean() for a in grid])
    np.testing.assert_allclose(_mean_posteriors(r, grid), direct, atol=1e-12)


def test_ratio_is_non_increasing_in_the_prediction():
    rng = np.random.default_rng(2)
    yp, yu = rng.beta(2, 5, 300), rng.beta(4, 2, 900)  # y = Pr(U | x): P low, U high
    r = density_ratio(yp, yu)
    order = np.argsort(yu, kind="stable")
    assert np.all(np.diff(r[order]) <= 0)
    assert r.max() <= 50


# --------------------------------------------------------------------------- estimates
def test_dmin_is_the_relaxed_infimum():
    r = np.linspace(0.5, 4.0, 1001)
    alpha, det = dedpul_alpha(r, "dmin")
    q = np.quantile(r, 0.95, method="higher")
    assert alpha == pytest.approx(1 / q)
    assert dedpul_alpha(np.full(10, 0.8), "dmin")[0] == 1.0  # ratio below 1 everywhere: alpha 1


def test_em_converges_to_the_fixed_point_on_a_clean_ratio():
    """A ratio with exactly two values: f_P/f_U = 1/a on a fraction a of U (the positives'
    region, where f_N = 0) and 0 elsewhere -> the mean posterior of N equals alpha_N = 1 - a
    at the fixed point, found by the converge branch."""
    a = 0.3
    r = np.r_[np.full(300, 1 / a), np.zeros(700)]
    alpha, det = dedpul_alpha(r, "em")
    assert det["chosen"] == "converge"
    assert alpha == pytest.approx(a, abs=1e-3)


@pytest.fixture(scope="module")
def fits():
    out = {}
    for alpha in (0.2, 0.5, 0.8):
        X, s = two_gaussians(alpha, 2000, 1000, 0)
        out[alpha] = (X, s, DEDPUL(random_state=0).fit(X, s))
    return out


@pytest.mark.parametrize("alpha", [0.2, 0.5, 0.8])
def test_dedpul_recovers_the_mixture_proportion(fits, alpha):
    """2,000 unlabeled / 1,000 labeled rows, 2-D Gaussians 2 apart per axis, XGBoost
    predictions: within 0.06 (observed 0.236, 0.532, 0.772 and on a second seed 0.236,
    0.550, 0.836)."""
    assert abs(fits[alpha][2].alpha_ - alpha) < 0.06, fits[alpha][2].alpha_


def test_alpha_prior_c_follow_the_base_class(fits):
    X, s, est = fits[0.5]
    l = s.mean()
    assert est.prior_ == pytest.approx(l + est.alpha_ * (1 - l))
    assert est.c_ == pytest.approx(l / est.prior_)
    assert est.ratio_.shape == ((s == 0).sum(),)
    assert est.probs_.shape == s.shape
    # posteriors of the unlabeled rows average to about alpha (the EM fixed point)
    assert est.posterior_.mean() == pytest.approx(est.alpha_, abs=0.02)


def test_dmin_option_and_registry_name(fits):
    X, s, est = fits[0.5]
    dm = DEDPUL(method="dmin", random_state=0).fit(X, s)
    np.testing.assert_array_equal(dm.probs_, est.probs_)  # same classifier, other estimate
    assert dm.alpha_ == pytest.approx(1 / max(np.quantile(est.ratio_, 0.95, method="higher"), 1))
    reg = registry.make_estimator("dedpul", random_state=0).fit(X, s)
    assert reg.alpha_ == est.alpha_


def test_deterministic_for_a_seed_whatever_n_jobs(fits):
    X, s, est = fits[0.2]
    again = DEDPUL(random_state=0, n_jobs=2).fit(X, s)
    assert again.alpha_ == est.alpha_
    np.testing.assert_array_equal(again.ratio_, est.ratio_)


def test_any_classifier_with_predict_proba():
    from sklearn.linear_model import LogisticRegression

    X, s = two_gaussians(0.5, 1000, 500, 3)
    est = DEDPUL(estimator=LogisticRegression(), random_state=0).fit(X, s)
    assert abs(est.alpha_ - 0.5) < 0.1


def test_bad_input_is_refused():
    X, s = two_gaussians(0.5, 100, 50, 0)
    with pytest.raises(ValueError, match="method"):
        DEDPUL(method="mean").fit(X, s)
    with pytest.raises(ValueError, match="bw_mix"):
        DEDPUL(bw_mix=0).fit(X, s)
    with pytest.raises(ValueError, match="xgb_params"):
        DEDPUL(xgb_params={"max_depth": 3}).fit(X, s)
    with pytest.raises(ValueError, match="labeled"):
        DEDPUL().fit(X, np.zeros(len(s), int))
    with pytest.raises(ValueError, match="infinit|inf"):
        Xi = X.copy()
        Xi[0, 0] = np.inf
        DEDPUL().fit(Xi, s)
