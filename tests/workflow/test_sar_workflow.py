"""The SAR experiment of Bekker's thesis (chapter 5) through the real workflow on a tiny
config: breast cancer scaled to [-1, 1], SAR labels on two random propensity attributes,
all six approaches (Supervised, SAR with the true e, SCAR with the true c, SAR-EM, SCAR
with TIcE's c, Naive); the label file carries the realised propensity attributes to
SAR-EM, ``label_frequency: true`` becomes the true c, and the pooled Table 5.2-5.3 layout
is written for the classifier MSE (brier) and the propensity-model MSE."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import run_snakemake, write_config

pytestmark = pytest.mark.workflow

METHODS = {
    "supervised": {"method": "supervised", "base": "weighted_logistic_regression"},
    "sar_true_e": {"method": "propensity_weighted"},
    "scar_true_c": {"method": "label_frequency_weighted", "params": {"label_frequency": True}},
    "sar_em": {"method": "sar_em"},
    "scar_tice_c": {"method": "label_frequency_weighted", "params": {"label_frequency": "tice"}},
    "naive": {"method": "label_frequency_weighted", "params": {"label_frequency": 1.0}},
}
CONFIG = {
    "seed": 5,
    "cache_dir": ".cache/pu_lib",
    "dask": {"threads": 1, "mem_mb": 2000},
    "methods": METHODS,
    "experiments": {
        "sar": {
            "datasets": [{"name": "breast_cancer", "scale": "minus1_1"}],
            "settings": [{"mechanism": "sar", "k": 2, "selection": "random", "min_std": 0.3},
                         {"mechanism": "sar", "k": 2, "selection": "correlated", "min_std": 0.3}],
            "split": {"test_size": 0.2},
            "methods": list(METHODS),
            "repetitions": 3,
            "metrics": ["brier", "propensity_mse"],
            "report": {"per_dataset_layout": "pooled", "pool_where": {"selection": "random"},
                       "groupings": ["all"]},
        },
    },
}


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    wd = tmp_path_factory.mktemp("sar")
    write_config(wd, CONFIG, sort_keys=False)
    run_snakemake(wd, "--cores", "2")
    return wd


def test_label_files_carry_the_sar_attributes(ran):
    lab = pd.read_parquet(ran / "results" / "labels" / "sar" / "breast_cancer-scaled"
                          / "sar-k2-min_std0.3-selectionrandom.parquet")
    for rep, part in lab.groupby("rep"):
        attrs = json.loads(part["propensity_attributes"].iloc[0])
        assert len(attrs) == 2 and part["propensity_attributes"].nunique() == 1


def test_every_approach_is_scored_and_the_propensity_models_are_measured(ran):
    agg = pd.read_parquet(ran / "results" / "aggregate" / "sar.parquet")
    assert set(agg["method"]) == set(METHODS) and len(agg) == 2 * 3 * len(METHODS)
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
    for metric in ("brier", "propensity_mse"):
        md = (ran / "results" / "tables" / f"sar.{metric}.per_dataset.md").read_text()
        csv = pd.read_csv(ran / "results" / "tables" / f"sar.{metric}.per_dataset.csv")
        assert len(csv) > 0
    agg = pd.read_parquet(ran / "results" / "aggregate" / "sar.parquet")
    rnd = agg[agg["setting"] == "sar-k2-min_std0.3-selectionrandom"]
    md = (ran / "results" / "tables" / "sar.brier.per_dataset.md").read_text()
    # the pooled cell of SAR-EM is the mean over the random-selection repetitions only
    want = f"{rnd.loc[rnd['method'] == 'sar_em', 'brier'].mean():.3f}"
    line = next(row for row in md.splitlines() if row.startswith("| sar_em"))
    assert want in line


def test_a_rerun_from_scratch_gives_identical_results(ran, tmp_path):
    cfg = dict(CONFIG, experiments={"sar": dict(CONFIG["experiments"]["sar"], methods=["sar_em", "sar_true_e"])})
    write_config(tmp_path, cfg, sort_keys=False)
    run_snakemake(tmp_path, "--cores", "1", "results/aggregate/sar.parquet")
    a = pd.read_parquet(ran / "results" / "aggregate" / "sar.parquet")
    b = pd.read_parquet(tmp_path / "results" / "aggregate" / "sar.parquet")
    cols = ["dataset", "setting", "method", "rep", "brier", "propensity_mse", "auc_roc"]
    a = a[a["method"].isin(["sar_em", "sar_true_e"])][cols].reset_index(drop=True)
    b = b[cols].reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert np.isfinite(a["brier"]).all()
