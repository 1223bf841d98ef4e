"""Checks for PU estimators: scikit-learn's estimator checks plus the PU properties.

A new estimator reuses them in its tests (docs/developers.md, "Adding a method")::

    from pu_lib.utils.estimator_checks import parametrize_with_checks

    @parametrize_with_checks([MyPUClassifier(prior=0.4)])
    def test_my_estimator(estimator, check):
        check(estimator)

The checks an estimator cannot pass are listed here, each with its reason
(:data:`EXPECTED_FAILURES`: the defaults of PU classifiers, PU trees and prior estimators,
and per class what differs; :func:`expected_failed_checks` reads it). Those checks run as
strict ``xfail``: a listed check that starts passing fails the suite, so an entry cannot
outlive its reason. An estimator of one's own passes its own list, as with scikit-learn's
``parametrize_with_checks(..., expected_failed_checks=...)``.

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

from pu_lib._validation import accepts_sparse
from pu_lib.base import PUClassifierMixin
from pu_lib.prior._names import make_prior_estimator
from pu_lib.prior.base import BasePriorEstimator

__all__ = ["EXPECTED_FAILURES", "PRIOR_ESTIMATOR_FAILURES", "PU_CHECKS", "PU_CLASSIFIER_FAILURES", "PU_TREE_FAILURES",
           "check_pu_n_jobs_invariance", "check_pu_prior_attributes_agree", "check_pu_prior_forms",
           "check_pu_s_must_be_binary", "check_pu_sample_weight_equivalence", "expected_failed_checks",
           "parametrize_with_checks", "pu_checks", "sklearn_checks"]

#: the registered prior estimator that check_pu_prior_forms gives by name (the fastest)
_PRIOR_NAME = "elkan_noto_prior"


# --------------------------------------------------------------------------- expected failures
_SPARSE_WEIGHT_CHECK = "check_sample_weight_equivalence_on_sparse_data"
_S_NAMED_S = ("fit(X, s): the PU labels are named s across pu_lib (1 = labeled positive, 0 = unlabeled), "
              "never y, to keep them apart from the true classes y")
_S_KEYWORD_Y = ("calls fit(X, y=..., sample_weight=...) with the keyword y; fit's target is named s "
                "(check_pu_sample_weight_equivalence tests integer weights == repeated rows with s)")
_S_LABELS_1_2 = ("fits on labels {1, 2}; s must be the 0/1 labeled indicator (pu_lib._validation.check_binary "
                 "refuses other encodings so that the labeled class is never guessed); the same property with 0/1 "
                 "labels is tested by pu_lib's own tests of the estimator")
_S_STRING_CLASSES = ("fits on string labels and expects predictions in them; s is the 0/1 labeled indicator and "
                     "a PU classifier predicts the true class y in {0, 1}, not a value of s")
#: scikit-learn checks no PU classifier passes (its fit takes the 0/1 labeled indicator s);
#: the sample-weight ones apply where fit takes sample_weight
PU_CLASSIFIER_FAILURES = {
    "check_fit_score_takes_y": _S_NAMED_S,
    "check_sample_weight_equivalence_on_dense_data": _S_KEYWORD_Y,
    _SPARSE_WEIGHT_CHECK: _S_KEYWORD_Y,
    "check_estimators_dtypes": _S_LABELS_1_2,
    "check_sample_weights_pandas_series": _S_LABELS_1_2,
    "check_sample_weights_not_an_array": _S_LABELS_1_2,
    "check_sample_weights_shape": _S_LABELS_1_2,
    "check_sample_weights_not_overwritten": _S_LABELS_1_2,
    "check_classifier_data_not_an_array": _S_LABELS_1_2,
    "check_fit2d_1feature": _S_LABELS_1_2,
    "check_classifiers_classes": _S_STRING_CLASSES,
}
#: what PU tree estimators list in place of the classifiers' sample-weight reason
PU_TREE_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": (
        "calls fit(X, y=..., sample_weight=...) with the keyword y; fit's target is named s (integer weights == "
        "repeated rows and zero weights == removed rows are tested for every tree estimator by pu_lib's tree "
        "weight tests)"),
}
#: scikit-learn checks no prior estimator passes (pu_lib.prior.base.BasePriorEstimator);
#: the sample-weight ones apply where fit takes sample_weight
PRIOR_ESTIMATOR_FAILURES = {
    "check_fit_score_takes_y": _S_NAMED_S,
    "check_estimators_dtypes": _S_LABELS_1_2,
    "check_fit2d_1feature": _S_LABELS_1_2,
    "check_sample_weight_equivalence_on_dense_data": _S_KEYWORD_Y,
    _SPARSE_WEIGHT_CHECK: _S_KEYWORD_Y,
    "check_sample_weights_pandas_series": _S_LABELS_1_2,
    "check_sample_weights_not_an_array": _S_LABELS_1_2,
    "check_sample_weights_shape": _S_LABELS_1_2,
    "check_sample_weights_not_overwritten": _S_LABELS_1_2,
}


def _applicable(estimator, checks: dict[str, str]) -> dict[str, str]:
    """``checks`` without the sample-weight checks when ``estimator.fit`` takes no
    ``sample_weight``, and without the sparse one when it takes no sparse input (those
    checks do not run on it)."""
    if not accepts_sparse(estimator):
        checks = {k: v for k, v in checks.items() if k != _SPARSE_WEIGHT_CHECK}
    if has_fit_parameter(estimator, "sample_weight"):
        return dict(checks)
    return {k: v for k, v in checks.items() if "sample_weight" not in k}


def _kind_failures(estimator) -> dict[str, str]:
    if isinstance(estimator, BasePriorEstimator):
        return _applicable(estimator, PRIOR_ESTIMATOR_FAILURES)
    if isinstance(estimator, PUClassifierMixin):
        return _applicable(estimator, PU_CLASSIFIER_FAILURES)
    return {}


def _tree(est):
    return {**_kind_failures(est), **PU_TREE_FAILURES}


def _unweighted(reason, base=_kind_failures):
    """``base``'s checks plus the PU weight check, which fails for ``reason`` (the fit counts or
    draws rows, so a row of integer weight w is not its w repeats)."""
    return lambda est: {**base(est), "check_pu_sample_weight_equivalence": reason}


_bootstrap_forest = _unweighted(
    "draws each tree's bootstrap sample over the rows (stratified: K_U unlabeled rows with replacement; standard: "
    "Breiman's bootstrap): repeating a row changes the draws, so integer weights cannot equal repeated rows (each "
    "tree passes the check: PUHellingerTreeClassifier)", base=_tree)
_calibrated = _unweighted(
    "the cv folds split rows: a row of integer weight w lies in one fold while its w repeats are spread over "
    "several, so the out-of-fold scores and the fitted map differ (zero weights are removed rows: tested by "
    "pu_lib's probability tests)")
_selfpu = _unweighted(
    "the self-paced selection and the per-epoch interleaving of labeled and unlabeled rows count rows, so repeated "
    "rows change the selection sizes and the batches; weights act on every weighted mean (pu_lib.neural.selfpu)")
_vpu = _unweighted(
    "MixUp pairs each unlabeled row with a labeled row drawn at random, so repeated rows change the draws; weights "
    "act on the variational and MixUp means (pu_lib.neural.vpu)")


def _pn_boosting(est):
    reason = ("fits on a random PN subsample of the rows (n_p positives, (pi_n/2pi_p)^2 n_p negatives): repeating "
              "a row changes which rows are drawn, so integer weights cannot equal repeated rows; with n_positives "
              "and n_negatives None (every row) the booster gets the weights (tested by pu_lib's PN boosting tests)")
    return {"check_sample_weight_equivalence_on_dense_data": reason, _SPARSE_WEIGHT_CHECK: reason}


def _adasyn(est):
    adasyn = ("calls fit(X, y=..., sample_weight=...) with the keyword y; fit's target is named s. Integer weights "
              "could not equal repeated rows anyway: ADASYN takes no weights, and repeating a row changes its "
              "neighbourhoods and the number of synthetic rows (zero weight == removed row is tested by pu_lib's "
              "ADASYN tests)")
    return {**_kind_failures(est), "check_sample_weight_equivalence_on_dense_data": adasyn,
            "check_pu_sample_weight_equivalence": (
                "ADASYN takes no weights: repeating a row changes its neighbourhoods and the number of synthetic "
                "rows, so integer weights cannot equal repeated rows (zero weight == removed row is tested by "
                "pu_lib's ADASYN tests)")}


def _supervised(est):
    # fit takes the true classes y (y_true); scikit-learn's y-keyword checks pass
    return {k: v for k, v in _kind_failures(est).items()
            if k not in ("check_fit_score_takes_y", "check_sample_weight_equivalence_on_dense_data",
                         _SPARSE_WEIGHT_CHECK)}


def _elkan_noto(est):
    base = _kind_failures(est)
    if getattr(est, "proba", None) != "pulearn_weighted":
        return base
    return {**base, "check_methods_subset_invariance": (
        "proba='pulearn_weighted' is the PU Hellinger authors' rule, whose probabilities sum weights over the "
        "predicted batch: predicting a subset gives other values (tested by pu_lib's baseline tests)")}


#: class name -> the checks its estimators cannot pass (a function of the estimator, whose
#: parameters may matter); the first class of an estimator's MRO found here applies, and an
#: estimator of no class here gets the defaults of its kind (PU classifier or prior estimator)
EXPECTED_FAILURES = {
    "PUDecisionTreeClassifier": _tree,
    "PUExtraTreesClassifier": _tree,
    "PUHellingerTreeClassifier": _tree,
    "NaivePUExtraTreesClassifier": _tree,
    "PUBaggingExtraTreesClassifier": _tree,
    "PUHellingerForestClassifier": _bootstrap_forest,
    "PUCalibratedClassifier": _calibrated,
    "PNBoostingClassifier": _pn_boosting,
    "ADASYNRandomForestClassifier": _adasyn,
    "SupervisedClassifier": _supervised,
    "ElkanNotoClassifier": _elkan_noto,
    "SelfPUClassifier": _selfpu,
    "VPUClassifier": _vpu,
}


def expected_failed_checks(estimator) -> dict[str, str]:
    """The checks ``estimator`` cannot pass (check name -> reason), from
    :data:`EXPECTED_FAILURES`; empty for an estimator that is neither a PU classifier nor a
    prior estimator and has no entry."""
    for cls in type(estimator).__mro__:
        if cls.__name__ in EXPECTED_FAILURES and cls.__module__.startswith("pu_lib."):
            return dict(EXPECTED_FAILURES[cls.__name__](estimator))
    return _kind_failures(estimator)


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


def parametrize_with_checks(estimators, *, expected_failed_checks=None, xfail_strict: bool = True):
    """A ``pytest.mark.parametrize`` of ``(estimator, check)`` over scikit-learn's checks
    and the PU checks of every estimator, like scikit-learn's ``parametrize_with_checks``.
    A check listed for the estimator (``expected_failed_checks(estimator)``, a callable
    returning check name -> reason; default: this module's :func:`expected_failed_checks`)
    is marked ``xfail`` with the reason (``strict``: passing it fails the test)."""
    import pytest  # a test-time dependency only

    if any(isinstance(e, type) for e in estimators):
        raise TypeError("parametrize_with_checks takes estimator instances, not classes")
    listed = expected_failed_checks if expected_failed_checks is not None else globals()["expected_failed_checks"]
    params = []
    for estimator in estimators:
        expected = listed(estimator) or {}
        for est, check in (*sklearn_checks(estimator), *pu_checks(estimator)):
            reason = expected.get(_check_name(check))
            marks = [pytest.mark.xfail(reason=reason, strict=xfail_strict)] if reason else []
            params.append(pytest.param(est, check, marks=marks))
    return pytest.mark.parametrize("estimator, check", params, ids=_id)
