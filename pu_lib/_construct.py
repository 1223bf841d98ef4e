"""One estimator from its class, defaults and parameters: the constructor call shared by
the class-prior names of :mod:`pu_lib.prior` (``prior="tice"``) and the workflow's method
registry. Imports no estimator."""

from __future__ import annotations

import inspect

__all__ = ["construct"]


def construct(cls, defaults: dict | None = None, params: dict | None = None, *, random_state=None, n_jobs=None):
    """``cls(**defaults, **params)``, with ``random_state`` and ``n_jobs`` set when the class
    takes them and neither dict names them. A parameter name the class does not take
    raises ``ValueError`` naming the accepted ones; values are checked by the estimator
    itself (its ``fit``)."""
    accepted = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    kwargs = dict(defaults or {})
    kwargs.update(params or {})
    for key in kwargs:
        if key not in accepted:
            raise ValueError(f"params.{key}: not a parameter of {cls.__name__} (accepted: {sorted(accepted)})")
    if "random_state" in accepted and "random_state" not in kwargs:
        kwargs["random_state"] = random_state
    if "n_jobs" in accepted and "n_jobs" not in kwargs and n_jobs is not None:
        kwargs["n_jobs"] = n_jobs
    return cls(**kwargs)
