"""Tests of pu_lib.ensemble.AdaPUClassifier (Ada-PU, Zhao et al., "A Boosting Algorithm
for Positive-Unlabeled Learning"; equation numbers are the paper's).

The expected values are computed here, independently of the module: ``_reference_fit``
enumerates every candidate stump (every midpoint between consecutive distinct values of
every feature, both orientations) in plain Python/numpy and evaluates eq. 8 literally,
from the initial weights of eq. 7 and the running vote ``H_{t-1}``; a few cases are also
written out as literal numbers.
"""

import math
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from pu_lib.ensemble import AdaPUClassifier

#: the error used for the weight of a perfect stump (module docstring)
EPS_FLOOR = 1e-10
#: fitted arrays that describe a model
MODEL_ARRAYS = ("feature_", "threshold_", "polarity_", "estimator_weights_", "estimator_errors_", "train_exp_loss_")


# --------------------------------------------------------------------------- reference

def _initial_weights(s, prior, scenario="single_training_set", sample_weight=None):
    """Eq. 7 per row: (P+ weight, U- weight, P- weight); a row outside a group has 0."""
    s = np.asarray(s)
    n = len(s)
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    lab = s == 1
    wp = np.where(lab, prior * sw / sw[lab].sum(), 0.0)
    if scenario == "single_training_set":
        wu = sw / sw.sum()
    else:
        wu = np.where(lab, 0.0, sw / sw[~lab].sum())
    return wp, wu, -wp


def _stump(x, thr, pol):
    """h(x) = pol above the threshold, -pol at or below it."""
    return np.where(x > thr, pol, -pol).astype(float)


def _eps(h, wp, wu, wn, H):
    """Eq. 8 with the weights w_0 exp(-/+ H_{t-1}), normalised by their signed total Z:
    returns (eps, eps_nn) (eps_nn: the U- and P- terms)."""
    cp = wp * np.exp(-H)  # P+
    cu = wu * np.exp(H)   # U-
    cn = wn * np.exp(H)   # P- (negative)
    Z = cp.sum() + cu.sum() + cn.sum()
    mis_p = cp[h < 0].sum()
    nn = cu[h > 0].sum() + cn[h > 0].sum()
    return (mis_p + nn) / Z, nn / Z


def _candidates(X):
    """(feature, threshold, split value) for every midpoint between consecutive distinct
    values of every feature, features in column order, thresholds increasing."""
    for f in range(X.shape[1]):
        vals = np.unique(X[:, f])
        for lo, hi in zip(vals[:-1], vals[1:]):
            yield f, np.float32((float(lo) + float(hi)) / 2.0), lo


def _reference_fit(X, s, prior, learning_rate, n_rounds, scenario="single_training_set", sample_weight=None):
    """Ada-PU with exhaustive thresholds, in plain numpy (see the module docstring of the
    test file). Returns a dict of per-round lists and the per-round gap between the best
    and the second best qualifying error (to check that the data have no near-ties)."""
    X = np.asarray(X, dtype=np.float32)
    wp, wu, wn = _initial_weights(s, prior, scenario, sample_weight)
    H = np.zeros(X.shape[0])
    out = {k: [] for k in ("feature", "threshold", "polarity", "eps", "alpha", "loss", "gap")}
    loss = 1.0
    for _ in range(n_rounds):
        qualifying = []
        for f, thr, lo in _candidates(X):
            for pol in (1, -1):  # +1 above first
                h = np.where(X[:, f] > lo, pol, -pol).astype(float)
                e, nn = _eps(h, wp, wu, wn, H)
                if e < 0.5 and nn >= -1e-12:
                    qualifying.append((e, f, thr, pol, h))
        if not qualifying:
            break
        best = min(qualifying, key=lambda c: c[0])  # min keeps the first of equal errors
        e, f, thr, pol, h = best
        others = sorted(c[0] for c in qualifying if c is not best)
        out["gap"].append(others[0] - e if others else np.inf)
        alpha = learning_rate * 0.5 * math.log((1 - e) / e)
        loss *= math.exp(-alpha) * (1 - e) + math.exp(alpha) * e  # Z_{t+1} / Z_t
        H = H + alpha * h
        for k, v in zip(("feature", "threshold", "polarity", "eps", "alpha", "loss"), (f, thr, pol, e, alpha, loss)):
            out[k].append(v)
    return out


def _direct_exp_loss(F, s, prior, scenario="single_training_set"):
    """The estimated exponential loss sum_i w_0(i) exp(-y_i F(x_i)) over P+, U- and P-."""
    wp, wu, wn = _initial_weights(s, prior, scenario)
    return float((wp * np.exp(-F)).sum() + (wu * np.exp(F)).sum() + (wn * np.exp(F)).sum())


