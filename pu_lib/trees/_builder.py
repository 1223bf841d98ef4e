"""The compiled tree builder and predictor (numba, no per-node Python).

One function, :func:`build_tree`, grows a tree depth first over a float32 ``X``
(either layout; see ``FORTRAN_COPY_MAX_BYTES`` in :mod:`._classes`) and the per-example
weights of :mod:`pu_lib.trees._criteria`; it returns the tree
as flat arrays (node ``i``'s children, feature, threshold, value v*, weights, sample
count, impurity and improvement), like scikit-learn's ``Tree``. Rows listed in
``samples_in`` are the training sample (the caller leaves out rows of zero sample weight
and repeats rows for a bootstrap); ``n_node_samples``, ``min_samples_split`` and
``min_samples_leaf`` count these rows, unweighted (scikit-learn's convention), while the
criteria see the weights ``a`` and ``u``. Two splitters share it:

* ``SPLIT_RANDOM`` -- Extra-Trees (Wilton et al. 2022, Algorithm 5; Geurts et al. 2006):
  draw features uniformly without replacement, skipping those constant in the node,
  until ``max_features`` non-constant ones have been tried (or none are left); for each,
  draw ``n_thresholds`` cut points and keep the split with the largest improvement
  (for the PU criteria: risk reduction).
* ``SPLIT_BEST`` -- exhaustive search (Algorithm 2; the PU-HDT paper's splitter): sort the
  node's values of each tried feature, take the midpoints between consecutive distinct
  values and scan them with running sums, O(n log n) per feature. Only the sums at
  distinct values are scored. When every row's weights take one of two values (``a`` in
  ``{0, ca}``, ``u`` in ``{0, cu}``: any fit without sample weights, bootstrap repeats
  included) those sums do not depend on the order of tied rows, and the splitter sorts
  one array of 34-bit keys (the value's order-preserving bits and a 2-bit weight class;
  radix sort for large nodes, quicksort below :data:`RADIX_MIN`), reading the weights
  from the class. With other weights it sorts the values together with their positions
  (:func:`co_sort`), step for step as numba's ``np.argsort(kind="quicksort")``, so that
  the sums among tied values are added in the same order as that argsort gives. Both
  grow the trees that ``np.argsort`` followed by a scan through the indices grows.

Cut-point rules for the random splitter:

* ``THRESH_UNIFORM`` (default, the paper's Algorithm 5): ``t`` uniform in ``[min, max)``
  of the feature in the node. Since rows with ``x <= t`` go left and ``min <= t < max``,
  neither child is empty.
* ``THRESH_AUTHORS`` (the authors' code): ``t`` uniform between ``a + 2(b - a)/5`` and
  ``c + 3(d - c)/5``, where ``a < b`` are the two smallest and ``c < d`` the two largest
  distinct values in the node; also never leaves a child empty.

Random numbers come from a splitmix64 generator seeded per tree, so a tree depends only
on its seed and its data, not on thread or process scheduling. A node in which every
feature is constant leaves no trace on the generator (its draws are undone), and
improvements within ``TIE_TOL`` are ties won by the first candidate; both make a row of
integer weight ``k`` grow the same tree as ``k`` copies of it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pu_lib.trees._criteria import (
    HD_TOL,
    HELLINGER,
    PU_HELLINGER,
    PU_HELLINGER_AUTHORS,
    is_pure,
    node_impurity,
    node_value,
    split_improvement,
)

SPLIT_RANDOM = 0
SPLIT_BEST = 1
THRESH_UNIFORM = 0
THRESH_AUTHORS = 1
DRAW_NONCONSTANT = 0
DRAW_ANY = 1

TREE_LEAF = -1

#: Candidate splits whose improvements differ by less than ``TIE_TOL`` times the node's
#: weight (``Wp + |W|``, the scale of every criterion's impurity) are ties, won by the
#: first candidate (in draw order, then threshold order). Mathematically tied splits are
#: common in small nodes (e.g. cutting off either of two rows of equal weight); their
#: improvements can differ in the last bits depending on how the node weights were
#: summed, and this tolerance makes the choice independent of such rounding -- so that
#: an integer sample weight ``k`` grows exactly the tree of ``k`` copies of the row.
TIE_TOL = 1e-10


# --------------------------------------------------------------------------- RNG

@njit(cache=True, nogil=True)
def _next_u64(state):
    """splitmix64 step (Steele, Lea, Flood 2014); ``state`` is a uint64[1] array."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def _uniform(state):
    """Uniform double in [0, 1) with 53 random bits."""
    return float(_next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def _randint(state, n):
    """Uniform integer in [0, n)."""
    k = int(_uniform(state) * n)
    return k if k < n else n - 1


# --------------------------------------------------------------------------- sorting

#: ranges shorter than this are insertion-sorted (numba's ``SMALL_QUICKSORT``)
SMALL_SORT = 15
#: depth of the quicksort's range stack (numba's ``MAX_STACK``; the larger range is pushed,
#: so the depth stays below log2(n))
SORT_STACK = 100


@njit(cache=True, nogil=True)
def _co_insertion_sort(V, R, low, high):
    """Insertion sort of ``V[low:high + 1]`` (inclusive bounds), moving ``R`` alongside."""
    for i in range(low + 1, high + 1):
        k = R[i]
        v = V[i]
        j = i
        while j > low and v < V[j - 1]:
            R[j] = R[j - 1]
            V[j] = V[j - 1]
            j -= 1
        R[j] = k
        V[j] = v


@njit(cache=True, nogil=True)
def _co_partition(V, R, low, high):
    """Partition ``V[low:high + 1]`` around the median of three, moving ``R`` alongside;
    returns the pivot's final position."""
    mid = (low + high) >> 1
    if V[mid] < V[low]:
        V[low], V[mid] = V[mid], V[low]
        R[low], R[mid] = R[mid], R[low]
    if V[high] < V[mid]:
        V[high], V[mid] = V[mid], V[high]
        R[high], R[mid] = R[mid], R[high]
    if V[mid] < V[low]:
        V[low], V[mid] = V[mid], V[low]
        R[low], R[mid] = R[mid], R[low]
    pivot = V[mid]
    V[high], V[mid] = V[mid], V[high]
    R[high], R[mid] = R[mid], R[high]
    i = low
    j = high - 1
    while True:
        while i < high and V[i] < pivot:
            i += 1
        while j >= low and pivot < V[j]:
            j -= 1
        if i >= j:
            break
        V[i], V[j] = V[j], V[i]
        R[i], R[j] = R[j], R[i]
        i += 1
        j -= 1
    V[i], V[high] = V[high], V[i]
    R[i], R[high] = R[high], R[i]
    return i


@njit(cache=True, nogil=True)
def co_sort(V, R, low, high, stack):
    """Sort ``V[low:high + 1]`` in place and apply the same permutation to ``R``.

    The steps are those of numba's ``np.argsort(kind="quicksort")`` (median-of-three
    quicksort, insertion sort below :data:`SMALL_SORT` rows; ``numba/misc/quicksort.py``)
    on finite keys, so ``R`` ends as the permutation that ``np.argsort`` returns (ties
    included) -- but the keys move with the indices instead of being read through them,
    and nothing is allocated (``stack``: int64, ``2 * SORT_STACK``).
    """
    if high <= low:
        return
    stack[0] = low
    stack[1] = high
    n = 1
    while n > 0:
        n -= 1
        lo = stack[2 * n]
        hi = stack[2 * n + 1]
        while hi - lo >= SMALL_SORT:
            i = _co_partition(V, R, lo, hi)
            if hi - i > i - lo:
                if hi > i:
                    stack[2 * n] = i + 1
                    stack[2 * n + 1] = hi
                    n += 1
                hi = i - 1
            else:
                if i > lo:
                    stack[2 * n] = lo
                    stack[2 * n + 1] = i - 1
                    n += 1
                lo = i + 1
        _co_insertion_sort(V, R, lo, hi)


#: below this many keys, :func:`sort_keys` uses quicksort, from it on an LSD radix sort
RADIX_MIN = 1024
#: key bits per radix pass (three passes cover the 34-bit keys of the exhaustive splitter)
RADIX_BITS = 12


@njit(cache=True, nogil=True)
def _value_key(x):
    """An unsigned 32-bit integer ordered as the float32 ``x`` (finite; -0.0 counts as 0.0)."""
    b = np.float32(x + np.float32(0.0)).view(np.uint32)
    if b & np.uint32(0x80000000):
        return np.uint32(~b)
    return np.uint32(b | np.uint32(0x80000000))


@njit(cache=True, nogil=True)
def _key_value(t):
    """The float32 whose :func:`_value_key` is ``t``."""
    flip = np.uint32(0x80000000) if t & np.uint32(0x80000000) else np.uint32(0xFFFFFFFF)
    b = np.uint32(t ^ flip)
    return b.view(np.float32)


@njit(cache=True, nogil=True)
def _quicksort_keys(K, low, high, stack):
    """Sort the integers ``K[low:high + 1]`` in place: quicksort with a median-of-three
    pivot and a branch-free Lomuto partition (no mispredicted comparisons); when the pivot
    is the smallest key, the keys equal to it are gathered in a second branch-free pass
    and left out (many equal keys), and ranges below :data:`SMALL_SORT` keys are
    insertion-sorted. Equal keys are indistinguishable, so any correct sort gives the
    same array."""
    if high <= low:
        return
    stack[0] = low
    stack[1] = high
    n = 1
    while n > 0:
        n -= 1
        lo = stack[2 * n]
        hi = stack[2 * n + 1]
        while hi - lo >= SMALL_SORT:
            mid = (lo + hi) >> 1
            if K[mid] < K[lo]:
                K[lo], K[mid] = K[mid], K[lo]
            if K[hi] < K[mid]:
                K[hi], K[mid] = K[mid], K[hi]
            if K[mid] < K[lo]:
                K[lo], K[mid] = K[mid], K[lo]
            pivot = K[mid]
            K[hi], K[mid] = K[mid], K[hi]
            lt = lo
            for i in range(lo, hi):
                v = K[i]
                K[i] = K[lt]
                K[lt] = v
                lt += 1 if v < pivot else 0
            K[lt], K[hi] = K[hi], K[lt]
            right = lt + 1
            if lt == lo:  # the pivot is the smallest key: skip every key equal to it
                for i in range(lt + 1, hi + 1):
                    v = K[i]
                    K[i] = K[right]
                    K[right] = v
                    right += 1 if v == pivot else 0
            # [lo, lt) < pivot, [lt, right) == pivot, [right, hi] >= pivot
            if hi - right > lt - lo:
                if hi > right:
                    stack[2 * n] = right
                    stack[2 * n + 1] = hi
                    n += 1
                hi = lt - 1
            else:
                if lt > lo:
                    stack[2 * n] = lo
                    stack[2 * n + 1] = lt - 1
                    n += 1
                lo = right
        for i in range(lo + 1, hi + 1):
            v = K[i]
            j = i
            while j > lo and v < K[j - 1]:
                K[j] = K[j - 1]
                j -= 1
            K[j] = v


@njit(cache=True, nogil=True)
def sort_keys(K, tmp, start, end, stack, hist):
    """Sort the 34-bit keys ``K[start:end]`` in place: quicksort below :data:`RADIX_MIN`
    keys, else an LSD radix sort in passes of :data:`RADIX_BITS` bits through ``tmp``
    (passes whose digit is the same for every key are skipped). ``hist``: int64,
    ``3 << RADIX_BITS``."""
    m = end - start
    if m < RADIX_MIN:
        _quicksort_keys(K, start, end - 1, stack)
        return
    nb = 1 << RADIX_BITS
    mask = np.uint64(nb - 1)
    sh1 = np.uint64(RADIX_BITS)
    sh2 = np.uint64(2 * RADIX_BITS)
    hist[:] = 0
    for i in range(start, end):
        k = K[i]
        hist[k & mask] += 1
        hist[nb + ((k >> sh1) & mask)] += 1
        hist[2 * nb + ((k >> sh2) & mask)] += 1
    in_k = True  # the keys are in K (else in tmp)
    for p in range(3):
        base = p * nb
        shift = np.uint64(p * RADIX_BITS)
        first = K[start] if in_k else tmp[start]
        if hist[base + ((first >> shift) & mask)] == m:
            continue  # every key has this digit: the pass would not move anything
        total = start
        for b in range(nb):
            c = hist[base + b]
            hist[base + b] = total
            total += c
        if in_k:
            for i in range(start, end):
                k = K[i]
                dgt = base + ((k >> shift) & mask)
                pos = hist[dgt]
                tmp[pos] = k
                hist[dgt] = pos + 1
        else:
            for i in range(start, end):
                k = tmp[i]
                dgt = base + ((k >> shift) & mask)
                pos = hist[dgt]
                K[pos] = k
                hist[dgt] = pos + 1
        in_k = not in_k
    if not in_k:
        for i in range(start, end):
            K[i] = tmp[i]


@njit(cache=True, nogil=True, error_model="numpy")
def hellinger_gains(pu, authors, wp_left, w_left, wp, w, out, nb):
    """``out[j] = split_improvement(crit, 0, wp_left[j], w_left[j], wp - wp_left[j], w -
    w_left[j])`` for ``j < nb`` and the Hellinger criteria (``pu``: ``PU_HELLINGER``, with
    ``authors`` ``PU_HELLINGER_AUTHORS``, else ``HELLINGER``), with the same floating-point
    operations in the same order
    (:func:`pu_lib.trees._criteria.hellinger_counts` and ``hellinger_distance``), hence the
    same values; written without branches (selects, unguarded divisions under numpy's
    error model) so that the compiler evaluates several splits per vector instruction."""
    for j in range(nb):
        wp_l = wp_left[j]
        w_l = w_left[j]
        wp_r = wp - wp_l
        w_r = w - w_l
        p_l = min(wp_l, w_l) if pu else wp_l
        n_l = w_l - p_l
        tol = HD_TOL * (abs(w_l) + abs(wp_l))
        p_l = 0.0 if p_l < tol else p_l
        n_l = 0.0 if n_l < tol else n_l
        p_r = min(wp_r, w_r) if pu else wp_r
        n_r = w_r - p_r
        tol = HD_TOL * (abs(w_r) + abs(wp_r))
        p_r = 0.0 if p_r < tol else p_r
        n_r = 0.0 if n_r < tol else n_r
        p = p_l + p_r
        n = n_l + n_r
        dl = math.sqrt(n_l / n) - math.sqrt(p_l / p)
        dr = math.sqrt(n_r / n) - math.sqrt(p_r / p)
        gain = (w_l + w_r) * math.sqrt(dl * dl + dr * dr)
        no_neg = (w_l + w_r) if (authors and p > 0.0) else -np.inf  # the authors' N = 0 rule: HD = 1
        out[j] = gain if (p > 0.0 and n > 0.0) else no_neg


# --------------------------------------------------------------------------- builder

@njit(cache=True, nogil=True)
def _random_threshold(state, rule, lo, lo2, hi2, hi):
    if rule == THRESH_AUTHORS:
        left = lo + 2.0 * (lo2 - lo) / 5.0
        right = hi2 + 3.0 * (hi - hi2) / 5.0
        t = left + _uniform(state) * (right - left)
    else:
        t = lo + _uniform(state) * (hi - lo)
    if t < lo or t >= hi:  # rounding at the interval's ends
        t = lo + 0.5 * (hi - lo)
        if t >= hi:
            t = lo
    return t


@njit(cache=True, nogil=True)
def _push(top, st_start, st_end, st_depth, st_parent, st_isleft, st_wp, st_w, st_known,
          start, end, depth, parent, is_left, wp, w, known):
    """Push one node onto the builder's explicit stack; returns the new stack size."""
    st_start[top] = start
    st_end[top] = end
    st_depth[top] = depth
    st_parent[top] = parent
    st_isleft[top] = is_left
    st_wp[top] = wp
    st_w[top] = w
    st_known[top] = known
    return top + 1


@njit(cache=True, nogil=True)
def build_tree(Xf, a, u, samples_in, crit, splitter, max_features, n_thresholds, max_depth,
               min_samples_split, min_samples_leaf, threshold_rule, seed, draw_rule=0):
    """Grow one tree. ``Xf``: (n, d) float32 (any layout; C order in practice); ``a``, ``u``: float64 weights;
    ``samples_in``: row indices of the training sample (repeats allowed, e.g. bootstrap);
    ``max_depth < 0`` means unlimited. ``draw_rule``: ``DRAW_NONCONSTANT`` (0, the paper's
    Algorithm 5) evaluates ``max_features`` features that are not constant in the node;
    ``DRAW_ANY`` (1, scikit-learn's splitters) stops after ``max_features`` draws, constant
    ones included, unless no non-constant feature has been found yet. Returns the node
    arrays, trimmed to the node count.
    """
    n_total = samples_in.shape[0]
    d = Xf.shape[1]
    samples = samples_in.copy()
    cap = 2 * n_total + 1
    left = np.full(cap, TREE_LEAF, np.int64)
    right = np.full(cap, TREE_LEAF, np.int64)
    feature = np.full(cap, -1, np.int64)
    threshold = np.full(cap, np.nan, np.float64)
    value = np.zeros(cap, np.float64)
    wp_arr = np.zeros(cap, np.float64)
    w_arr = np.zeros(cap, np.float64)
    n_arr = np.zeros(cap, np.int64)
    impurity_arr = np.zeros(cap, np.float64)
    improvement_arr = np.zeros(cap, np.float64)
    depth_arr = np.zeros(cap, np.int64)

    state = np.empty(1, np.uint64)
    state[0] = np.uint64(seed)
    _next_u64(state)  # decorrelate small consecutive seeds

    vals = np.empty(n_total, np.float32)
    sort_stack = np.empty(2 * SORT_STACK, np.int64)
    # With two-valued weights -- every row's a in {0, ca} and u in {0, cu}, as without
    # sample weights -- the running sums at each distinct value do not depend on the order
    # of the rows that share the value, so the exhaustive splitter sorts one array of keys
    # (the value's order-preserving bits, then a 2-bit class: a > 0, u > 0) and reads the
    # weights from the class; otherwise it sorts the values with their positions as
    # numba's argsort does (co_sort), which fixes the order of the sums among tied values.
    ca = 0.0
    cu = 0.0
    two_valued = True
    for i in range(n_total):
        ai = a[samples[i]]
        ui = u[samples[i]]
        if ai != 0.0:
            if ca == 0.0:
                ca = ai
            elif ai != ca:
                two_valued = False
        if ui != 0.0:
            if cu == 0.0:
                cu = ui
            elif ui != cu:
                two_valued = False
    class_a = np.array([0.0, ca, 0.0, ca])
    class_u = np.array([0.0, 0.0, cu, cu])
    best = splitter == SPLIT_BEST
    n_keys = n_total if (best and two_valued) else 0
    keys = np.empty(n_keys, np.uint64)
    keys_tmp = np.empty(n_keys if n_keys >= RADIX_MIN else 0, np.uint64)
    # the candidate cuts of one feature in a node: running sums, position, score
    cut_wp = np.empty(n_keys, np.float64)
    cut_w = np.empty(n_keys, np.float64)
    cut_k = np.empty(n_keys, np.int64)
    cut_gain = np.empty(n_keys, np.float64)
    hellinger = crit == HELLINGER or crit == PU_HELLINGER or crit == PU_HELLINGER_AUTHORS
    n_co = n_total if (best and not two_valued) else 0
    sorted_vals = np.empty(n_co, np.float32)
    order = np.empty(n_co, np.int64)
    radix_hist = np.empty((3 << RADIX_BITS) if n_keys >= RADIX_MIN else 0, np.int64)
    # the best feature's node values so far, kept to partition without a second gather
    best_vals = np.empty(n_total, np.float32)
    # per-sample weights kept in sample order (sequential access in the split scans)
    sa = np.empty(n_total, np.float64)
    su = np.empty(n_total, np.float64)
    for i in range(n_total):
        sa[i] = a[samples[i]]
        su[i] = u[samples[i]]
    # Feature bookkeeping as in scikit-learn's splitters: feats[:n_known] are the features
    # known to be constant at the current node (found constant at an ancestor), in an
    # order fixed by the ancestors and restored from const_feats after each node.
    feats = np.arange(d)
    const_feats = np.arange(d)
    # the swaps of feats made by one node's draws (at most d), undone when the node turns
    # out to have no non-constant feature
    swap_a = np.empty(d, np.int64)
    swap_b = np.empty(d, np.int64)

    # stack entries: start, end, depth, parent, is_left, wp, w, n_known_constants
    st_start = np.empty(cap, np.int64)
    st_end = np.empty(cap, np.int64)
    st_depth = np.empty(cap, np.int64)
    st_parent = np.empty(cap, np.int64)
    st_isleft = np.empty(cap, np.int64)
    st_wp = np.empty(cap, np.float64)
    st_w = np.empty(cap, np.float64)
    st_known = np.empty(cap, np.int64)

    wp0 = 0.0
    w0 = 0.0
    for i in range(n_total):
        wp0 += sa[i]
        w0 += su[i]
    top = _push(0, st_start, st_end, st_depth, st_parent, st_isleft, st_wp, st_w, st_known,
                0, n_total, 0, -1, 0, wp0, w0, 0)
    node_count = 0

    while top > 0:
        top -= 1
        start = st_start[top]
        end = st_end[top]
        depth = st_depth[top]
        parent = st_parent[top]
        isleft = st_isleft[top]
        wp = st_wp[top]
        w = st_w[top]
        n_known = st_known[top]
        n_node = end - start

        node = node_count
        node_count += 1
        if parent >= 0:
            if isleft == 1:
                left[parent] = node
            else:
                right[parent] = node
        impurity = node_impurity(crit, wp, w)
        value[node] = node_value(wp, w)
        wp_arr[node] = wp
        w_arr[node] = w
        n_arr[node] = n_node
        impurity_arr[node] = impurity
        depth_arr[node] = depth

        if (n_node < min_samples_split or n_node < 2 * min_samples_leaf
                or (max_depth >= 0 and depth >= max_depth) or is_pure(crit, wp, w, impurity)):
            continue

        # ---- split search: draw features uniformly without replacement until
        # max_features non-constant ones have been evaluated (Algorithm 5: "F attributes
        # uniformly at random from all non-constant attributes at the node").
        best_gain = -np.inf
        # improvements closer than this are ties, won by the first candidate (see TIE_TOL)
        tie = TIE_TOL * (wp + abs(w))
        best_f = -1
        best_t = 0.0
        n_visited = 0
        n_draws = 0
        n_drawn_const = 0
        n_found = 0
        f_i = d
        n_swaps = 0
        rng_before = state[0]
        while f_i > n_known + n_found and (
                n_visited < max_features if draw_rule == DRAW_NONCONSTANT
                else (n_draws < max_features or n_visited == 0)):
            n_draws += 1
            f_j = n_drawn_const + _randint(state, f_i - n_found - n_drawn_const)
            if f_j < n_known:
                tmp = feats[n_drawn_const]
                feats[n_drawn_const] = feats[f_j]
                feats[f_j] = tmp
                swap_a[n_swaps] = n_drawn_const
                swap_b[n_swaps] = f_j
                n_swaps += 1
                n_drawn_const += 1
                continue
            f_j += n_found
            f = feats[f_j]
            col = Xf[:, f]
            lo = np.inf
            hi = -np.inf
            for i in range(start, end):
                x = col[samples[i]]
                vals[i] = x
                lo = min(lo, x)
                hi = max(hi, x)
            if not (hi > lo):
                # constant here: move it to the node's constants, it does not count
                feats[f_j] = feats[n_known + n_found]
                feats[n_known + n_found] = f
                swap_a[n_swaps] = f_j
                swap_b[n_swaps] = n_known + n_found
                n_swaps += 1
                n_found += 1
                continue
            f_i -= 1
            feats[f_j] = feats[f_i]
            feats[f_i] = f
            n_visited += 1
            improved = False

            if splitter == SPLIT_RANDOM:
                lo2 = hi
                hi2 = lo
                if threshold_rule == THRESH_AUTHORS:
                    for i in range(start, end):
                        x = vals[i]
                        if x > lo and x < lo2:
                            lo2 = x
                        if x < hi and x > hi2:
                            hi2 = x
                for _ in range(n_thresholds):
                    t = _random_threshold(state, threshold_rule, float(lo), float(lo2), float(hi2), float(hi))
                    wp_l = 0.0
                    w_l = 0.0
                    n_l = 0
                    tt = np.float32(t)
                    exact = float(tt) == t
                    for i in range(start, end):
                        # branch-free: the comparison outcome is unpredictable
                        if exact:
                            c = vals[i] <= tt
                        else:
                            c = float(vals[i]) <= t
                        wp_l += sa[i] * c
                        w_l += su[i] * c
                        n_l += c
                    if n_l < min_samples_leaf or n_node - n_l < min_samples_leaf:
                        continue
                    gain = split_improvement(crit, impurity, wp_l, w_l, wp - wp_l, w - w_l)
                    if gain > best_gain + tie:
                        best_gain = gain
                        best_f = f
                        best_t = t
                        improved = True
            elif two_valued:
                m = n_node
                for i in range(start, end):
                    cls = (1 if sa[i] != 0.0 else 0) + (2 if su[i] != 0.0 else 0)
                    keys[i] = (np.uint64(_value_key(vals[i])) << np.uint64(2)) | np.uint64(cls)
                sort_keys(keys, keys_tmp, start, end, sort_stack, radix_hist)
                wp_l = 0.0
                w_l = 0.0
                nb = 0
                t1 = keys[start] >> np.uint64(2)
                for k in range(m - 1):
                    key = keys[start + k]
                    cls = key & np.uint64(3)
                    wp_l += class_a[cls]
                    w_l += class_u[cls]
                    t0 = t1
                    t1 = keys[start + k + 1] >> np.uint64(2)
                    if t1 == t0:
                        continue
                    n_l = k + 1
                    if n_l < min_samples_leaf or m - n_l < min_samples_leaf:
                        continue
                    cut_wp[nb] = wp_l
                    cut_w[nb] = w_l
                    cut_k[nb] = start + k
                    nb += 1
                # score the candidate cuts (several at a time for the Hellinger criteria),
                # then keep the first best in threshold order, as a one-pass scan would
                if hellinger:
                    hellinger_gains(crit != HELLINGER, crit == PU_HELLINGER_AUTHORS, cut_wp, cut_w, wp, w, cut_gain,
                                    nb)
                else:
                    for j in range(nb):
                        cut_gain[j] = split_improvement(crit, impurity, cut_wp[j], cut_w[j], wp - cut_wp[j],
                                                        w - cut_w[j])
                for j in range(nb):
                    if cut_gain[j] > best_gain + tie:
                        best_gain = cut_gain[j]
                        best_f = f
                        kk = cut_k[j]
                        t0 = keys[kk] >> np.uint64(2)
                        t1 = keys[kk + 1] >> np.uint64(2)
                        best_t = 0.5 * (float(_key_value(np.uint32(t0))) + float(_key_value(np.uint32(t1))))
                        improved = True
            else:
                m = n_node
                for i in range(start, end):
                    sorted_vals[i] = vals[i]
                    order[i] = i
                co_sort(sorted_vals, order, start, end - 1, sort_stack)
                wp_l = 0.0
                w_l = 0.0
                for k in range(m - 1):
                    o = order[start + k]
                    wp_l += sa[o]
                    w_l += su[o]
                    x0 = sorted_vals[start + k]
                    x1 = sorted_vals[start + k + 1]
                    if not (x1 > x0):
                        continue
                    n_l = k + 1
                    if n_l < min_samples_leaf or m - n_l < min_samples_leaf:
                        continue
                    gain = split_improvement(crit, impurity, wp_l, w_l, wp - wp_l, w - w_l)
                    if gain > best_gain + tie:
                        best_gain = gain
                        best_f = f
                        best_t = 0.5 * (float(x0) + float(x1))
                        improved = True
            if improved:  # keep this feature's values: swap the buffers, no copy
                vals, best_vals = best_vals, vals

        if n_visited == 0:
            # every feature is constant in the node: a leaf, and like a node stopped by the
            # rules above it leaves no trace -- its draws are undone (random state and
            # feature order), so that k identical rows grow the same tree as one row of
            # weight k (which stops at min_samples_split without drawing)
            for k in range(n_swaps - 1, -1, -1):
                tmp = feats[swap_a[k]]
                feats[swap_a[k]] = feats[swap_b[k]]
                feats[swap_b[k]] = tmp
            state[0] = rng_before
            continue

        # restore the ancestors' constants order; record this node's new constants
        for k in range(n_known):
            feats[k] = const_feats[k]
        for k in range(n_known, n_known + n_found):
            const_feats[k] = feats[k]
        child_known = n_known + n_found

        if best_f < 0:
            continue  # all features constant (or no admissible split): leaf

        # ---- partition samples[start:end] (with their weights and values) by x <= best_t,
        # summing the children's weights directly (not parent - left), so that e.g. a
        # child without labeled rows has Wp exactly 0 and its purity is detected exactly
        wp_l = 0.0
        w_l = 0.0
        wp_r = 0.0
        w_r = 0.0
        i = start
        j = end - 1
        while i <= j:
            if best_vals[i] <= best_t:
                wp_l += sa[i]
                w_l += su[i]
                i += 1
            else:
                wp_r += sa[i]
                w_r += su[i]
                tmp_s = samples[i]
                samples[i] = samples[j]
                samples[j] = tmp_s
                tmp_w = sa[i]
                sa[i] = sa[j]
                sa[j] = tmp_w
                tmp_w = su[i]
                su[i] = su[j]
                su[j] = tmp_w
                tmp_v = best_vals[i]
                best_vals[i] = best_vals[j]
                best_vals[j] = tmp_v
                j -= 1
        pos = i
        feature[node] = best_f
        threshold[node] = best_t
        improvement_arr[node] = split_improvement(crit, impurity, wp_l, w_l, wp_r, w_r)

        # push right first so that the left subtree gets the next node ids
        top = _push(top, st_start, st_end, st_depth, st_parent, st_isleft, st_wp, st_w, st_known,
                    pos, end, depth + 1, node, 0, wp_r, w_r, child_known)
        top = _push(top, st_start, st_end, st_depth, st_parent, st_isleft, st_wp, st_w, st_known,
                    start, pos, depth + 1, node, 1, wp_l, w_l, child_known)

    k = node_count
    return (left[:k].copy(), right[:k].copy(), feature[:k].copy(), threshold[:k].copy(), value[:k].copy(),
            wp_arr[:k].copy(), w_arr[:k].copy(), n_arr[:k].copy(), impurity_arr[:k].copy(), improvement_arr[:k].copy(),
            depth_arr[:k].copy())


# --------------------------------------------------------------------------- prediction

#: rows and columns of one tile of :func:`column_major_copy` (a 64 x 64 float32 tile and
#: its transpose fit in L1 together)
COPY_TILE = 64


@njit(cache=True, nogil=True)
def _tiled_copy(X, out, tile):
    n, d = X.shape
    for r0 in range(0, n, tile):
        r1 = min(n, r0 + tile)
        for c0 in range(0, d, tile):
            c1 = min(d, c0 + tile)
            for j in range(c0, c1):
                for i in range(r0, r1):
                    out[i, j] = X[i, j]


def column_major_copy(X):
    """A column-major (Fortran-order) copy of the 2-D array ``X``, equal to
    ``np.asfortranarray(X)``: a row-major ``X`` is copied tile by tile
    (:data:`COPY_TILE`), which reads and writes whole cache lines where numpy's strided
    copy does not (MNIST, 60,000 x 784 float32: 0.09 s against 0.27-0.65 s). Any other
    layout goes through numpy."""
    X = np.asarray(X)
    if X.ndim != 2 or not X.flags.c_contiguous or X.flags.f_contiguous or X.dtype.kind != "f":
        return np.asfortranarray(X)
    out = np.empty(X.shape, dtype=X.dtype, order="F")
    _tiled_copy(X, out, COPY_TILE)
    return out


@njit(cache=True, nogil=True)
def apply_tree(X, left, right, feature, threshold):
    """Leaf index of every row of ``X`` (float32, any layout)."""
    n = X.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        node = 0
        while left[node] != TREE_LEAF:
            if X[i, feature[node]] <= threshold[node]:
                node = left[node]
            else:
                node = right[node]
        out[i] = node
    return out


@njit(cache=True, nogil=True)
def forest_votes(X, offsets, left, right, feature, threshold, value):
    """For trees packed back to back (tree ``k`` = nodes ``offsets[k]:offsets[k+1]``,
    child indices local to the tree): per row, the number of trees voting +1
    (leaf v* > 0.5, Proposition 4) and the sum of the leaf values v* clipped to [0, 1]."""
    n = X.shape[0]
    n_trees = offsets.shape[0] - 1
    votes = np.zeros(n, np.int64)
    vsum = np.zeros(n, np.float64)
    for k in range(n_trees):  # tree-outer: one tree's nodes stay in cache
        base = offsets[k]
        for i in range(n):
            node = base
            while left[node] != TREE_LEAF:
                if X[i, feature[node]] <= threshold[node]:
                    node = base + left[node]
                else:
                    node = base + right[node]
            v = value[node]
            if v > 0.5:
                votes[i] += 1
            if v > 1.0:
                v = 1.0
            vsum[i] += v
    return votes, vsum
