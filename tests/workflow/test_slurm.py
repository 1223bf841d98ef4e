"""SLURM for real: a one-node SLURM cluster on this machine
(config/profiles/slurm/local_cluster.sh), a tiny experiment run through
``snakemake --executor slurm --profile config/profiles/slurm`` and a dask-jobqueue
``SLURMCluster`` whose workers are a SLURM job, each compared with a local run.

Without SLURM binaries (or not as root, with no local cluster up) the tests skip with the
reason; with ``PU_LIB_REQUIRE_SLURM=1`` (CI) a cluster that cannot start fails them.
"""

import importlib.util
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import LR_METHODS, NONDETERMINISTIC, REPO, SCONTROL_SHIM_ENV, fit_frames, run_snakemake, write_config

pytestmark = [pytest.mark.workflow, pytest.mark.slurm, pytest.mark.slow]

PROFILE = REPO / "config" / "profiles" / "slurm"
SCRIPT = PROFILE / "local_cluster.sh"
PARTITION = "debug"  # local_cluster.sh's partition
REQUIRE = os.environ.get("PU_LIB_REQUIRE_SLURM") == "1"
#: options for a cluster without an accounting database (squeue status, no account), and a
#: first status check after 2 s instead of the plugin's 40 s
LOCAL_SLURM_ARGS = [
    "--profile", PROFILE,
    "--slurm-no-account",
    "--slurm-status-command", "squeue",
    "--slurm-init-seconds-before-status-checks", "2",
    "--slurm-keep-successful-logs",
    "--default-resources", "runtime=10", "mem_mb=1000", f"slurm_partition={PARTITION}",
]

#: two fit jobs (one data set, one label setting, two methods) of two repetitions each
TINY = {
    "seed": 11,
    "cache_dir": ".cache/pu_lib",
    "dask": {"threads": 1, "mem_mb": 1000},
    "methods": dict(LR_METHODS),
    "experiments": {
        "tiny_slurm": {
            "datasets": ["breast_cancer"],
            "settings": [{"mechanism": "scar_c", "c": 0.5}],
            "split": {"test_size": 0.3},
            "methods": ["naive_lr", "elkan_noto_lr"],
            "repetitions": 2,
            "metrics": ["f1", "auc_roc"],
        },
    },
}
N_FITS = 2

#: columns that differ between two runs of the same cell: timings only (no host or date
#: columns are written; the pattern would catch them if they were added)

SBATCH_LINE = re.compile(r"Job \d+ has been submitted with SLURM jobid (\d+) \(log: (\S+)\)\.")


def unavailable(reason: str):
    """Skip with ``reason``, or fail with it when ``PU_LIB_REQUIRE_SLURM=1``."""
    if REQUIRE:
        pytest.fail(f"PU_LIB_REQUIRE_SLURM=1 but {reason}", pytrace=False)
    pytest.skip(reason)


def which(name: str):
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


@pytest.fixture(scope="module", autouse=True)
def _real_scontrol():
    """The real ``scontrol`` for this module: the suite's shim (tests/conftest.py) is
    taken off ``PATH`` while these tests talk to a SLURM cluster."""
    shim = os.environ.get(SCONTROL_SHIM_ENV)
    old_path = os.environ.get("PATH", "")
    if shim:
        os.environ["PATH"] = os.pathsep.join(p for p in old_path.split(os.pathsep) if p != shim)
    try:
        yield
    finally:
        os.environ["PATH"] = old_path


@pytest.fixture(scope="module")
def slurm_cluster():
    """The local one-node cluster: reused when already up, else started (as root) and
    stopped again after the module."""
    missing = [b for b in ("sbatch", "squeue", "sinfo", "slurmctld", "slurmd", "munged") if not which(b)]
    if missing:
        unavailable(f"no SLURM on this machine ({', '.join(missing)} not found; "
                    "apt-get install slurm-wlm munge, then config/profiles/slurm/local_cluster.sh up)")
    for module in ("snakemake_executor_plugin_slurm", "dask_jobqueue"):
        if importlib.util.find_spec(module) is None:
            unavailable(f"{module} is not installed (pip install -e '.[slurm]')")
    status = subprocess.run(["bash", str(SCRIPT), "status"], capture_output=True, text=True)
    if status.returncode == 0:
        yield "reused"
        return
    if os.geteuid() != 0:
        unavailable("the local SLURM cluster is not up and starting it needs root "
                    "(sudo config/profiles/slurm/local_cluster.sh up)")
    up = subprocess.run(["bash", str(SCRIPT), "up"], capture_output=True, text=True, timeout=600)
    if up.returncode != 0:
        subprocess.run(["bash", str(SCRIPT), "down"], capture_output=True, text=True, timeout=120)
        unavailable(f"the local SLURM cluster did not start:\n{up.stdout}{up.stderr}")
    try:
        yield "started"
    finally:
        subprocess.run(["bash", str(SCRIPT), "down"], capture_output=True, text=True, timeout=120)


