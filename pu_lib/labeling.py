"""Labeling mechanisms: turn fully labeled (PN) data into positive-unlabeled (PU) data.

Terminology follows Bekker's thesis (``bekker_thesis.md``):

* ``y`` is the true class (1 positive, 0 negative), ``s`` the observed label
  (1 = labeled positive, 0 = unlabeled).  Only positives can be labeled.
* The *propensity score* ``e(x) = Pr(s=1 | y=1, x)`` (thesis Definition 6, section 5.3)
  and the *label frequency* ``c = Pr(s=1 | y=1)`` (section 2.1.3, eq. 2.2).
* Labeling-mechanism classes SCAR / SAR / SNAR (section 5.2).
* The single-training-set and case-control scenarios (section 2.1.4) and the
  conversions between ``c`` and the class prior ``alpha`` (section 2.1.5, eqs. 2.5-2.7).

Every mechanism returns a :class:`LabelResult`.  Its ``propensity`` array holds the true
``e(x)`` for *every* row: for a negative row it is the value that row would have if it
were positive (the mechanism's ``e`` evaluated at its ``x``), or ``NaN`` where the
mechanism does not define one (a negative whose subclass id is not a positive subclass
in :func:`snar_subclass`).

Randomness: every function takes ``random_state`` (None, int or ``numpy.random.Generator``)
and goes through :func:`pu_lib._seeding.check_random_state`; the global NumPy random
state is never used.  :func:`make_label_set` derives an independent child seed per step
with :func:`pu_lib._seeding.derive_seed`.

Rounding: "round(v)" below is round-half-up with a 1e-9 tolerance against floating-point
error (so ``0.7 * 5 = 3.4999999999999996`` rounds to 4, as the user intends).
"""

from __future__ import annotations

import json
import math
import numbers
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd

from pu_lib._seeding import check_random_state, derive_seed, seed_to_int
from pu_lib._validation import check_binary, check_prior, check_X

__all__ = [
    "LabelResult",
    "MECHANISMS",
    "SCENARIOS",
    "SPLITS",
    "apply_mechanism",
    "case_control",
    "expand_case_control",
    "label_frequency_from_prior",
    "label_set_metadata",
    "make_label_set",
    "prior_from_label_frequency",
    "sar_bekker",
    "sar_propensity",
    "scale_minus1_1",
    "scar_count",
    "scar_flip_ratio",
    "scar_label_frequency",
    "snar_probability",
    "pulsnar_alpha",
    "snar_subclass",
    "stratified_holdout",
    "subsample",
    "validate_mechanism_params",
]

SINGLE = "single-training-set"
CASE_CONTROL = "case-control"
SCENARIOS = (SINGLE, CASE_CONTROL)
SPLITS = ("train", "val", "test")

_STD_TOL = 1e-9  # tolerance on the min_std filter (binary 90/10 column has std exactly 0.6)


@dataclass(frozen=True)
class LabelResult:
    """Outcome of a labeling mechanism.

    Attributes
    ----------
    s : int8 array, 1 = labeled positive (always 0 where ``y == 0``).
        In the case-control scenario ``s`` marks the members of the labeled set P;
        the unlabeled set U is *all* rows (P is a subset of U), see :func:`case_control`
        and :func:`expand_case_control`.
    y : int8 array, true class (1 positive, 0 negative).
    propensity : float64 array, true ``e(x) = Pr(s=1 | y=1, x)`` for every row.  For
        negatives it is the value the row would have if it were positive; ``NaN`` where
        undefined.
    mechanism : config name of the mechanism (a key of :data:`MECHANISMS`).
    params : JSON-serialisable dict: the parameters used plus realised quantities
        (number of labeled positives, chosen attributes, ...).
    scenario : ``"single-training-set"`` or ``"case-control"`` (thesis section 2.1.4).
    """

    s: np.ndarray
    y: np.ndarray
    propensity: np.ndarray
    mechanism: str
    params: dict = field(default_factory=dict)
    scenario: str = SINGLE

    @property
    def n_labeled(self) -> int:
        return int(self.s.sum())

    @property
    def label_frequency(self) -> float:
        """Empirical ``Pr(s=1 | y=1)`` among the rows of this result (marks of P / positives)."""
        n_pos = int(self.y.sum())
        return float(self.s.sum()) / n_pos if n_pos else float("nan")


# ----------------------------------------------------------------------------- helpers


def _round(v: float) -> int:
    """Round half up with a small tolerance against floating-point representation error."""
    return int(math.floor(v + 0.5 + 1e-9))


def _check_y(y, n: int | None = None, need_pos: bool = True) -> np.ndarray:
    y = check_binary(y, "y", n=n)
    if y.shape[0] == 0:
        raise ValueError("y is empty")
    if need_pos and not np.any(y == 1):
        raise ValueError("y has no positive examples (no y == 1); a labeling mechanism needs positives")
    return y


def _check_fraction(v, name: str, lo: float, hi: float, lo_open: bool, hi_open: bool) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError(f"{name} must be a number, got {v!r}")
    v = float(v)
    ok = np.isfinite(v) and (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)
    if not ok:
        interval = ("(" if lo_open else "[") + f"{lo:g}, {hi:g}" + (")" if hi_open else "]")
        raise ValueError(f"{name} must lie in {interval}, got {v!r}")
    return v


def _check_count(v, name: str, minimum: int = 1) -> int:
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


def _check_p_range(p_minus, p_plus) -> tuple[float, float]:
    p_minus = _check_fraction(p_minus, "p_minus", 0.0, 1.0, False, False)
    p_plus = _check_fraction(p_plus, "p_plus", 0.0, 1.0, False, False)
    if not p_minus < p_plus:
        raise ValueError(f"p_minus must be smaller than p_plus (0 <= p_minus < p_plus <= 1), got {p_minus} and {p_plus}")
    return p_minus, p_plus


def _select_uniform(y: np.ndarray, n_labeled: int, rng: np.random.Generator) -> np.ndarray:
    """s with exactly ``n_labeled`` ones chosen uniformly among the positives of ``y``."""
    pos = np.flatnonzero(y == 1)
    s = np.zeros(y.shape[0], dtype=np.int8)
    if n_labeled > 0:
        s[rng.choice(pos, size=n_labeled, replace=False)] = 1
    return s


