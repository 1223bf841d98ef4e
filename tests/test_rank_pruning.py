"""Rank Pruning (Northcutt, Wu & Chuang 2017) for PU data: pu_lib.baselines.rank_pruning."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from pu_lib._seeding import derive_seed
from pu_lib.base_learners import clone_base
from pu_lib.baselines import RankPruningClassifier
from pu_lib.baselines.rank_pruning import (MIN_NUM_PER_CLASS, confident_noise_rates, inverse_noise_rates,
                                           prune_counts)
from pu_lib.oof import cv_probabilities, fold_splits
from conftest import two_gaussians


@pytest.fixture(scope="module")
def fitted():
    X, s, y = two_gaussians(n=6000)
    return X, s, y, RankPruningClassifier(random_state=3).fit(X, s)


def test_rho1_estimates_one_minus_c_and_the_prior(fitted):
    X, s, y, rp = fitted
    c = s[y == 1].mean()
    assert abs(rp.rho1_ - (1 - c)) < 0.03  # 0.011 here; within 0.012 for data seeds 0-5
    assert abs(rp.prior_ - y.mean()) < 0.03  # p_y1 = P(s=1) / (1 - rho1)
    assert rp.rho0_ == 0.0 and rp.pi1_ == 0.0
    assert (rp.predict(X) == y).mean() > 0.97


def test_confident_counts_closed_form():
    # LB = mean g over s=1 = 0.7; rows with g >= 0.7: s=1 (0.9, 0.75) and s=0 (0.85) -> rho1 = 1/3
    # UB = mean g over s=0 = 0.3; rows with g <= 0.3: three with s=0, none with s=1 -> rho0 = 0
    s = np.array([1, 1, 1, 0, 0, 0, 0])
    g = np.array([0.9, 0.75, 0.45, 0.85, 0.1, 0.2, 0.05])
    rho1, rho0 = confident_noise_rates(s, g)
    assert rho1 == pytest.approx(1 / 3) and rho0 == 0.0
    p_y1, pi1, pi0 = inverse_noise_rates(0.25, 0.5)
    assert p_y1 == pytest.approx(0.5) and pi1 == 0.0 and pi0 == pytest.approx(0.5 * 0.5 / 0.75)


def test_per_fold_rho1_from_oof_probabilities(fitted):
    X, s, _, rp = fitted
    seed = 3
    base = clone_base(None, derive_seed(seed, "RankPruningClassifier", "model"))
    g = cv_probabilities(X, s, estimator=base, n_folds=3, random_state=derive_seed(seed, "RankPruningClassifier",
                                                                                    "folds"), scale_pos_weight=None)
    np.testing.assert_array_equal(rp.oof_probabilities_, g)  # the probabilities are pu_lib.oof's
    for k, (_, test) in enumerate(fold_splits(s, 3, derive_seed(seed, "RankPruningClassifier", "folds"))):
        assert np.all(rp.folds_[test] == k)
        lab = s[test] == 1
        lb = g[test][lab].mean()
        above = g[test] >= lb
        assert rp.rho1_fold_[k] == pytest.approx(np.sum(above & ~lab) / np.sum(above))
    assert rp.rho1_ == pytest.approx(rp.rho1_fold_.mean())


def test_pruned_counts_follow_the_formula(fitted):
    X, s, _, rp = fitted
    n1, n0 = int(s.sum()), int((s == 0).sum())
    p_s1 = n1 / s.size
    p_y1 = p_s1 / (1 - rp.rho1_)
    pi0 = rp.rho1_ * p_y1 / (1 - p_s1)
    assert rp.pi0_ == pytest.approx(pi0)
    k0 = max(min(int(pi0 * n0), n0 - MIN_NUM_PER_CLASS), 0)
    assert rp.n_pruned_ == (0, k0) and k0 > 0
    assert rp.pruned_indices_.size == k0 and np.all(s[rp.pruned_indices_] == 0)
    # the pruned rows are the k0 unlabeled rows with the largest out-of-fold g
    g = rp.oof_probabilities_
    kept_u = np.setdiff1d(np.flatnonzero(s == 0), rp.pruned_indices_)
    assert g[rp.pruned_indices_].min() >= g[kept_u].max()


def test_prune_counts_keep_min_per_class():
    assert prune_counts(100, 50, 0.0, 0.9) == (0, 50 - MIN_NUM_PER_CLASS)
    assert prune_counts(100, 50, 0.0, 0.5) == (0, 25)
    assert prune_counts(5, 8, 0.5, 0.5) == (0, 0)


def test_exactly_k0_pruned_with_tied_probabilities():
    X, s, _ = two_gaussians(n=800, seed=1)
    rp = RankPruningClassifier(DecisionTreeClassifier(max_depth=1), random_state=0).fit(X, s)
    assert np.unique(rp.oof_probabilities_).size <= 6  # stumps: few distinct values, many ties
    k1, k0 = prune_counts(int(s.sum()), int((s == 0).sum()), rp.pi1_, rp.pi0_)
    assert rp.n_pruned_ == (k1, k0) and rp.pruned_indices_.size == k0


def test_refit_uses_the_papers_weights(fitted):
    X, s, _, rp = fitted
    keep = np.setdiff1d(np.arange(s.size), rp.pruned_indices_)
    w = np.where(s[keep] == 1, 1 / (1 - rp.rho1_), 1.0)
    np.testing.assert_allclose(rp.sample_weight_, w)
    manual = clone(rp.estimator_).fit(X[keep], s[keep], logisticregression__sample_weight=w,
                                      standardscaler__sample_weight=w)
    np.testing.assert_allclose(rp.predict_proba(X)[:, 1], manual.predict_proba(X)[:, 1], rtol=1e-10)
    unweighted = clone(rp.estimator_).fit(X[keep], s[keep])
    assert not np.allclose(rp.predict_proba(X)[:, 1], unweighted.predict_proba(X)[:, 1])


def test_deterministic_for_a_seed_whatever_n_jobs():
    X, s, _ = two_gaussians(n=1000, seed=2)
    a = RankPruningClassifier(random_state=5, n_jobs=1).fit(X, s)
    b = RankPruningClassifier(random_state=5, n_jobs=2).fit(X, s)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.pruned_indices_, b.pruned_indices_)
    c = RankPruningClassifier(random_state=6).fit(X, s)
    assert not np.array_equal(a.oof_probabilities_, c.oof_probabilities_)


@pytest.mark.parametrize("base", [GaussianNB(), DecisionTreeClassifier(max_depth=3)])
def test_any_base_estimator(base):
    X, s, y = two_gaussians(n=1000, seed=4)
    rp = RankPruningClassifier(base, random_state=0).fit(X, s)
    p = rp.predict_proba(X)
    assert p.shape == (1000, 2) and np.all((p >= 0) & (p <= 1))
    assert type(rp.estimator_) is type(base)
    assert (rp.predict(X) == y).mean() > 0.9


def test_registered_with_a_base():
    from pu_lib.workflow import registry

    assert registry.METHODS["rank_pruning"].takes_base
    est = registry.make_estimator("rank_pruning", {"estimator": GaussianNB()}, random_state=0)
    assert isinstance(est, RankPruningClassifier) and est.n_folds == 3


def test_too_few_rows_for_the_folds():
    X, s, _ = two_gaussians(n=200, seed=0)
    s[:] = 0
    s[:2] = 1
    with pytest.raises(ValueError, match="n_folds=3 needs at least 3 labeled"):
        RankPruningClassifier(random_state=0).fit(X, s)
