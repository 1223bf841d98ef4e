"""Runs the real Snakemake workflow (real Dask LocalCluster, real estimators) on a tiny
config in a temporary working directory."""

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import LR_METHODS, write_config

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[2]

TINY = {
    "seed": 7,
    "cache_dir": ".cache/pu_lib",
    "dask": {"threads": 2, "mem_mb": 2000},
    "methods": dict(LR_METHODS),
    "experiments": {
        "tiny": {
            "paper_table": "hand-made test table",
            "datasets": ["breast_cancer", "digits"],
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
    return run_snakemake(workdir, *args, check=check)


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    wd = tmp_path_factory.mktemp("wf")
    write_config(wd, TINY)
    proc = snakemake(wd, "--cores", "2")
    return wd, proc


def test_workflow_writes_tables_with_both_methods(ran):
    wd, _ = ran
    tables = sorted(p.name for p in (wd / "results" / "tables").glob("*.md"))
    assert tables == [
        "tiny.auc_roc.all.md", "tiny.auc_roc.per_dataset.md", "tiny.auc_roc.setting.md",
        "tiny.f1.all.md", "tiny.f1.per_dataset.md", "tiny.f1.setting.md",
        "tiny_snar.auc_pr.per_dataset.md",  # one (data set, setting): no test possible, none asked
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
    # one config hash and one code hash per method (pu_lib.experiments.config.Grid.method_hash)
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
    snar = pd.read_parquet(wd / "results" / "aggregate" / "tiny_snar.parquet")
    assert set(snar["method"]) == {"naive_lr", "elkan_noto_lr"} and len(snar) == 4


def test_workflow_writes_stats_tables_and_figures(ran):
    wd, _ = ran
    stats = sorted(p.name for p in (wd / "results" / "stats").glob("*.json"))
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


def test_report_contains_every_table_and_figure(ran):
    wd, _ = ran
    snakemake(wd, "--report", "report.html")
    html = (wd / "report.html").read_text(errors="replace")
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
    assert jobs.get("tables") == 2, out   # 2 metrics
    assert jobs.get("stats") == 4, out    # 2 metrics x 2 groupings
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


from conftest import SHARED_DATASETS as MIRROR  # noqa: E402
from conftest import needs_mirror, run_snakemake  # noqa: E402


@needs_mirror
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
    assert agg["prior_true"].between(0.015, 0.03).all()
    # flip ratio 0.5: exactly half of the training positives stay labeled
    n_pos = (agg["prior_true"] * 700).round().astype(int)
    assert (agg["n_labeled"] == n_pos - (n_pos * 0.5 + 0.5).astype(int)).all()  # round half up
    assert (tmp_path / "results" / "tables" / "flip.auc_pr.per_dataset.md").exists()


def test_optional_dataset_skipped_offline_with_one_warning(tmp_path):
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["download"] = False
    cfg["experiments"]["tiny"]["datasets"] = [
        "breast_cancer", {"name": "covtype_binary", "positive": "pu_extra_trees", "optional": True}]
    write_config(tmp_path, cfg)
    proc = snakemake(tmp_path, "--cores", "1", "-n")
    out = proc.stdout + proc.stderr
    line = "skipped offline: covtype_binary (no mirror copy; set download: true)"
    assert out.count(line) == 1, out
    assert "covtype_binary" not in out.replace(line, "")  # no job for it


@needs_mirror
def test_named_targets_and_importance_maps(tmp_path):
    """A paper-style config: PU ET methods with the true prior, a named target per table,
    the importance-maps rule, and an optional download-only dataset skipped offline."""
    cfg = {
        "seed": 5,
        "data_mirror": str(MIRROR),
        "download": False,
        "dask": {"threads": 2, "mem_mb": 2000},
        "methods": {
            "pu_et": {"method": "pu_extra_trees", "params": {"n_estimators": 5, "prior": True}},
            "naive_et": {"method": "naive_pu_et", "params": {"n_estimators": 5}},
            "sup_et": {"method": "supervised_et", "params": {"n_estimators": 5}},
        },
        "experiments": {
            "pet": {
                "datasets": [{"name": "yeast6", "positive": "pu_hellinger"},
                             {"name": "thyroid_ann_uci", "positive": "pu_hellinger"},
                             {"name": "covtype_binary", "positive": "pu_extra_trees", "optional": True}],
                "settings": [{"mechanism": "case_control", "n_labeled": 20}],
                "split": {"predefined": "auto", "test_size": 0.3},
                "methods": ["pu_et", "naive_et", "sup_et"],
                "repetitions": 2,
                "metrics": ["accuracy", "f1", "train_pu_risk_01", "fit_seconds"],
                "report": {"scale": 100, "decimals": 1, "style": "paren"},
            },
            "other": {
                "datasets": ["breast_cancer"],
                "settings": [{"mechanism": "scar_c", "c": 0.5}],
                "methods": ["naive_et"],
                "repetitions": 1,
            },
        },
        "importance_maps": {"dataset": "mnist_5k_subset", "digits": [0, 1], "n_labeled": 50, "n_estimators": 3},
        "targets": {
            "table_a": {"experiments": ["pet"], "metrics": ["accuracy", "f1"]},
            "figure_b": {"importance_maps": True},
        },
    }
    write_config(tmp_path, cfg)
    proc = snakemake(tmp_path, "table_a", "figure_b", "--cores", "2")
    out = proc.stdout + proc.stderr
    assert "skipped offline: covtype_binary (no mirror copy; set download: true)" in out
    tables = tmp_path / "results" / "tables"
    assert (tables / "pet.accuracy.setting.md").exists() and (tables / "pet.f1.per_dataset.md").exists()
    assert not (tables / "pet.fit_seconds.per_dataset.md").exists()     # not part of the target
    assert not (tmp_path / "results" / "aggregate" / "other.parquet").exists()
    md = (tables / "pet.accuracy.per_dataset.md").read_text()
    assert "| pu_et |" in md and "| sup_et |" in md and " (" in md       # "mean (sd)" percentages
    agg = pd.read_parquet(tmp_path / "results" / "aggregate" / "pet.parquet")
    assert set(agg["dataset_name"]) == {"yeast6", "thyroid_ann_uci"}
    pu = agg[agg["method"] == "pu_et"]
    np.testing.assert_allclose(pu["prior_given"], pu["prior_true"])          # prior: true
    assert (agg.loc[agg["method"] == "sup_et", "fit_on"] == "y").all()      # the oracle sees y
    # thyroid has its own split (3772 / 3428), yeast6 a random 70/30 split
    assert set(agg.loc[agg["dataset_name"] == "thyroid_ann_uci", "n_train"]) == {3772}
    for kind in ("raw", "normalized"):
        assert (tmp_path / "results" / "figures" / f"importance_maps_{kind}.png").read_bytes()[:4] == b"\x89PNG"
    npz = np.load(tmp_path / "results" / "importance_maps" / "importances.npz")
    assert npz["0_pu_raw"].shape == (784,)


@needs_mirror
def test_prior_estimation_experiments_and_estimated_priors_in_classifiers(tmp_path):
    """Class-prior experiments (PULSNAR Figure 3 / thesis Figure 3.1 style) run as named
    targets and write the estimate figures and tables; a classifier estimates its prior with
    TIcE inside fit."""
    cfg = {
        "seed": 11,
        "data_mirror": str(MIRROR),
        "dask": {"threads": 2, "mem_mb": 2000},
        "methods": {
            "pulscar": {"method": "pulscar"},
            "pulsnar": {"method": "pulsnar", "params": {"max_clusters": 6}},
            "tice": {"method": "tice"},
            "tice_mp": {"method": "tice", "params": {"variant": "most_promising"}},
            "en": {"method": "elkan_noto_prior", "base": "logistic_regression"},
            "pu_tree_tice": {"method": "pu_decision_tree", "params": {"prior": "tice", "max_depth": 4}},
        },
        "experiments": {
            "snar_alpha": {
                "paper_table": "Figure 3 (tiny)",
                "datasets": [{"name": "pulsnar_snar", "params": {"frac": f, "n_unlabeled": 1500,
                                                                  "n_labeled_per_subclass": 100}}
                             for f in (0.1, 0.3)],
                "settings": [{"mechanism": "snar_subclass", "n_labeled_per_group": 100}],
                "split": {"test_size": 0.0, "evaluate_on": "unlabeled"},
                "methods": ["pulscar", "pulsnar", "tice", "en"],
                "repetitions": 2,
                "metrics": ["alpha_u_abs_error", "fit_seconds"],
            },
            "tice_c": {
                "datasets": [{"name": "breast_cancer_wisconsin_original", "positive": "bekker_tice"},
                             {"name": "breast_cancer_wisconsin_original", "positive": "bekker_tice_nu"}],
                "settings": [{"mechanism": "scar_c", "c": 0.3}, {"mechanism": "scar_c", "c": 0.7}],
                "split": {"test_size": 0.0, "evaluate_on": "unlabeled"},
                "methods": ["tice", "tice_mp"],
                "repetitions": 2,
                "metrics": ["prior_abs_error", "ms_per_example"],
                "report": {"estimates": {"x": "c_true", "y": "prior_abs_error", "panel": "dataset",
                                         "x_decimals": 1}},
            },
            "clf": {
                "datasets": [{"name": "pulsnar_scar", "params": {"frac": 0.3, "n_unlabeled": 1500,
                                                                  "n_labeled": 500}}],
                "settings": [{"mechanism": "pulsnar_alpha", "alpha": 0.3}],
                "split": {"test_size": 0.3},
                "methods": ["pu_tree_tice"],
                "repetitions": 1,
                "metrics": ["accuracy"],
            },
        },
        "targets": {
            "figure_3": {"experiments": ["snar_alpha"]},
            "figure_3_1": {"experiments": ["tice_c", "clf"]},
        },
    }
    write_config(tmp_path, cfg)
    snakemake(tmp_path, "figure_3", "figure_3_1", "--cores", "2")
    agg = pd.read_parquet(tmp_path / "results" / "aggregate" / "snar_alpha.parquet")
    assert len(agg) == 2 * 4 * 2
    assert set(np.round(agg["alpha_u_true"], 3)) == {0.1, 0.3}
    # the three estimates of a row are one estimate in three forms (thesis eqs. 2.5-2.7)
    lf = agg["n_labeled"] / agg["n_train"]
    np.testing.assert_allclose(agg["prior_hat"], lf + agg["alpha_u_hat"] * (1 - lf))
    np.testing.assert_allclose(agg["c_hat"], lf / agg["prior_hat"])
    np.testing.assert_allclose(agg["alpha_u_abs_error"], (agg["alpha_u_hat"] - agg["alpha_u_true"]).abs())
    assert (agg.loc[agg["method"] == "pulsnar", "n_clusters"] >= 1).all()
    tables, figures = tmp_path / "results" / "tables", tmp_path / "results" / "figures"
    md = (tables / "snar_alpha.prior_estimates.md").read_text()
    assert "| alpha_u_true | pulscar | pulsnar | tice | en |" in md
    csv = pd.read_csv(tables / "snar_alpha.prior_estimates.csv")
    assert set(csv["method"]) == {"pulscar", "pulsnar", "tice", "en"} and (csv["n"] == 2).all()
    assert (figures / "prior_estimates_snar_alpha.png").read_bytes()[:4] == b"\x89PNG"
    assert (figures / "prior_estimates_tice_c.pdf").read_bytes()[:4] == b"%PDF"
    assert (tables / "snar_alpha.alpha_u_abs_error.all.md").exists()
    tice = pd.read_parquet(tmp_path / "results" / "aggregate" / "tice_c.parquet")
    assert set(tice["c_true"].round(1)) == {0.3, 0.7} and tice["prior_abs_error"].notna().all()
    csv = pd.read_csv(tables / "tice_c.prior_estimates.csv")
    assert set(csv["panel"]) == {"breast_cancer_wisconsin_original-pos_bekker_tice",
                                 "breast_cancer_wisconsin_original-pos_bekker_tice_nu"}
    clf = pd.read_parquet(tmp_path / "results" / "aggregate" / "clf.parquet")
    assert clf["prior_hat"].between(0.05, 0.95).all() and clf["accuracy"].notna().all()


def test_half_moons_figure_target(tmp_path):
    """The PU Hellinger trees paper's Figure 2 as a named target (rule half_moons)."""
    cfg = {
        "seed": 3,
        "dask": {"threads": 1, "mem_mb": 2000},
        "methods": {"naive_lr": {"method": "naive", "base": "logistic_regression"}},
        "experiments": {"unused": {"datasets": ["breast_cancer"], "settings": [{"mechanism": "scar_c", "c": 0.5}],
                                   "methods": ["naive_lr"], "repetitions": 1}},
        "half_moons": {"n_samples": 1000},
        "targets": {"figure_2": {"half_moons": True}},
    }
    write_config(tmp_path, cfg)
    snakemake(tmp_path, "figure_2", "--cores", "1")
    for ext, magic in (("png", b"\x89PNG"), ("pdf", b"%PDF")):
        assert (tmp_path / "results" / "figures" / f"half_moons.{ext}").read_bytes()[:4] == magic
    summary = pd.read_csv(tmp_path / "results" / "half_moons" / "summary.csv")
    assert list(summary["model"]) == ["CART", "HDT", "PU-HDT"]
    assert summary["auc_pr_unlabeled"].between(0, 1).all()
    assert (tmp_path / "logs" / "half_moons" / "half_moons.log").exists()
    assert not (tmp_path / "results" / "aggregate").exists()        # only the figure was built
