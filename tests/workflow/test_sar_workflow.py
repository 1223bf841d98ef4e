"""The SAR experiment of Bekker's thesis (chapter 5) through the real workflow on a tiny
config: breast cancer scaled to [-1, 1], SAR labels on one or two random propensity
attributes and on two correlated ones,
all six approaches (Supervised, SAR with the true e, SCAR with the true c, SAR-EM, SCAR
with TIcE's c, Naive); the label file carries the realised propensity attributes to
SAR-EM, ``label_frequency: true`` becomes the true c, and the pooled Table 5.2-5.3 layout
is written for the classifier MSE (brier) and the propensity-model MSE. The experiment is
``sar`` of the tiny shared run (fixture ``tiny_run``, tests/workflow/conftest.py)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import SAR_METHODS as METHODS
from conftest import fit_frames, run_snakemake, tiny_config, write_config

pytestmark = [pytest.mark.workflow, pytest.mark.slow]

RANDOM_K1 = "sar-k1-min_std0.3-selectionrandom"
RANDOM = "sar-k2-min_std0.3-selectionrandom"
CORRELATED = "sar-k2-min_std0.3-selectioncorrelated"


@pytest.fixture
def ran(tiny_run):
    return tiny_run.wd


def test_label_files_carry_the_sar_attributes(ran):
    lab = pd.read_parquet(ran / "results" / "labels" / "sar" / "breast_cancer-scaled"
                          / "sar-k2-min_std0.3-selectionrandom.parquet")
    for rep, part in lab.groupby("rep"):
        attrs = json.loads(part["propensity_attributes"].iloc[0])
        assert len(attrs) == 2 and part["propensity_attributes"].nunique() == 1


def test_every_approach_is_scored_and_the_propensity_models_are_measured(ran):
    agg = pd.read_parquet(ran / "results" / "aggregate" / "sar.parquet")
    assert set(agg["method"]) == set(METHODS) and len(agg) == 3 * 3 * len(METHODS)
    assert agg["brier"].notna().all()
    has_model = agg["method"].isin(["sar_em", "scar_true_c", "scar_tice_c", "naive"])
    assert agg.loc[has_model, "propensity_mse"].notna().all()
    assert agg.loc[~has_model, "propensity_mse"].isna().all()
    # SCAR with the true c: c_hat is the mean true propensity of the training positives
    scar = agg[agg["method"] == "scar_true_c"]
    assert ((scar["c_hat"] > 0.2) & (scar["c_hat"] < 0.8)).all()
    # the naive propensity model is the constant 1: its MSE is the mean of (1 - e)^2 >= 0.04
    assert (agg.loc[agg["method"] == "naive", "propensity_mse"] >= 0.04 - 1e-12).all()
    # the oracle fits on the true classes
    assert (agg.loc[agg["method"] == "supervised", "fit_on"] == "y").all()
    # SAR-EM's propensity model beats the naive constant one on average
    mean = agg.groupby("method")["propensity_mse"].mean()
    assert mean["sar_em"] < mean["naive"]


def test_pooled_tables_follow_the_thesis_layout(ran):
    """Thesis Tables 5.2-5.3: one table per metric, the approaches as rows (in the config's
    order) and the data sets as columns, each cell the mean ± sd over the rows of every
    random-attribute setting pooled (the correlated setting left out)."""
    agg = pd.read_parquet(ran / "results" / "aggregate" / "sar.parquet")
    assert set(agg["setting"]) == {RANDOM_K1, RANDOM, CORRELATED}
    rnd = agg[agg["setting"].isin([RANDOM_K1, RANDOM])]
    for metric in ("brier", "propensity_mse"):
        want = rnd.groupby("method")[metric].agg(["mean", "std", "count"])
        csv = pd.read_csv(ran / "results" / "tables" / f"sar.{metric}.per_dataset.csv")
        assert list(csv["method"]) == list(METHODS) and (csv["metric"] == metric).all()
        assert set(csv["column"]) == {"breast_cancer-scaled"}               # one column per data set
        csv = csv.set_index("method")
        # pooled over 3 repetitions of the two random settings (not 9: correlated left out)
        np.testing.assert_array_equal(csv["n"], want.loc[csv.index, "count"])
        np.testing.assert_allclose(csv["mean"], want.loc[csv.index, "mean"], rtol=1e-5)
        np.testing.assert_allclose(csv["sd"], want.loc[csv.index, "std"], rtol=1e-5)
        scored = csv[csv["n"] > 0]
        assert (scored["n"] == 6).all()
        # the best (lowest MSE) approach is marked, and only it
        assert set(scored.index[scored["best"]]) == {scored["mean"].idxmin()}
        md = (ran / "results" / "tables" / f"sar.{metric}.per_dataset.md").read_text()
        titles = [line for line in md.splitlines() if line.startswith("### ")]
        assert len(titles) == 1 and "pooled: selection random" in titles[0], md
        assert "| method | breast_cancer-scaled |" in md.splitlines()
        rows = [line.split("|")[1].strip() for line in md.splitlines()
                if line.startswith("| ") and line.split("|")[1].strip() in METHODS]
        assert rows == list(METHODS)
    # the pooled cell of SAR-EM in the Markdown table is the mean over the random settings
    md = (ran / "results" / "tables" / "sar.brier.per_dataset.md").read_text()
    want = f"{rnd.loc[rnd['method'] == 'sar_em', 'brier'].mean():.3f}"
    line = next(row for row in md.splitlines() if row.startswith("| sar_em"))
    assert want in line


def test_a_rerun_from_scratch_gives_identical_results(ran, tmp_path):
    """One fit job of the shared run (SAR-EM on the random setting) run again in a fresh
    directory: the same rows."""
    cfg = tiny_config(mirror=False)
    cfg["experiments"] = {"sar": cfg["experiments"]["sar"]}
    cfg["targets"] = {}
    write_config(tmp_path, cfg, sort_keys=False)
    fit = f"sar/breast_cancer-scaled/{RANDOM}/sar_em.parquet"
    run_snakemake(tmp_path, "--cores", "1", f"results/fits/{fit}")
    a, b = fit_frames(ran)[fit], fit_frames(tmp_path)[fit]
    assert len(a) == 3 and np.isfinite(a["brier"]).all()
    pd.testing.assert_frame_equal(a, b)
