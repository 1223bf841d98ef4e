"""The fully supervised oracle on any base classifier: trained on the *true* classes of
the training rows, an upper bound for every PU method (Bekker's thesis, 5.6.2: "We also
show the performance given fully supervised data")."""

from __future__ import annotations

import numpy as np
from sklearn.base import _fit_context

from pu_lib._validation import is_sparse, validate_pu_data
from pu_lib.base_learners import clone_base, fit_base
from pu_lib.baselines.naive import NaivePUClassifier

__all__ = ["SupervisedClassifier"]


class SupervisedClassifier(NaivePUClassifier):
    """The base classifier fitted on the true classes ``y_true`` of the training rows.

    ``fit(X, y, y_true=None, sample_weight=None)`` trains on ``y_true`` when it is given
    and otherwise on the second argument, taken as the classes (so it works as a plain
    classifier; in a PU run the second argument is ``s`` and is ignored). The oracle input
    is declared with scikit-learn's metadata requests, so the experiment runner passes the
    true classes (:func:`pu_lib.base.fit_inputs`).

    Parameters
    ----------
    estimator : unfitted probabilistic classifier, cloned in ``fit``; default
        ``StandardScaler`` + ``LogisticRegression`` (:func:`pu_lib.base_learners.default_logistic_regression`).
    random_state : seed set on the clone when it has a ``random_state`` parameter.

    Attributes
    ----------
    estimator_ : the fitted clone; classes_ : ``[0, 1]``; n_features_in_.

    Prediction is :class:`~pu_lib.baselines.NaivePUClassifier`'s (the base model's
    probabilities), here of ``Pr(y = 1 | x)`` since the base saw the true classes.

    **predict_proba** (kind ``"posterior"``, docs/probabilities.md): ``Pr(y = 1 | x)``.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "posterior"

    __metadata_request__fit = {"y_true": True}

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, y_true=None, sample_weight=None):
        """Fit on ``X`` and the true classes ``y_true`` (default: ``y``)."""
        if y_true is not None:
            y_true = np.asarray(y_true)
            n = X.shape[0] if is_sparse(X) else (np.shape(X)[0] if np.ndim(X) else -1)
            if y_true.shape != (n,):
                raise ValueError(f"y_true must be 1-D with one class per row of X ({n}), got shape {y_true.shape}")
            y = y_true
        X, y, w, _ = validate_pu_data(self, X, y, sample_weight=sample_weight)
        self.estimator_ = fit_base(clone_base(self.estimator, self.random_state), X, y, w)
        self.classes_ = np.array([0, 1])
        return self
