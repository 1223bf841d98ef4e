"""pu_lib.distributed.scatter_shared: shared data go to the workers once per content."""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from pu_lib.distributed import parallel_map, scatter_shared  # noqa: E402


def _row_sum(X, i):
    return float(X[i].sum())


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as lc:
        with distributed.Client(lc) as c:
            yield c


def test_equal_data_is_scattered_once_and_reused(client):
    X = np.arange(12.0).reshape(4, 3)
    a = scatter_shared(client, (X,))
    b = scatter_shared(client, (X.copy(),))  # equal content, another object
    assert a[0].key == b[0].key
    c = scatter_shared(client, (X + 1,))
    assert c[0].key != a[0].key
    # the kept futures stay usable across maps (the release bug of content-hashed keys)
    first = parallel_map(_row_sum, [(i,) for i in range(4)], client=client, shared=(X,))
    del a, b
    second = parallel_map(_row_sum, [(i,) for i in range(4)], client=client, shared=(X.copy(),))
    assert first == second == [3.0, 12.0, 21.0, 30.0]


def test_a_list_is_one_shared_object(client):
    rows = [1, 2, 3]
    (ref,) = scatter_shared(client, (rows,))
    assert client.submit(len, ref).result() == 3


def test_the_cache_keeps_the_latest_objects_only(client):
    from pu_lib import distributed as d

    for k in range(d.SCATTER_CACHE_SIZE + 3):
        scatter_shared(client, (np.full(5, float(k) + 100.0),))
    assert len(d._SCATTERED["futures"]) == d.SCATTER_CACHE_SIZE


def _is_writeable_array(X, i):
    return bool(isinstance(X, np.ndarray) and X.flags.writeable), float(X[i].sum())


@pytest.fixture(scope="module")
def process_client():
    from pu_lib.distributed import dask_client

    with dask_client(threads=2, mem_mb=2000, processes=True) as c:
        yield c


@pytest.mark.slow
def test_large_arrays_go_through_shared_memory_once_per_machine(process_client, monkeypatch):
    import os

    from pu_lib import distributed as d

    monkeypatch.setattr(d, "SHARED_MEMORY_MIN_BYTES", 1 << 16)
    X = np.asfortranarray(np.random.default_rng(0).normal(size=(4000, 8)))  # 256 kB, column-major
    small = np.arange(10.0)
    (ref, small_ref) = scatter_shared(process_client, (X, small))
    assert isinstance(ref, d.SharedArray) and os.path.exists(ref.path)
    assert not isinstance(small_ref, d.SharedArray)  # below the threshold: scattered
    assert scatter_shared(process_client, (X.copy(order="F"),))[0].path == ref.path  # same content, same file
    out = parallel_map(_is_writeable_array, [(i,) for i in (0, 5, 3999)], client=process_client, shared=(X,))
    # the task sees an ordinary writeable ndarray with the caller's values
    assert out == [(True, float(X[i].sum())) for i in (0, 5, 3999)]
    d.release_shared()
    assert not os.path.exists(ref.path)


def test_shared_memory_files_are_dropped_with_the_cache(process_client, monkeypatch):
    import os

    from pu_lib import distributed as d

    monkeypatch.setattr(d, "SHARED_MEMORY_MIN_BYTES", 1 << 10)
    paths = [scatter_shared(process_client, (np.full(1000, float(k)),))[0].path for k in range(d.SCATTER_CACHE_SIZE + 2)]
    assert [os.path.exists(p) for p in paths] == [False, False] + [True] * d.SCATTER_CACHE_SIZE
    d.release_shared()
    assert not any(os.path.exists(p) for p in paths)


def test_stale_shared_memory_directories_of_dead_processes_are_removed(tmp_path, monkeypatch):
    import os
    import subprocess
    import sys

    from pu_lib import distributed as d

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else __import__("tempfile").gettempdir()
    stale = os.path.join(base, f"pu_lib-shared-{pid}")
    os.makedirs(stale, exist_ok=True)
    open(os.path.join(stale, "x.npy"), "wb").close()
    mine = os.path.join(base, f"pu_lib-shared-{os.getpid()}")
    if os.path.isdir(mine):  # the directory is (re)created, and the sweep runs, on first use
        __import__("shutil").rmtree(mine)
    assert d._shared_dir() == mine and os.path.isdir(mine)
    assert not os.path.exists(stale)


