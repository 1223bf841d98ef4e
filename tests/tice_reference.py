"""Plain-Python reference implementation of TIcE (thesis ch. 3, Algorithm 1).

Slow on purpose: nodes are dicts holding Python lists of row indices, and every count is
a Python loop over rows. It implements exactly the algorithm and the choices documented
in :mod:`pu_lib.prior.tice` (same heap keys, same tie-breaks, same float expressions),
so the tests can require the compiled implementation (:mod:`pu_lib.prior.tice`) to give *identical* splits and
estimates, and benchmarks can use it as the speed reference.

Input is pre-binned data (:func:`pu_lib.prior.tice.bin_features`) and a fold id per row.
"""

from __future__ import annotations

import heapq
import math


def reference_delta(n_estimation, tr_factor=1.0):
    """eq. 3.6 for ``tr_factor == 1``; otherwise ``1 / (1 + 4 eps^2 T_R)`` with
    ``eps = 0.1`` and ``T_R = tr_factor * min(975, 0.1 T_e)``."""
    if tr_factor == 1.0:
        return max(0.025, 1.0 / (1.0 + 0.004 * float(n_estimation)))
    t_r = tr_factor * min(975.0, 0.1 * float(n_estimation))
    return 1.0 / (1.0 + 4.0 * 0.1 * 0.1 * t_r)


def reference_bound(L, T, c_prior, delta):
    """eq. 3.4: ``L/T - sqrt(c_prior (1 - c_prior) (1 - delta) / (delta T))``."""
    return float(L) / float(T) - math.sqrt(c_prior * (1.0 - c_prior) * (1.0 - delta) / (delta * float(T)))


def _n_labeled(rows, s):
    return sum(s[r] for r in rows)


def reference_fold(bins, s, n_values, tree_rows, est_rows, c_prior, delta, k=5.0, max_splits=500,
                   min_node_size=10, bound_data="estimation"):
    """One fold of one pass (Algorithm 1 lines 6-16). ``bins`` is a list of per-row lists
    of bin values, ``s`` a list of 0/1. ``bound_data``: the rows of a child its ``c_low``
    is computed on, ``"estimation"`` (line 14) or ``"tree"`` (the authors' released
    code). Returns ``(c_best, c_most_promising, n_splits, split_features)``."""
    usable = [a for a in range(len(n_values)) if n_values[a] >= 2]
    T_e = len(est_rows)
    L_e = _n_labeled(est_rows, s)
    c_best = float(L_e) / float(T_e)  # line 6

    def eligible(node):
        T_t = len(node["tree"])
        L_t = node["L_tree"]
        return T_t >= min_node_size and 0 < L_t < T_t and len(node["used"]) < len(usable)

    root = {"tree": list(tree_rows), "est": list(est_rows), "used": frozenset(),
            "L_tree": _n_labeled(tree_rows, s)}
    # the most promising subdomain: best lower bound on tree rows, first visited wins
    most_promising = {"lb": -math.inf, "L_est": L_e, "T_est": T_e}
    if root["tree"]:
        most_promising["lb"] = reference_bound(root["L_tree"], len(root["tree"]), c_prior, delta)

    queue = []
    seq = 0
    if root["tree"] and eligible(root):
        lb = reference_bound(root["L_tree"], len(root["tree"]), c_prior, delta)
        heapq.heappush(queue, (-lb, -root["L_tree"], seq, root))
        seq += 1

    n_splits = 0
    split_features = []
    while n_splits < max_splits and queue:  # line 8
        _, _, _, node = heapq.heappop(queue)  # lines 9-10

        # line 11: max-bepp, on the tree rows, over unused attributes that split them
        best_a = None
        best_score = -1.0
        for a in usable:
            if a in node["used"]:
                continue
            groups = [[] for _ in range(n_values[a])]
            for r in node["tree"]:
                groups[bins[r][a]].append(r)
            if sum(1 for g in groups if g) < 2:
                continue
            score = max((float(_n_labeled(g, s)) / (float(len(g)) + k)) if g else 0.0 for g in groups)
            if score > best_score:
                best_score = score
                best_a = a
        if best_a is None:
            continue
        n_splits += 1
        split_features.append(best_a)

        for v in range(n_values[best_a]):  # lines 12-15
            child = {
                "tree": [r for r in node["tree"] if bins[r][best_a] == v],
                "est": [r for r in node["est"] if bins[r][best_a] == v],
                "used": node["used"] | {best_a},
            }
            child["L_tree"] = _n_labeled(child["tree"], s)
            bound_rows = child["tree"] if bound_data == "tree" else child["est"]
            T_child_b = len(bound_rows)
            L_child_b = _n_labeled(bound_rows, s)
            if T_child_b >= min_node_size:
                c_best = max(c_best, reference_bound(L_child_b, T_child_b, c_prior, delta))
            if child["tree"]:
                lb = reference_bound(child["L_tree"], len(child["tree"]), c_prior, delta)
                if lb > most_promising["lb"]:
                    most_promising = {"lb": lb, "L_est": L_child_b, "T_est": T_child_b}
                if eligible(child):
                    heapq.heappush(queue, (-lb, -child["L_tree"], seq, child))
                    seq += 1

    c_mp = float(L_e) / float(T_e)
    if most_promising["T_est"] >= min_node_size:
        c_mp = max(c_mp, reference_bound(most_promising["L_est"], most_promising["T_est"], c_prior, delta))
    return c_best, c_mp, n_splits, split_features


