"""Tests of pu_lib.sar: propensity-weighted learning with known propensities (Bekker thesis,
section 5.3, Definition 7; case-control: section 2.4.3), its SCAR special case with the
label frequency, SAR-EM (section 5.4.2) and the weighted logistic regression they use.

The expected values are computed here, independently of the module: the fully labeled
risk ``mean(y delta_1 + (1 - y) delta_0)`` from the true classes, the weights of
Definition 7 written out as literal numbers, scikit-learn's ``LogisticRegression`` on
explicitly duplicated data sets, finite differences of the objective, and synthetic data
whose true class probability and propensity are known in closed form.

Statistical checks state their tolerance where they are made: a mean over ``R``
independent labelings must lie within 4 standard errors (``std / sqrt(R)``) of its
expected value; every random draw has a fixed seed, so the tests are deterministic.
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from pu_lib.labeling import sar_bekker
from pu_lib.sar import (
    LabelFrequencyWeightedClassifier,
    PropensityWeightedClassifier,
    SAREMClassifier,
    WeightedLogisticRegression,
    expected_positive,
    least_squares_slope,
    propensity_weighted_risk,
    propensity_weights,
)
from pu_lib.base_learners._logistic import _objective

#: tolerance of a mean over independent draws, in standard errors
N_SE = 4.0
#: pointwise losses (delta_1, delta_0) of a prediction p in [0, 1], written out here
LOSSES = {
    "mse": (lambda p: (1.0 - p) ** 2, lambda p: p ** 2),
    "log_loss": (lambda p: -np.log(p), lambda p: -np.log(1.0 - p)),
    "zero_one": (lambda p: (p < 0.5).astype(float), lambda p: (p >= 0.5).astype(float)),
}


def _fully_labeled_risk(y_pred, y, loss):
    d1, d0 = LOSSES[loss]
    return float(np.mean(y * d1(y_pred) + (1 - y) * d0(y_pred)))


# --------------------------------------------------------------------------- risk: unbiasedness

def _risk_data(n, seed=0):
    """``X`` uniform(-1, 1) with 4 columns, ``y ~ Bernoulli(sigmoid(3 x0 - 2 x1))``, the SAR
    propensity ``e = sigmoid(1.5 x0 + 2 x2 - 0.5)`` (in about [0.02, 0.95]; correlated with
    the class through x0, so ignoring it biases the risk) and a fixed prediction vector in
    [0.01, 0.99] that is neither the truth nor constant."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (n, 4))
    y = (rng.random(n) < expit(3.0 * X[:, 0] - 2.0 * X[:, 1])).astype(np.int64)
    e = expit(1.5 * X[:, 0] + 2.0 * X[:, 2] - 0.5)
    y_pred = np.clip(expit(2.0 * X[:, 0] - X[:, 1] + 0.3 * X[:, 3]), 0.01, 0.99)
    return X, y, e, y_pred


def _labelings(y, e, R, seed):
    """``R`` independent labelings (rows): ``s ~ Bernoulli(e)`` on the positives, 0 elsewhere."""
    rng = np.random.default_rng(seed)
    return ((y == 1) & (rng.random((R, y.shape[0])) < e)).astype(np.int8)


def _risks(y_pred, S, e, loss, **kw):
    return np.array([propensity_weighted_risk(y_pred, s, e, loss=loss, **kw) for s in S])


@pytest.fixture(scope="module")
def risk_setup():
    X, y, e, y_pred = _risk_data(400)
    return y, e, y_pred


@pytest.mark.parametrize("loss", ["mse", "log_loss", "zero_one"])
def test_propensity_weighted_risk_is_unbiased_under_sar(risk_setup, loss):
    """Definition 7 with the true e: the mean over R = 2000 labelings s ~ Bernoulli(e) of
    the weighted risk is the fully labeled risk within 4 standard errors; the naive risk
    (e = 1: every unlabeled row a negative) is off by more than 50 standard errors
    (measured: 100-140 SE; a 10 % error in e, e * 1.1 or e / 1.1, is already 25-37 SE off)."""
    y, e, y_pred = risk_setup
    R = 2000
    S = _labelings(y, e, R, seed=1)
    truth = _fully_labeled_risk(y_pred, y, loss)
    r = _risks(y_pred, S, e, loss)
    se = r.std(ddof=1) / math.sqrt(R)
    assert abs(r.mean() - truth) < N_SE * se, (r.mean(), truth, se)
    naive = _risks(y_pred, S, np.ones_like(e), loss)
    se_naive = naive.std(ddof=1) / math.sqrt(R)
    assert abs(naive.mean() - truth) > 50 * max(se, se_naive)
    assert abs(naive.mean() - truth) > 0.05  # and by a lot in absolute terms


@pytest.mark.parametrize("loss", ["mse", "log_loss", "zero_one"])
def test_propensity_weighted_risk_is_unbiased_under_scar(risk_setup, loss):
    """SCAR: e = c = 0.4 for every row, s ~ Bernoulli(c) on the positives; mean over R =
    2000 labelings within 4 standard errors of the fully labeled risk."""
    y, _, y_pred = risk_setup
    R, c = 2000, 0.4
    e = np.full(y.shape[0], c)
    S = _labelings(y, e, R, seed=2)
    r = _risks(y_pred, S, e, loss)
    se = r.std(ddof=1) / math.sqrt(R)
    assert abs(r.mean() - _fully_labeled_risk(y_pred, y, loss)) < N_SE * se


