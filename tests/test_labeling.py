"""Tests for pu_lib.labeling: PU labeling mechanisms, c <-> prior conversions and label sets."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from pu_lib.labeling import (
    MECHANISMS,
    LabelResult,
    apply_mechanism,
    case_control,
    expand_case_control,
    label_frequency_from_prior,
    label_set_metadata,
    make_label_set,
    prior_from_label_frequency,
    pulsnar_alpha,
    sar_bekker,
    sar_propensity,
    scale_minus1_1,
    scar_count,
    scar_flip_ratio,
    scar_label_frequency,
    snar_probability,
    snar_subclass,
    stratified_holdout,
    subsample,
    validate_mechanism_params,
)


def _y(n, n_pos, seed=0):
    y = np.zeros(n, dtype=int)
    y[np.random.default_rng(seed).choice(n, n_pos, replace=False)] = 1
    return y


def _half_up(v):
    return int(math.floor(v + 0.5 + 1e-9))


def _binary_data(n=4000, d=6, seed=0):
    """Binary-ish features (std 1 after scaling) so SAR has candidates; y depends on col 0."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.5).astype(float)
    X[:, -1] = rng.normal(size=n)  # continuous column, scaled std well below 0.6
    logits = 2.0 * X[:, 0] - 1.0 + 0.5 * rng.normal(size=n)
    y = (logits > 0).astype(int)
    return X, y


def _assert_pu(res: LabelResult, y):
    y = np.asarray(y)
    assert res.s.dtype == np.int8 and res.y.dtype == np.int8
    assert res.propensity.dtype == np.float64
    assert res.s.shape == res.y.shape == res.propensity.shape == y.shape
    assert np.all(res.s[y == 0] == 0), "only positives may be labeled"
    np.testing.assert_array_equal(res.y, y)


# ----------------------------------------------------------------------------- SCAR


@pytest.mark.parametrize("n,n_pos", [(10, 1), (50, 7), (1000, 333), (5000, 2500)])
@pytest.mark.parametrize("c", [0.01, 0.1, 0.25, 0.5, 0.9, 1.0])
def test_scar_label_frequency_exact(n, n_pos, c):
    y = _y(n, n_pos)
    res = scar_label_frequency(y, c, random_state=1)
    _assert_pu(res, y)
    expected = max(1, _half_up(c * n_pos))
    assert res.n_labeled == expected
    assert res.mechanism == "scar_c" and res.scenario == "single-training-set"
    np.testing.assert_allclose(res.propensity, expected / n_pos)
    if c == 1.0:
        np.testing.assert_array_equal(res.s, y)


def test_scar_label_frequency_rounding_is_half_up():
    y = _y(20, 5)
    assert scar_label_frequency(y, 0.7, random_state=0).n_labeled == 4  # 3.5 -> 4
    assert scar_label_frequency(y, 0.5, random_state=0).n_labeled == 3  # 2.5 -> 3
    assert scar_label_frequency(y, 0.01, random_state=0).n_labeled == 1  # at least one


@pytest.mark.parametrize("n,n_pos", [(10, 1), (40, 4), (1000, 250), (3000, 1001)])
@pytest.mark.parametrize("flip", [0.0, 0.25, 0.5, 0.75, 0.99])
def test_scar_flip_ratio_exact(n, n_pos, flip):
    y = _y(n, n_pos)
    res = scar_flip_ratio(y, flip, random_state=2)
    _assert_pu(res, y)
    n_unlab = min(n_pos - 1, _half_up(flip * n_pos))
    assert res.n_labeled == n_pos - n_unlab >= 1
    assert res.mechanism == "scar_flip"
    if flip == 0.0:
        np.testing.assert_array_equal(res.s, y)


@pytest.mark.parametrize("n_labeled", [1, 17, 250, 400])
def test_scar_count_and_case_control_exact(n_labeled):
    y = _y(2000, 400)
    r1 = scar_count(y, n_labeled, random_state=3)
    r2 = case_control(y, n_labeled, random_state=3)
    for r in (r1, r2):
        _assert_pu(r, y)
        assert r.n_labeled == n_labeled
        np.testing.assert_allclose(r.propensity, n_labeled / 400)
    assert r1.scenario == "single-training-set" and r2.scenario == "case-control"
    assert r2.params["n_unlabeled"] == 2000


