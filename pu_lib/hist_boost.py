"""Histogram gradient-boosted trees for binary classification, compiled with numba.

``HistBoostClassifier`` is the tree booster of XGBoost's ``hist`` method (Chen & Guestrin,
KDD 2016, Section 2.2 and 3.1; ``binary:logistic``, depth-wise trees) written once more,
so that PULSCAR and PULSNAR (:mod:`pu_lib.prior.pulscar`, :mod:`pu_lib.prior.pulsnar`)
can bin the data a single time and grow the 25 or more cross-validation models of one
estimate on those bins. Chosen with ``booster="hist_boost"`` there; XGBoost stays the
default, as in the PULSNAR paper.

Model (XGBoost's, parameter by parameter, XGBoost's defaults):

* logistic loss; gradient ``g = w (p - y)``, hessian ``h = w max(p (1 - p), 1e-16)``,
  ``w = sample_weight * (scale_pos_weight if y == 1 else 1)``;
* the start margin is XGBoost's intercept estimate for ``binary:logistic`` (measured on
  XGBoost 3.2's ``base_score``; ``ybar_w`` is the ``w``-weighted mean label):
  ``logit(ybar_w)`` when ``scale_pos_weight == 1``, otherwise one Newton step of the
  weighted logistic loss from margin 0, ``4 (ybar_w - 1/2)``;
* a split of a node with sums ``(G, H)`` into ``(G_L, H_L)`` and ``(G_R, H_R)`` gains
  ``G_L^2 / (H_L + lambda) + G_R^2 / (H_R + lambda) - G^2 / (H + lambda)`` (KDD 2016,
  eq. 7 without the factor 1/2 and gamma, as XGBoost reports it); a node is split on its
  best gain if that exceeds ``max(gamma, 1e-6)`` and both children keep a hessian sum of
  at least ``min_child_weight``; leaves get ``-learning_rate * G / (H + lambda)`` (eq. 5);
* missing values (NaN) go to the side that gains more (sparsity-aware split finding,
  KDD 2016, Algorithm 3), scanned in XGBoost's order (:func:`_best_split`); where the
  node has no missing values of the split feature they go right, as in XGBoost;
* trees are grown to ``max_depth``. Depth-first growth under a depth limit alone gives
  the same trees as XGBoost's depth-wise growth, and lets the histogram of the larger
  child be the parent's minus the smaller child's (XGBoost's subtraction trick) with one
  histogram buffer per depth.

Differences from XGBoost, by design:

* **Bins.** Every feature's cut points are computed once from all rows given to
  :func:`bin_features` (exact quantiles of its values; the midpoints between values when
  it has at most ``max_bin`` distinct ones), not by XGBoost's weighted quantile sketch
  of each training set. Inside PULSCAR/PULSNAR the rows of *all* folds fix the cuts
  (no labels are used). ``max_bin`` is at most 255: the 256th code marks a missing value.
* Sums are float64 (XGBoost accumulates float32 gradients in double precision), so the
  models agree with XGBoost's to rounding where the cuts agree, not bit for bit.
* No row or column subsampling, no ``alpha`` / ``max_delta_step`` / ``max_leaves``.

Deterministic: no randomness at all (``random_state`` is accepted for the scikit-learn
interface and ignored); results do not depend on ``n_jobs``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numba import njit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

__all__ = ["HistBoostClassifier", "bin_features", "apply_bins", "hist_boost_fit", "hist_boost_fit_many",
           "hist_boost_margin", "HIST_BOOST_DEFAULTS"]

#: The code of a missing value in a binned matrix.
MISSING = 255

#: The defaults of :class:`HistBoostClassifier`: XGBoost's (``xgboost.XGBClassifier``
#: 3.x with ``tree_method="hist"``), except ``max_bin`` (see the module docstring).
HIST_BOOST_DEFAULTS: dict = {
    "n_estimators": 100,
    "learning_rate": 0.3,
    "max_depth": 6,
    "reg_lambda": 1.0,
    "min_child_weight": 1.0,
    "gamma": 0.0,
    "max_bin": 255,
    "scale_pos_weight": 1.0,
}


# --------------------------------------------------------------------------- binning


def _feature_cuts(col: np.ndarray, max_bin: int) -> np.ndarray:
    col = np.sort(col[~np.isnan(col)])
    if col.shape[0] == 0:
        return col
    distinct = np.flatnonzero(np.diff(col) > 0)
    if distinct.shape[0] + 1 <= max_bin:
        u = np.concatenate([col[distinct], col[-1:]])
        c = (u[:-1] + u[1:]) / 2.0
        return np.where(c > u[:-1], c, u[1:])  # a midpoint can round to the lower value
    m = col.shape[0]
    c = np.unique(col[(np.arange(1, max_bin) * m) // max_bin])
    return c[c > col[0]]  # the smallest value would leave bin 0 empty


def bin_cuts(X: np.ndarray, max_bin: int = 255, n_jobs=1) -> tuple[np.ndarray, np.ndarray]:
    """Cut points of every column of ``X``: ``(cuts, n_bins)`` with ``cuts`` of shape
    ``(n_features, max_bin - 1)`` (padded with +inf) and ``n_bins[f]`` the number of bins of
    feature ``f`` (number of its cuts + 1). A value ``x`` falls in bin ``#{cuts <= x}``.

    Features with at most ``max_bin`` distinct non-missing values get the midpoints
    between consecutive values; others the values at ranks ``floor(k n / max_bin)``,
    ``k = 1 .. max_bin - 1``, of their sorted values (duplicates removed). Columns are
    sorted on ``n_jobs`` threads (the result does not depend on it).
    """
    from pu_lib.distributed import parallel_map

    max_bin = int(max_bin)
    if not 2 <= max_bin <= 255:
        raise ValueError(f"max_bin must be an integer in [2, 255], got {max_bin}")
    d = X.shape[1]
    cuts = np.full((d, max_bin - 1), np.inf)
    n_bins = np.ones(d, dtype=np.int32)
    per_feature = parallel_map(_feature_cuts, [(X[:, f], max_bin) for f in range(d)], n_jobs=n_jobs)
    for f, c in enumerate(per_feature):
        cuts[f, : c.shape[0]] = c
        n_bins[f] = c.shape[0] + 1
    return cuts, n_bins


@njit(nogil=True, cache=True)
def _apply_bins(X, cuts, n_bins, out):
    n, d = X.shape
    for i in range(n):
        for f in range(d):
            x = X[i, f]
            if math.isnan(x):
                out[i, f] = MISSING
                continue
            lo = 0
            hi = n_bins[f] - 1  # number of cuts
            while lo < hi:  # first cut > x
                mid = (lo + hi) >> 1
                if cuts[f, mid] <= x:
                    lo = mid + 1
                else:
                    hi = mid
            out[i, f] = lo


def apply_bins(X, cuts, n_bins, n_jobs=1) -> np.ndarray:
    """The bin codes (uint8, C order) of float ``X`` under ``cuts``; NaN -> 255. Row blocks
    run on ``n_jobs`` threads."""
    from pu_lib.distributed import effective_n_jobs, parallel_map

    X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.empty(X.shape, dtype=np.uint8)
    n_jobs = max(1, min(effective_n_jobs(n_jobs), X.shape[0] // 10_000))
    edges = np.linspace(0, X.shape[0], n_jobs + 1).astype(np.int64)
    parallel_map(_apply_bins, [(X[a:b], cuts, n_bins, out[a:b]) for a, b in zip(edges[:-1], edges[1:])],
                 n_jobs=n_jobs)
    return out


def bin_features(X, max_bin: int = 255, n_jobs=1):
    """``(Xb, cuts, n_bins)``: the cuts of :func:`bin_cuts` and ``X`` binned by them
    (:func:`apply_bins`), on ``n_jobs`` threads."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    cuts, n_bins = bin_cuts(X, max_bin, n_jobs)
    return apply_bins(X, cuts, n_bins, n_jobs), cuts, n_bins