@pytest.mark.slow
def test_forest_with_shared_memory_survives_a_killed_worker(monkeypatch):
    """SIGKILL one of two worker processes while the forest's tasks run on X mapped from
    shared memory: the nanny restarts it, the new process opens the same file, Dask reruns
    the lost tasks, and the forest equals the one fitted on local threads."""
    import os
    import signal
    import threading
    import time

    from pu_lib import distributed as d
    from pu_lib.distributed import dask_client
    from pu_lib.trees import PUExtraTreesClassifier

    monkeypatch.setattr(d, "SHARED_MEMORY_MIN_BYTES", 1 << 20)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30_000, 20)).astype(np.float32)  # 2.4 MB: above the lowered threshold
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    s = (y == 1) & (rng.random(len(y)) < 0.3)

    def forest(use_dask):
        return PUExtraTreesClassifier(n_estimators=120, prior=float(y.mean()), random_state=5, use_dask=use_dask)

    reference = forest(False).fit(X, s).predict_proba(X[:500])
    with dask_client(threads=2, mem_mb=4000, processes=True) as client:
        pids = client.run(os.getpid)
        result = {}

        def run():
            try:
                result["est"] = forest(True).fit(X, s)
            except BaseException as exc:  # shown by the assertion below, not lost in the thread
                result["error"] = exc

        fit = threading.Thread(target=run)
        fit.start()
        deadline = time.monotonic() + 60
        while not any(client.processing().values()):
            assert time.monotonic() < deadline, "no task started"
            time.sleep(0.01)
        victim = next(w for w, tasks in client.processing().items() if tasks)
        assert any(isinstance(r, d.SharedArray) for r in d._SCATTERED["futures"].values())
        os.kill(pids[victim], signal.SIGKILL)
        fit.join(timeout=300)
        assert not fit.is_alive()
        assert pids[victim] not in client.run(os.getpid).values()  # the worker was really replaced
    assert "error" not in result, repr(result.get("error"))
    np.testing.assert_array_equal(result["est"].predict_proba(X[:500]), reference)


def _slow_row_sum(X, i):
    import time

    time.sleep(0.1)
    return float(X[i].sum())


@pytest.mark.slow
def test_a_map_survives_losing_every_copy_of_its_scattered_data():
    """Dask keeps scattered data on one worker however they were broadcast (its Active
    Memory Manager drops the other replicas), and cannot recompute them: killing every
    worker that holds them while a map runs cancels its waiting tasks ("lost
    dependencies"). parallel_map scatters the data again and resubmits the unfinished
    tasks, and returns what an undisturbed run returns."""
    import os
    import signal
    import threading
    import time

    from dask.base import tokenize

    from pu_lib import distributed as d

    X = np.arange(300.0).reshape(60, 5)  # small: scattered, not shared memory
    expected = [float(row.sum()) for row in X]
    with d.dask_client(threads=2, mem_mb=2000, processes=True) as client:
        result = {}

        def run():
            try:
                result["out"] = parallel_map(_slow_row_sum, [(i,) for i in range(len(X))], client=client, shared=(X,))
            except BaseException as exc:  # shown by the assertion below, not lost in the thread
                result["error"] = exc

        job = threading.Thread(target=run)
        job.start()
        deadline = time.monotonic() + 60
        while d._SCATTERED["futures"] is None or tokenize(X) not in d._SCATTERED["futures"]:
            assert time.monotonic() < deadline, "the data were never scattered"
            time.sleep(0.01)
        first = d._SCATTERED["futures"][tokenize(X)]
        while first.status == "finished":  # kill whoever holds a copy until none is left
            assert time.monotonic() < deadline, "the scattered data were never lost"
            holders = client.who_has([first]).get(first.key, ())
            if holders:
                try:
                    for pid in client.run(os.getpid, workers=list(holders)).values():
                        os.kill(pid, signal.SIGKILL)
                except (OSError, distributed.comm.CommClosedError):
                    pass  # a holder already died
            time.sleep(0.05)
        job.join(timeout=120)
        assert not job.is_alive()
        assert "error" not in result, repr(result.get("error"))
        assert result["out"] == expected
        assert d._SCATTERED["futures"][tokenize(X)].key != first.key  # sent again
