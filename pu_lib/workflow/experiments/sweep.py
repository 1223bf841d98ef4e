"""Sweep figures and tables: one metric of a classifier experiment against a parameter of
the label setting or of the method (config ``report.sweeps``; rule ``sweep``).

A sweep names

* ``x``: ``setting.<param>`` (a key of the result column ``setting_params``, with the
  mechanism's defaults filled in by :func:`pu_lib.labeling.validate_mechanism_params`) or
  ``method.<param>`` (a key of the ``params`` of the result column ``method_spec``; a
  method without it gets the registry default,
  ``pu_lib.workflow.registry.parameter_schema(name)[param]["default"]``);
* ``metrics``: names of :data:`pu_lib.metrics.METRICS` (result columns such as
  ``propensity_mse`` included);
* ``series`` (optional): method -> series label; methods sharing a label are pooled into
  one line, methods not listed are left out. Without it every method is its own series;
* ``panel``: the column that splits the panels (``dataset_name`` by default);
* ``where`` (optional): setting parameter -> value or list of values, e.g.
  ``{selection: random}`` or ``{k: [1, 2, 3, 4]}``: only the rows of matching settings.

Bekker's thesis, section 5.6, Figures 5.4-5.10: the MSE of the classifier (``brier``) or
of the propensity model (``propensity_mse``) against the number of propensity attributes
``k`` (``setting.k``), their class correlation (``setting.selection``) or a propensity
bias factor (``method.propensity_bias``).

The numbers are pooled over repetitions and over settings (or methods of one series) that
share an x value: per (panel, x, series) the mean and the 95% t interval of the mean of
the pooled rows, clipped to the metric's range; with fewer than 3 pooled rows there is no
interval and the rows' values are shown instead
(:func:`pu_lib.workflow.experiments.prior_report.estimate_summary`). Rows with a
NaN metric are dropped, so a method without a propensity model does not appear in a
``propensity_mse`` sweep. Numeric x values are sorted ascending and drawn on a numeric
axis; any other x (e.g. ``random`` / ``correlated`` / ``anticorrelated``) is categorical,
in the order of first appearance in the settings order (the config's when given, else the
rows' order). A series with a single x value in a panel with several (the naive method of
a bias sweep) is drawn as a horizontal dashed line with its interval as a band.
"""

from __future__ import annotations

import json
import numbers
import re

import numpy as np
import pandas as pd

from pu_lib._optional import require
from pu_lib.workflow.experiments.prior_report import PANELS, estimate_summary
from pu_lib.metrics import METRICS
from pu_lib.workflow.reporting import (comparability_label, comparability_notes, interval_cell, not_comparable_labels,
                              value_range)
from pu_lib.workflow.reporting import resolved_setting as _resolved_setting
from pu_lib.workflow.reporting import row_settings as _row_settings
from pu_lib.workflow.reporting import setting_matches as _matches

__all__ = ["SWEEP_NAME", "check_sweep", "parse_x", "sweep_figure", "sweep_markdown", "sweep_summary",
           "write_sweep_outputs"]

#: a sweep name becomes a Snakemake wildcard between dots: no dots
SWEEP_NAME = re.compile(r"^[A-Za-z0-9_]+$")
_X_PREFIXES = ("setting", "method")
_SUMMARY_COLUMNS = ["panel", "x", "series", "n", "mean", "sd", "lo", "hi", "points"]


def parse_x(x) -> tuple[str, str]:
    """``"setting.k"`` -> ``("setting", "k")``; ValueError for anything else."""
    kind, dot, param = str(x).partition(".") if isinstance(x, str) else ("", "", "")
    if kind not in _X_PREFIXES or not dot or not re.fullmatch(r"[A-Za-z0-9_]+", param):
        raise ValueError(f"must be 'setting.<param>' (a label-setting parameter) or 'method.<param>' "
                         f"(a method parameter), got {x!r}")
    return kind, param


