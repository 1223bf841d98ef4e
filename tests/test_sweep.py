"""pu_lib.workflow.experiments.sweep (rule sweep: a metric against a setting or method parameter,
Bekker thesis Figures 5.4-5.10) and the report.sweeps config checks."""

import copy
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from pu_lib.workflow.experiments.config import ConfigError, Grid, validate_config
from pu_lib.workflow.experiments.sweep import (
    check_sweep,
    sweep_figure,
    sweep_markdown,
    sweep_summary,
    write_sweep_outputs,
)

METHODS = {
    "sar_true": {"method": "propensity_weighted"},  # propensity_bias: registry default 1.0
    "sar_half": {"method": "propensity_weighted", "params": {"propensity_bias": 0.5}},
    "naive": {"method": "label_frequency_weighted", "params": {"label_frequency": 1.0}},
    "plain": {"method": "naive"},  # no propensity_bias at all
}
# config order of the settings: k = 2 first; "anticorrelated" before "correlated"
SETTINGS = [
    ("sar-k2", {"k": 2}),
    ("sar-k1-anti", {"k": 1, "selection": "anticorrelated"}),
    ("sar-k1-corr", {"k": 1, "selection": "correlated"}),
]


def _value(dataset, setting, method, rep):
    """A metric value that tells every (data set, setting, method, repetition) apart."""
    return (0.1 * (1 + list(METHODS).index(method)) + 0.01 * [s for s, _ in SETTINGS].index(setting)
            + 0.002 * rep + (0.5 if dataset == "b" else 0.0))


def _results():
    rows = []
    for dataset in ("a", "b"):
        # the aggregate's row order: sorted by setting id, not the config's order
        for setting, params in sorted(SETTINGS):
            for method, spec in sorted(METHODS.items()):
                for rep in range(3):
                    rows.append({
                        "experiment": "e", "dataset": dataset, "dataset_name": dataset, "setting": setting,
                        "mechanism": "sar", "setting_params": json.dumps(params, sort_keys=True),
                        "method": method, "method_spec": json.dumps(spec, sort_keys=True), "rep": rep,
                        "brier": _value(dataset, setting, method, rep),
                        "propensity_mse": np.nan if method in ("naive", "plain") else 0.01 * (rep + 1),
                    })
    return pd.DataFrame(rows)


def _interval(vals):
    """Mean and 95% t interval, clipped to [0, 1] (the range of the metrics used here)."""
    vals = np.asarray(vals, dtype=float)
    half = st.t.ppf(0.975, len(vals) - 1) * vals.std(ddof=1) / np.sqrt(len(vals))
    return vals.mean(), max(vals.mean() - half, 0.0), min(vals.mean() + half, 1.0)


def _row(summary, panel, x, series):
    r = summary[(summary["panel"] == panel) & (summary["x"] == x) & (summary["series"] == series)]
    assert len(r) == 1, r
    return r.iloc[0]


def test_setting_sweep_pools_repetitions_and_settings_of_one_x():
    s = sweep_summary(_results(), "setting.k", "brier", series={"sar_true": "SAR", "naive": "Naive"})
    assert list(s.columns) == ["panel", "x", "series", "n", "mean", "sd", "lo", "hi", "points"]
    assert s["x"].dtype == np.int64 and list(s["x"][:4]) == [1, 1, 2, 2]  # numeric: ascending
    assert list(s["series"][:2]) == ["SAR", "Naive"]  # the order of the series mapping
    assert set(s["series"]) == {"SAR", "Naive"}  # methods not listed are left out
    # k = 1: both k1 settings x 3 repetitions pooled
    vals = [_value("a", st_, "sar_true", r) for st_ in ("sar-k1-anti", "sar-k1-corr") for r in range(3)]
    mean, lo, hi = _interval(vals)
    r = _row(s, "a", 1, "SAR")
    assert r["n"] == 6 and r["mean"] == pytest.approx(mean) and r["sd"] == pytest.approx(np.std(vals, ddof=1))
    assert r["lo"] == pytest.approx(lo) and r["hi"] == pytest.approx(hi)
    r = _row(s, "b", 2, "Naive")
    mean, lo, hi = _interval([_value("b", "sar-k2", "naive", rep) for rep in range(3)])
    assert r["n"] == 3 and r["mean"] == pytest.approx(mean) and r["lo"] == pytest.approx(lo)


