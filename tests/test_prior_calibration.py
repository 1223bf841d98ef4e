"""Tests of pu_lib.prior.calibration (Algorithm 4: label flipping, calibration; eq. 6:
PULSNAR combination) and pu_lib.prior.classification (Algorithm 5: classification
improvement) of Kumar & Lambert (PeerJ CS 2024)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from pu_lib.prior.calibration import (
    ProbabilityCalibrator,
    calibrate_probabilities,
    calibrate_pulscar,
    calibrate_pulsnar,
    calibration_curve_data,
    combine_cluster_probabilities,
    flip_labels,
    flip_targets_per_bin,
)
from pu_lib.prior.classification import (
    CLASSIFICATION_METRICS,
    baseline_classification,
    classification_metrics,
    improve_classification,
    relabel_top_unlabeled,
)


def _flips_per_bin(probs, s, su, n_bins):
    pu = np.asarray(probs)[np.asarray(s) == 0]
    b = np.clip(np.searchsorted(np.linspace(0, 1, n_bins + 1), pu, side="right") - 1, 0, n_bins - 1)
    return np.bincount(b[su == 1], minlength=n_bins)


# Hand-made example, 4 bins [0,.25) [.25,.5) [.5,.75) [.75,1]:
# labeled positives: 0.9, 0.8 (bin 3), 0.6 (bin 2), 0.1 (bin 0) -> counts [1, 0, 1, 2];
# |U| = 8, alpha = 0.5 -> N = 4 flips, targets 4 * counts / 4 = [1, 0, 1, 2].
P_LAB = [0.9, 0.8, 0.6, 0.1]


def _pu(unlabeled):
    probs = np.array(P_LAB + list(unlabeled))
    s = np.r_[np.ones(len(P_LAB), int), np.zeros(len(unlabeled), int)]
    return probs, s


def _scar_data(n=4000, frac_pos=0.4, c=0.5, sep=2.0, seed=0):
    """1-D Gaussian SCAR data and out-of-fold probabilities of a labeled-vs-unlabeled
    logistic regression (fast stand-in for the XGBoost classifier)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict

    rng = np.random.default_rng(seed)
    y = (rng.random(n) < frac_pos).astype(int)
    x = rng.normal(sep * y, 1.0)
    s = ((y == 1) & (rng.random(n) < c)).astype(int)
    p = cross_val_predict(LogisticRegression(), x[:, None], s, cv=5, method="predict_proba")[:, 1]
    return x, y, s, p


# ------------------------------------------------------------------ flip targets


def test_flip_targets_hand_example_and_histogram_density():
    probs, s = _pu([0.95, 0.85, 0.76, 0.55, 0.3, 0.4, 0.05, 0.2])
    t = flip_targets_per_bin(probs, s, 0.5, n_bins=4)
    assert t.tolist() == [1, 0, 1, 2]
    dens, edges = np.histogram(np.array(P_LAB), bins=4, range=(0, 1), density=True)
    np.testing.assert_allclose(t, dens * np.diff(edges) * 4)


def test_flip_counts_per_bin_hand_example():
    probs, s = _pu([0.95, 0.85, 0.76, 0.55, 0.3, 0.4, 0.05, 0.2])
    for seed in range(5):
        su = flip_labels(probs, s, 0.5, n_bins=4, random_state=seed)
        assert su.dtype == np.int8 and su.shape == (8,)
        assert _flips_per_bin(probs, s, su, 4).tolist() == [1, 0, 1, 2]
    # bin 3: 2 of its 3 rows; bin 2: its single row; bin 1: none; bin 0: 1 of 2
    assert su[:3].sum() == 2 and su[3] == 1 and su[4:6].sum() == 0 and su[6:].sum() == 1