# --------------------------------------------------------------------------- trees


@njit(nogil=True, cache=True)
def _build_hist(Xb, rows, start, end, g, h, hist):
    d = Xb.shape[1]
    hist[:] = 0.0
    for i in range(start, end):
        r = rows[i]
        gi = g[r]
        hi = h[r]
        for f in range(d):
            k = (f * 256 + Xb[r, f]) * 2
            hist[k] += gi
            hist[k + 1] += hi


@njit(nogil=True, cache=True)
def _best_split(hist, n_bins, G, H, lam, mcw):
    """(gain, feature, bin, missing_left, G_left, H_left) of the best split: left = bins
    <= bin. XGBoost's order: features ascending; per feature a forward scan (missing
    values right, every bin boundary including "all values left") and, only if the node
    has missing values of that feature, a backward scan (missing values left, including
    "all values right", bin -1); a candidate replaces the best only if it gains strictly
    more."""
    d = n_bins.shape[0]
    parent = G * G / (H + lam)
    best = -np.inf
    bf = -1
    bb = -1
    bml = False
    bgl = 0.0
    bhl = 0.0
    for f in range(d):
        nb = n_bins[f]
        km = (f * 256 + MISSING) * 2
        has_missing = hist[km + 1] > 0.0
        gl = 0.0
        hl = 0.0
        for b in range(nb):  # forward: missing values right
            k = (f * 256 + b) * 2
            gl += hist[k]
            hl += hist[k + 1]
            gr = G - gl
            hr = H - hl
            if hl >= mcw and hr >= mcw:
                gain = gl * gl / (hl + lam) + gr * gr / (hr + lam) - parent
                if gain > best:
                    best = gain
                    bf = f
                    bb = b
                    bml = False
                    bgl = gl
                    bhl = hl
        if not has_missing:
            continue
        gr = 0.0
        hr = 0.0
        for b in range(nb - 1, -1, -1):  # backward: missing values left, left = bins <= b - 1
            k = (f * 256 + b) * 2
            gr += hist[k]
            hr += hist[k + 1]
            gl = G - gr
            hl = H - hr
            if hl >= mcw and hr >= mcw:
                gain = gl * gl / (hl + lam) + gr * gr / (hr + lam) - parent
                if gain > best:
                    best = gain
                    bf = f
                    bb = b - 1
                    bml = True
                    bgl = gl
                    bhl = hl
    return best, bf, bb, bml, bgl, bhl


