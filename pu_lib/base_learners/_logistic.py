"""L2-regularised logistic regression on pair-weighted rows: each row enters once as a
positive with weight ``a_i`` and once as a negative with weight ``b_i``, and either weight
may be negative.

This is the learner both SAR methods of Bekker's thesis (chapter 5) need:

* propensity-weighted learning (Definition 7) puts every labeled row in as a positive
  with weight ``1/e`` and as a negative with weight ``1 - 1/e < 0``;
* SAR-EM's classifier M-step (section 5.4.2) puts every row in as a positive with weight
  ``y_hat`` and as a negative with weight ``1 - y_hat``.

The authors' code duplicates the data set and hands the negative weights to
scikit-learn's liblinear solver, which current scikit-learn no longer accepts in that
form. Here the pair is one term of the objective (no copy of ``X``)::

    J(w, w0) = 1/S sum_i [a_i log(1 + exp(-z_i)) + b_i log(1 + exp(z_i))] + ||w||^2 / (2 C S)
    z_i = x_i . w + w0,   S = sum_i (a_i + b_i)

which has the minimiser of scikit-learn's ``C sum_i loss_i + ||w||^2 / 2`` (the intercept
is not penalised, as scikit-learn's lbfgs solver; with ``penalize_intercept=True`` the
term is ``(||w||^2 + w0^2) / (2 C S)``, the intercept penalised like a coefficient, as
liblinear, the authors' solver, does with its default ``intercept_scaling=1``). Per row, the second derivative in ``z`` is ``(a_i + b_i) s(z)(1 - s(z))``:
with Definition 7's weights ``a + b = 1`` for a labeled row, so the objective stays convex
despite the negative weights; the L2 term keeps it bounded.

Solver: damped Newton (Cholesky of the ``(d+1) x (d+1)`` Hessian, Armijo backtracking)
while ``d <= 1000`` and every ``a_i + b_i >= 0`` (the objective is then convex), else
L-BFGS with the analytic gradient. Newton is the choice because the thesis' data sets are
ill-conditioned after one-hot encoding and [-1, 1] scaling (each one-hot group sums to a
constant, a direction only the L2 term pins down): on Adult (39k x 104) L-BFGS stopped at
1000 iterations (3.9 s) short of the optimum, Newton needs about ten steps.
``warm_start`` reuses the previous solution (SAR-EM refits the same model every
iteration, then one or two Newton steps suffice).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.optimize import minimize
from scipy.special import expit
from threadpoolctl import threadpool_limits
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from pu_lib._validation import check_input_kind, check_X

__all__ = ["WeightedLogisticRegression"]


def _newton(theta, X, a, b, inv_S, l2, fit_intercept, l2_intercept, tol, max_iter):
    """Damped Newton on :func:`_objective` (convex: ``a + b >= 0``); returns
    ``(theta, n_iter)``."""
    d = X.shape[1]
    c = a + b
    f, g = _objective(theta, X, a, b, inv_S, l2, fit_intercept, l2_intercept)
    it = 0
    for it in range(1, max_iter + 1):
        if np.max(np.abs(g)) <= tol:
            it -= 1
            break
        p = expit(X @ theta[:d] + (theta[d] if fit_intercept else 0.0))
        h = inv_S * c * p * (1.0 - p)
        H = np.empty((theta.size, theta.size))
        H[:d, :d] = X.T @ (X * h[:, None])
        H[np.arange(d), np.arange(d)] += l2
        if fit_intercept:
            H[:d, d] = H[d, :d] = X.T @ h
            H[d, d] = h.sum() + l2_intercept + 1e-12
        try:
            step = -cho_solve(cho_factor(H, check_finite=False), g, check_finite=False)
        except LinAlgError:
            step = -np.linalg.lstsq(H, g, rcond=None)[0]
        slope = float(g @ step)
        if slope >= 0:  # not a descent direction (numerical): steepest descent instead
            step, slope = -g, -float(g @ g)
        t = 1.0
        while True:  # Armijo backtracking
            f_new, g_new = _objective(theta + t * step, X, a, b, inv_S, l2, fit_intercept, l2_intercept)
            if f_new <= f + 1e-4 * t * slope:
                break
            t *= 0.5
            if t < 1e-10:  # no decrease left at machine precision: keep theta
                return theta, it
        theta = theta + t * step
        f, g = f_new, g_new
    return theta, it


def _objective(theta, X, a, b, inv_S, l2, fit_intercept, l2_intercept=0.0):
    d = X.shape[1]
    w = theta[:d]
    z = X @ w
    if fit_intercept:
        z = z + theta[d]
    # a softplus(-z) + b softplus(z) = a softplus(-z) + b (softplus(-z) + z)
    sp_neg = np.logaddexp(0.0, -z)
    loss = inv_S * float(np.dot(a + b, sp_neg) + np.dot(b, z)) + 0.5 * l2 * float(np.dot(w, w))
    if fit_intercept:
        loss += 0.5 * l2_intercept * float(theta[d]) ** 2
    gz = inv_S * ((a + b) * expit(z) - a)
    grad = np.empty_like(theta)
    grad[:d] = X.T @ gz + l2 * w
    if fit_intercept:
        grad[d] = gz.sum() + l2_intercept * theta[d]
    return loss, grad


class WeightedLogisticRegression(ClassifierMixin, BaseEstimator):
    """Binary L2 logistic regression that accepts negative sample weights.

    Parameters
    ----------
    C : float, default=1.0
        Inverse regularisation strength, as scikit-learn's ``LogisticRegression`` (the
        default of the authors' ``LogisticRegressionPU``).
    fit_intercept : bool, default=True
    tol : float, default=1e-8
        Gradient tolerance (max norm) on the weight-normalised objective ``J``.
    max_iter : int, default=1000
        Newton steps or L-BFGS iterations.
    warm_start : bool, default=False
        Start from the previous fit's coefficients (same number of features).
    penalize_intercept : bool, default=False
        Penalise the intercept with the coefficients (liblinear's behaviour, the solver of
        the Bekker thesis' code; SAR-EM's default learners use it); False: unpenalised,
        as scikit-learn's lbfgs.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features); intercept_ : ndarray of shape (1,);
    classes_ : ``[0, 1]``; n_iter_ : ndarray of shape (1,) (Newton steps or L-BFGS
    iterations); solver_ : ``"newton"`` or ``"lbfgs"``.
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "warm_start": ["boolean"],
        "penalize_intercept": ["boolean"],
    }

    def __init__(self, *, C=1.0, fit_intercept=True, tol=1e-8, max_iter=1000, warm_start=False,
                 penalize_intercept=False):
        self.C = C
        self.fit_intercept = fit_intercept
        self.penalize_intercept = penalize_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.warm_start = warm_start

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit on 0/1 labels ``y`` with ``sample_weight`` (any sign; default 1)."""
        from sklearn.utils.multiclass import check_classification_targets

        check_input_kind(X)
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        check_classification_targets(y)
        y = np.asarray(y)
        bad = np.setdiff1d(np.unique(y), [0, 1])
        if bad.size:
            raise ValueError(f"WeightedLogisticRegression takes 0/1 labels, found {bad[:5].tolist()}")
        w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if w.shape != (X.shape[0],) or not np.all(np.isfinite(w)):
            raise ValueError(f"sample_weight must be finite with shape ({X.shape[0]},), got shape {w.shape}")
        pos = y == 1
        return self._fit_pairs(X, np.where(pos, w, 0.0), np.where(pos, 0.0, w))

    def fit_pairs(self, X, weight_pos, weight_neg):
        """Fit with every row of ``X`` once as a positive (weight ``weight_pos``) and once
        as a negative (weight ``weight_neg``); either may be negative or zero."""
        self._validate_params()
        check_input_kind(X)
        X = validate_data(self, X, dtype=np.float64, reset=True)
        a = np.asarray(weight_pos, dtype=np.float64)
        b = np.asarray(weight_neg, dtype=np.float64)
        for name, v in (("weight_pos", a), ("weight_neg", b)):
            if v.shape != (X.shape[0],) or not np.all(np.isfinite(v)):
                raise ValueError(f"{name} must be finite with shape ({X.shape[0]},), got shape {v.shape}")
        return self._fit_pairs(X, a, b)

    def _fit_pairs(self, X, a, b):
        X = np.ascontiguousarray(X)
        check_X(X)
        S = float(np.sum(a + b))
        if not S > 0:
            raise ValueError(f"the total weight sum(weight_pos + weight_neg) must be positive, got {S}")
        d = X.shape[1]
        theta0 = np.zeros(d + 1 if self.fit_intercept else d)
        if self.warm_start and hasattr(self, "coef_") and self.coef_.shape[1] == d:
            theta0[:d] = self.coef_[0]
            if self.fit_intercept:
                theta0[d] = self.intercept_[0]
        elif self.fit_intercept:  # start at the weighted log-odds of the positive share
            pa = np.clip(a.sum() / S, 1e-6, 1 - 1e-6)
            theta0[d] = np.log(pa / (1 - pa))
        l2 = 1.0 / (self.C * S)
        args = (X, a, b, 1.0 / S, l2, self.fit_intercept, l2 if self.penalize_intercept else 0.0)
        # one BLAS thread: the products are small matrix-vector ones, where OpenBLAS'
        # threads cost more than they save (measured 5x slower on 2 cores at 20k x 6)
        with threadpool_limits(limits=1, user_api="blas"):
            if d <= 1000 and np.all(a + b >= 0):
                theta, nit = _newton(theta0, *args, self.tol, self.max_iter)
                self.solver_ = "newton"
            else:
                res = minimize(_objective, theta0, args=args, jac=True, method="L-BFGS-B",
                               options={"maxiter": self.max_iter, "gtol": self.tol,
                                        "ftol": 64 * np.finfo(float).eps})
                theta, nit = res.x, int(res.nit)
                self.solver_ = "lbfgs"
        self.coef_ = theta[:d].reshape(1, d).copy()
        self.intercept_ = np.array([theta[d] if self.fit_intercept else 0.0])
        self.n_iter_ = np.array([int(nit)])
        self.classes_ = np.array([0, 1])
        return self

    def decision_function(self, X):
        check_is_fitted(self, "coef_")
        check_input_kind(X)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict_proba(self, X):
        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        return (self.decision_function(X) > 0).astype(np.int64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
