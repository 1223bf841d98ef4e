"""Spy-EM / S-EM (Liu, Lee, Yu & Li 2002) with Gaussian naive Bayes: pu_lib.baselines.spy_em."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB

from pu_lib._rounding import round_half_up
from pu_lib.baselines import SpyEMClassifier
from pu_lib.baselines.spy_em import gaussian_nb_em
from conftest import two_gaussians


@pytest.fixture(scope="module")
def fitted():
    X, s, y = two_gaussians()
    return X, s, y, SpyEMClassifier(random_state=1).fit(X, s)


@pytest.mark.parametrize("ratio", [0.15, 0.1, 0.33])
def test_spies_are_the_stated_share_of_the_labeled_positives(ratio):
    X, s, _ = two_gaussians(n=1000, seed=2)
    se = SpyEMClassifier(spy_ratio=ratio, random_state=0).fit(X, s)
    n_p = int(s.sum())
    assert se.spy_indices_.size == round_half_up(ratio * n_p)
    assert np.all(s[se.spy_indices_] == 1) and np.unique(se.spy_indices_).size == se.spy_indices_.size


def test_reliable_negatives_lie_below_t_and_exclude_the_spies_range(fitted):
    X, s, _, se = fitted
    post, t, rn, spies = se.step1_posterior_, se.threshold_, se.reliable_negative_indices_, se.spy_indices_
    assert not se.reliable_negative_fallback_
    assert np.all(post[rn] < t)
    assert np.all(s[rn] == 0) and np.intersect1d(rn, spies).size == 0
    # RN is every unlabeled non-spy row below t
    np.testing.assert_array_equal(rn, np.flatnonzero((s == 0) & (post < t)))
    # at most the noise share l of the spies fall below t, and t is a spy's posterior
    below = np.sum(post[spies] < t)
    assert below <= np.floor(0.15 * spies.size) and t in post[spies]


@pytest.mark.parametrize("l", [0.0, 0.05, 0.3])
def test_noise_level_bounds_the_spies_below_t(l):
    X, s, _ = two_gaussians(n=1500, seed=3)
    se = SpyEMClassifier(noise_level=l, random_state=0).fit(X, s)
    post = se.step1_posterior_[se.spy_indices_]
    assert np.sum(post < se.threshold_) <= l * se.spy_indices_.size
    if l == 0.0:
        assert se.threshold_ == post.min()


@pytest.mark.parametrize("fix", [True, False])
def test_em_log_likelihood_never_decreases(fix):
    X, s, _ = two_gaussians(n=2000, c=0.2, shift=1.5, seed=4)  # overlapping classes: EM moves for a while
    se = SpyEMClassifier(max_iter=60, step1_max_iter=60, tol=0.0, fix_reliable_negatives=fix,
                         random_state=0).fit(X, s)
    for ll in (se.step1_loglik_, se.loglik_):
        assert ll.size > 3
        assert np.all(np.diff(ll) >= -1e-8 * np.abs(ll[:-1]))
        assert ll[-1] > ll[0]


def test_m_step_is_gaussian_nb_on_hard_labels():
    X, s, _ = two_gaussians(n=500, seed=5)
    thetas, _, posts = gaussian_nb_em(X, s.astype(float), np.zeros(500, bool), 1e-300, max_iter=0)
    log_prior, means, var = thetas[0]
    nb = GaussianNB(var_smoothing=0.0).fit(X, s)
    np.testing.assert_allclose(np.exp(log_prior), nb.class_prior_)
    np.testing.assert_allclose(means, nb.theta_)
    np.testing.assert_allclose(var, nb.var_, rtol=1e-10)
    np.testing.assert_allclose(posts[0], nb.predict_proba(X)[:, 1], rtol=1e-8, atol=1e-12)


def test_selection_rule(fitted):
    X, s, _, se = fitted
    up = np.flatnonzero(se.error_deltas_ > 0)
    assert se.error_deltas_.size == se.n_iter_
    assert se.selected_iteration_ == (int(up[0]) if up.size else se.n_iter_)
    last = SpyEMClassifier(random_state=1, select_classifier=False).fit(X, s)
    assert last.selected_iteration_ == last.n_iter_


def test_deterministic(fitted):
    X, s, _, se = fitted
    again = SpyEMClassifier(random_state=1).fit(X, s)
    np.testing.assert_array_equal(se.predict_proba(X), again.predict_proba(X))
    np.testing.assert_array_equal(se.spy_indices_, again.spy_indices_)
    other = SpyEMClassifier(random_state=2).fit(X, s)
    assert not np.array_equal(se.spy_indices_, other.spy_indices_)


def test_two_gaussians_recovered(fitted):
    X, s, y, se = fitted
    assert (se.predict(X) == y).mean() > 0.97
    rn = se.reliable_negative_indices_
    assert (y[rn] == 0).mean() > 0.9 and rn.size > 0.5 * (y == 0).sum()
    Xt, _, yt = two_gaussians(n=2000, seed=9)
    assert (se.predict(Xt) == yt).mean() > 0.97
    np.testing.assert_allclose(se.decision_function(Xt) >= 0, se.predict(Xt) == 1)


def test_needs_two_labeled_positives():
    X, s, _ = two_gaussians(n=100, seed=0)
    s[:] = 0
    s[0] = 1
    with pytest.raises(ValueError, match="at least 2 labeled positives"):
        SpyEMClassifier(random_state=0).fit(X, s)