def _scar(n=300, d=5, prior=0.5, c=0.3, seed=0):
    """SCAR PU data: (X, s, y)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prior).astype(int)
    X = rng.normal(size=(n, d)) + 1.2 * y[:, None] * (np.arange(d) < 3)
    s = ((y == 1) & (rng.random(n) < c)).astype(int)
    return X, s, y


def _fit(X, s, sample_weight=None, **params):
    params.setdefault("prior", 0.5)
    return AdaPUClassifier(**params).fit(X, s, sample_weight=sample_weight)


def _assert_same_model(m1, m2, exact=True):
    assert m1.n_rounds_ == m2.n_rounds_
    for name in ("feature_", "threshold_", "polarity_"):
        assert_array_equal(getattr(m1, name), getattr(m2, name), err_msg=name)
    for name in ("estimator_weights_", "estimator_errors_", "train_exp_loss_"):
        if exact:
            assert_array_equal(getattr(m1, name), getattr(m2, name), err_msg=name)
        else:
            assert_allclose(getattr(m1, name), getattr(m2, name), rtol=1e-9, atol=1e-15, err_msg=name)


# --------------------------------------------------------------------------- 1. eqs. 7-9, 12

def test_literal_two_rounds():
    """x = 0..9, labeled rows x = 3 and x = 8, prior 0.4, learning rate 1 (worked by hand).

    Eq. 7: P+ rows 3, 8 weigh 0.4/2 = 0.2, U- (all ten rows) 1/10, P- rows 3, 8 -0.2.
    Round 1, stump "+1 above 7.5": P+ error 0.2 (row 3), U- above 0.2 (rows 8, 9), P- above
    -0.2 (row 8): eps_1 = 0.2 = 1/5 (every other stump >= 0.3), alpha_1 = 1/2 ln 4 = ln 2.
    Eq. 12 (factors 2 and 1/2): P+ 0.4 (row 3), 0.1 (row 8); U- 0.05 (rows 0-7), 0.2
    (rows 8, 9); P- -0.1 (row 3), -0.4 (row 8); Z_2 = 0.8. Round 2, stump "+1 at or below
    8.5": errors P+ 0 + U- 0.2 (row 9) + P- 0 = 0.1, eps_2 = 0.1 / 0.8 = 1/8 (next best
    0.15 / 0.8), alpha_2 = 1/2 ln 7. Theorem 4.2: loss 2 sqrt(1/5 4/5) = 0.8, then
    0.8 * 2 sqrt(1/8 7/8) = sqrt(7) / 5.
    """
    X = np.arange(10.0)[:, None]
    s = np.zeros(10, dtype=int)
    s[[3, 8]] = 1
    m = _fit(X, s, n_estimators=2, splitter="best", prior=0.4, learning_rate=1.0)
    assert m.n_rounds_ == 2
    assert_array_equal(m.feature_, [0, 0])
    assert_array_equal(m.threshold_, np.array([7.5, 8.5], dtype=np.float32))
    assert_array_equal(m.polarity_, [1, -1])
    assert_allclose(m.estimator_errors_, [1 / 5, 1 / 8], rtol=1e-12)
    assert_allclose(m.estimator_weights_, [math.log(2), 0.5 * math.log(7)], rtol=1e-12)
    assert_allclose(m.train_exp_loss_, [0.8, math.sqrt(7) / 5], rtol=1e-12)
    # the vote: row 9 is ln 2 - 1/2 ln 7 < 0, rows 0-7 are -ln 2 + 1/2 ln 7 > 0
    F = m.decision_function(X)
    assert_allclose(F[9], math.log(2) - 0.5 * math.log(7), rtol=1e-12)
    assert_allclose(F[:8], -math.log(2) + 0.5 * math.log(7), rtol=1e-12)
    assert_array_equal(m.predict(X), [1] * 9 + [0])
    # the same two rounds from the reference (eqs. 7, 8, 9, 12 evaluated in this file)
    ref = _reference_fit(X, s, 0.4, 1.0, 2)
    assert ref["threshold"] == [7.5, 8.5] and ref["polarity"] == [1, -1]
    assert_allclose(ref["eps"], [1 / 5, 1 / 8], rtol=1e-12)


def test_literal_learning_rate_scales_alpha_and_update():
    """The same data with learning rate 0.5 (worked by hand): alpha_1 = 0.5 * 1/2 ln 4 =
    ln(2) / 2, and eq. 12 uses this scaled weight (factors sqrt 2 and 1/sqrt 2). Times sqrt 2:
    P+ 0.4 (row 3), 0.2 (row 8); U- 0.1 (rows 0-7), 0.2 (rows 8, 9); P- -0.2 (row 3),
    -0.4 (row 8); total 1.2, i.e. Z_2 = 0.6 sqrt 2 = e^-a (4/5) + e^a (1/5).
    Round 2 now picks "+1 above 2.5" (errors: U- rows 3-9 0.9, P- rows 3, 8 -0.6, P+ 0):
    eps_2 = 0.3 / 1.2 = 1/4 (next best 0.4 / 1.2), alpha_2 = 0.5 * 1/2 ln 3 = ln(3) / 4,
    loss 0.6 sqrt 2 (3^(-1/4) 3/4 + 3^(1/4) 1/4). With learning rate 1 round 2 chose
    "+1 at or below 8.5" instead: the learning rate enters the update."""
    X = np.arange(10.0)[:, None]
    s = np.zeros(10, dtype=int)
    s[[3, 8]] = 1
    m = _fit(X, s, n_estimators=2, splitter="best", prior=0.4, learning_rate=0.5)
    assert m.n_rounds_ == 2
    assert_array_equal(m.feature_, [0, 0])
    assert_array_equal(m.threshold_, np.array([7.5, 2.5], dtype=np.float32))
    assert_array_equal(m.polarity_, [1, 1])
    assert_allclose(m.estimator_errors_, [1 / 5, 1 / 4], rtol=1e-12)
    assert_allclose(m.estimator_weights_, [math.log(2) / 2, math.log(3) / 4], rtol=1e-12)
    z2 = 0.6 * math.sqrt(2)
    assert_allclose(m.train_exp_loss_, [z2, z2 * (3 ** -0.25 * 0.75 + 3 ** 0.25 * 0.25)], rtol=1e-12)
    ref = _reference_fit(X, s, 0.4, 0.5, 2)
    assert ref["threshold"] == [7.5, 2.5] and ref["polarity"] == [1, 1]
    assert_allclose(ref["eps"], [1 / 5, 1 / 4], rtol=1e-12)
    assert_allclose(ref["loss"], m.train_exp_loss_, rtol=1e-12)


@pytest.mark.parametrize("learning_rate", [1.0, 0.5, 0.1])
@pytest.mark.parametrize("seed", [2, 3, 12])
def test_matches_reference_on_small_random_data(seed, learning_rate):
    """Two features, ten rows, three labeled: every round's stump, eps, alpha and loss of
    splitter="best" equal the plain-numpy reference (eqs. 7, 8, 9, 12) over 6 rounds.
    (Seeds chosen so that no round has two qualifying errors within 1e-6; ties are
    tested on exact data in test_ties_go_to_the_first_candidate.)"""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(10, 2)).astype(np.float32)
    s = np.zeros(10, dtype=int)
    s[rng.choice(10, 3, replace=False)] = 1
    ref = _reference_fit(X, s, 0.45, learning_rate, 6)
    n = len(ref["eps"])
    assert n == 6
    assert min(ref["gap"]) > 1e-6  # no near-ties: the choice is well defined in floats
    m = _fit(X, s, n_estimators=6, splitter="best", prior=0.45, learning_rate=learning_rate)
    assert m.n_rounds_ == n
    assert_array_equal(m.feature_, ref["feature"])
    assert_array_equal(m.threshold_, np.array(ref["threshold"], dtype=np.float32))
    assert_array_equal(m.polarity_, ref["polarity"])
    assert_allclose(m.estimator_errors_, ref["eps"], rtol=1e-9)
    assert_allclose(m.estimator_weights_, ref["alpha"], rtol=1e-9)
    assert_allclose(m.train_exp_loss_, ref["loss"], rtol=1e-9)


def test_ties_go_to_the_first_candidate():
    """x = 0..7, labeled x = 2, 5, prior 0.25: every weight is 1/8 (P- cancels U- on the
    labeled rows), and four stumps tie at eps = 3/8: "+1 at or below 0.5", "+1 at or
    below 2.5", "+1 above 4.5", "+1 above 6.5". The first in threshold order wins; a
    duplicated column ties every stump with its copy, and the first feature wins."""
    X = np.arange(8.0)[:, None]
    s = np.zeros(8, dtype=int)
    s[[2, 5]] = 1
    wp, wu, wn = _initial_weights(s, 0.25)
    for thr, pol in [(0.5, -1), (2.5, -1), (4.5, 1), (6.5, 1)]:
        e, nn = _eps(_stump(X[:, 0], thr, pol), wp, wu, wn, np.zeros(8))
        assert e == 3 / 8 and nn >= 0
    m = _fit(X, s, n_estimators=1, splitter="best", prior=0.25)
    assert (m.feature_[0], m.threshold_[0], m.polarity_[0]) == (0, np.float32(0.5), -1)
    assert m.estimator_errors_[0] == 3 / 8
    X3 = np.column_stack([np.zeros(8), X[:, 0], X[:, 0]])  # a constant column, then the copies
    m3 = _fit(X3, s, n_estimators=5, splitter="best", prior=0.25, learning_rate=1.0)
    assert m3.feature_[0] == 1 and set(m3.feature_.tolist()) == {1}


def test_round_two_depends_on_the_update():
    """In the literal example round 2's stump (8.5, -1) has round-1 error 0.5 (it does not
    qualify on the initial weights): only the eq. 12 update makes it the best."""
    X = np.arange(10.0)[:, None]
    s = np.zeros(10, dtype=int)
    s[[3, 8]] = 1
    wp, wu, wn = _initial_weights(s, 0.4)
    h = _stump(X[:, 0], 8.5, -1)
    e0, _ = _eps(h, wp, wu, wn, np.zeros(10))
    assert_allclose(e0, 0.5, rtol=1e-12)
    m = _fit(X, s, n_estimators=2, splitter="best", prior=0.4, learning_rate=1.0)
    assert (m.threshold_[1], m.polarity_[1]) == (np.float32(8.5), -1)


# --------------------------------------------------------------------------- 2. skip rules

@pytest.mark.parametrize("mirror", [False, True])
def test_negative_nn_stump_is_skipped_and_zero_nn_allowed(mirror):
    """x = 0..9, labeled x = 3, 8, 9, prior 0.45: P+ 0.15 each, U- 0.1, P- -0.15.
    "+1 above 7.5" has the smallest error 0.15 + (0.2 - 0.3) = 0.05 but eps_nn = -0.1 < 0;
    "+1 above 8.5": 0.3 - 0.05 = 0.25, eps_nn = -0.05 < 0; both skipped.
    "+1 above 6.5": 0.15 + (0.3 - 0.3) = 0.15 with eps_nn = 0, allowed and chosen (the
    next best qualifying error is 0.25). Mirrored (x -> -x) the same stumps have the
    orientation "+1 at or below": the rules hold for both orientations."""
    sign, pol = (-1.0, -1) if mirror else (1.0, 1)
    X = sign * np.arange(10.0)[:, None]
    s = np.zeros(10, dtype=int)
    s[[3, 8, 9]] = 1
    wp, wu, wn = _initial_weights(s, 0.45)
    H = np.zeros(10)
    e, nn = _eps(_stump(X[:, 0], sign * 7.5, pol), wp, wu, wn, H)
    assert_allclose([e, nn], [0.05, -0.1], rtol=1e-9)
    e, nn = _eps(_stump(X[:, 0], sign * 6.5, pol), wp, wu, wn, H)
    assert_allclose(e, 0.15, rtol=1e-9)
    assert abs(nn) < 1e-15
    m = _fit(X, s, n_estimators=1, splitter="best", prior=0.45, learning_rate=1.0)
    assert (m.feature_[0], m.threshold_[0], m.polarity_[0]) == (0, np.float32(sign * 6.5), pol)
    assert_allclose(m.estimator_errors_[0], 0.15, rtol=1e-9)
    assert_allclose(m.estimator_weights_[0], 0.5 * math.log(0.85 / 0.15), rtol=1e-9)


def test_every_stump_fails_gives_zero_rounds():
    """x = 0..4, labeled x = 1, 3, prior 0.9: for every threshold the orientation with
    error < 0.5 has eps_nn < 0 (checked here on all 8 candidates, with a margin of 0.05),
    so no stump qualifies: zero rounds, a UserWarning, and the model predicts 0 (vote 0,
    probabilities 1/2)."""
    X = np.arange(5.0)[:, None]
    s = np.array([0, 1, 0, 1, 0])
    wp, wu, wn = _initial_weights(s, 0.9)
    n_cand = 0
    for f, thr, _ in _candidates(X.astype(np.float32)):
        for pol in (1, -1):
            e, nn = _eps(_stump(X[:, f], thr, pol), wp, wu, wn, np.zeros(5))
            assert e >= 0.5 + 0.04 or nn <= -0.04, (thr, pol, e, nn)
            n_cand += 1
    assert n_cand == 8
    with pytest.warns(UserWarning, match="no stump qualified"):
        m = _fit(X, s, n_estimators=5, splitter="best", prior=0.9)
    assert m.n_rounds_ == 0
    for name in MODEL_ARRAYS:
        assert getattr(m, name).shape == (0,)
    assert_array_equal(m.predict(X), np.zeros(5))
    assert_array_equal(m.decision_function(X), np.zeros(5))
    assert_array_equal(m.predict_proba(X), np.full((5, 2), 0.5))
    assert_array_equal(m.feature_importances_, [0.0])
    assert list(m.staged_predict(X)) == []


def test_error_exactly_one_half_does_not_qualify():
    """x = 0..3, labeled x = 0, 3, prior 0.75 (weights 3/8, 1/4, -3/8: exact in floats):
    the only stumps with eps_nn >= 0 are the two of threshold 1.5, with eps = 1/2 exactly
    (eps >= 0.5 is skipped), so no stump qualifies."""
    X = np.arange(4.0)[:, None]
    s = np.array([1, 0, 0, 1])
    wp, wu, wn = _initial_weights(s, 0.75)
    for pol in (1, -1):
        e, nn = _eps(_stump(X[:, 0], 1.5, pol), wp, wu, wn, np.zeros(4))
        assert e == 0.5 and nn > 0
    for thr in (0.5, 2.5):
        for pol in (1, -1):
            e, nn = _eps(_stump(X[:, 0], thr, pol), wp, wu, wn, np.zeros(4))
            assert e > 0.5 or nn < 0
    with pytest.warns(UserWarning, match="no stump qualified"):
        m = _fit(X, s, n_estimators=3, splitter="best", prior=0.75)
    assert m.n_rounds_ == 0


def test_no_warning_when_a_stump_qualifies():
    X = np.arange(10.0)[:, None]
    s = np.zeros(10, dtype=int)
    s[[3, 8]] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = _fit(X, s, n_estimators=3, splitter="best", prior=0.4)
    assert m.n_rounds_ >= 1


def test_random_splitter_empty_rounds_continue():
    """With random thresholds a round with no qualifying stump is empty (feature -1,
    polarity 0, weight 0, error NaN, loss unchanged) and boosting goes on: on the data
    where no stump can qualify every one of the rounds is empty."""
    X = np.arange(5.0)[:, None]
    s = np.array([0, 1, 0, 1, 0])
    m = _fit(X, s, n_estimators=7, splitter="random", n_thresholds=3, prior=0.9, random_state=0)
    assert m.n_rounds_ == 7
    assert_array_equal(m.feature_, [-1] * 7)
    assert_array_equal(m.polarity_, [0] * 7)
    assert_array_equal(m.estimator_weights_, np.zeros(7))
    assert np.isnan(m.estimator_errors_).all()
    assert_array_equal(m.train_exp_loss_, np.ones(7))
    assert_array_equal(m.decision_function(X), np.zeros(5))


# --------------------------------------------------------------------------- 3. Theorem 4.2

@pytest.mark.parametrize("splitter", ["best", "random"])
def test_theorem_4_2_identity(splitter):
    """learning_rate = 1: the estimated exponential loss computed from decision_function
    equals prod_t 2 sqrt(eps_t (1 - eps_t)) and train_exp_loss_[-1]."""
    X, s, y = _scar(n=300, d=5, prior=0.5, c=0.3, seed=1)
    prior = y.mean()
    m = _fit(X, s, n_estimators=50, splitter=splitter, prior=prior, learning_rate=1.0, random_state=0)
    assert m.n_rounds_ == 50
    used = m.feature_ >= 0
    assert used.sum() >= 30  # random thresholds: some rounds are empty (error NaN, no factor)
    eps = m.estimator_errors_[used]
    product = float(np.prod(2 * np.sqrt(eps * (1 - eps))))
    direct = _direct_exp_loss(m.decision_function(X), s, prior)
    assert product < 0.9  # the identity is not the trivial 1 = 1
    assert direct == pytest.approx(product, rel=1e-9)
    assert m.train_exp_loss_[-1] == pytest.approx(direct, rel=1e-9)


@pytest.mark.parametrize("splitter", ["best", "random"])
@pytest.mark.parametrize("scenario", ["single_training_set", "case_control"])
def test_train_exp_loss_with_learning_rate(splitter, scenario):
    """learning_rate < 1: every entry of train_exp_loss_ is the loss computed directly from
    the staged votes (and no longer the product of Theorem 4.2)."""
    X, s, y = _scar(n=300, d=5, prior=0.5, c=0.3, seed=2)
    prior = y[s == 0].mean() if scenario == "case_control" else y.mean()
    m = _fit(X, s, n_estimators=30, splitter=splitter, prior=prior, learning_rate=0.3, scenario=scenario,
             random_state=0)
    staged = [_direct_exp_loss(F, s, prior, scenario) for F in m.staged_decision_function(X)]
    assert len(staged) == m.n_rounds_ == 30
    assert_allclose(m.train_exp_loss_, staged, rtol=1e-9)
    eps = m.estimator_errors_[m.feature_ >= 0]
    assert abs(np.prod(2 * np.sqrt(eps * (1 - eps))) - staged[-1]) > 1e-3


# --------------------------------------------------------------------------- 4. determinism

def test_same_seed_same_model_different_seed_differs():
    X, s, _ = _scar(n=200, d=4, seed=3)
    m1 = _fit(X, s, n_estimators=20, random_state=7)
    m2 = _fit(X, s, n_estimators=20, random_state=7)
    _assert_same_model(m1, m2, exact=True)
    assert_array_equal(m1.decision_function(X), m2.decision_function(X))
    assert_array_equal(m1.predict(X), m2.predict(X))
    m3 = _fit(X, s, n_estimators=20, random_state=8)
    assert not np.array_equal(m1.threshold_, m3.threshold_)
    assert not np.array_equal(m1.decision_function(X), m3.decision_function(X))


def test_generator_random_state_is_reproducible():
    X, s, _ = _scar(n=200, d=4, seed=3)
    m1 = _fit(X, s, n_estimators=10, random_state=np.random.default_rng(5))
    m2 = _fit(X, s, n_estimators=10, random_state=np.random.default_rng(5))
    _assert_same_model(m1, m2, exact=True)


@pytest.mark.parametrize("splitter", ["best", "random"])
def test_n_jobs_does_not_change_the_model(splitter, monkeypatch):
    # small data would run on one thread (MIN_CELLS_PER_THREAD): lower the bar so that the
    # features really are split over two threads
    import pu_lib.ensemble.ada_pu as mod

    monkeypatch.setattr(mod, "MIN_CELLS_PER_THREAD", 1)
    X, s, _ = _scar(n=300, d=7, seed=4)
    m1 = _fit(X, s, n_estimators=25, splitter=splitter, n_thresholds=3, learning_rate=0.5, n_jobs=1, random_state=0)
    m2 = _fit(X, s, n_estimators=25, splitter=splitter, n_thresholds=3, learning_rate=0.5, n_jobs=2, random_state=0)
    assert len(set(m1.feature_.tolist())) > 1  # several features used: the split over threads matters
    _assert_same_model(m1, m2, exact=True)
    assert_array_equal(m1.decision_function(X), m2.decision_function(X))


# --------------------------------------------------------------------------- 5. vs naive AdaBoost

def test_beats_naive_pn_adaboost_on_scar_data():
    """SCAR data (prior ~0.5, c = 0.25): Ada-PU with the true prior and the default
    settings (random splitter, learning_rate 0.0001, 100 rounds) against scikit-learn's
    AdaBoost with 100 stumps trained on (X, s), accuracy on held-out rows against y.

    Measured (seeds 0, 1, 2): Ada-PU 0.75 / 0.76 / 0.77 (learning_rate 0.1: 0.69 / 0.83 /
    0.79), naive AdaBoost 0.50 / 0.52 / 0.49 (it predicts the labeled class, i.e. nearly
    always 0). With learning_rate=1 (beta = 1)
    Ada-PU drops to 0.50 / 0.50 / 0.51: after a few rounds the estimated (uPU) exponential
    loss is driven to ~0.003 by predicting almost every row positive -- the per-round
    eps_nn >= 0 rule does not stop that, hence the small learning rates of the paper.
    """
    acc_pu, acc_naive = [], []
    for seed in range(3):
        X, y = make_classification(n_samples=3000, n_features=8, n_informative=4, n_redundant=0, weights=[0.5],
                                   flip_y=0.0, random_state=seed)
        X_tr, y_tr, X_te, y_te = X[:1500], y[:1500], X[1500:], y[1500:]
        rng = np.random.default_rng(seed)
        s = ((y_tr == 1) & (rng.random(1500) < 0.25)).astype(int)
        pu = AdaPUClassifier(prior=y_tr.mean(), random_state=seed).fit(X_tr, s)
        naive = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=100,
                                   random_state=seed).fit(X_tr, s)
        acc_pu.append(np.mean(pu.predict(X_te) == y_te))
        acc_naive.append(np.mean(naive.predict(X_te) == y_te))
    assert all(a > b + 0.1 for a, b in zip(acc_pu, acc_naive)), (acc_pu, acc_naive)
    assert np.mean(acc_pu) > np.mean(acc_naive) + 0.2, (acc_pu, acc_naive)


# --------------------------------------------------------------------------- 6. sample weights

@pytest.mark.parametrize("splitter", ["best", "random"])
@pytest.mark.parametrize("scenario", ["single_training_set", "case_control"])
def test_integer_weights_equal_repeated_rows(splitter, scenario):
    X, s, _ = _scar(n=120, d=3, seed=5)
    w = np.random.default_rng(0).integers(1, 4, size=len(s))
    m_w = _fit(X, s, sample_weight=w, n_estimators=15, splitter=splitter, scenario=scenario, learning_rate=0.5,
               random_state=0)
    rows = np.repeat(np.arange(len(s)), w)
    m_r = _fit(X[rows], s[rows], n_estimators=15, splitter=splitter, scenario=scenario, learning_rate=0.5,
               random_state=0)
    assert m_w.n_rounds_ == 15
    _assert_same_model(m_w, m_r, exact=False)
    assert_allclose(m_w.decision_function(X), m_r.decision_function(X), rtol=1e-9)


def test_weights_enter_eq_7_as_documented():
    """Sample weights multiply the eq. 7 weights, normalised within each group: the
    reference with weighted eq. 7 reproduces the fitted rounds."""
    rng = np.random.default_rng(9)
    X = rng.normal(size=(12, 2)).astype(np.float32)
    s = np.zeros(12, dtype=int)
    s[[0, 4, 7, 9]] = 1
    w = rng.uniform(0.5, 2.0, size=12)
    ref = _reference_fit(X, s, 0.5, 0.7, 4, sample_weight=w)
    assert len(ref["eps"]) == 4 and min(ref["gap"]) > 1e-9
    m = _fit(X, s, sample_weight=w, n_estimators=4, splitter="best", learning_rate=0.7)
    assert_array_equal(m.feature_, ref["feature"])
    assert_array_equal(m.polarity_, ref["polarity"])
    assert_allclose(m.estimator_errors_, ref["eps"], rtol=1e-9)
    assert_allclose(m.train_exp_loss_, ref["loss"], rtol=1e-9)


@pytest.mark.parametrize("splitter", ["best", "random"])
def test_zero_weight_equals_removed_row(splitter):
    X, s, _ = _scar(n=120, d=3, seed=6)
    w = np.ones(len(s))
    drop = [0, 5, int(np.argmax(X[:, 0])), int(np.flatnonzero(s)[0])]  # incl. a feature maximum and a labeled row
    w[drop] = 0.0
    keep = w > 0
    m_w = _fit(X, s, sample_weight=w, n_estimators=15, splitter=splitter, random_state=0)
    m_r = _fit(X[keep], s[keep], n_estimators=15, splitter=splitter, random_state=0)
    _assert_same_model(m_w, m_r, exact=True)


# --------------------------------------------------------------------------- 7. case_control

@pytest.mark.parametrize("learning_rate", [1.0, 0.2])
def test_case_control_on_stacked_data_equals_single_training_set(learning_rate):
    X, s, y = _scar(n=200, d=4, seed=7)
    prior = y.mean()
    P = X[s == 1]
    X_cc = np.vstack([P, X])
    s_cc = np.array([1] * len(P) + [0] * len(X))
    m_st = _fit(X, s, prior=prior, n_estimators=20, splitter="best", learning_rate=learning_rate)
    m_cc = _fit(X_cc, s_cc, prior=prior, n_estimators=20, splitter="best", learning_rate=learning_rate,
                scenario="case_control")
    assert m_st.n_rounds_ == 20
    _assert_same_model(m_st, m_cc, exact=False)
    assert_array_equal(m_st.predict(X), m_cc.predict(X))
    # and the two scenarios do differ on the same (X, s)
    m_cc_same = _fit(X, s, prior=prior, n_estimators=20, splitter="best", learning_rate=learning_rate,
                     scenario="case_control")
    assert not np.allclose(m_cc_same.estimator_errors_, m_st.estimator_errors_)


# --------------------------------------------------------------------------- 8. staged, proba, importances

def test_staged_outputs_proba_and_importances():
    X, s, _ = _scar(n=200, d=4, seed=8)
    X_te, _, _ = _scar(n=50, d=4, seed=9)
    m = _fit(X, s, n_estimators=20, learning_rate=0.5, random_state=1)
    F = m.decision_function(X_te)
    staged_F = list(m.staged_decision_function(X_te))
    staged_p = list(m.staged_predict(X_te))
    staged_pp = list(m.staged_predict_proba(X_te))
    assert len(staged_F) == len(staged_p) == len(staged_pp) == m.n_rounds_ == 20
    assert_allclose(staged_F[-1], F, rtol=1e-12, atol=1e-12)
    assert_array_equal(staged_p[-1], m.predict(X_te))
    assert_allclose(staged_pp[-1], m.predict_proba(X_te), rtol=1e-12)
    # the first stage is alpha_1 h_1, later stages add one stump each
    f, thr, pol, al = m.feature_[0], m.threshold_[0], m.polarity_[0], m.estimator_weights_[0]
    assert_allclose(staged_F[0], al * _stump(X_te[:, f].astype(np.float32), thr, pol), rtol=1e-12)
    for t in range(1, 20):
        f, thr, pol, al = m.feature_[t], m.threshold_[t], m.polarity_[t], m.estimator_weights_[t]
        step = al * _stump(X_te[:, f].astype(np.float32), thr, pol) if f >= 0 else 0.0
        assert_allclose(staged_F[t] - staged_F[t - 1], step, atol=1e-12)
    # predict and predict_proba from the vote
    assert_array_equal(m.predict(X_te), (F > 0).astype(int))
    proba = m.predict_proba(X_te)
    assert_allclose(proba[:, 1], 1 / (1 + np.exp(-2 * F)), rtol=1e-12)
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert_array_equal(m.classes_, [0, 1])
    # importances: each feature's share of sum alpha
    imp = np.zeros(4)
    for f, al in zip(m.feature_, m.estimator_weights_):
        if f >= 0:
            imp[f] += al
    imp /= imp.sum()
    assert_allclose(m.feature_importances_, imp, rtol=1e-12)
    assert m.feature_importances_.sum() == pytest.approx(1.0)


# --------------------------------------------------------------------------- 9. perfect stump

_ALPHA_PERFECT = 0.5 * math.log((1 - EPS_FLOOR) / EPS_FLOOR)


@pytest.mark.parametrize("learning_rate", [1.0, 0.3])
def test_perfect_stump_gets_the_floored_weight_and_boosting_goes_on(learning_rate):
    """x = 0..7, labeled x >= 4, prior 0.5 (= the labeled fraction): "+1 above 3.5" has
    P+ error 0 and U- minus P- above 4/8 - 0.5 = 0, so eps = 0 (the weights 1/8 and
    0.5/4 are exact in floating point): alpha = beta 1/2 ln((1 - 1e-10) / 1e-10). The
    misclassified U- and P- weights above 3.5 cancel after the update as well, so with
    exhaustive thresholds every round picks the same stump again (no early stop)."""
    X = np.arange(8.0)[:, None]
    s = (np.arange(8) >= 4).astype(int)
    m = _fit(X, s, n_estimators=10, splitter="best", prior=0.5, learning_rate=learning_rate)
    assert m.n_rounds_ == 10
    assert np.all(m.feature_ == 0) and np.all(m.threshold_ == np.float32(3.5)) and np.all(m.polarity_ == 1)
    assert np.all(m.estimator_errors_ == 0.0)
    assert_allclose(m.estimator_weights_, learning_rate * _ALPHA_PERFECT, rtol=1e-12)
    # the estimated exponential loss falls by exp(-alpha) per round (eps = 0)
    assert_allclose(m.train_exp_loss_, np.exp(-learning_rate * _ALPHA_PERFECT * np.arange(1, 11)), rtol=1e-9)
    assert_array_equal(m.predict(X), s)


def test_a_zero_error_up_to_rounding_counts_as_perfect():
    """x = 0..9, labeled x >= 6, prior 0.4 (= the labeled fraction): "+1 above 5.5" is a
    perfect stump as above, but its error sum is a rounding residue (~1e-16) of cancelling
    0.1 sums: recorded as 0, with the floored weight (not 1/2 ln(1 / 1e-16) = 18.4)."""
    X = np.arange(10.0)[:, None]
    s = (np.arange(10) >= 6).astype(int)
    m = _fit(X, s, n_estimators=3, splitter="best", prior=0.4, learning_rate=1.0)
    assert m.estimator_errors_[0] == 0.0
    assert m.estimator_weights_[0] == pytest.approx(_ALPHA_PERFECT, rel=1e-12)
    assert (m.feature_[0], m.threshold_[0], m.polarity_[0]) == (0, np.float32(5.5), 1)


# --------------------------------------------------------------------------- 10. random splitter

@pytest.mark.parametrize("n_thresholds", [1, 5])
def test_random_thresholds_within_feature_range(n_thresholds):
    X, s, _ = _scar(n=150, d=4, seed=10)
    X = X * np.array([1.0, 10.0, 0.01, 100.0]) + np.array([0.0, -50.0, 3.0, 1000.0])
    Xf = X.astype(np.float32)
    m = _fit(X, s, n_estimators=40, n_thresholds=n_thresholds, learning_rate=0.5, random_state=2)
    used = m.feature_ >= 0
    assert used.sum() > 20
    f = m.feature_[used]
    thr = m.threshold_[used]
    assert np.all(thr >= Xf.min(axis=0)[f]) and np.all(thr <= Xf.max(axis=0)[f])


@pytest.mark.parametrize("n_thresholds", [1, 5])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_best_round_one_error_not_above_random(n_thresholds, seed):
    """Every random threshold induces a split some midpoint also induces, so the first
    round's error of splitter="best" is at most that of splitter="random"; the random
    stump's error is eq. 8 of that stump."""
    X, s, y = _scar(n=150, d=4, seed=11)
    m_best = _fit(X, s, n_estimators=1, splitter="best")
    m_rand = _fit(X, s, n_estimators=1, splitter="random", n_thresholds=n_thresholds, random_state=seed)
    assert m_rand.feature_[0] >= 0
    assert m_best.estimator_errors_[0] <= m_rand.estimator_errors_[0] + 1e-12
    wp, wu, wn = _initial_weights(s, 0.5)
    f = m_rand.feature_[0]
    h = _stump(X[:, f].astype(np.float32), m_rand.threshold_[0], m_rand.polarity_[0])
    e, nn = _eps(h, wp, wu, wn, np.zeros(len(s)))
    assert m_rand.estimator_errors_[0] == pytest.approx(e, rel=1e-9)
    assert nn >= -1e-12


