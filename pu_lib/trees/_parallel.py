"""Fitting many trees: local threads (the compiled builder releases the GIL) or, with
``use_dask=True``, the current Dask client, through :func:`pu_lib.distributed.parallel_map`.

Per-tree seeds are drawn up front by the caller, and each tree depends only on its seed
and the data, so the fitted forest is identical for any number of threads or workers.
With Dask, ``X``, the weights and the training rows are scattered once (sent again only
if every worker holding them dies) and the trees are fitted in chunks of seeds, one task
per chunk.
"""

from __future__ import annotations

import numpy as np

from pu_lib.distributed import effective_n_jobs, n_dask_workers, parallel_map, resolve_client
from pu_lib.trees._tree import Tree

#: on Dask, the trees are fitted in this many tasks (chunks of seeds) per worker
TASKS_PER_WORKER = 4


def bootstrap_indices(n: int, seed: int, n_draws: int | None = None) -> np.ndarray:
    """Positions (into ``n`` rows) of a bootstrap sample of ``n_draws`` (default ``n``)
    rows drawn with replacement with the tree's seed."""
    k = n if n_draws is None else int(n_draws)
    return np.random.default_rng([int(seed), 0xB007]).integers(0, n, k).astype(np.int64)


def tree_sample(rows, a, bootstrap, seed: int) -> np.ndarray:
    """The rows one tree is grown on.

    ``bootstrap``: falsy -- ``rows`` as given; ``True`` or ``("standard", k)`` -- ``k``
    draws with replacement from ``rows`` (default ``k = len(rows)``, Breiman's bootstrap);
    ``("stratified", k)`` -- every labeled row (``a > 0``: the rows carrying positive
    weight, i.e. ``s = 1`` for the PU weights) once, plus ``k`` draws with replacement
    from the unlabeled rows (PU-SHRF, Algorithm 2 of the PU-HDT paper: ``K_U``).
    """
    if not bootstrap:
        return rows
    kind, k = ("standard", None) if bootstrap is True else bootstrap
    if kind == "standard":
        return rows[bootstrap_indices(rows.shape[0], seed, k)]
    if kind != "stratified":
        raise ValueError(f"unknown bootstrap {bootstrap!r}")
    labeled = a[rows] > 0
    lab, unl = rows[labeled], rows[~labeled]
    return np.concatenate([lab, unl[bootstrap_indices(unl.shape[0], seed, k)]])


def fit_one(Xf, a, u, rows, params: dict, bootstrap, seed: int) -> Tree:
    """One tree on the training rows ``rows`` of ``Xf`` (a bootstrap sample of them when
    ``bootstrap``: see :func:`tree_sample`)."""
    from pu_lib.trees._builder import build_tree

    samples = tree_sample(rows, a, bootstrap, seed)
    arrays = build_tree(
        Xf, a, u, samples, params["crit"], params["splitter"], params["max_features"], params["n_thresholds"],
        params["max_depth"], params["min_samples_split"], params["min_samples_leaf"], params["threshold_rule"],
        np.uint64(seed), params["draw_rule"],
    )
    return Tree(*arrays)


def _fit_chunk(Xf, a, u, rows, params, bootstrap, seeds):
    return [fit_one(Xf, a, u, rows, params, bootstrap, int(sd)) for sd in seeds]


def fit_trees(Xf, a, u, params: dict, seeds, *, rows=None, n_jobs=None, use_dask=False,
              bootstrap=False) -> list:
    """Fit one tree per seed on the rows ``rows`` of ``Xf`` (default: all rows); returns
    the trees in seed order. ``bootstrap``: see :func:`tree_sample`; ``use_dask``: see
    :func:`pu_lib.distributed.resolve_client`."""
    seeds = [int(sd) for sd in seeds]
    if rows is None:
        rows = np.arange(Xf.shape[0], dtype=np.int64)
    client = resolve_client(use_dask)
    shared = (Xf, a, u, rows)
    if client is not None:
        n_chunks = max(1, min(len(seeds), TASKS_PER_WORKER * n_dask_workers(client)))
        chunks = [c.tolist() for c in np.array_split(np.asarray(seeds, dtype=np.int64), n_chunks) if len(c)]
        done = parallel_map(_fit_chunk, [(params, bootstrap, ch) for ch in chunks], client=client, shared=shared)
        return [t for chunk in done for t in chunk]
    return parallel_map(fit_one, [(params, bootstrap, sd) for sd in seeds], n_jobs=n_jobs, shared=shared)


def pack(trees, values=None) -> dict:
    """Concatenate trees' prediction arrays for :func:`pu_lib.trees._builder.forest_votes`;
    ``values``: per tree, the node values to predict with (default each tree's v*)."""
    if values is None:
        values = [t.value for t in trees]
    offsets = np.zeros(len(trees) + 1, np.int64)
    offsets[1:] = np.cumsum([t.node_count for t in trees])
    if len(trees) == 1:  # one tree: its own arrays, no copy
        t = trees[0]
        return {"offsets": offsets, "left": t.children_left, "right": t.children_right, "feature": t.feature,
                "threshold": t.threshold, "value": values[0]}
    return {
        "offsets": offsets,
        "left": np.concatenate([t.children_left for t in trees]),
        "right": np.concatenate([t.children_right for t in trees]),
        "feature": np.concatenate([t.feature for t in trees]),
        "threshold": np.concatenate([t.threshold for t in trees]),
        "value": np.concatenate(values),
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
