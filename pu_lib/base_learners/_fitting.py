"""Cloning, fitting and reading a base classifier inside a PU method: the helpers every
method that wraps a user-given scikit-learn classifier shares (the baselines, SAR-EM, the
propensity-weighted classifiers, the Elkan-Noto label-frequency estimate)."""

from __future__ import annotations

import numpy as np
from sklearn import get_config
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted, has_fit_parameter, validate_data

from pu_lib._seeding import seed_to_int as _seed_to_int
from pu_lib._validation import accepts_sparse, check_input_kind, check_X, is_sparse
from pu_lib.base_learners._factory import default_logistic_regression

__all__ = ["check_predict_X", "clone_base", "fit_base", "positive_proba"]


def clone_base(estimator, random_state):
    """Clone ``estimator`` (default: ``StandardScaler`` + ``LogisticRegression(max_iter=1000)``,
    see :func:`pu_lib.base_learners.default_logistic_regression`) and, when
    ``random_state`` is not None and the clone has a ``random_state`` parameter,
    set it to the integer seed derived from ``random_state``."""
    base = default_logistic_regression() if estimator is None else clone(estimator)
    seed = _seed_to_int(random_state)
    if seed is not None and "random_state" in base.get_params(deep=False):
        base.set_params(random_state=seed)
    return base


def fit_base(base, X, y, sample_weight=None):
    """``base.fit(X, y)``, with ``sample_weight`` passed to the base when given.

    A :class:`~sklearn.pipeline.Pipeline` gets it as ``<step>__sample_weight`` for every
    step whose ``fit`` takes ``sample_weight`` (so the default ``StandardScaler`` +
    ``LogisticRegression`` is weighted in both steps); with scikit-learn's metadata
    routing enabled it is passed as ``sample_weight`` and routed by the pipeline's own
    requests. ``ValueError`` naming the base estimator when its (final) ``fit`` takes
    no ``sample_weight``."""
    if sample_weight is None:
        return base.fit(X, y)
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


def positive_proba(estimator, X: np.ndarray) -> np.ndarray:
    """Column of ``estimator.predict_proba(X)`` belonging to class 1."""
    proba = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    classes = np.asarray(estimator.classes_)
    idx = np.flatnonzero(classes == 1)
    if idx.size != 1:
        raise ValueError(f"base estimator classes_ {classes.tolist()} do not contain class 1")
    return proba[:, idx[0]]


def check_predict_X(est, X) -> np.ndarray:
    """Prediction input: fitted estimator, feature names and count as in ``fit``
    (scikit-learn's ``validate_data(reset=False)``), finite values; a sparse ``X`` as
    CSR where the estimator takes it (:func:`pu_lib._validation.accepts_sparse`)."""
    check_is_fitted(est)
    check_input_kind(X, estimator=est)
    sparse = accepts_sparse(est) and is_sparse(X)
    X = validate_data(est, X, reset=False, dtype="numeric", ensure_all_finite=False,
                      accept_sparse="csr" if sparse else False)
    return check_X(X, accept_sparse=sparse)
