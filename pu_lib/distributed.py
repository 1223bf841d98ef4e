"""The one place that makes or finds a Dask client.

``dask_client(threads, mem_mb, scheduler_address=None, processes=None)`` is a context
manager. With no scheduler address it starts a :class:`distributed.LocalCluster` of
``threads`` single-threaded workers and splits ``mem_mb`` between them, so a Snakemake
job that was granted ``threads`` cores never runs more than ``threads`` compute threads:
every worker runs with one Dask thread, and BLAS/OpenMP/numba/XGBoost are pinned to one
thread each (environment of spawned workers + :func:`limit_threads` inside tasks). With
an address it connects to that scheduler (e.g. one started on a SLURM allocation) and
leaves it running.

Nothing here is imported by ``import pu_lib``; Dask starts only when a client is asked for.
"""

from __future__ import annotations

import contextlib
import os
import threading

THREAD_ENV_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def effective_n_jobs(n_jobs) -> int:
    """Number of threads for ``n_jobs`` (scikit-learn's convention): None -> 1, a positive
    int as is, -1 -> all cores, -k -> all but k-1; 0, bools and non-integers raise."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int,)) and not hasattr(n_jobs, "__index__"):
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}")
    n_jobs = int(n_jobs)
    if n_jobs == 0:
        raise ValueError("n_jobs must be None or a non-zero integer, got 0")
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return n_jobs


def active_dask_client():
    """The active Dask client, or None; also None inside a Dask task (nested work then
    runs on the task's own thread instead of being resubmitted)."""
    try:
        import distributed
    except ImportError:  # pragma: no cover - distributed is a dependency
        return None
    try:
        distributed.get_worker()
        return None
    except ValueError:
        pass
    try:
        return distributed.default_client()
    except ValueError:
        return None


def resolve_client(use_dask="auto"):
    """The Dask client to use for an estimator's ``use_dask`` parameter: ``"auto"`` -> the
    active client or None, ``True`` -> the active client (``ValueError`` when there is
    none), ``False`` -> None."""
    if use_dask is False:
        return None
    if use_dask not in ("auto", True):
        raise ValueError(f"use_dask must be 'auto', True or False, got {use_dask!r}")
    client = active_dask_client()
    if use_dask is True and client is None:
        raise ValueError("use_dask=True but no Dask client is active (create a distributed.Client first)")
    return client


def n_dask_workers(client) -> int:
    """Number of workers of a Dask client (at least 1)."""
    return max(1, len(client.scheduler_info().get("workers", {})))


def parallel_map(fn, arg_tuples, *, n_jobs=None, client=None, shared=(), executor=None):
    """``[fn(*shared, *args) for args in arg_tuples]``, in order, on ``client`` (Dask) when
    given, else on ``n_jobs`` threads (:func:`effective_n_jobs`).

    This is the one Dask-or-threads map of the package. ``shared`` holds large arguments
    common to every call (e.g. ``X``): on Dask they are scattered once, broadcast to all
    workers. Results do not depend on the number of threads or workers as long as ``fn``
    depends only on its arguments (seeds are drawn by the caller, up front). ``executor``:
    a ``concurrent.futures`` executor to run on instead (no pool is created per call).

    The shared data are scattered under fresh keys (``hash=False``: with content-hashed
    keys, the release of a first call's references could delete the data under a second
    call's tasks, ``FutureCancelledError: ... lost dependencies``), and the futures are
    kept (:func:`scatter_shared`): a later call on the same client with equal data (same
    ``dask.base.tokenize``) reuses them instead of sending the data again.
    """
    arg_tuples = [tuple(a) for a in arg_tuples]
    shared = tuple(shared)
    if client is not None:
        refs = scatter_shared(client, shared) if shared else []
        futures = [client.submit(fn, *refs, *args, pure=False) for args in arg_tuples]
        return client.gather(futures)
    if executor is not None:  # a caller's thread pool, kept across many small maps (boosting rounds)
        return list(executor.map(lambda args: fn(*shared, *args), arg_tuples))
    n = max(1, min(effective_n_jobs(n_jobs), len(arg_tuples)))
    if n == 1:
        return [fn(*shared, *args) for args in arg_tuples]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(n) as ex:
        return list(ex.map(lambda args: fn(*shared, *args), arg_tuples))


#: the scattered shared data of the latest client: (client id, {token: future}), LRU order
_SCATTERED: dict = {"client": None, "futures": None}
_SCATTER_LOCK = threading.Lock()
#: how many distinct shared objects stay on the workers for reuse
SCATTER_CACHE_SIZE = 4


def scatter_shared(client, objects) -> list:
    """Futures of ``objects`` broadcast to every worker of ``client``, scattered once per
    content: an object whose ``dask.base.tokenize`` equals one scattered before on this
    client (and still held by the cluster) reuses that future, so a forest refitted on the
    same ``X`` does not send ``X`` again. The last :data:`SCATTER_CACHE_SIZE` distinct
    objects of the latest client are kept (their data stay on the workers until they are
    dropped from this cache or the client closes)."""
    from collections import OrderedDict

    from dask.base import tokenize

    refs = []
    with _SCATTER_LOCK:
        if _SCATTERED["client"] != client.id:
            _SCATTERED["client"], _SCATTERED["futures"] = client.id, OrderedDict()
        cache = _SCATTERED["futures"]
        for obj in objects:
            token = tokenize(obj)
            fut = cache.get(token)
            if fut is None or fut.status != "finished":
                fut = client.scatter([obj], broadcast=True, hash=False)[0]
                cache[token] = fut
            cache.move_to_end(token)
            refs.append(fut)
        while len(cache) > max(SCATTER_CACHE_SIZE, len(objects)):
            cache.popitem(last=False)
    return refs


def single_thread_env() -> dict[str, str]:
    """Environment variables that pin native thread pools to one thread."""
    return {k: "1" for k in THREAD_ENV_VARS}


@contextlib.contextmanager
def limit_threads(n: int = 1):
    """Limit BLAS/OpenMP pools of the current process to ``n`` threads (threadpoolctl)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=n):
        yield


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def worker_peak_rss_mb(client) -> dict[str, float]:
    """Peak resident memory (MB, ``ru_maxrss``) of every worker process of ``client``,
    by worker address; for the logs of workflow jobs and the scaling benchmark."""
    return dict(sorted(client.run(_peak_rss_mb).items()))


def exit_with_parent(poll_seconds: float = 1.0, exit_code: int = 70):
    """Tie this process to its parent's lifetime: a daemon thread polls the parent's pid
    and ends the process (``os._exit(exit_code)``) once the parent has died (the process
    was re-parented). Returns the thread, or None when the process has no parent to watch
    (already orphaned).

    Workflow jobs call this before they start Dask: when Snakemake is killed with SIGKILL,
    its job processes are not signalled and would run to the end; with this they stop
    within ``poll_seconds``, and the workers of their LocalCluster, which watch their own
    parent (distributed's nanny), stop with them. Nothing half-written remains because
    outputs are only renamed into place at the end (:func:`pu_lib._io.write_parquet_atomic`).
    """
    import threading
    import time

    parent = os.getppid()
    if parent <= 1:
        return None

    def watch():
        while True:
            time.sleep(poll_seconds)
            if os.getppid() != parent:
                os._exit(exit_code)

    thread = threading.Thread(target=watch, name="pu_lib-exit-with-parent", daemon=True)
    thread.start()
    return thread


@contextlib.contextmanager
def dask_client(threads: int = 1, mem_mb: int | None = None, scheduler_address: str | None = None,
                processes: bool | None = None):
    """Yield a ``distributed.Client`` (see module docstring)."""
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    import dask
    from distributed import Client, LocalCluster

    if scheduler_address:
        client = Client(scheduler_address)
        try:
            yield client
        finally:
            client.close()
        return

    if processes is None:
        processes = threads > 1
    memory_limit = f"{int(mem_mb // threads)}MiB" if mem_mb else "auto"
    env = single_thread_env()
    with dask.config.set({
        "distributed.nanny.pre-spawn-environ": env,
        "distributed.worker.daemon": False,
        "distributed.admin.system-monitor.gil.enabled": False,
    }):
        cluster = LocalCluster(
            n_workers=threads,
            threads_per_worker=1,
            processes=processes,
            memory_limit=memory_limit,
            dashboard_address=None,
            silence_logs=40,
        )
        client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
            cluster.close()