def test_propensity_weighted_risk_does_not_depend_on_e_of_unlabeled_rows(risk_setup):
    y, e, y_pred = risk_setup
    s = _labelings(y, e, 1, seed=3)[0]
    e2 = np.where(s == 1, e, np.nan)  # unlabeled rows' propensities are not read
    assert propensity_weighted_risk(y_pred, s, e2, loss="mse") == propensity_weighted_risk(y_pred, s, e, loss="mse")


@pytest.mark.parametrize("loss", ["mse", "log_loss", "zero_one"])
def test_case_control_risk_is_close_to_unbiased(loss):
    """Case-control (propensity_weights' docstring): U is every row, P (s = 1) the labeled
    positives, here drawn as s ~ Bernoulli(e) on the positives (inclusion probability
    proportional to e), prior = the population's positive share. The estimate is
    self-normalised (c = 1 / mean_P(1/e) is taken from P), so it is consistent, not
    exactly unbiased: its ratio bias is O(1/n_P). With n = 4000 rows (n_P about 1000) that
    bias is about 0.5 standard errors of the mean of R = 2000 draws (measured with 200,000
    draws: about 1.5 SE at n = 400), so the mean must lie within 4 SE of the fully labeled
    risk. Ignoring the propensities (e = 1, which is SCAR case-control with the P rows
    weighted equally) is off by more than 30 SE."""
    _, y, e, y_pred = _risk_data(4000, seed=5)
    R = 2000
    S = _labelings(y, e, R, seed=6)
    prior = float(y.mean())
    truth = _fully_labeled_risk(y_pred, y, loss)
    r = _risks(y_pred, S, e, loss, scenario="case_control", prior=prior)
    se = r.std(ddof=1) / math.sqrt(R)
    assert abs(r.mean() - truth) < N_SE * se, (r.mean(), truth, se)
    flat = _risks(y_pred, S, np.ones_like(e), loss, scenario="case_control", prior=prior)
    assert abs(flat.mean() - truth) > 30 * max(se, flat.std(ddof=1) / math.sqrt(R))


def test_case_control_risk_matches_the_literal_formula():
    """One draw: 1/n sum_U delta_0 + alpha * sum_P (delta_1 - delta_0)/e / sum_P 1/e."""
    _, y, e, y_pred = _risk_data(400, seed=7)
    s = _labelings(y, e, 1, seed=8)[0]
    lab = s == 1
    d1, d0 = LOSSES["mse"]
    alpha = 0.45
    expected = np.mean(d0(y_pred)) + alpha * np.sum((d1(y_pred) - d0(y_pred))[lab] / e[lab]) / np.sum(1 / e[lab])
    got = propensity_weighted_risk(y_pred, s, e, loss="mse", scenario="case_control", prior=alpha)
    assert got == pytest.approx(expected, rel=1e-12)


# --------------------------------------------------------------------------- symmetric rewriting

def _weighted_risk(y_pred, w_pos, w_neg, loss):
    d1, d0 = LOSSES[loss]
    return float(np.mean(w_pos * d1(y_pred) + w_neg * d0(y_pred)))


def test_symmetric_weighting_shifts_the_zero_one_risk_by_a_constant(risk_setup):
    """0-1 loss (delta_0 + delta_1 = 1): K d1 + (1-K) d0 = (2K-1) d1 + (1-K), so the
    symmetric weights give the risk minus 1/n sum_lab (1 - K), K = 1/e >= 1, for every
    prediction vector."""
    y, e, _ = risk_setup
    s = _labelings(y, e, 1, seed=9)[0]
    lab = s == 1
    neg = propensity_weights(s, e, weighting="negative")
    sym = propensity_weights(s, e, weighting="symmetric")
    const = np.sum(1.0 - 1.0 / e[lab]) / y.shape[0]
    rng = np.random.default_rng(10)
    diffs = []
    for _ in range(6):
        y_pred = rng.random(y.shape[0])
        r_neg = _weighted_risk(y_pred, *neg, "zero_one")
        assert r_neg == pytest.approx(propensity_weighted_risk(y_pred, s, e, loss="zero_one"), abs=1e-12)
        diffs.append(r_neg - _weighted_risk(y_pred, *sym, "zero_one"))
    assert_allclose(diffs, const, rtol=0, atol=1e-12)
    assert np.all(sym[0] >= 0) and np.all(sym[1] >= 0)
    # not so for a non-symmetric loss: the difference then depends on the predictions
    d = [_weighted_risk(p, *neg, "mse") - _weighted_risk(p, *sym, "mse") for p in (np.full(y.shape[0], 0.2),
                                                                                  np.full(y.shape[0], 0.5))]
    assert abs(d[0] - d[1]) > 1e-3


