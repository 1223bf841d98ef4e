"""Per-round curves of boosting methods (pu_lib.workflow.experiments.curves)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pu_lib.ensemble import AdaPUClassifier
from pu_lib.workflow.experiments.curves import curve_figure, curve_summary, staged_scores


def _rows():
    return pd.DataFrame({
        "dataset": ["d"] * 3, "setting": ["s"] * 3, "method": ["b", "a", "a"],
        "staged_accuracy": [[0.5, 0.6], [0.2, 0.4, 0.9], [0.4, 0.6]],
    })


def test_summary_has_mean_and_sd_per_round_and_counts_short_runs_only_where_they_have_rounds():
    out = curve_summary(_rows(), "accuracy", methods=["a", "b"])
    a = out[out["method"] == "a"]
    assert list(a["round"]) == [1, 2, 3] and list(a["n"]) == [2, 2, 1]
    np.testing.assert_allclose(a["mean"], [0.3, 0.5, 0.9])
    np.testing.assert_allclose(a["sd"].iloc[:2], [np.std([0.2, 0.4], ddof=1), np.std([0.4, 0.6], ddof=1)])
    assert np.isnan(a["sd"].iloc[2])
    assert list(pd.unique(out["method"])) == ["a", "b"]  # the config's order


def test_methods_without_curves_are_left_out_and_a_missing_column_is_named():
    df = _rows()
    df.loc[0, "staged_accuracy"] = None
    assert set(curve_summary(df)["method"]) == {"a"}
    with pytest.raises(ValueError, match="staged_f1"):
        curve_summary(df, "f1")


def test_staged_scores_follow_staged_predict_and_end_at_the_final_model():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(int)
    s = ((y == 1) & (rng.random(300) < 0.4)).astype(int)
    m = AdaPUClassifier(n_estimators=15, learning_rate=0.3, prior=y.mean(), random_state=0).fit(X, s)
    out = staged_scores(m, X, y, ["accuracy", "f1"])
    assert len(out["staged_accuracy"]) == len(out["staged_f1"]) == 15
    assert out["staged_accuracy"][-1] == pytest.approx(np.mean(m.predict(X) == y))
    assert staged_scores(object(), X, y, ["accuracy"]) == {}  # no staged_predict: no curve
    with pytest.raises(ValueError, match="staged_metrics"):
        staged_scores(m, X, y, ["auc_pr"])
    fig = curve_figure(curve_summary(pd.DataFrame({"dataset": ["d"], "setting": ["s"], "method": ["ada"],
                                                   "staged_accuracy": [out["staged_accuracy"]]})))
    assert len(fig.axes[0].lines) == 1
