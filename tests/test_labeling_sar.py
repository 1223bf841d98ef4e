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


# ----------------------------------------------------------------------------- anticorrelated, k = 0


def _correlated_columns(n=5000, seed=1):
    """Binary columns: one strongly positively, one strongly negatively, one weakly
    correlated with y, plus a noise column."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)

    def noisy_copy(flip_prob):
        return np.where(rng.random(n) < flip_prob, 1 - y, y).astype(float)

    X = np.column_stack([(rng.random(n) < 0.5).astype(float), noisy_copy(0.4), 1.0 - noisy_copy(0.15),
                         noisy_copy(0.1)])
    return X, y


def test_sar_anticorrelated_takes_the_correlated_attributes_with_all_signs_negative():
    X, y = _correlated_columns()
    cor = sar_bekker(X, y, k=2, selection="correlated", random_state=0)
    anti = sar_bekker(X, y, k=2, selection="anticorrelated", random_state=0)
    assert cor.params["attributes"] == anti.params["attributes"] == [3, 2]
    assert cor.params["signs"] == [1, -1] and anti.params["signs"] == [-1, 1]
    assert anti.params["selection"] == "anticorrelated"
    Z = scale_minus1_1(X[:, [3, 2]]) * np.array(anti.params["signs"])
    assert all(np.corrcoef(Z[:, i], y)[0, 1] < -0.5 for i in range(2))
    np.testing.assert_allclose(anti.propensity, sar_propensity(Z))
    assert_pu(anti, y)
    # positives get higher propensities than negatives with correlated, lower with anticorrelated
    for k in (1, 2, 3):
        e_cor = sar_bekker(X, y, k=k, selection="correlated", random_state=0).propensity
        e_anti = sar_bekker(X, y, k=k, selection="anticorrelated", random_state=0).propensity
        assert e_cor[y == 1].mean() > e_cor[y == 0].mean() + 0.1
        assert e_anti[y == 1].mean() < e_anti[y == 0].mean() - 0.1
    # and so do the labels: fewer positives are labeled under anticorrelated selection
    assert anti.label_frequency < cor.label_frequency - 0.1
    with pytest.raises(ValueError, match="selection"):
        sar_bekker(X, y, k=1, selection="anti", random_state=0)


def test_sar_k0_is_scar_with_the_midpoint_propensity():
    X, y = _correlated_columns()
    for selection in ("random", "correlated", "anticorrelated"):
        res = sar_bekker(X, y, k=0, selection=selection, p_minus=0.2, p_plus=0.6, random_state=3)
        assert res.params["attributes"] == [] and res.params["signs"] == [] and res.params["k"] == 0
        np.testing.assert_array_equal(res.propensity, (0.2 + 0.6) / 2)
        assert res.propensity.shape == y.shape
        assert_pu(res, y)
    res = sar_bekker(X, y, k=0, attributes=[], random_state=3)
    assert res.params["selection"] == "given" and res.params["attributes"] == []
    np.testing.assert_array_equal(res.propensity, 0.5)
    se = math.sqrt(0.25 / y.sum())
    assert abs(res.label_frequency - 0.5) < 4 * se
    # zero propensity columns: the midpoint, for any number of rows
    np.testing.assert_array_equal(sar_propensity(np.empty((7, 0)), 0.1, 0.9), 0.5)
    with pytest.raises(ValueError, match="invalid k"):
        sar_bekker(X, y, k=-1)


# ----------------------------------------------------------------------------- biased_propensity


def test_biased_propensity_multiplies_and_clips():
    from pu_lib.labeling import biased_propensity

    e = np.array([0.0, 0.1, 0.5, 0.7, 1.0])
    np.testing.assert_allclose(biased_propensity(e, 1.5), [1e-12, 0.15, 0.75, 1.0, 1.0])
    np.testing.assert_allclose(biased_propensity(e, 1 / 1.5), [1e-12, 0.1 / 1.5, 0.5 / 1.5, 0.7 / 1.5, 1 / 1.5])
    np.testing.assert_array_equal(biased_propensity(e, 1.0)[1:], e[1:])
    out = biased_propensity(e, 1 / 1.3)
    assert out.dtype == np.float64 and out.shape == e.shape and np.all(out > 0) and np.all(np.isfinite(1 / out))
    assert biased_propensity(0.4, 1.1) == pytest.approx(0.44) and isinstance(biased_propensity(0.4, 1.1), float)
    np.testing.assert_array_equal(e, [0.0, 0.1, 0.5, 0.7, 1.0])  # input untouched
    for bad in (0, -1.5, float("nan"), float("inf"), True, "1.5", None):
        with pytest.raises(ValueError, match="bias"):
            biased_propensity(e, bad)
    for bad_e in (np.array([0.5, np.nan]), np.array([np.inf]), float("nan")):
        with pytest.raises(ValueError, match="e contains"):
            biased_propensity(bad_e, 1.5)


# ----------------------------------------------------------------------------- extend_attributes


def _expected_corr(flip, pi):
    """Pearson correlation of a +-1 attribute with P(+1 | y=1) = 1 - flip and
    P(+1 | y=0) = flip, with y ~ Bernoulli(pi)."""
    d = 1.0 - 2.0 * flip
    return 2.0 * d * math.sqrt(pi * (1.0 - pi)) / math.sqrt(1.0 - d**2 * (2.0 * pi - 1.0) ** 2)


@pytest.mark.parametrize("n_pos", [10000, 6000])
@pytest.mark.parametrize("flip", [0.3, 0.1, 0.45])
def test_extend_attributes_correlated_and_noise_columns(flip, n_pos):
    from pu_lib.labeling import extend_attributes

    n = 20000
    y = make_y(n, n_pos, seed=2)
    X = np.random.default_rng(0).normal(size=(n, 3))
    Xe = extend_attributes(X, y, n_correlated=4, n_noise=3, flip=flip, random_state=5)
    assert Xe.shape == (n, 3 + 4 + 3) and Xe.dtype == np.float64
    np.testing.assert_array_equal(Xe[:, :3], X)
    new = Xe[:, 3:]
    assert set(np.unique(new).tolist()) == {-1.0, 1.0}
    pi = n_pos / n
    target = _expected_corr(flip, pi)
    if n_pos == n // 2:
        assert target == pytest.approx(1 - 2 * flip)
    corr = np.array([np.corrcoef(new[:, j], y)[0, 1] for j in range(7)])
    # standard error of a sample correlation ~ (1 - r^2) / sqrt(n) <= 0.0071
    np.testing.assert_allclose(corr[:4], target, atol=0.03)
    np.testing.assert_allclose(corr[4:], 0.0, atol=0.03)
    # per class: P(+1 | y=1) = 1 - flip, P(+1 | y=0) = flip; noise 0.5 in both classes
    for cls, p_plus in ((1, 1 - flip), (0, flip)):
        part = new[y == cls]
        np.testing.assert_allclose((part[:, :4] == 1).mean(axis=0), p_plus, atol=0.025)
        np.testing.assert_allclose((part[:, 4:] == 1).mean(axis=0), 0.5, atol=0.025)
    # the new columns are independent of each other (given y for the correlated ones)
    noise_corr = np.corrcoef(new[:, 4:].T)[np.triu_indices(3, 1)]
    np.testing.assert_allclose(noise_corr, 0.0, atol=0.03)
    pos_corr = np.corrcoef(new[y == 1, :4].T)[np.triu_indices(4, 1)]
    np.testing.assert_allclose(pos_corr, 0.0, atol=0.04)


def test_extend_attributes_is_deterministic_by_seed_and_validates():
    from pu_lib.labeling import extend_attributes

    X, y = binary_data(n=500)
    a = extend_attributes(X, y, random_state=3)
    assert a.shape == (500, X.shape[1] + 10)
    np.testing.assert_array_equal(a, extend_attributes(X, y, random_state=3))
    np.testing.assert_array_equal(a, extend_attributes(X, y, random_state=np.random.default_rng(3)))
    assert not np.array_equal(a, extend_attributes(X, y, random_state=4))
    # flip 0: exact copies of the class as +-1; flip 0.5 / zero columns allowed
    exact = extend_attributes(X, y, n_correlated=2, n_noise=0, flip=0.0, random_state=0)
    np.testing.assert_array_equal(exact[:, -2:], np.column_stack([2 * y - 1] * 2))
    np.testing.assert_array_equal(extend_attributes(X, y, 0, 0, random_state=0), X)
    assert extend_attributes(X, y, 1, 2, flip=0.5, random_state=0).shape == (500, X.shape[1] + 3)
    X_before = X.copy()
    extend_attributes(X, y, random_state=0)
    np.testing.assert_array_equal(X, X_before)
    for kwargs, field in (({"n_correlated": -1}, "n_correlated"), ({"n_noise": 1.5}, "n_noise"),
                          ({"flip": 0.6}, "flip"), ({"flip": -0.1}, "flip"), ({"flip": "x"}, "flip")):
        with pytest.raises(ValueError, match=field):
            extend_attributes(X, y, random_state=0, **kwargs)
    with pytest.raises(ValueError, match="y has 499 entries"):
        extend_attributes(X, y[:-1], random_state=0)
    with pytest.raises(ValueError, match="y must hold only 0 and 1"):
        extend_attributes(X, np.where(y == 1, 1, -1), random_state=0)
