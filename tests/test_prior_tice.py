"""TIcE (Bekker & Davis 2018; thesis ch. 3, Algorithm 1): formulas (eqs. 3.4-3.6) on
hand-computed subsets, binning, the compiled implementation against the plain-Python
reference (identical splits and estimates), recovery of c, the two bugs of the public
Python-3 port (no splits; estimation subsets taken from the tree fold -- which the
authors' released code does too, and so does the default bound_data="tree"; Algorithm 1
as written is bound_data="estimation"),
determinism, the most-promising variant and parameter validation."""

import math

import numpy as np
import pytest
from sklearn.base import clone

from pu_lib.workflow import registry
from pu_lib._seeding import derive_seed
from pu_lib.prior import TIcE
from tice_reference import reference_bound, reference_delta, tice_reference
from pu_lib.prior.tice import (
    TICE_DEFAULTS,
    bin_features,
    make_folds,
    run_tice,
    tice_delta,
    tice_delta_tr,
    tice_lower_bound,
)


def eq36(T):
    return max(0.025, 1.0 / (1.0 + 0.004 * T))


def scar_data(n, c, seed, frac_pure=0.7, m=6, other_pos=0.2):
    """A binary attribute x0 whose value 1 is a purely positive subdomain covering
    ``frac_pure`` of the rows; elsewhere positives at rate ``other_pos``; SCAR labels."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, m))
    X[:, 0] = rng.random(n) < frac_pure
    y = (X[:, 0] == 1) | (rng.random(n) < other_pos)
    s = (y & (rng.random(n) < c)).astype(int)
    return X, s, y


def random_pu(seed, n, m):
    """Small random PU data with numeric, two-valued, three-valued and constant columns
    and a mostly positive region, for the reference comparison."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, m))
    X[:, 1] = rng.integers(0, 2, n)  # two-valued
    if m > 3:
        X[:, 3] = rng.integers(0, 3, n)  # three values -> numeric bins 0, 2, 3
    if m > 4:
        X[:, 4] = 7.0  # constant, never split
    p = np.where(X[:, 0] > 0.6, 0.95, 0.25) * np.where(X[:, 2] > 0.5, 1.0, 0.6)
    y = rng.random(n) < p
    s = (y & (rng.random(n) < rng.uniform(0.2, 0.8))).astype(int)
    if s.sum() == 0:
        s[0] = 1
    return X, s


# ------------------------------------------------------------------ formulas

def test_lower_bound_hand_computed():
    # eq. 3.5 (c_prior = 0.5): L = 30, T = 40, delta = 0.2
    # 30/40 - 0.5 sqrt(0.8 / (0.2 * 40)) = 0.75 - 0.5 sqrt(0.1)
    assert tice_lower_bound(30, 40, 0.5, 0.2) == pytest.approx(0.75 - 0.5 * math.sqrt(0.1), abs=1e-15)
    assert tice_lower_bound(30, 40, 0.5, 0.2) == pytest.approx(0.5918861169915811, abs=1e-15)
    # eq. 3.4 with c_prior = 0.3: L = 90, T = 100, delta = 0.025
    # 0.9 - sqrt(0.21 * 0.975 / 2.5) = 0.9 - sqrt(0.0819)
    assert tice_lower_bound(90, 100, 0.3, 0.025) == pytest.approx(0.9 - math.sqrt(0.0819), abs=1e-15)
    # c_prior = 0.5 is the worst case: eq. 3.4 <= eq. 3.5 never holds strictly the other way
    for cp in (0.1, 0.3, 0.7, 0.9):
        assert tice_lower_bound(12, 50, cp, 0.1) > tice_lower_bound(12, 50, 0.5, 0.1)
    # c_prior = 1 (or 0) leaves the plain fraction
    assert tice_lower_bound(3, 4, 1.0, 0.1) == 0.75
    assert reference_bound(30, 40, 0.5, 0.2) == tice_lower_bound(30, 40, 0.5, 0.2)
    with pytest.raises(ValueError, match="T"):
        tice_lower_bound(0, 0)


