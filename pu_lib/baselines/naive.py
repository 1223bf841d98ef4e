"""Naive PU baseline: unlabeled examples are treated as negatives.

Also the helpers both baselines of this subpackage share (:mod:`pu_lib.baselines.elkan_noto`
imports them): cloning the base classifier, fitting it with sample weights, reading its
class-1 probability and checking prediction input. Training data are checked by
:func:`pu_lib._validation.validate_pu_data`, as for the prior estimators.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.validation import check_is_fitted, has_fit_parameter, validate_data

from pu_lib._seeding import seed_to_int as _seed_to_int
from pu_lib._validation import check_input_kind, check_X
from pu_lib.base import PUClassifierMixin
from pu_lib._validation import validate_pu_data
from pu_lib.base import RANDOM_STATE_CONSTRAINT

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
        base = clone(estimator)
    seed = _seed_to_int(random_state)
    if seed is not None and "random_state" in base.get_params(deep=False):
        base.set_params(random_state=seed)
    return base


def _fit_base(base, X, y, sample_weight=None):
    """``base.fit(X, y)``, with ``sample_weight`` passed to the base when given.

    A :class:`~sklearn.pipeline.Pipeline` gets it as ``<step>__sample_weight`` for every
    step whose ``fit`` takes ``sample_weight`` (so the default ``StandardScaler`` +
    ``LogisticRegression`` is weighted in both steps); with scikit-learn's metadata
    routing enabled it is passed as ``sample_weight`` and routed by the pipeline's own
    requests. ``ValueError`` naming the base estimator when its (final) ``fit`` takes
    no ``sample_weight``."""
    if sample_weight is None:
        return base.fit(X, y)
    from sklearn import get_config
    from sklearn.pipeline import Pipeline

    if isinstance(base, Pipeline) and not get_config().get("enable_metadata_routing", False):
        steps = [(name, step) for name, step in base.steps if step not in (None, "passthrough")]
        if not steps or not has_fit_parameter(steps[-1][1], "sample_weight"):
            final = type(steps[-1][1]).__name__ if steps else "none"
            raise ValueError(f"the base estimator Pipeline (final step {final}) does not accept sample_weight in fit")
        params = {f"{name}__sample_weight": sample_weight for name, step in steps
                  if has_fit_parameter(step, "sample_weight")}
        return base.fit(X, y, **params)
    if not isinstance(base, Pipeline) and not has_fit_parameter(base, "sample_weight"):
        raise ValueError(f"the base estimator {type(base).__name__} does not accept sample_weight in fit")
    return base.fit(X, y, sample_weight=sample_weight)


def _positive_proba(estimator, X: np.ndarray) -> np.ndarray:
    """Column of ``estimator.predict_proba(X)`` belonging to class 1."""
    proba = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    classes = np.asarray(estimator.classes_)
    idx = np.flatnonzero(classes == 1)
    if idx.size != 1:
        raise ValueError(f"base estimator classes_ {classes.tolist()} do not contain class 1")
    return proba[:, idx[0]]


def _check_predict_X(est, X) -> np.ndarray:
    """Prediction input: fitted estimator, feature names and count as in ``fit``
    (scikit-learn's ``validate_data(reset=False)``), finite values."""
    check_is_fitted(est)
    check_input_kind(X)
    X = validate_data(est, X, reset=False, dtype="numeric", ensure_all_finite=False)
    return check_X(X)


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
    random_state : None, int or ``numpy.random.Generator``. When not None and the
        base estimator has a ``random_state`` parameter, the clone's
        ``random_state`` is set to it (an int is used unchanged).

    Attributes
    ----------
    estimator_ : the fitted clone.
    classes_ : ``array([0, 1])``.
    n_features_in_ : number of features seen in ``fit``.
    feature_names_in_ : column names of a DataFrame ``X`` (only then).
    """

    _parameter_constraints: dict = {
        "estimator": [None, HasMethods(["fit", "predict_proba"])],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(self, estimator=None, random_state=None):
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
        base = _clone_base(self.estimator, self.random_state)
        _fit_base(base, X, s, w)
        self.estimator_ = base
        self.classes_ = np.array([0, 1])
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
