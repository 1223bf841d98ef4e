"""The estimator checks of :mod:`pu_lib.utils.estimator_checks` (scikit-learn's checks and
the PU properties) on every registered estimator.

Each estimator of :data:`pu_lib.workflow.registry.METHODS` is checked with
``pu_lib.utils.estimator_checks.parametrize_with_checks``; the instances use the small
settings of :mod:`pu_lib.utils.check_settings` (the checks test the API, not accuracy).
Checks an estimator cannot pass are listed, with reasons, beside the checks
(``pu_lib.utils.estimator_checks.EXPECTED_FAILURES``) and run as strict xfail.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from conftest import is_neural, torch_or_skip
from pu_lib.workflow import registry
from pu_lib.base import PUClassifierMixin
from pu_lib.prior.base import BasePriorEstimator
from pu_lib.utils.check_settings import check_params
from pu_lib.utils.estimator_checks import (
    check_pu_n_jobs_invariance,
    check_pu_s_must_be_binary,
    check_pu_sample_weight_equivalence,
    expected_failed_checks,
    parametrize_with_checks,
    pu_checks,
    sklearn_checks,
)

def _instances():
    return [registry.make_estimator(name, check_params(name, check_data=True), random_state=0)
            for name in registry.names()]


ESTIMATORS = _instances()


def test_every_registered_method_is_checked():
    assert [type(e).__name__ for e in ESTIMATORS] == [
        registry.METHODS[n].target.split(":")[1] for n in registry.names()
    ]


def _check_names(estimator) -> set[str]:
    return {c.func.__name__ if isinstance(c, partial) else c.__name__
            for _, c in (*sklearn_checks(estimator), *pu_checks(estimator))}


def test_every_exemption_names_a_check_that_runs_and_has_a_reason():
    """An estimator's declared exemptions name checks that run on it, each with a reason."""
    assert any(expected_failed_checks(e) for e in ESTIMATORS)
    for est in ESTIMATORS:
        declared = expected_failed_checks(est)
        assert set(declared) <= _check_names(est), (type(est).__name__, set(declared) - _check_names(est))
        for check, reason in declared.items():
            assert isinstance(reason, str) and len(reason) > 20, (type(est).__name__, check)


def test_every_pu_estimator_gets_the_pu_checks():
    """Every PU classifier and prior estimator is checked for its 0/1 s; prior estimators
    for their alpha_ / prior_ / c_; PU classifiers with a prior for its three forms;
    estimators with n_jobs for its invariance."""
    for est in ESTIMATORS:
        names = {c.func.__name__ for _, c in pu_checks(est)}
        params = est.get_params()
        if isinstance(est, BasePriorEstimator):
            assert {"check_pu_s_must_be_binary", "check_pu_prior_attributes_agree"} <= names
        if isinstance(est, PUClassifierMixin):
            assert "check_pu_s_must_be_binary" in names, type(est).__name__
            assert ("check_pu_prior_forms" in names) == ("prior" in params), type(est).__name__
        assert ("check_pu_n_jobs_invariance" in names) == ("n_jobs" in params), type(est).__name__


class _Broken(PUClassifierMixin, BaseEstimator):
    """A PU classifier that breaks the PU properties: it takes any s, ignores its weights
    and gives n_jobs=2 another model."""

    def __init__(self, n_jobs=None):
        self.n_jobs = n_jobs

    def fit(self, X, s, sample_weight=None):
        s = np.asarray(s)
        self.classes_ = np.array([0, 1])
        self.p_ = float(np.mean(s == s.max())) + (0.1 if self.n_jobs == 2 else 0.0)
        return self

    def predict_proba(self, X):
        p = np.full(len(X), self.p_ * (1 + 0.1 * np.asarray(X)[:, 0] ** 2) / 2)
        return np.column_stack([1 - p, p])


@pytest.mark.parametrize("check", [check_pu_s_must_be_binary, check_pu_sample_weight_equivalence,
                                   check_pu_n_jobs_invariance], ids=lambda c: c.__name__)
def test_the_pu_checks_fail_on_a_broken_estimator(check):
    with pytest.raises(AssertionError):
        check("_Broken", _Broken())


@parametrize_with_checks(ESTIMATORS)
def test_estimator_checks(estimator, check):
    if is_neural(estimator):
        torch_or_skip()
    check(estimator)
