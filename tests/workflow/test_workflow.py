"""Runs the real Snakemake workflow (real Dask LocalCluster, real estimators) on the tiny
shared config (tests/workflow/conftest.py): the core part (fixture ``tiny_core``, fast
tier) and the rest of it (fixture ``tiny_run``: a single-cell experiment, the report,
named targets, importance maps, class-prior experiments, the half-moons figure, a mirror
data set). Tests that change files work on a copy of the shared run or in their own
``tmp_path``."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import TINY_CORE_TARGETS, fit_frames, needs_mirror, run_snakemake, tiny_config, write_config

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[2]
#: the core experiments alone (no data mirror, no paper configs), for the tests that run
#: their own workflow on a variant of them
TINY = tiny_config(mirror=False)
TINY["experiments"] = {k: TINY["experiments"][k] for k in ("tiny", "tiny_snar")}
TINY["targets"] = {}


def snakemake(workdir, *args, check=True):
    return run_snakemake(workdir, *args, check=check)


def planned_jobs(out: str) -> dict:
    """``{rule: count}`` from the job table of a dry run with ``--quiet rules``."""
    jobs = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            jobs[parts[0]] = int(parts[1])
    return jobs


def test_workflow_writes_tables_with_both_methods(tiny_core):
    wd = tiny_core.wd
    tables = sorted(p.name for p in (wd / "results" / "tables").glob("tiny.*.md"))
    assert tables == [
        "tiny.auc_roc.all.md", "tiny.auc_roc.per_dataset.md", "tiny.auc_roc.setting.md",
        "tiny.f1.all.md", "tiny.f1.per_dataset.md", "tiny.f1.setting.md",
    ]
    text = (wd / "results" / "tables" / "tiny.f1.per_dataset.md").read_text()
    assert "| naive_lr |" in text and "| elkan_noto_lr |" in text
    assert "### tiny: F1 on breast_cancer" in text and "### tiny: F1 on digits" in text
    assert "| method | scar_c-c0.5 | sar-k1 |" in text
    for ext in ("tex", "csv", "html"):
        assert (wd / "results" / "tables" / f"tiny.f1.per_dataset.{ext}").stat().st_size > 0
    agg = pd.read_parquet(wd / "results" / "aggregate" / "tiny.parquet")
    assert len(agg) == 2 * 2 * 2 * 3
    for col in ("config_hash", "code_hash", "seed", "pu_lib_version", "f1", "auc_roc", "fit_seconds", "prior_hat"):
        assert col in agg.columns
    # one config hash and one code hash per method (pu_lib.workflow.experiments.config.Grid.method_hash)
    assert (agg.groupby("method")[["config_hash", "code_hash"]].nunique() == 1).all().all()
    assert agg["config_hash"].nunique() == 2
    assert (agg["pu_lib_version"] == __import__("pu_lib").__version__).all()
    # SCAR c = 0.5 => exactly half of the training positives labeled
    scar = agg[agg["setting"] == "scar_c-c0.5"]
    assert ((scar["c_true"] - 0.5).abs() < 0.01).all()
    # sanity: the methods learn something on breast cancer
    assert agg["auc_roc"].min() > 0.8
    # label sets are small index files, not copies of X
    lab = pd.read_parquet(wd / "results" / "labels" / "tiny" / "breast_cancer" / "scar_c-c0.5.parquet")
    assert list(lab.columns) == ["rep", "row", "split", "y", "s", "propensity", "scenario", "propensity_attributes"]
    assert (lab["propensity_attributes"] == "null").all()  # SCAR labels have no propensity attributes
    # per-rule logs
    assert any((wd / "logs" / "fit_eval").rglob("*.log"))


def test_optional_dataset_skipped_offline_with_one_warning(tiny_core):
    out = tiny_core.procs[0].stdout + tiny_core.procs[0].stderr
    line = "skipped offline: covtype_binary (no mirror copy; set download: true)"
    assert out.count(line) == 1, out
    assert "covtype_binary" not in out.replace(line, "")  # no job for it
    assert not list((tiny_core.wd / "results").rglob("*covtype*"))


@pytest.mark.slow
def test_single_cell_experiment_gets_a_per_dataset_table_and_no_test(tiny_run):
    """``tiny_snar``: one (data set, setting) cell, scored on the unlabeled rows."""
    wd = tiny_run.wd
    tables = sorted(p.name for p in (wd / "results" / "tables").glob("tiny_snar.*"))
    assert tables == [f"tiny_snar.auc_pr.per_dataset.{ext}" for ext in ("csv", "html", "md", "tex")]
    assert not list((wd / "results" / "stats").glob("tiny_snar.*"))  # no test possible, none asked
    snar = pd.read_parquet(wd / "results" / "aggregate" / "tiny_snar.parquet")
    assert set(snar["method"]) == {"naive_lr", "elkan_noto_lr"} and len(snar) == 4


def test_workflow_writes_stats_tables_and_figures(tiny_core):
    wd = tiny_core.wd
    stats = sorted(p.name for p in (wd / "results" / "stats").glob("tiny.*.json"))
    assert stats == ["tiny.auc_roc.all.json", "tiny.auc_roc.setting.json", "tiny.f1.all.json", "tiny.f1.setting.json"]
    doc = json.loads((wd / "results" / "stats" / "tiny.f1.all.json").read_text())
    assert doc["paper_table"] == "hand-made test table" and len(doc["config_hash"]) == 16
    comp = doc["columns"]["all"]
    assert comp["n_blocks"] == 4 and comp["n_methods"] == 2
    assert set(comp["average_ranks"]) == {"naive_lr", "elkan_noto_lr"}
    assert sum(comp["average_ranks"].values()) == pytest.approx(3.0)   # k (k + 1) / 2
    # The summary table agrees with the JSON.
    md = (wd / "results" / "tables" / "tiny.f1.all.md").read_text()
    p = comp["friedman"]["f_pvalue"]
    assert f"| Iman-Davenport p | {'< 0.0001' if p < 1e-4 else f'{p:.4f}'} |" in md
    setting = json.loads((wd / "results" / "stats" / "tiny.f1.setting.json").read_text())
    assert set(setting["columns"]) == {"scar_c-c0.5", "sar-k1"}
    assert all(c["n_blocks"] == 2 for c in setting["columns"].values())
    tex = (wd / "results" / "tables" / "tiny.f1.setting.tex").read_text()
    assert "\\toprule" in tex and "Iman-Davenport $p$" in tex
    for fig in ("cd", "ranks"):
        for grouping in ("all", "setting"):
            assert (wd / "results" / "figures" / f"{fig}_tiny.f1.{grouping}.png").read_bytes()[:4] == b"\x89PNG"
            assert (wd / "results" / "figures" / f"{fig}_tiny.f1.{grouping}.pdf").read_bytes()[:4] == b"%PDF"
    assert any((wd / "logs" / "stats").rglob("*.log"))


@pytest.mark.slow
def test_report_contains_every_table_and_figure(tiny_run, tmp_path):
    # the report of two targets, written outside the shared run's directory
    tiny_run.snakemake(*TINY_CORE_TARGETS, "tiny_snar_tables", "--report", tmp_path / "report.html")
    html = (tmp_path / "report.html").read_text(errors="replace")
    for metric in ("f1", "auc_roc"):
        for grouping in ("all", "setting"):
            assert f"cd_tiny.{metric}.{grouping}.png" in html
            assert f"ranks_tiny.{metric}.{grouping}.png" in html
            assert f"tiny.{metric}.{grouping}.html" in html
        assert f"tiny.{metric}.per_dataset.html" in html
    assert "tiny_snar.auc_pr.per_dataset.html" in html
    # Captions: what it is, which config, which paper table.
    assert "Critical-difference diagram" in html and "hand-made test table" in html
    assert "config/config.yaml" in html


@pytest.mark.slow
def test_second_run_does_nothing_and_deleting_reruns_only_downstream(tiny_core, tmp_path):
    wd = tiny_core.copy_to(tmp_path / "wd")  # the shared run stays as it is
    # the core target and every cell's result file, as the default target lists them
    fits = sorted(str(p.relative_to(wd)) for p in (wd / "results" / "fits" / "tiny").rglob("*.parquet"))
    assert len(fits) == 8
    targets = [*TINY_CORE_TARGETS, *fits]
    proc = tiny_core.snakemake(*targets, "--cores", "2", "-n", workdir=wd)
    assert "Nothing to be done" in proc.stdout + proc.stderr
    victim = wd / "results" / "fits" / "tiny" / "breast_cancer" / "sar-k1" / "naive_lr.parquet"
    victim.unlink()
    proc = tiny_core.snakemake(*targets, "--cores", "2", "-n", "--quiet", "rules", workdir=wd)
    out = proc.stdout + proc.stderr
    jobs = planned_jobs(out)
    assert jobs.get("fit_eval") == 1, out
    assert jobs.get("aggregate") == 1, out
    assert jobs.get("tables") == 2, out   # 2 metrics
    assert jobs.get("stats") == 4, out    # 2 metrics x 2 groupings
    assert "labels" not in jobs and "dataset" not in jobs, out
    before = {p: p.stat().st_mtime_ns for p in (wd / "results" / "fits").rglob("*.parquet")}
    tiny_core.snakemake(*targets, "--cores", "2", workdir=wd)
    after = {p: p.stat().st_mtime_ns for p in (wd / "results" / "fits").rglob("*.parquet")}
    assert victim.exists()
    assert all(after[p] == t for p, t in before.items())


@pytest.mark.slow
def test_results_identical_for_one_or_two_workers(tiny_core, tmp_path):
    """One fit job (three repetitions) again with two Dask worker threads instead of the
    shared run's one: the same rows."""
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    assert tiny_core.config["dask"]["threads"] == 1
    cfg["dask"]["threads"] = 2
    write_config(tmp_path, cfg)
    fit = "results/fits/tiny/digits/sar-k1/elkan_noto_lr.parquet"
    snakemake(tmp_path, fit, "--cores", "2")
    a = fit_frames(tiny_core.wd)["tiny/digits/sar-k1/elkan_noto_lr.parquet"]
    b = fit_frames(tmp_path)["tiny/digits/sar-k1/elkan_noto_lr.parquet"]
    assert len(a) == 3
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.slow
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
    proc = snakemake(tmp_path, "--cores", "2", check=False)
    assert proc.returncode != 0
    err = proc.stdout + proc.stderr
    assert "experiments.tiny.datasets[1]: unknown dataset 'no_such_dataset'" in err
    # before any job: no job ran, nothing was written
    assert not (tmp_path / "results").exists() and not (tmp_path / "logs").exists()


