"""Class-prior estimation from PU data.

Every estimator follows :class:`pu_lib.prior.base.BasePriorEstimator`: ``fit(X, s)``
then ``alpha_`` (fraction of positives among the unlabeled), ``prior_`` (class prior of
the whole sample) and ``c_`` (label frequency); see :mod:`pu_lib.prior.base` for the
conversions (Bekker thesis eqs. 2.5-2.7).

* :class:`TIcE` -- tree induction for c estimation (Bekker & Davis, AAAI 2018; thesis ch. 3);
* :class:`PULSCAR`, :class:`PULSNAR` -- Kumar & Lambert (PeerJ CS 2024), with calibration
  and classification improvement in :mod:`pu_lib.prior.calibration`;
* :class:`ElkanNotoPrior` -- Elkan & Noto (2008) estimators e1, e2, e3.

Classifiers that need a prior take ``prior=`` a number, one of the names in
:data:`PRIOR_ESTIMATORS` or an estimator instance (:func:`resolve_prior`).
Submodules are imported lazily (XGBoost and numba only when used).
"""

from __future__ import annotations

import importlib

from pu_lib.prior.base import (
    PRIOR_ESTIMATORS,
    SCENARIOS,
    BasePriorEstimator,
    alpha_from_c,
    alpha_from_prior,
    c_from_alpha,
    make_prior_estimator,
    population_prior,
    prior_from_alpha,
    resolve_prior,
)

_LAZY = {
    "TIcE": "pu_lib.prior.tice",
    "PULSCAR": "pu_lib.prior.pulsnar",
    "PULSNAR": "pu_lib.prior.pulsnar",
    "ElkanNotoPrior": "pu_lib.prior.elkan_noto",
}

__all__ = [
    "PRIOR_ESTIMATORS",
    "SCENARIOS",
    "BasePriorEstimator",
    "ElkanNotoPrior",
    "PULSCAR",
    "PULSNAR",
    "TIcE",
    "alpha_from_c",
    "alpha_from_prior",
    "c_from_alpha",
    "make_prior_estimator",
    "population_prior",
    "prior_from_alpha",
    "resolve_prior",
]


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'pu_lib.prior' has no attribute {name!r}")