def test_delta_rule_hand_computed():
    # eq. 3.6: max(0.025, 1 / (1 + 0.004 T))
    assert tice_delta(100) == pytest.approx(1 / 1.4, abs=1e-15)
    assert tice_delta(5000) == pytest.approx(1 / 21, abs=1e-15)
    assert tice_delta(9750) == 0.025
    assert tice_delta(20000) == 0.025
    assert tice_delta(1e7) == 0.025
    # T_R generalisation: delta = 1 / (1 + 4 eps^2 T_R), eps = 0.1, T_R = f min(975, 0.1 T)
    assert tice_delta(20000, 0.5) == pytest.approx(1 / (1 + 0.04 * 487.5), abs=1e-15)
    assert tice_delta(1000, 1.5) == pytest.approx(1 / 7, abs=1e-15)
    assert tice_delta(1000, 0.75) == pytest.approx(1 / (1 + 0.04 * 75), abs=1e-15)
    # ... which equals eq. 3.6 for tr_factor = 1, small and large T alike
    for T in [1, 10, 99, 1000, 4321, 9749, 9750, 9751, 10000, 12345, 10**5, 10**6]:
        assert tice_delta_tr(T, 1.0) == pytest.approx(eq36(T), rel=1e-12, abs=0)
        assert tice_delta(T, 1.0) == eq36(T)
        assert reference_delta(T, 1.0) == tice_delta(T, 1.0)
        assert reference_delta(T, 1.3) == tice_delta(T, 1.3)
    # with the rounded cap of the thesis prose (T_R = min(1000, 0.1 T)) it would not:
    assert 1 / (1 + 0.04 * 1000) != pytest.approx(eq36(20000), rel=1e-3)


def test_delta_per_fold_and_fixed_delta():
    X, s, _ = scar_data(2000, 0.5, 0)
    est = TIcE(random_state=0).fit(X, s)
    n_est = [np.sum(est.folds_ != f) for f in range(5)]
    np.testing.assert_array_equal(est.delta_folds_, [eq36(t) for t in n_est])
    est = TIcE(random_state=0, tr_factor=1.5).fit(X, s)
    np.testing.assert_array_equal(est.delta_folds_, [tice_delta_tr(t, 1.5) for t in n_est])
    est = TIcE(random_state=0, delta=0.1).fit(X, s)
    np.testing.assert_array_equal(est.delta_folds_, [0.1] * 5)


# ------------------------------------------------------------------ binning and folds

def test_binning_boundaries():
    # min 0, max 1: scaled values are the raw ones
    x = np.array([0.0, 0.2499999, 0.25, 0.3, 0.4999999, 0.5, 0.7499999, 0.75, 0.9, 1.0])
    two = np.array([3.0, -1.0] * 5)
    const = np.full(10, 2.5)
    wide = x * 8 - 3  # same bins after min-max scaling
    bins, n_values, features = bin_features(np.column_stack([x, const, two, wide]))
    np.testing.assert_array_equal(features, [0, 2, 3])
    np.testing.assert_array_equal(n_values, [4, 2, 4])
    np.testing.assert_array_equal(bins[:, 0], [0, 0, 1, 1, 1, 2, 2, 3, 3, 3])
    np.testing.assert_array_equal(bins[:, 1], [1, 0] * 5)
    np.testing.assert_array_equal(bins[:, 2], bins[:, 0])
    assert bins.dtype == np.uint8 and bins.flags.c_contiguous
    # exactness at the cut points for n_bins = 4, against direct comparisons
    z = np.concatenate([np.linspace(0, 1, 10001), np.nextafter([0.25, 0.5, 0.75], 0),
                        np.nextafter([0.25, 0.5, 0.75], 1)])
    b, _, _ = bin_features(z[:, None])
    np.testing.assert_array_equal(b[:, 0], (z[:, None] >= np.array([0.25, 0.5, 0.75])).sum(1))
    b3, nv3, _ = bin_features(z[:, None], n_bins=3)
    assert nv3[0] == 3 and set(np.unique(b3)) == {0, 1, 2}