def test_symmetric_weighting_case_control_on_both_sides_of_one_half():
    """Case-control K = alpha c n / (e n_P) can be below 1/2: then the labeled row's terms
    are K + (1 - 2K) d0 (a negative with weight 1 - 2K). The 0-1 risk still shifts by
    1/n sum_lab [K >= 1/2] (1 - K) + [K < 1/2] K."""
    s = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    e = np.array([0.1, 0.3, 0.9, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    prior = 0.4
    n, n_p = 10, 4
    c = 1.0 / np.mean(1.0 / e[:4])
    K = prior * c * n / (e[:4] * n_p)
    assert K.min() < 0.5 < K.max()  # both branches
    neg = propensity_weights(s, e, scenario="case_control", prior=prior)
    sym = propensity_weights(s, e, scenario="case_control", prior=prior, weighting="symmetric")
    assert_allclose(neg[0][:4], K, rtol=1e-12)
    assert_allclose(neg[1][:4], 1 - K, rtol=1e-12)
    assert_allclose(sym[0][:4], np.maximum(2 * K - 1, 0), rtol=1e-12)
    assert_allclose(sym[1][:4], np.maximum(1 - 2 * K, 0), rtol=1e-12)
    const = np.sum(np.where(K >= 0.5, 1 - K, K)) / n
    for y_pred in np.random.default_rng(11).random((8, n)):
        diff = _weighted_risk(y_pred, *neg, "zero_one") - _weighted_risk(y_pred, *sym, "zero_one")
        assert diff == pytest.approx(const, abs=1e-12)


# --------------------------------------------------------------------------- propensity_weights

def test_propensity_weights_closed_forms():
    s = np.array([1, 1, 0, 0, 1])
    e = np.array([0.5, 0.25, 0.9, np.nan, 1.0])  # unlabeled rows' values are never read
    w_pos, w_neg = propensity_weights(s, e)
    assert_allclose(w_pos, [2.0, 4.0, 0.0, 0.0, 1.0])
    assert_allclose(w_neg, [-1.0, -3.0, 1.0, 1.0, 0.0])
    w_pos, w_neg = propensity_weights(s, e, weighting="symmetric")
    assert_allclose(w_pos, [3.0, 7.0, 0.0, 0.0, 1.0])
    assert_allclose(w_neg, [0.0, 0.0, 1.0, 1.0, 0.0])
    # case-control, prior 0.4: c = 1/mean(1/e) = 3/7, K = 0.4 (3/7) 5 / (3 e) = 2 / (7 e)
    w_pos, w_neg = propensity_weights(s, e, scenario="case_control", prior=0.4)
    assert_allclose(w_pos, [4 / 7, 8 / 7, 0.0, 0.0, 2 / 7], rtol=1e-12)
    assert_allclose(w_neg, [3 / 7, -1 / 7, 1.0, 1.0, 5 / 7], rtol=1e-12)
    w_pos, w_neg = propensity_weights(s, e, scenario="case_control", prior=0.4, weighting="symmetric")
    assert_allclose(w_pos, [1 / 7, 9 / 7, 0.0, 0.0, 0.0], rtol=1e-12, atol=1e-15)
    assert_allclose(w_neg, [0.0, 0.0, 1.0, 1.0, 3 / 7], rtol=1e-12, atol=1e-15)
    # SCAR: e = c, every labeled row 1/c and 1 - 1/c
    w_pos, w_neg = propensity_weights(s, np.full(5, 0.5))
    assert_allclose(w_pos, [2, 2, 0, 0, 2])
    assert_allclose(w_neg, [-1, -1, 1, 1, -1])


@pytest.mark.parametrize(
    "s, e, kw, match",
    [
        ([0, 0, 0], [0.5, 0.5, 0.5], {}, "no labeled positives"),
        ([1, 0, 1], [0.0, 0.5, 0.5], {}, r"\(0, 1\]"),
        ([1, 0, 1], [-0.2, 0.5, 0.5], {}, r"\(0, 1\]"),
        ([1, 0, 1], [0.5, 0.5, 1.2], {}, r"\(0, 1\]"),
        ([1, 0, 1], [0.5, 0.5, np.nan], {}, "NaN"),
        ([1, 0, 1], [0.5, 0.5, np.inf], {}, "finite"),
        ([1, 0, 1], [0.5, 0.5], {}, "shape"),
        ([1, 0, 1], [[0.5, 0.5, 0.5]], {}, "shape"),
        ([[1, 0, 1]], [0.5, 0.5, 0.5], {}, "1-D"),
        ([1, 0, 2], [0.5, 0.5, 0.5], {}, "0/1"),
        ([1, 0, 1], [0.5, 0.5, 0.5], {"scenario": "case_control"}, "prior"),
        ([1, 0, 1], [0.5, 0.5, 0.5], {"scenario": "case_control", "prior": 1.0}, "prior"),
        ([1, 0, 1], [0.5, 0.5, 0.5], {"scenario": "other"}, "scenario"),
        ([1, 0, 1], [0.5, 0.5, 0.5], {"weighting": "positive"}, "weighting"),
    ],
)
def test_propensity_weights_errors(s, e, kw, match):
    with pytest.raises(ValueError, match=match):
        propensity_weights(np.array(s), np.array(e), **kw)


def test_propensity_weighted_risk_errors():
    s, e = np.array([1, 0, 1]), np.array([0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="loss"):
        propensity_weighted_risk(np.full(3, 0.5), s, e, loss="hinge")
    with pytest.raises(ValueError, match="y_pred"):
        propensity_weighted_risk(np.full(4, 0.5), s, e)


# --------------------------------------------------------------------------- WeightedLogisticRegression

def _lr_data(n=500, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (rng.random(n) < expit(X @ rng.normal(size=d) + 0.3)).astype(np.int64)
    return X, y, rng


def _sk_lr(**kw):
    return LogisticRegression(C=1.0, solver="lbfgs", tol=1e-12, max_iter=10000, **kw)


def test_weighted_lr_equals_sklearn_with_positive_sample_weights():
    X, y, rng = _lr_data()
    w = rng.uniform(0.2, 3.0, y.shape[0])
    for sw in (None, w):
        ours = WeightedLogisticRegression().fit(X, y, sample_weight=sw)
        ref = _sk_lr().fit(X, y, sample_weight=sw)
        assert_allclose(ours.coef_, ref.coef_, atol=1e-4)
        assert_allclose(ours.intercept_, ref.intercept_, atol=1e-4)
        assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-5)
    # C is the inverse regularisation strength as in scikit-learn
    ours = WeightedLogisticRegression(C=0.05).fit(X, y, sample_weight=w)
    assert_allclose(ours.coef_, _sk_lr().set_params(C=0.05).fit(X, y, sample_weight=w).coef_, atol=1e-4)
    assert_array_equal(ours.classes_, [0, 1])


def test_weighted_lr_fit_pairs_equals_duplicated_data_set():
    """Every row once as a positive with weight w and once as a negative with weight 1 - w
    equals scikit-learn on the data set written out twice (labels 1 then 0)."""
    X, _, rng = _lr_data(seed=1)
    n = X.shape[0]
    w = rng.random(n)
    ours = WeightedLogisticRegression().fit_pairs(X, w, 1.0 - w)
    ref = _sk_lr().fit(np.vstack([X, X]), np.r_[np.ones(n), np.zeros(n)], sample_weight=np.r_[w, 1.0 - w])
    assert_allclose(ours.coef_, ref.coef_, atol=1e-4)
    assert_allclose(ours.intercept_, ref.intercept_, atol=1e-4)


def test_weighted_lr_negative_weights_match_sklearn_and_reach_a_stationary_point():
    """Definition 7's weights (1/e, 1 - 1/e < 0 on labeled rows): scikit-learn's lbfgs
    takes negative sample weights too, on the same objective; the analytic gradient
    vanishes at the solution."""
    X, y, rng = _lr_data(n=800, seed=2)
    e = rng.uniform(0.2, 0.9, y.shape[0])
    s = ((y == 1) & (rng.random(y.shape[0]) < e)).astype(np.int64)
    w_pos, w_neg = propensity_weights(s, e)
    assert np.any(w_neg < 0)
    ours = WeightedLogisticRegression().fit_pairs(X, w_pos, w_neg)
    pos, neg = w_pos != 0, w_neg != 0
    ref = _sk_lr().fit(np.vstack([X[pos], X[neg]]), np.r_[np.ones(pos.sum()), np.zeros(neg.sum())],
                       sample_weight=np.r_[w_pos[pos], w_neg[neg]])
    assert_allclose(ours.coef_, ref.coef_, atol=1e-4)
    assert_allclose(ours.intercept_, ref.intercept_, atol=1e-4)
    # fit(X, y, sample_weight) with negative weights is fit_pairs with the weights split by y
    w = rng.normal(0.5, 1.0, y.shape[0])
    a = WeightedLogisticRegression().fit(X, y, sample_weight=w)
    b = WeightedLogisticRegression().fit_pairs(X, np.where(y == 1, w, 0.0), np.where(y == 1, 0.0, w))
    assert_allclose(a.coef_, b.coef_, atol=1e-10)
    S = float(np.sum(w_pos + w_neg))
    theta = np.r_[ours.coef_[0], ours.intercept_]
    _, g = _objective(theta, X, w_pos, w_neg, 1.0 / S, 1.0 / S, True)
    assert np.max(np.abs(g)) < 1e-6


def test_weighted_lr_objective_value_and_gradient():
    """_objective's value is the documented J (written out with log1p(exp)) and its
    gradient matches central finite differences, with negative weights and without an
    intercept."""
    rng = np.random.default_rng(3)
    n, d = 60, 4
    X = rng.normal(size=(n, d))
    a = rng.normal(0.5, 1.0, n)
    b = rng.normal(0.5, 1.0, n)
    S = float(np.sum(a + b))
    assert S > 0 and np.any(a < 0) and np.any(b < 0)
    l2 = 1.0 / (2.0 * S)  # C = 2
    for fit_intercept in (True, False):
        theta = rng.normal(size=d + 1 if fit_intercept else d)
        loss, grad = _objective(theta, X, a, b, 1.0 / S, l2, fit_intercept)
        z = X @ theta[:d] + (theta[d] if fit_intercept else 0.0)
        J = np.sum(a * np.log1p(np.exp(-z)) + b * np.log1p(np.exp(z))) / S + 0.5 * l2 * theta[:d] @ theta[:d]
        assert loss == pytest.approx(J, rel=1e-12)
        h = 1e-6
        fd = np.array([(_objective(theta + h * np.eye(theta.size)[k], X, a, b, 1.0 / S, l2, fit_intercept)[0]
                        - _objective(theta - h * np.eye(theta.size)[k], X, a, b, 1.0 / S, l2, fit_intercept)[0])
                       / (2 * h) for k in range(theta.size)])
        assert_allclose(grad, fd, rtol=1e-6, atol=1e-8)


def test_weighted_lr_errors():
    X, y, _ = _lr_data(n=20)
    with pytest.raises(ValueError, match="0/1"):
        WeightedLogisticRegression().fit(X, y + 1)
    with pytest.raises(ValueError, match="sample_weight"):
        WeightedLogisticRegression().fit(X, y, sample_weight=np.ones(19))
    with pytest.raises(ValueError, match="total weight"):
        WeightedLogisticRegression().fit_pairs(X, -np.ones(20), np.zeros(20))
    with pytest.raises(ValueError, match="weight_neg"):
        WeightedLogisticRegression().fit_pairs(X, np.ones(20), np.full(20, np.nan))


# --------------------------------------------------------------------------- propensity-weighted classifiers

def _sar_class_data(n, seed):
    """X uniform(-1, 1), 4 columns; f = sigmoid(3 x0 - 2 x1); SAR labels of sar_bekker on
    attributes 0 and 2 (e in [0.2, 0.8], increasing in x0, so positives are labeled more
    often than their share: SCAR's constant c is wrong)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (n, 4))
    f = expit(3.0 * X[:, 0] - 2.0 * X[:, 1])
    y = (rng.random(n) < f).astype(np.int64)
    res = sar_bekker(X, y, k=2, attributes=[0, 2], random_state=seed)
    return X, y, res.s.astype(np.int64), res.propensity


@pytest.fixture(scope="module")
def sar_class_data():
    X, y, s, e = _sar_class_data(4000, seed=0)
    rng = np.random.default_rng(50)
    Xt = rng.uniform(-1.0, 1.0, (4000, 4))
    return X, y, s, e, Xt, expit(3.0 * Xt[:, 0] - 2.0 * Xt[:, 1])


def test_propensity_weighting_beats_naive_and_label_frequency(sar_class_data):
    """MSE against the true class probability on fresh data (measured at seeds 0-2:
    propensity-weighted 0.0002-0.0012, naive about 0.08, SCAR with the true c about 0.024):
    the propensity-weighted classifier must be 5 times better than both."""
    X, y, s, e, Xt, ft = sar_class_data
    c = float(e[y == 1].mean())

    def mse(model):
        return float(np.mean((model.predict_proba(Xt)[:, 1] - ft) ** 2))

    pw = mse(PropensityWeightedClassifier().fit(X, s, propensity=e))
    naive = mse(LabelFrequencyWeightedClassifier(label_frequency=1.0).fit(X, s))
    scar = mse(LabelFrequencyWeightedClassifier(label_frequency=c).fit(X, s))
    assert pw < 0.005
    assert pw < 0.2 * naive and pw < 0.2 * scar, (pw, naive, scar)


def test_propensity_weighting_fits_the_definition_7_data_set(sar_class_data):
    """The classifier is WeightedLogisticRegression on propensity_weights' pairs."""
    X, _, s, e, Xt, _ = sar_class_data
    model = PropensityWeightedClassifier().fit(X, s, propensity=e)
    ref = WeightedLogisticRegression().fit_pairs(X, *propensity_weights(s, e))
    assert_allclose(model.predict_proba(Xt)[:, 1], ref.predict_proba(Xt)[:, 1], atol=1e-10)
    assert_array_equal(model.predict(Xt), (model.predict_proba(Xt)[:, 1] > 0.5).astype(int))


def test_propensity_bias_moves_the_fit_the_expected_way(sar_class_data):
    """Overestimated propensities (bias 1.5) mean fewer hidden positives: a lower mean
    predicted probability; underestimated ones (1/1.5) a higher one (measured 0.33 / 0.49
    / 0.74)."""
    X, _, s, e, _, _ = sar_class_data
    means = {}
    for bias in (1 / 1.5, 1.0, 1.5):
        model = PropensityWeightedClassifier(propensity_bias=bias).fit(X, s, propensity=e)
        means[bias] = model.predict_proba(X)[:, 1].mean()
        # the biased fit is the unbiased one with e * bias (clipped to 1)
        ref = PropensityWeightedClassifier().fit(X, s, propensity=np.minimum(e * bias, 1.0))
        assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=1e-10)
    assert means[1.5] < means[1.0] - 0.05 and means[1 / 1.5] > means[1.0] + 0.05


def test_propensity_weighted_classifier_needs_valid_propensity(sar_class_data):
    X, _, s, e, _, _ = sar_class_data
    with pytest.raises(ValueError, match="propensity"):
        PropensityWeightedClassifier().fit(X, s)
    with pytest.raises(ValueError, match="propensity"):
        PropensityWeightedClassifier().fit(X, s, propensity=e[:-1])
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        PropensityWeightedClassifier().fit(X, s, propensity=np.where(s == 1, 0.0, e))


def test_sklearn_logistic_regression_takes_the_negative_weights(sar_class_data):
    X, _, s, e, Xt, _ = sar_class_data
    ours = PropensityWeightedClassifier().fit(X, s, propensity=e)
    sk = PropensityWeightedClassifier(estimator=_sk_lr()).fit(X, s, propensity=e)
    assert isinstance(sk.estimator_, LogisticRegression)
    assert_allclose(sk.predict_proba(Xt), ours.predict_proba(Xt), atol=1e-5)


def test_estimator_refusing_negative_weights_points_to_symmetric(sar_class_data):
    """scikit-learn's RandomForestClassifier (bootstrap) refuses negative sample weights
    ("probabilities are not non-negative"): the error names weighting='symmetric'; with
    the symmetric rewriting (no negative weight) the forest and a decision tree fit, and
    classify y better than the naive forest."""
    X, y, s, e, _, _ = sar_class_data
    forest = RandomForestClassifier(n_estimators=20, max_depth=4)
    with pytest.raises(ValueError, match="weighting='symmetric'"):
        PropensityWeightedClassifier(estimator=forest, random_state=0).fit(X, s, propensity=e)
    acc = {}
    for name, est in (("forest", forest), ("tree", DecisionTreeClassifier(max_depth=4))):
        model = PropensityWeightedClassifier(estimator=est, weighting="symmetric", random_state=0)
        model.fit(X, s, propensity=e)
        p = model.predict_proba(X)
        assert np.all((p >= 0) & (p <= 1))
        acc[name] = float(np.mean(model.predict(X) == y))
    naive = LabelFrequencyWeightedClassifier(estimator=forest, label_frequency=1.0, random_state=0).fit(X, s)
    acc_naive = float(np.mean(naive.predict(X) == y))
    assert min(acc.values()) > acc_naive + 0.05, (acc, acc_naive)


def test_label_frequency_classifier_is_propensity_weighting_with_constant_e(sar_class_data):
    X, _, s, _, Xt, _ = sar_class_data
    lf = LabelFrequencyWeightedClassifier(label_frequency=0.4, propensity_bias=1.5).fit(X, s)
    pw = PropensityWeightedClassifier(propensity_bias=1.5).fit(X, s, propensity=np.full(s.shape[0], 0.4))
    assert_allclose(lf.predict_proba(Xt), pw.predict_proba(Xt), atol=1e-12)
    assert lf.c_ == 0.4
    assert_allclose(lf.propensity(Xt), 0.6)
    assert_allclose(LabelFrequencyWeightedClassifier(label_frequency=0.8, propensity_bias=1.5).fit(X, s)
                    .propensity(Xt[:3]), 1.0)  # clipped
    with pytest.raises(ValueError, match="label_frequency"):
        LabelFrequencyWeightedClassifier(label_frequency=None).fit(X, s)
    # the default estimates c with TIcE (the thesis' SCAR approach with an estimated c)
    default = LabelFrequencyWeightedClassifier().fit(X, s)
    assert type(default.label_frequency_estimator_).__name__ == "TIcE"
    assert default.c_ == default.label_frequency_estimator_.c_


def test_integer_sample_weights_equal_row_duplication():
    X, _, s, e = _sar_class_data(600, seed=4)
    w = np.random.default_rng(5).integers(0, 4, s.shape[0])  # 0 removes a row
    weighted = PropensityWeightedClassifier().fit(X, s, propensity=e, sample_weight=w)
    dup = PropensityWeightedClassifier().fit(np.repeat(X, w, axis=0), np.repeat(s, w), propensity=np.repeat(e, w))
    assert_allclose(weighted.estimator_.coef_, dup.estimator_.coef_, atol=1e-6)
    assert_allclose(weighted.predict_proba(X), dup.predict_proba(X), atol=1e-6)


@pytest.mark.parametrize("model", ["propensity", "label_frequency"])
def test_integer_sample_weights_equal_row_duplication_case_control(model):
    """Case-control: weights correlated with s (3 on every labeled row) must enter n, n_P
    and c as counts (before that fix, predictions differed by up to 0.6)."""
    X, _, s, e = _sar_class_data(600, seed=4)
    w = np.where(s == 1, 3, np.random.default_rng(5).integers(0, 3, s.shape[0]))
    if model == "propensity":
        def fit(X_, s_, e_, sw=None):
            return PropensityWeightedClassifier(scenario="case_control", prior=0.5).fit(
                X_, s_, propensity=e_, sample_weight=sw)
    else:
        def fit(X_, s_, e_, sw=None):
            return LabelFrequencyWeightedClassifier(label_frequency=0.5, scenario="case_control", prior=0.5).fit(
                X_, s_, sample_weight=sw)
    weighted = fit(X, s, e, w)
    dup = fit(np.repeat(X, w, axis=0), np.repeat(s, w), np.repeat(e, w))
    assert_allclose(weighted.predict_proba(X), dup.predict_proba(X), atol=1e-6)


def test_propensity_weighted_classifier_is_deterministic_given_random_state(sar_class_data):
    """A random-state-bearing base learner (ExtraTrees, which takes negative weights): the
    same seed gives identical predictions, another seed different ones (so the seed is
    really passed on)."""
    X, _, s, e, Xt, _ = sar_class_data
    est = ExtraTreesClassifier(n_estimators=10, max_depth=5)

    def fit(seed):
        return PropensityWeightedClassifier(estimator=est, random_state=seed).fit(X, s, propensity=e)

    a, b, c = fit(3), fit(3), fit(4)
    assert_array_equal(a.predict_proba(Xt), b.predict_proba(Xt))
    assert not np.array_equal(a.predict_proba(Xt), c.predict_proba(Xt))


# --------------------------------------------------------------------------- SAR-EM

BETA = np.array([3.0, -2.0, 1.5, 0.0, 0.0, 0.0])
E_COEF = np.array([1.5, -1.0])
E_ATTRS = [3, 4]


def _em_data(n, seed):
    """X uniform(-1, 1), 6 columns; y ~ Bernoulli(sigmoid(X @ [3, -2, 1.5, 0, 0, 0]));
    e = sigmoid(X[:, [3, 4]] @ [1.5, -1.0]); s = y & Bernoulli(e)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (n, 6))
    f = expit(X @ BETA)
    y = (rng.random(n) < f).astype(np.int64)
    e = expit(X[:, E_ATTRS] @ E_COEF)
    s = ((y == 1) & (rng.random(n) < e)).astype(np.int64)
    return X, y, s, f, e


@pytest.fixture(scope="module")
def em_fit():
    X, y, s, f, e = _em_data(20000, seed=0)
    model = SAREMClassifier(propensity_attributes=E_ATTRS, random_state=0).fit(X, s)
    return model, (X, y, s, f, e)


def test_sar_em_recovers_the_propensity_model(em_fit):
    """Acceptance: the learned propensity coefficients are within 0.25 (absolute) of the
    true [1.5, -1.0] and the intercept within 0.25 of 0 (measured errors about 0.1 at three
    data seeds; n = 20000)."""
    model, (X, _, _, _, e) = em_fit
    pe = model.propensity_estimator_
    assert isinstance(pe, WeightedLogisticRegression)
    assert_allclose(pe.coef_[0], E_COEF, atol=0.25)
    assert abs(pe.intercept_[0]) < 0.25
    assert_array_equal(model.propensity_attributes_, E_ATTRS)
    # propensity(X) is that logistic model on the propensity attributes
    assert_allclose(model.propensity(X), expit(X[:, E_ATTRS] @ pe.coef_[0] + pe.intercept_[0]), rtol=1e-12)
    assert np.mean(np.abs(model.propensity(X) - e)) < 0.05


def test_sar_em_beats_scar_with_the_true_label_frequency(em_fit):
    """Acceptance: MSE against the true class probability on fresh test data (n = 20000):
    SAR-EM measured about 0.0003, SCAR weighting with the true c about 0.09; SAR-EM must be
    below 0.005 and below a tenth of the SCAR one."""
    model, (X, y, s, _, e) = em_fit
    Xt, _, _, ft, _ = _em_data(20000, seed=100)
    c = float(e[y == 1].mean())
    scar = LabelFrequencyWeightedClassifier(label_frequency=c).fit(X, s)
    mse_em = float(np.mean((model.predict_proba(Xt)[:, 1] - ft) ** 2))
    mse_scar = float(np.mean((scar.predict_proba(Xt)[:, 1] - ft) ** 2))
    assert mse_em < 0.005 and mse_em < 0.1 * mse_scar, (mse_em, mse_scar)


def test_sar_em_converges_with_non_decreasing_log_likelihood(em_fit):
    """EM increases the observed log-likelihood (up to the tiny L2 penalty and the
    solver's tolerance): every step's change is >= -1e-8 (measured minimum +3e-7)."""
    model, _ = em_fit
    assert model.converged_ is True
    # measured 85 of max_iter 500 (OpenBLAS SkylakeX and Haswell kernels); near the stop the
    # slope falls ~5% a step, so rounding can move the count by one, far inside these bounds,
    # which say only that EM took many steps and stopped by its rule, not at max_iter
    assert 10 < model.n_iter_ < model.max_iter
    ll = model.log_likelihoods_
    assert ll.shape == (model.n_iter_ + 1,)
    assert np.all(np.diff(ll) >= -1e-8), np.diff(ll).min()
    assert ll[-1] > ll[0]
    assert model.propensity_slopes_[-1] < model.tol_slope


def test_sar_em_refit_is_propensity_weighting_with_the_learned_e(em_fit):
    model, (X, _, s, _, _) = em_fit
    e_hat = model.propensity(X)
    # SAR-EM's default learners penalise the intercept (the authors' liblinear)
    ref = PropensityWeightedClassifier(estimator=WeightedLogisticRegression(penalize_intercept=True)).fit(
        X, s, propensity=e_hat)
    assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=1e-5)


def test_expected_positive_closed_form():
    f = np.array([0.5, 0.5, 0.8, 1.0, 0.3, 0.9])
    e = np.array([0.5, 0.5, 0.0, 0.5, 1.0, 0.7])
    s = np.array([1, 0, 0, 0, 0, 0])
    got = expected_positive(f, e, s)
    # Bayes: Pr(y=1 | s=0, x) = Pr(y=1, s=0 | x) / Pr(s=0 | x) = f (1 - e) / (1 - f e)
    assert_allclose(got, [1.0, 1 / 3, 0.8, 1.0, 0.0, 0.9 * 0.3 / (1 - 0.63)], rtol=1e-12)
    rng = np.random.default_rng(0)
    f, e = rng.random(50), rng.random(50)
    assert_allclose(expected_positive(f, e, np.ones(50)), 1.0)
    assert_allclose(expected_positive(f, e, np.zeros(50)), f * (1 - e) / (1 - f * e), rtol=1e-12)


def test_least_squares_slope():
    t = np.arange(10.0)
    hist = np.column_stack([2.0 + 0.5 * t, -3.0 * t, np.full(10, 7.0)])
    assert_allclose(least_squares_slope(hist), [0.5, -3.0, 0.0], atol=1e-12)
    noisy = np.random.default_rng(1).normal(size=(10, 4)) + t[:, None] * np.array([1.0, -2.0, 0.0, 0.3])
    assert_allclose(least_squares_slope(noisy), [np.polyfit(t, noisy[:, j], 1)[0] for j in range(4)], rtol=1e-10)


def test_sar_em_without_propensity_attributes_is_scar():
    """No propensity attribute: the propensity is one constant, here near the true label
    frequency 0.5 of SCAR data (tolerance 0.1; n = 5000)."""
    rng = np.random.default_rng(7)
    n = 5000
    X = rng.uniform(-1.0, 1.0, (n, 3))
    y = (rng.random(n) < expit(4.0 * X[:, 0] - 3.0 * X[:, 1])).astype(np.int64)
    s = ((y == 1) & (rng.random(n) < 0.5)).astype(np.int64)
    model = SAREMClassifier(propensity_attributes=[], random_state=0).fit(X, s)
    p = model.propensity(X)
    assert np.all(p == p[0])
    assert abs(p[0] - 0.5) < 0.1, p[0]
    assert model.propensity_attributes_.size == 0


def test_sar_em_attribute_errors():
    X, _, s, _, _ = _em_data(300, seed=1)
    with pytest.raises(ValueError, match="propensity attributes"):
        SAREMClassifier().fit(X, s)
    for bad in ([6], [-1], [3, 3], [1.5], [[3, 4]]):
        with pytest.raises(ValueError, match="propensity_attributes"):
            SAREMClassifier(max_iter=2).fit(X, s, propensity_attributes=bad)
    with pytest.raises(ValueError, match="classification_attributes"):
        SAREMClassifier(classification_attributes=[9], max_iter=2).fit(X, s, propensity_attributes=[0])
    # fit's propensity_attributes win over the constructor's
    m = SAREMClassifier(propensity_attributes=[0], max_iter=2).fit(X, s, propensity_attributes=[2, 5])
    assert_array_equal(m.propensity_attributes_, [2, 5])
    m = SAREMClassifier(propensity_attributes=[1], max_iter=2).fit(X, s)
    assert_array_equal(m.propensity_attributes_, [1])


def test_sar_em_is_deterministic_given_random_state():
    X, _, s, _, _ = _em_data(800, seed=2)
    Xt = _em_data(200, seed=3)[0]

    def fit():
        return SAREMClassifier(propensity_attributes=E_ATTRS, random_state=5).fit(X, s)

    a, b = fit(), fit()
    assert a.n_iter_ == b.n_iter_
    assert_array_equal(a.predict_proba(Xt), b.predict_proba(Xt))
    assert_array_equal(a.propensity(Xt), b.propensity(Xt))
    assert_array_equal(a.log_likelihoods_, b.log_likelihoods_)


def test_sar_em_integer_sample_weights_equal_row_duplication():
    X, _, s, _, _ = _em_data(2000, seed=2)
    w = np.random.default_rng(6).integers(0, 4, s.shape[0])
    a = SAREMClassifier(propensity_attributes=E_ATTRS).fit(X, s, sample_weight=w)
    b = SAREMClassifier(propensity_attributes=E_ATTRS).fit(np.repeat(X, w, axis=0), np.repeat(s, w))
    assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-6)
    assert_allclose(a.propensity(X), b.propensity(X), atol=1e-6)


def test_sar_em_with_sklearn_logistic_regression_matches_the_default():
    """scikit-learn's LogisticRegression (C = 1, lbfgs, tight tol) for both models solves
    the same weighted problems as WeightedLogisticRegression with an unpenalised intercept
    (measured difference 1e-7)."""
    X, _, s, _, _ = _em_data(2000, seed=2)
    a = SAREMClassifier(estimator=WeightedLogisticRegression(), propensity_estimator=WeightedLogisticRegression(),
                        propensity_attributes=E_ATTRS).fit(X, s)
    b = SAREMClassifier(estimator=_sk_lr(), propensity_estimator=_sk_lr(), propensity_attributes=E_ATTRS).fit(X, s)
    assert isinstance(b.estimator_, LogisticRegression) and isinstance(b.propensity_estimator_, LogisticRegression)
    assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-5)
    assert_allclose(a.propensity(X), b.propensity(X), atol=1e-5)