@njit(nogil=True, cache=True)
def _partition(Xb, rows, tmp, start, end, f, b, miss_left):
    """Stable in-place partition of ``rows[start:end]`` into left then right; returns the
    first position of the right child."""
    nl = 0
    for i in range(start, end):
        v = Xb[rows[i], f]
        if (v == MISSING and miss_left) or (v != MISSING and v <= b):
            nl += 1
    li = start
    ri = start + nl
    for i in range(start, end):
        r = rows[i]
        v = Xb[r, f]
        if (v == MISSING and miss_left) or (v != MISSING and v <= b):
            tmp[li] = r
            li += 1
        else:
            tmp[ri] = r
            ri += 1
    for i in range(start, end):
        rows[i] = tmp[i]
    return start + nl


@njit(nogil=True, cache=True)
def _grow_tree(Xb, n_bins, rows, tmp, g, h, margin, hists, max_depth, lam, mcw, min_gain, eta,
               feat, thr, mleft, left, right, value, gain):
    """Grow one tree on ``rows`` (permuted in place), write its nodes (node 0 = root) into
    the row-``t`` slices passed as ``feat`` ... ``gain`` and add its leaf values to
    ``margin``. Returns the number of nodes."""
    n_rows = rows.shape[0]
    G = 0.0
    H = 0.0
    for i in range(n_rows):
        G += g[rows[i]]
        H += h[rows[i]]
    # stack entries: node, start, end, depth, slot, G, H, has_hist
    cap = 2 * (max_depth + 2)
    s_node = np.empty(cap, np.int64)
    s_start = np.empty(cap, np.int64)
    s_end = np.empty(cap, np.int64)
    s_depth = np.empty(cap, np.int64)
    s_slot = np.empty(cap, np.int64)
    s_G = np.empty(cap)
    s_H = np.empty(cap)
    s_hashist = np.empty(cap, np.bool_)
    top = 0
    s_node[0] = 0
    s_start[0] = 0
    s_end[0] = n_rows
    s_depth[0] = 0
    s_slot[0] = 0
    s_G[0] = G
    s_H[0] = H
    s_hashist[0] = False
    top = 1
    n_nodes = 1
    while top > 0:
        top -= 1
        node = s_node[top]
        start = s_start[top]
        end = s_end[top]
        depth = s_depth[top]
        slot = s_slot[top]
        G = s_G[top]
        H = s_H[top]
        split = False
        if depth < max_depth and H >= 2.0 * mcw and end - start >= 2:
            if not s_hashist[top]:
                _build_hist(Xb, rows, start, end, g, h, hists[slot])
            best, f, b, ml, gl, hl = _best_split(hists[slot], n_bins, G, H, lam, mcw)
            if f >= 0 and best > min_gain:
                split = True
        if not split:
            v = -eta * G / (H + lam)
            feat[node] = -1
            value[node] = v
            for i in range(start, end):
                margin[rows[i]] += v
            continue
        mid = _partition(Xb, rows, tmp, start, end, f, b, ml)
        ln = n_nodes
        rn = n_nodes + 1
        n_nodes += 2
        feat[node] = f
        thr[node] = b
        mleft[node] = ml
        left[node] = ln
        right[node] = rn
        gain[node] = best
        gr = G - gl
        hr = H - hl
        # children: the smaller one's histogram is built, the larger one's is the parent's
        # minus it (in the parent's slot); the smaller child is processed first (top).
        need = depth + 1 < max_depth
        if mid - start <= end - mid:
            small_node, s_s, s_e, sg, sh = ln, start, mid, gl, hl
            large_node, l_s, l_e, lg, lh = rn, mid, end, gr, hr
        else:
            small_node, s_s, s_e, sg, sh = rn, mid, end, gr, hr
            large_node, l_s, l_e, lg, lh = ln, start, mid, gl, hl
        if need:
            _build_hist(Xb, rows, s_s, s_e, g, h, hists[slot + 1])
            par = hists[slot]
            sm = hists[slot + 1]
            for k in range(par.shape[0]):
                par[k] -= sm[k]
        # push larger (slot), then smaller (slot + 1)
        s_node[top] = large_node
        s_start[top] = l_s
        s_end[top] = l_e
        s_depth[top] = depth + 1
        s_slot[top] = slot
        s_G[top] = lg
        s_H[top] = lh
        s_hashist[top] = need
        top += 1
        s_node[top] = small_node
        s_start[top] = s_s
        s_end[top] = s_e
        s_depth[top] = depth + 1
        s_slot[top] = slot + 1
        s_G[top] = sg
        s_H[top] = sh
        s_hashist[top] = need
        top += 1
    return n_nodes


