"""What every labeling mechanism shares: :class:`LabelResult`, the input checks and the
two ways of drawing ``s`` from the positives (a fixed number uniformly, or one Bernoulli
draw per positive)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from pu_lib._validation import SINGLE_TRAINING_SET, check_binary, check_fraction

__all__ = ["LabelResult"]


@dataclass(frozen=True)
class LabelResult:
    """Outcome of a labeling mechanism.

    Attributes
    ----------
    s : int8 array, 1 = labeled positive (always 0 where ``y == 0``).
        In the case-control scenario ``s`` marks the members of the labeled set P;
        the unlabeled set U is *all* rows (P is a subset of U), see
        :func:`pu_lib.labeling.case_control` and :func:`pu_lib.labeling.expand_case_control`.
    y : int8 array, true class (1 positive, 0 negative).
    propensity : float64 array, true ``e(x) = Pr(s=1 | y=1, x)`` for every row.  For
        negatives it is the value the row would have if it were positive; ``NaN`` where
        undefined.
    mechanism : config name of the mechanism (a key of :data:`pu_lib.labeling.MECHANISMS`).
    params : JSON-serialisable dict: the parameters used plus realised quantities
        (number of labeled positives, chosen attributes, ...).
    scenario : :data:`pu_lib._validation.SINGLE_TRAINING_SET` (``"single_training_set"``)
        or :data:`pu_lib._validation.CASE_CONTROL` (``"case_control"``), thesis section 2.1.4.
    """

    s: np.ndarray
    y: np.ndarray
    propensity: np.ndarray
    mechanism: str
    params: dict = field(default_factory=dict)
    scenario: str = SINGLE_TRAINING_SET

    @property
    def n_labeled(self) -> int:
        return int(self.s.sum())

    @property
    def label_frequency(self) -> float:
        """Empirical ``Pr(s=1 | y=1)`` among the rows of this result (marks of P / positives)."""
        n_pos = int(self.y.sum())
        return float(self.s.sum()) / n_pos if n_pos else float("nan")


# ----------------------------------------------------------------------------- checks
# The checks a parameter constraint cannot express (array shapes, labels, a count that may
# be an integral float, p_minus < p_plus), shared by the mechanisms; the public functions
# declare their numeric ranges with pu_lib._validation.validate_params.


def check_y(y, n: int | None = None, need_pos: bool = True) -> np.ndarray:
    y = check_binary(y, "y", n=n)
    if y.shape[0] == 0:
        raise ValueError("y is empty")
    if need_pos and not np.any(y == 1):
        raise ValueError("y has no positive examples (no y == 1); a labeling mechanism needs positives")
    return y


def check_count(v, name: str, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (an integral float such as ``100.0``, which a config may
    hold, counts as one; a bool does not), as an int; ``ValueError`` naming ``name``."""
    if isinstance(v, bool):
        raise ValueError(f"{name} must be an integer, got {v!r}")
    if isinstance(v, numbers.Integral):
        v = int(v)
    elif isinstance(v, numbers.Real) and float(v).is_integer():
        v = int(v)
    else:
        raise ValueError(f"{name} must be an integer, got {v!r}")
    if v < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {v}")
    return v


def check_p_range(p_minus, p_plus) -> tuple[float, float]:
    p_minus = check_fraction(p_minus, "p_minus")
    p_plus = check_fraction(p_plus, "p_plus")
    if not p_minus < p_plus:
        raise ValueError(f"p_minus must be smaller than p_plus (0 <= p_minus < p_plus <= 1), got {p_minus} and {p_plus}")
    return p_minus, p_plus


def check_groups(groups, n: int, who: str = "groups") -> np.ndarray:
    """A 1-D array with one subclass id per row."""
    groups = np.asarray(groups)
    if groups.ndim != 1 or groups.shape[0] != n:
        raise ValueError(f"{who} must be 1-D with one subclass id per row ({n}), got shape {groups.shape}")
    return groups


def labels_1d(v, name) -> np.ndarray:
    v = np.asarray(v)
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {v.shape}")
    if v.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    return v


# ----------------------------------------------------------------------------- drawing s


def select_uniform(y: np.ndarray, n_labeled: int, rng: np.random.Generator) -> np.ndarray:
    """s with exactly ``n_labeled`` ones chosen uniformly among the positives of ``y``."""
    pos = np.flatnonzero(y == 1)
    s = np.zeros(y.shape[0], dtype=np.int8)
    if n_labeled > 0:
        s[rng.choice(pos, size=n_labeled, replace=False)] = 1
    return s


def bernoulli_labels(y: np.ndarray, e: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """s ~ Bernoulli(e(x)) for positives, 0 for negatives (one uniform draw per positive)."""
    pos = np.flatnonzero(y == 1)
    s = np.zeros(y.shape[0], dtype=np.int8)
    s[pos] = rng.random(pos.shape[0]) < e[pos]
    return s


def jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    return obj
