"""Dask beyond one process: the workflow against a real scheduler and workers
started as separate processes with the ``dask scheduler`` / ``dask worker`` command line,
a worker killed with SIGKILL in the middle of a repetition set, and a Snakemake process
killed with SIGKILL in the middle of a fit job.

Everything runs for real: real processes, real signals, the real workflow.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO, fit_frames, run_snakemake, write_config

pytestmark = [pytest.mark.workflow, pytest.mark.slow]

DASK = Path(sys.executable).parent / "dask"

CFG = {
    "seed": 5,
    "cache_dir": ".cache/pu_lib",
    "dask": {"threads": 2, "mem_mb": 2000},
    "methods": {
        # a forest whose repetitions take about a second each on one core, so that a worker
        # can be killed while it holds one (the test polls every 0.05 s)
        "pu_et": {"method": "pu_extra_trees", "params": {"n_estimators": 100, "prior": True}},
        "naive_lr": {"method": "naive", "base": "logistic_regression"},
    },
    "experiments": {
        "procs": {
            "datasets": ["digits"],
            "settings": [{"mechanism": "scar_c", "c": 0.3}],
            "split": {"test_size": 0.3},
            "methods": ["pu_et", "naive_lr"],
            "repetitions": 4,  # two per worker
            "metrics": ["f1", "auc_roc"],
            "report": {"groupings": []},
        },
    },
}


def fits(workdir: Path) -> pd.DataFrame:
    """All fit rows of a run (conftest's :func:`fit_frames`), sorted by method and repetition."""
    frames = fit_frames(workdir)
    assert frames, f"no fit results in {workdir}"
    return pd.concat(frames.values(), ignore_index=True).sort_values(
        ["method", "rep"], kind="stable").reset_index(drop=True)


def worker_env() -> dict:
    """The test's environment for the worker processes: pu_lib from the installed package,
    native thread pools pinned to one thread (:func:`pu_lib.distributed.single_thread_env`)."""
    from pu_lib.distributed import single_thread_env

    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.update(single_thread_env())
    return env


class DaskProcesses:
    """A scheduler and workers started with the ``dask`` command line, each its own
    process; :meth:`close` terminates them all."""

    def __init__(self, tmp_path: Path, n_workers: int = 2, nanny: bool = True):
        self.file = tmp_path / "scheduler.json"
        self.procs = []
        self.logs = tmp_path
        self._start([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                     "--scheduler-file", str(self.file)], "scheduler")
        deadline = time.monotonic() + 60
        while not self.file.exists():
            if time.monotonic() > deadline:
                self.close()
                raise AssertionError("dask scheduler did not write its scheduler file:\n" + self.log("scheduler"))
            time.sleep(0.2)
        self.workers = []
        for i in range(n_workers):
            cmd = [str(DASK), "worker", "--scheduler-file", str(self.file), "--nthreads", "1", "--nworkers", "1",
                   "--memory-limit", "2GB", "--no-dashboard", "--name", f"w{i}"]
            if not nanny:
                cmd.append("--no-nanny")
            self.workers.append(self._start(cmd, f"worker{i}"))
        from distributed import Client

        self.client = Client(scheduler_file=str(self.file), timeout="60s")
        self.client.wait_for_workers(n_workers, timeout=120)
        self.address = self.client.scheduler.address

    def _start(self, cmd, name):
        log = open(self.logs / f"{name}.log", "w")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=worker_env())
        self.procs.append((proc, log))
        return proc

    def log(self, name) -> str:
        return (self.logs / f"{name}.log").read_text()

    def close(self):
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
        for proc, _ in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
        for proc, log in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The reference: the same config with a LocalCluster per job."""
    wd = tmp_path_factory.mktemp("local")
    write_config(wd, CFG)
    run_snakemake(wd, "--cores", "2")
    return fits(wd)


def with_scheduler(address: str) -> dict:
    cfg = yaml.safe_load(yaml.safe_dump(CFG))
    cfg["dask"]["scheduler_address"] = address
    return cfg


def test_scheduler_and_two_worker_processes_give_the_local_results(tmp_path, local_run):
    logs = tmp_path / "dask-logs"
    logs.mkdir()
    cluster = DaskProcesses(logs)
    try:
        wd = tmp_path / "wd"
        write_config(wd, with_scheduler(cluster.address))
        run_snakemake(wd, "--cores", "2")
        # both worker processes ran repetitions (the scheduler spread the tasks over them)
        counts = cluster.client.run(lambda dask_worker: dask_worker.state.executed_count)
        assert len(counts) == 2 and all(n > 0 for n in counts.values()), counts
        # every fit job used the external scheduler, not a LocalCluster of its own
        for log in (wd / "logs" / "fit_eval").rglob("*.log"):
            text = log.read_text()
            assert cluster.address in text, text
            assert "4/4 repetitions done" in text, text  # progress lines in the job's log
    finally:
        cluster.close()
    pd.testing.assert_frame_equal(fits(wd), local_run)


def test_killed_worker_mid_repetitions_gives_identical_results(tmp_path, local_run):
    """SIGKILL one of two workers (no nanny, so it stays dead) while it runs a repetition:
    the scheduler re-runs that repetition on the other worker (a task whose worker dies is
    retried up to ``distributed.scheduler.allowed-failures`` times, 3 by default) and the
    job's results equal the local run's."""
    logs = tmp_path / "dask-logs"
    logs.mkdir()
    cluster = DaskProcesses(logs, nanny=False)
    wd = tmp_path / "wd"
    write_config(wd, with_scheduler(cluster.address))
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    snake = subprocess.Popen([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(wd),
                              "--cores", "1"], cwd=wd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
    try:
        pids = cluster.client.run(os.getpid)  # worker address -> process id
        victim = None
        deadline = time.monotonic() + 300
        while victim is None and time.monotonic() < deadline and snake.poll() is None:
            executing = cluster.client.run(
                lambda dask_worker: [str(k) for k, ts in dask_worker.state.tasks.items() if ts.state == "executing"])
            for addr, keys in executing.items():
                if any(k.startswith("run_repetition") for k in keys):
                    victim = (addr, pids[addr], keys)
                    break
            time.sleep(0.05)
        assert victim is not None, "no repetition was seen running on a worker"
        addr, pid, keys = victim
        os.kill(pid, signal.SIGKILL)
        out, _ = snake.communicate(timeout=600)
    finally:
        if snake.poll() is None:
            snake.kill()
        cluster.close()
    assert snake.returncode == 0, out
    # the worker died holding a running repetition; the scheduler removed it and the
    # repetition was run again elsewhere
    assert any(p.pid == pid and p.returncode == -signal.SIGKILL for p, _ in cluster.procs)
    assert f"Remove worker addr: {addr}" in cluster.log("scheduler")
    pd.testing.assert_frame_equal(fits(wd), local_run)


def _descendants(pid: int) -> set[int]:
    out = subprocess.run(["ps", "-eo", "pid=,ppid="], capture_output=True, text=True).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        p, pp = map(int, line.split())
        children.setdefault(pp, []).append(p)
    found, todo = set(), [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in found:
                found.add(c)
                todo.append(c)
    return found


def _cmdline(pid: int) -> str:
    """The command line of a process, or "" when it has exited meanwhile (the process tree
    changes while it is read: a process seen by ``ps`` can be gone a moment later)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:  # FileNotFoundError, ProcessLookupError
        return ""