def _method_param(spec: dict, param: str):
    """``(found, value)`` of a method parameter: from the spec's params, else the registry
    default; ``found`` is False when the method has no such parameter."""
    from pu_lib.workflow import registry

    params = spec.get("params") or {}
    if param in params:
        return True, params[param]
    schema = registry.parameter_schema(spec["method"]) if spec.get("method") in registry.names() else {}
    if param in schema:
        return True, schema[param]["default"]
    return False, None


def check_sweep(spec: dict, *, name: str, methods: dict, settings: list, path: str = "report.sweeps") -> None:
    """Check one sweep against its experiment: ``methods`` maps the experiment's method
    names to their specs (``{method, params, ...}``), ``settings`` lists its label settings
    as ``(mechanism, params)``. Raises ValueError whose message starts with the field,
    ``<path>.<name>.<field>`` (e.g. ``experiments.sar.report.sweeps.fig_5_4.x``)."""
    base = f"{path}.{name}"
    if not SWEEP_NAME.match(str(name)):
        raise ValueError(f"{base}: a sweep name may hold letters, digits and _ only (it becomes a "
                         f"file-name part and a wildcard), got {name!r}")
    try:
        kind, param = parse_x(spec.get("x"))
    except ValueError as exc:
        raise ValueError(f"{base}.x: {exc}") from None
    metrics = spec.get("metrics")
    if not metrics or isinstance(metrics, str):
        raise ValueError(f"{base}.metrics: a non-empty list of metric names, got {metrics!r}")
    for j, m in enumerate(metrics):
        if m not in METRICS:
            raise ValueError(f"{base}.metrics[{j}]: unknown metric {m!r}; known: {', '.join(METRICS)}")
    series = spec.get("series")
    if series is not None:
        for m, label in series.items():
            if m not in methods:
                raise ValueError(f"{base}.series.{m}: {m!r} is not a method of the experiment "
                                 f"({', '.join(methods)})")
            if not isinstance(label, str) or not label:
                raise ValueError(f"{base}.series.{m}: the series label must be a non-empty string, got {label!r}")
    panel = spec.get("panel", "dataset_name")
    if panel not in PANELS:
        raise ValueError(f"{base}.panel: must be one of {PANELS}, got {panel!r}")
    where = spec.get("where")
    resolved = [_resolved_setting(mechanism, params) for mechanism, params in settings]
    if where:
        for key in where:
            if not any(key in p for p in resolved):
                raise ValueError(f"{base}.where.{key}: no label setting of the experiment has parameter {key!r}")
        if not any(_matches(p, where) for p in resolved):
            raise ValueError(f"{base}.where: keeps none of the experiment's label settings")
    if kind == "method":
        for m in (series if series is not None else methods):
            if not _method_param(methods[m], param)[0]:
                raise ValueError(f"{base}.x: method {m!r} ({methods[m].get('method')}) has no parameter "
                                 f"{param!r}; leave it out of the sweep with 'series'")
    else:
        for i, ((mechanism, _), params) in enumerate(zip(settings, resolved)):
            if _matches(params, where) and param not in params:
                raise ValueError(f"{base}.x: label setting {i} ({mechanism}) has no parameter {param!r}")


def _x_values(results: pd.DataFrame, kind: str, param: str) -> pd.Series:
    """The x value of every row (object dtype), read once per distinct spec."""
    if kind == "setting":
        keys = list(zip(results["mechanism"], results["setting_params"]))
        lookup = {}
        for key, params in zip(keys, _row_settings(results)):
            if param not in params:
                raise ValueError(f"x: setting {key[1]} ({key[0]}) has no parameter {param!r}")
            lookup[key] = params[param]
    else:
        keys = list(results["method_spec"])
        lookup = {}
        for raw in dict.fromkeys(keys):
            found, value = _method_param(json.loads(raw) if isinstance(raw, str) else raw, param)
            if not found:
                raise ValueError(f"x: method spec {raw} has no parameter {param!r}; leave the method out with 'series'")
            lookup[raw] = value
    return pd.Series([lookup[k] for k in keys], index=results.index, dtype=object)