@pytest.mark.slow
def test_bad_setting_parameter_fails_before_any_job(tmp_path):
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["experiments"]["tiny"]["settings"][0]["c"] = 1.5
    write_config(tmp_path, cfg)
    proc = snakemake(tmp_path, "--cores", "2", check=False)
    assert proc.returncode != 0
    assert "experiments.tiny.settings[0].c" in proc.stdout + proc.stderr
    assert not (tmp_path / "results").exists()


@pytest.mark.slow
@needs_mirror
def test_mirror_dataset_runs_offline(tiny_run):
    """Experiment ``flip`` of the shared run: yeast6 from the data mirror, offline."""
    wd = tiny_run.wd
    agg = pd.read_parquet(wd / "results" / "aggregate" / "flip.parquet")
    assert len(agg) == 2
    # 1000-row subsample, 70% train; yeast6 has 35 positives in 1484 rows
    assert (agg["n_train"] == 700).all()
    assert agg["prior_true"].between(0.015, 0.03).all()
    # flip ratio 0.5: exactly half of the training positives stay labeled
    n_pos = (agg["prior_true"] * 700).round().astype(int)
    assert (agg["n_labeled"] == n_pos - (n_pos * 0.5 + 0.5).astype(int)).all()  # round half up
    assert (wd / "results" / "tables" / "flip.auc_pr.per_dataset.md").exists()


