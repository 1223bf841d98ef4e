"""``pu-lib`` as a process: what its start imports, and how ``pu-lib run`` manages its
Snakemake child (signals passed on to the child's process group, the exit status, the lock
and incomplete outputs a killed run leaves).

The Snakemake tests run a Snakefile of their own in ``tmp_path`` (``--snakefile``): two
jobs that sleep, so that a run can be stopped in the middle of a job; the signal and lock
handling is the same for the workflow's Snakefile. Each costs one or two starts of
Snakemake (several seconds each on a loaded 2-core machine), hence ``slow``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from pu_lib.workflow import cli


# ----------------------------------------------------------------------------- start-up
@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["run", "--help"]])
def test_start_imports_no_scikit_learn(argv):
    """The help and the version need neither scikit-learn nor SciPy, numba or pandas (their
    imports took seconds at every start): a property of the imports, not a timing."""
    code = (f"import sys\nfrom pu_lib.workflow import cli\ntry:\n    cli.main({argv!r})\nexcept SystemExit:\n    pass\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'sklearn', 'scipy', 'numba', 'pandas'}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"


# ----------------------------------------------------------------------------- exit status, locks
def test_exit_status_follows_the_shell_conventions():
    def status(code):
        return cli.run_snakemake([sys.executable, "-c", code])

    assert status("pass") == 0
    assert status("import sys; sys.exit(3)") == 3
    # a child killed by a signal: 128 + its number, not a negative number modulo 256 (247)
    assert status("import os, signal; os.kill(os.getpid(), signal.SIGKILL)") == 128 + signal.SIGKILL


def _fake_snakemake(cwd):
    """A process that looks like a running Snakemake in ``cwd`` (its argv[0] is snakemake)."""
    psutil = pytest.importorskip("psutil")
    proc = subprocess.Popen(["bash", "-c", "exec -a snakemake sleep 60"], cwd=cwd)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if psutil.Process(proc.pid).cmdline()[:1] == ["snakemake"]:
                return proc
        except psutil.Error:
            pass
        time.sleep(0.02)
    proc.kill()
    raise AssertionError("the stand-in process did not start")


def test_a_stale_lock_is_removed_and_a_live_run_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli._Messages, "quiet", False)
    snake = tmp_path / ".snakemake"
    (snake / "locks").mkdir(parents=True)
    (snake / "locks" / "0.output.lock").write_text("out/0.txt\n")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (snake / cli.RUN_STATE_FILE).write_text(json.dumps({"pid": dead.pid, "command": "snakemake"}))

    live = _fake_snakemake(tmp_path)
    try:  # a live Snakemake in the directory and a lock: a run stops, naming it; a dry run goes on
        with pytest.raises(cli.UserError, match=rf"pid {live.pid} is running .*kill {live.pid}"):
            cli._check_previous_run(tmp_path, takes_lock=True)
        assert cli._check_previous_run(tmp_path, takes_lock=False) is False  # no --rerun-incomplete
        assert (snake / "locks" / "0.output.lock").exists()
    finally:
        live.kill()
        live.wait()

    # no Snakemake there any more: the lock is stale, removed, and the run says so
    assert cli._check_previous_run(tmp_path, takes_lock=True) is True
    assert not list((snake / "locks").iterdir()) and not (snake / cli.RUN_STATE_FILE).exists()
    err = capsys.readouterr().err
    assert f"a previous run ended without cleaning up (pid {dead.pid} no longer runs): unlocked" in err


def test_run_passes_rerun_incomplete_and_finds_snakemakes_directory(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("{}\n")
    cmd = cli.snakemake_command(str(cfg), ["mine"], rerun_incomplete=True)
    assert cmd[-2:] == ["--rerun-incomplete", "mine"]  # before the user's options and targets
    assert cli._snakemake_workdir(["-d", str(tmp_path)]) == tmp_path.resolve()
    assert cli._snakemake_workdir([f"--directory={tmp_path}", "-n"]) == tmp_path.resolve()
    assert cli._snakemake_workdir(["-n"]) == cli.Path.cwd().resolve()


# ----------------------------------------------------------------------------- real Snakemake runs
SNAKEFILE = """\
rule all:
    input: expand("out/{i}.txt", i=range(2))

rule one:
    output: "out/{i}.txt"
    shell: "mkdir -p started && touch started/{wildcards.i} && sleep $(cat delay) && echo done > {output}"
