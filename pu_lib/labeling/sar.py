"""SAR labeling of Bekker et al. (thesis sections 5.6.1-5.6.2): the propensity score is a
fixed function of a few chosen attributes, scaled linearly between ``p-`` and ``p+``;
plus the thesis' data preparation (:func:`scale_minus1_1`, the "extended" datasets of
:func:`extend_attributes`) and the biased propensity estimates of question Q1b
(:func:`biased_propensity`)."""

from __future__ import annotations


from numbers import Real

import numpy as np

from pu_lib._propensity import biased_propensity
from pu_lib._rounding import ROUND_TOL
from pu_lib._seeding import check_random_state
from pu_lib._validation import Interval, check_binary, check_X, validate_params
from pu_lib.labeling._common import LabelResult, bernoulli_labels, check_count, check_p_range, check_y
from pu_lib.labeling._params import SAR_SELECTIONS, validate_mechanism_params

__all__ = ["biased_propensity", "extend_attributes", "sar_bekker", "sar_propensity", "scale_minus1_1"]

#: selection rules of the propensity attributes (``attributes`` given: ``"given"``)
SELECTIONS = SAR_SELECTIONS



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

    No column (shape ``(n, 0)``, ``k = 0``, thesis Figure 5.4): every row gets the constant
    ``(p- + p+) / 2``, i.e. SCAR labeling.  This constant is our choice -- the thesis does
    not define the ``k = 0`` score -- taken as the value of ``sc`` at the middle of any
    attribute's range (the score of a constant column).
    """
    p_minus, p_plus = check_p_range(p_minus, p_plus)
    Z = np.asarray(X_scaled_cols, dtype=np.float64)
    if Z.ndim == 1:
        Z = Z[:, None]
    if Z.ndim == 2 and Z.shape[1] == 0:
        if Z.shape[0] == 0:
            raise ValueError("X_scaled_cols has no rows")
        return np.full(Z.shape[0], (p_minus + p_plus) / 2.0, dtype=np.float64)
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
    if k == 0 and len(attributes) == 0:
        return np.empty(0, dtype=np.int64)
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
    if selection not in SELECTIONS:
        raise ValueError(f"sar: selection must be one of {list(SELECTIONS)}, got {selection!r}")
    if k == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), n_cand
    if selection == "random":
        return np.sort(rng.choice(cand, size=k, replace=False)).astype(np.int64), np.ones(k, dtype=np.int64), n_cand
    if y.min() == y.max():
        raise ValueError(f"sar: selection={selection!r} needs both classes in y")
    yc = y.astype(np.float64) - y.mean()
    cov = (X[:, cand].T @ yc) / n
    corr = cov / (X[:, cand].std(axis=0) * yc.std())
    order = np.lexsort((cand, -np.abs(corr)))[:k]  # largest |corr|, ties by index
    if selection == "correlated":  # flip the negatively correlated ones: all correlate positively
        signs = np.where(corr[order] < 0, -1, 1)
    else:  # "anticorrelated": flip the positively correlated ones: all correlate negatively
        signs = np.where(corr[order] > 0, -1, 1)
    return cand[order].astype(np.int64), signs.astype(np.int64), n_cand


def sar_setup(X, y, k, selection, p_minus, p_plus, min_std, attributes, rng):
    """Choose propensity attributes and compute e(x) on all rows of X (thesis 5.6.2)."""
    if attributes is not None:
        cols, signs, n_cand = _given_attributes(attributes, k, X.shape[1]), np.ones(k, dtype=np.int64), X.shape[1]
    else:
        cols, signs, n_cand = _chosen_attributes(X, y, k, selection, min_std, rng)
    if k == 0:
        e = sar_propensity(np.empty((X.shape[0], 0)), p_minus, p_plus)
    else:
        e = sar_propensity(scale_minus1_1(X[:, cols]) * signs, p_minus, p_plus)
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
       the negatively correlated ones so that all correlate positively with the class;
       ``"anticorrelated"`` picks the same ``k`` attributes but flips the positively
       correlated ones so that all correlate negatively with the class (footnote 5: "the
       signs of the attribute values were possibly inverted to either get all positively
       or all negatively correlated attributes").  With positive correlation positives
       tend to get higher propensities than negatives, with negative correlation lower.
       ``attributes`` (k column indices) bypasses the choice (no filter, no flips).
    3. ``e(x)`` is :func:`sar_propensity` of the selected, sign-flipped columns over all
       rows of ``X``; positives are labeled with ``s ~ Bernoulli(e(x))``.

    ``k = 0`` (thesis Figure 5.4 varies the number of propensity attributes from 0 to 4):
    no propensity attribute, ``e(x) = (p- + p+) / 2`` for every row, i.e. SCAR labeling
    with label frequency ``(p- + p+) / 2``.  The constant is our choice (the thesis does not
    give it): the midpoint is the value of ``sc`` at the middle of any attribute's range.
    ``params["attributes"]`` is then ``[]``.

    ``params`` records the chosen ``attributes`` and their ``signs`` (+1 / -1).
    Mechanism name ``"sar"``.
    """
    p = validate_mechanism_params(
        "sar",
        {"k": k, "selection": selection, "p_minus": p_minus, "p_plus": p_plus, "min_std": min_std,
         "attributes": attributes},
    )
    X = check_X(X)
    y = check_y(y, n=X.shape[0])
    rng = check_random_state(random_state)
    e, info = sar_setup(X, y, p["k"], p["selection"], p["p_minus"], p["p_plus"], p["min_std"], p["attributes"], rng)
    s = bernoulli_labels(y, e, rng)
    info["n_pos"] = int(y.sum())
    return LabelResult(s=s, y=y, propensity=e, mechanism="sar", params=info)