def test_case_control_expansion_and_eq_2_6():
    y = _y(3000, 600)
    res = case_control(y, 100, random_state=0)
    rows, s = expand_case_control(res)
    # P first (100 rows, s=1), then every row as U (s=0): P is a subset of U
    assert rows.shape[0] == 3100 and s.sum() == 100
    np.testing.assert_array_equal(s[:100], 1)
    np.testing.assert_array_equal(rows[100:], np.arange(3000))
    assert set(rows[:100]) <= set(np.flatnonzero(y == 1))
    # The combined P+U sample obeys eq. 2.6 / 2.7 with alpha = Pr(y=1 | s=0) = prior of U
    ys = y[rows]
    lf = s.mean()
    c_emp = s[ys == 1].mean()
    alpha = ys[s == 0].mean()
    assert lf == pytest.approx(res.params["labeled_fraction"])
    assert c_emp == pytest.approx(res.params["label_frequency_combined"])
    assert label_frequency_from_prior(alpha, lf, "case-control") == pytest.approx(c_emp)
    assert prior_from_label_frequency(c_emp, lf, "case-control") == pytest.approx(alpha)
    # single-training-set expansion is the identity
    r1 = scar_count(y, 5, random_state=0)
    rows1, s1 = expand_case_control(r1)
    np.testing.assert_array_equal(rows1, np.arange(3000))
    np.testing.assert_array_equal(s1, r1.s)


def test_scar_selection_is_uniform():
    y = np.ones(10, dtype=int)
    counts = np.zeros(10)
    for seed in range(2000):
        counts += scar_count(y, 3, random_state=seed).s
    # each of the 10 positives is labeled with probability 0.3 -> 600 expected of 2000
    assert np.all(np.abs(counts - 600) < 5 * math.sqrt(2000 * 0.3 * 0.7))


# ----------------------------------------------------------------------------- SAR


def test_scale_minus1_1_hand_values():
    X = np.array([[0.0, 5.0, 3.0], [1.0, 5.0, 1.0], [4.0, 5.0, 2.0]])
    Z = scale_minus1_1(X)
    np.testing.assert_allclose(Z[:, 0], [-1.0, -0.5, 1.0])
    np.testing.assert_array_equal(Z[:, 1], 0.0)  # constant column
    np.testing.assert_allclose(Z[:, 2], [1.0, -1.0, 0.0])


def test_sar_propensity_hand_values_k1_k2():
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


def test_sar_propensity_extremes_and_constant_column():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(500, 3))
    e = sar_propensity(Z)
    assert e.min() >= 0.2 and e.max() <= 0.8
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


def test_sar_random_selection_respects_min_std():
    X = _std_test_matrix()
    stds = scale_minus1_1(X).std(axis=0)
    allowed = {0, 1, 6}
    assert {j for j in range(X.shape[1]) if stds[j] >= 0.6 - 1e-9} == allowed
    y = _y(X.shape[0], 600)
    seen = set()
    for seed in range(30):
        res = sar_bekker(X, y, k=2, selection="random", random_state=seed)
        chosen = set(res.params["attributes"])
        assert len(chosen) == 2 and chosen <= allowed
        assert all(stds[j] >= 0.6 - 1e-9 for j in chosen)
        assert res.params["signs"] == [1, 1]
        seen |= chosen
    assert seen == allowed
    with pytest.raises(ValueError, match="min_std"):
        sar_bekker(X, y, k=4, random_state=0)


def test_sar_correlated_selection_and_sign_flip():
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
    # selection does not depend on the seed
    assert sar_bekker(X, y, k=2, selection="correlated", random_state=9).params["attributes"] == attrs


