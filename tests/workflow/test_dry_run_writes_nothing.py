"""Parsing and planning the workflow writes nothing: a dry run (``snakemake -n``) on an
existing run directory leaves every file and directory as it was (names, sizes,
modification times), also where the last aggregation of an experiment failed (its failure
marker makes the aggregation planned again, through the aggregate rule's ``last_failure``
parameter, instead of dating the aggregate back while the Snakefile is parsed)."""

import pytest
from conftest import TINY_CORE_TARGETS

from pu_lib.workflow.experiments.results import mark_failed

pytestmark = pytest.mark.workflow

#: what Snakemake 9 itself writes on a dry run, and nothing else is left out: DAG.init
#: saves the dry run's file inventory to .snakemake/iocache/latest.pkl (for a later run
#: with --trust-io-cache; a real run deletes it), and the file-based persistence creates
#: the empty directory .snakemake/locks whenever Snakemake starts (a real run removes it
#: when it unlocks, a dry run never locks); so the modification times of their parent
#: directories change too
SNAKEMAKE_DRY_RUN_WRITES = {".snakemake/iocache/latest.pkl", ".snakemake/locks"}
SNAKEMAKE_DRY_RUN_DIRS = {".snakemake", ".snakemake/iocache"}


def _state(wd) -> dict:
    """``{relative path: (kind, size, mtime_ns)}`` of everything under ``wd`` (directories
    without their size)."""
    out = {}
    for p in sorted(wd.rglob("*")):
        rel = p.relative_to(wd).as_posix()
        if rel in SNAKEMAKE_DRY_RUN_WRITES:
            assert not p.is_dir() or not any(p.iterdir()), f"{rel} is not empty"
            continue
        st = p.lstat()
        if p.is_dir():
            out[rel] = ("dir", None, None if rel in SNAKEMAKE_DRY_RUN_DIRS else st.st_mtime_ns)
        else:
            out[rel] = ("file", st.st_size, st.st_mtime_ns)
    return out


@pytest.mark.slow  # a copy of the shared tiny run and a dry run of it: over 5 s on 2 cores
def test_a_dry_run_changes_nothing_on_disk(tiny_core, tmp_path):
    wd = tiny_core.copy_to(tmp_path / "x")  # never the shared directory itself
    # the last aggregation of experiment tiny failed (as the aggregate job leaves it)
    mark_failed(wd / "results" / "aggregate" / "tiny.parquet", "ValueError: a fit file of an earlier run")
    before = _state(wd)
    assert "results/aggregate/tiny.parquet" in before and ".snakemake/metadata" in before
    proc = tiny_core.snakemake(*TINY_CORE_TARGETS, "--cores", "2", "-n", workdir=wd)
    out = proc.stdout + proc.stderr
    assert "rule aggregate:" in out and "Params have changed since last execution" in out, out
    after = _state(wd)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, [(k, before.get(k), after.get(k)) for k in changed]