def _is_number(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _category(v) -> str:
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str)


def _order(col: pd.Series) -> list:
    """The values of a summary column in their intended order: the categories of an
    ordered categorical, else the order of first appearance."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        present = set(col.dropna())
        return [c for c in col.cat.categories if c in present]
    return list(pd.unique(col))


def sweep_summary(results: pd.DataFrame, x: str, metric: str, series: dict | None = None,
                  panel: str = "dataset_name", *, where: dict | None = None, methods=None, settings=None,
                  level: float = 0.95) -> pd.DataFrame:
    """Mean, sd and ``level`` t interval of ``metric`` per (panel, x value, series).

    ``results`` are result rows (columns ``method``, ``setting``, ``mechanism``,
    ``setting_params`` and ``method_spec`` as JSON, the metric and ``panel``); ``x``,
    ``series`` and ``panel`` as in the config (module docstring). ``methods`` (the config's
    method order) orders the series when ``series`` is not given; ``settings`` (the
    config's setting ids) orders categorical x values (else the rows' order). ``where``
    (setting parameter -> value or list of values) keeps the rows of matching settings.

    Returns columns ``panel, x, series, n, mean, sd, lo, hi, points`` (``points``: the
    values where too few leave no interval, as in :func:`estimate_summary`), sorted by panel, x (numbers
    ascending, categories in order of first appearance) and series; ``series`` (and a
    categorical ``x``) is an ordered categorical carrying that order.
    """
    kind, param = parse_x(x)
    if metric not in METRICS:
        raise ValueError(f"metric: unknown metric {metric!r}; known: {', '.join(METRICS)}")
    if panel not in PANELS:
        raise ValueError(f"panel: must be one of {PANELS}, got {panel!r}")
    need = {"method", panel, metric, *(("mechanism", "setting_params") if kind == "setting" or where else ()),
            *(("method_spec",) if kind == "method" else ())}
    missing = sorted(need - set(results.columns))
    if missing:
        raise ValueError(f"the results have no column(s) {missing}")
    present = list(pd.unique(results["method"]))
    if series is None:
        ordered = [m for m in (methods or []) if m in present] + [m for m in present if m not in (methods or [])]
        series = {m: m for m in ordered}
    else:
        unknown = [m for m in series if m not in present]
        if unknown:
            raise ValueError(f"series: {unknown} are not methods of the experiment ({', '.join(present)})")
    labels = list(dict.fromkeys(series.values()))

    df = results[results["method"].isin(list(series)) & results[metric].notna()]
    if where:
        df = df[[_matches(p, where) for p in _row_settings(df)]]
    # categories in order of first appearance: rows in the config's setting (method) order
    col, order = ("setting", settings) if kind == "setting" else ("method", methods)
    if order is not None and col in df.columns:
        rank = {v: i for i, v in enumerate(order)}
        df = df.iloc[np.argsort(df[col].map(rank).fillna(len(rank)).to_numpy(), kind="stable")]
    xv = _x_values(df, kind, param)
    numeric = bool(len(xv)) and all(_is_number(v) for v in xv)
    if numeric:
        values = sorted(set(xv))
        code = {v: i for i, v in enumerate(values)}
        codes = xv.map(code)
    else:
        cats = xv.map(_category)
        values = list(pd.unique(cats))
        code = {v: i for i, v in enumerate(values)}
        codes = cats.map(code)
    frame = pd.DataFrame({panel: df[panel].to_numpy(), "alpha_u_true": codes.to_numpy(dtype=float),
                          "alpha_u_hat": df[metric].to_numpy(dtype=float),
                          "method": df["method"].map(series).to_numpy()})
    if frame.empty:
        out = pd.DataFrame(columns=_SUMMARY_COLUMNS)
    else:  # the t interval of estimate_summary, on x codes (exact: no rounding of x values)
        out = estimate_summary(frame, x="alpha_u_true", y="alpha_u_hat", panel=panel, x_decimals=0,
                               level=level, methods=labels, bounds=value_range(metric)).rename(
                                   columns={"method": "series"})
    xs = [values[int(c)] for c in out["x"]]
    if numeric:
        out["x"] = pd.Series(xs, dtype="int64" if all(isinstance(v, numbers.Integral) for v in xs) else float)
    else:
        out["x"] = pd.Categorical(xs, categories=values, ordered=True)
    out["series"] = pd.Categorical(out["series"], categories=labels, ordered=True)
    return out[_SUMMARY_COLUMNS].reset_index(drop=True)


def _fmt_x(v) -> str:
    return f"{v:g}" if _is_number(v) else str(v)


def sweep_markdown(summary: pd.DataFrame, x_label: str, metric: str, decimals: int = 3, title: str = "",
                   description: str = "") -> str:
    """Markdown: one table per panel, rows = x values, columns = series, cells
    ``mean [lo, hi]`` (the 95% interval; with fewer than 3 rows their values,
    :func:`pu_lib.workflow.reporting.interval_cell`)."""
    lines = [f"# {title}", ""] if title else []
    if description:
        lines += [description, ""]
    series = _order(summary["series"])
    for panel in pd.unique(summary["panel"]):
        part = summary[summary["panel"] == panel]
        lines += [f"## {panel}", "", f"{METRICS.get(metric, {}).get('label', metric)} (mean [95% CI]) by {x_label}", "",
                  "| " + " | ".join([x_label] + series) + " |", "|" + "---|" * (len(series) + 1)]
        for xv in _order(part["x"]):
            at = {r["series"]: r for _, r in part[part["x"] == xv].iterrows()}
            cells = [_fmt_x(xv)]
            for s in series:
                r = at.get(s)
                if r is None:
                    cells.append("")
                    continue
                cells.append(interval_cell(r["mean"], r["lo"], r["hi"], r.get("points"), decimals))
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def sweep_figure(summary: pd.DataFrame, x_label: str, metric: str, title: str = "",
                 not_comparable: dict | None = None):
    """One panel per ``panel`` value: the metric (mean, 95% interval as error bars) against
    x per series; numeric x on a numeric axis, other x as categories; a series with one x
    value in a panel with several is a horizontal dashed line with its interval as a band.
    A panel or series that names a data set of ``not_comparable``
    (:func:`pu_lib.workflow.reporting.not_comparable_labels`) is marked ‡, with the reason under the
    figure."""
    matplotlib = require("matplotlib", purpose="sweep figures")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from pu_lib.workflow.figures import draw_points, finish_panel_grid, panel_grid

    numeric = not isinstance(summary["x"].dtype, pd.CategoricalDtype) and all(_is_number(v) for v in summary["x"])
    panels = list(pd.unique(summary["panel"]))
    series = _order(summary["series"])
    nc = not_comparable or {}
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    style = {s: (cycle[j % len(cycle)], "osD^v<>ph*"[j % 10]) for j, s in enumerate(series)}
    fig, axes = panel_grid(len(panels))
    for ax, panel in zip(axes.flat, panels):
        part = summary[summary["panel"] == panel]
        xs = sorted(part["x"].unique()) if numeric else _order(part["x"])
        pos = {v: (float(v) if numeric else float(k)) for k, v in enumerate(xs)}
        dodge = 0.008 * ((max(pos.values()) - min(pos.values())) if len(xs) > 1 else 1.0)
        for j, s in enumerate(series):
            r = part[part["series"] == s]
            color, marker = style[s]
            if len(r) == 1 and len(xs) > 1:  # e.g. the naive method of a bias sweep
                mean, lo, hi = r.iloc[0][["mean", "lo", "hi"]]
                ax.axhline(mean, color=color, ls="--", lw=1.2, label=comparability_label(s, nc))
                if np.isfinite(lo):
                    ax.axhspan(lo, hi, color=color, alpha=0.12, lw=0)
            elif len(r):
                below, above = (r["mean"] - r["lo"]).fillna(0.0), (r["hi"] - r["mean"]).fillna(0.0)
                at = [pos[v] + (j - (len(series) - 1) / 2) * dodge for v in r["x"]]
                ax.errorbar(at, r["mean"], yerr=np.vstack([below, above]), label=comparability_label(s, nc),
                            color=color, marker=marker,
                            ms=4, lw=1.2, capsize=2)
                draw_points(ax, at, r["points"], color=color, marker=marker)
        if not numeric:
            ax.set_xticks([pos[v] for v in xs], [_fmt_x(v) for v in xs])
            ax.set_xlim(-0.5, len(xs) - 0.5)
        elif all(isinstance(v, numbers.Integral) for v in xs):  # counts such as k: integer ticks
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set(xlabel=x_label, ylabel=METRICS.get(metric, {}).get("label", metric))
        ax.set_title(comparability_label(panel, nc), fontsize=10)
        ax.grid(alpha=0.3)
    return finish_panel_grid(fig, axes, len(panels), title=title, legend_cols=6, bottom=0.06,
                             notes=comparability_notes(list(panels) + list(series), nc))


def write_sweep_outputs(results: pd.DataFrame, *, experiment: str, sweep: str, metric: str, options: dict,
                        outputs: dict) -> str:
    """What rule ``sweep`` writes for one (experiment, sweep, metric): ``outputs`` maps
    ``png``, ``pdf``, ``md`` and ``csv`` to paths (each written atomically). ``options`` is
    the sweep's config block (``x``, ``metrics``, ``series``, ``panel``, ``x_label``,
    ``description``, ``where``) plus ``decimals`` (``report.decimals``), ``methods`` and ``settings``
    (the experiment's method names and setting ids, in config order)."""
    plt = require("matplotlib.pyplot", purpose="sweep figures")

    from pu_lib._io import write_text_atomic
    from pu_lib.workflow.figures import save_figure

    if "experiment" in results.columns:
        results = results[results["experiment"] == experiment]
    specs = {m: json.loads(s) for m, s in zip(results["method"], results["method_spec"])} \
        if "method_spec" in results.columns else {m: {} for m in results["method"]}
    settings = [(m, json.loads(p)) for m, p in dict.fromkeys(zip(results["mechanism"], results["setting_params"]))] \
        if {"mechanism", "setting_params"} <= set(results.columns) else []
    check_sweep({"metrics": [metric], **options}, name=sweep, methods=specs, settings=settings,
                path=f"experiments.{experiment}.report.sweeps")
    x, panel = options["x"], options.get("panel", "dataset_name")
    summ = sweep_summary(results, x, metric, series=options.get("series"), panel=panel, where=options.get("where"),
                         methods=options.get("methods"), settings=options.get("settings"))
    x_label = options.get("x_label") or x
    title = f"{experiment}: {METRICS[metric]['label']} by {x_label}"
    description = " ".join(str(options.get("description") or "").split())
    write_text_atomic(sweep_markdown(summ, x_label, metric, options.get("decimals", 3), title, description),
                      outputs["md"])
    write_text_atomic(summ.to_csv(index=False), outputs["csv"])
    fig = sweep_figure(summ, x_label, metric, title=title + (f"\n{description}" if description else ""),
                       not_comparable=not_comparable_labels(results))
    save_figure(fig, [outputs["png"], outputs["pdf"]])
    plt.close(fig)
    return (f"{experiment} sweep {sweep} ({metric}): {len(summ)} cells, {summ['panel'].nunique()} panels, "
            f"{summ['series'].nunique()} series")
