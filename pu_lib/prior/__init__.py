"""Class-prior estimation from PU data.

Every estimator follows :class:`pu_lib.prior.base.BasePriorEstimator`: ``fit(X, s)``
then ``alpha_`` (fraction of positives among the unlabeled), ``prior_`` (class prior of
the whole sample) and ``c_`` (label frequency); see :mod:`pu_lib.prior.base` for the
conversions (Bekker thesis eqs. 2.5-2.7).

* :class:`TIcE` -- tree induction for c estimation (Bekker & Davis, AAAI 2018; thesis
  ch. 3): estimator in :mod:`pu_lib.prior.tice`, compiled kernel in
  :mod:`pu_lib.prior._tice_kernel`;
* :class:`PULSCAR` (:mod:`pu_lib.prior.pulscar`), :class:`PULSNAR`
  (:mod:`pu_lib.prior.pulsnar`) -- Kumar & Lambert (PeerJ CS 2024), their density,
  bandwidth and objective in :mod:`pu_lib.prior._beta_density`, calibration
  (Algorithm 4) in :mod:`pu_lib.prior.calibration` and classification improvement
  (Algorithm 5) in :mod:`pu_lib.prior.classification`;
* :class:`ElkanNotoPrior` -- Elkan & Noto (2008) estimators e1, e2, e3;
* :class:`KMPriorEstimator` (:mod:`pu_lib.prior.km`) -- KM1 / KM2 (Ramaswamy, Scott &
  Tewari, ICML 2016), registered as ``km1`` and ``km2``;
* :class:`DEDPUL` (:mod:`pu_lib.prior.dedpul`) -- Ivanov (2020), density ratio of
  out-of-fold classifier predictions, EM or dmin estimate;
* :func:`bootstrap_ci` (:mod:`pu_lib.prior.bootstrap`) -- stratified-bootstrap percentile
  intervals for any estimator's ``alpha_``, ``prior_`` and ``c_`` (also
  ``estimator.bootstrap_ci(X, s)``);
* :func:`pu_lib.prior.diagnostic.diagnose_prior` -- several estimators side by side with
  their intervals, their disagreements, too few labeled rows, a SCAR check
  (``scar_check``) and a prior-sensitivity sweep of a PU classifier (``prior_sweep``); a
  tool above the estimators and the classifiers, imported from its module (``from
  pu_lib.prior.diagnostic import diagnose_prior``).

Classifiers that need a prior take ``prior=`` a number, the name of a prior estimator
(``tice``, ``pulscar``, ``pulsnar``, ``elkan_noto_prior``, ``km1``, ``km2``, ``dedpul``,
``alphamax``, ``alphamax_n``, ``pe``, ``pen_l1``: the table of :mod:`pu_lib.prior._names`,
which the workflow's method registry reads too) or an estimator instance
(:func:`resolve_prior`). XGBoost is imported only when a model is built.

Importing this package is cheap: the names below are loaded from their submodules on
first use (module ``__getattr__``), so ``import pu_lib.prior.bootstrap`` or
``pu_lib.prior.SCENARIOS`` does not compile DEDPUL's numba kernels nor import every
estimator; ``from pu_lib.prior import TIcE`` works as before.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names of __all__ as type checkers and readers see them
    from pu_lib._validation import DegenerateFeaturesWarning
    from pu_lib.prior.alphamax import AlphaMax, AlphaMaxN
    from pu_lib.prior._resolve import PRIOR_CONSTRAINT, resolve_prior
    from pu_lib.prior.base import (
        SCENARIOS,
        BasePriorEstimator,
        alpha_from_c,
        alpha_from_prior,
        c_from_alpha,
        population_prior,
        prior_from_alpha,
    )
    from pu_lib.prior.bootstrap import BootstrapResult, BootstrapShiftWarning, bootstrap_ci
    from pu_lib.prior.dedpul import DEDPUL
    from pu_lib.prior.elkan_noto import ElkanNotoPrior
    from pu_lib.prior.km import KMPriorEstimator
    from pu_lib.prior.pe import PEPriorEstimator
    from pu_lib.prior.pen_l1 import PenL1PriorEstimator
    from pu_lib.prior.pulscar import PULSCAR
    from pu_lib.prior.pulsnar import PULSNAR
    from pu_lib.prior.tice import TIcE

#: public name -> the module that defines it (loaded on first access)
_LAZY = {
    **dict.fromkeys(["SCENARIOS", "BasePriorEstimator", "alpha_from_c", "alpha_from_prior", "c_from_alpha",
                     "population_prior", "prior_from_alpha"], "pu_lib.prior.base"),
    **dict.fromkeys(["PRIOR_CONSTRAINT", "resolve_prior"], "pu_lib.prior._resolve"),
    "DegenerateFeaturesWarning": "pu_lib._validation",
    **dict.fromkeys(["BootstrapResult", "BootstrapShiftWarning", "bootstrap_ci"], "pu_lib.prior.bootstrap"),
    "DEDPUL": "pu_lib.prior.dedpul",
    **dict.fromkeys(["AlphaMax", "AlphaMaxN"], "pu_lib.prior.alphamax"),
    "ElkanNotoPrior": "pu_lib.prior.elkan_noto",
    "KMPriorEstimator": "pu_lib.prior.km",
    "PEPriorEstimator": "pu_lib.prior.pe",
    "PenL1PriorEstimator": "pu_lib.prior.pen_l1",
    "PULSCAR": "pu_lib.prior.pulscar",
    "PULSNAR": "pu_lib.prior.pulsnar",
    "TIcE": "pu_lib.prior.tice",
}


#: names that moved to :mod:`pu_lib.prior.diagnostic` (a tool that runs a PU classifier too,
#: so it sits above the classifiers and this package does not import it); served with a
#: deprecation warning for one release
_MOVED = {"PriorDiagnosis", "diagnose_prior", "prior_sweep", "scar_check"}


def __getattr__(name: str):
    """A public name of :data:`__all__` (imported from its module on first use, then
    cached here), or a submodule (``pu_lib.prior.tice``) not imported yet."""
    if name in _MOVED:
        import warnings

        warnings.warn(f"pu_lib.prior.{name} moved: import it from pu_lib.prior.diagnostic (the old path goes in "
                      "the next release)", FutureWarning, stacklevel=2)
        return getattr(importlib.import_module("pu_lib.prior.diagnostic"), name)
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "PRIOR_CONSTRAINT",
    "SCENARIOS",
    "BasePriorEstimator",
    "BootstrapResult",
    "BootstrapShiftWarning",
    "DegenerateFeaturesWarning",
    "DEDPUL",
    "AlphaMax",
    "AlphaMaxN",
    "ElkanNotoPrior",
    "KMPriorEstimator",
    "PEPriorEstimator",
    "PenL1PriorEstimator",
    "PULSCAR",
    "PULSNAR",
    "TIcE",
    "alpha_from_c",
    "alpha_from_prior",
    "bootstrap_ci",
    "c_from_alpha",
    "population_prior",
    "prior_from_alpha",
    "resolve_prior",
]
