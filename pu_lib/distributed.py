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
Dask is optional (the ``dask`` extra): without it work runs on threads, and asking for a
client (``dask_client``, ``use_dask=True``) raises ``ImportError`` naming the extra.

Estimators and functions run on Dask only when told to: ``use_dask=True``
(:func:`resolve_client`; default False, local threads per ``n_jobs``), never because a
client happens to be active. The workflow passes its client explicitly
(:func:`pu_lib.workflow.experiments.runner.fit_eval`). docs/cluster.md, "Dask by explicit
choice", explains the choice.
"""

from __future__ import annotations

import contextlib
import os
import threading

from pu_lib._optional import require

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
    """The current Dask client (``distributed.default_client()``), or None; also None
    inside a Dask task. Only :func:`resolve_client` calls it, for ``use_dask=True``: no
    estimator or function of pu_lib runs on Dask unless its caller says so."""
    try:
        import distributed
    except ImportError:  # without the dask extra no client can be active
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


def _is_bool(value) -> bool:
    return isinstance(value, bool) or (type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool"))


def resolve_client(use_dask=False):
    """The Dask client for a ``use_dask`` parameter, the package's one switch to Dask
    (docs/cluster.md, "Dask by explicit choice").

    ``False`` (every default) -> None: the work runs on local threads (``n_jobs``), even
    when a Dask client is active. ``True`` -> the current client
    (``distributed.default_client()``, the latest ``distributed.Client`` created);
    ``ValueError`` when there is none. Inside a Dask task ``True`` also gives None: the
    nested work runs on the task's own thread instead of being resubmitted (a task that
    waits on tasks it submitted can hold every worker thread). Anything but a boolean is a
    ``ValueError``."""
    if not _is_bool(use_dask):
        raise ValueError(f"use_dask must be True or False, got {use_dask!r}")
    if not use_dask:
        return None
    require("distributed", purpose="use_dask=True")
    import distributed

    try:
        distributed.get_worker()
        return None  # inside a Dask task: run here
    except ValueError:
        pass
    client = active_dask_client()
    if client is None:
        raise ValueError("use_dask=True but no Dask client is active (create a distributed.Client first)")
    return client


def n_dask_workers(client) -> int:
    """Number of workers of a Dask client (at least 1)."""
    return max(1, len(client.scheduler_info().get("workers", {})))


def parallel_map(fn, arg_tuples, *, n_jobs=None, client=None, shared=(), executor=None):
    """``[fn(*shared, *args) for args in arg_tuples]``, in order, on ``client`` (Dask) when
    given, else on ``n_jobs`` threads (:func:`effective_n_jobs`).

    This is the one Dask-or-threads map of the package. ``shared`` holds large arguments
    common to every call (e.g. ``X``): on Dask they are scattered once (and again, with the
    unfinished tasks resubmitted, if every worker holding them dies: :func:`_map_on_client`).
    Results do not depend on the number of threads or workers as long as ``fn``
    depends only on its arguments (seeds are drawn by the caller, up front). ``executor``:
    a ``concurrent.futures`` executor to run on instead (no pool is created per call).

    The shared data are scattered under fresh keys (``hash=False``: with content-hashed
    keys, the release of a first call's references could delete the data under a second
    call's tasks, ``FutureCancelledError: ... lost dependencies``), and the futures are
    kept (:func:`scatter_shared`): a later call on the same client with equal data (same
    ``dask.base.tokenize``) reuses them instead of sending the data again. Large arrays
    for the worker processes of a LocalCluster go through shared memory instead
    (:class:`SharedArray`): ``fn`` receives them as ordinary, writeable arrays either way.
    """
    arg_tuples = [tuple(a) for a in arg_tuples]
    shared = tuple(shared)
    if client is not None:
        return _map_on_client(client, fn, arg_tuples, shared)
    if executor is not None:  # a caller's thread pool, kept across many small maps (boosting rounds)
        return list(executor.map(lambda args: fn(*shared, *args), arg_tuples))
    n = max(1, min(effective_n_jobs(n_jobs), len(arg_tuples)))
    if n == 1:
        return [fn(*shared, *args) for args in arg_tuples]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(n) as ex:
        return list(ex.map(lambda args: fn(*shared, *args), arg_tuples))


#: how many times :func:`parallel_map` sends lost shared data again before it gives up
LOST_SHARED_RETRIES = 3


def _map_on_client(client, fn, arg_tuples, shared):
    """:func:`parallel_map` on a Dask client, surviving the loss of the shared data.

    Scattered data have no task to recompute them: when the only worker holding them dies
    (``broadcast=True`` does not keep a copy on every worker, because Dask's Active Memory
    Manager drops the extra replicas within seconds), the scheduler cancels every task
    that needs them ("lost dependencies"). Then the data are scattered again
    (:func:`scatter_shared` replaces references that are no longer finished) and the
    unfinished tasks are submitted again with the same arguments, so the results are
    those of an undisturbed run. Any other cancellation or error is raised as it is."""
    import uuid
    from concurrent.futures import CancelledError

    from dask.utils import funcname

    name = funcname(fn)  # the task keys keep fn's name (dashboard, logs)
    futures = [None] * len(arg_tuples)
    attempt = 0
    while True:
        refs = scatter_shared(client, shared) if shared else []
        for i, args in enumerate(arg_tuples):
            if futures[i] is None or futures[i].status != "finished":
                # every task opens SharedArray handles first (_call_opened)
                futures[i] = client.submit(_call_opened, fn, len(refs), *refs, *args, key=f"{name}-{uuid.uuid4().hex}")
        try:
            return client.gather(futures)
        except CancelledError:
            lost = [r for r in refs if not isinstance(r, SharedArray) and r.status != "finished"]
            if not lost or attempt == LOST_SHARED_RETRIES:
                raise
            attempt += 1


#: the shared data of the latest client: (client id, {token: future or SharedArray}), LRU
_SCATTERED: dict = {"client": None, "futures": None}
_SCATTER_LOCK = threading.Lock()
#: how many distinct shared objects stay on the workers for reuse
SCATTER_CACHE_SIZE = 4
#: numeric arrays at least this large go to the worker processes of a LocalCluster through
#: shared memory (:class:`SharedArray`); None: always scatter
SHARED_MEMORY_MIN_BYTES: int | None = 8 << 20


class SharedArray:
    """A handle to an array stored once per machine, in a ``.npy`` file in shared memory
    (``/dev/shm`` when it exists, else the temporary directory), for the worker processes
    of a :class:`distributed.LocalCluster`.

    Why: a scattered array is one private copy per worker process. With several workers
    reading the same large ``X`` (a forest's trees, PULSNAR's folds), the copies compete
    for the shared last-level cache; one mapped copy does not, and takes one share of
    memory instead of one per worker. Measured on MNIST (60,000 x 784 float32, PU Extra
    Trees, 2 worker processes on 2 cores): 50 trees per worker in 4.99-5.06 s from the
    mapped copy against 5.31-5.85 s from scattered copies, and the same 10.3 s for 100
    trees on 1 worker either way (``benchmarks/bench_scaling.py``).

    The handle is what travels (a path and a token); a task opens the file once per process
    (:func:`open_shared`), copy-on-write, so the array it receives is an ordinary writeable
    ndarray whose pages are shared until written (nothing in pu_lib writes them). The file
    lives as long as the handle is in the client's cache (:func:`scatter_shared`): it is
    deleted when dropped from the cache, when the client changes or closes
    (:func:`release_shared`) and at exit; files of a process killed with SIGKILL are removed
    by the next process that shares an array."""

    __slots__ = ("path", "token")

    def __init__(self, path: str, token: str):
        self.path = path
        self.token = token

    def __reduce__(self):
        return (SharedArray, (self.path, self.token))

    def __repr__(self):
        return f"SharedArray({self.path!r})"


#: per process, the arrays opened from SharedArray handles: {path: ndarray}, LRU
_OPENED: dict = {}
_OPENED_LOCK = threading.Lock()


def open_shared(handle: SharedArray):
    """The array behind ``handle``, mapped once per process (copy-on-write)."""
    import numpy as np

    with _OPENED_LOCK:
        arr = _OPENED.pop(handle.path, None)
        if arr is None:
            arr = np.asarray(np.load(handle.path, mmap_mode="c", allow_pickle=False))
        _OPENED[handle.path] = arr
        while len(_OPENED) > SCATTER_CACHE_SIZE:
            _OPENED.pop(next(iter(_OPENED)))
    return arr


def _call_opened(fn, n_shared, *args):
    """``fn(*args)`` with the first ``n_shared`` arguments' SharedArray handles opened."""
    opened = [open_shared(a) if isinstance(a, SharedArray) else a for a in args[:n_shared]]
    return fn(*opened, *args[n_shared:])


def _workers_share_memory(client) -> bool:
    """Whether ``client``'s workers are processes of a LocalCluster (so on this machine,
    and not sharing this process's memory)."""
    try:
        from distributed import LocalCluster, Nanny
    except ImportError:  # pragma: no cover - a client implies distributed
        return False
    cluster = getattr(client, "cluster", None)
    return isinstance(cluster, LocalCluster) and any(isinstance(w, Nanny) for w in cluster.workers.values())


def _shared_dir() -> str:
    """This process's directory for SharedArray files (created on first use; stale
    directories of processes that no longer exist are removed then)."""
    import atexit
    import shutil
    import tempfile

    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
    path = os.path.join(base, f"pu_lib-shared-{os.getpid()}")
    if not os.path.isdir(path):
        for name in os.listdir(base) if os.name == "posix" else ():  # (os.kill(pid, 0) is no probe on Windows)
            if name.startswith("pu_lib-shared-") and name[14:].isdigit() and not _pid_alive(int(name[14:])):
                shutil.rmtree(os.path.join(base, name), ignore_errors=True)
        os.makedirs(path, exist_ok=True)
        atexit.register(shutil.rmtree, path, True)
    return path


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _write_shared(arr, token: str) -> SharedArray | None:
    """``arr`` written to a shared-memory file (atomically), or None if that fails
    (e.g. no room): the caller scatters it instead."""
    import numpy as np

    try:
        path = os.path.join(_shared_dir(), f"{token}.npy")
        tmp = path + ".part"
        with open(tmp, "wb") as fh:
            np.save(fh, arr, allow_pickle=False)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError, UnboundLocalError):
            os.remove(tmp)
        return None
    return SharedArray(path, token)


