"""Naive PU baseline: unlabeled examples are treated as negatives.

The base classifier is cloned, fitted with sample weights and read through the helpers
of :mod:`pu_lib.base_learners`; training data are checked by
:func:`pu_lib._validation.validate_pu_data`, as for the prior estimators.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import HasMethods

from pu_lib._validation import validate_pu_data
from pu_lib.base import RANDOM_STATE_CONSTRAINT, SPARSE_WITH_BASE, PUClassifierMixin
from pu_lib.base_learners import check_predict_X, clone_base, fit_base, positive_proba

__all__ = ["NaivePUClassifier"]


# ------------------------------------------------------------------- estimator


class NaivePUClassifier(PUClassifierMixin, BaseEstimator):
    """Naive PU baseline: fit a standard classifier on ``(X, s)``.

    Every unlabeled example is treated as a negative, so the model estimates the
    *non-traditional* ``Pr(s = 1 | x)`` rather than ``Pr(y = 1 | x)``. Under SCAR,
    ``Pr(s = 1 | x) = c Pr(y = 1 | x)`` with label frequency ``c`` (Elkan & Noto,
    2008), so the ranking of the examples is correct but the probabilities are
    too low by the factor ``c``. This is the "Naive" baseline of the Bekker thesis
    (ch. 5) and of the PU literature.

    Parameters
    ----------
    estimator : unfitted probabilistic classifier (``fit`` and ``predict_proba``), cloned
        in ``fit``; default ``StandardScaler`` + ``LogisticRegression(max_iter=1000)``.
    random_state : None, int, ``numpy.random.Generator`` or ``RandomState``. When not None and the
        base estimator has a ``random_state`` parameter, the clone's
        ``random_state`` is set to it (an int is used unchanged).

    Attributes
    ----------
    estimator_ : the fitted clone.
    classes_ : ``array([0, 1])``.
    n_features_in_ : number of features seen in ``fit``.
    feature_names_in_ : column names of a DataFrame ``X`` (only then).

    **predict_proba** (kind ``"labeled"``, docs/probabilities.md): the base model's
    ``Pr(s = 1 | x)``; :class:`pu_lib.calibration.PUCalibratedClassifier` turns it into
    ``Pr(y = 1 | x)`` with the class prior.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "labeled"

    #: sparse X (as CSR) when the base learner takes it (its scikit-learn tag; not the
    #: default StandardScaler + LogisticRegression, which centres the columns)
    _accepts_sparse = SPARSE_WITH_BASE

    _parameter_constraints: dict = {
        "estimator": [None, HasMethods(["fit", "predict_proba"])],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(self, estimator=None, *, random_state=None):
        self.estimator = estimator
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labeled indicator ``s`` (1 labeled, 0 unlabeled).

        ``sample_weight`` (optional, non-negative) is passed to the base estimator's
        ``fit`` (``ValueError`` naming the base estimator when it takes none); rows of
        weight 0 are dropped first, so integer weights give the model of duplicated
        rows and zero weights that of removed rows."""
        X, s, w, _ = validate_pu_data(self, X, s, sample_weight=sample_weight)
        base = clone_base(self.estimator, self.random_state)
        fit_base(base, X, s, w)
        self.estimator_ = base
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X) -> np.ndarray:
        """``(n, 2)`` array; column 1 is the base model's ``Pr(s = 1 | x)``."""
        X = check_predict_X(self, X)
        p = positive_proba(self.estimator_, X)
        return np.column_stack([1.0 - p, p])

    def predict(self, X) -> np.ndarray:
        """1 where ``predict_proba(X)[:, 1] >= 0.5``, else 0."""
        return (self.predict_proba(X)[:, 1] >= 0.5).astype(np.int64)

    def decision_function(self, X) -> np.ndarray:
        """The base estimator's ``decision_function`` when it has one (e.g. the
        logit of logistic regression), otherwise ``predict_proba(X)[:, 1] - 0.5``;
        in both cases positive values mean "more positive" (the sign need not agree
        exactly with :meth:`predict` for bases with their own decision function)."""
        X = check_predict_X(self, X)
        if hasattr(self.estimator_, "decision_function"):
            d = np.asarray(self.estimator_.decision_function(X), dtype=np.float64)
            if d.ndim == 2 and d.shape[1] == 1:
                d = d.ravel()
            if d.ndim == 1:
                return d
        return positive_proba(self.estimator_, X) - 0.5
