"""Rule sweep in the real workflow: a tiny SAR experiment (Breast Cancer, k = 1 and 2,
naive vs propensity-weighted) with a report.sweeps block against setting.k; the default
target builds the sweep figure and tables."""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import run_snakemake, write_config

pytestmark = pytest.mark.workflow

CONFIG = {
    "seed": 11,
    "cache_dir": ".cache/pu_lib",
    "dask": {"threads": 1, "mem_mb": 2000},
    "methods": {
        "naive": {"method": "label_frequency_weighted", "params": {"label_frequency": 1.0}},
        "sar_true": {"method": "propensity_weighted"},
    },
    "experiments": {
        "sar_k": {
            "datasets": ["breast_cancer"],
            # min_std 0.3: continuous attributes scaled to [-1, 1] rarely reach the thesis' 0.6
            "settings": [{"mechanism": "sar", "k": 1, "selection": "random", "min_std": 0.3},
                         {"mechanism": "sar", "k": 2, "selection": "random", "min_std": 0.3}],
            "methods": ["naive", "sar_true"],
            "repetitions": 2,
            "metrics": ["brier"],
            "report": {"sweeps": {"by_k": {"x": "setting.k", "metrics": ["brier"],
                                           "series": {"sar_true": "SAR", "naive": "Naive"},
                                           "where": {"selection": "random"},
                                           "x_label": "number of propensity attributes"}}},
        },
    },
}


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    wd = tmp_path_factory.mktemp("sweep")
    write_config(wd, CONFIG, sort_keys=False)  # series order
    return wd, run_snakemake(wd, "--cores", "2")


def test_sweep_figure_and_tables_are_written(ran):
    wd, _ = ran
    for ext in ("png", "pdf"):
        assert (wd / "results" / "figures" / f"sweep_sar_k.by_k.brier.{ext}").stat().st_size > 1000
    csv = pd.read_csv(wd / "results" / "tables" / "sar_k.sweep_by_k.brier.csv")
    assert list(csv.columns) == ["panel", "x", "series", "n", "mean", "sd", "lo", "hi"]
    assert list(zip(csv["panel"], csv["x"], csv["series"])) == [
        ("breast_cancer", 1, "SAR"), ("breast_cancer", 1, "Naive"),
        ("breast_cancer", 2, "SAR"), ("breast_cancer", 2, "Naive")]
    assert (csv["n"] == 2).all() and ((csv["lo"] <= csv["mean"]) & (csv["mean"] <= csv["hi"])).all()
    agg = pd.read_parquet(wd / "results" / "aggregate" / "sar_k.parquet")
    k2 = agg[(agg["setting"] == "sar-k2-min_std0.3-selectionrandom") & (agg["method"] == "sar_true")]
    assert csv["mean"].iloc[2] == pytest.approx(k2["brier"].mean())
    md = (wd / "results" / "tables" / "sar_k.sweep_by_k.brier.md").read_text()
    assert "| number of propensity attributes | SAR | Naive |" in md and "## breast_cancer" in md
    assert (wd / "logs" / "sweep" / "sar_k.by_k.brier.log").exists()
