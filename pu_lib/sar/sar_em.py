"""SAR-EM: a classifier and a propensity model learned together from SAR PU data (Bekker
thesis, section 5.4.2, "EM for Propensity Estimation").

The propensity score depends only on the *propensity attributes* ``x_e``, a subset of the
attributes (section 5.4.1: ``e(x) = e(x_e)``); the class probability ``f(x) = Pr(y=1|x)``
may use them all. EM alternates:

* **E-step** -- the expected class of every row given its label (section 5.4.2):
  ``y_hat_i = s_i + (1 - s_i) f(x_i) (1 - e(x_i)) / (1 - f(x_i) e(x_i))``;
* **M-step** -- two weighted log-likelihood problems (the thesis' maximisation formula):
  ``f`` is fitted with every row once as a positive with weight ``y_hat_i`` and once as a
  negative with weight ``1 - y_hat_i``; ``e`` is fitted on the propensity attributes with
  label ``s_i`` and weight ``y_hat_i`` (only the expected positives tell about labeling).

Initialisation (the thesis' last paragraphs of 5.4.2): ``f`` is a *balanced* model that
takes the unlabeled rows as negatives -- labeled rows weighted ``1 - p`` and unlabeled rows
``p`` with ``p`` the labeled fraction, so that both classes weigh the same -- and ``e`` is
fitted with each unlabeled row weighted by that model's ``f(x)`` (labeled rows weight 1).

Convergence (thesis: "convergence of both the log likelihood and the propensity model ...
the average slope of the minimum square error line through the propensity score
prediction of the last n iterations"): after more than ``convergence_window`` iterations,
EM stops when (a) the largest log-likelihood gain over the last ``convergence_window``
iterations, ``max(ll[-n:]) - ll[-n]``, is below ``tol_loglik`` and (b) the mean absolute
least-squares slope of the unlabeled rows' propensities over the last
``convergence_window`` iterations is below ``tol_slope``; at most ``max_iter`` iterations.
The defaults (``n = 10``, both tolerances ``1e-4``, 500 iterations) are those of the
authors' ``pu_learn_sar_em``. The log-likelihood is the mean observed-data log-likelihood
``s log(f e) + (1 - s) log(1 - f e)``, the quantity EM increases (the authors track an
expected complete-data variant; the stopping rule is the same).

Final refit (thesis: "it is advisable to retrain the classifier with the obtained
propensity scores, using the propensity-weighted risk estimation method"): with
``refit=True`` (default) ``f`` is fitted once more on the propensity-weighted data set
(:func:`pu_lib.sar.propensity_weights`, Definition 7) with the learned ``e``.

Base learners: :class:`~pu_lib.sar.WeightedLogisticRegression` (``C = 1``) for both, as
the thesis (logistic regression for the classifier and the propensity model, chosen for
its calibrated probabilities, 5.6.2), warm-started from the previous iteration, with the
intercept penalised like the coefficients (``penalize_intercept=True``), as the authors'
``LogisticRegressionPU`` (scikit-learn's liblinear, ``intercept_scaling=1``) does. This
matters: on Mushroom (thesis encoding, one random propensity attribute) an unpenalised
intercept lets ``e`` drift towards 1 (the intercept of ``e`` grows without converging,
500 iterations, propensity MSE 0.075), while the penalised one converges in 84 iterations
at 0.0185, the authors' code in 83 at 0.0185 (``benchmarks/bench_sar_em_reference.py``,
docs/bekker_sar.md). Pass ``WeightedLogisticRegression()`` for an unpenalised intercept; or any
probabilistic classifier whose ``fit`` takes ``sample_weight`` (a clone per M-step; the
classifier's refit needs one that accepts negative weights, see
:mod:`pu_lib.sar.propensity_weighting`). With no propensity attribute the propensity model
is the constant weighted labeled share ``sum(y_hat s) / sum(y_hat)`` (SCAR).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from pu_lib._validation import SINGLE_TRAINING_SET, check_input_kind, validate_pu_data
from pu_lib.base import RANDOM_STATE_CONSTRAINT, PUClassifierMixin
from pu_lib.base_learners import WeightedLogisticRegression, clone_base, fit_base, positive_proba
from pu_lib.sar.propensity_weighting import fit_pair_weighted, log_odds, propensity_weights

__all__ = ["SAREMClassifier", "expected_positive", "least_squares_slope", "observed_log_likelihood"]

_EPS = 1e-12


def expected_positive(f, e, s) -> np.ndarray:
    """E-step: ``Pr(y = 1 | s, x) = s + (1 - s) f (1 - e) / (1 - f e)`` (section 5.4.2)."""
    f = np.asarray(f, dtype=np.float64)
    e = np.asarray(e, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    q = f * (1.0 - e) / np.maximum(1.0 - f * e, _EPS)
    return s + (1.0 - s) * np.clip(q, 0.0, 1.0)


def observed_log_likelihood(f, e, s) -> float:
    """Mean observed-data log-likelihood ``s log(f e) + (1 - s) log(1 - f e)``
    (``Pr(s = 1 | x) = f(x) e(x)`` under SAR)."""
    fe = np.clip(np.asarray(f, dtype=np.float64) * np.asarray(e, dtype=np.float64), _EPS, 1.0 - _EPS)
    s = np.asarray(s, dtype=np.float64)
    return float(np.mean(s * np.log(fe) + (1.0 - s) * np.log1p(-fe)))


def least_squares_slope(history) -> np.ndarray:
    """Slope of the least-squares line through each column of ``history`` (rows: equally
    spaced iterations, oldest first)."""
    h = np.asarray(history, dtype=np.float64)
    n = h.shape[0]
    t = np.arange(n, dtype=np.float64) - (n - 1) / 2.0
    return (t @ (h - h.mean(axis=0))) / float(t @ t)


class _ConstantPropensity:
    """Propensity model without attributes: the weighted labeled share (SCAR)."""

    def fit(self, s, w):
        total = float(np.sum(w))
        self.c_ = float(np.clip(np.dot(w, s) / total, _EPS, 1.0)) if total > 0 else 1.0
        return self

    def predict(self, n):
        return np.full(n, self.c_)


class SAREMClassifier(PUClassifierMixin, BaseEstimator):
    """SAR-EM (Bekker thesis, section 5.4.2): EM over a classifier ``f`` and a propensity
    model ``e`` restricted to the propensity attributes (module docstring).

    Parameters
    ----------
    estimator : classifier for ``f`` (``fit`` with ``sample_weight``, ``predict_proba``)
        or None for :class:`~pu_lib.sar.WeightedLogisticRegression`.
    propensity_estimator : classifier for ``e`` (same requirements) or None for
        :class:`~pu_lib.sar.WeightedLogisticRegression`.
    propensity_attributes : column indices of the propensity attributes, or None to take
        them from ``fit(..., propensity_attributes=...)`` (the workflow passes those of the
        SAR labeling; they win over this parameter when both are given). An empty list
        gives a constant propensity (SCAR).
    classification_attributes : column indices ``f`` uses, or None for all.
    max_iter : int, default=500
    tol_loglik : float, default=1e-4
    tol_slope : float, default=1e-4
    convergence_window : int, default=10
    refit : bool, default=True
        Refit ``f`` on the propensity-weighted data with the learned ``e``.
    random_state : seed of the base learners that take one.

    Attributes
    ----------
    estimator_ : fitted ``f``; propensity_estimator_ : fitted ``e`` (without
    propensity attributes a constant model holding the labeled share ``c_``); propensity_attributes_ : int array; n_iter_ : EM iterations;
    converged_ : bool; log_likelihoods_ : per iteration (index 0 = initial model);
    propensity_slopes_ : the mean absolute slope per iteration once the window is full;
    classes_ : ``[0, 1]``; n_features_in_.

    **predict_proba** (kind ``"posterior"``, docs/probabilities.md): the classifier
    ``f(x) = Pr(y = 1 | x)``.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "posterior"

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "propensity_estimator": [HasMethods(["fit", "predict_proba"]), None],
        "propensity_attributes": ["array-like", None],
        "classification_attributes": ["array-like", None],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol_loglik": [Interval(Real, 0, None, closed="left")],
        "tol_slope": [Interval(Real, 0, None, closed="left")],
        "convergence_window": [Interval(Integral, 2, None, closed="left")],
        "refit": ["boolean"],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }
    __metadata_request__fit = {"propensity_attributes": True}

    def __init__(self, estimator=None, *, propensity_estimator=None, propensity_attributes=None,
                 classification_attributes=None, max_iter=500, tol_loglik=1e-4, tol_slope=1e-4,
                 convergence_window=10, refit=True, random_state=None):
        self.estimator = estimator
        self.propensity_estimator = propensity_estimator
        self.propensity_attributes = propensity_attributes
        self.classification_attributes = classification_attributes
        self.max_iter = max_iter
        self.tol_loglik = tol_loglik
        self.tol_slope = tol_slope
        self.convergence_window = convergence_window
        self.refit = refit
        self.random_state = random_state

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _columns(cols, d: int, name: str) -> np.ndarray:
        arr = np.asarray(cols)
        if arr.size == 0:
            return np.empty(0, dtype=np.int64)
        if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"{name} must be a list of column indices, got {cols!r}")
        if np.any(arr < 0) or np.any(arr >= d) or np.unique(arr).size != arr.size:
            raise ValueError(f"{name} must be distinct column indices in [0, {d}), got {arr.tolist()}")
        return arr.astype(np.int64)

    def _new(self, est):
        if est is None:  # the authors' liblinear: the intercept penalised (module docstring)
            return WeightedLogisticRegression(warm_start=True, penalize_intercept=True)
        return clone_base(est, self.random_state)

    def _fit_f(self, Xf, w_pos, w_neg):
        if isinstance(self.estimator_, WeightedLogisticRegression):
            return self.estimator_.fit_pairs(Xf, w_pos, w_neg)
        return fit_pair_weighted(self.estimator, Xf, w_pos, w_neg, self.random_state)

    def _fit_e(self, Xe, s, w):
        if self.propensity_estimator_ is None or isinstance(self.propensity_estimator_, _ConstantPropensity):
            self.propensity_estimator_ = _ConstantPropensity().fit(s, w)
        elif isinstance(self.propensity_estimator_, WeightedLogisticRegression):
            self.propensity_estimator_.fit_pairs(Xe, s * w, (1.0 - s) * w)
        else:
            keep = w > 0
            self.propensity_estimator_ = fit_base(clone(self.propensity_estimator_), Xe[keep], s[keep],
                                                  sample_weight=w[keep])

    def _e(self, Xe) -> np.ndarray:
        if isinstance(self.propensity_estimator_, _ConstantPropensity):
            return self.propensity_estimator_.predict(Xe.shape[0])
        return np.clip(positive_proba(self.propensity_estimator_, Xe), _EPS, 1.0)

    def _f(self, Xf) -> np.ndarray:
        return positive_proba(self.estimator_, Xf)

    # ------------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, propensity_attributes=None, sample_weight=None):
        """Fit ``f`` and ``e`` on features ``X`` and PU labels ``s``; ``propensity_attributes``
        (column indices) as the constructor parameter of that name."""
        # EM's many small matrix-vector products run faster on one BLAS thread
        with threadpool_limits(limits=1, user_api="blas"):
            return self._fit(X, s, propensity_attributes, sample_weight)

    def _fit(self, X, s, propensity_attributes, sample_weight):
        X, s, sw, _ = validate_pu_data(self, X, s, sample_weight=sample_weight)
        d = X.shape[1]
        attrs = propensity_attributes if propensity_attributes is not None else self.propensity_attributes
        if attrs is None:
            raise ValueError("SAREMClassifier needs the propensity attributes: set propensity_attributes "
                             "or pass fit(X, s, propensity_attributes=[...])")
        self.propensity_attributes_ = self._columns(attrs, d, "propensity_attributes")
        cl = self.classification_attributes
        self.classification_attributes_ = np.arange(d) if cl is None else self._columns(cl, d,
                                                                                        "classification_attributes")
        if self.classification_attributes_.size == 0:
            raise ValueError("classification_attributes must not be empty")
        Xf = np.ascontiguousarray(X[:, self.classification_attributes_])
        Xe = np.ascontiguousarray(X[:, self.propensity_attributes_])
        sf = s.astype(np.float64)
        w = np.ones(s.shape[0]) if sw is None else sw

        # initialisation: balanced naive f, then e with unlabeled rows weighted by f
        self.estimator_ = self._new(self.estimator)
        self.propensity_estimator_ = (_ConstantPropensity() if self.propensity_attributes_.size == 0
                                      else self._new(self.propensity_estimator))
        p = float(np.dot(w, sf) / w.sum())
        self.estimator_ = self._fit_f(Xf, w * sf * (1.0 - p), w * (1.0 - sf) * p)
        f = self._f(Xf)
        self._fit_e(Xe, sf, w * (sf + (1.0 - sf) * f))
        e = self._e(Xe)
        y_hat = expected_positive(f, e, sf)
        lls = [observed_log_likelihood(f, e, sf)]
        slopes = []
        unl = sf == 0
        window = self.convergence_window
        history = []
        converged = False
        it = 0
        for it in range(1, self.max_iter + 1):
            # M-step
            self._fit_e(Xe, sf, w * y_hat)
            self.estimator_ = self._fit_f(Xf, w * y_hat, w * (1.0 - y_hat))
            # E-step
            f = self._f(Xf)
            e = self._e(Xe)
            y_hat = expected_positive(f, e, sf)
            lls.append(observed_log_likelihood(f, e, sf))
            history.append(e[unl])
            if len(history) > window:
                history.pop(0)
            if it > window:
                gain = max(lls[-window:]) - lls[-window]
                slope = float(np.mean(np.abs(least_squares_slope(history)))) if unl.any() else 0.0
                slopes.append(slope)
                if gain < self.tol_loglik and slope < self.tol_slope:
                    converged = True
                    break
        self.classes_ = np.array([0, 1])
        self.n_iter_ = int(it)
        self.converged_ = converged
        self.log_likelihoods_ = np.asarray(lls)
        self.propensity_slopes_ = np.asarray(slopes)
        if self.refit:
            w_pos, w_neg = propensity_weights(s, np.where(s == 1, e, 1.0), scenario=SINGLE_TRAINING_SET)
            self.estimator_ = self._fit_f(Xf, w * w_pos, w * w_neg)
        return self

    # ------------------------------------------------------------------ predict
    def _check(self, X):
        check_is_fitted(self, "estimator_")
        check_input_kind(X)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def predict_proba(self, X):
        """``[P(y=0 | x), P(y=1 | x)]`` of the classifier ``f``."""
        X = self._check(X)
        p = self._f(np.ascontiguousarray(X[:, self.classification_attributes_]))
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        return (self.predict_proba(X)[:, 1] > 0.5).astype(np.int64)

    def decision_function(self, X):
        """Log-odds of ``f``."""
        return log_odds(self.predict_proba(X)[:, 1])

    def propensity(self, X):
        """The learned propensity score ``e(x_e)`` of every row of ``X``."""
        X = self._check(X)
        return self._e(np.ascontiguousarray(X[:, self.propensity_attributes_]))