def _drop(entry) -> None:
    if isinstance(entry, SharedArray):
        with contextlib.suppress(OSError):
            os.remove(entry.path)


def _use_shared_memory(client, obj) -> bool:
    import numpy as np

    return (SHARED_MEMORY_MIN_BYTES is not None and isinstance(obj, np.ndarray) and obj.dtype.kind in "biuf"
            and obj.nbytes >= SHARED_MEMORY_MIN_BYTES and _workers_share_memory(client))


def scatter_shared(client, objects) -> list:
    """References to ``objects`` for tasks on every worker of ``client``, sent once per
    content: an object whose ``dask.base.tokenize`` equals one sent before on this client
    (and still held) reuses that reference, so a forest refitted on the same ``X`` does not
    send ``X`` again. The last :data:`SCATTER_CACHE_SIZE` distinct objects of the latest
    client are kept.

    A reference is a future of the object scattered with ``broadcast=True`` (Dask's Active
    Memory Manager soon keeps one replica only; :func:`parallel_map` survives its loss),
    or, for a numeric array of at least :data:`SHARED_MEMORY_MIN_BYTES` on a LocalCluster
    of worker processes, a :class:`SharedArray` (one copy per machine; :func:`parallel_map`
    opens it in the task). The data are identical either way, so results are too."""
    from collections import OrderedDict

    from dask.base import tokenize

    refs = []
    with _SCATTER_LOCK:
        if _SCATTERED["client"] != client.id:
            for entry in (_SCATTERED["futures"] or {}).values():
                _drop(entry)
            _SCATTERED["client"], _SCATTERED["futures"] = client.id, OrderedDict()
        cache = _SCATTERED["futures"]
        for obj in objects:
            token = tokenize(obj)
            ref = cache.get(token)
            if isinstance(ref, SharedArray) and not os.path.exists(ref.path):
                ref = None
            elif ref is not None and not isinstance(ref, SharedArray) and ref.status != "finished":
                ref = None
            if ref is None:
                ref = _write_shared(obj, token) if _use_shared_memory(client, obj) else None
                if ref is None:
                    ref = client.scatter([obj], broadcast=True, hash=False)[0]
                cache[token] = ref
            cache.move_to_end(token)
            refs.append(ref)
        while len(cache) > max(SCATTER_CACHE_SIZE, len(objects)):
            _drop(cache.popitem(last=False)[1])
    return refs