def test_carry_over_to_next_lower_bin():
    # bin 3 holds 1 unlabeled row but needs 2: flip it, carry 1 -> bin 2 flips 1 + 1
    probs, s = _pu([0.9, 0.6, 0.65, 0.7, 0.3, 0.4, 0.05, 0.2])
    su = flip_labels(probs, s, 0.5, n_bins=4, random_state=0)
    assert _flips_per_bin(probs, s, su, 4).tolist() == [1, 0, 2, 1]
    # a chain: bins 3 and 2 empty -> 3 carried to bin 1 (2 rows, flip both), 1 more to bin 0
    probs, s = _pu([0.3, 0.4, 0.05, 0.2, 0.1, 0.15, 0.0, 0.01])
    su = flip_labels(probs, s, 0.5, n_bins=4, random_state=0)
    assert _flips_per_bin(probs, s, su, 4).tolist() == [2, 2, 0, 0]
    assert su.sum() == 4


def test_residual_pass_keeps_total_when_lower_bins_are_short():
    # all labeled in bin 0, all unlabeled in bin 3: Algorithm 4 alone would flip nothing
    probs = np.r_[[0.05, 0.1, 0.2], [0.95, 0.9, 0.8, 0.99, 0.77, 0.85]]
    s = np.r_[[1, 1, 1], np.zeros(6, int)]
    su = flip_labels(probs, s, 0.5, n_bins=4, random_state=3)
    assert su.sum() == 3
    # alpha = 1: every unlabeled row is flipped
    assert flip_labels(probs, s, 1.0, n_bins=4, random_state=3).tolist() == [1] * 6
    assert flip_labels(probs, s, 0.0, n_bins=4, random_state=3).tolist() == [0] * 6


def test_largest_remainder_rounding_ties_to_higher_bins():
    # one labeled positive in each of bins 1, 2, 3; N = 2 -> expected 2/3 each
    probs = np.r_[[0.3, 0.6, 0.9], np.linspace(0, 1, 8)]
    s = np.r_[[1, 1, 1], np.zeros(8, int)]
    assert flip_targets_per_bin(probs, s, 0.25, n_bins=4).tolist() == [0, 0, 1, 1]
    # N = round half up: 0.25 * 10 = 2.5 -> 3 (not banker's 2)
    probs = np.r_[[0.3, 0.6, 0.9], np.linspace(0, 1, 10)]
    s = np.r_[[1, 1, 1], np.zeros(10, int)]
    t = flip_targets_per_bin(probs, s, 0.25, n_bins=4)
    assert t.tolist() == [0, 1, 1, 1]
    assert flip_labels(probs, s, 0.25, n_bins=4, random_state=0).sum() == 3


@pytest.mark.parametrize("seed", range(20))
def test_flip_totals_property(seed):
    rng = np.random.default_rng(seed)
    n_l, n_u = rng.integers(1, 60), rng.integers(1, 200)
    probs = np.r_[rng.beta(3, 1, n_l), rng.beta(1, 3, n_u)]
    probs[rng.random(probs.shape[0]) < 0.05] = 1.0  # p = 1 belongs to the last bin
    s = np.r_[np.ones(n_l, int), np.zeros(n_u, int)]
    alpha = float(rng.random())
    n_bins = int(rng.choice([1, 7, 100]))
    n_target = int(np.floor(alpha * n_u + 0.5))
    t = flip_targets_per_bin(probs, s, alpha, n_bins=n_bins)
    assert t.sum() == n_target
    expected = n_target * np.histogram(probs[:n_l], bins=n_bins, range=(0, 1))[0] / n_l
    assert np.all(np.abs(t - expected) < 1)
    assert flip_labels(probs, s, alpha, n_bins=n_bins, random_state=seed).sum() == n_target


def test_flip_labels_depend_only_on_the_seed():
    _, _, s, p = _scar_data(n=600)
    a = flip_labels(p, s, 0.3, random_state=7)
    np.testing.assert_array_equal(a, flip_labels(p, s, 0.3, random_state=7))
    assert not np.array_equal(a, flip_labels(p, s, 0.3, random_state=8))
    g1 = flip_labels(p, s, 0.3, random_state=np.random.default_rng(5))
    g2 = flip_labels(p, s, 0.3, random_state=np.random.default_rng(5))
    np.testing.assert_array_equal(g1, g2)
    # calibrate_probabilities flips the same rows for the same seed
    res = calibrate_probabilities(p, s, 0.3, data="U", random_state=7)
    np.testing.assert_array_equal(res.labels, a)


