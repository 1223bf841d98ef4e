"""SAR mechanism of pu_lib.labeling (Bekker thesis section 5.6.2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from labeling_data import assert_pu, binary_data, make_y

from pu_lib.labeling import sar_bekker, sar_propensity, scale_minus1_1


def test_scale_minus1_1_maps_columns_to_minus1_1_and_constants_to_0():
    X = np.array([[0.0, 5.0, 3.0], [1.0, 5.0, 1.0], [4.0, 5.0, 2.0]])
    Z = scale_minus1_1(X)
    np.testing.assert_allclose(Z[:, 0], [-1.0, -0.5, 1.0])
    np.testing.assert_array_equal(Z[:, 1], 0.0)  # constant column
    np.testing.assert_allclose(Z[:, 2], [1.0, -1.0, 0.0])


def test_sar_propensity_is_the_geometric_mean_of_linear_scores():
    a = np.array([0.0, 1.0, 2.0, 4.0])  # t = 0, .25, .5, 1
    b = np.array([4.0, 2.0, 0.0, 0.0])  # t = 1, .5, 0, 0
    e1 = sar_propensity(a[:, None])
    np.testing.assert_allclose(e1, [0.2, 0.35, 0.5, 0.8])
    np.testing.assert_allclose(sar_propensity(a), e1)  # 1-D = one attribute
    e2 = sar_propensity(np.column_stack([a, b]))
    sa, sb = np.array([0.2, 0.35, 0.5, 0.8]), np.array([0.8, 0.5, 0.2, 0.2])
    np.testing.assert_allclose(e2, np.sqrt(sa * sb))
    np.testing.assert_allclose(e2, [0.4, math.sqrt(0.175), math.sqrt(0.1), 0.4])
    # other p-, p+: p- at the column min, p+ at the column max, exactly
    e3 = sar_propensity(a, p_minus=0.1, p_plus=0.9)
    assert e3[0] == 0.1 and e3[3] == 0.9
    np.testing.assert_allclose(e3, [0.1, 0.3, 0.5, 0.9])


def test_sar_propensity_hits_p_minus_and_p_plus_at_the_extremes_and_halves_constants():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(500, 3))
    # k = 3: the cube root of the product of the three per-column scores, computed here
    t = (Z - Z.min(axis=0)) / (Z.max(axis=0) - Z.min(axis=0))
    np.testing.assert_allclose(sar_propensity(Z), np.cbrt(np.prod(0.2 + 0.6 * t, axis=1)), rtol=1e-12)
    lo, hi = Z.argmin(axis=0), Z.argmax(axis=0)
    e1 = sar_propensity(Z[:, :1])
    assert e1[lo[0]] == 0.2 and e1[hi[0]] == 0.8
    Zc = np.column_stack([Z[:, 0], np.full(500, 3.0)])
    np.testing.assert_allclose(sar_propensity(Zc), np.sqrt(sar_propensity(Z[:, 0]) * 0.5))


def _std_test_matrix(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    b50 = (rng.permutation(n) < n // 2).astype(float)        # scaled std 1.0
    b90 = (rng.permutation(n) < n // 10).astype(float)       # scaled std exactly 0.6
    b95 = (rng.permutation(n) < n // 20).astype(float)       # scaled std 0.436
    unif = rng.random(n)                                      # ~0.577
    norm = rng.normal(size=n)                                 # ~0.27
    const = np.full(n, 7.0)                                   # 0
    b70 = (rng.permutation(n) < 3 * n // 10).astype(float)   # 0.917
    return np.column_stack([b50, b90, b95, unif, norm, const, b70])


def test_sar_random_selection_draws_only_attributes_with_scaled_std_at_least_min_std():
    X = _std_test_matrix()
    stds = scale_minus1_1(X).std(axis=0)
    np.testing.assert_allclose(stds[[0, 1, 2, 5, 6]], [1.0, 0.6, math.sqrt(0.19), 0.0, math.sqrt(0.84)])
    allowed = {0, 1, 6}  # the 90/10 column (std exactly 0.6 up to rounding error) qualifies
    y = make_y(X.shape[0], 600)
    seen = set()
    for seed in range(30):
        res = sar_bekker(X, y, k=2, selection="random", random_state=seed)
        chosen = set(res.params["attributes"])
        assert len(chosen) == 2 and chosen <= allowed
        assert res.params["signs"] == [1, 1] and res.params["n_candidates"] == 3
        seen |= chosen
    assert seen == allowed
    with pytest.raises(ValueError, match="min_std"):
        sar_bekker(X, y, k=4, random_state=0)


def test_sar_correlated_selection_takes_largest_abs_correlation_and_flips_negative_ones():
    rng = np.random.default_rng(1)
    n = 5000
    y = (rng.random(n) < 0.4).astype(int)

    def noisy_copy(flip_prob):
        return np.where(rng.random(n) < flip_prob, 1 - y, y).astype(float)

    strong_pos = noisy_copy(0.1)        # corr ~ +0.8
    strong_neg = 1.0 - noisy_copy(0.15)  # corr ~ -0.7
    weak = noisy_copy(0.4)              # corr ~ +0.2
    noise = (rng.random(n) < 0.5).astype(float)
    weakly_varied = rng.normal(size=n) + 0.3 * y  # correlated, but scaled std < 0.6: never a candidate
    X = np.column_stack([noise, weak, strong_neg, weakly_varied, strong_pos])
    res = sar_bekker(X, y, k=2, selection="correlated", random_state=0)
    attrs, signs = res.params["attributes"], res.params["signs"]
    assert attrs == [4, 2]  # ordered by |corr|
    assert signs == [1, -1]
    Z = scale_minus1_1(X[:, attrs]) * np.array(signs)
    corrs = [np.corrcoef(Z[:, i], y)[0, 1] for i in range(2)]
    assert all(r > 0 for r in corrs)
    np.testing.assert_allclose(res.propensity, sar_propensity(Z))
    res3 = sar_bekker(X, y, k=3, selection="correlated", random_state=0)
    assert res3.params["attributes"] == [4, 2, 1] and res3.params["signs"] == [1, -1, 1]
    # the choice does not depend on the seed
    assert sar_bekker(X, y, k=2, selection="correlated", random_state=9).params["attributes"] == [4, 2]


def test_sar_given_attributes_define_the_propensity_of_every_row():
    X, y = binary_data(n=3000)
    res = sar_bekker(X, y, k=2, attributes=[1, 5], random_state=0)
    assert res.params["attributes"] == [1, 5] and res.params["selection"] == "given"
    expected = sar_propensity(scale_minus1_1(X[:, [1, 5]]))
    np.testing.assert_allclose(res.propensity, expected)  # defined on negatives too
    assert_pu(res, y)
    with pytest.raises(ValueError, match="attributes"):
        sar_bekker(X, y, k=2, attributes=[1], random_state=0)
    with pytest.raises(ValueError, match="attributes"):
        sar_bekker(X, y, k=2, attributes=[1, 99], random_state=0)


def test_sar_empirical_label_frequency_matches_mean_propensity():
    rng = np.random.default_rng(5)
    n = 40000
    X = (rng.random((n, 4)) < 0.5).astype(float) + rng.random((n, 4)) * 0.1
    y = np.zeros(n, dtype=int)
    y[: n // 2] = 1  # n_pos = 20000
    res = sar_bekker(X, y, k=2, random_state=11)
    assert_pu(res, y)
    e_pos = res.propensity[y == 1]
    freq = res.s[y == 1].mean()
    se = math.sqrt(np.sum(e_pos * (1 - e_pos))) / e_pos.shape[0]
    assert abs(freq - e_pos.mean()) < 4 * se
    # labeling really depends on e: high-propensity positives are labeled more often
    hi = e_pos > np.median(e_pos)
    assert res.s[y == 1][hi].mean() > res.s[y == 1][~hi].mean() + 0.1
