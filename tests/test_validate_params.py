"""pu_lib._validation.validate_params checks ranges, options, booleans and array-likes
itself (no scikit-learn import) and agrees with scikit-learn's constraints on them."""

import subprocess
import sys
from numbers import Integral, Real

import numpy as np
import pytest

from pu_lib._validation import Interval, Options, StrOptions, _satisfied

CONSTRAINTS = [
    Interval(Real, 0.0, 1.0, closed="right"), Interval(Real, 0.0, 1.0, closed="left"),
    Interval(Real, 0.0, None, closed="neither"), Interval(Integral, 2, None, closed="left"),
    Interval(Integral, None, -1, closed="right"), Interval(Real, None, None, closed="neither"),
    StrOptions({"auto", "half"}), Options(Real, {0.5, 1.0}), "boolean", "array-like",
]
VALUES = [0, 1, 2, -1, 0.0, 0.5, 1.0, 1.5, -0.2, np.int64(3), np.float32(0.25), float("nan"), float("inf"),
          True, False, np.bool_(True), "auto", "half", "x", None, [1, 2], np.arange(3), np.float64(2.0), (1,)]


def _id(constraint) -> str:
    """repr, with option sets sorted: the same id in every process (string hashes are
    randomised per process; pytest-xdist needs equal test ids on its workers)."""
    if isinstance(constraint, str):
        return constraint
    args = [sorted(map(str, a)) if isinstance(a, (set, frozenset)) else getattr(a, "__name__", a)
            for a in constraint.args]
    return f"{constraint.kind}({', '.join(map(str, args))}, {constraint.kwargs})"


@pytest.mark.parametrize("constraint", CONSTRAINTS, ids=_id)
def test_the_native_check_agrees_with_scikit_learns_constraint(constraint):
    built = constraint if isinstance(constraint, str) else constraint.build()
    if isinstance(built, str):
        from sklearn.utils._param_validation import make_constraint
        built = make_constraint(built)
    for v in VALUES:
        assert _satisfied(constraint, v) == built.is_satisfied_by(v), (constraint, v)


def test_label_sets_and_metrics_validate_without_importing_scikit_learn():
    code = ("import sys, numpy as np\n"
            "from pu_lib.labeling import scar_label_frequency\n"
            "from pu_lib.metrics import prior_abs_error\n"
            "scar_label_frequency(np.r_[np.ones(20, int), np.zeros(20, int)], c=0.5, random_state=0)\n"
            "prior_abs_error(0.2, 0.3)\n"
            "try:\n    scar_label_frequency([1, 0, 1], c=1.5)\nexcept ValueError as e:\n    print(e)\n"
            "print('sklearn' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["The 'c' parameter of scar_label_frequency must be a float in the range "
                                "(0.0, 1.0]. Got 1.5 instead.", "False"]
