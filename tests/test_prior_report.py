"""pu_lib.workflow.experiments.prior_report (estimate figures/tables) and pu_lib.prior.evaluation.pulsnar_evaluation."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from pu_lib.workflow.experiments.prior_report import (
    _pool_curves,
    calibration_figure,
    classification_figure,
    classification_summary,
    estimate_figure,
    estimate_markdown,
    estimate_summary,
    write_estimate_outputs,
)


def _rows():
    rows = []
    for panel in ("a", "b"):
        for xv in (0.1, 0.3):
            for m, bias in (("m1", 0.0), ("m2", 0.05)):
                for r in range(4):
                    rows.append({"dataset_name": panel, "method": m, "alpha_u_true": xv + 1e-5 * r,
                                 "alpha_u_hat": xv + bias + 0.01 * r, "prior_abs_error": abs(bias) + 0.01 * r})
    return pd.DataFrame(rows)


def test_estimate_summary_mean_and_t_interval():
    s = estimate_summary(_rows(), methods=["m2", "m1"])
    assert len(s) == 2 * 2 * 2 and list(s["method"][:2]) == ["m2", "m1"]  # config order
    r = s[(s["panel"] == "a") & (s["x"] == 0.1) & (s["method"] == "m1")].iloc[0]
    vals = 0.1 + 0.01 * np.arange(4)
    assert r["n"] == 4 and r["mean"] == pytest.approx(vals.mean())
    half = st.t.ppf(0.975, 3) * vals.std(ddof=1) / 2
    assert r["lo"] == pytest.approx(vals.mean() - half) and r["hi"] == pytest.approx(vals.mean() + half)


def test_estimate_summary_errors_and_single_repetition():
    df = _rows()
    with pytest.raises(ValueError, match="x must be one of"):
        estimate_summary(df, x="nope")
    with pytest.raises(ValueError, match="no column 'c_true'"):
        estimate_summary(df, x="c_true")
    with pytest.raises(ValueError, match="panel"):
        estimate_summary(df, panel="colour")
    one = estimate_summary(df[df.index % 4 == 0])  # one repetition per cell
    assert (one["n"] == 1).all() and one["lo"].isna().all() and one["hi"].isna().all()


def test_markdown_and_outputs(tmp_path):
    df = _rows().assign(experiment="e")
    s = estimate_summary(df)
    md = estimate_markdown(s, "alpha_u_true", "alpha_u_hat")
    assert "## a" in md and "| alpha_u_true | m1 | m2 |" in md and "| 0.1 | 0.115 [" in md
    out = {k: tmp_path / f"f.{k}" for k in ("png", "pdf", "md", "csv")}
    msg = write_estimate_outputs(df, experiment="e", options={"methods": ["m1", "m2"]}, outputs=out)
    assert "2 panels, 2 methods" in msg
    assert out["png"].read_bytes()[:4] == b"\x89PNG" and out["pdf"].read_bytes()[:4] == b"%PDF"
    assert len(pd.read_csv(out["csv"])) == 8
    fig = estimate_figure(s, "alpha_u_true", "alpha_u_hat")
    assert any(line.get_label() == "true value" for ax in fig.axes for line in ax.get_lines())
    fig = estimate_figure(estimate_summary(df, y="prior_abs_error"), "alpha_u_true", "prior_abs_error")
    assert not any(line.get_label() == "true value" for ax in fig.axes for line in ax.get_lines())


def test_pool_curves_weights_bins_by_count():
    a = {"bin": [0, 2], "mean_predicted": [0.05, 0.25], "fraction_positive": [0.0, 0.5], "count": [10, 2]}
    b = {"bin": [2], "mean_predicted": [0.29], "fraction_positive": [1.0], "count": [2]}
    px, py = _pool_curves([a, b])
    np.testing.assert_allclose(px, [0.05, 0.27])
    np.testing.assert_allclose(py, [0.0, 0.75])


def test_pulsnar_evaluation_columns_and_figures():
    from pu_lib.datasets.synthetic import make_pulsnar_scar
    from pu_lib.prior.evaluation import pulsnar_evaluation
    from pu_lib.prior import PULSCAR, TIcE

    d = make_pulsnar_scar(0.3, n_labeled=150, n_unlabeled=450, n_features=10, random_state=0)
    s = d.meta["recipe_s"].to_numpy()
    y = d.target.astype(int)
    est = PULSCAR(random_state=0).fit(d.X, s)
    out = pulsnar_evaluation(est, d.X, s, y, {"calibration": True, "classification": True}, seed=1)
    again = pulsnar_evaluation(est, d.X, s, y, {"calibration": True, "classification": True}, seed=1)
    assert out == again
    curves = json.loads(out["calibration_curves"])
    assert set(curves) == {"PU", "U"} and set(curves["U"]) == {"uncalibrated", "calibrated"}
    assert sum(curves["U"]["calibrated"]["count"]) == int((s == 0).sum())
    assert sum(curves["PU"]["uncalibrated"]["count"]) == s.shape[0]
    # Algorithm 4: calibrated unlabeled probabilities sum to round(alpha |U|)
    assert out["calib_sum_U"] == pytest.approx(np.floor(est.alpha_ * (s == 0).sum() + 0.5), abs=1e-6)
    for m in ("accuracy", "auc_roc", "brier", "f1", "mcc", "average_precision"):
        assert np.isfinite(out[f"clf_with_{m}"]) and np.isfinite(out[f"clf_without_{m}"])
    assert pulsnar_evaluation(TIcE().fit(d.X, s), d.X, s, y, {"calibration": True}, seed=1) == {}

    rows = pd.DataFrame([dict(out, dataset_name="syn", method="pulscar", alpha_u_true=0.3, rep=r)
                         for r in range(2)])
    fig = calibration_figure(rows)
    assert len(fig.axes) == 1
    summ = classification_summary(rows, methods=["pulscar"])
    assert set(summ["method"]) == {"pulscar (with)", "pulscar (without)"} and summ["n"].eq(2).all()
    fig = classification_figure(summ)
    assert len(fig.axes) == 6