def _alive(pids) -> set[int]:
    alive = set()
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as fh:
                if fh.read().split(")")[-1].split()[0] != "Z":
                    alive.add(p)
        except OSError:  # exited meanwhile (FileNotFoundError, ProcessLookupError)
            pass
    return alive


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc to follow the process tree")
def test_sigkilled_snakemake_leaves_no_dask_process_and_the_next_run_resumes(tmp_path, local_run):
    wd = tmp_path / "wd"
    write_config(wd, CFG)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    snake = subprocess.Popen([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(wd),
                              "--cores", "2"], cwd=wd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # wait until a fit_eval job runs with its LocalCluster workers (job + >= 2 children)
        deadline = time.monotonic() + 300
        tree: set[int] = set()
        while time.monotonic() < deadline and snake.poll() is None:
            tree = _descendants(snake.pid)
            jobs = [p for p in tree if "fit_eval" in _cmdline(p)]
            if jobs and len(_descendants(jobs[0])) >= 2:
                time.sleep(1.0)
                tree = _descendants(snake.pid)
                break
            time.sleep(0.1)
        assert snake.poll() is None, "the workflow finished before a fit job could be caught"
        assert tree, "no child process of snakemake was seen"
        os.kill(snake.pid, signal.SIGKILL)
        snake.wait()
        deadline = time.monotonic() + 60
        while _alive(tree) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = _alive(tree)
        assert not left, {p: _cmdline(p) for p in left}
    finally:
        if snake.poll() is None:
            snake.kill()
    # nothing half-written: every fit file present is a complete one
    for f in (wd / "results" / "fits").rglob("*.parquet"):
        pd.read_parquet(f)
    # resume with the documented commands: unlock (the killed run left its lock) and rerun
    run_snakemake(wd, "--unlock")
    run_snakemake(wd, "--cores", "2", "--rerun-incomplete")
    pd.testing.assert_frame_equal(fits(wd), local_run)
    names = {p.name for p in (wd / "results" / "fits").rglob("*.parquet")}
    assert {"pu_et.parquet", "naive_lr.parquet"} <= names


SUSPEND_PROBE = """
import time
from pu_lib.distributed import dask_client, parallel_map
def slow(i):
    time.sleep(0.5)
    return i
if __name__ == "__main__":  # worker processes import this module again
    with dask_client(threads=2, processes={processes}) as c:
        print("ready", flush=True)
        r = parallel_map(slow, [(i,) for i in range(16)], client=c)
    print("done", sum(r), flush=True)
"""


@pytest.mark.parametrize("processes", [False, True])
def test_a_suspended_job_finishes_after_it_is_resumed(tmp_path, processes):
    """A job suspended (SIGSTOP: a laptop asleep, a paused job) for longer than the
    scheduler's worker time-to-live, then resumed, finishes. Here the time-to-live is 2 s
    (through the environment) and the stop lasts 5 s, well past it; the 16 tasks of 0.5 s
    on two threads (4 s) are stopped 1 s in, so that work is left on both sides of the stop. Before the embedded cluster switched
    the time-to-live off, the scheduler removed its in-process workers on waking and the
    job waited forever (a 40-seed PULSNAR run hung this way; worker processes came back
    through their nannies)."""
    script = tmp_path / "probe.py"
    script.write_text(SUSPEND_PROBE.format(processes=processes))
    env = dict(os.environ, DASK_DISTRIBUTED__SCHEDULER__WORKER_TTL="2s")
    proc = subprocess.Popen([sys.executable, str(script)], cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        # stop it once its workers are registered and the 4 s of tasks have started
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(1.0)
        assert proc.poll() is None, "the probe finished before it could be suspended"
        os.kill(proc.pid, signal.SIGSTOP)
        time.sleep(5.0)
        os.kill(proc.pid, signal.SIGCONT)
        out, _ = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "done 120" in out, out