def test_make_folds_deals_a_seeded_permutation_into_equal_folds():
    f = make_folds(103, 5, 7)
    np.testing.assert_array_equal(np.bincount(f), [21, 21, 21, 20, 20])
    # the documented derivation: permutation from derive_seed("TIcE.folds", seed, n, n_folds)
    perm = np.random.default_rng(derive_seed("TIcE.folds", 7, 103, 5)).permutation(103)
    expected = np.empty(103, dtype=np.int64)
    expected[perm] = np.arange(103) % 5
    np.testing.assert_array_equal(f, expected)
    assert not np.array_equal(f, make_folds(103, 5, 8))


# ------------------------------------------------------------------ Algorithm 1 by hand

def hand_data():
    # one binary attribute; fold 0: x=1 -> 20 rows, 15 labeled; x=0 -> 20 rows, 2 labeled
    #                       fold 1: x=1 -> 40 rows, 30 labeled; x=0 -> 40 rows, 4 labeled
    x = np.r_[np.ones(20), np.zeros(20), np.ones(40), np.zeros(40)]
    s = np.r_[np.ones(15), np.zeros(5), np.ones(2), np.zeros(18),
              np.ones(30), np.zeros(10), np.ones(4), np.zeros(36)].astype(int)
    folds = np.r_[np.zeros(40, int), np.ones(80, int)]
    return x[:, None], s, folds


def test_algorithm1_hand_computed():
    X, s, folds = hand_data()
    est = TIcE(folds=folds, bound_data="estimation").fit(X, s)
    # fold 0: tree = fold 0, estimation = fold 1 (T_e = 80): delta = 1/1.32, (1-d)/d = 0.32
    # the root splits on x; child x=1 of the estimation data: L = 30, T = 40
    # c_low = 0.75 - sqrt(0.25 * 0.32 / 40) = 0.75 - sqrt(0.002)
    # fold 1: estimation = fold 0 (T_e = 40): (1-d)/d = 0.16; child x=1: L = 15, T = 20
    # c_low = 0.75 - sqrt(0.25 * 0.16 / 20) = 0.75 - sqrt(0.002)
    first = 0.75 - math.sqrt(0.002)
    assert est.c_first_pass_ == pytest.approx(first, abs=1e-14)
    np.testing.assert_allclose(est.delta_folds_, [1 / 1.32, 1 / 1.16], rtol=1e-14)
    # second pass: c_prior = first; both folds give 0.75 - sqrt(cp (1-cp) * 0.008)
    second = 0.75 - math.sqrt(first * (1 - first) * 0.008)
    np.testing.assert_allclose(est.c_folds_, [second, second], rtol=1e-14)
    assert est.raw_estimate_ == pytest.approx(second, abs=1e-14)
    assert est.c_ == pytest.approx(second, abs=1e-14)
    np.testing.assert_array_equal(est.n_splits_, [1, 1])  # x is used up after one split
    # the labeled fraction 51/120 and prior = l / c
    assert est.prior_ == pytest.approx(51 / 120 / second, abs=1e-12)
    # one pass only
    est1 = TIcE(folds=folds, refine=False, bound_data="estimation").fit(X, s)
    assert est1.raw_estimate_ == pytest.approx(first, abs=1e-14)
    assert est1.c_first_pass_ == est1.raw_estimate_


def test_no_split_gives_estimation_fraction():
    X, s, _ = scar_data(1000, 0.5, 1)
    est = TIcE(max_splits=0, random_state=1).fit(X, s)
    expected = [s[est.folds_ != f].mean() for f in range(5)]
    np.testing.assert_allclose(est.c_folds_, expected, rtol=1e-15)
    np.testing.assert_array_equal(est.n_splits_, 0)


