"""Fitting many trees: local threads (the compiled builder releases the GIL) or a Dask
cluster when a client is active.

Per-tree seeds are drawn up front by the caller, and each tree depends only on its seed
and the data, so the fitted forest is identical for any number of threads or workers.
With Dask, ``X`` and the weights are scattered once (broadcast to every worker) and the
trees are fitted in chunks, one task per chunk.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from pu_lib.distributed import active_dask_client, effective_n_jobs
from pu_lib.trees._tree import Tree




def bootstrap_indices(n: int, seed: int) -> np.ndarray:
    """Rows of a bootstrap sample of size n drawn with the tree's seed."""
    return np.random.default_rng([int(seed), 0xB007]).integers(0, n, n).astype(np.int64)


def fit_one(Xf, a, u, params: dict, seed: int, bootstrap: bool) -> Tree:
    from pu_lib.trees._builder import build_tree

    n = Xf.shape[0]
    samples = bootstrap_indices(n, seed) if bootstrap else np.arange(n, dtype=np.int64)
    arrays = build_tree(
        Xf, a, u, samples, params["crit"], params["splitter"], params["max_features"], params["n_thresholds"],
        params["max_depth"], params["min_samples_split"], params["min_samples_leaf"], params["threshold_rule"],
        np.uint64(seed), params.get("draw_rule", 0),
    )
    return Tree(*arrays)


def _fit_chunk(Xf, a, u, params, seeds, bootstrap):
    return [fit_one(Xf, a, u, params, int(sd), bootstrap) for sd in seeds]


def fit_trees(Xf, a, u, params: dict, seeds, *, n_jobs=None, use_dask="auto", bootstrap: bool = False) -> list:
    """Fit one tree per seed; returns the trees in seed order."""
    seeds = [int(sd) for sd in seeds]
    client = None
    if use_dask in ("auto", True):
        client = active_dask_client()
        if use_dask is True and client is None:
            raise ValueError("use_dask=True but no Dask client is active (create a distributed.Client first)")
    elif use_dask is not False:
        raise ValueError(f"use_dask must be 'auto', True or False, got {use_dask!r}")
    if client is not None:
        n_workers = max(1, len(client.scheduler_info().get("workers", {})))
        n_chunks = max(1, min(len(seeds), 4 * n_workers))
        chunks = [c.tolist() for c in np.array_split(np.asarray(seeds, dtype=np.int64), n_chunks) if len(c)]
        Xr, ar, ur = client.scatter([Xf, a, u], broadcast=True)
        futures = [client.submit(_fit_chunk, Xr, ar, ur, params, ch, bootstrap, pure=False) for ch in chunks]
        return [t for chunk in client.gather(futures) for t in chunk]
    n_threads = min(effective_n_jobs(n_jobs), len(seeds))
    if n_threads <= 1:
        return [fit_one(Xf, a, u, params, sd, bootstrap) for sd in seeds]
    with ThreadPoolExecutor(n_threads) as ex:
        return list(ex.map(lambda sd: fit_one(Xf, a, u, params, sd, bootstrap), seeds))


def pack(trees) -> dict:
    """Concatenate trees' prediction arrays for :func:`pu_lib.trees._builder.forest_votes`."""
    offsets = np.zeros(len(trees) + 1, np.int64)
    offsets[1:] = np.cumsum([t.node_count for t in trees])
    return {
        "offsets": offsets,
        "left": np.concatenate([t.children_left for t in trees]),
        "right": np.concatenate([t.children_right for t in trees]),
        "feature": np.concatenate([t.feature for t in trees]),
        "threshold": np.concatenate([t.threshold for t in trees]),
        "value": np.concatenate([t.value for t in trees]),
    }


def forest_predict(packed: dict, X, n_jobs=None):
    """(votes for +1, sum of clipped v*) per row, computed in row chunks on threads."""
    from pu_lib.trees._builder import forest_votes

    def run(chunk):
        return forest_votes(chunk, packed["offsets"], packed["left"], packed["right"], packed["feature"],
                            packed["threshold"], packed["value"])

    n = X.shape[0]
    n_threads = min(effective_n_jobs(n_jobs), max(1, n // 1000))
    if n_threads <= 1:
        return run(X)
    bounds = np.linspace(0, n, n_threads + 1).astype(int)
    with ThreadPoolExecutor(n_threads) as ex:
        parts = list(ex.map(run, [X[bounds[i]:bounds[i + 1]] for i in range(n_threads)]))
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