def test_many_random_thresholds_reach_the_best_error():
    """Ten rows on the integers 0..9 per feature: 200 uniform thresholds per feature hit
    every unit gap (miss probability (8/9)^200 per gap), so round 1 finds the same error
    as the exhaustive search."""
    rng = np.random.default_rng(12)
    X = np.column_stack([rng.permutation(10), rng.permutation(10)]).astype(float)
    s = np.zeros(10, dtype=int)
    s[[1, 4, 6]] = 1
    m_best = _fit(X, s, n_estimators=1, splitter="best", prior=0.45)
    m_rand = _fit(X, s, n_estimators=1, splitter="random", n_thresholds=200, prior=0.45, random_state=0)
    assert m_rand.estimator_errors_[0] == pytest.approx(m_best.estimator_errors_[0], rel=1e-9)
    ref = _reference_fit(X, s, 0.45, 0.1, 1)
    assert m_best.estimator_errors_[0] == pytest.approx(ref["eps"][0], rel=1e-9)


# --------------------------------------------------------------------------- 11. bad input

@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_X_raises(bad):
    X, s, _ = _scar(n=40, d=3, seed=13)
    X[3, 1] = bad
    with pytest.raises(ValueError):
        _fit(X, s, n_estimators=3)


def test_no_labeled_positives_raises():
    X, _, _ = _scar(n=40, d=3, seed=13)
    with pytest.raises(ValueError):
        _fit(X, np.zeros(40, dtype=int), n_estimators=3)


