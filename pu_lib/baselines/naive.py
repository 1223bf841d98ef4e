"""Naive PU baseline: unlabeled examples are treated as negatives."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from pu_lib._validation import check_X, check_X_s
from pu_lib._seeding import seed_to_int as _seed_to_int

__all__ = ["NaivePUClassifier"]


# ---------------------------------------------------------------- shared helpers


def _clone_base(estimator, random_state):
    """Clone ``estimator`` (default: ``StandardScaler`` + ``LogisticRegression(max_iter=1000)``,
    see :func:`pu_lib.base_estimators.default_logistic_regression`) and, when
    ``random_state`` is not None and the clone has a ``random_state`` parameter,
    set it to the integer seed derived from ``random_state``."""
    if estimator is None:
        from pu_lib.base_estimators import default_logistic_regression

        base = default_logistic_regression()
    else:
        if not (hasattr(estimator, "fit") and hasattr(estimator, "predict_proba")):
            raise ValueError(
                "estimator must be a classifier with fit and predict_proba, "
                f"got {type(estimator).__name__}"
            )
        base = clone(estimator)
    seed = _seed_to_int(random_state)
    if seed is not None and "random_state" in base.get_params(deep=False):
        base.set_params(random_state=seed)
    return base


def _positive_proba(estimator, X: np.ndarray) -> np.ndarray:
    """Column of ``estimator.predict_proba(X)`` belonging to class 1."""
    proba = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    classes = np.asarray(estimator.classes_)
    idx = np.flatnonzero(classes == 1)
    if idx.size != 1:
        raise ValueError(f"base estimator classes_ {classes.tolist()} do not contain class 1")
    return proba[:, idx[0]]


def _check_predict_X(est, X) -> np.ndarray:
    check_is_fitted(est)
    X = check_X(X)
    if X.shape[1] != est.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(est).__name__} was fitted with "
            f"{est.n_features_in_} features"
        )
    return X


# ------------------------------------------------------------------- estimator


class NaivePUClassifier(ClassifierMixin, BaseEstimator):
    """Naive PU baseline: fit a standard classifier on ``(X, s)``.

    Every unlabeled example is treated as a negative, so the model estimates the
    *non-traditional* ``Pr(s = 1 | x)`` rather than ``Pr(y = 1 | x)``. Under SCAR,
    ``Pr(s = 1 | x) = c Pr(y = 1 | x)`` with label frequency ``c`` (Elkan & Noto,
    2008), so the ranking of the examples is correct but the probabilities are
    too low by the factor ``c``. This is the "Naive" baseline of the Bekker thesis
    (ch. 5) and of the PU literature.

    Parameters
    ----------
    estimator : unfitted probabilistic classifier, cloned in ``fit``; default
        ``StandardScaler`` + ``LogisticRegression(max_iter=1000)``.
    random_state : None, int or ``numpy.random.Generator``. When not None and the
        base estimator has a ``random_state`` parameter, the clone's
        ``random_state`` is set to it (an int is used unchanged).

    Attributes
    ----------
    estimator_ : the fitted clone.
    classes_ : ``array([0, 1])``.
    n_features_in_ : number of features seen in ``fit``.
    """

    def __init__(self, estimator=None, random_state=None):
        self.estimator = estimator
        self.random_state = random_state

    def fit(self, X, s):
        """Fit on features ``X`` and labeled indicator ``s`` (1 labeled, 0 unlabeled)."""
        X, s = check_X_s(X, s)
        base = _clone_base(self.estimator, self.random_state)
        base.fit(X, s)
        self.estimator_ = base
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = X.shape[1]
        return self

    def predict_proba(self, X) -> np.ndarray:
        """``(n, 2)`` array; column 1 is the base model's ``Pr(s = 1 | x)``."""
        X = _check_predict_X(self, X)
        p = _positive_proba(self.estimator_, X)
        return np.column_stack([1.0 - p, p])

    def predict(self, X) -> np.ndarray:
        """1 where ``predict_proba(X)[:, 1] >= 0.5``, else 0."""
        return (self.predict_proba(X)[:, 1] >= 0.5).astype(np.int64)

    def decision_function(self, X) -> np.ndarray:
        """The base estimator's ``decision_function`` when it has one (e.g. the
        logit of logistic regression), otherwise ``predict_proba(X)[:, 1] - 0.5``;
        in both cases positive values mean "more positive" (the sign need not agree
        exactly with :meth:`predict` for bases with their own decision function)."""
        X = _check_predict_X(self, X)
        if hasattr(self.estimator_, "decision_function"):
            d = np.asarray(self.estimator_.decision_function(X), dtype=np.float64)
            if d.ndim == 2 and d.shape[1] == 1:
                d = d.ravel()
            if d.ndim == 1:
                return d
        return _positive_proba(self.estimator_, X) - 0.5