# --------------------------------------------------------------- calibration


@pytest.mark.parametrize("data", ["PU", "U"])
def test_isotonic_preserves_sum(data):
    """Acceptance property: isotonic regression preserves the sum of its targets on the
    rows it is fitted on, so the calibrated probabilities of U sum to the number of
    flips round(alpha |U|) ('U' data) and those of all rows to |P| + flips ('PU').
    Tolerance 1e-9 relative: floating-point summation only."""
    _, y, s, p = _scar_data(n=3000, seed=1)
    alpha = float(y[s == 0].mean())
    res = calibrate_probabilities(p, s, alpha, data=data, random_state=0)
    n_u = int((s == 0).sum())
    assert res.n_flips == int(np.floor(alpha * n_u + 0.5))
    assert abs(res.n_flips - alpha * n_u) <= 0.5
    if data == "PU":
        assert res.probs.shape == (s.shape[0],)
        np.testing.assert_array_equal(res.rows, np.arange(s.shape[0]))
        assert res.probs.sum() == pytest.approx(s.sum() + res.n_flips, rel=1e-9)
        np.testing.assert_array_equal(res.unlabeled_probs, res.probs[s == 0])
    else:
        assert res.probs.shape == (n_u,)
        np.testing.assert_array_equal(res.rows, np.flatnonzero(s == 0))
        assert res.probs.sum() == pytest.approx(res.n_flips, rel=1e-9)
    # the calibration map is increasing in the probability
    order = np.argsort(p[res.rows], kind="stable")
    assert np.all(np.diff(res.probs[order]) >= -1e-12)
    np.testing.assert_allclose(res.transform(p[res.rows]), res.probs)


@pytest.mark.parametrize("data", ["PU", "U"])
def test_sigmoid_preserves_sum_to_optimizer_tolerance(data):
    """Logistic regression with an unpenalized intercept: sum(p_i - y_i) = 0 at the
    optimum; lbfgs stops at tol 1e-10, so a relative error of 1e-4 is ample."""
    _, y, s, p = _scar_data(n=2000, seed=2)
    alpha = float(y[s == 0].mean())
    res = calibrate_probabilities(p, s, alpha, method="sigmoid", data=data, random_state=0)
    target = res.n_flips + (s.sum() if data == "PU" else 0)
    assert res.probs.sum() == pytest.approx(target, rel=1e-4)
    order = np.argsort(p[res.rows])
    assert np.all(np.diff(res.probs[order]) >= -1e-12)


@pytest.mark.parametrize("method", ["isotonic", "sigmoid"])
def test_calibration_improves_brier_on_scar_data(method):
    """On SCAR data with known labels, calibrating with the true alpha lowers the Brier
    score of the unlabeled rows and the calibration error (curve closer to y = x)."""
    _, y, s, p = _scar_data(n=4000, seed=3, sep=3.0)
    u = s == 0
    alpha = float(y[u].mean())

    def ece(prob, yy):
        d = calibration_curve_data(prob, yy, n_bins=10)
        return float(np.sum(d["count"] * np.abs(d["mean_predicted"] - d["fraction_positive"])) / yy.shape[0])

    b0 = np.mean((p[u] - y[u]) ** 2)
    for data in ("U", "PU"):
        res = calibrate_probabilities(p, s, alpha, method=method, data=data, random_state=0)
        b1 = np.mean((res.unlabeled_probs - y[u]) ** 2)
        assert b1 < 0.8 * b0, (data, b1, b0)
        assert ece(res.unlabeled_probs, y[u]) < 0.5 * ece(p[u], y[u])
    # calibrated over PU, all rows are well calibrated against the true labels
    res = calibrate_probabilities(p, s, alpha, method=method, data="PU", random_state=0)
    assert ece(res.probs, y) < 0.05