@validate_params({"X": ["array-like"], "y": ["array-like"], "flip": [Interval(Real, 0.0, 0.5, closed="both")]})
def extend_attributes(X, y, n_correlated=5, n_noise=5, flip=0.3, random_state=None) -> np.ndarray:
    """The thesis' "extended" datasets: ``X`` with ``n_correlated`` class-correlated and
    ``n_noise`` class-independent +-1 attributes appended (correlated ones first).

    Bekker's experiment notebooks give each dataset "5 extra attributes that are
    positively correlated with the class and 5 attributes that are not correlated with
    the class" (probability of -1: 0.3 and 0.5).  Here every correlated attribute is +-1
    with ``P(+1 | y=1) = 1 - flip`` and ``P(+1 | y=0) = flip``, every noise attribute is
    +-1 with probability 0.5 independent of ``y``; all draws are independent per row and
    attribute.  With class prior ``pi`` the Pearson correlation of a correlated attribute
    with ``y`` is ``2 d sqrt(pi (1 - pi)) / sqrt(1 - d**2 (2 pi - 1)**2)``, ``d = 1 - 2 flip``
    (``d`` itself at ``pi = 0.5``); that of a noise attribute is 0.

    ``y`` is the binary (0/1) class of each row of ``X``; ``flip`` lies in [0, 0.5]
    (0: copies of ``2 y - 1``; 0.5: noise).  Returns a new float64 array of shape
    ``(n, d + n_correlated + n_noise)``; ``X`` is not modified.  Random draws come from
    :func:`pu_lib._seeding.check_random_state` of ``random_state`` (correlated columns
    first, then noise).
    """
    X = check_X(X)
    y = check_binary(y, "y", n=X.shape[0])
    n_correlated = check_count(n_correlated, "n_correlated", minimum=0)
    n_noise = check_count(n_noise, "n_noise", minimum=0)
    flip = float(flip)
    rng = check_random_state(random_state)
    n = X.shape[0]
    p_plus = np.where(y == 1, 1.0 - flip, flip)[:, None]
    corr_cols = np.where(rng.random((n, n_correlated)) < p_plus, 1.0, -1.0)
    noise_cols = np.where(rng.random((n, n_noise)) < 0.5, 1.0, -1.0)
    return np.hstack([X, corr_cols, noise_cols])
