"""Common interface of the class-prior estimators in :mod:`pu_lib.prior`.

Three quantities describe how many positives hide in PU data ``(X, s)`` with
``n`` rows of which ``n_l`` are labeled (``s = 1``) and ``n_u = n - n_l`` unlabeled;
``l = n_l / n = Pr(s = 1)`` is the labeled fraction:

* ``alpha_`` -- the fraction of positives **among the unlabeled** rows,
  ``Pr(y = 1 | s = 0)`` (PULSNAR's alpha; the class prior of U);
* ``prior_`` -- the class prior of the **whole sample**, ``Pr(y = 1)``;
* ``c_`` -- the label frequency ``Pr(s = 1 | y = 1)``.

Since labeled rows are positive, ``n_pos = n_l + alpha n_u``, so for the sample at hand

    prior = l + alpha (1 - l),        c = l / prior,        alpha = (prior - l) / (1 - l).

These are the conversions of the Bekker thesis, section 2.1.5:

* **single-training-set scenario** (one i.i.d. sample, some positives labeled): the class
  prior of the population is ``prior_``, and ``c = Pr(s=1) / prior`` is eq. 2.5;
* **case-control scenario** (the labeled positives and an i.i.d. unlabeled sample drawn
  separately): the class prior of the population is the prior of U, ``alpha_``; eq. 2.6,
  ``c = Pr(s=1) / (alpha (1 - Pr(s=1)) + Pr(s=1))``, and eq. 2.7,
  ``alpha = (1 - c) / c * Pr(s=1) / (1 - Pr(s=1))``, are the same relations written with
  ``alpha`` (``c`` there is the label frequency of the pooled data).

So every estimator, whichever quantity it estimates natively (TIcE and Elkan-Noto: ``c``;
PULSCAR/PULSNAR: ``alpha``), exposes all three, and :func:`population_prior` picks the
one a classifier needs for its scenario.

Estimates are clipped to the feasible region: ``alpha_`` in [0, 1], hence ``prior_`` in
[l, 1] and ``c_`` in [l, 1]. The unclipped value, when it differed, is kept in
``raw_estimate_`` (the native quantity) for diagnosis.
"""

from __future__ import annotations

import numbers
from abc import ABCMeta, abstractmethod

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils import ClassifierTags

from pu_lib._validation import (SCENARIOS, accepts_sparse, check_scenario,
                                check_varying_features, validate_pu_data)

__all__ = [
    "SCENARIOS",
    "BasePriorEstimator",
    "alpha_from_c",
    "alpha_from_prior",
    "c_from_alpha",
    "population_prior",
    "prior_from_alpha",
]


def _fraction(v, name):
    if isinstance(v, bool) or not isinstance(v, (numbers.Real, np.floating, np.integer)):
        raise ValueError(f"{name} must be a number, got {v!r}")
    v = float(v)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v!r}")
    return v


def _labeled_fraction(lf):
    lf = _fraction(lf, "labeled_fraction")
    if not 0.0 < lf < 1.0:
        raise ValueError(f"labeled_fraction must lie in the open interval (0, 1), got {lf!r}")
    return lf


def prior_from_alpha(alpha, labeled_fraction) -> float:
    """Whole-sample prior ``l + alpha (1 - l)`` from the fraction ``alpha`` of positives
    among the unlabeled (``l`` = labeled fraction)."""
    lf = _labeled_fraction(labeled_fraction)
    a = _fraction(alpha, "alpha")
    if not 0.0 <= a <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha!r}")
    return lf + a * (1.0 - lf)


def alpha_from_prior(prior, labeled_fraction) -> float:
    """Fraction of positives among the unlabeled, ``(prior - l) / (1 - l)``; the prior
    of the sample must be at least the labeled fraction ``l``."""
    lf = _labeled_fraction(labeled_fraction)
    p = _fraction(prior, "prior")
    if not lf - 1e-12 <= p <= 1.0 + 1e-12:
        raise ValueError(f"prior {p!r} must lie in [labeled_fraction, 1] = [{lf}, 1]")
    return float(np.clip((p - lf) / (1.0 - lf), 0.0, 1.0))


