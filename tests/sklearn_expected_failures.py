"""The one place where scikit-learn estimator checks that cannot apply to PU input are
declared, each with its reason (used by ``tests/test_sklearn_checks.py`` through
``parametrize_with_checks(expected_failed_checks=...)``; a listed check that starts
passing fails the suite, ``xfail_strict``).

Keys are class names; values map a check name to the reason it cannot pass.
"""

from __future__ import annotations

#: class name -> {check name: reason}
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {}


def expected_failed_checks(estimator) -> dict[str, str]:
    return dict(EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {}))
