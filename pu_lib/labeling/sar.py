"""SAR labeling of Bekker et al. (thesis section 5.6.2): the propensity score is a fixed
function of a few chosen attributes, scaled linearly between ``p-`` and ``p+``."""

from __future__ import annotations

import numpy as np

from pu_lib._rounding import ROUND_TOL
from pu_lib._seeding import check_random_state
from pu_lib._validation import check_X
from pu_lib.labeling._common import LabelResult, _bernoulli_labels, _check_p_range, _check_y
from pu_lib.labeling._params import validate_mechanism_params

__all__ = ["sar_bekker", "sar_propensity", "scale_minus1_1"]


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


def _given_attributes(attributes, k: int, d: int) -> np.ndarray:
    cols = np.asarray(attributes)
    if cols.ndim != 1 or cols.shape[0] != k or not np.issubdtype(cols.dtype, np.integer):
        raise ValueError(f"sar: attributes must be a list of k={k} column indices, got {attributes!r}")
    if np.any(cols < 0) or np.any(cols >= d) or np.unique(cols).shape[0] != k:
        raise ValueError(f"sar: attributes must be distinct column indices in [0, {d}), got {attributes!r}")
    return cols.astype(np.int64)


def _chosen_attributes(X, y, k, selection, min_std, rng) -> tuple[np.ndarray, np.ndarray, int]:
    """``(columns, signs, n_candidates)``: ``k`` attributes among those whose std after
    scaling to [-1, 1] is at least ``min_std`` (to :data:`pu_lib._rounding.ROUND_TOL`,
    so a binary 90/10 column, scaled std exactly 0.6, qualifies)."""
    n = X.shape[0]
    width = X.max(axis=0) - X.min(axis=0)
    # std of the column after scaling to [-1, 1] (scaling multiplies std by 2 / width)
    std_scaled = np.where(width > 0, 2.0 * X.std(axis=0) / np.where(width > 0, width, 1.0), 0.0)
    cand = np.flatnonzero(std_scaled >= min_std - ROUND_TOL)
    n_cand = int(cand.shape[0])
    if n_cand < k:
        raise ValueError(
            f"sar: only {n_cand} attribute(s) have std >= min_std={min_std} after scaling to [-1, 1], "
            f"cannot choose k={k} (continuous attributes rarely reach 0.6; lower min_std or pass attributes)"
        )
    if selection == "random":
        return np.sort(rng.choice(cand, size=k, replace=False)).astype(np.int64), np.ones(k, dtype=np.int64), n_cand
    if selection != "correlated":
        raise ValueError(f"sar: selection must be 'random' or 'correlated', got {selection!r}")
    if y.min() == y.max():
        raise ValueError("sar: selection='correlated' needs both classes in y")
    yc = y.astype(np.float64) - y.mean()
    cov = (X[:, cand].T @ yc) / n
    corr = cov / (X[:, cand].std(axis=0) * yc.std())
    order = np.lexsort((cand, -np.abs(corr)))[:k]  # largest |corr|, ties by index
    return cand[order].astype(np.int64), np.where(corr[order] < 0, -1, 1).astype(np.int64), n_cand


def _sar_setup(X, y, k, selection, p_minus, p_plus, min_std, attributes, rng):
    """Choose propensity attributes and compute e(x) on all rows of X (thesis 5.6.2)."""
    if attributes is not None:
        cols, signs, n_cand = _given_attributes(attributes, k, X.shape[1]), np.ones(k, dtype=np.int64), X.shape[1]
    else:
        cols, signs, n_cand = _chosen_attributes(X, y, k, selection, min_std, rng)
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
    return LabelResult(s=s, y=y, propensity=e, mechanism="sar", params=info)