@njit(nogil=True, cache=True)
def _boost(Xb, n_bins, y, w, rows0, rows, tmp, margin, g, h, hists, t0, t1, eta, max_depth, lam, mcw, min_gain,
           feat, thr, mleft, left, right, value, gain, n_nodes):
    """Boosting rounds ``t0 .. t1 - 1`` of one model whose state (``margin`` of all rows and
    scratch ``rows`` / ``tmp`` / ``g`` / ``h`` / ``hists``) the caller keeps between calls:
    any split of the rounds into calls gives the same trees, bit for bit. Every round starts
    from the training rows in ascending order (``rows0``); the stable partition keeps each
    node's rows ascending, so histograms read ``Xb`` front to back (about 1.3x faster at
    80,000 rows x 100 features than in the previous tree's leaf order) and sum in row
    order, whatever order the caller gave the training rows in."""
    for t in range(t0, t1):
        for i in range(rows.shape[0]):
            rows[i] = rows0[i]
            r = rows[i]
            p = 1.0 / (1.0 + math.exp(-margin[r]))
            g[r] = w[r] * (p - y[r])
            hh = p * (1.0 - p)
            h[r] = w[r] * (hh if hh > 1e-16 else 1e-16)
        n_nodes[t] = _grow_tree(Xb, n_bins, rows, tmp, g, h, margin, hists, max_depth, lam, mcw, min_gain, eta,
                                feat[t], thr[t], mleft[t], left[t], right[t], value[t], gain[t])