def test_calibration_is_isotonic_regression_on_the_seeded_flips():
    from sklearn.isotonic import IsotonicRegression

    _, y, s, p = _scar_data(n=800, seed=4)
    a = calibrate_probabilities(p, s, 0.3, data="PU", random_state=11)
    # the seed fixes the flipped rows; the rest is a deterministic isotonic fit on them
    su = flip_labels(p, s, 0.3, random_state=11)
    labels = s.copy()
    labels[s == 0] = su
    np.testing.assert_array_equal(a.labels, labels)
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(p, labels.astype(float))
    np.testing.assert_allclose(a.probs, iso.predict(p), rtol=0, atol=1e-12)
    b = calibrate_probabilities(p, s, 0.3, data="PU", random_state=12)
    assert not np.array_equal(a.labels, b.labels)


def test_probability_calibrator_edge_cases():
    cal = ProbabilityCalibrator("isotonic")
    with pytest.raises(ValueError, match="not fitted"):
        cal.predict([0.5])
    cal.fit([0.1, 0.2, 0.3], [0, 0, 0])
    np.testing.assert_array_equal(cal.predict([0.0, 1.0]), [0.0, 0.0])
    cal = ProbabilityCalibrator("isotonic").fit([0.2, 0.4, 0.6, 0.8], [0, 1, 0, 1])
    np.testing.assert_allclose(cal.predict([0.0, 0.2, 0.5, 1.0]), [0.0, 0.0, 0.5, 1.0])  # clipped outside [0.2, 0.8]
    # alpha = 0 on 'U' data: all targets 0 -> calibrated probabilities 0
    _, _, s, p = _scar_data(n=300)
    for method in ("isotonic", "sigmoid"):
        res = calibrate_probabilities(p, s, 0.0, method=method, data="U", random_state=0)
        assert res.n_flips == 0 and np.all(res.probs == 0)
    with pytest.raises(ValueError, match="method"):
        ProbabilityCalibrator("platt")


def test_calibrate_probabilities_rejects_invalid_arguments_naming_them():
    probs, s = _pu([0.95, 0.85, 0.76, 0.55])
    ok = dict(probs=probs, s=s, alpha=0.5)
    for bad, match in [
        (dict(alpha=-0.1), "alpha"),
        (dict(alpha=1.5), "alpha"),
        (dict(alpha=float("nan")), "alpha"),
        (dict(alpha="0.3"), "alpha"),
        (dict(alpha=True), "alpha"),
        (dict(probs=probs[:-1]), "probs has 7 entries but s has 8"),
        (dict(probs=np.r_[probs[:-1], 1.2]), r"\[0, 1\]"),
        (dict(probs=np.r_[probs[:-1], np.nan]), "NaN"),
        (dict(probs=probs.reshape(2, 4)), "1-D"),
        (dict(s=np.r_[s[:-1], 2]), "0 and 1"),
        (dict(s=np.ones(8, int)), "no unlabeled"),
        (dict(s=np.zeros(8, int)), "no labeled"),
        (dict(method="platt"), "method"),
        (dict(data="P"), "data"),
        (dict(n_bins=0), "n_bins"),
        (dict(n_bins=2.5), "n_bins"),
    ]:
        kw = {**ok, **bad}
        with pytest.raises(ValueError, match=match):
            calibrate_probabilities(**kw)
    with pytest.raises(ValueError, match="alpha"):
        flip_labels(probs, s, 2.0)
    with pytest.raises(ValueError, match="no labeled"):
        flip_targets_per_bin(probs, np.zeros(8, int), 0.5)


# ----------------------------------------------------------------------- eq. 6


def test_eq6_verbatim_and_rescaled():
    P = np.array([[0.5, 0.0, 0.2, 1.0], [0.5, 0.1, 0.0, 0.3]])
    raw = combine_cluster_probabilities(P)
    np.testing.assert_allclose(raw, [0.75, 0.1, 0.2, 1.0])
    # eq. 6 loses mass: sum 2.05 < sum of the p_j = 2.6
    assert raw.sum() < P.sum()
    out = combine_cluster_probabilities(P, target=P.sum())
    assert out.sum() == pytest.approx(P.sum(), abs=1e-12)
    assert out.max() <= 1.0
    # the ranking of eq. 6 is kept (non-decreasing map), zeros stay zero
    assert np.all(np.diff(out[np.argsort(raw)]) >= 0)
    # capped: rows 3 (1.0) and 0 (0.75 t > 1) become 1; the others are scaled by
    # t = (2.6 - 2) / (0.1 + 0.2) = 2
    np.testing.assert_allclose(out, [1.0, 0.2, 0.4, 1.0])
    # "sum" combination: p = sum_j p_j, capped and rescaled to the target
    out_sum = combine_cluster_probabilities(P, target=P.sum(), combine="sum")
    assert out_sum.sum() == pytest.approx(P.sum())
    np.testing.assert_allclose(combine_cluster_probabilities(P, combine="sum"), [1.0, 0.1, 0.2, 1.0])