def test_all_labeled_raises():
    X, _, _ = _scar(n=40, d=3, seed=13)
    with pytest.raises(ValueError):
        _fit(X, np.ones(40, dtype=int), n_estimators=3)


@pytest.mark.parametrize("prior", [None, 0.0, 1.0, -0.2, 1.5])
def test_bad_prior_raises_naming_prior(prior):
    X, s, _ = _scar(n=40, d=3, seed=13)
    with pytest.raises(ValueError, match="prior"):
        AdaPUClassifier(prior=prior, n_estimators=3).fit(X, s)


def test_wrong_number_of_features_at_predict_raises():
    X, s, _ = _scar(n=40, d=3, seed=13)
    m = _fit(X, s, n_estimators=3, random_state=0)
    for method in (m.predict, m.decision_function, m.predict_proba):
        with pytest.raises(ValueError):
            method(X[:, :2])
    with pytest.raises(ValueError):
        list(m.staged_decision_function(np.hstack([X, X])))


def test_predict_before_fit_raises():
    from sklearn.exceptions import NotFittedError

    X, _, _ = _scar(n=40, d=3, seed=13)
    with pytest.raises(NotFittedError):
        AdaPUClassifier(prior=0.5).predict(X)


def test_prior_estimator_name_sets_prior():
    X, s, y = _scar(n=300, d=4, seed=14)
    m = AdaPUClassifier(prior="elkan_noto_prior", n_estimators=10, random_state=0).fit(X, s)
    # the fitted estimator's prior is the one used (a bound such as 0 < prior_ < 1 holds for
    # any estimate: the base class clips alpha_ to [0, 1])
    assert type(m.prior_estimator_).__name__ == "ElkanNotoPrior"
    assert m.prior_ == pytest.approx(m.prior_estimator_.prior_)
    # the estimated prior is the one used in eq. 7: the first round's error matches
    wp, wu, wn = _initial_weights(s, m.prior_)
    f = m.feature_[0]
    h = _stump(X[:, f].astype(np.float32), m.threshold_[0], m.polarity_[0])
    e, _ = _eps(h, wp, wu, wn, np.zeros(len(s)))
    assert m.estimator_errors_[0] == pytest.approx(e, rel=1e-9)


def test_numeric_prior_is_stored():
    X, s, _ = _scar(n=40, d=3, seed=13)
    m = _fit(X, s, prior=0.37, n_estimators=3, random_state=0)
    assert m.prior_ == 0.37 and m.prior_estimator_ is None
