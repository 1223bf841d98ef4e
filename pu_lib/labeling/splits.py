"""Splitting and subsampling rows, stratified by class with exact counts."""

from __future__ import annotations

import numbers
from numbers import Real

import numpy as np

from pu_lib._rounding import largest_remainder, round_half_up
from pu_lib._seeding import check_random_state
from pu_lib._validation import Interval, validate_params
from pu_lib.labeling._common import check_count, labels_1d

__all__ = ["SPLITS", "stratified_holdout", "subsample"]

#: the parts of a label set, in order (the categories of its ``split`` column)
SPLITS = ("train", "val", "test")


@validate_params({"y": ["array-like"], "test_size": [Interval(Real, 0.0, 1.0, closed="left")]})
def stratified_holdout(y, test_size, random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """Stratified random split into (train, test) sorted int64 index arrays.

    Exact stratification: each class ``k`` with ``n_k`` rows contributes exactly
    ``round(test_size * n_k)`` rows (round half up) to the test part, chosen uniformly.
    ``test_size`` in [0, 1); ``0`` gives an empty test part.  (A 70/30 holdout as in
    ``pu_hellinger_trees.md`` section 4.1 is ``test_size=0.3``.)
    """
    y = labels_1d(y, "y")
    test_size = float(test_size)
    rng = check_random_state(random_state)
    n = y.shape[0]
    is_test = np.zeros(n, dtype=bool)
    if test_size > 0:
        for k in np.unique(y):
            members = np.flatnonzero(y == k)
            m = min(members.shape[0], round_half_up(test_size * members.shape[0]))
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
    draws allocate ``max_samples`` over the classes proportionally by largest remainder
    (:func:`pu_lib._rounding.largest_remainder`, ties to the lower class), so the total is
    exact and each class gets ``floor`` or ``ceil`` of its share.
    """
    if isinstance(n_or_y, (numbers.Integral,)) and not isinstance(n_or_y, bool):
        n = int(n_or_y)
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        labels_src = None
    else:
        labels_src = labels_1d(n_or_y, "n_or_y")
        n = labels_src.shape[0]
    if max_samples is None:
        return np.arange(n, dtype=np.int64)
    max_samples = check_count(max_samples, "max_samples")
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
        labels = labels_1d(stratify, "stratify")
        if labels.shape[0] != n:
            raise ValueError(f"stratify has {labels.shape[0]} entries but there are {n} rows")
    classes, inverse, sizes = np.unique(labels, return_inverse=True, return_counts=True)
    alloc = largest_remainder(max_samples, sizes, ties="low")
    chosen = []
    for j in range(classes.shape[0]):
        members = np.flatnonzero(inverse == j)
        if alloc[j]:
            chosen.append(rng.choice(members, size=int(alloc[j]), replace=False))
    return np.sort(np.concatenate(chosen)).astype(np.int64)