def test_capped_rescale_multiple_caps_and_unreachable_target():
    q = np.array([0.9, 0.8, 0.1, 0.05, 0.0])
    out = combine_cluster_probabilities(q[None, :], target=2.5)
    assert out.sum() == pytest.approx(2.5)
    assert out[0] == 1.0 and out[1] == 1.0 and out[4] == 0.0
    np.testing.assert_allclose(out[2:4], np.array([0.1, 0.05]) * 0.5 / 0.15)
    # target above the number of rows with q > 0: those rows become 1
    np.testing.assert_array_equal(combine_cluster_probabilities(q[None, :], target=10), [1, 1, 1, 1, 0])
    np.testing.assert_array_equal(combine_cluster_probabilities(q[None, :], target=0), np.zeros(5))
    with pytest.raises(ValueError, match="target"):
        combine_cluster_probabilities(q[None, :], target=-1)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        combine_cluster_probabilities([[1.5, 0.2]])
    with pytest.raises(ValueError, match="combine"):
        combine_cluster_probabilities([[0.5, 0.2]], combine="max")


def _fake_pulsnar(seed=0, n_u=1500, sizes=(150, 100, 60), alphas=(0.15, 0.1, 0.05)):
    """An object with the fitted attributes of PULSNAR: per cluster j, model probs of its
    labeled rows (high) and of all unlabeled rows (a fraction alpha_j high)."""
    rng = np.random.default_rng(seed)
    n_l = sum(sizes)
    n = n_l + n_u
    s = np.zeros(n, int)
    s[rng.choice(n, n_l, replace=False)] = 1
    labels = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    probs_l, probs_u = [], np.empty((len(sizes), n_u))
    for j, (sz, a) in enumerate(zip(sizes, alphas)):
        probs_l.append(rng.beta(4, 2, sz))
        pos = rng.random(n_u) < a
        probs_u[j] = np.where(pos, rng.beta(4, 2, n_u), rng.beta(1, 6, n_u))
    est = SimpleNamespace(
        alpha_=float(sum(alphas)), n_clusters_=len(sizes), cluster_labels_=labels,
        cluster_alphas_=np.array(alphas), cluster_probs_labeled_=probs_l,
        cluster_probs_unlabeled_=probs_u, random_state=None,
    )
    return est, s


@pytest.mark.parametrize("data", ["PU", "U"])
@pytest.mark.parametrize("method", ["isotonic", "sigmoid"])
def test_calibrate_pulsnar_sum_property(data, method):
    """Acceptance property for PULSNAR: after eq. 6 and the capped rescaling, the
    calibrated probabilities of U sum to target = sum_j round(alpha_j |U|), which is
    alpha |U| up to rounding (|difference| <= c / 2)."""
    est, s = _fake_pulsnar()
    n_u = int((s == 0).sum())
    res = calibrate_pulsnar(est, s, method=method, data=data, random_state=0)
    assert res.cluster_unlabeled_probs.shape == (3, n_u)
    assert res.target == sum(int(np.floor(a * n_u + 0.5)) for a in est.cluster_alphas_)
    assert abs(res.target - est.alpha_ * n_u) <= 3 / 2
    assert res.unlabeled_probs.sum() == pytest.approx(res.target, rel=1e-9)
    # eq. 6 before rescaling: 1 - prod(1 - p_j), sums to at most the target
    np.testing.assert_allclose(res.raw_unlabeled_probs, 1 - np.prod(1 - res.cluster_unlabeled_probs, axis=0))
    assert res.raw_unlabeled_probs.sum() <= res.cluster_unlabeled_probs.sum() + 1e-9
    # rescaling keeps eq. 6's ranking
    order = np.argsort(res.raw_unlabeled_probs, kind="stable")
    assert np.all(np.diff(res.unlabeled_probs[order]) >= -1e-12)
    if data == "PU":
        assert res.probs.shape == (s.shape[0],) and not np.isnan(res.probs).any()
        np.testing.assert_array_equal(res.probs[s == 0], res.unlabeled_probs)
        np.testing.assert_array_equal(res.probs[s == 1], res.labeled_probs)
        # each labeled row keeps its own cluster's calibrated probability
        lab = est.cluster_labels_
        for j, r in enumerate(res.cluster_results):
            np.testing.assert_array_equal(res.labeled_probs[lab == j], r.probs[: int((lab == j).sum())])
    else:
        assert res.labeled_probs is None and res.probs.shape == (n_u,)
        for j, r in enumerate(res.cluster_results):  # per cluster: the flips
            assert r.unlabeled_probs.sum() == pytest.approx(r.n_flips, rel=1e-4)


