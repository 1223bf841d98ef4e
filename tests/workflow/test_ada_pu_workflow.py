"""The Ada-PU paper config (config/papers/ada_pu.yaml) with its tiny variant
(config/papers/ada_pu_tiny.yaml): the real workflow on Breast Cancer, the Table 2 and
Figure 3 targets, the per-round curves and the offline skip of epsilon and CIFAR-10. The
workflow runs once for all workflow tests (fixture ``tiny_run`` of
tests/workflow/conftest.py, which merges both files and builds the two targets; the paper
config's learning-rate experiment names a mirror data set, so these need the mirror)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import PAPER_CONFIGS, TINY_MIRROR_TARGETS, needs_mirror

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[2]
PAPER = REPO / "config" / "papers" / "ada_pu.yaml"
TINY = REPO / "config" / "papers" / "ada_pu_tiny.yaml"
BETAS = [0.001, 0.01, 0.1, 0.2, 0.5, 0.7, 0.9, 1.0]


def test_paper_config_declares_the_protocol_and_one_target_per_figure_and_table():
    cfg = yaml.safe_load(PAPER.read_text())
    assert set(cfg["targets"]) == {"ada_pu_table_2", "ada_pu_figures_1_2", "ada_pu_figure_3", "ada_pu_figure_5"}
    exps = cfg["experiments"]
    for name, exp in exps.items():
        assert exp["repetitions"] == 5 and exp["metrics"] == ["accuracy"] and exp["staged_metrics"] == ["accuracy"]
        assert exp["settings"][0]["mechanism"] == "case_control"
        n_labeled = exp["settings"][0]["n_labeled"]
        names = {d["name"] for d in exp["datasets"]}
        assert n_labeled == (10 if names == {"breast_cancer"} else 1000), name
    big = {d["name"]: d for d in exps["ada_pu_benchmarks"]["datasets"]}
    assert set(big) == {"unsw_nb15_testing_set", "unsw_nb15_official", "epsilon", "cifar10"}
    assert big["epsilon"]["optional"] and big["cifar10"]["optional"] and not big["unsw_nb15_testing_set"].get("optional")
    assert big["unsw_nb15_official"]["optional"]  # download-only: skipped offline
    methods = cfg["methods"]
    assert methods["ada_pu"] == {"method": "ada_pu", "params": {"prior": True}}
    assert methods["ada_pu_exhaustive"]["params"]["splitter"] == "best"
    assert {methods[m]["params"]["booster"] for m in ("pn_adaboost", "pn_gbdt", "pn_xgboost")} == {
        "adaboost", "gradient_boosting", "xgboost"}
    lr = [methods[m]["params"]["learning_rate"] for m in exps["ada_pu_learning_rate"]["methods"]]
    assert lr == BETAS and exps["ada_pu_learning_rate_bc"]["methods"] == exps["ada_pu_learning_rate"]["methods"]
    assert exps["ada_pu_thresholds"]["methods"] == ["ada_pu_lr_0_1", "ada_pu_exhaustive"]
    assert methods["ada_pu_exhaustive"]["params"]["learning_rate"] == 0.1


def test_the_shared_run_builds_the_paper_files_and_targets():
    assert PAPER_CONFIGS[2:] == [PAPER, TINY]
    assert {"ada_pu_table_2", "ada_pu_figure_3"} <= set(TINY_MIRROR_TARGETS)


@pytest.mark.slow
@needs_mirror
def test_download_only_sets_are_skipped_with_one_warning_each(tiny_run_output):
    _, out = tiny_run_output
    for name in ("epsilon", "cifar10"):
        assert out.count(f"skipped offline: {name} (no mirror copy; set download: true)") == 1


@pytest.mark.slow
@needs_mirror
def test_result_rows_follow_the_protocol_and_carry_per_round_accuracy(tiny_run_output):
    wd, _ = tiny_run_output
    agg = pd.read_parquet(wd / "results" / "aggregate" / "ada_pu_breast_cancer.parquet")
    assert set(agg["method"]) == {"ada_pu", "pn_adaboost", "pn_gbdt", "pn_xgboost"}
    assert set(agg["rep"]) == {0, 1} and (agg["n_labeled"] == 10).all()
    assert (agg["n_train"] + agg["n_eval"] == 569).all() and (agg["n_eval"] == 113).all()
    ada = agg[agg["method"].str.startswith("ada_pu")]
    np.testing.assert_allclose(ada["prior_given"], ada["prior_true"])
    assert (ada["fit_on"] == "s").all()
    pn = agg[agg["method"].str.startswith("pn_")]
    assert (pn["fit_on"] == "y").all()  # the PN baselines are trained on true classes
    # the authors' get_pn: n_p = the labeled count; Breast Cancer's prior 0.63 gives
    # int(0.885) = 0 negatives by the formula, so the documented minimum of 1
    assert (pn["pn_n_positives"] == 10).all() and (pn["pn_n_negatives"] == 1).all()
    for _, row in agg.iterrows():
        curve = np.asarray(row["staged_accuracy"], dtype=float)
        # scikit-learn's AdaBoost ends early when a stump fits the 11-row PN sample without
        # error (docs/ada_pu.md); every other method runs all 20 rounds
        assert (curve.shape == (20,)) if row["method"] != "pn_adaboost" else (1 <= len(curve) <= 20)
        assert np.all((curve >= 0) & (curve <= 1))
        assert curve[-1] == pytest.approx(row["accuracy"])  # the last round is the final model


@pytest.mark.slow
@needs_mirror
def test_table_2_and_the_curves_are_written(tiny_run_output):
    wd, _ = tiny_run_output
    md = (wd / "results" / "tables" / "ada_pu_breast_cancer.accuracy.per_dataset.md").read_text()
    assert "| method | breast_cancer-pos_ada_pu |" in md
    for m in ("ada_pu", "pn_adaboost", "pn_gbdt", "pn_xgboost"):
        assert f"| {m} |" in md
    for exp, methods in (("ada_pu_breast_cancer", 4), ("ada_pu_benchmarks", 5), ("ada_pu_thresholds", 2)):
        curves = pd.read_csv(wd / "results" / "tables" / f"{exp}.curves_accuracy.csv")
        for method, part in curves.groupby("method"):
            rounds = list(part["round"])
            # PN AdaBoost may end early (above); its rounds are still 1, 2, ..., k
            assert rounds == list(range(1, 21)) if method != "pn_adaboost" else rounds == list(range(1, len(rounds) + 1))
            assert (part["n"] == 2).all() if method != "pn_adaboost" else part["n"].between(1, 2).all()
        assert curves["method"].nunique() == methods
        for ext in ("png", "pdf"):
            assert (wd / "results" / "figures" / f"curves_{exp}.accuracy.{ext}").stat().st_size > 1000
    thr = pd.read_csv(wd / "results" / "tables" / "ada_pu_thresholds.curves_accuracy.csv")
    assert list(pd.unique(thr["method"])) == ["ada_pu_lr_0_1", "ada_pu_exhaustive"]


@pytest.mark.slow
@needs_mirror
def test_table_2_scorecard_puts_our_cells_beside_the_published_ones(tiny_run, tmp_path):
    """The target ada_pu_table_2 writes its scorecard (md, csv, html): every printed cell of
    Table 2, ours where the tiny run has it (Breast Cancer, 2 runs of the paper's 5: a
    reduced protocol), "not available" for the download-only sets and nnPU-CNN; the
    report of the target includes it."""
    wd = tiny_run.wd
    numeric = ("ours_mean", "ours_sd", "n_runs", "published_mean", "published_sd", "difference", "tolerance")
    card = pd.read_csv(wd / "results" / "scorecards" / "ada_pu_table_2.csv", keep_default_na=False,
                       na_values={c: [""] for c in numeric})
    published = pd.read_csv(REPO / "config" / "papers" / "ada_pu.published.csv")
    assert set(card["label"]) == set(published["label"])  # one row per printed cell
    bc = card[card["dataset"] == "breast_cancer-pos_ada_pu"].set_index("method")
    assert bc.loc["ada_pu", "published_mean"] == pytest.approx(92.21)
    for m in ("ada_pu", "pn_adaboost", "pn_gbdt", "pn_xgboost"):  # the tiny run's methods
        assert 0 <= bc.loc[m, "ours_mean"] <= 100 and bc.loc[m, "n_runs"] == 2
        assert bc.loc[m, "protocol"] == "reduced" and "reduced_protocol" in bc.loc[m, "cause_kind"]
        # the CSV keeps 6 significant digits
        assert bc.loc[m, "difference"] == pytest.approx(bc.loc[m, "ours_mean"] - bc.loc[m, "published_mean"], abs=1e-3)
    assert bc["ours_mean"].isna().sum() == len(bc) - 4  # the networks are not in the tiny run
    others = card[card["dataset"].isin(["epsilon-pos_ada_pu", "cifar10-pos_ada_pu"])]
    assert len(others) and others["ours_mean"].isna().all() and others["cause_kind"].str.contains("not_available").all()
    md = (wd / "results" / "scorecards" / "ada_pu_table_2.md").read_text()
    assert "Scorecard: ada_pu_table_2" in md and "published cells" in md and "| the paper's claim |" in md
    tiny_run.snakemake("ada_pu_table_2", "--report", tmp_path / "report.html")
    html = (tmp_path / "report.html").read_text(errors="replace")
    assert "ada_pu_table_2.html" in html and "Scorecard of target" in html