def tice_reference(bins, s, n_values, folds, k=5.0, max_splits=500, min_node_size=10, delta=None,
                   tr_factor=1.0, variant="max", refine=True, bound_data="estimation"):
    """Algorithm 1 (two passes unless ``refine=False``) on pre-binned data.

    ``bins``: (n, m) array-like of small ints; ``s``: n values 0/1; ``n_values``: values
    per feature; ``folds``: fold id per row (tree data of fold ``f`` = rows with id ``f``,
    estimation data = the others; folds in ascending id order). Returns the same dict
    keys as :func:`pu_lib.prior.tice.run_tice`."""
    bins = [[int(b) for b in row] for row in bins]
    s = [int(v) for v in s]
    n_values = [int(v) for v in n_values]
    folds = [int(f) for f in folds]
    fold_ids = sorted(set(folds))
    rows = []
    for f in fold_ids:
        tree = [i for i, g in enumerate(folds) if g == f]
        est = [i for i, g in enumerate(folds) if g != f]
        rows.append((tree, est))
    if delta is None:
        deltas = [reference_delta(len(est), tr_factor) for _, est in rows]
    else:
        deltas = [float(delta)] * len(rows)

    c_prior = 0.5
    c_passes, split_passes, nsplit_passes = [], [], []
    for _ in range(2 if refine else 1):
        c_folds, feats, nsplits = [], [], []
        for (tree, est), d in zip(rows, deltas):
            c_max, c_mp, n_splits, split_features = reference_fold(
                bins, s, n_values, tree, est, c_prior, d, float(k), max_splits, min_node_size, bound_data)
            c_folds.append(c_mp if variant == "most_promising" else c_max)
            feats.append(split_features)
            nsplits.append(n_splits)
        c_prior = sum(c_folds) / len(c_folds)
        c_passes.append(c_folds)
        split_passes.append(feats)
        nsplit_passes.append(nsplits)
    return {
        "c": c_prior,
        "c_folds": c_passes[-1],
        "n_splits": nsplit_passes[-1],
        "c_first_pass": sum(c_passes[0]) / len(c_passes[0]),
        "c_folds_passes": c_passes,
        "split_features": split_passes,
        "delta_folds": deltas,
        "fold_ids": fold_ids,
    }