@pytest.mark.slow
@needs_mirror
def test_named_targets_and_importance_maps(tiny_run):
    """A paper-style experiment of the shared run: PU ET methods with the true prior, a
    named target per table (``table_a``: two of its four metrics), the importance-maps
    rule (target ``figure_b``), and an optional download-only dataset skipped offline."""
    out = tiny_run.output
    wd = tiny_run.wd
    assert "skipped offline: covtype_binary (no mirror copy; set download: true)" in out
    tables = wd / "results" / "tables"
    assert (tables / "pet.accuracy.setting.md").exists() and (tables / "pet.f1.per_dataset.md").exists()
    assert not (tables / "pet.fit_seconds.per_dataset.md").exists()     # not part of the target
    assert not (wd / "results" / "aggregate" / "other.parquet").exists()   # no target names it
    md = (tables / "pet.accuracy.per_dataset.md").read_text()
    assert "| pu_et |" in md and "| sup_et |" in md and " (" in md       # "mean (sd)" percentages
    agg = pd.read_parquet(wd / "results" / "aggregate" / "pet.parquet")
    assert set(agg["dataset_name"]) == {"yeast6", "thyroid_ann_uci"}
    pu = agg[agg["method"] == "pu_et"]
    np.testing.assert_allclose(pu["prior_given"], pu["prior_true"])          # prior: true
    assert (agg.loc[agg["method"] == "sup_et", "fit_on"] == "y").all()      # the oracle sees y
    # thyroid has its own split (3772 / 3428), yeast6 a random 70/30 split
    assert set(agg.loc[agg["dataset_name"] == "thyroid_ann_uci", "n_train"]) == {3772}
    for kind in ("raw", "normalized"):
        assert (wd / "results" / "figures" / f"importance_maps_{kind}.png").read_bytes()[:4] == b"\x89PNG"
    npz = np.load(wd / "results" / "importance_maps" / "importances.npz")
    assert npz["0_pu_raw"].shape == (784,)


