"""DEDPUL's compiled kernels (numba): the centred rolling median and the authors'
``MonotonizingTrends`` over a segment tree of live counters.

The method and its estimator are described in :mod:`pu_lib.prior.dedpul`
(:func:`pu_lib.prior.dedpul.rolling_median` and :func:`pu_lib.prior.dedpul.monotonize_trends`
call :func:`rolling_median_kernel` and :func:`monotonize_kernel`); this module holds only
the ``@njit`` functions. Compiled functions are cached on disk (``cache=True``) and release
the GIL (``nogil``).
"""

from __future__ import annotations

import numpy as np
from numba import njit


# --------------------------------------------------------------------------- compiled kernels
@njit(cache=True, nogil=True)
def rolling_median_kernel(a, k):
    """Centred rolling median, half-width ``min(k, i, n-1-i)`` at position ``i``."""
    n = a.shape[0]
    out = np.empty(n)
    if n == 0:
        return out
    buf = np.empty(2 * k + 1)
    m = 0  # sorted window buf[:m]
    lo, hi = 0, -1  # current window a[lo..hi]
    for i in range(n):
        r = min(k, i, n - 1 - i)
        nlo, nhi = i - r, i + r
        while lo < nlo:  # remove a[lo]
            x = a[lo]
            j = np.searchsorted(buf[:m], x)
            buf[j:m - 1] = buf[j + 1:m].copy()
            m -= 1
            lo += 1
        while hi < nhi:  # add a[hi + 1]
            hi += 1
            x = a[hi]
            j = np.searchsorted(buf[:m], x)
            buf[j + 1:m + 1] = buf[j:m].copy()
            buf[j] = x
            m += 1
        out[i] = buf[m // 2]
    return out


@njit(cache=True, nogil=True)
def seg_rebuild(t, add, x):
    x >>= 1
    while x >= 1:
        t[x] = min(t[2 * x], t[2 * x + 1]) + add[x]
        x >>= 1


@njit(cache=True, nogil=True)
def seg_apply(t, add, size, node, v):
    t[node] += v
    if node < size:
        add[node] += v


@njit(cache=True, nogil=True)
def seg_range_add(t, add, size, left, right, v):
    """Add ``v`` to leaves ``left..right`` (inclusive)."""
    if left > right:
        return
    lo, hi = left + size, right + size + 1
    l0, r0 = lo, hi - 1
    while lo < hi:
        if lo & 1:
            seg_apply(t, add, size, lo, v)
            lo += 1
        if hi & 1:
            hi -= 1
            seg_apply(t, add, size, hi, v)
        lo >>= 1
        hi >>= 1
    seg_rebuild(t, add, l0)
    seg_rebuild(t, add, r0)


@njit(cache=True, nogil=True)
def monotonize_kernel(a, ranks, values, coef, tol):
    """The authors' monotonizing trends on ``a`` (ranks of ``a`` into the sorted distinct
    ``values``); counters live on a min segment tree with lazy range additions."""
    n = a.shape[0]
    m = values.shape[0]
    size = 1
    while size < m:
        size *= 2
    t = np.full(2 * size, np.inf)
    add = np.zeros(2 * size)
    out = np.empty(n)
    for i in range(n):
        p = a[i]
        r = ranks[i]
        # highest alive key
        if t[1] < np.inf:
            node = 1
            while node < size:
                node = 2 * node + 1 if t[2 * node + 1] < np.inf else 2 * node
            out[i] = max(p, values[node - size])
        else:
            out[i] = p
        # keys <= p gain 1, keys > p lose coef
        seg_range_add(t, add, size, 0, r, 1.0)
        seg_range_add(t, add, size, r + 1, m - 1, -coef)
        # keys whose counter reached 0 die
        while t[1] <= tol:
            node = 1
            while node < size:
                node = 2 * node if t[2 * node] <= t[2 * node + 1] else 2 * node + 1
            t[node] = np.inf
            seg_rebuild(t, add, node)
        # p becomes a key with counter 1 unless alive
        leaf = r + size
        if t[leaf] == np.inf:
            acc = 0.0
            x = leaf >> 1
            while x >= 1:
                acc += add[x]
                x >>= 1
            t[leaf] = 1.0 - acc
            seg_rebuild(t, add, leaf)
    return out
