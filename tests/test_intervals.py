"""Intervals over repetitions in tables and figures (pu_lib.workflow.reporting.mean_interval and the
summaries that use it): Student t with n - 1 degrees of freedom, clipped to the quantity's
range, and no interval but the values themselves below three repetitions."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from pu_lib.workflow.experiments.prior_report import estimate_figure, estimate_markdown, estimate_summary
from pu_lib.workflow.reporting import MIN_INTERVAL_N, interval_cell, mean_interval, value_range


def test_t_interval_with_n_minus_one_degrees_of_freedom():
    vals = np.array([0.2, 0.25, 0.3, 0.4])
    lo, hi = mean_interval(vals.mean(), vals.std(ddof=1), vals.size)
    half = st.t.ppf(0.975, 3) * vals.std(ddof=1) / 2
    assert lo == pytest.approx(vals.mean() - half) and hi == pytest.approx(vals.mean() + half)
    lo90, hi90 = mean_interval(vals.mean(), vals.std(ddof=1), vals.size, level=0.9)
    assert lo < lo90 < vals.mean() < hi90 < hi


def test_interval_is_clipped_to_the_range():
    vals = np.array([0.0, 0.02, 0.9])  # the unclipped t interval reaches far below 0 and above 1
    m, sd = vals.mean(), vals.std(ddof=1)
    raw_lo, raw_hi = mean_interval(m, sd, 3)
    assert raw_lo < 0 and raw_hi > 1
    lo, hi = mean_interval(m, sd, 3, bounds=value_range("alpha_u_hat"))
    assert (lo, hi) == (0.0, 1.0)
    lo, hi = mean_interval(-0.5, 0.6, 3, bounds=value_range("mcc"))
    assert lo == -1.0 and -1.0 < hi < 1.0


def test_fewer_than_three_repetitions_give_no_interval():
    assert MIN_INTERVAL_N == 3
    lo, hi = mean_interval([0.3, 0.3, 0.3], [0.1, 0.1, 0.1], [1, 2, 3])
    assert np.isnan(lo[:2]).all() and np.isnan(hi[:2]).all()
    assert np.isfinite(lo[2]) and np.isfinite(hi[2])
    with pytest.raises(ValueError, match="level"):
        mean_interval(0.3, 0.1, 3, level=95)
    with pytest.raises(ValueError, match="min_n"):
        mean_interval(0.3, 0.1, 3, min_n=1)


def test_value_ranges():
    assert value_range("alpha_u_hat") == (0.0, 1.0) == value_range("auc_pr") == value_range("brier")
    assert value_range("mcc") == (-1.0, 1.0)
    assert value_range("fit_seconds") == (0.0, float("inf"))
    assert value_range("something_else") == (-float("inf"), float("inf"))


def test_interval_cell():
    assert interval_cell(0.5, 0.4, 0.6) == "0.500 [0.400, 0.600]"
    assert interval_cell(0.5, np.nan, np.nan, [0.45, 0.55]) == "0.500 (values 0.450, 0.550)"
    assert interval_cell(0.5, np.nan, np.nan, [0.5], decimals=2) == "0.50"


def _two_and_four_repetitions():
    rows = [{"dataset_name": "d", "method": "two", "alpha_u_true": 0.3, "alpha_u_hat": v} for v in (0.1, 0.4)]
    rows += [{"dataset_name": "d", "method": "four", "alpha_u_true": 0.3, "alpha_u_hat": v}
             for v in (0.0, 0.01, 0.02, 0.6)]
    return pd.DataFrame(rows)


def test_estimate_summary_shows_points_below_three_repetitions_and_clips_to_zero_one():
    s = estimate_summary(_two_and_four_repetitions()).set_index("method")
    assert np.isnan(s.loc["two", "lo"]) and np.isnan(s.loc["two", "hi"])
    assert s.loc["two", "points"] == [0.1, 0.4]
    assert s.loc["four", "points"] is None
    assert s.loc["four", "lo"] == 0.0 and 0.0 < s.loc["four", "hi"] <= 1.0  # unclipped: below 0
    md = estimate_markdown(s.reset_index(), "alpha_u_true", "alpha_u_hat")
    assert "0.250 (values 0.100, 0.400)" in md and "0.158 [0.000, " in md


def test_estimate_figure_draws_the_repetitions_values_where_there_is_no_interval():
    s = estimate_summary(_two_and_four_repetitions())
    fig = estimate_figure(s, "alpha_u_true", "alpha_u_hat")
    ax = fig.axes[0]
    hollow = [line for line in ax.get_lines() if line.get_linestyle() == "None" and line.get_markerfacecolor() == "none"]
    assert len(hollow) == 1 and sorted(hollow[0].get_ydata()) == [0.1, 0.4]