def _bernoulli_labels(y: np.ndarray, e: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """s ~ Bernoulli(e(x)) for positives, 0 for negatives (one uniform draw per positive)."""
    pos = np.flatnonzero(y == 1)
    s = np.zeros(y.shape[0], dtype=np.int8)
    s[pos] = rng.random(pos.shape[0]) < e[pos]
    return s


def _scar_result(y, n_labeled, rng, mechanism, params, scenario=SINGLE) -> LabelResult:
    n_pos = int(y.sum())
    s = _select_uniform(y, n_labeled, rng)
    # Drawing n_labeled of n_pos without replacement labels each positive with
    # probability exactly n_labeled / n_pos: that is the true (constant) propensity.
    prop = np.full(y.shape[0], n_labeled / n_pos, dtype=np.float64)
    params = dict(params, n_pos=n_pos, n_labeled=int(n_labeled), label_frequency=n_labeled / n_pos)
    return LabelResult(s=s, y=y, propensity=prop, mechanism=mechanism, params=params, scenario=scenario)


# ----------------------------------------------------------------------------- SCAR


def scar_label_frequency(y, c, random_state=None) -> LabelResult:
    """SCAR labeling with label frequency ``c = Pr(s=1 | y=1)`` (thesis section 2.2, SCAR).

    Exactly ``round(c * n_pos)`` positives (at least 1) are labeled, chosen uniformly at
    random without replacement; ``c`` must lie in (0, 1] (``c = 1`` labels every positive).
    The propensity is the constant ``n_labeled / n_pos``.  Mechanism name ``"scar_c"``.
    """
    c = _check_fraction(c, "c", 0.0, 1.0, True, False)
    y = _check_y(y)
    rng = check_random_state(random_state)
    n_pos = int(y.sum())
    n_lab = min(n_pos, max(1, _round(c * n_pos)))
    return _scar_result(y, n_lab, rng, "scar_c", {"c": c})


def scar_flip_ratio(y, flip_ratio, random_state=None) -> LabelResult:
    """SCAR labeling by flip ratio, as in the PU Hellinger-trees protocol
    (``pu_hellinger_trees.md`` section 4.1: 25/50/75 % of positives flipped to unlabeled).

    Exactly ``round(flip_ratio * n_pos)`` positives become unlabeled, chosen uniformly,
    except that at least one positive always stays labeled.  ``flip_ratio`` in [0, 1)
    (``0`` labels every positive).  Mechanism name ``"scar_flip"``.
    """
    flip_ratio = _check_fraction(flip_ratio, "flip_ratio", 0.0, 1.0, False, True)
    y = _check_y(y)
    rng = check_random_state(random_state)
    n_pos = int(y.sum())
    n_unlab = min(n_pos - 1, _round(flip_ratio * n_pos))
    return _scar_result(y, n_pos - n_unlab, rng, "scar_flip", {"flip_ratio": flip_ratio})


def scar_count(y, n_labeled, random_state=None) -> LabelResult:
    """SCAR labeling in the single-training-set scenario (thesis section 2.1.4) with exactly
    ``n_labeled`` labeled positives chosen uniformly.  Mechanism name ``"scar_count"``."""
    n_labeled = _check_count(n_labeled, "n_labeled")
    y = _check_y(y)
    n_pos = int(y.sum())
    if n_labeled > n_pos:
        raise ValueError(f"n_labeled={n_labeled} exceeds the number of positives ({n_pos})")
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
    Mechanism name ``"case_control"``.
    """
    n_labeled = _check_count(n_labeled, "n_labeled")
    y = _check_y(y)
    n, n_pos = y.shape[0], int(y.sum())
    if n_labeled > n_pos:
        raise ValueError(f"n_labeled={n_labeled} exceeds the number of positives ({n_pos})")
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


# ----------------------------------------------------------------------------- SAR


def scale_minus1_1(X) -> np.ndarray:
    """Per-column min-max scaling to [-1, 1] (thesis section 5.6.2); constant columns -> 0."""
    X = check_X(X)
    mn, mx = X.min(axis=0), X.max(axis=0)
    rng = mx - mn
    safe = np.where(rng > 0, rng, 1.0)
    out = 2.0 * (X - mn) / safe - 1.0
    out[:, rng == 0] = 0.0
    return out


def sar_propensity(X_scaled_cols, p_minus=0.2, p_plus=0.8) -> np.ndarray:
    """Bekker's SAR propensity score (thesis section 5.6.2)::

        e(x) = prod_{i=1..k} sc(x^(i), p-, p+) ** (1/k)
        sc(x, p-, p+) = p- + (x - min x) / (max x - min x) * (p+ - p-)

    i.e. the geometric mean of the per-attribute scores, each linear from ``p-`` at the
    column minimum to ``p+`` at the column maximum.  ``X_scaled_cols`` holds the already
    selected (and sign-flipped) propensity attributes, one per column (a 1-D array is one
    attribute); min and max are taken over the given rows.  A constant column scores
    ``(p- + p+) / 2``.  Result lies in ``[p-, p+]``.
    """
    p_minus, p_plus = _check_p_range(p_minus, p_plus)
    Z = np.asarray(X_scaled_cols, dtype=np.float64)
    if Z.ndim == 1:
        Z = Z[:, None]
    Z = check_X(Z, name="X_scaled_cols")
    k = Z.shape[1]
    mn, mx = Z.min(axis=0), Z.max(axis=0)
    width = mx - mn
    t = (Z - mn) / np.where(width > 0, width, 1.0)
    t[:, width == 0] = 0.5
    # (1 - t) p- + t p+ equals p- + t (p+ - p-) and is exact at t = 0 and t = 1.
    sc = (1.0 - t) * p_minus + t * p_plus
    e = sc[:, 0] if k == 1 else np.prod(sc, axis=1) ** (1.0 / k)
    return np.clip(e, p_minus, p_plus)


def _sar_setup(X, y, k, selection, p_minus, p_plus, min_std, attributes, rng):
    """Choose propensity attributes and compute e(x) on all rows of X (thesis 5.6.2)."""
    n, d = X.shape
    mn, mx = X.min(axis=0), X.max(axis=0)
    width = mx - mn
    # std of the column after scaling to [-1, 1] (scaling multiplies std by 2 / width)
    std_scaled = np.where(width > 0, 2.0 * X.std(axis=0) / np.where(width > 0, width, 1.0), 0.0)
    if attributes is not None:
        cols = np.asarray(attributes)
        if cols.ndim != 1 or cols.shape[0] != k or not np.issubdtype(cols.dtype, np.integer):
            raise ValueError(f"sar: attributes must be a list of k={k} column indices, got {attributes!r}")
        if np.any(cols < 0) or np.any(cols >= d) or np.unique(cols).shape[0] != k:
            raise ValueError(f"sar: attributes must be distinct column indices in [0, {d}), got {attributes!r}")
        cols = cols.astype(np.int64)
        signs = np.ones(k, dtype=np.int64)
        n_cand = d
    else:
        cand = np.flatnonzero(std_scaled >= min_std - _STD_TOL)
        n_cand = int(cand.shape[0])
        if n_cand < k:
            raise ValueError(
                f"sar: only {n_cand} attribute(s) have std >= min_std={min_std} after scaling to [-1, 1], "
                f"cannot choose k={k} (continuous attributes rarely reach 0.6; lower min_std or pass attributes)"
            )
        if selection == "random":
            cols = np.sort(rng.choice(cand, size=k, replace=False)).astype(np.int64)
            signs = np.ones(k, dtype=np.int64)
        elif selection == "correlated":
            if y.min() == y.max():
                raise ValueError("sar: selection='correlated' needs both classes in y")
            yc = y.astype(np.float64) - y.mean()
            cov = (X[:, cand].T @ yc) / n
            corr = cov / (X[:, cand].std(axis=0) * yc.std())
            order = np.lexsort((cand, -np.abs(corr)))[:k]  # largest |corr|, ties by index
            cols = cand[order].astype(np.int64)
            signs = np.where(corr[order] < 0, -1, 1).astype(np.int64)
        else:
            raise ValueError(f"sar: selection must be 'random' or 'correlated', got {selection!r}")
    Z = scale_minus1_1(X[:, cols]) * signs
    e = sar_propensity(Z, p_minus, p_plus)
    info = {
        "k": int(k),
        "selection": selection if attributes is None else "given",
        "p_minus": p_minus,
        "p_plus": p_plus,
        "min_std": float(min_std),
        "attributes": cols.tolist(),
        "signs": signs.tolist(),
        "n_candidates": n_cand,
    }
    return e, info


def sar_bekker(
    X, y, k, selection="random", p_minus=0.2, p_plus=0.8, min_std=0.6, attributes=None, random_state=None
) -> LabelResult:
    """SAR labeling of Bekker et al. (thesis section 5.6.2, "Constructing Datasets").

    1. Features are scaled to [-1, 1] per column (:func:`scale_minus1_1`).
    2. ``k`` propensity attributes are chosen among the attributes whose scaled standard
       deviation (population, ddof=0) is at least ``min_std`` (0.6: a binary attribute
       qualifies iff at most 90 % of its values are equal, thesis footnote 4):
       ``selection="random"`` picks them uniformly at random; ``"correlated"`` picks the
       ``k`` with the largest absolute Pearson correlation with ``y`` and flips the sign of
       the negatively correlated ones so that all correlate positively with the class
       (footnote 5).  ``attributes`` (k column indices) bypasses the choice (no filter,
       no flips).
    3. ``e(x)`` is :func:`sar_propensity` of the selected, sign-flipped columns over all
       rows of ``X``; positives are labeled with ``s ~ Bernoulli(e(x))``.

    ``params`` records the chosen ``attributes`` and their ``signs`` (+1 / -1).
    Mechanism name ``"sar"``.
    """
    p = validate_mechanism_params(
        "sar",
        {"k": k, "selection": selection, "p_minus": p_minus, "p_plus": p_plus, "min_std": min_std,
         "attributes": attributes},
    )
    X = check_X(X)
    y = _check_y(y, n=X.shape[0])
    rng = check_random_state(random_state)
    e, info = _sar_setup(X, y, p["k"], p["selection"], p["p_minus"], p["p_plus"], p["min_std"], p["attributes"], rng)
    s = _bernoulli_labels(y, e, rng)
    info["n_pos"] = int(y.sum())
    return LabelResult(s=s, y=y, propensity=e, mechanism="sar", params=info, scenario=SINGLE)


# ----------------------------------------------------------------------------- SNAR


def _count_for_group(counts, g):
    if isinstance(counts, dict):
        if g in counts:
            return counts[g]
        if str(g) in counts:  # JSON/YAML configs turn keys into strings
            return counts[str(g)]
        raise ValueError(f"snar_subclass: n_labeled_per_group has no entry for positive subclass {g!r}")
    return counts


def snar_subclass(y, groups, n_labeled_per_group, random_state=None) -> LabelResult:
    """SNAR labeling by positive subclass (PULSNAR, ``pulsnar.md`` "SNAR data": labeled and
    unlabeled positives are drawn from the positive subclasses in different proportions).

    ``groups`` gives a subclass id per row (the value on negative rows is ignored).  From
    each positive subclass ``g`` exactly ``n_labeled_per_group[g]`` positives are labeled,
    uniformly within the subclass; an int applies to every subclass.  A dict must cover
    every positive subclass (keys may be the ids or their ``str``; 0 is allowed).
    The propensity of subclass ``g`` is ``n_labeled_g / n_g``; negative rows get the value
    of their group when it is a positive subclass, else NaN.
    Mechanism name ``"snar_subclass"``.
    """
    y = _check_y(y)
    groups = np.asarray(groups)
    if groups.ndim != 1 or groups.shape[0] != y.shape[0]:
        raise ValueError(f"groups must be 1-D with one subclass id per row ({y.shape[0]}), got shape {groups.shape}")
    p = validate_mechanism_params("snar_subclass", {"n_labeled_per_group": n_labeled_per_group})
    counts = p["n_labeled_per_group"]
    rng = check_random_state(random_state)
    pos_groups = np.unique(groups[y == 1])
    if isinstance(counts, dict):
        known = {str(g) for g in pos_groups} | set(pos_groups.tolist())
        extra = [key for key in counts if key not in known]
        if extra:
            raise ValueError(f"snar_subclass: n_labeled_per_group names unknown positive subclass(es) {extra!r}")
    s = np.zeros(y.shape[0], dtype=np.int8)
    prop = np.full(y.shape[0], np.nan, dtype=np.float64)
    realised = {}
    by_group = {}
    for g in pos_groups.tolist():
        members = np.flatnonzero((groups == g) & (y == 1))
        m = _count_for_group(counts, g)
        if m > members.shape[0]:
            raise ValueError(
                f"snar_subclass: {m} labeled requested from subclass {g!r} which has only {members.shape[0]} positives"
            )
        if m:
            s[rng.choice(members, size=m, replace=False)] = 1
        e_g = m / members.shape[0]
        prop[groups == g] = e_g
        realised[str(g)] = int(m)
        by_group[str(g)] = e_g
    if s.sum() == 0:
        raise ValueError("snar_subclass: n_labeled_per_group labels no positive at all")
    params = {
        "n_labeled_per_group": realised,
        "propensity_by_group": by_group,
        "n_pos": int(y.sum()),
        "n_labeled": int(s.sum()),
    }
    return LabelResult(s=s, y=y, propensity=prop, mechanism="snar_subclass", params=params, scenario=SINGLE)


def _largest_remainder(total: int, weights: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Integer allocation of ``total`` proportional to ``weights`` (largest remainder,
    ties to the lower index), never above ``caps``: a capped entry's excess is
    redistributed over the others in proportion to their weights, repeatedly."""
    alloc = np.zeros(weights.shape[0], dtype=np.int64)
    free = np.ones(weights.shape[0], dtype=bool)
    remaining = int(total)
    while remaining > 0 and free.any():
        w = np.where(free, weights, 0.0)
        share = remaining * w / w.sum()
        part = np.floor(share).astype(np.int64)
        rest = remaining - int(part.sum())
        order = np.lexsort((np.arange(w.shape[0]), -(share - part)))
        part[order[:rest]] += 1
        room = caps - alloc
        over = part > room
        part = np.minimum(part, room)
        alloc += part
        remaining -= int(part.sum())
        free &= ~over & (alloc < caps)
    if remaining > 0:
        raise ValueError(f"cannot place {total} items under the caps {caps.tolist()}")
    return alloc


def pulsnar_alpha(y, alpha, snar=False, groups=None, random_state=None) -> LabelResult:
    """PU data with an exact fraction ``alpha`` of positives among the unlabeled, as in the
    PULSNAR paper's benchmark protocol (``pulsnar.md``, "ML benchmark datasets"): all
    negatives are unlabeled, and ``k = round(n_neg * alpha / (1 - alpha))`` positives are
    moved into the unlabeled set, so that ``k / (k + n_neg) = alpha`` (to rounding); the
    other positives are labeled.

    * SCAR (``snar=False``): the ``k`` positives are chosen uniformly.
    * SNAR (``snar=True``): "positive examples were selected from every positive subclass
      for label flipping while ensuring a distinct ratio of positive examples in the
      positive and unlabeled sets". The paper does not give the shares; we use those of
      its synthetic SNAR recipe: the positive subclasses (``groups`` of the positive rows,
      e.g. the original class) sorted by size (ties by id) get shares proportional to
      1, 2, 4, ..., 2**(m-1) of ``k`` (the largest subclass the largest share; largest
      remainder rounding), each subclass keeping at least one labeled row; a share above
      that cap is redistributed over the other subclasses. The true propensity of subclass
      ``g`` is its labeled fraction.

    ``alpha`` in [0, 1). Raises ``ValueError`` when the positives cannot supply ``k``
    unlabeled positives and still keep one labeled positive (per subclass for SNAR).
    Mechanism name ``"pulsnar_alpha"``.
    """
    alpha = _check_fraction(alpha, "alpha", 0.0, 1.0, False, True)
    y = _check_y(y)
    rng = check_random_state(random_state)
    pos = np.flatnonzero(y == 1)
    n_neg = int(y.shape[0] - pos.shape[0])
    k = _round(n_neg * alpha / (1.0 - alpha))
    s = np.zeros(y.shape[0], dtype=np.int8)
    prop = np.zeros(y.shape[0], dtype=np.float64)
    params = {"alpha": alpha, "snar": bool(snar), "n_neg": n_neg, "n_unlabeled_pos": k,
              "alpha_realised": k / (k + n_neg) if k + n_neg else float("nan")}
    if not snar:
        if k > pos.shape[0] - 1:
            raise ValueError(
                f"pulsnar_alpha: alpha={alpha} needs {k} unlabeled positives ({n_neg} negatives) but there "
                f"are only {pos.shape[0]} positives (one must stay labeled)"
            )
        s[pos] = 1
        if k:
            s[rng.choice(pos, size=k, replace=False)] = 0
        prop[:] = (pos.shape[0] - k) / pos.shape[0]
        params["label_frequency"] = (pos.shape[0] - k) / pos.shape[0]
        return LabelResult(s=s, y=y, propensity=prop, mechanism="pulsnar_alpha", params=params, scenario=SINGLE)
    if groups is None:
        raise ValueError("pulsnar_alpha: snar=True needs groups (the subclass of every row)")
    groups = np.asarray(groups)
    if groups.shape[0] != y.shape[0]:
        raise ValueError(f"pulsnar_alpha: groups has {groups.shape[0]} entries but y has {y.shape[0]}")
    gids, inverse, sizes = np.unique(groups[pos], return_inverse=True, return_counts=True)
    if gids.shape[0] < 2:
        raise ValueError(f"pulsnar_alpha: snar=True needs at least 2 positive subclasses, found {gids.shape[0]}")
    order = np.lexsort((np.arange(gids.shape[0]), sizes))  # ascending size
    weights = np.empty(gids.shape[0])
    weights[order] = 2.0 ** np.arange(gids.shape[0])
    caps = sizes - 1
    if k > int(caps.sum()):
        raise ValueError(
            f"pulsnar_alpha: alpha={alpha} needs {k} unlabeled positives but the {gids.shape[0]} positive "
            f"subclasses can give at most {int(caps.sum())} (one labeled row each)"
        )
    alloc = _largest_remainder(k, weights, caps)
    s[pos] = 1
    for j in range(gids.shape[0]):
        members = pos[inverse == j]
        if alloc[j]:
            s[rng.choice(members, size=int(alloc[j]), replace=False)] = 0
        prop[members] = (sizes[j] - alloc[j]) / sizes[j]
    # negatives: the propensity of their subclass if it is a positive subclass, else NaN
    neg = np.flatnonzero(y == 0)
    look = {g: (sizes[j] - alloc[j]) / sizes[j] for j, g in enumerate(gids.tolist())}
    prop[neg] = [look.get(g, np.nan) for g in groups[neg].tolist()]
    params["unlabeled_per_subclass"] = {str(g): int(a) for g, a in zip(gids.tolist(), alloc.tolist())}
    return LabelResult(s=s, y=y, propensity=prop, mechanism="pulsnar_alpha", params=params, scenario=SINGLE)


def _class_probability(X, y, estimator, rng) -> tuple[np.ndarray, str]:
    from sklearn.base import clone

    if y.min() == y.max():
        raise ValueError("snar_prob: y must contain both classes to fit the class-probability model")
    if estimator is None:
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        est = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    else:
        if not hasattr(estimator, "predict_proba"):
            raise ValueError("snar_prob: estimator must implement predict_proba")
        est = clone(estimator)
        if "random_state" in est.get_params() and est.get_params()["random_state"] is None:
            est.set_params(random_state=int(rng.integers(2**31 - 1)))
    est.fit(X, y)
    classes = list(est.classes_)
    prob = est.predict_proba(X)[:, classes.index(1)]
    return np.asarray(prob, dtype=np.float64), type(est).__name__ if estimator is not None else "StandardScaler+LogisticRegression"


def snar_probability(X, y, p_minus=0.2, p_plus=0.8, estimator=None, random_state=None) -> LabelResult:
    """SNAR labeling: the propensity depends on the class probability ``Pr(y=1|x)``
    (thesis section 5.2: "the labeling mechanism depends on the real probability of this
    example being positive").

    ``Pr(y=1|x)`` is modelled by ``estimator`` (default: standardisation + logistic
    regression) fitted on the fully labeled ``(X, y)`` and evaluated **in-sample** on the
    same rows.  In-sample fitting is deliberate: the mechanism must be one fixed function
    ``e(x)`` of ``x`` shared by every row (cross-fitting would give rows from different
    folds different functions); the estimator only simulates the labeler and is not a
    learner under evaluation.  The probability is then mapped linearly to
    ``[p-, p+]`` with its min/max over the data (the ``sc`` map of thesis section 5.6.2)::

        e = p- + (prob - min prob) / (max prob - min prob) * (p+ - p-)

    and positives are labeled with ``s ~ Bernoulli(e)``.  Mechanism name ``"snar_prob"``.
    """
    p_minus, p_plus = _check_p_range(p_minus, p_plus)
    X = check_X(X)
    y = _check_y(y, n=X.shape[0])
    rng = check_random_state(random_state)
    e, info = _snar_prob_setup(X, y, p_minus, p_plus, estimator, rng)
    s = _bernoulli_labels(y, e, rng)
    info["n_pos"] = int(y.sum())
    return LabelResult(s=s, y=y, propensity=e, mechanism="snar_prob", params=info, scenario=SINGLE)


def _snar_prob_setup(X, y, p_minus, p_plus, estimator, rng):
    prob, name = _class_probability(X, y, estimator, rng)
    e = sar_propensity(prob, p_minus, p_plus)
    return e, {"p_minus": p_minus, "p_plus": p_plus, "estimator": name, "fit": "in-sample"}


# ----------------------------------------------------------------------------- prior <-> c


def _check_scenario(scenario):
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {SCENARIOS}, got {scenario!r}")


def label_frequency_from_prior(prior, labeled_fraction, scenario=SINGLE) -> float:
    """Label frequency ``c`` from the class prior ``alpha`` and ``Pr(s=1)`` (thesis 2.1.5).

    * single-training-set, eq. 2.5: ``c = Pr(s=1) / alpha`` (``alpha = Pr(y=1)``);
    * case-control, eq. 2.6: ``c = Pr(s=1) / (alpha (1 - Pr(s=1)) + Pr(s=1))``
      (``alpha = Pr(y=1 | s=0)``, the prior of the unlabeled sample).

    ``labeled_fraction`` is ``Pr(s=1)``, the fraction of labeled examples, in (0, 1).
    Raises ValueError when the inputs are inconsistent (``c > 1``).
    """
    _check_scenario(scenario)
    alpha = check_prior(prior, "prior")
    lf = _check_fraction(labeled_fraction, "labeled_fraction", 0.0, 1.0, True, True)
    if scenario == SINGLE:
        c = lf / alpha
    else:
        c = lf / (alpha * (1.0 - lf) + lf)
    if c > 1.0 + 1e-12:
        raise ValueError(
            f"labeled_fraction={lf} exceeds the prior {alpha}: more labeled examples than positives (c = {c:.4g} > 1)"
        )
    return min(c, 1.0)


def prior_from_label_frequency(c, labeled_fraction, scenario=SINGLE) -> float:
    """Class prior ``alpha`` from the label frequency ``c`` and ``Pr(s=1)`` (thesis 2.1.5).

    * single-training-set, inverse of eq. 2.5: ``alpha = Pr(s=1) / c``;
    * case-control, eq. 2.7: ``alpha = (1 - c) / c * Pr(s=1) / (1 - Pr(s=1))``.

    Raises ValueError when the implied prior is not in (0, 1).
    """
    _check_scenario(scenario)
    c = _check_fraction(c, "c", 0.0, 1.0, True, False)
    lf = _check_fraction(labeled_fraction, "labeled_fraction", 0.0, 1.0, True, True)
    if scenario == SINGLE:
        alpha = lf / c
    else:
        alpha = (1.0 - c) / c * lf / (1.0 - lf)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"c={c} and labeled_fraction={lf} imply a prior of {alpha:.4g}, outside (0, 1)")
    return alpha


