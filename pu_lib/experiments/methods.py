"""Method specs of a workflow config -> estimators, on the one registry
(:mod:`pu_lib.registry`).

A method spec (one entry under ``methods:`` in a config) is::

    {"method": "elkan_noto", "base": "logistic_regression",
     "base_params": {"C": 1.0}, "params": {"hold_out_ratio": 0.1}}

``method`` is a registry name; ``base`` names a scikit-learn-style classifier from
:data:`pu_lib.base_learners.BASE_ESTIMATORS`, passed as the method's ``estimator``;
``params`` are constructor parameters, checked against the method's parameter schema
(names and scikit-learn parameter constraints) before any job runs. ``params.prior:
true`` asks the runner for the true class prior of the training rows and
``params.label_frequency: true`` for the true label frequency (mean true propensity of
the training positives; :func:`pu_lib.experiments.runner.resolve_method_spec`); both are
checked as a number here.
"""

from __future__ import annotations

from pu_lib import registry

__all__ = ["check_method_spec", "is_prior_method", "make_method"]

#: stands in for ``prior: true`` / ``label_frequency: true`` when the parameters are
#: checked (the true value is a number in (0, 1))
_TRUE_PRIOR_PLACEHOLDER = 0.5


def is_prior_method(name: str) -> bool:
    """True when the registered method ``name`` is a class-prior estimator."""
    return registry.get(name).kind == "prior"


def _params_for_check(params: dict) -> dict:
    params = dict(params or {})
    for key in ("prior", "label_frequency"):
        v = params.get(key)
        if v is True or (isinstance(v, str) and v.strip().lower() == "true"):
            params[key] = _TRUE_PRIOR_PLACEHOLDER
    return params


def check_method_spec(spec: dict) -> None:
    """Raise ``ValueError`` naming the field if a method spec is invalid: unknown method
    or base estimator, a parameter the class does not take, or a value outside the
    parameter's allowed values."""
    from pu_lib.base_learners import BASE_ESTIMATORS

    name = spec.get("method")
    try:
        method = registry.get(name)
    except ValueError as exc:
        raise ValueError(f"method: {exc}") from None
    base = spec.get("base")
    if base is not None:
        if not method.takes_base:
            raise ValueError(f"base: method {name!r} takes no base estimator")
        if base not in BASE_ESTIMATORS:
            raise ValueError(f"base: unknown base estimator {base!r}; known: {list(BASE_ESTIMATORS)}")
        check_base_params(base, spec.get("base_params"))
    elif spec.get("base_params"):
        raise ValueError("base_params: given without a base estimator (base)")
    try:
        registry.check_params(name, _params_for_check(spec.get("params")))
    except ValueError as exc:
        msg = str(exc)
        raise ValueError(msg if msg.startswith("params.") else f"params: {msg}") from None


def check_base_params(base: str, params) -> None:
    """``ValueError`` starting with ``base_params:`` and naming the parameter when the base
    classifier ``base`` does not take ``params`` or one of their values is invalid: the
    classifier is built (unknown names), then scikit-learn's parameter constraints are
    checked (every step of a pipeline), and XGBoost parameters are tried on a one-tree
    model (:func:`pu_lib.oof.check_xgb_params`; ``n_estimators`` >= 1)."""
    from pu_lib.base_learners import make_base_estimator

    try:
        est = make_base_estimator(base, params or {})
        if base == "xgboost":
            from pu_lib.oof import check_xgb_params

            check_xgb_params(dict(params or {}), "base_params")
            return
        steps = [s for _, s in est.steps] if hasattr(est, "steps") else [est]
        for step in steps:
            validate = getattr(step, "_validate_params", None)
            if validate is not None and getattr(type(step), "_parameter_constraints", None):
                validate()
    except ValueError as exc:
        msg = str(exc)
        raise ValueError(msg if msg.startswith("base_params") else f"base_params: {msg}") from None


def make_method(spec: dict, random_state=None, n_jobs: int = 1):
    """Build an unfitted estimator from a method spec with the given seed."""
    from pu_lib.base_learners import make_base_estimator

    check_method_spec(spec)
    params = dict(spec.get("params") or {})
    if spec.get("base"):
        params["estimator"] = make_base_estimator(
            spec["base"], spec.get("base_params") or {}, random_state=random_state, n_jobs=n_jobs
        )
    return registry.make_estimator(spec["method"], params, random_state=random_state, n_jobs=n_jobs)