@njit(nogil=True, cache=True)
def _margin(Xb, rows, base_margin, feat, thr, mleft, left, right, value, out):
    n_trees = feat.shape[0]
    for i in range(rows.shape[0]):
        r = rows[i]
        m = base_margin
        for t in range(n_trees):
            node = 0
            while feat[t, node] >= 0:
                v = Xb[r, feat[t, node]]
                if v == MISSING:
                    go_left = mleft[t, node]
                else:
                    go_left = v <= thr[t, node]
                node = left[t, node] if go_left else right[t, node]
            m += value[t, node]
        out[i] = m


class _Trees:
    """The fitted trees of one model (node arrays of shape ``(n_trees, max_nodes)``)."""

    __slots__ = ("feat", "thr", "mleft", "left", "right", "value", "gain", "n_nodes", "base_margin")


def _check_binary_y(y):
    y = np.asarray(y)
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must hold 0/1 labels")
    return y.astype(np.float64)


class _Run:
    """One model being grown: its trees so far and the state :func:`_boost` resumes from."""

    def __init__(self, Xb, n_bins, y, train_rows=None, *, sample_weight=None, n_estimators=100, learning_rate=0.3,
                 max_depth=6, reg_lambda=1.0, min_child_weight=1.0, gamma=0.0, scale_pos_weight=1.0):
        n, d = Xb.shape
        y = _check_binary_y(y)
        rows = np.arange(n, dtype=np.int64) if train_rows is None else np.asarray(train_rows, dtype=np.int64)
        w = np.where(y == 1, float(scale_pos_weight), 1.0)
        if sample_weight is not None:
            w = w * np.asarray(sample_weight, dtype=np.float64)
        wr = w[rows]
        total = wr.sum()
        if not total > 0:
            raise ValueError("the training rows have no positive weight")
        base = float(np.dot(wr, y[rows]) / total)
        if not 0.0 < base < 1.0:
            raise ValueError("the training rows must hold both classes (with positive weight)")
        if float(scale_pos_weight) == 1.0:
            base_margin = math.log(base / (1.0 - base))
        else:  # one Newton step from 0: sum w (y - 1/2) / (sum w / 4)
            base_margin = 4.0 * (base - 0.5)
        max_depth = int(max_depth)
        max_nodes = min(2 ** (max_depth + 1) - 1, 2 * rows.shape[0] - 1) if max_depth < 40 else 2 * rows.shape[0] - 1
        m = int(n_estimators)
        tr = _Trees()
        tr.feat = np.full((m, max_nodes), -1, dtype=np.int32)
        tr.thr = np.zeros((m, max_nodes), dtype=np.int32)
        tr.mleft = np.zeros((m, max_nodes), dtype=np.bool_)
        tr.left = np.zeros((m, max_nodes), dtype=np.int32)
        tr.right = np.zeros((m, max_nodes), dtype=np.int32)
        tr.value = np.zeros((m, max_nodes), dtype=np.float64)
        tr.gain = np.zeros((m, max_nodes), dtype=np.float64)
        tr.n_nodes = np.zeros(m, dtype=np.int64)
        tr.base_margin = base_margin
        self.trees = tr
        self.done_rounds = 0
        rows = np.sort(rows)
        self._args = (Xb, n_bins, y, w, rows, np.empty_like(rows), np.empty_like(rows), np.full(n, base_margin),
                      np.zeros(n), np.zeros(n), np.zeros((max_depth + 1, d * 256 * 2)))
        self._params = (float(learning_rate), max_depth, float(reg_lambda), float(min_child_weight),
                        max(float(gamma), 1e-6))

    @property
    def finished(self) -> bool:
        return self.done_rounds >= self.trees.n_nodes.shape[0]

    def advance(self, n_rounds=None) -> "_Run":
        """Grow ``n_rounds`` more trees (default: all that are left)."""
        t0 = self.done_rounds
        m = self.trees.n_nodes.shape[0]
        t1 = m if n_rounds is None else min(m, t0 + int(n_rounds))
        tr = self.trees
        _boost(*self._args, t0, t1, *self._params, tr.feat, tr.thr, tr.mleft, tr.left, tr.right, tr.value, tr.gain,
               tr.n_nodes)
        self.done_rounds = t1
        if self.finished:
            self._args = None  # the state is not needed any more
        return self