def test_sar_given_attributes_and_propensity_for_negatives():
    X, y = _binary_data(n=3000)
    res = sar_bekker(X, y, k=2, attributes=[1, 5], random_state=0)
    assert res.params["attributes"] == [1, 5] and res.params["selection"] == "given"
    expected = sar_propensity(scale_minus1_1(X[:, [1, 5]]))
    np.testing.assert_allclose(res.propensity, expected)  # defined on negatives too
    _assert_pu(res, y)
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
    _assert_pu(res, y)
    e_pos = res.propensity[y == 1]
    freq = res.s[y == 1].mean()
    se = math.sqrt(np.sum(e_pos * (1 - e_pos))) / e_pos.shape[0]
    assert abs(freq - e_pos.mean()) < 4 * se
    # labeling really depends on e: high-propensity positives are labeled more often
    hi = e_pos > np.median(e_pos)
    assert res.s[y == 1][hi].mean() > res.s[y == 1][~hi].mean() + 0.1


# ----------------------------------------------------------------------------- SNAR


def _pulsnar_groups(seed=0):
    """5 positive subclasses of 400 (ids 1-5) plus 6000 negatives (id 0), PULSNAR-style."""
    rng = np.random.default_rng(seed)
    groups = np.concatenate([np.zeros(6000, int), np.repeat(np.arange(1, 6), 400)])
    perm = rng.permutation(groups.shape[0])
    groups = groups[perm]
    return (groups > 0).astype(int), groups