"""


def _workflow(wd, delay: int) -> list[str]:
    """The Snakefile, its (empty) config and the job's sleep in ``wd``; the pu-lib command."""
    (wd / "Snakefile").write_text(SNAKEFILE)
    (wd / "c.yaml").write_text("{}\n")
    (wd / "delay").write_text(f"{delay}\n")
    return [sys.executable, "-m", "pu_lib.workflow.cli", "run", "--snakefile", "Snakefile", "c.yaml"]


def _start_and_wait_for_a_job(wd, cmd) -> tuple[subprocess.Popen, int]:
    """``pu-lib run`` started in its own session, once its first job runs; and Snakemake's
    pid (pu-lib's run-state file)."""
    log = open(wd / "pu-lib.log", "w")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(cmd, cwd=wd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    log.close()
    deadline = time.monotonic() + 180
    while not (wd / "started").is_dir():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError((wd / "pu-lib.log").read_text())
        time.sleep(0.1)
    state = json.loads((wd / ".snakemake" / cli.RUN_STATE_FILE).read_text())
    return proc, state["pid"]


def _in_group(pgid: int) -> list[int]:
    psutil = pytest.importorskip("psutil")
    out = []
    for p in psutil.process_iter(["pid", "status"]):
        try:
            if p.info["status"] != psutil.STATUS_ZOMBIE and os.getpgid(p.info["pid"]) == pgid:
                out.append(p.info["pid"])
        except (ProcessLookupError, psutil.Error):
            pass
    return out


@pytest.mark.slow  # one start of Snakemake and its shutdown: 3-15 s (load)
def test_sigterm_to_pu_lib_run_stops_snakemake_and_its_jobs(tmp_path):
    cmd = _workflow(tmp_path, delay=120)
    proc, snakemake_pid = _start_and_wait_for_a_job(tmp_path, cmd)
    assert _in_group(snakemake_pid)  # Snakemake and the job's shell and sleep
    os.kill(proc.pid, signal.SIGTERM)  # pu-lib alone, as `kill PID` does
    assert proc.wait(timeout=120) == 128 + signal.SIGTERM, (tmp_path / "pu-lib.log").read_text()
    assert _in_group(snakemake_pid) == []
    assert cli._snakemake_processes(tmp_path.resolve()) == []
    assert not list((tmp_path / ".snakemake" / "locks").glob("*.lock"))
    assert not (tmp_path / ".snakemake" / cli.RUN_STATE_FILE).exists()


@pytest.mark.slow  # two starts of Snakemake: 5-25 s (load)
def test_after_sigkill_the_same_command_resumes(tmp_path):
    cmd = _workflow(tmp_path, delay=120)
    proc, snakemake_pid = _start_and_wait_for_a_job(tmp_path, cmd)
    # everything killed at once (the OOM killer, a lost node): stopped first, so that no
    # process sees another die and cleans up
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        os.killpg(snakemake_pid, sig)
        os.killpg(proc.pid, sig)
    proc.wait(timeout=60)
    snake = tmp_path / ".snakemake"
    assert list((snake / "locks").glob("*.lock")) and any((snake / "incomplete").iterdir())  # what it leaves

    (tmp_path / "delay").write_text("0\n")
    rerun = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert (f"a previous run ended without cleaning up (pid {snakemake_pid} no longer runs): unlocked, "
            "rerunning incomplete jobs") in rerun.stderr
    assert "--rerun-incomplete" in rerun.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["0.txt", "1.txt"]
    assert not list((snake / "locks").glob("*.lock")) and not (snake / cli.RUN_STATE_FILE).exists()


@pytest.mark.slow  # one start of Snakemake and a 3-s job: 5-20 s (load)
def test_sigkill_to_pu_lib_alone_leaves_no_snakemake_running(tmp_path):
    """``kill -9`` of the pu-lib process alone (no chance to forward anything): Snakemake,
    its child, gets SIGTERM from the kernel (the parent-death signal), ends and removes its
    lock, instead of running on as an orphan that holds it."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the parent-death signal is Linux's")
    cmd = _workflow(tmp_path, delay=3)
    proc, snakemake_pid = _start_and_wait_for_a_job(tmp_path, cmd)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    deadline = time.monotonic() + 120
    while cli._snakemake_processes(tmp_path.resolve()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert cli._snakemake_processes(tmp_path.resolve()) == []
    assert not list((tmp_path / ".snakemake" / "locks").glob("*.lock"))
