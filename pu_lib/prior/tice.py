"""TIcE: Tree Induction for c Estimation (Bekker & Davis, AAAI 2018; Bekker PhD thesis,
chapter 3, Algorithm 1).

Under SCAR the label frequency ``c = Pr(s=1 | y=1)`` is the same in every subdomain
``A`` of the attributes (eq. 3.1), so ``c = Pr(s=1 | A) / Pr(y=1 | A)`` (eq. 3.2) and
``c >= Pr(s=1 | A)`` (eq. 3.3), with equality in a purely positive subdomain. With ``L``
labeled among ``T`` examples of a subset, the one-sided Chebyshev inequality gives the
probabilistic lower bound (eq. 3.4)

    c_low = L / T - sqrt(c_prior (1 - c_prior) (1 - delta) / (delta T)),

which with the worst case ``c_prior = 0.5`` is eq. 3.5, ``L/T - 0.5 sqrt((1-delta)/(delta T))``.
TIcE looks for (almost) purely positive subdomains by growing a decision tree on one part
of the data (the *tree data*) and evaluates the bound of every subdomain it creates on the
other part (the *estimation data*), so that the subset selection does not bias the bound
(section 3.1.2). The estimate is the largest bound found (section 3.1.3, "Max c_low"),
averaged over folds, and the whole procedure is run twice, the second time with
``c_prior`` = the first estimate (Algorithm 1, lines 1-2 and 17; "Tighter bound with c").

Algorithm 1 as implemented here, per pass and per fold (tree data = fold ``i``,
estimation data = the other ``n_folds - 1`` folds):

1. ``delta`` from eq. 3.6 on the number of estimation rows (line 5; :func:`tice_delta`);
2. ``c_best = L/T`` of the whole estimation data (line 6);
3. a priority queue (a binary heap) of nodes, each a pair (tree rows, estimation rows),
   keyed on the lower bound (eq. 3.4) computed on the node's **tree** rows (line 9);
   ties are broken by the larger labeled count of the tree rows, then by creation order
   (earlier first) -- the first two keys are those of the authors' implementation, the
   third makes the order total and deterministic;
4. at most ``max_splits`` times (line 8): pop the best node; choose the attribute by
   max-bepp on its tree rows, ``a* = argmax_a max_v L(S_t: a=v) / (T(S_t: a=v) + k)``
   (line 11; ties -> the lowest attribute index); for every value ``v`` of ``a*``
   compute ``c_low`` on the child's **estimation** rows and set
   ``c_best = max(c_best, c_low)`` (lines 12-15), and enqueue the child (line 13);
5. the fold's estimate is ``c_best``; the pass's estimate the mean over folds (line 17).

Choices where the thesis is vague (each follows the authors' implementation unless said
otherwise):

* **Features** (section 3.3.1/3.3.2): every feature is min-max scaled to [0, 1] on the
  training ``X``. A numeric feature is split into ``n_bins`` equal-width ranges with cut
  points ``j / n_bins`` (bin ``min(floor(n_bins z), n_bins - 1)`` of the scaled value
  ``z``); a value equal to a cut point goes to the upper range, so for ``n_bins = 4`` the
  children are exactly ``z < 0.25``, ``0.25 <= z < 0.5``, ``0.5 <= z < 0.75`` and
  ``z >= 0.75`` (the authors' ``x < border`` tests; see :func:`bin_features`). A feature
  with exactly two distinct values (a binarised multi-valued attribute) splits into its
  two values. Constant features never split and are dropped. The bins are computed once
  (a ``uint8`` matrix, one row per example, so that all attributes of a row are read from
  one cache line when a node is counted).
* **Path attributes**: an attribute used on the path to a node is not a candidate at that
  node (a binned attribute is pure within a child, so splitting on it again is useless).
* **Genuine splits only**: an attribute whose bins leave all of the node's tree rows in
  one child is not a candidate (the tree data gives no evidence for such a "split"; the
  authors' code discards nodes whose split is trivial on the estimation data). A popped
  node with no candidate is a leaf and does not count against ``max_splits``; so
  ``n_splits_`` counts actual splits.
* **Which nodes are enqueued** (split-eligible): a child is enqueued only if its tree rows
  number at least ``min_node_size`` (the authors' ``minT = 10``), are neither all
  unlabeled (max-bepp would be 0 for every attribute) nor all labeled (the authors'
  purity stop criterion), and an unused attribute remains. The root is treated alike.
* **c_low of small children**: a child with fewer than ``min_node_size`` estimation rows
  gets no ``c_low`` (the authors' ``low_c`` returns 0 for ``T < minT``, which can never
  raise ``c_best >= 0``); in particular children without estimation rows give none. Every
  other child of every split gets one, whether or not it is enqueued.
* **Most promising variant** (``variant="most_promising"``, sections 3.1.3 and 3.3.2): the
  tree is grown exactly as for ``"max"``; among all nodes visited (the root and every
  child created by a split that has tree rows) the one with the highest lower bound on its
  **tree** rows is the most promising subdomain (ties -> the first visited); the fold's
  estimate is ``max(L/T of the estimation data, c_low of that node's estimation rows)``.
  Since that node's ``c_low`` is one of those the ``"max"`` variant maximises over (or the
  root's, which is below ``L/T``), with the same ``c_prior`` and folds the most promising
  estimate of a fold never exceeds the ``"max"`` estimate. (In the second pass the two
  variants use different ``c_prior`` and the inequality need not hold.)
* **Not implemented**: the authors' code additionally prunes attributes and children using
  the *estimation* labels (a "minimum labeled" speed-up that skips subsets which cannot
  beat the current ``c_best``); Algorithm 1 has no such step and it would let the
  estimation labels steer the tree, so it is left out.
* **delta** (eq. 3.6): ``delta = max(0.025, 1 / (1 + 0.004 T_e))``. For the ``T_R``
  sensitivity analysis (thesis Figs. 3.3-3.4) ``delta = 1 / (1 + 4 eps^2 T_R)`` with
  ``eps = 0.1`` and ``T_R = tr_factor * min(975, 0.1 T_e)``: eq. 3.6's floor 0.025 is
  exactly ``1 / (1 + 0.04 * 975)``, so the cap 975 (the thesis prose rounds it to 1000,
  which would give ``1/41 = 0.0244``, not 0.025) makes ``tr_factor = 1`` reproduce eq. 3.6.

Speed: all per-row work (counting ``L`` and ``T`` per attribute and bin on a node's tree
rows, partitioning tree and estimation rows of the chosen split) and the heap run in one
compiled numba function per fold (:func:`_grow_fold`); rows of a node are a contiguous
segment of a per-fold index array that is partitioned in place. Cost per split is
``O(m * n_node)``; a fit is ``O(passes * folds * max_splits * m * n_node)`` at worst.
:mod:`pu_lib.prior._tice_reference` is a plain-Python reference of the same algorithm;
the tests check that both give identical splits and estimates.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numba import njit

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib.prior.base import BasePriorEstimator

__all__ = ["TIcE", "bin_features", "make_folds", "tice_delta", "tice_delta_tr", "tice_lower_bound"]

VARIANTS = ("max", "most_promising")

#: eq. 3.6's floor on delta; 1 / (1 + 4 * 0.1**2 * 975) == 0.025
_DELTA_FLOOR = 0.025
_TR_CAP = 975.0
_EPSILON = 0.1


# --------------------------------------------------------------------------- formulas

def tice_lower_bound(L, T, c_prior=0.5, delta=0.025) -> float:
    """Lower bound on ``c`` from a subset with ``L`` labeled among ``T`` examples
    (thesis eq. 3.4): ``L/T - sqrt(c_prior (1 - c_prior) (1 - delta) / (delta T))``;
    ``c_prior = 0.5`` gives eq. 3.5."""
    L = float(L)
    T = float(T)
    if T <= 0:
        raise ValueError(f"T must be positive, got {T}")
    return L / T - math.sqrt(c_prior * (1.0 - c_prior) * (1.0 - delta) / (delta * T))


def tice_delta_tr(n_estimation, tr_factor=1.0) -> float:
    """``delta = 1 / (1 + 4 eps^2 T_R)`` with ``eps = 0.1`` and
    ``T_R = tr_factor * min(975, 0.1 n_estimation)`` (thesis section 3.1.3, "Choosing
    delta", and the T_R sensitivity analysis of section 3.3.2). For ``tr_factor = 1`` it
    equals eq. 3.6 up to rounding (see the module docstring for the cap 975)."""
    t_r = tr_factor * min(_TR_CAP, 0.1 * float(n_estimation))
    return 1.0 / (1.0 + 4.0 * _EPSILON * _EPSILON * t_r)


def tice_delta(n_estimation, tr_factor=1.0) -> float:
    """delta of a fold from the number of estimation rows ``T_e``: eq. 3.6,
    ``max(0.025, 1 / (1 + 0.004 T_e))``, when ``tr_factor == 1`` (the default and the
    authors' rule, computed literally); :func:`tice_delta_tr` otherwise."""
    if tr_factor == 1.0:
        return max(_DELTA_FLOOR, 1.0 / (1.0 + 0.004 * float(n_estimation)))
    return tice_delta_tr(n_estimation, tr_factor)


# --------------------------------------------------------------------------- preprocessing

def bin_features(X, n_bins=4):
    """Bin ``X`` for TIcE (see the module docstring, "Features").

    Returns ``(bins, n_values, features)``: ``bins`` a C-contiguous ``uint8`` array of
    shape ``(n, len(features))`` with the bin of every example and used feature,
    ``n_values`` (int64) the number of values of each used feature (``n_bins``, or 2 for
    a two-valued feature, whose bins are 0 = min and 1 = max) and ``features`` the
    indices in ``X`` of the used (non-constant) features. A numeric value ``x`` is scaled
    to ``z = (x - min) / (max - min)`` and its bin is ``min(floor(n_bins * z), n_bins - 1)``:
    value ``v`` holds ``v / n_bins <= z < (v + 1) / n_bins`` (the last bin includes
    ``z = 1``). For a power of two such as the default 4 the product ``n_bins * z`` is
    exact, so the bins are exactly ``z < 0.25``, ``[0.25, 0.5)``, ``[0.5, 0.75)``,
    ``>= 0.75``; for other ``n_bins`` a ``z`` within an ulp of a cut point may fall on
    either side of it."""
    X = np.asarray(X, dtype=np.float64)
    n_bins = int(n_bins)
    mins, maxs, two_valued = _column_stats(X)
    features = np.flatnonzero(maxs > mins).astype(np.int64)
    bins = _bin_kernel(X, features, mins, maxs, two_valued, n_bins)
    n_values = np.where(two_valued[features], 2, n_bins).astype(np.int64)
    return bins, n_values, features


@njit(cache=True, nogil=True)
def _column_stats(X):
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
def _bin_kernel(X, features, mins, maxs, two_valued, n_bins_int):
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


def make_folds(n, n_folds, seed) -> np.ndarray:
    """Fold id (0 .. n_folds-1) of each of ``n`` rows: a random permutation dealt into
    ``n_folds`` equal-sized folds (sizes differ by at most one), seeded by
    ``derive_seed("TIcE.folds", seed, n, n_folds)``."""
    rng = np.random.default_rng(derive_seed("TIcE.folds", int(seed), int(n), int(n_folds)))
    folds = np.empty(n, dtype=np.int64)
    folds[rng.permutation(n)] = np.arange(n, dtype=np.int64) % n_folds
    return folds


# --------------------------------------------------------------------------- compiled kernel

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
def _grow_fold(bins, s, n_values, tree_rows, est_rows, c_prior, delta, k, max_splits, min_node_size):
    """One fold of one pass of Algorithm 1 (lines 5-16 with ``delta`` given).

    ``bins`` (n, m) uint8, ``s`` (n,) uint8, ``n_values`` (m,) int64, ``tree_rows`` and
    ``est_rows`` int64 row indices (non-empty). Returns ``(c_best, c_most_promising,
    n_splits, split_features)``: the ``"max"`` estimate, the ``"most_promising"``
    estimate of the same tree, the number of splits and the attribute of each split in
    order (-1 padded to ``max_splits``)."""
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
            if te_v >= min_node_size:
                c_low = _bound(le_v, te_v, c_prior, delta)
                if c_low > c_best:
                    c_best = c_low
            if tt > 0:
                lb_t = _bound(lt, tt, c_prior, delta)
                if lb_t > mp_lb:
                    mp_lb = lb_t
                    mp_le = le_v
                    mp_te = te_v
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


# --------------------------------------------------------------------------- driver

def _fold_rows(folds):
    """(fold ids ascending, [(tree_rows, estimation_rows)]) from a fold id per row."""
    ids = np.unique(folds)
    out = []
    for f in ids:
        mask = folds == f
        out.append((np.flatnonzero(mask).astype(np.int64), np.flatnonzero(~mask).astype(np.int64)))
    return ids, out


def run_tice(bins, s, n_values, folds, k=5.0, max_splits=500, min_node_size=10, delta=None,
             tr_factor=1.0, variant="max", refine=True):
    """Algorithm 1 on pre-binned data (:func:`bin_features`) and given folds.

    Returns a dict with ``c`` (the estimate), ``c_folds`` and ``n_splits`` (per fold,
    last pass), ``c_first_pass`` (mean of the first pass), ``c_folds_passes`` and
    ``split_features`` (per pass, per fold), ``delta_folds`` and ``fold_ids``."""
    bins = np.ascontiguousarray(bins, dtype=np.uint8)
    s8 = np.ascontiguousarray(s, dtype=np.uint8)
    n_values = np.ascontiguousarray(n_values, dtype=np.int64)
    fold_ids, rows = _fold_rows(np.asarray(folds))
    if delta is None:
        deltas = [tice_delta(est.shape[0], tr_factor) for _, est in rows]
    else:
        deltas = [float(delta)] * len(rows)
    pick = 1 if variant == "most_promising" else 0
    c_prior = 0.5  # line 1
    passes = 2 if refine else 1
    c_passes, splits_passes, nsplit_passes = [], [], []
    for _ in range(passes):  # line 2
        c_folds, feats, nsplits = [], [], []
        for (tree, est), d in zip(rows, deltas):  # line 4
            res = _grow_fold(bins, s8, n_values, tree, est, float(c_prior), float(d), float(k),
                             int(max_splits), int(min_node_size))
            c_folds.append(float(res[pick]))
            nsplits.append(int(res[2]))
            feats.append(res[3][: res[2]].copy())
        c_prior = sum(c_folds) / len(c_folds)  # line 17
        c_passes.append(c_folds)
        splits_passes.append(feats)
        nsplit_passes.append(nsplits)
    return {
        "c": c_prior,
        "c_folds": c_passes[-1],
        "n_splits": nsplit_passes[-1],
        "c_first_pass": sum(c_passes[0]) / len(c_passes[0]),
        "c_folds_passes": c_passes,
        "split_features": splits_passes,
        "delta_folds": deltas,
        "fold_ids": fold_ids,
    }


# --------------------------------------------------------------------------- estimator

def _check_int(value, name, minimum, maximum=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        rng = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        raise ValueError(f"{name} must be {rng}, got {value}")
    return int(value)


def _check_real(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


class TIcE(BasePriorEstimator):
    """TIcE class-prior estimator (Bekker & Davis 2018; thesis ch. 3, Algorithm 1).

    Estimates the label frequency ``c`` natively; ``fit`` sets ``c_``, ``prior_`` and
    ``alpha_`` (see :mod:`pu_lib.prior.base`). The algorithm and every choice where the
    thesis is vague are described in the module docstring of :mod:`pu_lib.prior.tice`.

    Parameters
    ----------
    n_folds : int, default 5
        Number of random equal-sized folds (section 3.1.3, "Folds"); in fold ``i`` the
        tree data is fold ``i`` and the estimation data the other folds.
    max_splits : int, default 500
        ``M`` of Algorithm 1: maximum number of splits per fold and pass.
    k : float, default 5
        The max-bepp parameter (Algorithm 1 line 11).
    n_bins : int, default 4
        Equal-width ranges a numeric feature (scaled to [0, 1]) is split into.
    min_node_size : int, default 10
        Minimum number of tree rows for a node to be split, and minimum number of
        estimation rows for a subset to give a lower bound (the authors' ``minT``).
    delta : float in (0, 1] or None, default None
        Fixed ``delta`` for every fold; ``None`` uses eq. 3.6 per fold.
    tr_factor : float > 0, default 1.0
        Scales ``T_R`` of the delta rule (the thesis's sensitivity analysis); 1 is eq. 3.6.
    variant : {"max", "most_promising"}, default "max"
        "max": the largest lower bound over all subsets (Algorithm 1); "most_promising":
        the lower bound of the single subset with the best tree-data bound (3.1.3).
    refine : bool, default True
        Run the second pass with ``c_prior`` = the first estimate (Algorithm 1 line 2).
    folds : array of int or None, default None
        Explicit fold id per row (overrides ``n_folds``; at least two distinct ids).
    random_state : None, int or numpy Generator
        Seeds the folds.

    Attributes
    ----------
    c_folds_ : ndarray
        ``c_best`` of every fold in the final pass (fold ids ascending).
    c_first_pass_ : float
        Mean over folds of the first pass (the ``c_prior`` of the second).
    delta_folds_ : ndarray
        ``delta`` used in every fold.
    n_splits_ : ndarray of int
        Number of splits in every fold in the final pass.
    folds_ : ndarray of int
        Fold id of every training row.
    features_ : ndarray of int
        Indices of the non-constant features the tree may split on.
    """

    def __init__(self, n_folds=5, max_splits=500, k=5, n_bins=4, min_node_size=10, delta=None,
                 tr_factor=1.0, variant="max", refine=True, folds=None, random_state=None):
        self.n_folds = n_folds
        self.max_splits = max_splits
        self.k = k
        self.n_bins = n_bins
        self.min_node_size = min_node_size
        self.delta = delta
        self.tr_factor = tr_factor
        self.variant = variant
        self.refine = refine
        self.folds = folds
        self.random_state = random_state

    def _check_params(self, n):
        max_splits = _check_int(self.max_splits, "max_splits", 0)
        n_bins = _check_int(self.n_bins, "n_bins", 2, 255)
        min_node_size = _check_int(self.min_node_size, "min_node_size", 1)
        k = _check_real(self.k, "k")
        if k < 0:
            raise ValueError(f"k must be >= 0, got {self.k!r}")
        delta = None
        if self.delta is not None:
            delta = _check_real(self.delta, "delta")
            if not 0.0 < delta <= 1.0:
                raise ValueError(f"delta must lie in (0, 1] or be None, got {self.delta!r}")
        tr_factor = _check_real(self.tr_factor, "tr_factor")
        if tr_factor <= 0:
            raise ValueError(f"tr_factor must be > 0, got {self.tr_factor!r}")
        if not isinstance(self.variant, str) or self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {self.variant!r}")
        if not isinstance(self.refine, (bool, np.bool_)):
            raise ValueError(f"refine must be True or False, got {self.refine!r}")
        n_folds = _check_int(self.n_folds, "n_folds", 2)
        seed = seed_to_int(self.random_state, "random_state", fresh_if_none=self.folds is None)
        if self.folds is None:
            if n_folds > n:
                raise ValueError(f"n_folds={n_folds} exceeds the number of rows ({n})")
            folds = make_folds(n, n_folds, seed)
        else:
            folds = np.asarray(self.folds)
            if folds.ndim != 1 or folds.shape[0] != n:
                raise ValueError(f"folds must be a 1-D array with one fold id per row ({n}), got shape {folds.shape}")
            if not np.issubdtype(folds.dtype, np.integer):
                raise ValueError(f"folds must hold integer fold ids, got dtype {folds.dtype}")
            if folds.min() < 0:
                raise ValueError("folds must hold non-negative fold ids")
            if np.unique(folds).size < 2:
                raise ValueError("folds must contain at least two distinct fold ids")
            folds = folds.astype(np.int64)
        return dict(max_splits=max_splits, n_bins=n_bins, min_node_size=min_node_size, k=k, delta=delta,
                    tr_factor=tr_factor, variant=self.variant, refine=bool(self.refine)), folds

    def _estimate(self, X, s):
        params, folds = self._check_params(X.shape[0])
        bins, n_values, features = bin_features(X, params.pop("n_bins"))
        res = run_tice(bins, s, n_values, folds, **params)
        self.folds_ = folds
        self.features_ = features
        self.c_folds_ = np.asarray(res["c_folds"], dtype=np.float64)
        self.c_first_pass_ = float(res["c_first_pass"])
        self.delta_folds_ = np.asarray(res["delta_folds"], dtype=np.float64)
        self.n_splits_ = np.asarray(res["n_splits"], dtype=np.int64)
        return "c", res["c"]