def test_n_splits_never_exceeds_max_splits():
    X, s, _ = scar_data(3000, 0.5, 2)
    for m in (1, 3, 7):
        est = TIcE(max_splits=m, random_state=2).fit(X, s)
        assert np.all(est.n_splits_ <= m) and np.all(est.n_splits_ >= 1)


# ------------------------------------------------------------------ the port's bugs

def test_bug1_tice_splits_and_estimates_above_labeled_fraction():
    # the port never split: its c equalled the labeled fraction and its prior was 1
    X, s, y = scar_data(5000, 0.5, 3, frac_pure=0.3)  # prior ~ 0.44, labeled ~ 0.22
    lf = s.mean()
    for mode in ("estimation", "tree"):
        est = TIcE(random_state=3, bound_data=mode).fit(X, s)
        assert np.all(est.n_splits_ > 0)
        assert est.c_ > lf + 0.15
        assert est.prior_ < 0.7
    # Algorithm 1's bounds on 4,000 estimation rows; the tree rows (1,000 per fold) give
    # looser bounds with the same delta, so the default's c is lower (0.39 here)
    est = TIcE(random_state=3, bound_data="estimation").fit(X, s)
    assert abs(est.prior_ - y.mean()) < 0.1


def _region_labeled_in_fold_0_only():
    """Two folds; the region x0 >= 0.75 is fully labeled in fold 0 and unlabeled in fold 1,
    elsewhere 20% of the rows are labeled."""
    rng = np.random.default_rng(4)
    n = 2000
    X = rng.random((n, 2))
    folds = np.r_[np.zeros(n // 2, int), np.ones(n // 2, int)]
    region = X[:, 0] >= 0.75
    s = (rng.random(n) < 0.2).astype(int)
    s[region & (folds == 0)] = 1
    s[region & (folds == 1)] = 0
    return X, s, folds


def test_bug2_estimation_never_uses_tree_fold_labels():
    # region x0 >= 0.75 is fully labeled in fold 0 but has no labeled rows in fold 1.
    # In fold 0 (tree = fold 0, estimation = fold 1) the tree finds the region, but its
    # bound must come from fold 1's rows (L = 0), not from the tree fold's (L = T).
    X, s, folds = _region_labeled_in_fold_0_only()
    est = TIcE(folds=folds, refine=False, bound_data="estimation").fit(X, s)
    assert est.n_splits_[0] > 0
    # every subset of fold 1 has L/T around 0.2 or less, so its bounds stay below 0.3;
    # a leaking implementation finds c_low ~ 0.9 in the region
    assert est.c_folds_[0] < 0.3
    assert est.c_folds_[0] >= s[folds == 1].mean()
    # the same fold against the reference, which builds the estimation subsets from the
    # estimation rows only
    bins, nv, _ = bin_features(X)
    ref = tice_reference(bins, s, nv, folds, refine=False, bound_data="estimation")
    assert est.c_folds_[0] == ref["c_folds"][0]
    # and fold 1 legitimately finds the fully labeled region of its estimation data
    assert est.c_folds_[1] > 0.8


def test_bound_data_tree_computes_bounds_on_the_tree_rows():
    # the data of test_bug2: with bound_data="tree" (the authors' released code) fold 0's
    # region is bounded on its tree rows, all labeled, so c_low is close to 1; the fold's
    # estimate starts from L/T of the estimation data all the same (Algorithm 1 line 6)
    X, s, folds = _region_labeled_in_fold_0_only()
    n, region = X.shape[0], X[:, 0] >= 0.75
    est = TIcE(folds=folds, refine=False, bound_data="estimation").fit(X, s)
    tree = TIcE(folds=folds, refine=False).fit(X, s)  # the default, bound_data="tree"
    # same trees: the option changes which rows are counted, not how the tree grows
    np.testing.assert_array_equal(tree.n_splits_, est.n_splits_)
    T = int((region & (folds == 0)).sum())
    delta = eq36(n // 2)
    assert tree.c_folds_[0] >= 1.0 - math.sqrt(0.25 * (1 - delta) / (delta * T)) - 1e-12
    assert est.c_folds_[0] < 0.3
    # fold 1's tree rows (fold 1) hold no labeled row of the region and about 15% labeled
    # rows elsewhere, so no tree-row bound beats the initial L/T of its estimation rows
    # (fold 0, about 0.4); the region's estimation rows (fold 0) give ~1 by default
    assert tree.c_folds_[1] == s[folds == 0].mean()
    assert est.c_folds_[1] > 0.8
    # no subset at all: the estimate is L/T of the estimation data in both modes. fit
    # refuses X without a varying feature (the estimate would be the trivial bound), so
    # the algorithm is called past fit's input checks
    X1 = np.ones((n, 2))
    for mode in ("estimation", "tree"):
        one = TIcE(folds=folds, refine=False, bound_data=mode)
        with pytest.raises(ValueError, match="every feature of X is constant"):
            one.fit(X1, s)
        one._estimate(X1, s)
        np.testing.assert_array_equal(one.c_folds_, [s[folds == 1].mean(), s[folds == 0].mean()])


def test_tree_grown_on_tree_fold_only():
    # relabeling the estimation folds never changes a fold's tree (first pass)
    X, s = random_pu(5, 1500, 6)
    bins, nv, _ = bin_features(X)
    folds = make_folds(len(s), 5, 5)
    base = run_tice(bins, s, nv, folds, refine=False)
    rng = np.random.default_rng(0)
    for f in range(5):
        s2 = s.copy()
        other = folds != f
        s2[other] = rng.random(other.sum()) < 0.5
        out = run_tice(bins, s2, nv, folds, refine=False)
        np.testing.assert_array_equal(out["split_features"][0][f], base["split_features"][0][f])


# ------------------------------------------------------------------ accuracy

@pytest.mark.parametrize("c", [0.3, 0.5, 0.7])
@pytest.mark.parametrize("mode, share", [("estimation", 0.8), ("tree", 0.2)])
def test_recovers_c_on_pure_positive_subdomain(c, mode, share):
    # the pure subdomain x0 = 1 holds 70% of the 20,000 rows; its bound rows are its
    # estimation rows (4 of 5 folds) or its tree rows (1 fold), so the estimate is c less
    # eq. 3.4's slack on that many rows (delta = 0.025 by eq. 3.6 on 16,000 estimation
    # rows): 0.03 below c with Algorithm 1's bounds, 0.06 with the released code's
    for seed in range(3):
        X, s, y = scar_data(20000, c, 100 + seed)
        est = TIcE(random_state=seed, bound_data=mode).fit(X, s)
        slack = math.sqrt(c * (1 - c) * (1 - 0.025) / (0.025 * 0.7 * 20000 * share))
        assert abs(est.c_ - (c - slack)) <= 0.02, (seed, est.c_, c - slack)
        assert est.c_ < c
        assert np.all(est.n_splits_ > 0)


# ------------------------------------------------------------------ against the reference

# a case without bound_data runs the defaults (bound_data="tree") on both sides
REF_CASES = [
    dict(),
    dict(bound_data="estimation"),
    dict(k=0.0, min_node_size=5, bound_data="estimation"),
    dict(max_splits=4, bound_data="estimation"),
    dict(n_bins=3, k=2.5, bound_data="estimation"),
    dict(tr_factor=0.5, bound_data="estimation"),
    dict(delta=0.2, min_node_size=1, bound_data="estimation"),
    dict(refine=False, min_node_size=25, bound_data="estimation"),
    dict(bound_data="tree", refine=False, min_node_size=3, max_splits=6),
]


@pytest.mark.parametrize("variant", ["max", "most_promising"])
@pytest.mark.parametrize("case", range(len(REF_CASES)))
def test_fast_equals_reference(variant, case):
    params = dict(REF_CASES[case])
    n_bins = params.pop("n_bins", 4)
    for seed in range(3):
        rng = np.random.default_rng(1000 * case + seed)
        n = int(rng.integers(150, 700))
        m = int(rng.integers(3, 8))
        X, s = random_pu(1000 * case + seed, n, m)
        bins, nv, _ = bin_features(X, n_bins)
        n_folds = int(rng.integers(2, 6))
        folds = make_folds(n, n_folds, seed)
        fast = run_tice(bins, s, nv, folds, variant=variant, **params)
        ref = tice_reference(bins, s, nv, folds, variant=variant,
                             **{"bound_data": TICE_DEFAULTS["bound_data"], **params})
        assert fast["c_folds_passes"] == ref["c_folds_passes"]  # identical floats
        assert fast["n_splits"] == ref["n_splits"]
        for p_fast, p_ref in zip(fast["split_features"], ref["split_features"]):
            assert [f.tolist() for f in p_fast] == p_ref
        assert fast["c"] == ref["c"] and fast["c_first_pass"] == ref["c_first_pass"]
        assert fast["delta_folds"] == ref["delta_folds"]
        # and the estimator gives the same with these folds
        est = TIcE(folds=folds, variant=variant, n_bins=n_bins, **params).fit(X, s)
        assert est.raw_estimate_ == ref["c"]
        np.testing.assert_array_equal(est.c_folds_, ref["c_folds"])
        np.testing.assert_array_equal(est.n_splits_, ref["n_splits"])


# ------------------------------------------------------------------ variants, determinism, API

def test_most_promising_never_above_max():
    # with the same c_prior (first pass) and folds the most promising subdomain's bound
    # is one of the bounds the max variant maximises over
    for seed in range(6):
        X, s = random_pu(200 + seed, 1500, 6)
        a = TIcE(random_state=seed, refine=False).fit(X, s)
        b = TIcE(random_state=seed, refine=False, variant="most_promising").fit(X, s)
        np.testing.assert_array_equal(a.folds_, b.folds_)
        np.testing.assert_array_equal(a.n_splits_, b.n_splits_)  # same trees
        assert np.all(b.c_folds_ <= a.c_folds_)
        a2 = TIcE(random_state=seed).fit(X, s)
        b2 = TIcE(random_state=seed, variant="most_promising").fit(X, s)
        assert b2.c_first_pass_ <= a2.c_first_pass_
    # and it works: the most promising subdomain of this data is the pure one
    X, s, _ = scar_data(20000, 0.5, 9)
    b = TIcE(random_state=0, variant="most_promising").fit(X, s)
    assert np.all(b.n_splits_ > 0)
    assert abs(b.c_ - 0.5) <= 0.06


def test_random_state_fixes_the_folds_and_the_estimate():
    X, s, _ = scar_data(4000, 0.4, 11)
    a = TIcE(random_state=5).fit(X, s)
    # the seed fixes the folds (make_folds) and nothing else is random: the estimate is
    # that of Algorithm 1 on those folds
    np.testing.assert_array_equal(a.folds_, make_folds(len(s), 5, 5))
    bins, nv, _ = bin_features(X)
    ref = run_tice(bins, s, nv, a.folds_)
    assert a.raw_estimate_ == ref["c"]
    np.testing.assert_array_equal(a.c_folds_, ref["c_folds"])
    c = TIcE(random_state=6).fit(X, s)
    assert not np.array_equal(a.folds_, c.folds_)
    # a Generator is consumed once for an integer seed
    g = TIcE(random_state=np.random.default_rng(3)).fit(X, s)
    seed = int(np.random.default_rng(3).integers(2**32))
    np.testing.assert_array_equal(g.folds_, make_folds(len(s), 5, seed))


def test_fit_sets_documented_attributes_and_leaves_params_unchanged():
    X, s, _ = scar_data(1500, 0.5, 12)
    folds = make_folds(len(s), 4, 0).astype(np.int32)
    est = TIcE(folds=folds, k=3)
    assert est.get_params()["folds"] is folds and est.get_params()["k"] == 3
    clone(est).fit(X, s)
    est.fit(X, s)
    assert est.folds is folds  # parameters are not modified by fit
    for attr in ("c_", "prior_", "alpha_", "c_folds_", "c_first_pass_", "delta_folds_", "n_splits_",
                 "folds_", "n_features_in_"):
        assert hasattr(est, attr)
    assert est.c_folds_.shape == (4,) and est.n_splits_.shape == (4,)
    np.testing.assert_array_equal(est.folds_, folds)
    assert est.raw_estimate_ == pytest.approx(est.c_folds_.mean(), rel=1e-12)
    assert est.labeled_fraction_ == s.mean()
    assert est.c_ == min(1.0, max(est.labeled_fraction_, est.raw_estimate_))
    assert est.prior_ == pytest.approx(est.labeled_fraction_ / est.c_)
    named = registry.make_estimator("tice", kind="prior", random_state=0)
    assert isinstance(named, TIcE) and named.random_state == 0
    # constant features only: nothing to split, the estimate would be the labeled fraction
    # of the estimation data (prior 1.0), so fit refuses them; the algorithm itself splits
    # nothing
    with pytest.raises(ValueError, match="every feature of X is constant"):
        TIcE(random_state=0).fit(np.ones((50, 3)), s[:50])
    est = TIcE(random_state=0)
    est._estimate(np.ones((50, 3)), s[:50])
    np.testing.assert_array_equal(est.n_splits_, 0)


@pytest.mark.parametrize("params, match", [
    (dict(n_folds=1), "n_folds"),
    (dict(n_folds=2.5), "n_folds"),
    (dict(n_folds=500), "n_folds"),
    (dict(max_splits=-1), "max_splits"),
    (dict(max_splits=2.0), "max_splits"),
    (dict(k=-1), "'k' parameter"),
    (dict(k="5"), "'k' parameter"),
    (dict(k=float("nan")), "'k' parameter"),
    (dict(n_bins=1), "n_bins"),
    (dict(n_bins=256), "n_bins"),
    (dict(min_node_size=0), "min_node_size"),
    (dict(delta=0.0), "delta"),
    (dict(delta=1.5), "delta"),
    (dict(tr_factor=0), "tr_factor"),
    (dict(tr_factor=float("inf")), "tr_factor"),
    (dict(variant="mean"), "variant"),
    (dict(refine="yes"), "refine"),
    (dict(bound_data="test"), "bound_data"),
    (dict(random_state=-1), "random_state"),
    (dict(folds=np.zeros(10, int)), "folds"),
    (dict(folds=np.zeros(100, int)), "folds"),
    (dict(folds=np.arange(100) % 2 * 1.0), "folds"),
    (dict(folds=np.arange(100) % 2 - 1), "folds"),
])
def test_invalid_parameters_raise_value_error_naming_the_parameter(params, match):
    X, s, _ = scar_data(100, 0.5, 13)
    with pytest.raises(ValueError, match=match):
        TIcE(**params).fit(X, s)


def test_invalid_data_raises_value_error_naming_the_problem():
    X, s, _ = scar_data(100, 0.5, 14)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        TIcE().fit(Xn, s)
    Xn[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        TIcE().fit(Xn, s)
    with pytest.raises(ValueError, match="no labeled"):
        TIcE().fit(X, np.zeros(100))
    with pytest.raises(ValueError, match="no unlabeled"):
        TIcE().fit(X, np.ones(100))
    with pytest.raises(ValueError, match="rows"):
        TIcE().fit(X, s[:50])
    with pytest.raises(ValueError, match="2D array"):
        TIcE().fit(X[:, 0], s)
    with pytest.raises(ValueError, match="0 and 1"):
        TIcE().fit(X, s * 2)