@pytest.mark.slow
@needs_mirror
def test_prior_estimation_experiments_and_estimated_priors_in_classifiers(tiny_run):
    """Class-prior experiments of the shared run (PULSNAR Figure 3 / thesis Figure 3.1
    style) built as named targets write the estimate figures and tables; a classifier
    estimates its prior with TIcE inside fit."""
    wd = tiny_run.wd
    agg = pd.read_parquet(wd / "results" / "aggregate" / "snar_alpha.parquet")
    assert len(agg) == 2 * 4 * 2
    assert set(np.round(agg["alpha_u_true"], 3)) == {0.1, 0.3}
    # the three estimates of a row are one estimate in three forms (thesis eqs. 2.5-2.7)
    lf = agg["n_labeled"] / agg["n_train"]
    np.testing.assert_allclose(agg["prior_hat"], lf + agg["alpha_u_hat"] * (1 - lf))
    np.testing.assert_allclose(agg["c_hat"], lf / agg["prior_hat"])
    np.testing.assert_allclose(agg["alpha_u_abs_error"], (agg["alpha_u_hat"] - agg["alpha_u_true"]).abs())
    assert (agg.loc[agg["method"] == "pulsnar", "n_clusters"] >= 1).all()
    tables, figures = wd / "results" / "tables", wd / "results" / "figures"
    md = (tables / "snar_alpha.prior_estimates.md").read_text()
    assert "| alpha_u_true | pulscar | pulsnar | tice | en |" in md
    csv = pd.read_csv(tables / "snar_alpha.prior_estimates.csv")
    assert set(csv["method"]) == {"pulscar", "pulsnar", "tice", "en"} and (csv["n"] == 2).all()
    assert (figures / "prior_estimates_snar_alpha.png").read_bytes()[:4] == b"\x89PNG"
    assert (figures / "prior_estimates_tice_c.pdf").read_bytes()[:4] == b"%PDF"
    assert (tables / "snar_alpha.alpha_u_abs_error.all.md").exists()
    tice = pd.read_parquet(wd / "results" / "aggregate" / "tice_c.parquet")
    assert set(tice["c_true"].round(1)) == {0.3, 0.7} and tice["prior_abs_error"].notna().all()
    csv = pd.read_csv(tables / "tice_c.prior_estimates.csv")
    assert set(csv["panel"]) == {"breast_cancer_wisconsin_original-pos_bekker_tice",
                                 "breast_cancer_wisconsin_original-pos_bekker_tice_nu"}
    clf = pd.read_parquet(wd / "results" / "aggregate" / "clf.parquet")
    assert clf["prior_hat"].between(0.05, 0.95).all() and clf["accuracy"].notna().all()


@pytest.mark.slow
def test_half_moons_figure_target(tiny_run):
    """The PU Hellinger trees paper's Figure 2 as a named target (rule half_moons)."""
    wd = tiny_run.wd
    for ext, magic in (("png", b"\x89PNG"), ("pdf", b"%PDF")):
        assert (wd / "results" / "figures" / f"half_moons.{ext}").read_bytes()[:4] == magic
    summary = pd.read_csv(wd / "results" / "half_moons" / "summary.csv")
    assert list(summary["model"]) == ["CART", "HDT", "PU-HDT"]
    assert summary["auc_pr_unlabeled"].between(0, 1).all()
    assert (wd / "logs" / "half_moons" / "half_moons.log").exists()


@pytest.mark.slow
def test_half_moons_target_builds_only_the_figure(tmp_path):
    """``snakemake figure_2`` in a fresh directory plans the half_moons job and nothing else."""
    cfg = {
        "seed": 3,
        "methods": {"naive_lr": {"method": "naive", "base": "logistic_regression"}},
        "experiments": {"unused": {"datasets": ["breast_cancer"], "settings": [{"mechanism": "scar_c", "c": 0.5}],
                                   "methods": ["naive_lr"], "repetitions": 1}},
        "half_moons": {"n_samples": 1000},
        "targets": {"figure_2": {"half_moons": True}},
    }
    write_config(tmp_path, cfg)
    proc = snakemake(tmp_path, "figure_2", "--cores", "1", "-n", "--quiet", "rules")
    out = proc.stdout + proc.stderr
    assert planned_jobs(out) == {"figure_2": 1, "half_moons": 1, "total": 2}, out