def test_snar_subclass_exact_counts():
    y, groups = _pulsnar_groups()
    # unlabeled positive shares 1/31, 2/31, 4/31, 8/31, 16/31 of 620 unlabeled positives
    n_unlab = {g: 620 * 2 ** (g - 1) // 31 for g in range(1, 6)}
    counts = {g: 400 - n_unlab[g] for g in range(1, 6)}
    res = snar_subclass(y, groups, counts, random_state=0)
    _assert_pu(res, y)
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


def test_snar_subclass_errors():
    y, groups = _pulsnar_groups()
    with pytest.raises(ValueError, match="no entry for positive subclass"):
        snar_subclass(y, groups, {1: 5, 2: 5}, random_state=0)
    with pytest.raises(ValueError, match="only 400 positives"):
        snar_subclass(y, groups, 401, random_state=0)
    with pytest.raises(ValueError, match="unknown positive subclass"):
        snar_subclass(y, groups, {g: 1 for g in range(1, 7)}, random_state=0)
    with pytest.raises(ValueError, match="groups"):
        snar_subclass(y, groups[:-1], 5, random_state=0)


def test_snar_probability_increases_with_class_probability():
    rng = np.random.default_rng(3)
    n = 20000
    X = rng.normal(size=(n, 3))
    y = (rng.random(n) < 1 / (1 + np.exp(-(2 * X[:, 0] - X[:, 1])))).astype(int)
    res = snar_probability(X, y, random_state=0)
    _assert_pu(res, y)
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


# ----------------------------------------------------------------------------- conversions


def test_conversion_hand_values():
    # eq. 2.5: c = Pr(s=1) / alpha
    assert label_frequency_from_prior(0.4, 0.1) == pytest.approx(0.25)
    assert prior_from_label_frequency(0.25, 0.1) == pytest.approx(0.4)
    # eq. 2.6: c = 0.2 / (0.5 * 0.8 + 0.2) = 1/3
    assert label_frequency_from_prior(0.5, 0.2, "case-control") == pytest.approx(1 / 3)
    # eq. 2.7: alpha = (1 - 1/3)/(1/3) * 0.2 / 0.8 = 0.5
    assert prior_from_label_frequency(1 / 3, 0.2, "case-control") == pytest.approx(0.5)


@pytest.mark.parametrize("scenario", ["single-training-set", "case-control"])
def test_conversion_round_trip(scenario):
    for alpha in (0.05, 0.3, 0.5, 0.9):
        for lf in (0.01, 0.04, 0.2):
            if scenario == "single-training-set" and lf >= alpha:
                continue
            c = label_frequency_from_prior(alpha, lf, scenario)
            assert 0 < c <= 1
            assert prior_from_label_frequency(c, lf, scenario) == pytest.approx(alpha)


def test_conversion_matches_generated_data():
    y = _y(10000, 3000)
    res = scar_label_frequency(y, 0.3, random_state=0)
    lf = res.s.mean()
    assert label_frequency_from_prior(y.mean(), lf) == pytest.approx(res.label_frequency)
    assert prior_from_label_frequency(res.label_frequency, lf) == pytest.approx(y.mean())


def test_conversion_invalid():
    with pytest.raises(ValueError, match="prior"):
        label_frequency_from_prior(1.2, 0.1)
    with pytest.raises(ValueError, match="labeled_fraction"):
        label_frequency_from_prior(0.5, 0.0)
    with pytest.raises(ValueError, match="exceeds the prior"):
        label_frequency_from_prior(0.1, 0.2)
    with pytest.raises(ValueError, match="scenario"):
        label_frequency_from_prior(0.5, 0.1, scenario="pu")
    with pytest.raises(ValueError, match="c must"):
        prior_from_label_frequency(0.0, 0.1)
    with pytest.raises(ValueError, match="outside"):
        prior_from_label_frequency(0.1, 0.5)  # implies alpha = 5
    with pytest.raises(ValueError, match="outside"):
        prior_from_label_frequency(1.0, 0.5, "case-control")  # implies alpha = 0


# ----------------------------------------------------------------------------- splitting


def test_stratified_holdout_exact():
    y = np.array([0] * 73 + [1] * 27)
    tr, te = stratified_holdout(y, 0.3, random_state=0)
    assert np.all(np.diff(tr) > 0) and np.all(np.diff(te) > 0)
    assert np.intersect1d(tr, te).size == 0 and np.union1d(tr, te).size == 100
    assert (y[te] == 0).sum() == _half_up(0.3 * 73) and (y[te] == 1).sum() == _half_up(0.3 * 27)
    tr0, te0 = stratified_holdout(y, 0.0, random_state=0)
    assert te0.size == 0 and tr0.size == 100
    with pytest.raises(ValueError, match="test_size"):
        stratified_holdout(y, 1.0)


def test_subsample():
    np.testing.assert_array_equal(subsample(50, 100, random_state=0), np.arange(50))
    np.testing.assert_array_equal(subsample(50, None), np.arange(50))
    idx = subsample(1000, 100, random_state=0)
    assert idx.size == 100 and np.unique(idx).size == 100 and np.all(np.diff(idx) > 0)
    y = np.array([0] * 900 + [1] * 100)
    ids = subsample(y, 55, random_state=1, stratify=True)
    assert ids.size == 55 and y[ids].sum() in (5, 6)  # 5.5 allocated by largest remainder
    ids2 = subsample(1000, 200, random_state=1, stratify=y)
    assert y[ids2].sum() == 20
    with pytest.raises(ValueError, match="max_samples"):
        subsample(1000, 0)
    with pytest.raises(ValueError, match="stratify"):
        subsample(1000, 10, stratify=True)


# ----------------------------------------------------------------------------- determinism


def _all_mechanism_calls(X, y, groups):
    return {
        "scar_c": lambda rs: scar_label_frequency(y, 0.3, rs),
        "scar_flip": lambda rs: scar_flip_ratio(y, 0.5, rs),
        "scar_count": lambda rs: scar_count(y, 100, rs),
        "case_control": lambda rs: case_control(y, 100, rs),
        "sar": lambda rs: sar_bekker(X, y, 2, random_state=rs),
        "snar_subclass": lambda rs: snar_subclass(y, groups, 40, rs),
        "snar_prob": lambda rs: snar_probability(X, y, random_state=rs),
        "pulsnar_alpha": lambda rs: pulsnar_alpha(y, 0.2, snar=True, groups=groups, random_state=rs),
    }


def test_every_mechanism_is_deterministic_per_seed():
    X, y = _binary_data()
    groups = np.where(y == 1, (X[:, 1] > 0).astype(int) + 1, 0)
    calls = _all_mechanism_calls(X, y, groups)
    assert set(calls) == set(MECHANISMS)
    for name, call in calls.items():
        a, b, c = call(7), call(7), call(8)
        np.testing.assert_array_equal(a.s, b.s, err_msg=name)
        np.testing.assert_array_equal(a.propensity, b.propensity, err_msg=name)
        assert not np.array_equal(a.s, c.s), name
        g1, g2 = call(np.random.default_rng(3)), call(np.random.default_rng(3))
        np.testing.assert_array_equal(g1.s, g2.s, err_msg=name)


def test_global_numpy_state_untouched():
    X, y = _binary_data(n=500)
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    make_label_set(X, y, mechanism="sar", params={"k": 2}, val_size=0.2, random_state=0)
    scar_label_frequency(y, 0.5, random_state=0)
    np.testing.assert_array_equal(np.random.get_state()[1], before)


@pytest.mark.parametrize(
    "mechanism,params",
    [
        ("scar_c", {"c": 0.3}),
        ("scar_flip", {"flip_ratio": 0.5}),
        ("scar_count", {"n_labeled": 80}),
        ("case_control", {"n_labeled": 80}),
        ("sar", {"k": 2}),
        ("snar_subclass", {"n_labeled_per_group": {1: 30, 2: 50}}),
        ("snar_prob", {}),
    ],
)
def test_make_label_set_every_mechanism(mechanism, params):
    X, y = _binary_data(n=3000)
    groups = np.where(y == 1, (X[:, 1] > 0).astype(int) + 1, 0)
    kw = dict(mechanism=mechanism, params=params, test_size=0.3, val_size=0.25, groups=groups)
    a = make_label_set(X, y, random_state=5, **kw)
    b = make_label_set(X, y, random_state=5, **kw)
    c = make_label_set(X, y, random_state=6, **kw)
    pd.testing.assert_frame_equal(a, b)
    assert not a["s"].equals(c["s"]) or not a["row"].equals(c["row"])
    assert list(a.columns) == ["row", "split", "y", "s", "propensity", "scenario"]
    assert a["row"].dtype == np.int64 and a["y"].dtype == np.int8 and a["s"].dtype == np.int8
    assert a["propensity"].dtype == np.float64
    assert list(a["split"].cat.categories) == ["train", "val", "test"]
    assert np.all(a.loc[a["y"] == 0, "s"] == 0)
    assert np.all(a.loc[a["split"] == "test", "s"] == 0)
    np.testing.assert_array_equal(a["y"].to_numpy(), y[a["row"].to_numpy()])
    assert sorted(a["row"]) == list(range(3000))
    # sorted by split (train, val, test) then row
    codes = a["split"].cat.codes.to_numpy()
    assert np.all(np.diff(codes) >= 0)
    for name in ("train", "val", "test"):
        assert a.loc[a["split"] == name, "row"].is_monotonic_increasing
    assert a["s"][a["split"] == "train"].sum() > 0 and a["s"][a["split"] == "val"].sum() > 0
    meta = label_set_metadata(a)
    assert meta["mechanism"] == mechanism and meta["scenario"] == a["scenario"].iloc[0]
    json.dumps(meta["params"])
    if mechanism == "case_control":
        assert set(a["scenario"]) == {"case-control"}
    else:
        assert set(a["scenario"]) == {"single-training-set"}


def test_make_label_set_splits_and_subsample():
    rng = np.random.default_rng(0)
    n = 30000
    X = (rng.random((n, 5)) < 0.5).astype(float)
    y = (rng.random(n) < 0.2).astype(int)
    df = make_label_set(X, y, mechanism="scar_c", params={"c": 0.4}, test_size=0.3, val_size=0.2,
                        max_samples=10000, random_state=1)
    assert len(df) == 10000 and df["row"].is_unique
    sub = subsample(n, 10000, stratify=y, random_state=0)  # same class allocation as the label set
    assert df["y"].sum() == y[sub].sum()
    n_pos, n_neg = int(df["y"].sum()), int((df["y"] == 0).sum())
    parts = {k: g for k, g in df.groupby("split", observed=False)}
    te, va, tr = parts["test"], parts["val"], parts["train"]
    # exact stratification of the holdout and of the validation split
    assert te["y"].sum() == _half_up(0.3 * n_pos) and (te["y"] == 0).sum() == _half_up(0.3 * n_neg)
    tr_pos, tr_neg = n_pos - te["y"].sum(), n_neg - (te["y"] == 0).sum()
    assert va["y"].sum() == _half_up(0.2 * tr_pos) and (va["y"] == 0).sum() == _half_up(0.2 * tr_neg)
    assert len(tr) + len(va) + len(te) == 10000
    assert set(tr["row"]).isdisjoint(va["row"]) and set(tr["row"]).isdisjoint(te["row"])
    assert set(va["row"]).isdisjoint(te["row"])
    assert abs(len(te) / 10000 - 0.3) < 0.001 and abs(len(va) / 7000 - 0.2) < 0.001
    # exact c in train and in val
    for part in (tr, va):
        assert part["s"].sum() == _half_up(0.4 * part["y"].sum())
    # the union is the stratified subsample of the original rows: it follows the data
    assert df["row"].max() < n and np.all(df["y"].to_numpy() == y[df["row"].to_numpy()])
    # no subsampling when max_samples >= n; test_size=0 gives no test rows
    df2 = make_label_set(X[:500], y[:500], mechanism="scar_flip", params={"flip_ratio": 0.25},
                         test_size=0.0, max_samples=10000, random_state=0)
    assert len(df2) == 500 and set(df2["split"]) == {"train"}
    assert df2["s"].sum() == df2["y"].sum() - _half_up(0.25 * df2["y"].sum())


def test_make_label_set_count_mechanisms_val_gets_train_frequency():
    X, y = _binary_data(n=4000)
    df = make_label_set(X, y, mechanism="scar_count", params={"n_labeled": 150}, val_size=0.25, random_state=2)
    tr, va, te = (df[df["split"] == k] for k in ("train", "val", "test"))
    assert tr["s"].sum() == 150
    c_tr = 150 / tr["y"].sum()
    assert va["s"].sum() == max(1, _half_up(c_tr * va["y"].sum()))
    np.testing.assert_allclose(te["propensity"], c_tr)
    assert json.loads(df.attrs["params"])["val_mechanism"] == "scar_c"


def test_make_label_set_sar_shares_one_propensity_function():
    X, y = _binary_data(n=3000)
    df = make_label_set(X, y, mechanism="sar", params={"k": 2}, val_size=0.2, max_samples=2000, random_state=4)
    params = label_set_metadata(df)["params"]
    attrs, signs = params["attributes"], params["signs"]
    rows = np.sort(df["row"].to_numpy())
    e = sar_propensity(scale_minus1_1(X[rows][:, attrs]) * np.array(signs))
    got = df.set_index("row").loc[rows, "propensity"].to_numpy()
    np.testing.assert_allclose(got, e)
    assert not df["propensity"].isna().any()


def test_make_label_set_snar_subclass_test_propensity():
    X, y = _binary_data(n=3000)
    groups = np.where(y == 1, (X[:, 1] > 0).astype(int) + 1, 0)
    df = make_label_set(X, y, mechanism="snar_subclass", params={"n_labeled_per_group": {1: 20, 2: 60}},
                        groups=groups, random_state=0)
    tr = df[df["split"] == "train"]
    g_tr = groups[tr["row"].to_numpy()]
    assert tr["s"][g_tr == 1].sum() == 20 and tr["s"][g_tr == 2].sum() == 60
    te = df[df["split"] == "test"]
    g_te = groups[te["row"].to_numpy()]
    assert te["propensity"][g_te == 0].isna().all()
    e2 = tr["propensity"][g_tr == 2].iloc[0]
    np.testing.assert_allclose(te["propensity"][g_te == 2], e2)


def test_make_label_set_parquet_keeps_scenario(tmp_path):
    pytest.importorskip("pyarrow")
    y = _y(600, 200)
    df = make_label_set(None, y, mechanism="case_control", params={"n_labeled": 50}, random_state=0)
    path = tmp_path / "ls.parquet"
    df.to_parquet(path, index=False)
    back = pd.read_parquet(path)
    assert label_set_metadata(back)["scenario"] == "case-control"
    np.testing.assert_array_equal(back["s"].to_numpy(), df["s"].to_numpy())


def test_make_label_set_generator_seed():
    y = _y(500, 100)
    a = make_label_set(None, y, mechanism="scar_c", params={"c": 0.5}, random_state=np.random.default_rng(1))
    b = make_label_set(None, y, mechanism="scar_c", params={"c": 0.5}, random_state=np.random.default_rng(1))
    pd.testing.assert_frame_equal(a, b)


# ----------------------------------------------------------------------------- validation


def test_validate_mechanism_params_defaults():
    assert validate_mechanism_params("sar", {"k": 3}) == {
        "k": 3, "selection": "random", "p_minus": 0.2, "p_plus": 0.8, "min_std": 0.6, "attributes": None,
    }
    assert validate_mechanism_params("snar_prob", {}) == {"p_minus": 0.2, "p_plus": 0.8}
    assert validate_mechanism_params("scar_c", {"c": 1}) == {"c": 1.0}
    assert validate_mechanism_params("scar_count", {"n_labeled": 1000.0}) == {"n_labeled": 1000}


@pytest.mark.parametrize(
    "mechanism,params,field",
    [
        ("nope", {}, "unknown mechanism"),
        ("scar_c", {"c": 0.0}, "c"),
        ("scar_c", {"c": 1.5}, "c"),
        ("scar_c", {}, "c"),
        ("scar_c", {"c": 0.5, "k": 1}, "k"),
        ("scar_flip", {"flip_ratio": 1.0}, "flip_ratio"),
        ("scar_flip", {"flip_ratio": -0.1}, "flip_ratio"),
        ("scar_count", {"n_labeled": 0}, "n_labeled"),
        ("case_control", {"n_labeled": 2.5}, "n_labeled"),
        ("sar", {"k": 0}, "k"),
        ("sar", {"k": 1, "p_minus": 0.8, "p_plus": 0.2}, "p_minus"),
        ("sar", {"k": 1, "p_plus": 1.5}, "p_plus"),
        ("sar", {"k": 1, "selection": "best"}, "selection"),
        ("snar_prob", {"p_minus": -0.1}, "p_minus"),
        ("snar_prob", {"p_minus": 0.5, "p_plus": 0.5}, "p_plus"),
        ("snar_subclass", {"n_labeled_per_group": 0}, "n_labeled_per_group"),
        ("snar_subclass", {"n_labeled_per_group": {1: -1}}, "n_labeled_per_group"),
    ],
)
def test_validate_mechanism_params_errors(mechanism, params, field):
    with pytest.raises(ValueError) as info:
        validate_mechanism_params(mechanism, params)
    msg = str(info.value)
    assert field in msg
    if mechanism != "nope":
        assert msg.startswith(mechanism + ":")


def test_apply_mechanism_dispatch():
    X, y = _binary_data(n=1000)
    groups = np.where(y == 1, 1, 0)
    r = apply_mechanism("scar_c", {"c": 0.5}, X=None, y=y, random_state=0)
    np.testing.assert_array_equal(r.s, scar_label_frequency(y, 0.5, 0).s)
    r = apply_mechanism("sar", {"k": 1, "attributes": [2]}, X=X, y=y, random_state=0)
    np.testing.assert_array_equal(r.s, sar_bekker(X, y, 1, attributes=[2], random_state=0).s)
    r = apply_mechanism("snar_subclass", {"n_labeled_per_group": 7}, X=X, y=y, groups=groups, random_state=0)
    assert r.n_labeled == 7
    with pytest.raises(ValueError, match="X is required"):
        apply_mechanism("sar", {"k": 1}, X=None, y=y)
    with pytest.raises(ValueError, match="groups"):
        apply_mechanism("snar_subclass", {"n_labeled_per_group": 7}, X=X, y=y)
    with pytest.raises(ValueError, match="X has"):
        apply_mechanism("scar_c", {"c": 0.5}, X=X[:10], y=y)


def test_bad_inputs():
    y = _y(100, 10)
    with pytest.raises(ValueError, match="only 0 and 1"):
        scar_label_frequency(np.array([0, 1, 2]), 0.5)
    with pytest.raises(ValueError, match="only 0 and 1"):
        scar_count(np.array([-1, 1, 1]), 1)
    with pytest.raises(ValueError, match="no positive"):
        scar_label_frequency(np.zeros(10), 0.5)
    with pytest.raises(ValueError, match="no positive"):
        make_label_set(None, np.zeros(10), mechanism="scar_c", params={"c": 0.5})
    with pytest.raises(ValueError, match="1-D"):
        scar_flip_ratio(np.ones((3, 2)), 0.5)
    with pytest.raises(ValueError, match="exceeds the number of positives"):
        scar_count(y, 11)
    with pytest.raises(ValueError, match="c must"):
        scar_label_frequency(y, 0.0)
    with pytest.raises(ValueError, match="flip_ratio"):
        scar_flip_ratio(y, 1.0)
    X = np.ones((100, 3))
    with pytest.raises(ValueError, match="X has 50 rows"):
        sar_bekker(X[:50], y, 1)
    with pytest.raises(ValueError, match="2-D"):
        sar_bekker(np.ones(100), y, 1)
    with pytest.raises(ValueError, match="NaN"):
        Xn = np.random.default_rng(0).random((100, 3))
        Xn[0, 0] = np.nan
        snar_probability(Xn, y)
    with pytest.raises(ValueError, match="X has"):
        make_label_set(np.ones((99, 2)), y, mechanism="scar_c", params={"c": 0.5})
    with pytest.raises(ValueError, match="groups"):
        make_label_set(None, y, mechanism="snar_subclass", params={"n_labeled_per_group": 1}, groups=np.ones(5))
    with pytest.raises(ValueError, match="val split has no positive"):
        make_label_set(None, _y(100, 2), mechanism="scar_c", params={"c": 0.5}, test_size=0.0, val_size=0.2,
                       random_state=0)
    with pytest.raises(ValueError, match="both classes"):
        snar_probability(np.random.default_rng(0).random((10, 2)), np.ones(10))


# ----------------------------------------------------------------------------- pulsnar_alpha
@pytest.mark.parametrize("alpha", [0.0, 0.01, 0.05, 0.2, 0.5])
def test_pulsnar_alpha_gives_the_exact_unlabeled_fraction(alpha):
    # PULSNAR protocol: n_neg * a / (1 - a) positives moved to U, all negatives unlabeled
    y = np.r_[np.ones(3000, int), np.zeros(2000, int)]
    r = pulsnar_alpha(y, alpha, random_state=0)
    k = int(np.floor(2000 * alpha / (1 - alpha) + 0.5))
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


def test_pulsnar_alpha_snar_caps_and_redistributes():
    y = np.r_[np.ones(1010, int), np.zeros(1000, int)]
    g = np.r_[np.repeat([1, 2], [10, 1000]), np.zeros(1000, int)]
    r = pulsnar_alpha(y, 0.4, snar=True, groups=g, random_state=0)  # k = 667
    assert r.params["unlabeled_per_subclass"]["1"] <= 9
    assert sum(r.params["unlabeled_per_subclass"].values()) == 667
    assert (r.s[g == 1] == 1).sum() >= 1


def test_pulsnar_alpha_errors():
    y = np.r_[np.ones(100, int), np.zeros(1000, int)]
    with pytest.raises(ValueError, match="needs 1000 unlabeled positives"):
        pulsnar_alpha(y, 0.5)
    with pytest.raises(ValueError, match="alpha must lie"):
        pulsnar_alpha(y, 1.0)
    with pytest.raises(ValueError, match="needs groups"):
        pulsnar_alpha(y, 0.05, snar=True)
    with pytest.raises(ValueError, match="at least 2 positive subclasses"):
        pulsnar_alpha(y, 0.05, snar=True, groups=np.zeros(1100, int))
    with pytest.raises(ValueError, match="snar"):
        apply_mechanism("pulsnar_alpha", {"alpha": 0.1, "snar": "yes"}, X=None, y=y)