# ----------------------------------------------------------------------------- splitting


def _labels_1d(v, name) -> np.ndarray:
    v = np.asarray(v)
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {v.shape}")
    if v.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    return v


def stratified_holdout(y, test_size, random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """Stratified random split into (train, test) sorted int64 index arrays.

    Exact stratification: each class ``k`` with ``n_k`` rows contributes exactly
    ``round(test_size * n_k)`` rows to the test part, chosen uniformly.  ``test_size`` in
    [0, 1); ``0`` gives an empty test part.  (A 70/30 holdout as in
    ``pu_hellinger_trees.md`` section 4.1 is ``test_size=0.3``.)
    """
    y = _labels_1d(y, "y")
    test_size = _check_fraction(test_size, "test_size", 0.0, 1.0, False, True)
    rng = check_random_state(random_state)
    n = y.shape[0]
    is_test = np.zeros(n, dtype=bool)
    if test_size > 0:
        for k in np.unique(y):
            members = np.flatnonzero(y == k)
            m = min(members.shape[0], _round(test_size * members.shape[0]))
            if m:
                is_test[rng.choice(members, size=m, replace=False)] = True
    return np.flatnonzero(~is_test).astype(np.int64), np.flatnonzero(is_test).astype(np.int64)


def subsample(n_or_y, max_samples, random_state=None, stratify=None) -> np.ndarray:
    """Sorted indices of a subsample of at most ``max_samples`` rows, without replacement
    (``pu_hellinger_trees.md`` 4.1: data sets above 10,000 examples are subsampled to
    10,000 per repetition).  Identity ``arange(n)`` if ``n <= max_samples`` or
    ``max_samples`` is None.

    ``n_or_y``: the number of rows or an array with one entry per row.  ``stratify``: None,
    an array of class labels per row, or True to stratify by ``n_or_y`` itself.  Stratified
    draws allocate ``max_samples`` over the classes proportionally by largest remainder (so
    the total is exact and each class gets ``floor`` or ``ceil`` of its share).
    """
    if isinstance(n_or_y, (numbers.Integral,)) and not isinstance(n_or_y, bool):
        n = int(n_or_y)
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        labels_src = None
    else:
        labels_src = _labels_1d(n_or_y, "n_or_y")
        n = labels_src.shape[0]
    if max_samples is None:
        return np.arange(n, dtype=np.int64)
    max_samples = _check_count(max_samples, "max_samples")
    if max_samples >= n:
        return np.arange(n, dtype=np.int64)
    rng = check_random_state(random_state)
    if stratify is None or stratify is False:
        return np.sort(rng.choice(n, size=max_samples, replace=False)).astype(np.int64)
    if stratify is True:
        if labels_src is None:
            raise ValueError("stratify=True needs n_or_y to be the label array, not a count")
        labels = labels_src
    else:
        labels = _labels_1d(stratify, "stratify")
        if labels.shape[0] != n:
            raise ValueError(f"stratify has {labels.shape[0]} entries but there are {n} rows")
    classes, inverse, sizes = np.unique(labels, return_inverse=True, return_counts=True)
    quota = max_samples * sizes / n
    alloc = np.floor(quota).astype(np.int64)
    rest = max_samples - int(alloc.sum())
    if rest:
        order = np.lexsort((np.arange(classes.shape[0]), -(quota - alloc)))
        alloc[order[:rest]] += 1
    chosen = []
    for j in range(classes.shape[0]):
        members = np.flatnonzero(inverse == j)
        if alloc[j]:
            chosen.append(rng.choice(members, size=int(alloc[j]), replace=False))
    return np.sort(np.concatenate(chosen)).astype(np.int64)


# ----------------------------------------------------------------------------- registry


_NO_DEFAULT = object()

# name -> {param: default}; _NO_DEFAULT marks a required parameter
_PARAM_SPECS: dict[str, dict] = {
    "scar_c": {"c": _NO_DEFAULT},
    "scar_flip": {"flip_ratio": _NO_DEFAULT},
    "scar_count": {"n_labeled": _NO_DEFAULT},
    "case_control": {"n_labeled": _NO_DEFAULT},
    "sar": {"k": _NO_DEFAULT, "selection": "random", "p_minus": 0.2, "p_plus": 0.8, "min_std": 0.6,
            "attributes": None},
    "snar_subclass": {"n_labeled_per_group": _NO_DEFAULT},
    "snar_prob": {"p_minus": 0.2, "p_plus": 0.8},
    "pulsnar_alpha": {"alpha": _NO_DEFAULT, "snar": False},
}

MECHANISMS: dict[str, Callable[..., LabelResult]] = {
    "scar_c": scar_label_frequency,
    "scar_flip": scar_flip_ratio,
    "scar_count": scar_count,
    "case_control": case_control,
    "sar": sar_bekker,
    "snar_subclass": snar_subclass,
    "snar_prob": snar_probability,
    "pulsnar_alpha": pulsnar_alpha,
}

_FRACTION_MECHANISMS = ("scar_c", "scar_flip", "pulsnar_alpha")
_COUNT_MECHANISMS = ("scar_count", "case_control", "snar_subclass")
_FUNCTION_MECHANISMS = ("sar", "snar_prob")  # e(x) is a function of x, set up once


def validate_mechanism_params(mechanism: str, params: dict) -> dict:
    """Check a mechanism's config parameters and fill defaults.

    Raises ValueError naming the mechanism and the field for an unknown mechanism, an
    unknown or missing parameter, or an out-of-range value (``c`` outside (0, 1],
    ``flip_ratio`` outside [0, 1), ``k < 1``, not ``0 <= p_minus < p_plus <= 1``,
    ``n_labeled < 1``, ...).
    """
    if mechanism not in _PARAM_SPECS:
        raise ValueError(f"unknown mechanism {mechanism!r}; expected one of {sorted(_PARAM_SPECS)}")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ValueError(f"{mechanism}: params must be a dict, got {type(params).__name__}")
    spec = _PARAM_SPECS[mechanism]
    unknown = sorted(set(params) - set(spec))
    if unknown:
        raise ValueError(f"{mechanism}: unknown parameter(s) {unknown}; allowed: {sorted(spec)}")
    out = {}
    for key, default in spec.items():
        if key in params:
            out[key] = params[key]
        elif default is _NO_DEFAULT:
            raise ValueError(f"{mechanism}: missing required parameter {key!r}")
        else:
            out[key] = default

    def fail(key, exc):
        raise ValueError(f"{mechanism}: invalid {key}: {exc}") from None

    checks = {
        "c": lambda v: _check_fraction(v, "c", 0.0, 1.0, True, False),
        "flip_ratio": lambda v: _check_fraction(v, "flip_ratio", 0.0, 1.0, False, True),
        "n_labeled": lambda v: _check_count(v, "n_labeled"),
        "k": lambda v: _check_count(v, "k"),
        "alpha": lambda v: _check_fraction(v, "alpha", 0.0, 1.0, False, True),
    }
    for key, check in checks.items():
        if key in out:
            try:
                out[key] = check(out[key])
            except ValueError as exc:
                fail(key, exc)
    if "p_minus" in out:
        try:
            out["p_minus"] = _check_fraction(out["p_minus"], "p_minus", 0.0, 1.0, False, False)
        except ValueError as exc:
            fail("p_minus", exc)
        try:
            out["p_plus"] = _check_fraction(out["p_plus"], "p_plus", 0.0, 1.0, False, False)
        except ValueError as exc:
            fail("p_plus", exc)
        if not out["p_minus"] < out["p_plus"]:
            fail("p_minus/p_plus", f"need 0 <= p_minus < p_plus <= 1, got p_minus={out['p_minus']}, "
                                   f"p_plus={out['p_plus']}")
    if mechanism == "sar":
        if out["selection"] not in ("random", "correlated"):
            fail("selection", f"must be 'random' or 'correlated', got {out['selection']!r}")
        try:
            out["min_std"] = _check_fraction(out["min_std"], "min_std", 0.0, 2.0, False, False)
        except ValueError as exc:
            fail("min_std", exc)
        attrs = out["attributes"]
        if attrs is not None:
            if isinstance(attrs, (str, bytes)) or not hasattr(attrs, "__len__"):
                fail("attributes", f"must be a list of column indices, got {attrs!r}")
            try:
                attrs = [_check_count(a, "attribute index", minimum=0) for a in attrs]
            except ValueError as exc:
                fail("attributes", exc)
            if len(attrs) != out["k"]:
                fail("attributes", f"has {len(attrs)} entries but k={out['k']}")
            out["attributes"] = attrs
    if mechanism == "pulsnar_alpha" and not isinstance(out["snar"], bool):
        fail("snar", f"must be true or false, got {out['snar']!r}")
    if mechanism == "snar_subclass":
        counts = out["n_labeled_per_group"]
        if isinstance(counts, dict):
            if not counts:
                fail("n_labeled_per_group", "dict is empty")
            try:
                counts = {g: _check_count(v, f"count for subclass {g!r}", minimum=0) for g, v in counts.items()}
            except ValueError as exc:
                fail("n_labeled_per_group", exc)
            if sum(counts.values()) < 1:
                fail("n_labeled_per_group", "all counts are 0; at least one positive must be labeled")
            out["n_labeled_per_group"] = counts
        else:
            try:
                out["n_labeled_per_group"] = _check_count(counts, "n_labeled_per_group")
            except ValueError as exc:
                fail("n_labeled_per_group", exc)
    return out


def apply_mechanism(mechanism, params, *, X, y, groups=None, random_state=None) -> LabelResult:
    """Run the mechanism ``mechanism`` (a key of :data:`MECHANISMS`) with config ``params``.

    ``X`` is needed only by ``"sar"`` and ``"snar_prob"`` (may be None otherwise, else
    its row count is checked against ``y``); ``groups`` only by ``"snar_subclass"``.
    """
    p = validate_mechanism_params(mechanism, params)
    if X is not None:
        X = check_X(X)
        y = _check_y(y, n=X.shape[0], need_pos=False)
    if mechanism in _FUNCTION_MECHANISMS and X is None:
        raise ValueError(f"{mechanism}: X is required")
    if mechanism == "scar_c":
        return scar_label_frequency(y, p["c"], random_state)
    if mechanism == "scar_flip":
        return scar_flip_ratio(y, p["flip_ratio"], random_state)
    if mechanism == "scar_count":
        return scar_count(y, p["n_labeled"], random_state)
    if mechanism == "case_control":
        return case_control(y, p["n_labeled"], random_state)
    if mechanism == "sar":
        return sar_bekker(X, y, p["k"], p["selection"], p["p_minus"], p["p_plus"], p["min_std"],
                          p["attributes"], random_state)
    if mechanism == "snar_subclass":
        if groups is None:
            raise ValueError("snar_subclass: groups (subclass id per row) is required")
        return snar_subclass(y, groups, p["n_labeled_per_group"], random_state)
    if mechanism == "pulsnar_alpha":
        return pulsnar_alpha(y, p["alpha"], p["snar"], groups, random_state)
    return snar_probability(X, y, p["p_minus"], p["p_plus"], None, random_state)


# ----------------------------------------------------------------------------- label sets


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    return obj


def make_label_set(
    X,
    y,
    *,
    mechanism,
    params,
    test_size=0.3,
    val_size=0.0,
    max_samples=None,
    groups=None,
    random_state=None,
    predefined_split=None,
) -> pd.DataFrame:
    """Build the per-repetition label set (indices and labels only, never ``X``).

    Steps, each driven by its own child seed ``derive_seed(base, "make_label_set", step)``
    (``base`` = the int ``random_state``, or one draw from a Generator / fresh entropy):

    1. ``"subsample"``: if ``max_samples`` is set and smaller than ``n``, a subsample of
       ``max_samples`` rows without replacement, stratified by ``y`` (PU Hellinger-trees
       protocol, ``pu_hellinger_trees.md`` 4.1);
    2. ``"holdout"``: exact stratified holdout into train / test (``test_size`` may be 0);
       or, with ``predefined_split`` (one ``"train"`` / ``"test"`` entry per row, e.g. the
       ``split`` meta column of MNIST or 20 Newsgroups bydate), the dataset's own split:
       ``test_size`` is then ignored and no random holdout is drawn;
    3. ``"val"``: if ``val_size > 0``, a stratified validation part of ``val_size`` of the
       train rows (for threshold tuning), removed from train;
    4. ``"setup"``, ``"train"``, ``"val_labels"``: labeling.
       * ``scar_c`` / ``scar_flip`` are applied independently to train and val, so each
         part has exactly the requested ``c`` / flip ratio.
       * Count-based mechanisms (``scar_count``, ``case_control``, ``snar_subclass``) apply
         the count(s) to train only; val rows are labeled SCAR
         (:func:`scar_label_frequency`) with train's empirical label frequency
         ``n_labeled_train / n_pos_train``.
       * ``sar`` / ``snar_prob``: the propensity function is set up **once** on all
         (subsampled) rows -- SAR attribute choice, [-1, 1] scaling and the min/max of the
         ``sc`` map; the class-probability model of SNAR -- so train, val and test share the
         same ``e(x)``; then ``s ~ Bernoulli(e)`` independently on train and val positives.
       Test rows get ``s = 0`` and the propensity of the mechanism applied to train
       (constant label frequency for SCAR / case-control, per-subclass value for
       ``snar_subclass`` -- NaN if undefined -- and ``e(x)`` for SAR / SNAR-prob).

    Returns a DataFrame with columns ``row`` (int64 index into the original data),
    ``split`` (categorical ``train`` < ``val`` < ``test``), ``y`` (int8), ``s`` (int8),
    ``propensity`` (float64) and ``scenario`` (constant str), sorted by split then row.
    For ``case_control`` the train rows with ``s = 1`` form P and *all* train rows form U.
    ``df.attrs`` holds ``mechanism``, ``scenario`` and ``params`` (a JSON string of the
    resolved parameters and realised quantities, e.g. the chosen SAR attributes); attrs
    are not kept by Parquet, see :func:`label_set_metadata`.
    """
    p = validate_mechanism_params(mechanism, params)
    y = _check_y(y)
    n = y.shape[0]
    if X is not None:
        X = check_X(X)
        if X.shape[0] != n:
            raise ValueError(f"y has {n} entries but X has {X.shape[0]} rows")
    elif mechanism in _FUNCTION_MECHANISMS:
        raise ValueError(f"{mechanism}: X is required")
    if groups is not None:
        groups = np.asarray(groups)
        if groups.ndim != 1 or groups.shape[0] != n:
            raise ValueError(f"groups must be 1-D with one entry per row ({n}), got shape {groups.shape}")
    elif mechanism == "snar_subclass":
        raise ValueError("snar_subclass: groups (subclass id per row) is required")
    test_size = _check_fraction(test_size, "test_size", 0.0, 1.0, False, True)
    val_size = _check_fraction(val_size, "val_size", 0.0, 1.0, False, True)
    if predefined_split is not None:
        predefined_split = np.asarray(predefined_split)
        if predefined_split.ndim != 1 or predefined_split.shape[0] != n:
            raise ValueError(
                f"predefined_split must be 1-D with one entry per row ({n}), got shape {predefined_split.shape}"
            )
        predefined_split = predefined_split.astype(str)
        bad = sorted(set(np.unique(predefined_split).tolist()) - {"train", "test"})
        if bad:
            raise ValueError(f"predefined_split may only hold 'train' and 'test', found {bad}")

    base = seed_to_int(random_state, fresh_if_none=True)

    def seed(step):
        return derive_seed(base, "make_label_set", step)

    # (1) subsample
    sub = subsample(n, max_samples, seed("subsample"), stratify=y)
    ys = y[sub]
    Xs = None
    if X is not None and mechanism in _FUNCTION_MECHANISMS:
        Xs = X if sub.shape[0] == n else X[sub]
    gs = groups[sub] if groups is not None else None
    # (2) holdout, (3) validation split -- positions into the subsample
    if predefined_split is not None:
        ps = predefined_split[sub]
        tr = np.flatnonzero(ps == "train").astype(np.int64)
        te = np.flatnonzero(ps == "test").astype(np.int64)
    else:
        tr, te = stratified_holdout(ys, test_size, seed("holdout"))
    va = np.empty(0, dtype=np.int64)
    if val_size > 0:
        tr_pos, va_pos = stratified_holdout(ys[tr], val_size, seed("val"))
        tr, va = tr[tr_pos], tr[va_pos]
    for name, part in (("train", tr), ("val", va)):
        if part.shape[0] and not np.any(ys[part] == 1):
            raise ValueError(f"the {name} split has no positive examples; lower test_size/val_size or max_samples")
    if tr.shape[0] == 0:
        raise ValueError("the train split is empty; lower test_size/val_size")

    # (4) labeling
    n_s = ys.shape[0]
    s = np.zeros(n_s, dtype=np.int8)
    prop = np.full(n_s, np.nan, dtype=np.float64)
    if mechanism in _FUNCTION_MECHANISMS:
        setup_rng = check_random_state(seed("setup"))
        if mechanism == "sar":
            e, info = _sar_setup(Xs, ys, p["k"], p["selection"], p["p_minus"], p["p_plus"], p["min_std"],
                                 p["attributes"], setup_rng)
        else:
            e, info = _snar_prob_setup(Xs, ys, p["p_minus"], p["p_plus"], None, setup_rng)
        s[tr] = _bernoulli_labels(ys[tr], e[tr], check_random_state(seed("train")))
        if va.shape[0]:
            s[va] = _bernoulli_labels(ys[va], e[va], check_random_state(seed("val_labels")))
        prop[:] = e
        scenario = SINGLE
        result_params = {"mechanism_params": _jsonable(p), **info}
    else:
        g_tr = gs[tr] if gs is not None else None
        r_tr = apply_mechanism(mechanism, p, X=None, y=ys[tr], groups=g_tr, random_state=seed("train"))
        scenario = r_tr.scenario
        s[tr], prop[tr] = r_tr.s, r_tr.propensity
        result_params = {"train": r_tr.params}
        if va.shape[0]:
            if mechanism in _FRACTION_MECHANISMS:
                r_va = apply_mechanism(mechanism, p, X=None, y=ys[va], groups=gs[va] if gs is not None else None,
                                       random_state=seed("val_labels"))
            else:  # _COUNT_MECHANISMS: SCAR with train's empirical label frequency
                assert mechanism in _COUNT_MECHANISMS
                r_va = scar_label_frequency(ys[va], r_tr.label_frequency, seed("val_labels"))
                result_params["val_mechanism"] = "scar_c"
            s[va], prop[va] = r_va.s, r_va.propensity
            result_params["val"] = r_va.params
        if te.shape[0]:
            if mechanism == "snar_subclass":
                by_group = r_tr.params["propensity_by_group"]
                prop[te] = [by_group.get(str(g), np.nan) for g in gs[te].tolist()]
            elif mechanism == "pulsnar_alpha" and p["snar"]:
                prop[te] = np.nan  # subclass propensities are those of the training draw only
            else:
                prop[te] = r_tr.propensity[0]
        result_params = {"mechanism_params": _jsonable(p), **result_params}

    order = np.concatenate([tr, va, te])
    split_codes = np.concatenate([
        np.zeros(tr.shape[0], dtype=np.int8),
        np.ones(va.shape[0], dtype=np.int8),
        np.full(te.shape[0], 2, dtype=np.int8),
    ])
    df = pd.DataFrame({
        "row": sub[order].astype(np.int64),
        "split": pd.Categorical.from_codes(split_codes, categories=list(SPLITS), ordered=True),
        "y": ys[order].astype(np.int8),
        "s": s[order].astype(np.int8),
        "propensity": prop[order].astype(np.float64),
        "scenario": pd.Series([scenario] * order.shape[0], dtype=str),
    })
    df.attrs["mechanism"] = mechanism
    df.attrs["scenario"] = scenario
    df.attrs["params"] = json.dumps(_jsonable({
        **result_params,
        "test_size": None if predefined_split is not None else test_size,
        "predefined_split": predefined_split is not None,
        "val_size": val_size,
        "max_samples": max_samples,
        "base_seed": base,
    }), sort_keys=True)
    return df


def label_set_metadata(df: pd.DataFrame) -> dict:
    """``{"mechanism", "scenario", "params"}`` of a :func:`make_label_set` frame.

    ``mechanism`` and ``params`` come from ``df.attrs`` (None / {} when lost, e.g. after a
    Parquet round trip); ``scenario`` falls back to the constant ``scenario`` column.
    """
    scenario = df.attrs.get("scenario")
    if scenario is None and "scenario" in df.columns and len(df):
        scenario = str(df["scenario"].iloc[0])
    params = df.attrs.get("params")
    return {
        "mechanism": df.attrs.get("mechanism"),
        "scenario": scenario,
        "params": json.loads(params) if isinstance(params, str) else (params or {}),
    }
