"""Results follow their inputs exactly, on the real workflow.

A tiny experiment (one data set, one label setting, two logistic-regression methods, two
repetitions) runs once, from a copy of the workflow and the pu_lib sources (its
Snakefile, with ``PYTHONPATH`` pointing at the copy: Snakemake imports pu_lib from the
Snakefile's directory, the job scripts from ``PYTHONPATH``), then:
changing one method's parameters reruns that method's fits only; a harmless edit of a
module only one method uses reruns that method's fits only, an edit of a module no job
uses reruns nothing; a fit file holding another cell's rows, or a truncated one, fails
the aggregation naming the file and the previous aggregate is kept (and aggregated again
on the next run); the tice paper targets build their DAG.
"""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import LR_METHODS, SHARED_DATASETS, needs_mirror, write_config

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[2]

CONFIG = {
    "seed": 3,
    "cache_dir": ".cache/pu_lib",
    "dask": {"threads": 1, "mem_mb": 1000},
    "methods": dict(LR_METHODS),
    "experiments": {
        "rt": {
            "datasets": ["breast_cancer"],
            "settings": [{"mechanism": "scar_c", "c": 0.5}],
            "split": {"test_size": 0.3},
            "methods": ["naive_lr", "elkan_noto_lr"],
            "repetitions": 2,
            "metrics": ["f1"],
            "report": {"groupings": []},
        },
    },
}
SETTINGS = ("scar_c-c0.5",)


def _fit(wd, method, setting):
    return wd / "results" / "fits" / "rt" / "breast_cancer" / setting / f"{method}.parquet"


def _fits(wd, method):
    return {_fit(wd, method, s) for s in SETTINGS}


