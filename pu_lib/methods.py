"""Method registry: names used in workflow configs -> estimator classes.

A method spec (one entry under ``methods:`` in a config) is::

    {"method": "elkan_noto", "base": "logistic_regression",
     "base_params": {"C": 1.0}, "params": {"hold_out_ratio": 0.1}}

``base`` names a scikit-learn-style classifier from
:data:`pu_lib.base_estimators.BASE_ESTIMATORS`, passed as the method's ``estimator``.
Adding a method = adding one entry to :data:`METHODS` (see README, "Adding a method").
"""

from __future__ import annotations

import importlib
import inspect

#: method name -> (import path "module:Class", accepts a base estimator)
METHODS: dict[str, tuple[str, bool]] = {
    "naive": ("pu_lib.baselines:NaivePUClassifier", True),
    "elkan_noto": ("pu_lib.baselines:ElkanNotoClassifier", True),
    # PU Extra Trees paper (Wilton et al. 2022) and its tree baselines, on pu_lib.trees
    "pu_extra_trees": ("pu_lib.trees:PUExtraTreesClassifier", False),
    "pu_decision_tree": ("pu_lib.trees:PUDecisionTreeClassifier", False),
    "pn_extra_trees": ("pu_lib.trees:PNExtraTreesClassifier", False),
    "supervised_et": ("pu_lib.trees:SupervisedExtraTreesClassifier", False),
    "naive_pu_et": ("pu_lib.trees:NaivePUExtraTreesClassifier", False),
    "pu_bagging_et": ("pu_lib.trees:PUBaggingExtraTreesClassifier", False),
    # class-prior estimators (pu_lib.prior): an experiment of these records estimates only
    "tice": ("pu_lib.prior.tice:TIcE", False),
    "pulscar": ("pu_lib.prior.pulsnar:PULSCAR", False),
    "pulsnar": ("pu_lib.prior.pulsnar:PULSNAR", False),
    "elkan_noto_prior": ("pu_lib.prior.elkan_noto:ElkanNotoPrior", True),
}


def is_prior_method(name: str) -> bool:
    """True when the method ``name`` is a class-prior estimator (:mod:`pu_lib.prior`)."""
    from pu_lib.prior.base import BasePriorEstimator

    return issubclass(method_class(name), BasePriorEstimator)


def method_class(name: str):
    """Import and return the estimator class registered under ``name``."""
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; known methods: {sorted(METHODS)}")
    module, cls = METHODS[name][0].split(":")
    return getattr(importlib.import_module(module), cls)


def check_method_spec(spec: dict) -> None:
    """Raise ``ValueError`` naming the field if a method spec is invalid."""
    from pu_lib.base_estimators import BASE_ESTIMATORS

    name = spec.get("method")
    if name not in METHODS:
        raise ValueError(f"method: unknown method {name!r}; known methods: {sorted(METHODS)}")
    cls = method_class(name)
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self"}
    for key in spec.get("params") or {}:
        if key not in accepted:
            raise ValueError(f"params.{key}: not a parameter of {cls.__name__} (accepted: {sorted(accepted)})")
    base = spec.get("base")
    if base is not None:
        if not METHODS[name][1]:
            raise ValueError(f"base: method {name!r} takes no base estimator")
        if base not in BASE_ESTIMATORS:
            raise ValueError(f"base: unknown base estimator {base!r}; known: {list(BASE_ESTIMATORS)}")


def make_method(spec: dict, random_state=None, n_jobs: int = 1):
    """Build an unfitted estimator from a method spec with the given seed."""
    from pu_lib.base_estimators import make_base_estimator

    check_method_spec(spec)
    cls = method_class(spec["method"])
    params = dict(spec.get("params") or {})
    accepted = set(inspect.signature(cls.__init__).parameters)
    if spec.get("base"):
        params["estimator"] = make_base_estimator(
            spec["base"], spec.get("base_params") or {}, random_state=random_state, n_jobs=n_jobs
        )
    if "random_state" in accepted:
        params["random_state"] = random_state
    if "n_jobs" in accepted and "n_jobs" not in params:
        params["n_jobs"] = n_jobs
    return cls(**params)
