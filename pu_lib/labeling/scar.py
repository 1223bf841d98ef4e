"""SCAR labeling (thesis section 2.2): every positive has the same chance to be labeled.

Four ways to fix how many positives are labeled -- a label frequency ``c``, a flip ratio,
an exact count in the single-training-set scenario, or the labeled set P of the
case-control scenario -- all drawing the labeled positives uniformly without replacement.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from pu_lib._rounding import round_half_up
from pu_lib._seeding import check_random_state
from pu_lib._validation import CASE_CONTROL, SINGLE_TRAINING_SET, Interval, validate_params
from pu_lib.labeling._common import LabelResult, check_count, check_y, select_uniform

__all__ = ["case_control", "expand_case_control", "scar_count", "scar_flip_ratio", "scar_label_frequency"]


def _scar_result(y, n_labeled, rng, mechanism, params, scenario=SINGLE_TRAINING_SET) -> LabelResult:
    n_pos = int(y.sum())
    s = select_uniform(y, n_labeled, rng)
    # Drawing n_labeled of n_pos without replacement labels each positive with
    # probability exactly n_labeled / n_pos: that is the true (constant) propensity.
    prop = np.full(y.shape[0], n_labeled / n_pos, dtype=np.float64)
    params = dict(params, n_pos=n_pos, n_labeled=int(n_labeled), label_frequency=n_labeled / n_pos)
    return LabelResult(s=s, y=y, propensity=prop, mechanism=mechanism, params=params, scenario=scenario)


def _check_labeled_count(y, n_labeled) -> tuple[np.ndarray, int]:
    n_labeled = check_count(n_labeled, "n_labeled")
    y = check_y(y)
    n_pos = int(y.sum())
    if n_labeled > n_pos:
        raise ValueError(f"n_labeled={n_labeled} exceeds the number of positives ({n_pos})")
    return y, n_labeled


@validate_params({"y": ["array-like"], "c": [Interval(Real, 0.0, 1.0, closed="right")]})
def scar_label_frequency(y, c, random_state=None) -> LabelResult:
    """SCAR labeling with label frequency ``c = Pr(s=1 | y=1)`` (thesis section 2.2, SCAR).

    Exactly ``round(c * n_pos)`` positives (at least 1) are labeled, chosen uniformly at
    random without replacement; ``c`` must lie in (0, 1] (``c = 1`` labels every positive).
    "round" is :func:`pu_lib._rounding.round_half_up`.
    The propensity is the constant ``n_labeled / n_pos``.  Mechanism name ``"scar_c"``.
    """
    c = float(c)
    y = check_y(y)
    rng = check_random_state(random_state)
    n_pos = int(y.sum())
    n_lab = min(n_pos, max(1, round_half_up(c * n_pos)))
    return _scar_result(y, n_lab, rng, "scar_c", {"c": c})


@validate_params({"y": ["array-like"], "flip_ratio": [Interval(Real, 0.0, 1.0, closed="left")]})
def scar_flip_ratio(y, flip_ratio, random_state=None) -> LabelResult:
    """SCAR labeling by flip ratio, as in the PU Hellinger-trees protocol
    (``pu_hellinger_trees.md`` section 4.1: 25/50/75 % of positives flipped to unlabeled).

    Exactly ``round(flip_ratio * n_pos)`` positives (round half up) become unlabeled,
    chosen uniformly, except that at least one positive always stays labeled.
    ``flip_ratio`` in [0, 1) (``0`` labels every positive).  Mechanism name ``"scar_flip"``.
    """
    flip_ratio = float(flip_ratio)
    y = check_y(y)
    rng = check_random_state(random_state)
    n_pos = int(y.sum())
    n_unlab = min(n_pos - 1, round_half_up(flip_ratio * n_pos))
    return _scar_result(y, n_pos - n_unlab, rng, "scar_flip", {"flip_ratio": flip_ratio})


def scar_count(y, n_labeled, random_state=None) -> LabelResult:
    """SCAR labeling in the single-training-set scenario (thesis section 2.1.4) with exactly
    ``n_labeled`` labeled positives chosen uniformly.  Mechanism name ``"scar_count"``."""
    y, n_labeled = _check_labeled_count(y, n_labeled)
    return _scar_result(y, n_labeled, check_random_state(random_state), "scar_count", {})


def case_control(y, n_labeled, random_state=None) -> LabelResult:
    """Case-control PU data (thesis section 2.1.4, eq. 2.4) in the protocol of PU Extra
    Trees / nnPU (``pu_extra_trees.md`` section 5: "1000 positive examples are randomly
    sampled to form the P set, and the entire dataset is used for the U set").

    ``s`` marks the ``n_labeled`` members of P (chosen uniformly among the positives); the
    unlabeled sample U is *all* rows, including P's members.  Use
    :func:`expand_case_control` to obtain the (row, s) list a learner sees (P then U).

    ``propensity`` is ``Pr(row in P | y=1) = n_labeled / n_pos``.  Note this differs from
    the thesis' case-control label frequency of the combined P+U data,
    ``c = |P| / (|P| + n_pos)``, which is recorded in ``params["label_frequency_combined"]``
    together with ``labeled_fraction = |P| / (|P| + n)`` and ``prior = n_pos / n``
    (``alpha = Pr(y=1 | s=0)``, the prior of U); these satisfy eq. 2.6/2.7.
    Scenario :data:`pu_lib._validation.CASE_CONTROL`; mechanism name ``"case_control"``.
    """
    y, n_labeled = _check_labeled_count(y, n_labeled)
    n, n_pos = y.shape[0], int(y.sum())
    res = _scar_result(y, n_labeled, check_random_state(random_state), "case_control", {}, scenario=CASE_CONTROL)
    res.params.update(
        n_unlabeled=n,
        prior=n_pos / n,
        labeled_fraction=n_labeled / (n_labeled + n),
        label_frequency_combined=n_labeled / (n_labeled + n_pos),
    )
    return res


def expand_case_control(result: LabelResult) -> tuple[np.ndarray, np.ndarray]:
    """Rows and observed labels of the PU sample a learner sees in the case-control scenario.

    Returns ``(rows, s)``: first the rows of P (``s = 1``), then every row as U (``s = 0``),
    so ``X[rows]`` is the stacked training matrix.  For a single-training-set result this
    is simply ``(arange(n), result.s)``.
    """
    n = result.s.shape[0]
    if result.scenario != CASE_CONTROL:
        return np.arange(n, dtype=np.int64), result.s.copy()
    p_rows = np.flatnonzero(result.s == 1).astype(np.int64)
    rows = np.concatenate([p_rows, np.arange(n, dtype=np.int64)])
    s = np.concatenate([np.ones(p_rows.shape[0], dtype=np.int8), np.zeros(n, dtype=np.int8)])
    return rows, s
