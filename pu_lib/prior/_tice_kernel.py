"""TIcE's compiled kernel (numba): binning of the features and the growth of one fold's
tree (Bekker PhD thesis, chapter 3, Algorithm 1, lines 5-16).

The algorithm, its choices and the estimator are described in :mod:`pu_lib.prior.tice`;
this module holds only the ``@njit`` functions it calls. All per-row work (counting
``L`` and ``T`` per attribute and bin on a node's tree rows, partitioning tree and
estimation rows of the chosen split) and the priority queue (a binary heap) run in
:func:`grow_fold`, one call per fold and pass; rows of a node are a contiguous segment
of a per-fold index array that is partitioned in place. Cost per split is
``O(m * n_node)``. ``tests/tice_reference.py`` is a plain-Python reference of the
same algorithm; the tests check that both give identical splits and estimates.

Compiled functions are cached on disk (``cache=True``) and release the GIL (``nogil``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


# --------------------------------------------------------------------------- binning

@njit(cache=True, nogil=True)
def column_stats(X):
    """Per column: min, max and whether every value is the min or the max."""
    n, m = X.shape
    mins = np.empty(m, dtype=np.float64)
    maxs = np.empty(m, dtype=np.float64)
    for j in range(m):
        mins[j] = X[0, j]
        maxs[j] = X[0, j]
    for i in range(1, n):
        for j in range(m):
            x = X[i, j]
            if x < mins[j]:
                mins[j] = x
            elif x > maxs[j]:
                maxs[j] = x
    two = np.ones(m, dtype=np.bool_)
    for i in range(n):
        for j in range(m):
            x = X[i, j]
            if x != mins[j] and x != maxs[j]:
                two[j] = False
    return mins, maxs, two


@njit(cache=True, nogil=True)
def bin_kernel(X, features, mins, maxs, two_valued, n_bins_int):
    n = X.shape[0]
    m = features.shape[0]
    n_cuts = n_bins_int - 1
    n_bins = float(n_bins_int)
    lo = np.empty(m, dtype=np.float64)
    hi = np.empty(m, dtype=np.float64)
    width = np.empty(m, dtype=np.float64)
    two = np.empty(m, dtype=np.bool_)
    for o in range(m):
        j = features[o]
        lo[o] = mins[j]
        hi[o] = maxs[j]
        width[o] = maxs[j] - mins[j]
        two[o] = two_valued[j]
    out = np.empty((n, m), dtype=np.uint8)
    for i in range(n):
        for o in range(m):
            x = X[i, features[o]]
            if two[o]:
                out[i, o] = 1 if x == hi[o] else 0
            else:
                b = int((x - lo[o]) / width[o] * n_bins)
                if b > n_cuts:
                    b = n_cuts
                out[i, o] = b
    return out



# --------------------------------------------------------------------------- tree growth (one fold)

@njit(cache=True, nogil=True)
def _bound(L, T, c_prior, delta):
    """eq. 3.4 on counts (``T > 0``); the same float operations as the reference."""
    fl = float(L)
    ft = float(T)
    return fl / ft - math.sqrt(c_prior * (1.0 - c_prior) * (1.0 - delta) / (delta * ft))


@njit(cache=True, nogil=True)
def _before(i, j, node_lb, node_lt):
    """True when node ``i`` leaves the queue before node ``j``: larger tree lower bound,
    then more labeled tree rows, then created earlier."""
    if node_lb[i] != node_lb[j]:
        return node_lb[i] > node_lb[j]
    if node_lt[i] != node_lt[j]:
        return node_lt[i] > node_lt[j]
    return i < j


@njit(cache=True, nogil=True)
def _heap_push(heap, size, node, node_lb, node_lt):
    pos = size
    heap[pos] = node
    while pos > 0:
        parent = (pos - 1) >> 1
        if _before(heap[pos], heap[parent], node_lb, node_lt):
            tmp = heap[parent]
            heap[parent] = heap[pos]
            heap[pos] = tmp
            pos = parent
        else:
            break
    return size + 1


@njit(cache=True, nogil=True)
def _heap_pop(heap, size, node_lb, node_lt):
    top = heap[0]
    size -= 1
    heap[0] = heap[size]
    pos = 0
    while True:
        left = 2 * pos + 1
        if left >= size:
            break
        best = left
        right = left + 1
        if right < size and _before(heap[right], heap[left], node_lb, node_lt):
            best = right
        if _before(heap[best], heap[pos], node_lb, node_lt):
            tmp = heap[best]
            heap[best] = heap[pos]
            heap[pos] = tmp
            pos = best
        else:
            break
    return top, size


@njit(cache=True, nogil=True)
def grow_fold(bins, s, n_values, tree_rows, est_rows, c_prior, delta, k, max_splits, min_node_size,
               bound_on_tree):
    """One fold of one pass of Algorithm 1 (lines 5-16 with ``delta`` given).

    ``bins`` (n, m) uint8, ``s`` (n,) uint8, ``n_values`` (m,) int64, ``tree_rows`` and
    ``est_rows`` int64 row indices (non-empty). ``bound_on_tree`` False: every child's
    ``c_low`` from its estimation rows (Algorithm 1 line 14); True: from its tree rows
    (the authors' released code; ``bound_data="tree"`` in :mod:`pu_lib.prior.tice`).
    Returns ``(c_best, c_most_promising, n_splits, split_features)``: the ``"max"``
    estimate, the ``"most_promising"`` estimate of the same tree, the number of splits
    and the attribute of each split in order (-1 padded to ``max_splits``)."""
    n_feat = bins.shape[1]
    max_nv = 1
    n_usable = 0
    for a in range(n_feat):
        if n_values[a] > max_nv:
            max_nv = n_values[a]
        if n_values[a] >= 2:
            n_usable += 1
    pt = tree_rows.copy()
    pe = est_rows.copy()
    nt = pt.shape[0]
    ne = pe.shape[0]
    buf = np.empty(max(nt, ne), dtype=np.int64)

    le_root = 0
    for i in range(ne):
        le_root += s[pe[i]]
    lt_root = 0
    for i in range(nt):
        lt_root += s[pt[i]]
    c_best = float(le_root) / float(ne)  # line 6

    max_nodes = 1 + max_splits * max_nv
    node_ts = np.empty(max_nodes, dtype=np.int64)
    node_te = np.empty(max_nodes, dtype=np.int64)
    node_es = np.empty(max_nodes, dtype=np.int64)
    node_ee = np.empty(max_nodes, dtype=np.int64)
    node_parent = np.empty(max_nodes, dtype=np.int64)
    node_feat = np.empty(max_nodes, dtype=np.int64)
    node_depth = np.empty(max_nodes, dtype=np.int64)
    node_lb = np.empty(max_nodes, dtype=np.float64)
    node_lt = np.empty(max_nodes, dtype=np.int64)
    heap = np.empty(max_nodes, dtype=np.int64)
    hsize = 0
    n_nodes = 0

    # most promising subdomain (tree-data lower bound), starting with the root
    mp_lb = -np.inf
    mp_le = le_root
    mp_te = ne
    if nt > 0:
        mp_lb = _bound(lt_root, nt, c_prior, delta)
        if nt >= min_node_size and 0 < lt_root < nt and n_usable > 0:
            node_ts[0] = 0
            node_te[0] = nt
            node_es[0] = 0
            node_ee[0] = ne
            node_parent[0] = -1
            node_feat[0] = -1
            node_depth[0] = 0
            node_lb[0] = mp_lb
            node_lt[0] = lt_root
            n_nodes = 1
            hsize = _heap_push(heap, hsize, 0, node_lb, node_lt)

    used = np.zeros(n_feat, dtype=np.bool_)
    cnt_t = np.zeros(n_feat * max_nv, dtype=np.int64)
    cnt_l = np.zeros(n_feat * max_nv, dtype=np.int64)
    cnt_e = np.zeros(max_nv, dtype=np.int64)
    cnt_el = np.zeros(max_nv, dtype=np.int64)
    pos = np.zeros(max_nv, dtype=np.int64)
    split_features = np.full(max_splits, -1, dtype=np.int64)
    n_splits = 0

    while n_splits < max_splits and hsize > 0:
        node, hsize = _heap_pop(heap, hsize, node_lb, node_lt)  # lines 9-10
        ts = node_ts[node]
        te = node_te[node]
        es = node_es[node]
        ee = node_ee[node]

        # L and T per attribute and bin on the node's tree rows
        cnt_t[:] = 0
        cnt_l[:] = 0
        for i in range(ts, te):
            r = pt[i]
            if s[r]:
                for a in range(n_feat):
                    j = a * max_nv + bins[r, a]
                    cnt_t[j] += 1
                    cnt_l[j] += 1
            else:
                for a in range(n_feat):
                    cnt_t[a * max_nv + bins[r, a]] += 1

        # line 11: max-bepp over the unused attributes that split the tree rows
        q = node
        while node_parent[q] >= 0:
            used[node_feat[q]] = True
            q = node_parent[q]
        best_a = -1
        best_score = -1.0
        for a in range(n_feat):
            if used[a] or n_values[a] < 2:
                continue
            nonempty = 0
            score = 0.0
            for v in range(n_values[a]):
                tv = cnt_t[a * max_nv + v]
                if tv > 0:
                    nonempty += 1
                    val = float(cnt_l[a * max_nv + v]) / (float(tv) + k)
                    if val > score:
                        score = val
            if nonempty < 2:
                continue
            if score > best_score:
                best_score = score
                best_a = a
        q = node
        while node_parent[q] >= 0:
            used[node_feat[q]] = False
            q = node_parent[q]
        if best_a < 0:
            continue
        split_features[n_splits] = best_a
        n_splits += 1
        nv = n_values[best_a]
        off = best_a * max_nv

        # partition the tree rows by the bin of best_a (stable counting sort)
        acc = ts
        for v in range(nv):
            pos[v] = acc
            acc += cnt_t[off + v]
        for i in range(ts, te):
            r = pt[i]
            b = bins[r, best_a]
            buf[pos[b]] = r
            pos[b] += 1
        for i in range(ts, te):
            pt[i] = buf[i]
        # partition the estimation rows, counting T and L per child
        for v in range(nv):
            cnt_e[v] = 0
            cnt_el[v] = 0
        for i in range(es, ee):
            r = pe[i]
            b = bins[r, best_a]
            cnt_e[b] += 1
            cnt_el[b] += s[r]
        acc = es
        for v in range(nv):
            pos[v] = acc
            acc += cnt_e[v]
        for i in range(es, ee):
            r = pe[i]
            b = bins[r, best_a]
            buf[pos[b]] = r
            pos[b] += 1
        for i in range(es, ee):
            pe[i] = buf[i]

        # lines 12-15
        child_ts = ts
        child_es = es
        depth = node_depth[node] + 1
        for v in range(nv):
            tt = cnt_t[off + v]
            lt = cnt_l[off + v]
            te_v = cnt_e[v]
            le_v = cnt_el[v]
            if bound_on_tree:
                bl = lt
                bt = tt
            else:
                bl = le_v
                bt = te_v
            if bt >= min_node_size:
                c_low = _bound(bl, bt, c_prior, delta)
                if c_low > c_best:
                    c_best = c_low
            if tt > 0:
                lb_t = _bound(lt, tt, c_prior, delta)
                if lb_t > mp_lb:
                    mp_lb = lb_t
                    mp_le = bl
                    mp_te = bt
                if tt >= min_node_size and 0 < lt < tt and depth < n_usable:
                    c = n_nodes
                    n_nodes += 1
                    node_ts[c] = child_ts
                    node_te[c] = child_ts + tt
                    node_es[c] = child_es
                    node_ee[c] = child_es + te_v
                    node_parent[c] = node
                    node_feat[c] = best_a
                    node_depth[c] = depth
                    node_lb[c] = lb_t
                    node_lt[c] = lt
                    hsize = _heap_push(heap, hsize, c, node_lb, node_lt)
            child_ts += tt
            child_es += te_v

    c_mp = float(le_root) / float(ne)
    if mp_te >= min_node_size:
        c_low = _bound(mp_le, mp_te, c_prior, delta)
        if c_low > c_mp:
            c_mp = c_low
    return c_best, c_mp, n_splits, split_features