def test_methods_sharing_a_label_join_one_series_and_method_defaults_come_from_the_registry():
    df = _results()
    s = sweep_summary(df, "method.propensity_bias", "brier",
                      series={"sar_true": "SAR", "sar_half": "SAR", "naive": "Naive"})
    a = s[s["panel"] == "a"]
    # sar_true has no propensity_bias: the registry default 1.0; naive (label frequency) too
    assert [(x, str(m)) for x, m in zip(a["x"], a["series"])] == [(0.5, "SAR"), (1.0, "SAR"), (1.0, "Naive")]
    r = _row(s, "a", 0.5, "SAR")
    mean, lo, hi = _interval(df.loc[(df["dataset_name"] == "a") & (df["method"] == "sar_half"), "brier"])
    assert r["n"] == 9 and r["mean"] == pytest.approx(mean) and r["hi"] == pytest.approx(hi)
    # a method without the parameter cannot be placed on the axis
    with pytest.raises(ValueError, match="has no parameter 'propensity_bias'"):
        sweep_summary(df, "method.propensity_bias", "brier")


def test_categorical_x_in_the_config_order_of_the_settings():
    df = _results()
    series = {"sar_true": "SAR"}
    s = sweep_summary(df, "setting.selection", "brier", series=series, settings=[s for s, _ in SETTINGS])
    # k2 leaves selection at the sar default "random"; config order: random, anticorrelated, correlated
    assert list(s.loc[s["panel"] == "a", "x"]) == ["random", "anticorrelated", "correlated"]
    assert list(s["x"].cat.categories) == ["random", "anticorrelated", "correlated"]
    # without the config's order: first appearance in the rows (the aggregate sorts by setting id)
    s = sweep_summary(df, "setting.selection", "brier", series=series)
    assert list(s.loc[s["panel"] == "a", "x"]) == ["anticorrelated", "correlated", "random"]


def test_where_keeps_the_matching_settings():
    df = _results()
    s = sweep_summary(df, "setting.k", "brier", series={"sar_true": "SAR"}, where={"selection": "correlated"})
    assert list(s["x"]) == [1, 1] and (s["n"] == 3).all()  # sar-k1-corr only
    assert _row(s, "a", 1, "SAR")["mean"] == pytest.approx(np.mean([_value("a", "sar-k1-corr", "sar_true", r)
                                                                     for r in range(3)]))
    # defaults count: sar-k2 has selection "random"; a list keeps any of its values
    s = sweep_summary(df, "setting.k", "brier", series={"sar_true": "SAR"},
                      where={"selection": ["random", "correlated"]})
    assert list(s.loc[s["panel"] == "a", "n"]) == [3, 3]
    # a setting outside the where needs no x parameter
    settings = [("sar", {"k": 1}), ("scar_c", {"c": 0.5})]
    check_sweep({"x": "setting.k", "metrics": ["brier"], "where": {"selection": "random"}}, name="s",
                methods=METHODS, settings=settings)
    with pytest.raises(ValueError, match=r"s\.x: label setting 1 \(scar_c\) has no parameter 'k'"):
        check_sweep({"x": "setting.k", "metrics": ["brier"]}, name="s", methods=METHODS, settings=settings)
    with pytest.raises(ValueError, match=r"s\.where\.colour: no label setting"):
        check_sweep({"x": "setting.k", "metrics": ["brier"], "where": {"colour": 1}}, name="s",
                    methods=METHODS, settings=settings)
    with pytest.raises(ValueError, match=r"s\.where: keeps none"):
        check_sweep({"x": "setting.k", "metrics": ["brier"], "where": {"k": [5, 6]}}, name="s",
                    methods=METHODS, settings=settings)