def hist_boost_fit(Xb, n_bins, y, train_rows=None, *, sample_weight=None, n_estimators=100, learning_rate=0.3,
                   max_depth=6, reg_lambda=1.0, min_child_weight=1.0, gamma=0.0, scale_pos_weight=1.0) -> _Trees:
    """Grow the model on the rows ``train_rows`` (default all) of a binned matrix ``Xb``
    (from :func:`bin_features`) with 0/1 labels ``y`` (all rows). Inputs are assumed
    validated. Returns the trees (see :func:`hist_boost_margin`)."""
    return _Run(Xb, n_bins, y, train_rows, sample_weight=sample_weight, n_estimators=n_estimators,
                learning_rate=learning_rate, max_depth=max_depth, reg_lambda=reg_lambda,
                min_child_weight=min_child_weight, gamma=gamma, scale_pos_weight=scale_pos_weight).advance().trees


#: :func:`hist_boost_fit_many` grows each model in about this many steps of rounds
STEPS_PER_MODEL = 10


def hist_boost_fit_many(Xb, n_bins, y, fits, n_jobs=1, rounds_per_step=None) -> list:
    """Several models on one binned ``Xb`` and labels ``y``: ``fits`` is a list of keyword
    dicts of :func:`hist_boost_fit` (``train_rows``, ``scale_pos_weight``, ...); returns
    their trees, in order, equal bit for bit to one :func:`hist_boost_fit` per model.

    The models run on ``n_jobs`` threads, one model per thread at a time, round robin in
    steps of ``rounds_per_step`` boosting rounds (default: a tenth of a model,
    :data:`STEPS_PER_MODEL`): a model that has done a step goes to the back of the queue.
    So 5 cross-validation models on 2 threads take about 2.5 model times, not 3 (whole
    models per thread leave the fifth alone on one thread)."""
    from collections import deque
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    from pu_lib.distributed import effective_n_jobs

    runs = [_Run(Xb, n_bins, y, **kw) for kw in fits]
    n_threads = max(1, min(effective_n_jobs(n_jobs), len(runs)))
    if n_threads == 1:
        return [r.advance().trees for r in runs]
    if rounds_per_step is None:
        longest = max(r.trees.n_nodes.shape[0] for r in runs)
        rounds_per_step = max(1, -(-longest // STEPS_PER_MODEL))
    queue = deque(i for i, r in enumerate(runs) if not r.finished)
    running: dict = {}
    with ThreadPoolExecutor(n_threads) as ex:
        while queue or running:
            while queue and len(running) < n_threads:
                i = queue.popleft()
                running[ex.submit(runs[i].advance, rounds_per_step)] = i
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                i = running.pop(fut)
                fut.result()
                if not runs[i].finished:
                    queue.append(i)
    return [r.trees for r in runs]


def hist_boost_margin(trees: _Trees, Xb, rows=None) -> np.ndarray:
    """The margins (log-odds) of the rows ``rows`` (default all) of the binned ``Xb``."""
    rows = np.arange(Xb.shape[0], dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
    out = np.empty(rows.shape[0])
    _margin(Xb, rows, trees.base_margin, trees.feat, trees.thr, trees.mleft, trees.left, trees.right, trees.value,
            out)
    return out


def hist_boost_gain_importances(trees: _Trees, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """XGBoost's ``get_score(importance_type="gain")`` of these trees: the features with at
    least one split and their average split gain, sorted by decreasing gain (ties by
    index)."""
    split = trees.feat >= 0
    f = trees.feat[split].astype(np.int64)
    total = np.bincount(f, weights=trees.gain[split], minlength=n_features)
    count = np.bincount(f, minlength=n_features)
    used = np.flatnonzero(count > 0)
    avg = total[used] / count[used]
    order = np.lexsort((used, -avg))
    return used[order], avg[order]


def sigmoid(m):
    return 1.0 / (1.0 + np.exp(-m))


# --------------------------------------------------------------------------- estimator


class HistBoostClassifier(ClassifierMixin, BaseEstimator):
    """Binary gradient-boosted trees on histogram bins (XGBoost's ``hist`` booster with
    ``binary:logistic``; see the module docstring for the model and what differs).

    Parameters
    ----------
    n_estimators, learning_rate, max_depth, reg_lambda, min_child_weight, gamma,
    scale_pos_weight : as XGBoost's parameters of the same names, with XGBoost's
        defaults (100, 0.3, 6, 1, 1, 0, 1).
    max_bin : bins per feature (at most 255; XGBoost's default is 256).
    random_state : accepted and ignored (the model has no randomness).
    n_jobs : accepted for the common interface; one model uses one thread.

    Attributes
    ----------
    classes_, n_features_in_, cuts_ / n_bins_ (the bins), feature_importances_ (total
    gain per feature, normalised to sum 1), base_margin_.
    """

    _parameter_constraints: dict = {
        "n_estimators": [Interval(numbers.Integral, 1, None, closed="left")],
        "learning_rate": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_depth": [Interval(numbers.Integral, 1, 30, closed="both")],
        "reg_lambda": [Interval(numbers.Real, 0, None, closed="left")],
        "min_child_weight": [Interval(numbers.Real, 0, None, closed="left")],
        "gamma": [Interval(numbers.Real, 0, None, closed="left")],
        "max_bin": [Interval(numbers.Integral, 2, 255, closed="both")],
        "scale_pos_weight": [Interval(numbers.Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "n_jobs": [None, numbers.Integral],
    }

    def __init__(self, *, n_estimators=100, learning_rate=0.3, max_depth=6, reg_lambda=1.0, min_child_weight=1.0,
                 gamma=0.0, max_bin=255, scale_pos_weight=1.0, random_state=None, n_jobs=None):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.reg_lambda = reg_lambda
        self.min_child_weight = min_child_weight
        self.gamma = gamma
        self.max_bin = max_bin
        self.scale_pos_weight = scale_pos_weight
        self.random_state = random_state
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.classifier_tags.multi_class = False
        return tags

    def _params(self) -> dict:
        return {k: getattr(self, k) for k in ("n_estimators", "learning_rate", "max_depth", "reg_lambda",
                                              "min_child_weight", "gamma", "scale_pos_weight")}

    def fit(self, X, y, sample_weight=None):
        from sklearn.utils.multiclass import check_classification_targets, type_of_target
        from sklearn.utils.validation import _check_sample_weight, validate_data

        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan")
        check_classification_targets(y)
        if type_of_target(y, input_name="y", raise_unknown=True) != "binary":
            raise ValueError(f"Only binary classification is supported. The type of the target is "
                             f"{type_of_target(y)!r} ({np.unique(y).shape[0]} classes).")
        self.classes_, yi = np.unique(y, return_inverse=True)
        if self.classes_.shape[0] < 2:
            raise ValueError("y holds one class only; a binary classifier needs both")
        if np.isinf(X).any():
            raise ValueError("X contains infinite values")
        sw = None if sample_weight is None else _check_sample_weight(sample_weight, X, dtype=np.float64)
        # cuts from the rows that carry weight (a row of weight 0 is no row at all)
        self.cuts_, self.n_bins_ = bin_cuts(X if sw is None else X[sw > 0], self.max_bin)
        Xb = apply_bins(X, self.cuts_, self.n_bins_)
        self._trees = hist_boost_fit(Xb, self.n_bins_, yi, sample_weight=sw, **self._params())
        self.base_margin_ = self._trees.base_margin
        split = self._trees.feat >= 0
        total = np.bincount(self._trees.feat[split].astype(np.int64), weights=self._trees.gain[split],
                            minlength=X.shape[1])
        self.feature_importances_ = total / total.sum() if total.sum() > 0 else total
        return self

    def decision_function(self, X):
        from sklearn.utils.validation import validate_data

        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=False)
        if np.isinf(X).any():
            raise ValueError("X contains infinite values")
        return hist_boost_margin(self._trees, apply_bins(X, self.cuts_, self.n_bins_))

    def predict_proba(self, X):
        p = sigmoid(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        margin = self.decision_function(X)
        return self.classes_[(margin > 0).astype(np.int64)]