def test_calibrate_pulsnar_options_seeding_and_invalid_estimator_attributes():
    est, s = _fake_pulsnar(seed=1)
    a = calibrate_pulsnar(est, s, data="U", random_state=3)
    # cluster j flips with the seed derive_seed("calibrate_pulsnar", random_state, j)
    from pu_lib._seeding import derive_seed

    j0 = calibrate_probabilities(np.r_[est.cluster_probs_labeled_[0], est.cluster_probs_unlabeled_[0]],
                                 np.r_[np.ones(150, int), np.zeros(s.size - 310, int)], est.cluster_alphas_[0],
                                 data="U", random_state=derive_seed("calibrate_pulsnar", 3, 0))
    np.testing.assert_array_equal(a.cluster_unlabeled_probs[0], j0.unlabeled_probs)
    assert not np.array_equal(a.cluster_unlabeled_probs,
                              calibrate_pulsnar(est, s, data="U", random_state=4).cluster_unlabeled_probs)
    raw = calibrate_pulsnar(est, s, data="U", random_state=3, rescale=False)
    np.testing.assert_array_equal(raw.unlabeled_probs, a.raw_unlabeled_probs)
    summed = calibrate_pulsnar(est, s, data="U", random_state=3, combine="sum")
    assert summed.unlabeled_probs.sum() == pytest.approx(summed.target)
    # seeded estimator: random_state=None falls back to a seed derived from the estimator's
    est.random_state = 5
    np.testing.assert_array_equal(
        calibrate_pulsnar(est, s).probs,
        calibrate_pulsnar(est, s, random_state=derive_seed("calibration_from_estimator", 5)).probs)

    with pytest.raises(ValueError, match="cluster_labels_"):
        calibrate_pulsnar(est, np.r_[s, 1])
    bad = SimpleNamespace(**{**vars(est), "cluster_probs_unlabeled_": est.cluster_probs_unlabeled_[:, :-1]})
    with pytest.raises(ValueError, match="cluster_probs_unlabeled_"):
        calibrate_pulsnar(bad, s)
    bad = SimpleNamespace(**{**vars(est), "cluster_alphas_": np.array([0.1, 1.2, 0.1])})
    with pytest.raises(ValueError, match=r"cluster_alphas_\[1\]"):
        calibrate_pulsnar(bad, s)
    bad = SimpleNamespace(**{k: v for k, v in vars(est).items() if k != "alpha_"})
    with pytest.raises(ValueError, match="alpha_"):
        calibrate_pulsnar(bad, s)
    with pytest.raises(ValueError, match="data"):
        calibrate_pulsnar(est, s, data="X")