def test_nan_rows_are_dropped_and_series_default_to_every_method():
    df = _results()
    s = sweep_summary(df, "setting.k", "propensity_mse", methods=["sar_half", "sar_true", "naive", "plain"])
    assert list(pd.unique(s["series"])) == ["sar_half", "sar_true"]  # no propensity model: not drawn
    assert list(s["series"].cat.categories) == ["sar_half", "sar_true", "naive", "plain"]
    mean, lo, _ = _interval([0.01, 0.02, 0.03])
    r = _row(s, "b", 2, "sar_true")
    assert r["n"] == 3 and r["mean"] == pytest.approx(mean) and r["lo"] == pytest.approx(lo)
    one = sweep_summary(df[df["rep"] == 0], "setting.k", "brier")
    assert one.loc[one["x"] == 2, "lo"].isna().all()  # one row per cell: no interval


def test_single_x_series_is_a_dashed_line_with_a_band_and_markdown_cells():
    s = sweep_summary(_results(), "method.propensity_bias", "brier",
                      series={"sar_true": "SAR", "sar_half": "SAR", "naive": "Naive"})
    fig = sweep_figure(s, "propensity bias", "brier", title="t")
    ax = fig.axes[0]
    naive = [line for line in ax.get_lines() if line.get_label() == "Naive"]
    assert len(naive) == 1 and naive[0].get_linestyle() == "--"
    assert list(naive[0].get_xdata()) == [0, 1]  # axes coordinates: across the panel
    r = _row(s, "a", 1.0, "Naive")
    assert naive[0].get_ydata()[0] == pytest.approx(r["mean"])
    assert len(ax.patches) == 1  # the interval band
    md = sweep_markdown(s, "propensity bias", "brier", decimals=2, title="T")
    assert "## a" in md and "## b" in md and "| propensity bias | SAR | Naive |" in md
    sar = _row(s, "a", 0.5, "SAR")
    assert f"| 0.5 | {sar['mean']:.2f} [{sar['lo']:.2f}, {sar['hi']:.2f}] |  |" in md
    cat = sweep_figure(sweep_summary(_results(), "setting.selection", "brier"), "selection", "brier")
    assert [t.get_text() for t in cat.axes[0].get_xticklabels()] == ["anticorrelated", "correlated", "random"]


def test_write_sweep_outputs(tmp_path):
    out = {k: tmp_path / f"f.{k}" for k in ("png", "pdf", "md", "csv")}
    options = {"x": "setting.k", "metrics": ["brier"], "series": {"sar_true": "SAR", "naive": "Naive"},
               "x_label": "number of propensity attributes", "description": "Figure 5.4", "decimals": 3,
               "methods": list(METHODS), "settings": [s for s, _ in SETTINGS]}
    msg = write_sweep_outputs(_results(), experiment="e", sweep="fig_5_4", metric="brier", options=options,
                              outputs=out)
    assert "2 panels, 2 series" in msg
    assert out["png"].read_bytes()[:4] == b"\x89PNG" and out["pdf"].read_bytes()[:4] == b"%PDF"
    csv = pd.read_csv(out["csv"])
    assert list(csv.columns) == ["panel", "x", "series", "n", "mean", "sd", "lo", "hi", "points"] and len(csv) == 8
    md = out["md"].read_text()
    assert md.startswith("# e: Brier score by number of propensity attributes") and "Figure 5.4" in md
    with pytest.raises(ValueError, match=r"experiments\.e\.report\.sweeps\.fig_5_4\.series\.nope: 'nope' is not"):
        write_sweep_outputs(_results(), experiment="e", sweep="fig_5_4", metric="brier",
                            options={**options, "series": {"nope": "X"}}, outputs=out)