def c_from_alpha(alpha, labeled_fraction) -> float:
    """Label frequency from ``alpha`` (thesis eq. 2.6): ``l / (alpha (1 - l) + l)``."""
    lf = _labeled_fraction(labeled_fraction)
    return lf / prior_from_alpha(alpha, lf)


def alpha_from_c(c, labeled_fraction) -> float:
    """``alpha`` from the label frequency (thesis eq. 2.7): ``(1-c)/c * l/(1-l)``;
    ``c`` must lie in [l, 1]."""
    lf = _labeled_fraction(labeled_fraction)
    c = _fraction(c, "c")
    if not lf - 1e-12 <= c <= 1.0 + 1e-12:
        raise ValueError(f"c {c!r} must lie in [labeled_fraction, 1] = [{lf}, 1]")
    return float(np.clip((1.0 - c) / c * lf / (1.0 - lf), 0.0, 1.0))


class BasePriorEstimator(BaseEstimator, metaclass=ABCMeta):
    """Base class: ``fit(X, s)`` sets ``alpha_``, ``prior_``, ``c_`` (see the module
    docstring), ``labeled_fraction_``, ``n_labeled_``, ``n_unlabeled_``, ``raw_estimate_``,
    ``n_features_in_`` (and ``feature_names_in_`` for a DataFrame ``X``). Subclasses
    declare their parameters' ``_parameter_constraints`` (checked by scikit-learn when
    ``fit`` starts) and implement ``_estimate(X, s)`` returning ``("alpha", value)`` or
    ``("c", value)``, their native estimate.

    A prior estimator is not a classifier (no ``predict``): its scikit-learn tags say
    that ``fit`` requires the target ``s`` (binary: 1 = labeled positive, 0 = unlabeled)
    and whether ``X`` may hold NaN.
    """

    #: scikit-learn parameter constraints (subclasses extend them)
    _parameter_constraints: dict = {}
    #: XGBoost-based estimators accept NaN features (XGBoost handles missing values)
    _allow_nan = False
    #: the smallest number of labeled rows the method supports (:meth:`min_labeled`;
    #: subclasses whose minimum follows from their parameters override that method)
    _MIN_LABELED = 1
    #: why the method needs them (the message of the ``ValueError`` of ``fit``)
    _MIN_LABELED_WHY = "a PU sample needs a labeled row"

    def min_labeled(self) -> int:
        """The smallest number of labeled rows (``s = 1``) this estimator supports with its
        current parameters; ``fit`` raises a ``ValueError`` naming it and the reason when
        the data hold fewer (rows of zero ``sample_weight`` do not count). It is the
        minimum at which the method's own procedure is defined (its folds, its kernel, its
        hold-out, its clusters), not a number of rows that makes the estimate accurate:
        an estimate from a few labeled rows more than this is still very uncertain
        (:func:`pu_lib.prior.diagnostic.diagnose_prior` shows how much)."""
        return int(self._MIN_LABELED)

    def _min_labeled_why(self) -> str:
        return self._MIN_LABELED_WHY.format(self=self)

    def _check_min_labeled(self, s) -> None:
        n_l, need = int(np.count_nonzero(s == 1)), self.min_labeled()
        if n_l < need:
            raise ValueError(f"{type(self).__name__} needs at least {need} labeled rows ({self._min_labeled_why()}); "
                             f"the data have {n_l}")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # not a classifier (estimator_type stays None: no predict), but fit needs the
        # binary target s; the classifier tags say "binary only"
        tags.target_tags.required = True
        tags.target_tags.single_output = True
        tags.classifier_tags = ClassifierTags(multi_class=False)
        tags.input_tags.allow_nan = self._allow_nan
        tags.input_tags.sparse = accepts_sparse(self)
        return tags

    # not skipping nested validation: PULSCAR, PULSNAR and ElkanNotoPrior take user-given
    # base estimators, whose own parameters are then checked when they are fitted
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s):
        """Estimate the class prior from features ``X`` and labels ``s`` (1 = labeled)."""
        return self._fit(X, s)

    def _fit(self, X, s, sample_weight=None):
        """Validate (:func:`pu_lib._validation.validate_pu_data`), check the number of
        labeled rows (:meth:`min_labeled`), estimate and set the fitted attributes.
        With ``sample_weight``, zero-weight rows are dropped first and ``_estimate`` gets
        the other weights (keyword ``sample_weight``); the labeled fraction is then
        weighted.

        Degenerate features (:func:`pu_lib._validation.check_varying_features`), the same
        decision for TIcE, PULSCAR, PULSNAR and Elkan-Noto: when every feature is
        constant, each of them can only return its trivial bound (prior 1.0: TIcE and
        Elkan-Noto find no subset richer in labels than the whole sample, PULSCAR's and
        PULSNAR's classifiers give every row the same probability), so ``fit`` raises a
        ``ValueError``; when no feature varies among the labeled rows only, an estimate
        exists (the unlabeled rows at the labeled rows' one point) but PULSNAR's
        clusters, TIcE's subsets and the classifiers of PULSCAR / Elkan-Noto all see a
        single labeled point, so ``fit`` warns (:class:`DegenerateFeaturesWarning`)."""
        X, s, w, _ = validate_pu_data(self, X, s, allow_nan=self._allow_nan, sample_weight=sample_weight)
        self._check_min_labeled(s)
        check_varying_features(X, s, type(self).__name__)
        if w is None:
            kind, value = self._estimate(X, s)
        else:
            kind, value = self._estimate(X, s, sample_weight=w)
        self._set_estimate(kind, value, s, w)
        return self

    @abstractmethod
    def _estimate(self, X, s):
        """The native estimate: ``("alpha", value)`` or ``("c", value)``."""

    def _set_estimate(self, kind: str, value: float, s: np.ndarray, sample_weight=None) -> None:
        if sample_weight is None:
            n_l, n = int(s.sum()), int(s.shape[0])
        else:
            w = np.asarray(sample_weight, dtype=np.float64)
            n_l, n = float(w[s == 1].sum()), float(w.sum())
            if np.all(w == np.round(w)):  # integer weights count rows (as duplicated rows would)
                n_l, n = int(round(n_l)), int(round(n))
        lf = n_l / n
        value = float(value)
        if not np.isfinite(value):
            raise ValueError(f"{type(self).__name__} produced a non-finite {kind} estimate ({value})")
        self.raw_estimate_ = value
        if kind == "alpha":
            alpha = float(np.clip(value, 0.0, 1.0))
        elif kind == "c":
            alpha = alpha_from_c(float(np.clip(value, lf, 1.0)), lf)
        else:  # pragma: no cover - programming error
            raise ValueError(f"unknown estimate kind {kind!r}")
        self.alpha_ = alpha
        self.prior_ = prior_from_alpha(alpha, lf)
        self.c_ = lf / self.prior_
        self.labeled_fraction_ = lf
        self.n_labeled_ = n_l
        self.n_unlabeled_ = n - n_l

    def prior_for(self, scenario: str) -> float:
        """The class prior a classifier uses in ``scenario`` (see :func:`population_prior`)."""
        return population_prior(self, scenario)

    def bootstrap_ci(self, X, s, n_resamples: int = 200, confidence: float = 0.95, random_state=None,
                     n_jobs=None, resampling: str = "half", use_dask: bool = False):
        """Bootstrap percentile intervals of this estimator's ``alpha_``, ``prior_`` and
        ``c_`` on ``(X, s)``: :func:`pu_lib.prior.bootstrap.bootstrap_ci` with ``self`` as
        the estimator (cloned; ``self`` is not fitted or modified)."""
        from pu_lib.prior.bootstrap import bootstrap_ci

        return bootstrap_ci(self, X, s, n_resamples=n_resamples, confidence=confidence,
                            random_state=random_state, n_jobs=n_jobs, resampling=resampling, use_dask=use_dask)


def population_prior(estimator, scenario: str) -> float:
    """The population class prior of a fitted prior estimator for a PU scenario:
    ``prior_`` (whole sample) for ``"single_training_set"``, ``alpha_`` (the prior of
    the unlabeled sample) for ``"case_control"``."""
    check_scenario(scenario)
    attr = "alpha_" if scenario == "case_control" else "prior_"
    if not hasattr(estimator, attr):
        raise ValueError(f"prior estimator {type(estimator).__name__} has no {attr} after fit (needed for {scenario})")
    return float(getattr(estimator, attr))