class Run:
    """The workflow copied to ``src`` (Snakefile, workflow/, pu_lib/), run in ``wd``."""

    def __init__(self, wd: Path, src: Path):
        self.wd, self.src = wd, src

    def __call__(self, *args, check=True):
        env = dict(os.environ, PYTHONPATH=str(self.src))
        cmd = [sys.executable, "-m", "snakemake", "-s", str(self.src / "Snakefile"), "-d", str(self.wd),
               *map(str, args)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=self.wd)
        if check and proc.returncode != 0:
            raise AssertionError(f"snakemake {' '.join(map(str, args))} failed:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def planned(self):
        """Output files of the jobs a dry run would run, by rule (the dry run's output in
        ``self.dry_output``)."""
        proc = self("--cores", "1", "-n")
        self.dry_output = proc.stdout + proc.stderr
        jobs: dict[str, set] = {}
        rule = None
        for line in self.dry_output.splitlines():
            m = re.match(r"^(?:local)?rule (\w+):", line.strip())
            if m:
                rule = m.group(1)
            m = re.match(r"^\s*output: (.+)$", line)
            if m and rule:
                # "path (update)": flags follow the path
                jobs.setdefault(rule, set()).update(self.wd / p.split()[0] for p in m.group(1).split(","))
        return jobs

    def write_config(self, cfg):
        write_config(self.wd, cfg)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    base = tmp_path_factory.mktemp("follow")
    src = base / "src"
    for part in ("pu_lib", "workflow", "envs"):
        shutil.copytree(REPO / part, src / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copyfile(REPO / "Snakefile", src / "Snakefile")
    wd = base / "wd"
    wd.mkdir()
    r = Run(wd, src)
    r.write_config(CONFIG)
    r("--cores", "2")
    out = r("--cores", "1", "-n")
    assert "Nothing to be done" in out.stdout + out.stderr
    return r


def _mtimes(wd):
    return {p: p.stat().st_mtime_ns for p in (wd / "results" / "fits").rglob("*.parquet")}


@pytest.mark.slow
def test_runs_from_the_copy_with_per_method_and_code_hashes(run):
    agg = pd.read_parquet(run.wd / "results" / "aggregate" / "rt.parquet")
    assert len(agg) == len(SETTINGS) * 2 * 2  # methods x repetitions
    per_method = agg.groupby("method")[["config_hash", "code_hash"]].nunique()
    assert (per_method == 1).all().all()
    assert agg["config_hash"].nunique() == 2 and agg["code_hash"].nunique() == 2


def _nothing_to_do(run):
    out = run("--cores", "1", "-n")
    return "Nothing to be done" in out.stdout + out.stderr


@pytest.mark.slow
def test_changing_one_methods_params_reruns_that_method_only(run):
    cfg = yaml.safe_load(yaml.safe_dump(CONFIG))
    cfg["methods"]["elkan_noto_lr"]["params"]["hold_out_ratio"] = 0.25
    run.write_config(cfg)
    planned = run.planned()
    assert planned.get("fit_eval") == _fits(run.wd, "elkan_noto_lr"), planned
    assert "labels" not in planned and "dataset" not in planned
    # (snakemake --list-changes params is no help here: Snakemake 9.27 lists every output)
    dry = run.dry_output
    assert dry.count("reason: Params have changed since last execution") == len(SETTINGS), dry
    before = _mtimes(run.wd)
    run("--cores", "2")
    after = _mtimes(run.wd)
    assert {p for p in before if after[p] != before[p]} == _fits(run.wd, "elkan_noto_lr")
    agg = pd.read_parquet(run.wd / "results" / "aggregate" / "rt.parquet")
    assert agg.loc[agg["method"] == "elkan_noto_lr", "method_spec"].str.contains('"hold_out_ratio": 0.25').all()


def _codes(run):
    return pd.read_parquet(run.wd / "results" / "aggregate" / "rt.parquet").groupby("method")["code_hash"].agg(set)


@pytest.mark.slow
def test_a_code_change_reruns_the_methods_that_use_the_code_only(run):
    codes = _codes(run)
    # a module only Elkan-Noto uses: a comment is enough
    with open(run.src / "pu_lib" / "baselines" / "elkan_noto.py", "a") as fh:
        fh.write("\n# harmless edit: the workflow must rerun the Elkan-Noto fits, nothing else\n")
    planned = run.planned()
    assert planned.get("fit_eval") == _fits(run.wd, "elkan_noto_lr"), planned
    assert "labels" not in planned and "dataset" not in planned
    before = _mtimes(run.wd)
    run("--cores", "2")
    after = _mtimes(run.wd)
    assert {p for p in before if after[p] != before[p]} == _fits(run.wd, "elkan_noto_lr")
    new = _codes(run)
    assert new["naive_lr"] == codes["naive_lr"] and len(new["elkan_noto_lr"]) == 1
    assert new["elkan_noto_lr"] != codes["elkan_noto_lr"]
    # a module none of these jobs runs: nothing to do
    with open(run.src / "pu_lib" / "trees" / "hellinger.py", "a") as fh:
        fh.write("\n# harmless edit in a module no job here runs\n")
    assert _nothing_to_do(run)
    # the labeling code: labels and then every fit
    with open(run.src / "pu_lib" / "labeling" / "scar.py", "a") as fh:
        fh.write("\n# harmless edit in the labeling code\n")
    planned = run.planned()
    assert len(planned.get("labels", ())) == len(SETTINGS) and planned.get("fit_eval") == \
        _fits(run.wd, "elkan_noto_lr") | _fits(run.wd, "naive_lr")
    run("--cores", "2")
    assert _nothing_to_do(run)


def _aggregate_fails_naming(run, path):
    agg = run.wd / "results" / "aggregate" / "rt.parquet"
    previous = pd.read_parquet(agg)
    proc = run("--cores", "1", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "Error in rule aggregate" in out, out
    assert str(path.relative_to(run.wd)) in out, out
    # the previous aggregate is kept, and the next run aggregates again
    pd.testing.assert_frame_equal(pd.read_parquet(agg), previous)
    assert "aggregate" in run.planned()
    return out


@pytest.mark.slow
def test_a_fit_file_with_another_cells_rows_or_truncated_fails_the_aggregate_naming_it(run):
    """Two defects one after the other, each in the same fail / keep / fix / rerun cycle."""
    # a valid fit file of another cell under this cell's name
    victim = _fit(run.wd, "elkan_noto_lr", SETTINGS[0])
    time.sleep(1.1)
    shutil.copyfile(_fit(run.wd, "naive_lr", SETTINGS[0]), victim)
    out = _aggregate_fails_naming(run, victim)
    assert "holds rows of method ['naive_lr'], but it is named for method 'elkan_noto_lr'" in out
    # the failure is reported again until the file is fixed: each failure gives the rule's
    # last_failure parameter a new value, so the run after a second failure plans it too
    again = run("--cores", "1", check=False)
    assert again.returncode != 0 and str(victim.relative_to(run.wd)) in again.stdout + again.stderr
    assert "aggregate" in run.planned()
    # fix it (delete it: its cell reruns) and break another: a truncated fit file
    victim.unlink()
    truncated = _fit(run.wd, "naive_lr", SETTINGS[0])
    time.sleep(1.1)
    data = truncated.read_bytes()
    truncated.write_bytes(data[: len(data) // 3])
    out = _aggregate_fails_naming(run, truncated)
    assert "cannot read result file" in out
    assert victim.exists()  # the deleted cell was fitted again on the way
    truncated.unlink()  # rerun that cell: then the aggregate succeeds again
    run("--cores", "2")
    assert not (run.wd / "results" / "aggregate" / ".rt.parquet.failed").exists()
    assert _nothing_to_do(run)


@pytest.mark.slow
@needs_mirror
def test_tice_paper_targets_build_their_dag(tmp_path):
    """config/papers/tice.yaml: the T_R targets (method names without dots) dry-run."""
    (tmp_path / "config").mkdir()
    shutil.copyfile(REPO / "config" / "config.yaml", tmp_path / "config" / "config.yaml")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    targets = ("tice_figures_3_3_3_4", "tice_tables_3_3_3_4")
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path), "-n",
         *targets, "--configfile", str(REPO / "config" / "papers" / "tice.yaml"),
         "--config", f"data_mirror={SHARED_DATASETS}", "--quiet", "rules"],
        capture_output=True, text=True, env=env, cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert re.search(r"fit_eval\s+\d+", out) and all(t in out for t in targets), out
