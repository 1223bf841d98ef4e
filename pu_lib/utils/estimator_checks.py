"""Checks for PU estimators: scikit-learn's estimator checks plus the PU properties.

A new estimator reuses them in its tests (docs/developers.md, "Adding a method")::

    from pu_lib.utils.estimator_checks import parametrize_with_checks

    @parametrize_with_checks([MyPUClassifier(prior=0.4)])
    def test_my_estimator(estimator, check):
        check(estimator)

Each estimator declares the checks it cannot pass, each with its reason, in its method
``_expected_failed_checks()`` (check name -> reason; :class:`pu_lib.base.PUClassifierMixin`
and :class:`pu_lib.prior.base.BasePriorEstimator` give the defaults of their kind, a class
extends or overrides them). Those checks run as strict ``xfail``: a declared check that
starts passing fails the suite, so a declaration cannot outlive its reason.

The PU properties (each a function ``check_pu_*(name, estimator)``, on tiny data: a few
hundred rows, four features, half of the positives labeled):

- :func:`check_pu_s_must_be_binary`: ``fit`` refuses an ``s`` other than the 0/1 labeled
  indicator (``{-1, 1}``, ``{1, 2}``, strings) with a ``ValueError`` naming ``s``
  (PU classifiers and prior estimators);
- :func:`check_pu_prior_forms`: ``prior=`` takes a number, the name of a registered prior
  estimator, or an estimator object (cloned, never fitted itself); the name and an equal
  object give the same classifier (classifiers with a ``prior`` parameter);
- :func:`check_pu_prior_attributes_agree`: ``prior_ = lf + alpha_ (1 - lf)`` and
  ``c_ = lf / prior_`` with ``lf = labeled_fraction_`` (prior estimators);
- :func:`check_pu_sample_weight_equivalence`: integer weights (1 to 3) equal repeated rows
  (estimators whose ``fit`` takes ``sample_weight``);
- :func:`check_pu_n_jobs_invariance`: ``n_jobs=1`` and ``n_jobs=2`` give the same fit
  (estimators with an ``n_jobs`` parameter).

scikit-learn's checks fit on ``y`` (classes); for a PU estimator that is ``s`` with every
positive labeled, which its ``fit`` accepts as the 0/1 indicator.
"""

from __future__ import annotations

import re
from functools import partial

import numpy as np
from sklearn.base import clone
from sklearn.utils.estimator_checks import estimator_checks_generator
from sklearn.utils.validation import has_fit_parameter

from pu_lib.base import PUClassifierMixin
from pu_lib.prior._names import make_prior_estimator
from pu_lib.prior.base import BasePriorEstimator

__all__ = ["PU_CHECKS", "check_pu_n_jobs_invariance", "check_pu_prior_attributes_agree", "check_pu_prior_forms",
           "check_pu_s_must_be_binary", "check_pu_sample_weight_equivalence", "expected_failed_checks",
           "parametrize_with_checks", "pu_checks", "sklearn_checks"]

#: the registered prior estimator that check_pu_prior_forms gives by name (the fastest)
_PRIOR_NAME = "elkan_noto_prior"


def expected_failed_checks(estimator) -> dict[str, str]:
    """The checks ``estimator`` declares it cannot pass (check name -> reason), from its
    ``_expected_failed_checks()`` method; empty when it declares none."""
    declared = getattr(estimator, "_expected_failed_checks", None)
    return dict(declared()) if callable(declared) else {}


def _is_pu(estimator) -> bool:
    return isinstance(estimator, (PUClassifierMixin, BasePriorEstimator))


