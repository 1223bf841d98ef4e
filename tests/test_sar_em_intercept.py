"""SAR-EM's learners penalise the intercept as the authors' code does (its
``LogisticRegressionPU`` is scikit-learn's liblinear, intercept_scaling=1): without the
penalty EM drifts towards e = 1 on Mushroom (docs/bekker_sar.md)."""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_allclose
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

from pu_lib.sar import SAREMClassifier, WeightedLogisticRegression


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (n, 3))
    y = (rng.random(n) < expit(2.0 + X @ np.array([1.5, -1.0, 0.5]))).astype(np.int64)
    w = rng.uniform(0.2, 2.0, n)
    return X, y, w


def test_penalized_intercept_is_liblinear():
    """penalize_intercept=True minimises liblinear's objective C sum w loss + (|w|^2 + b^2) / 2:
    same coefficients and intercept as scikit-learn's liblinear (tight tolerance), and a
    smaller |intercept| than the unpenalised fit on data with a large intercept."""
    X, y, w = _data()
    ours = WeightedLogisticRegression(penalize_intercept=True).fit(X, y, sample_weight=w)
    ref = LogisticRegression(C=1.0, solver="liblinear", tol=1e-12, max_iter=10000).fit(X, y, sample_weight=w)
    assert_allclose(ours.coef_, ref.coef_, atol=1e-5)
    assert_allclose(ours.intercept_, ref.intercept_, atol=1e-5)
    free = WeightedLogisticRegression().fit(X, y, sample_weight=w)
    assert abs(ours.intercept_[0]) < abs(free.intercept_[0])


def test_penalized_objective_gradient():
    """The objective's gradient with the intercept penalty (used by Newton and by L-BFGS,
    the solver for negative pair sums) matches central finite differences."""
    from pu_lib.base_learners._logistic import _objective

    X, y, w = _data(n=50, seed=1)
    a, b = w * y, w * (1 - y) - 0.3 * y  # some negative weights
    theta = np.array([0.3, -0.2, 0.1, 1.7])
    args = (X, a, b, 1.0 / np.sum(a + b), 0.05, True, 0.05)
    _, g = _objective(theta, *args)
    h = 1e-6
    num = [(_objective(theta + h * e, *args)[0] - _objective(theta - h * e, *args)[0]) / (2 * h)
           for e in np.eye(theta.size)]
    assert_allclose(g, num, rtol=1e-6, atol=1e-9)


def test_sar_em_default_learners_penalize_the_intercept():
    rng = np.random.default_rng(2)
    X = rng.uniform(-1.0, 1.0, (600, 3))
    y = (rng.random(600) < expit(3.0 * X[:, 0])).astype(np.int64)
    s = ((y == 1) & (rng.random(600) < expit(X[:, 2]))).astype(np.int64)
    m = SAREMClassifier(propensity_attributes=[2], max_iter=5).fit(X, s)
    assert m.estimator_.penalize_intercept and m.propensity_estimator_.penalize_intercept
