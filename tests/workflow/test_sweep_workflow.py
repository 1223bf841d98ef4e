"""Rule sweep in the real workflow: experiment ``sar`` of the tiny shared run
(tests/workflow/conftest.py: Breast Cancer scaled to [-1, 1], k = 1 and 2 random
propensity attributes and k = 2 correlated ones) with a report.sweeps block against
setting.k over the random settings, naive vs propensity-weighted with the true e."""

from __future__ import annotations

import pandas as pd
import pytest

pytestmark = [pytest.mark.workflow, pytest.mark.slow]


def test_sweep_figure_and_tables_are_written(tiny_run):
    wd = tiny_run.wd
    for ext in ("png", "pdf"):
        assert (wd / "results" / "figures" / f"sweep_sar.by_k.brier.{ext}").stat().st_size > 1000
    csv = pd.read_csv(wd / "results" / "tables" / "sar.sweep_by_k.brier.csv")
    assert list(csv.columns) == ["panel", "x", "series", "n", "mean", "sd", "lo", "hi", "points"]
    # the correlated setting (k = 2) is not among the points: 3 repetitions each
    assert list(zip(csv["panel"], csv["x"], csv["series"])) == [
        ("breast_cancer", 1, "SAR"), ("breast_cancer", 1, "Naive"),
        ("breast_cancer", 2, "SAR"), ("breast_cancer", 2, "Naive")]
    # 3 repetitions: an interval, not the points
    assert (csv["n"] == 3).all() and ((csv["lo"] <= csv["mean"]) & (csv["mean"] <= csv["hi"])).all()
    assert csv["points"].isna().all()
    agg = pd.read_parquet(wd / "results" / "aggregate" / "sar.parquet")
    k2 = agg[(agg["setting"] == "sar-k2-min_std0.3-selectionrandom") & (agg["method"] == "sar_true_e")]
    assert csv["mean"].iloc[2] == pytest.approx(k2["brier"].mean())
    md = (wd / "results" / "tables" / "sar.sweep_by_k.brier.md").read_text()
    assert "| number of propensity attributes | SAR | Naive |" in md and "## breast_cancer" in md
    assert (wd / "logs" / "sweep" / "sar.by_k.brier.log").exists()