def _pu_data(n: int = 200, seed: int = 0):
    """Tiny PU data: X (n x 4), the 0/1 labeled indicator s (SCAR, label frequency 0.5)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.5, size=n) > 0).astype(np.int64)
    s = ((y == 1) & (rng.random(n) < 0.5)).astype(np.int64)
    return X, s


def _fitted_output(estimator, X):
    """What a fit yields: class-1 probabilities of a classifier, else the prior estimate."""
    if hasattr(estimator, "predict_proba"):
        return np.asarray(estimator.predict_proba(X))[:, 1]
    return np.array([estimator.prior_, estimator.alpha_, estimator.c_])


# ----------------------------------------------------------------------------- PU checks
def check_pu_s_must_be_binary(name, estimator):
    """``fit`` refuses ``s`` in {-1, 1}, in {1, 2} and as strings with a ``ValueError``
    naming ``s``: the labeled class is never guessed from another encoding."""
    X, s = _pu_data()
    for bad in (2 * s - 1, s + 1, np.where(s == 1, "labeled", "unlabeled")):
        try:
            clone(estimator).fit(X, bad)
        except ValueError as exc:
            assert re.search(r"\bs\b", str(exc)), f"{name}: the error does not name s: {exc}"
        else:
            raise AssertionError(f"{name} accepted s with values {np.unique(bad).tolist()}; s must be 0/1")


def check_pu_prior_forms(name, estimator):
    """``prior=`` takes a number, a registered prior estimator's name and an estimator
    object: each fits; the object is cloned (left unfitted); the name and an equal object
    give the same probabilities."""
    X, s = _pu_data()
    clone(estimator).set_params(prior=0.4).fit(X, s)
    by_name = clone(estimator).set_params(prior=_PRIOR_NAME).fit(X, s)
    prior_obj = make_prior_estimator(_PRIOR_NAME)
    by_object = clone(estimator).set_params(prior=prior_obj).fit(X, s)
    assert not hasattr(prior_obj, "prior_"), f"{name} fitted the prior estimator it was given instead of a clone"
    np.testing.assert_allclose(_fitted_output(by_name, X), _fitted_output(by_object, X), rtol=1e-10, atol=1e-12,
                               err_msg=f"{name}: prior={_PRIOR_NAME!r} and the same estimator object differ")


def check_pu_prior_attributes_agree(name, estimator):
    """A prior estimator's ``alpha_``, ``prior_`` and ``c_`` are one estimate:
    ``prior_ = lf + alpha_ (1 - lf)`` and ``c_ = lf / prior_`` with ``lf = labeled_fraction_``
    (the labeled fraction of the training rows)."""
    X, s = _pu_data()
    est = clone(estimator).fit(X, s)
    lf = est.labeled_fraction_
    np.testing.assert_allclose(lf, s.mean(), err_msg=name)
    np.testing.assert_allclose(est.prior_, lf + est.alpha_ * (1 - lf), rtol=1e-10, err_msg=name)
    np.testing.assert_allclose(est.c_, lf / est.prior_, rtol=1e-10, err_msg=name)
    assert 0 < est.prior_ <= 1 and 0 <= est.alpha_ <= 1 and 0 < est.c_ <= 1, (name, est.prior_, est.alpha_, est.c_)


def check_pu_sample_weight_equivalence(name, estimator):
    """Integer sample weights (1 to 3) give the fit of the rows repeated that many times
    (rows kept in order)."""
    X, s = _pu_data(n=120)
    w = np.random.default_rng(1).integers(1, 4, size=len(s))
    weighted = clone(estimator).fit(X, s, sample_weight=w)
    repeated = clone(estimator).fit(np.repeat(X, w, axis=0), np.repeat(s, w))
    np.testing.assert_allclose(_fitted_output(weighted, X), _fitted_output(repeated, X), rtol=1e-6, atol=1e-9,
                               err_msg=f"{name}: integer weights differ from repeated rows")


def check_pu_n_jobs_invariance(name, estimator):
    """``n_jobs=1`` and ``n_jobs=2`` give the same fit."""
    X, s = _pu_data()
    one = clone(estimator).set_params(n_jobs=1).fit(X, s)
    two = clone(estimator).set_params(n_jobs=2).fit(X, s)
    np.testing.assert_allclose(_fitted_output(one, X), _fitted_output(two, X), rtol=1e-12, atol=0,
                               err_msg=f"{name}: n_jobs=1 and n_jobs=2 differ")


#: PU check -> whether it applies to an estimator
PU_CHECKS = {
    check_pu_s_must_be_binary: _is_pu,
    check_pu_prior_forms: lambda e: isinstance(e, PUClassifierMixin) and "prior" in e.get_params(),
    check_pu_prior_attributes_agree: lambda e: isinstance(e, BasePriorEstimator),
    check_pu_sample_weight_equivalence: lambda e: _is_pu(e) and has_fit_parameter(e, "sample_weight"),
    check_pu_n_jobs_invariance: lambda e: "n_jobs" in e.get_params(),
}


# ----------------------------------------------------------------------------- generators
def pu_checks(estimator):
    """The PU checks that apply to ``estimator``, as ``(estimator, check)`` pairs."""
    name = type(estimator).__name__
    for check, applies in PU_CHECKS.items():
        if applies(estimator):
            yield estimator, partial(check, name)


def sklearn_checks(estimator):
    """scikit-learn's checks for ``estimator`` (legacy ones included), as ``(estimator, check)`` pairs."""
    yield from estimator_checks_generator(estimator, legacy=True)


def _check_name(check) -> str:
    return check.func.__name__ if isinstance(check, partial) else check.__name__


def _id(obj) -> str:
    if isinstance(obj, partial):
        kwargs = ",".join(f"{k}={v}" for k, v in obj.keywords.items())
        return f"{obj.func.__name__}({kwargs})" if kwargs else obj.func.__name__
    if hasattr(obj, "get_params"):
        # without memory addresses ("<function f at 0x7f...>"): the same id in every process,
        # which pytest-xdist needs to hand the tests to its workers
        return re.sub(r"\s", "", re.sub(r" at 0x[0-9a-fA-F]+", "", str(obj)))
    return str(obj)


def parametrize_with_checks(estimators, *, xfail_strict: bool = True):
    """A ``pytest.mark.parametrize`` of ``(estimator, check)`` over scikit-learn's checks
    and the PU checks of every estimator, like scikit-learn's ``parametrize_with_checks``.
    A check the estimator declares in ``_expected_failed_checks()`` is marked
    ``xfail`` with the declared reason (``strict``: passing it fails the test)."""
    import pytest  # a test-time dependency only

    if any(isinstance(e, type) for e in estimators):
        raise TypeError("parametrize_with_checks takes estimator instances, not classes")
    params = []
    for estimator in estimators:
        expected = expected_failed_checks(estimator)
        for est, check in (*sklearn_checks(estimator), *pu_checks(estimator)):
            reason = expected.get(_check_name(check))
            marks = [pytest.mark.xfail(reason=reason, strict=xfail_strict)] if reason else []
            params.append(pytest.param(est, check, marks=marks))
    return pytest.mark.parametrize("estimator, check", params, ids=_id)
