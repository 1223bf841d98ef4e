"""Runs the real Snakemake workflow (real Dask LocalCluster, real estimators) on a tiny
config in a temporary working directory."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[2]

TINY = {
    "seed": 7,
    "cache_dir": ".cache/pu_lib",
    "dask": {"threads": 2, "mem_mb": 2000},
    "methods": {
        "naive_lr": {"method": "naive", "base": "logistic_regression"},
        "elkan_noto_lr": {"method": "elkan_noto", "base": "logistic_regression", "params": {"hold_out_ratio": 0.2}},
    },
    "experiments": {
        "tiny": {
            "datasets": ["breast_cancer"],
            "settings": [{"mechanism": "scar_c", "c": 0.5}, {"mechanism": "sar", "k": 1, "min_std": 0.3, "id": "sar-k1"}],
            "split": {"test_size": 0.3, "val_size": 0.2},
            "methods": ["naive_lr", "elkan_noto_lr"],
            "repetitions": 3,
            "metrics": ["f1", "auc_roc"],
        },
        "tiny_snar": {
            "datasets": [{"name": "pulsnar_snar",
                          "params": {"frac": 0.2, "n_unlabeled": 1000, "n_labeled_per_subclass": 50}}],
            "settings": [{"mechanism": "snar_subclass", "n_labeled_per_group": 50}],
            "split": {"test_size": 0.0, "evaluate_on": "unlabeled"},
            "methods": ["naive_lr", "elkan_noto_lr"],
            "repetitions": 2,
            "metrics": ["auc_pr"],
        },
    },
}


def snakemake(workdir, *args, check=True):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=workdir)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def write_config(workdir, cfg):
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(cfg))


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    wd = tmp_path_factory.mktemp("wf")
    write_config(wd, TINY)
    proc = snakemake(wd, "--cores", "2")
    return wd, proc


def test_workflow_writes_tables_with_both_methods(ran):
    wd, _ = ran
    tables = sorted(p.name for p in (wd / "results" / "tables").glob("*.md"))
    assert tables == ["tiny.auc_roc.md", "tiny.f1.md", "tiny_snar.auc_pr.md"]
    text = (wd / "results" / "tables" / "tiny.f1.md").read_text()
    assert "| naive_lr |" in text and "| elkan_noto_lr |" in text
    assert "breast_cancer / scar_c-c0.5" in text and "breast_cancer / sar-k1" in text
    agg = pd.read_parquet(wd / "results" / "aggregate" / "tiny.parquet")
    assert len(agg) == 1 * 2 * 2 * 3
    for col in ("config_hash", "seed", "pu_lib_version", "f1", "auc_roc", "fit_seconds", "alpha_hat"):
        assert col in agg.columns
    assert agg["config_hash"].nunique() == 1
    assert (agg["pu_lib_version"] == __import__("pu_lib").__version__).all()
    # SCAR c = 0.5 => exactly half of the training positives labeled
    scar = agg[agg["setting"] == "scar_c-c0.5"]
    assert ((scar["c_true"] - 0.5).abs() < 0.01).all()
    # sanity: the methods learn something on breast cancer
    assert agg["auc_roc"].min() > 0.8
    # label sets are small index files, not copies of X
    lab = pd.read_parquet(wd / "results" / "labels" / "tiny" / "breast_cancer" / "scar_c-c0.5.parquet")
    assert list(lab.columns) == ["rep", "row", "split", "y", "s", "propensity", "scenario"]
    # per-rule logs
    assert any((wd / "logs" / "fit_eval").rglob("*.log"))
    snar = pd.read_parquet(wd / "results" / "aggregate" / "tiny_snar.parquet")
    assert set(snar["method"]) == {"naive_lr", "elkan_noto_lr"} and len(snar) == 4


def test_second_run_does_nothing_and_deleting_reruns_only_downstream(ran):
    wd, _ = ran
    proc = snakemake(wd, "--cores", "2", "-n")
    assert "Nothing to be done" in proc.stdout + proc.stderr
    victim = wd / "results" / "fits" / "tiny" / "breast_cancer" / "sar-k1" / "naive_lr.parquet"
    victim.unlink()
    proc = snakemake(wd, "--cores", "2", "-n", "--quiet", "rules")
    out = proc.stdout + proc.stderr
    jobs = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            jobs[parts[0]] = int(parts[1])
    assert jobs.get("fit_eval") == 1, out
    assert jobs.get("aggregate") == 1, out
    assert jobs.get("tables") == 2, out
    assert "labels" not in jobs and "dataset" not in jobs, out
    before = {p: p.stat().st_mtime_ns for p in (wd / "results" / "fits").rglob("*.parquet")}
    snakemake(wd, "--cores", "2")
    after = {p: p.stat().st_mtime_ns for p in (wd / "results" / "fits").rglob("*.parquet")}
    assert victim.exists()
    assert all(after[p] == t for p, t in before.items())


def test_results_identical_for_one_or_two_workers(ran, tmp_path):
    wd, _ = ran
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["dask"]["threads"] = 1
    cfg["experiments"] = {"tiny": cfg["experiments"]["tiny"]}
    write_config(tmp_path, cfg)
    snakemake(tmp_path, "--cores", "1")
    a = pd.read_parquet(wd / "results" / "aggregate" / "tiny.parquet")
    b = pd.read_parquet(tmp_path / "results" / "aggregate" / "tiny.parquet")
    drop = ["fit_seconds", "predict_seconds"]
    pd.testing.assert_frame_equal(a.drop(columns=drop), b.drop(columns=drop))


def test_lint_is_clean():
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--lint"], capture_output=True, text=True, cwd=REPO
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "Lints for" not in out, out


def test_bad_config_fails_before_any_job(tmp_path):
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["experiments"]["tiny"]["datasets"] = ["breast_cancer", "no_such_dataset"]
    write_config(tmp_path, cfg)
    t = time.perf_counter()
    proc = snakemake(tmp_path, "--cores", "2", check=False)
    assert proc.returncode != 0
    err = proc.stdout + proc.stderr
    assert "experiments.tiny.datasets[1]: unknown dataset 'no_such_dataset'" in err
    assert not (tmp_path / "results").exists()
    assert time.perf_counter() - t < 60

    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["experiments"]["tiny"]["settings"][0]["c"] = 1.5
    write_config(tmp_path, cfg)
    proc = snakemake(tmp_path, "--cores", "2", check=False)
    assert proc.returncode != 0
    assert "experiments.tiny.settings[0].c" in proc.stdout + proc.stderr
    assert not (tmp_path / "results").exists()


MIRROR = REPO.parent / "shared" / "datasets"


@pytest.mark.skipif(not (MIRROR / "manifest.csv").exists(), reason="needs the dataset mirror beside the repository")
def test_mirror_dataset_runs_offline(tmp_path):
    cfg = {
        "seed": 3,
        "data_mirror": str(MIRROR),
        "download": False,
        "dask": {"threads": 1, "mem_mb": 1000},
        "methods": {"naive_lr": {"method": "naive", "base": "logistic_regression"}},
        "experiments": {
            "flip": {
                "datasets": [{"name": "yeast6", "positive": "pu_hellinger"}],
                "settings": [{"mechanism": "scar_flip", "flip_ratio": 0.5}],
                "split": {"test_size": 0.3, "max_samples": 1000},
                "methods": ["naive_lr"],
                "repetitions": 2,
                "metrics": ["auc_pr"],
            }
        },
    }
    write_config(tmp_path, cfg)
    snakemake(tmp_path, "--cores", "1")
    agg = pd.read_parquet(tmp_path / "results" / "aggregate" / "flip.parquet")
    assert len(agg) == 2
    # 1000-row subsample, 70% train; yeast6 has 35 positives in 1484 rows
    assert (agg["n_train"] == 700).all()
    assert agg["alpha_true"].between(0.015, 0.03).all()
    # flip ratio 0.5: exactly half of the training positives stay labeled
    n_pos = (agg["alpha_true"] * 700).round().astype(int)
    assert (agg["n_labeled"] == n_pos - (n_pos * 0.5 + 0.5).astype(int)).all()  # round half up
    assert (tmp_path / "results" / "tables" / "flip.auc_pr.md").exists()