@pytest.mark.parametrize("spec, name, match", [
    ({"x": "k", "metrics": ["brier"]}, "s", r"s\.x: must be 'setting.<param>'"),
    ({"x": "label.k", "metrics": ["brier"]}, "s", r"s\.x: must be"),
    ({"x": "setting.k", "metrics": ["brier"]}, "fig.5", r"sweeps\.fig\.5: a sweep name may hold"),
    ({"x": "setting.k", "metrics": ["brier", "mse"]}, "s", r"s\.metrics\[1\]: unknown metric 'mse'"),
    ({"x": "setting.k", "metrics": ["brier"], "series": {"svm": "SVM"}}, "s", r"s\.series\.svm: 'svm' is not a method"),
    ({"x": "setting.c", "metrics": ["brier"]}, "s", r"s\.x: label setting 0 \(sar\) has no parameter 'c'"),
    ({"x": "method.propensity_bias", "metrics": ["brier"]}, "s", r"s\.x: method 'plain' \(naive\) has no parameter"),
    ({"x": "setting.k", "metrics": ["brier"], "panel": "colour"}, "s", r"s\.panel: must be one of"),
])
def test_check_sweep_names_the_field(spec, name, match):
    with pytest.raises(ValueError, match=match):
        check_sweep(spec, name=name, methods=METHODS, settings=[("sar", p) for _, p in SETTINGS],
                    path="experiments.e.report.sweeps")
    check_sweep({"x": "method.propensity_bias", "metrics": ["propensity_mse"], "series": {"sar_true": "SAR"}},
                name="ok", methods=METHODS, settings=[("sar", p) for _, p in SETTINGS])


CONFIG = {
    "methods": {"naive": METHODS["naive"], "sar_true": METHODS["sar_true"]},
    "experiments": {
        "sar": {
            "datasets": ["breast_cancer"],
            "settings": [{"mechanism": "sar", "k": 1, "min_std": 0.3}, {"mechanism": "sar", "k": 2, "min_std": 0.3}],
            "methods": ["naive", "sar_true"],
            "metrics": ["brier"],
        },
    },
}


def _with_sweeps(sweeps):
    cfg = copy.deepcopy(CONFIG)
    cfg["experiments"]["sar"]["report"] = {"sweeps": sweeps}
    return cfg


def test_config_sweeps_validate_without_changing_hashes(schema_path):
    plain = validate_config(CONFIG, schema_path)
    assert "sweeps" not in plain["experiments"]["sar"]["report"]  # no default
    cfg = validate_config(_with_sweeps({"fig_5_4": {"x": "setting.k", "metrics": ["brier"],
                                                    "series": {"sar_true": "SAR", "naive": "Naive"}}}), schema_path)
    assert cfg["experiments"]["sar"]["report"]["sweeps"]["fig_5_4"]["panel"] == "dataset_name"
    assert Grid(cfg).experiment_hash("sar") == Grid(plain).experiment_hash("sar")


@pytest.mark.parametrize("sweeps, expected", [
    ({"fig.5": {"x": "setting.k", "metrics": ["brier"]}}, "experiments.sar.report.sweeps.fig.5: a sweep name"),
    ({"s": {"x": "params.k", "metrics": ["brier"]}}, "experiments.sar.report.sweeps.s.x: must be 'setting.<param>'"),
    ({"s": {"x": "setting.k", "metrics": ["nope"]}}, "experiments.sar.report.sweeps.s.metrics[0]: unknown metric"),
    ({"s": {"x": "setting.k", "metrics": ["brier"], "series": {"svm": "S"}}},
     "experiments.sar.report.sweeps.s.series.svm: 'svm' is not a method of the experiment"),
    ({"s": {"x": "setting.k"}}, "'metrics' is a required property"),
])
def test_config_sweep_errors_name_experiment_and_field(schema_path, sweeps, expected):
    with pytest.raises(ConfigError) as exc:
        validate_config(_with_sweeps(sweeps), schema_path)
    assert expected in str(exc.value)