def assert_same_results(a: Path, b: Path) -> None:
    fa, fb = fit_frames(a), fit_frames(b)
    assert len(fa) == N_FITS and sorted(fa) == sorted(fb)
    for name in fa:
        pd.testing.assert_frame_equal(fa[name], fb[name], obj=name)
    agg = "results/aggregate/tiny_slurm.parquet"
    drop = lambda df: df.drop(columns=[c for c in df.columns if NONDETERMINISTIC.search(c)])  # noqa: E731
    pd.testing.assert_frame_equal(drop(pd.read_parquet(a / agg)), drop(pd.read_parquet(b / agg)))


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The reference: the same config without any executor or external scheduler."""
    wd = tmp_path_factory.mktemp("local")
    write_config(wd, TINY)
    t0 = time.perf_counter()
    run_snakemake(wd, "--cores", "2")
    print(f"\nlocal run (no executor): wall time {time.perf_counter() - t0:.1f} s")
    return wd


def slurm_states(job_ids) -> dict[str, str]:
    """SLURM's state of the jobs (squeue keeps finished jobs for MinJobAge)."""
    out = subprocess.run(["squeue", "-h", "-t", "all", "-j", ",".join(job_ids), "-o", "%i %T"],
                         capture_output=True, text=True, check=True).stdout
    return dict(line.split() for line in out.splitlines() if line.strip())


def test_fit_jobs_go_through_sbatch_and_equal_a_local_run(slurm_cluster, local_run, tmp_path):
    wd = tmp_path / "slurm"
    write_config(wd, TINY)
    t0 = time.perf_counter()
    proc = run_snakemake(wd, *LOCAL_SLURM_ARGS)
    wall = time.perf_counter() - t0
    out = proc.stdout + proc.stderr
    assert "Using profile" in out and str(PROFILE) in out, out
    submitted = SBATCH_LINE.findall(out)
    # Exactly the fit jobs went through sbatch: the label sets, the aggregate and the
    # tables are localrules.
    assert len(submitted) == N_FITS, out
    logs = [Path(log) for _, log in submitted]
    assert all(log.parent.parent.name == "rule_fit_eval" for log in logs), logs
    slurm_logs = sorted((wd / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert sorted(logs) == slurm_logs
    assert {p.stem for p in slurm_logs} == {jid for jid, _ in submitted}
    for log in slurm_logs:  # each SLURM job ran one fit_eval through Snakemake's jobstep
        assert "rule fit_eval:" in log.read_text(), log.read_text()
    job_ids = [jid for jid, _ in submitted]
    assert set(slurm_states(job_ids).values()) == {"COMPLETED"}, slurm_states(job_ids)
    assert_same_results(wd, local_run)
    print(f"\nSLURM run: {N_FITS} fit jobs (SLURM job ids {', '.join(job_ids)}) + local rules, "
          f"wall time {wall:.1f} s")


def test_dask_jobqueue_slurm_cluster_runs_the_workflow(slurm_cluster, local_run, tmp_path):
    """A long-lived Dask cluster on SLURM next to the workflow: one SLURM job holding two
    single-threaded workers; the workflow (local executor) sends its repetitions there
    through ``dask.scheduler_address``."""
    from dask_jobqueue import SLURMCluster
    from distributed import Client

    t0 = time.perf_counter()
    cluster = SLURMCluster(
        queue=PARTITION, account=None, cores=2, processes=2, memory="2GiB", walltime="00:15:00",
        job_name="pu_lib-dask-test", interface="lo",
        scheduler_options={"interface": "lo", "dashboard_address": ":0"},
        log_directory=str(tmp_path / "dask-logs"), local_directory=str(tmp_path / "dask-worker-space"),
        death_timeout=60,
    )
    try:
        cluster.scale(jobs=1)
        with Client(cluster) as client:
            client.wait_for_workers(2, timeout=180)
            job_ids = [job.job_id for job in cluster.workers.values()]  # SLURM job ids
            states = slurm_states(job_ids)
            assert set(states.values()) == {"RUNNING"}, states
            started = time.perf_counter() - t0
            address = cluster.scheduler_address
            cfg = yaml.safe_load(yaml.safe_dump(TINY))
            cfg["dask"]["scheduler_address"] = address
            wd = tmp_path / "jobqueue"
            write_config(wd, cfg)
            t1 = time.perf_counter()
            run_snakemake(wd, "--cores", "2")
            wall = time.perf_counter() - t1
            # The repetitions ran on the SLURM job's workers.
            executed = client.run(lambda dask_worker: dask_worker.state.executed_count)
            assert sum(executed.values()) >= N_FITS * TINY["experiments"]["tiny_slurm"]["repetitions"], executed
            for log in (wd / "logs" / "fit_eval").rglob("*.log"):
                assert address in log.read_text(), log.read_text()
        assert_same_results(wd, local_run)
        print(f"\ndask-jobqueue: SLURM job {', '.join(job_ids)} with 2 workers up in {started:.1f} s, "
              f"workflow run {wall:.1f} s")
    finally:
        cluster.close()
