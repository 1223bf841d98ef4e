"""Lee & Liu (2003) PU weighted logistic regression: the weighting identity with
scikit-learn's LogisticRegression, the r^2 / Pr(f(X) = 1) criterion on hand-computed
examples, and the selection of C."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from pu_lib.workflow import registry
from pu_lib.baselines import PUWeightedLogisticRegression
from pu_lib.baselines.weighted_lr import DEFAULT_C_GRID
from pu_lib.metrics import lee_liu
from pu_lib.oof import stratified_hold_out
from pu_lib._seeding import derive_seed


def data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    X = rng.normal(size=(n, 4)) + 1.0 * y[:, None] * np.array([1.0, 0.5, 0.0, 0.0])
    s = ((y == 1) & (rng.random(n) < 0.4)).astype(int)
    return X, s


@pytest.mark.parametrize("C", [float("inf"), 0.5])
def test_weighting_identity_with_sklearn(C):
    X, s = data()
    m = PUWeightedLogisticRegression(C=C, standardize=False).fit(X, s)
    mean_s = s.mean()
    # the PU Hellinger authors' call: class_weight={0: mean(s), 1: 1 - mean(s)}
    ref = LogisticRegression(C=C, max_iter=1000, class_weight={0: mean_s, 1: 1 - mean_s}).fit(X, s)
    np.testing.assert_allclose(m.coef_, ref.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.intercept_, ref.intercept_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.predict_proba(X), ref.predict_proba(X), rtol=1e-10, atol=1e-12)
    # ... and the same fit with per-row sample weights
    w = np.where(s == 1, 1 - mean_s, mean_s)
    np.testing.assert_allclose(m.weights_, w, rtol=1e-14)
    assert m.pos_weight_ == pytest.approx(1 - mean_s)
    ref2 = LogisticRegression(C=C, max_iter=1000).fit(X, s, sample_weight=w)
    np.testing.assert_allclose(m.coef_, ref2.coef_, rtol=1e-10, atol=1e-12)
    # balanced: both sides carry the same total weight
    assert w[s == 1].sum() == pytest.approx(w[s == 0].sum())


def test_sample_weight_multiplies_class_weights_and_balanced_uses_weighted_means():
    X, s = data(200, seed=1)
    sw = np.random.default_rng(2).integers(1, 4, size=s.size).astype(float)
    m = PUWeightedLogisticRegression(C=1.0, standardize=False).fit(X, s, sample_weight=sw)
    frac_lab = sw[s == 1].sum() / sw.sum()
    assert m.pos_weight_ == pytest.approx(1 - frac_lab)
    np.testing.assert_allclose(m.weights_, sw * np.where(s == 1, 1 - frac_lab, frac_lab))
    fixed = PUWeightedLogisticRegression(C=1.0, pos_weight=0.8, standardize=False).fit(X, s)
    np.testing.assert_allclose(fixed.weights_, np.where(s == 1, 0.8, 0.2))


def test_criterion_hand_computed():
    s = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    pred = np.array([1, 1, 1, 0, 1, 1, 0, 0, 0, 0])
    # r = 3/4; Pr(f = 1) = 5/10 over all rows -> (9/16) / (1/2) = 9/8
    assert lee_liu(s, pred) == pytest.approx(9 / 8)
    # case-control: Pr(f = 1) over the unlabeled rows = 2/6 -> (9/16) * 3 = 27/16
    assert lee_liu(s, pred, scenario="case_control") == pytest.approx(27 / 16)
    # weights: first labeled row weight 2, first unlabeled row weight 3
    w = np.array([2, 1, 1, 1, 3, 1, 1, 1, 1, 1], float)
    # r = (2+1+1)/5 = 4/5; Pr(f = 1) = (2+1+1+3+1)/13 = 8/13 -> (16/25) * (13/8) = 26/25
    assert lee_liu(s, pred, w) == pytest.approx(26 / 25)
    assert lee_liu(s, np.zeros(10, int)) == 0.0
    # everything positive: r = 1, Pr(f = 1) = 1
    assert lee_liu(s, np.ones(10, int)) == 1.0


def test_selection_scores_every_C_on_the_hold_out_and_keeps_the_best():
    X, s = data(400, seed=3)
    m = PUWeightedLogisticRegression(random_state=5).fit(X, s)
    assert list(m.criterion_) == list(DEFAULT_C_GRID)
    best = max(m.criterion_.values())
    assert m.C_ == next(c for c in DEFAULT_C_GRID if m.criterion_[c] == best)  # the first maximum
    # recompute one candidate by hand: fit on the rest with balanced weights, score the hold-out
    rng = np.random.default_rng(derive_seed(5, "PUWeightedLR", "hold_out"))
    train, _, hold, _ = stratified_hold_out(s, 0.3, rng)
    np.testing.assert_array_equal(m.hold_out_indices_, hold)
    frac = s[train].mean()
    for c in (0.01, 1.0):
        ref = PUWeightedLogisticRegression(C=c).fit(X[train], s[train])
        assert ref.pos_weight_ == pytest.approx(1 - frac)
        assert m.criterion_[c] == pytest.approx(lee_liu(s[hold], ref.predict(X[hold])))
    # the final model is the refit on all rows with C_
    np.testing.assert_allclose(m.predict_proba(X), PUWeightedLogisticRegression(C=m.C_).fit(X, s).predict_proba(X))
    # deterministic for a seed
    again = PUWeightedLogisticRegression(random_state=5).fit(X, s)
    assert again.criterion_ == m.criterion_ and again.C_ == m.C_


def test_numeric_C_skips_selection_and_predict_is_the_sign_of_the_decision():
    X, s = data()
    m = PUWeightedLogisticRegression(C=2.0).fit(X, s)
    assert m.criterion_ == {} and m.hold_out_indices_.size == 0 and m.C_ == 2.0
    d = m.decision_function(X)
    np.testing.assert_array_equal(m.predict(X), (d > 0).astype(int))
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], 1 / (1 + np.exp(-d)))


def test_bad_input():
    X, s = data()
    with pytest.raises(ValueError, match="'C' parameter"):
        PUWeightedLogisticRegression(C=0.0).fit(X, s)
    with pytest.raises(ValueError, match="C_grid"):
        PUWeightedLogisticRegression(C_grid=[1.0, -1.0]).fit(X, s)
    with pytest.raises(ValueError, match="no labeled positives"):
        PUWeightedLogisticRegression().fit(X, np.zeros_like(s))
    assert registry.make_estimator("pu_weighted_lr").C == "select"
