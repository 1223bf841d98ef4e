"""SNAR mechanisms of pu_lib.labeling: by positive subclass (PULSNAR), by exact alpha
(PULSNAR benchmark protocol) and by class probability (thesis section 5.2)."""

from __future__ import annotations

import numpy as np
import pytest
from labeling_data import assert_pu

from pu_lib.labeling import apply_mechanism, pulsnar_alpha, snar_probability, snar_subclass


def _pulsnar_groups(seed=0):
    """5 positive subclasses of 400 (ids 1-5) plus 6000 negatives (id 0), PULSNAR-style."""
    rng = np.random.default_rng(seed)
    groups = np.concatenate([np.zeros(6000, int), np.repeat(np.arange(1, 6), 400)])
    perm = rng.permutation(groups.shape[0])
    groups = groups[perm]
    return (groups > 0).astype(int), groups


# ----------------------------------------------------------------------------- snar_subclass


def test_snar_subclass_labels_the_exact_count_of_every_subclass():
    y, groups = _pulsnar_groups()
    # unlabeled positive shares 1/31, 2/31, 4/31, 8/31, 16/31 of 620 unlabeled positives
    n_unlab = {g: 620 * 2 ** (g - 1) // 31 for g in range(1, 6)}
    counts = {g: 400 - n_unlab[g] for g in range(1, 6)}
    assert counts == {1: 380, 2: 360, 3: 320, 4: 240, 5: 80}
    res = snar_subclass(y, groups, counts, random_state=0)
    assert_pu(res, y)
    for g in range(1, 6):
        assert res.s[groups == g].sum() == counts[g]
        np.testing.assert_allclose(res.propensity[groups == g], counts[g] / 400)
    assert np.all(np.isnan(res.propensity[groups == 0]))
    assert res.params["n_labeled_per_group"] == {str(g): counts[g] for g in range(1, 6)}
    # int for all subclasses; string keys (as from JSON configs) also work
    r_int = snar_subclass(y, groups, 50, random_state=0)
    assert [int(r_int.s[groups == g].sum()) for g in range(1, 6)] == [50] * 5
    r_str = snar_subclass(y, groups, {str(g): 10 * g for g in range(1, 6)}, random_state=0)
    assert [int(r_str.s[groups == g].sum()) for g in range(1, 6)] == [10, 20, 30, 40, 50]
    # a zero count is allowed for a subclass
    r0 = snar_subclass(y, groups, {1: 0, 2: 5, 3: 5, 4: 5, 5: 5}, random_state=0)
    assert r0.s[groups == 1].sum() == 0


def test_snar_subclass_rejects_missing_unknown_and_too_large_counts():
    y, groups = _pulsnar_groups()
    with pytest.raises(ValueError, match="no entry for positive subclass"):
        snar_subclass(y, groups, {1: 5, 2: 5}, random_state=0)
    with pytest.raises(ValueError, match="only 400 positives"):
        snar_subclass(y, groups, 401, random_state=0)
    with pytest.raises(ValueError, match="unknown positive subclass"):
        snar_subclass(y, groups, {g: 1 for g in range(1, 7)}, random_state=0)
    with pytest.raises(ValueError, match="groups"):
        snar_subclass(y, groups[:-1], 5, random_state=0)


# ----------------------------------------------------------------------------- snar_prob


def test_snar_probability_propensity_increases_with_the_class_probability():
    rng = np.random.default_rng(3)
    n = 20000
    X = rng.normal(size=(n, 3))
    y = (rng.random(n) < 1 / (1 + np.exp(-(2 * X[:, 0] - X[:, 1])))).astype(int)
    res = snar_probability(X, y, random_state=0)
    assert_pu(res, y)
    assert res.params["fit"] == "in-sample"
    assert res.propensity.min() == pytest.approx(0.2) and res.propensity.max() == pytest.approx(0.8)
    from sklearn.linear_model import LogisticRegression

    prob = LogisticRegression(max_iter=1000).fit(X, y).predict_proba(X)[:, 1]
    pos = y == 1
    q1, q3 = np.quantile(prob[pos], [0.25, 0.75])
    low, high = pos & (prob <= q1), pos & (prob >= q3)
    assert res.s[high].mean() > res.s[low].mean() + 0.2
    # e is an increasing function of the class probability
    order = np.argsort(prob)
    assert np.corrcoef(prob[order], res.propensity[order])[0, 1] > 0.999
    # custom estimator
    from sklearn.tree import DecisionTreeClassifier

    r2 = snar_probability(X, y, estimator=DecisionTreeClassifier(max_depth=3), random_state=0)
    assert r2.params["estimator"] == "DecisionTreeClassifier"
    assert r2.propensity.min() == pytest.approx(0.2)


# ----------------------------------------------------------------------------- pulsnar_alpha


@pytest.mark.parametrize("alpha", [0.0, 0.01, 0.05, 0.2, 0.5])
def test_pulsnar_alpha_gives_the_exact_unlabeled_fraction(alpha):
    # PULSNAR protocol: n_neg * a / (1 - a) positives moved to U, all negatives unlabeled
    y = np.r_[np.ones(3000, int), np.zeros(2000, int)]
    r = pulsnar_alpha(y, alpha, random_state=0)
    k = {0.0: 0, 0.01: 20, 0.05: 105, 0.2: 500, 0.5: 2000}[alpha]  # round(2000 a / (1 - a))
    u = r.s == 0
    assert int(u.sum()) == 2000 + k and int(y[u].sum()) == k
    assert not np.any(r.s[y == 0])
    assert y[u].mean() == pytest.approx(alpha, abs=1e-3)
    assert np.allclose(r.propensity, (3000 - k) / 3000)


def test_pulsnar_alpha_snar_shares_double_by_subclass_size():
    y = np.r_[np.ones(3000, int), np.zeros(5000, int)]
    g = np.r_[np.repeat([7, 8, 9], [1500, 500, 1000]), np.zeros(5000, int)]
    r = pulsnar_alpha(y, 0.2, snar=True, groups=g, random_state=1)
    u = r.s == 0
    assert y[u].mean() == pytest.approx(0.2)
    # k = 1250 split 1:2:4 by ascending size (8: 500, 9: 1000, 7: 1500)
    assert r.params["unlabeled_per_subclass"] == {"7": 714, "8": 179, "9": 357}
    for cls, k in ((7, 714), (8, 179), (9, 357)):
        m = g == cls
        assert int((m & u).sum()) == k
        assert np.allclose(r.propensity[m], 1 - k / m.sum())
    # labeled and unlabeled positives have different subclass mixes (SNAR)
    lab_mix = np.bincount(g[r.s == 1])[[7, 8, 9]] / r.s.sum()
    unl_mix = np.bincount(g[u & (y == 1)], minlength=10)[[7, 8, 9]] / (u & (y == 1)).sum()
    assert np.abs(lab_mix - unl_mix).max() > 0.05


def test_pulsnar_alpha_snar_caps_each_subclass_and_redistributes_the_excess():
    y = np.r_[np.ones(1010, int), np.zeros(1000, int)]
    g = np.r_[np.repeat([1, 2], [10, 1000]), np.zeros(1000, int)]
    r = pulsnar_alpha(y, 0.4, snar=True, groups=g, random_state=0)  # k = 667
    # subclass 1 (10 rows, share 1/3 = 222) gives its cap, 9; subclass 2 the other 658
    assert r.params["unlabeled_per_subclass"] == {"1": 9, "2": 658}
    assert (r.s[g == 1] == 1).sum() == 1


def test_pulsnar_alpha_snar_one_row_subclass_gives_nothing_and_leaves_the_split_unchanged():
    y = np.r_[np.ones(3001, int), np.zeros(5000, int)]
    g = np.r_[np.repeat([7, 8, 9, 4], [1500, 500, 1000, 1]), np.zeros(5000, int)]
    r = pulsnar_alpha(y, 0.2, snar=True, groups=g, random_state=1)
    # the one-row subclass 4 keeps its row labeled; the others split k = 1250 as without it
    assert r.params["unlabeled_per_subclass"] == {"4": 0, "7": 714, "8": 179, "9": 357}
    assert r.s[g == 4].tolist() == [1]


def test_pulsnar_alpha_rejects_infeasible_alpha_and_missing_subclasses():
    y = np.r_[np.ones(100, int), np.zeros(1000, int)]
    with pytest.raises(ValueError, match="needs 1000 unlabeled positives"):
        pulsnar_alpha(y, 0.5)
    with pytest.raises(ValueError, match="'alpha' parameter"):
        pulsnar_alpha(y, 1.0)
    with pytest.raises(ValueError, match="needs groups"):
        pulsnar_alpha(y, 0.05, snar=True)
    with pytest.raises(ValueError, match="at least 2 positive subclasses"):
        pulsnar_alpha(y, 0.05, snar=True, groups=np.zeros(1100, int))
    with pytest.raises(ValueError, match="pulsnar_alpha: groups must be 1-D"):
        pulsnar_alpha(y, 0.05, snar=True, groups=np.zeros(99, int))
    with pytest.raises(ValueError, match="snar"):
        apply_mechanism("pulsnar_alpha", {"alpha": 0.1, "snar": "yes"}, X=None, y=y)