def test_calibrate_pulscar_with_fitted_attributes():
    _, y, s, p = _scar_data(n=1000, seed=5)
    est = SimpleNamespace(alpha_=0.3, probs_=p, random_state=None)
    for data in ("PU", "U"):
        r1 = calibrate_pulscar(est, s, data=data, random_state=2)
        r2 = calibrate_probabilities(p, s, 0.3, data=data, random_state=2)
        np.testing.assert_array_equal(r1.probs, r2.probs)
    with pytest.raises(ValueError, match="probs_"):
        calibrate_pulscar(est, s[:-1])
    with pytest.raises(ValueError, match="fit it first"):
        calibrate_pulscar(SimpleNamespace(alpha_=0.3), s)


# ------------------------------------------------------------ metrics and curves


def test_classification_metrics_match_sklearn():
    from sklearn import metrics as skm

    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.3).astype(int)
    p = np.clip(0.5 * y + rng.random(300) * 0.6, 0, 1)
    m = classification_metrics(y, p)
    assert tuple(m) == CLASSIFICATION_METRICS
    pred = (p >= 0.5).astype(int)
    assert m["accuracy"] == pytest.approx(skm.accuracy_score(y, pred))
    assert m["auc_roc"] == pytest.approx(skm.roc_auc_score(y, p))
    assert m["brier"] == pytest.approx(skm.brier_score_loss(y, p))
    assert m["f1"] == pytest.approx(skm.f1_score(y, pred))
    assert m["mcc"] == pytest.approx(skm.matthews_corrcoef(y, pred))
    assert m["average_precision"] == pytest.approx(skm.average_precision_score(y, p))


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_curve_data_matches_sklearn(strategy):
    from sklearn.calibration import calibration_curve

    rng = np.random.default_rng(1)
    p = rng.random(500)
    p[:10] = [0.0, 0.1, 0.2, 0.5, 1.0, 0.3, 0.3, 0.9, 0.7, 0.4]  # values on edges
    y = (rng.random(500) < p).astype(int)
    d = calibration_curve_data(p, y, n_bins=10, strategy=strategy)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=10, strategy=strategy)
    np.testing.assert_allclose(d["fraction_positive"], prob_true)
    np.testing.assert_allclose(d["mean_predicted"], prob_pred)
    assert d["count"].sum() == 500
    # empty bins are dropped
    d = calibration_curve_data([0.05, 0.07, 0.95], [0, 1, 1], n_bins=10)
    assert d["bin"].tolist() == [0, 9] and d["count"].tolist() == [2, 1]
    with pytest.raises(ValueError, match="strategy"):
        calibration_curve_data(p, y, strategy="kmeans")
    with pytest.raises(ValueError, match="probs has 499"):
        calibration_curve_data(p[:-1], y)


# ------------------------------------------------------------------ Algorithm 5


def _classification_data(seed=0, n=900, alpha=0.3):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n, n_features=8, n_informative=5, n_redundant=1,
                               weights=[0.55, 0.45], class_sep=1.5, random_state=seed)
    rng = np.random.default_rng(seed)
    s = ((y == 1) & (rng.random(n) < 0.5)).astype(int)
    return X, y, s


def test_improve_classification_relabels_top_k_with_deterministic_ties():
    s = np.array([1, 0, 0, 0, 0, 1, 0, 0])
    y_true = np.array([1, 1, 0, 1, 0, 1, 0, 0])
    cal = np.array([0.2, 0.8, 0.5, 0.5, 0.1, 0.5])  # unlabeled rows 1, 2, 3, 4, 6, 7
    X = np.zeros((8, 2))
    # alpha |U| = 0.5 * 6 = 3 -> rows 2 (0.8) then the first two of the 0.5-ties: 3, 4
    assert relabel_top_unlabeled(s, 0.5, cal).tolist() == [1, 0, 1, 1, 1, 1, 0, 0]
    # 0.25 * 6 = 1.5 -> 2 (round half up)
    assert relabel_top_unlabeled(s, 0.25, cal).tolist() == [1, 0, 1, 1, 0, 1, 0, 0]
    # the real second classifier (XGBoost, 3 folds) on the relabeled data; metrics of its
    # out-of-fold probabilities against the true labels
    from pu_lib.oof import cv_probabilities

    m, probs = improve_classification(X, s, y_true, 0.5, cal, n_folds=3, random_state=4, return_probs=True)
    expected = cv_probabilities(X, relabel_top_unlabeled(s, 0.5, cal), n_folds=3, random_state=4)
    np.testing.assert_array_equal(probs, expected)
    assert m == classification_metrics(y_true, probs)
    with pytest.raises(ValueError, match="one probability per unlabeled row"):
        improve_classification(X, s, y_true, 0.5, cal[:-1])
    with pytest.raises(ValueError, match="alpha"):
        improve_classification(X, s, y_true, 1.1, cal)
    with pytest.raises(ValueError, match="X has 7 rows"):
        improve_classification(X[:-1], s, y_true, 0.5, cal)
    with pytest.raises(ValueError, match="y_true has 7"):
        improve_classification(X, s, y_true[:-1], 0.5, cal)
    with pytest.raises(ValueError, match="labeled rows must be positives"):
        improve_classification(X, s, 1 - s, 0.5, cal)
    with pytest.raises(ValueError, match="both classes"):
        improve_classification(X, s, y_true, 1.0, cal)
    with pytest.raises(ValueError, match="no unlabeled"):
        improve_classification(X, np.ones(8, int), np.ones(8, int), 0.5, [])