def release_shared() -> None:
    """Forget the shared data of the latest client (futures released, shared-memory files
    deleted); :func:`dask_client` calls it when its client closes."""
    with _SCATTER_LOCK:
        for entry in (_SCATTERED["futures"] or {}).values():
            _drop(entry)
        _SCATTERED["client"], _SCATTERED["futures"] = None, None


def single_thread_env() -> dict[str, str]:
    """Environment variables that pin native thread pools to one thread."""
    return {k: "1" for k in THREAD_ENV_VARS}


@contextlib.contextmanager
def limit_threads(n: int = 1):
    """Limit BLAS/OpenMP pools of the current process to ``n`` threads (threadpoolctl)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=n):
        yield


def peak_rss_mb() -> float:
    """Peak resident memory (MB, ``ru_maxrss``) of this process."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def worker_peak_rss_mb(client) -> dict[str, float]:
    """Peak resident memory (MB, ``ru_maxrss``) of every worker process of ``client``,
    by worker address; for the logs of workflow jobs and the scaling benchmark."""
    return dict(sorted(client.run(peak_rss_mb).items()))


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
    dask = require("dask", purpose="a Dask client (pu_lib.distributed.dask_client)")
    distributed = require("distributed", purpose="a Dask client (pu_lib.distributed.dask_client)")
    Client, LocalCluster = distributed.Client, distributed.LocalCluster

    if scheduler_address:
        client = Client(scheduler_address)
        try:
            yield client
        finally:
            release_shared()
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
        "distributed.worker.profile.enabled": False,
        # no heartbeat time-to-live for the embedded cluster's workers: after the machine or
        # the job was suspended for longer than the default 5 minutes (a laptop asleep, a
        # SIGSTOP), the scheduler removed them on waking, in-process workers never came back
        # and the job waited forever; a dead worker process is still noticed by its nanny
        "distributed.scheduler.worker-ttl": None,
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
            release_shared()
            client.close()
            cluster.close()
