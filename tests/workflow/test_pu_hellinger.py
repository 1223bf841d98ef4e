"""The PU Hellinger trees paper config (config/papers/pu_hellinger.yaml) with its tiny variant
(config/papers/pu_hellinger_tiny.yaml): the real workflow on two small mirror data sets, the
table targets, significance marks, the refit protocol and the offline skip. The workflow
runs once for all workflow tests (fixture ``tiny_run`` of tests/workflow/conftest.py, which
merges both files and builds the table targets)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import PAPER_CONFIGS, TINY_MIRROR_TARGETS, needs_mirror

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[2]
PAPER = REPO / "config" / "papers" / "pu_hellinger.yaml"
TINY = REPO / "config" / "papers" / "pu_hellinger_tiny.yaml"
TINY_METHODS = ("PU-SHRF", "PU-HDT", "HDT", "nnPU")
TARGETS = ["pu_hellinger_table_3", "pu_hellinger_table_4", "pu_hellinger_table_a1",
           "pu_hellinger_tables_a2_a4_a6", "pu_hellinger_tables_a3_a5_a7"]


def test_paper_config_declares_the_protocol_and_one_target_per_table():
    cfg = yaml.safe_load(PAPER.read_text())
    exp = cfg["experiments"]["pu_hellinger"]
    assert exp["split"] == {"test_size": 0.3, "val_size": 0.5, "refit": True, "max_samples": 10000}
    assert [s["flip_ratio"] for s in exp["settings"]] == [0.25, 0.5, 0.75]
    assert exp["repetitions"] == 20 and exp["metrics"] == ["f1_tuned", "f1_test_oracle", "auc_pr", "auc_roc"]
    assert len(exp["datasets"]) == 15 and all(d["positive"] == "pu_hellinger" for d in exp["datasets"])
    optional = {d["name"] for d in exp["datasets"] if d.get("optional")}
    assert optional == {"churn_chile", "churn_korean", "creditcard_ulb_puhdt"}
    assert set(cfg["targets"]) == set(TARGETS) | {"pu_hellinger_figure_2"}
    assert cfg["targets"]["pu_hellinger_figure_2"]["half_moons"] is True
    assert cfg["half_moons"]["prior"] == 0.05 and cfg["half_moons"]["flip_ratio"] == 0.5   # Section 3.2
    assert {cfg["targets"][t]["metrics"][0] for t in TARGETS} == {"f1_tuned", "auc_pr", "auc_roc"}
    for name in ("PU-SHRF", "PU-HRF", "PU-HDT"):
        assert cfg["methods"][name]["params"]["prior"] is True
        assert cfg["methods"][name]["params"]["proba"] == "labeled_fraction"
    assert cfg["methods"]["PU-SHRF"]["params"]["bootstrap"] == "stratified"
    assert cfg["methods"]["PU-HRF"]["params"]["bootstrap"] == "standard"
    # the thirteen methods of Table 2: the four Hellinger methods, ADASYN + random forest and
    # the eight PU methods of Section 4.2, the risk-based ones with the true prior
    # (then the authors' variants of Elkan-Noto, nnPU, imbalanced nnPU and the two forests)
    assert len(exp["methods"]) == 18 and set(exp["methods"]) == set(cfg["methods"])
    assert {cfg["methods"][m]["method"] for m in exp["methods"][:13]} == {
        "pu_hellinger_forest", "pu_hellinger_tree", "hellinger_tree", "adasyn_rf", "upu_xgb", "nnpu_xgb",
        "imbalanced_nnpu_xgb", "pu_bagging", "rank_pruning", "pu_weighted_lr", "elkan_noto", "spy_em"}
    assert [cfg["methods"][m]["method"] for m in exp["methods"][13:]] == [
        "elkan_noto_pulearn", "nnpu_xgb_csboost", "imbalanced_nnpu_xgb_csboost", "pu_hellinger_forest",
        "pu_hellinger_forest"]
    for name in ("PU-SHRF", "PU-HRF"):  # the forests with the authors' N = 0 rule, otherwise the same
        assert cfg["methods"][f"{name}-authors"]["params"] == {**cfg["methods"][name]["params"],
                                                               "all_positive_split": "authors"}
    for name in ("uPU", "nnPU", "imbalanced-nnPU"):
        assert cfg["methods"][name]["params"]["prior"] is True


def test_the_shared_run_builds_the_paper_files_and_targets():
    assert PAPER_CONFIGS[:2] == [PAPER, TINY] and set(TARGETS) <= set(TINY_MIRROR_TARGETS)


@pytest.mark.slow
@needs_mirror
def test_offline_download_only_set_is_skipped_with_one_warning(tiny_run_output):
    _, out = tiny_run_output
    assert out.count("skipped offline: creditcard_ulb_puhdt (no mirror copy; set download: true)") == 1


@pytest.mark.slow
@needs_mirror
def test_summary_tables_have_significance_marks_per_flip_ratio(tiny_run_output):
    wd, _ = tiny_run_output
    for metric in ("f1_tuned", "auc_pr", "auc_roc"):
        md = (wd / "results" / "tables" / f"pu_hellinger.{metric}.setting.md").read_text()
        # one table per test convention (report.test_blocks), each naming its blocks
        parts = [p for p in md.split("### ") if p.strip()]
        assert len(parts) == 2
        assert "[test blocks: datasets]" in parts[0] and "[test blocks: dataset_repetitions]" in parts[1]
        assert "Test blocks (flip-25: N = 2; flip-75: N = 2): the data sets" in parts[0]
        assert "Test blocks (flip-25: N = 4; flip-75: N = 4): data set x repetition pairs" in parts[1]
        for part in parts:
            lines = part.splitlines()
            assert "| method | flip-25 | flip-75 |" in lines and "Holm vs best at 0.05" in lines[0]
            rows = [line for line in lines if line.startswith("| ") and line.split("|")[1].strip() in
                    TINY_METHODS]
            assert [r.split("|")[1].strip() for r in rows] == list(TINY_METHODS)
            # per flip ratio: the best cell bold and underlined, every cell either plain or bold
            # (bold = not rejected against the best-ranked method by Holm's test)
            for col in (2, 3):
                cells = [r.split("|")[col].strip() for r in rows]
                assert sum(c.startswith("**<ins>") for c in cells) >= 1
                assert all(re.fullmatch(r"(\*\*(<ins>)?)?\d\.\d{3} ± \d\.\d{3}((</ins>)?\*\*)?", c)
                           for c in cells), cells
            pline = next(line for line in lines if line.startswith("| Iman-Davenport p |"))
            assert len(re.findall(r"\d\.\d{4}|< ?0\.0001|1\.0000", pline)) == 2, pline
        stats = json.loads((wd / "results" / "stats" / f"pu_hellinger.{metric}.setting.json").read_text())
        assert stats["test_blocks"] == "datasets" and set(stats["by_test_blocks"]) == {
            "datasets", "dataset_repetitions"}
    assert not (wd / "results" / "tables" / "pu_hellinger.f1_tuned.all.md").exists()  # groupings: [setting]


@pytest.mark.slow
@needs_mirror
def test_per_dataset_tables_one_per_flip_ratio(tiny_run_output):
    wd, _ = tiny_run_output
    for metric in ("f1_tuned", "auc_pr"):
        md = (wd / "results" / "tables" / f"pu_hellinger.{metric}.per_dataset.md").read_text()
        titles = re.findall(r"^### .*$", md, flags=re.M)
        assert len(titles) == 2 and "(flip-25)" in titles[0] and "(flip-75)" in titles[1]
        # the paper's labels: A2 F1 25%, A3 AUC-PR 25%, ..., A6 F1 75%, A7 AUC-PR 75%
        labels = ("Table A2", "Table A6") if metric == "f1_tuned" else ("Table A3", "Table A7")
        assert [t.startswith(f"### {lab}. ") for t, lab in zip(titles, labels)] == [True, True]
        assert md.count("| method | CGO | YEA |") == 2


@pytest.mark.slow
@needs_mirror
def test_result_rows_follow_the_refit_protocol(tiny_run_output):
    wd, _ = tiny_run_output
    agg = pd.read_parquet(wd / "results" / "aggregate" / "pu_hellinger.parquet")
    assert set(agg["dataset"]) == {"CGO", "YEA"} and set(agg["rep"]) == {0, 1}
    assert set(agg["method"]) == set(TINY_METHODS)
    # refit on the whole training part (70%): train + val counted, half of it tuned on
    n = {"CGO": 1728, "YEA": 1484}
    for ds, rows in n.items():
        sub = agg[agg["dataset"] == ds]
        assert (sub["n_train"] + sub["n_eval"] == rows).all()
        assert (abs(sub["n_val"] - sub["n_train"] / 2) <= 1).all()
    assert agg["f1_threshold"].notna().all() and agg["f1_tuned"].between(0, 1).all()
    pu = agg[agg["method"].isin(["PU-SHRF", "PU-HDT", "nnPU"])]
    pd.testing.assert_series_equal(pu["prior_given"], pu["prior_true"], check_names=False)
    assert agg.loc[agg["method"] == "HDT", "prior_given"].isna().all()
    # 25% of the positives unlabeled: a labeled fraction of 0.75 of the training positives
    flip25 = agg[agg["setting"] == "flip-25"]
    assert ((flip25["c_true"] - 0.75).abs() < 0.1).all()


def test_threshold_grid_overlay_is_the_paper_experiment_with_the_authors_threshold_rule():
    from pu_lib.workflow.experiments.config import validate_config

    cfg = yaml.safe_load(PAPER.read_text())
    overlay = yaml.safe_load((REPO / "config" / "papers" / "pu_hellinger_threshold_grid.yaml").read_text())
    paper, grid = cfg["experiments"]["pu_hellinger"], overlay["experiments"]["pu_hellinger_grid"]
    for key in ("datasets", "settings", "methods", "repetitions"):
        assert grid[key] == paper[key], key
    assert grid["split"] == {**paper["split"], "threshold_rule": "grid"}
    merged = {**cfg, "experiments": {**cfg["experiments"], **overlay["experiments"]},
              "targets": {**cfg["targets"], **overlay["targets"]}}
    out = validate_config(merged, REPO / "workflow" / "schemas" / "config.schema.yaml")
    assert out["experiments"]["pu_hellinger_grid"]["split"]["threshold_rule"] == "grid"