def test_improve_classification_beats_baseline_with_xgboost():
    """Algorithm 5 end to end with the default XGBoost (via cv_probabilities): relabeling
    the top alpha |U| unlabeled rows improves the metrics against the true labels over
    XGBoost trained on the PU labels."""
    from pu_lib.oof import cv_probabilities

    X, y, s = _classification_data()
    u = s == 0
    alpha = float(y[u].mean())
    p = cv_probabilities(X, s, random_state=0)
    cal = calibrate_probabilities(p, s, alpha, data="U", random_state=0).unlabeled_probs
    improved = improve_classification(X, s, y, alpha, cal, random_state=0)
    base = baseline_classification(X, s, y, random_state=0)
    assert tuple(improved) == CLASSIFICATION_METRICS == tuple(base)
    for k in ("accuracy", "f1", "mcc", "auc_roc", "average_precision"):
        assert improved[k] > base[k], (k, improved[k], base[k])
    assert improved["brier"] < base["brier"]
    assert all(np.isfinite(v) for v in improved.values())
    again = improve_classification(X, s, y, alpha, cal, random_state=0)
    assert again == improved


# ------------------------------------------------- end to end with PULSCAR / PULSNAR


def test_end_to_end_pulscar_calibration():
    from pu_lib.prior import PULSCAR

    X, y, s = _classification_data(seed=1, n=800)
    est = PULSCAR(random_state=0).fit(X, s)
    n_u = int((s == 0).sum())
    for data in ("PU", "U"):
        res = calibrate_pulscar(est, s, data=data, random_state=0)
        target = int(np.floor(est.alpha_ * n_u + 0.5))
        assert res.unlabeled_probs.shape == (n_u,)
        total = res.probs.sum()
        assert total == pytest.approx(target + (s.sum() if data == "PU" else 0), rel=1e-9)
    res = calibrate_pulscar(est, s, data="U", random_state=0)
    m = improve_classification(X, s, y, est.alpha_, res.unlabeled_probs, random_state=0)
    assert set(m) == set(CLASSIFICATION_METRICS)


def test_end_to_end_pulsnar_calibration():
    from pu_lib.prior import PULSNAR

    X, y, s = _classification_data(seed=2, n=800)
    est = PULSNAR(max_clusters=4, random_state=0).fit(X, s)
    n_u = int((s == 0).sum())
    res = calibrate_pulsnar(est, s, data="U", random_state=0)
    assert res.unlabeled_probs.shape == (n_u,)
    reachable = min(res.target, int(np.count_nonzero(res.raw_unlabeled_probs > 0)))
    assert res.unlabeled_probs.sum() == pytest.approx(reachable, rel=1e-9)
    assert abs(res.target - float(np.sum(est.cluster_alphas_)) * n_u) <= est.n_clusters_ / 2 + 1e-9
    res_pu = calibrate_pulsnar(est, s, data="PU", random_state=0)
    assert res_pu.probs.shape == (s.shape[0],) and not np.isnan(res_pu.probs).any()
