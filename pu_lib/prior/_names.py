"""The class-prior estimators by name: what ``prior="tice"`` (any PU classifier,
:mod:`pu_lib.prior._resolve`),
``label_frequency="tice"`` (SAR propensity weighting), :func:`pu_lib.prior.bootstrap_ci`
and :func:`pu_lib.prior.diagnostic.diagnose_prior` accept as a name.

Each name maps to ``"module:Class"`` and its defaults; the class is imported when the
name is used; importing this table loads neither scikit-learn nor any estimator. No prior
estimator imports it (the names lead to them, never back). The workflow's method registry
takes its entries of kind ``prior`` from here (one place for each name).
"""

from __future__ import annotations

import importlib

from pu_lib._construct import construct

__all__ = ["PRIOR_ESTIMATORS", "make_prior_estimator", "prior_class", "prior_names"]

#: name -> (``"module:Class"``, constructor defaults)
PRIOR_ESTIMATORS: dict[str, tuple[str, dict]] = {
    "tice": ("pu_lib.prior.tice:TIcE", {}),
    "pulscar": ("pu_lib.prior.pulscar:PULSCAR", {}),
    "pulsnar": ("pu_lib.prior.pulsnar:PULSNAR", {}),
    "elkan_noto_prior": ("pu_lib.prior.elkan_noto:ElkanNotoPrior", {}),
    "km1": ("pu_lib.prior.km:KMPriorEstimator", {"variant": "km1"}),
    "km2": ("pu_lib.prior.km:KMPriorEstimator", {"variant": "km2"}),
    "dedpul": ("pu_lib.prior.dedpul:DEDPUL", {}),
    "alphamax": ("pu_lib.prior.alphamax:AlphaMax", {}),
    "alphamax_n": ("pu_lib.prior.alphamax:AlphaMaxN", {}),
    "pe": ("pu_lib.prior.pe:PEPriorEstimator", {}),
    "pen_l1": ("pu_lib.prior.pen_l1:PenL1PriorEstimator", {}),
}
def prior_names() -> list[str]:
    """The names, in table order."""
    return list(PRIOR_ESTIMATORS)


def _entry(name) -> tuple[str, dict]:
    if not isinstance(name, str) or name not in PRIOR_ESTIMATORS:
        raise ValueError(f"unknown prior method {name!r}; known: {prior_names()}")
    return PRIOR_ESTIMATORS[name]


def prior_class(name: str):
    """The class of the prior estimator ``name`` (imported on demand)."""
    module, cls = _entry(name)[0].split(":")
    return getattr(importlib.import_module(module), cls)


def make_prior_estimator(name: str, params: dict | None = None, *, random_state=None, n_jobs=None):
    """A new prior estimator ``name`` with its defaults, then ``params``; ``random_state``
    and ``n_jobs`` where the class takes them (:func:`pu_lib._construct.construct`)."""
    return construct(prior_class(name), _entry(name)[1], params, random_state=random_state, n_jobs=n_jobs)
