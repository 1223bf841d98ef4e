"""Fitting many trees: local threads (the compiled builder releases the GIL) or a Dask
cluster when a client is active, through :func:`pu_lib.distributed.parallel_map`.

Per-tree seeds are drawn up front by the caller, and each tree depends only on its seed
and the data, so the fitted forest is identical for any number of threads or workers.
With Dask, ``X``, the weights and the training rows are scattered once (broadcast to
every worker) and the trees are fitted in chunks of seeds, one task per chunk.
"""

from __future__ import annotations

import numpy as np

from pu_lib.distributed import effective_n_jobs, n_dask_workers, parallel_map, resolve_client
from pu_lib.trees._tree import Tree


def bootstrap_indices(n: int, seed: int) -> np.ndarray:
    """Positions (into the training rows) of a bootstrap sample of size n drawn with the
    tree's seed."""
    return np.random.default_rng([int(seed), 0xB007]).integers(0, n, n).astype(np.int64)


def fit_one(Xf, a, u, rows, params: dict, bootstrap: bool, seed: int) -> Tree:
    """One tree on the training rows ``rows`` of ``Xf`` (a bootstrap sample of them when
    ``bootstrap``)."""
    from pu_lib.trees._builder import build_tree

    samples = rows[bootstrap_indices(rows.shape[0], seed)] if bootstrap else rows
    arrays = build_tree(
        Xf, a, u, samples, params["crit"], params["splitter"], params["max_features"], params["n_thresholds"],
        params["max_depth"], params["min_samples_split"], params["min_samples_leaf"], params["threshold_rule"],
        np.uint64(seed), params["draw_rule"],
    )
    return Tree(*arrays)


def _fit_chunk(Xf, a, u, rows, params, bootstrap, seeds):
    return [fit_one(Xf, a, u, rows, params, bootstrap, int(sd)) for sd in seeds]


def fit_trees(Xf, a, u, params: dict, seeds, *, rows=None, n_jobs=None, use_dask="auto",
              bootstrap: bool = False) -> list:
    """Fit one tree per seed on the rows ``rows`` of ``Xf`` (default: all rows); returns
    the trees in seed order. ``use_dask``: see :func:`pu_lib.distributed.resolve_client`."""
    seeds = [int(sd) for sd in seeds]
    if rows is None:
        rows = np.arange(Xf.shape[0], dtype=np.int64)
    client = resolve_client(use_dask)
    shared = (Xf, a, u, rows)
    if client is not None:
        n_chunks = max(1, min(len(seeds), 4 * n_dask_workers(client)))
        chunks = [c.tolist() for c in np.array_split(np.asarray(seeds, dtype=np.int64), n_chunks) if len(c)]
        done = parallel_map(_fit_chunk, [(params, bootstrap, ch) for ch in chunks], client=client, shared=shared)
        return [t for chunk in done for t in chunk]
    return parallel_map(fit_one, [(params, bootstrap, sd) for sd in seeds], n_jobs=n_jobs, shared=shared)


def pack(trees) -> dict:
    """Concatenate trees' prediction arrays for :func:`pu_lib.trees._builder.forest_votes`."""
    offsets = np.zeros(len(trees) + 1, np.int64)
    offsets[1:] = np.cumsum([t.node_count for t in trees])
    if len(trees) == 1:  # one tree: its own arrays, no copy
        t = trees[0]
        return {"offsets": offsets, "left": t.children_left, "right": t.children_right, "feature": t.feature,
                "threshold": t.threshold, "value": t.value}
    return {
        "offsets": offsets,
        "left": np.concatenate([t.children_left for t in trees]),
        "right": np.concatenate([t.children_right for t in trees]),
        "feature": np.concatenate([t.feature for t in trees]),
        "threshold": np.concatenate([t.threshold for t in trees]),
        "value": np.concatenate([t.value for t in trees]),
    }


def _votes_chunk(packed, X):
    from pu_lib.trees._builder import forest_votes

    return forest_votes(X, packed["offsets"], packed["left"], packed["right"], packed["feature"],
                        packed["threshold"], packed["value"])


def forest_predict(packed: dict, X, n_jobs=None):
    """(votes for +1, sum of clipped v*) per row, computed in row chunks on threads."""
    n = X.shape[0]
    n_threads = min(effective_n_jobs(n_jobs), max(1, n // 1000))
    bounds = np.linspace(0, n, n_threads + 1).astype(int)
    parts = parallel_map(_votes_chunk, [(X[bounds[i]:bounds[i + 1]],) for i in range(n_threads)],
                         n_jobs=n_threads, shared=(packed,))
    if len(parts) == 1:
        return parts[0]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
