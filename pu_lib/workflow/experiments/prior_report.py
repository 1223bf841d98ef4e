"""Tables and figures of class-prior estimation experiments.

Result rows of prior estimators (:func:`pu_lib.workflow.experiments.runner.prior_row`) carry the true and
estimated ``alpha_u`` (positives among the unlabeled, PULSNAR's alpha), whole-sample
prior ``alpha`` and label frequency ``c`` per repetition. This module summarises them the
way the papers show them:

* PULSNAR Figures 3-5: estimated alpha (mean and 95% confidence interval over the
  repetitions, e.g. 40 seeds) against the true alpha, one panel per data set, one series
  per method, with the identity line;
* Bekker thesis Figures 3.1-3.2: |alpha_hat - alpha| against the true label frequency,
  one panel per data set (PU and NU versions), one series per method;
* PULSNAR Table 2 / thesis Table 3.3: execution times (``fit_seconds``,
  ``ms_per_example``) -- the ordinary per-data-set tables of :mod:`pu_lib.workflow.reporting`.

The 95% interval is the t interval of the mean, ``mean +- t_{0.975, n-1} sd / sqrt(n)``
(the PULSNAR paper says "95% confidence interval" over its 40 runs without a formula; a
t interval of the mean is the usual reading), clipped to the quantity's range ([0, 1] for
an estimate, truth or absolute error of alpha_u, alpha or c;
:func:`pu_lib.workflow.reporting.mean_interval`, :func:`pu_lib.workflow.reporting.value_range`). With fewer
than :data:`pu_lib.workflow.reporting.MIN_INTERVAL_N` (3) repetitions there is no interval: the
summary's ``points`` column holds the repetitions' values, which the tables print and the
figures draw instead.

With ``prior_evaluation.bootstrap`` the result rows also hold each repetition's bootstrap
percentile interval (``alpha_u_ci_low`` / ``alpha_u_ci_high`` and the same for ``prior``
and ``c``; :func:`pu_lib.workflow.experiments.prior_eval.bootstrap_columns`). For ``y`` an estimate
(``*_hat``) the summary then adds the mean interval over the repetitions (``boot_lo``,
``boot_hi``), the number of repetitions that have one (``boot_n``) and the fraction of
them whose interval contains the repetition's true value (``boot_coverage``); the tables
print the mean interval beside the t interval, the figures draw it as a pale band.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pu_lib._optional import require
from pu_lib.metrics import METRICS
from pu_lib.workflow.reporting import (MIN_INTERVAL_N, comparability_label, comparability_notes, interval_cell,
                              mean_interval, not_comparable_labels, value_range)

__all__ = ["ESTIMATE_COLUMNS", "PANELS", "estimate_summary", "estimate_figure", "estimate_markdown",
           "write_estimate_outputs"]

#: columns of result rows that an estimate figure may put on an axis
ESTIMATE_COLUMNS = (
    "alpha_u_true", "alpha_u_hat", "prior_true", "prior_hat", "c_true", "c_hat",
    "alpha_u_abs_error", "prior_abs_error", "c_abs_error", "fit_seconds", "ms_per_example", "n_clusters",
)
#: columns an estimate figure may split into panels (also the sweeps' ``panel``)
PANELS = ("dataset", "dataset_name", "setting", "mechanism", "positive", "experiment")

#: axis labels: the metric columns' labels come from :data:`pu_lib.metrics.METRICS`
_LABELS = {
    "alpha_u_true": "true alpha_u (positives among the unlabeled)",
    "alpha_u_hat": "estimated alpha_u",
    "prior_true": "true class prior of the sample",
    "prior_hat": "estimated class prior",
    "c_true": "true label frequency c",
    "c_hat": "estimated label frequency",
    "n_clusters": "number of clusters",
    **{k: v["label"] for k, v in METRICS.items() if k in ESTIMATE_COLUMNS},
}


def bootstrap_columns_for(y: str) -> tuple[str, str, str] | None:
    """``(ci_low, ci_high, true)`` result columns of the bootstrap interval of ``y``
    (``alpha_u_hat`` -> ``alpha_u_ci_low``, ``alpha_u_ci_high``, ``alpha_u_true``), or None
    when ``y`` is not an estimate."""
    for q in ("alpha_u", "prior", "c"):
        if y == f"{q}_hat":
            return f"{q}_ci_low", f"{q}_ci_high", f"{q}_true"
    return None


def _check(results: pd.DataFrame, x: str, y: str, panel: str) -> None:
    for name, col in (("x", x), ("y", y)):
        if col not in ESTIMATE_COLUMNS:
            raise ValueError(f"{name} must be one of {ESTIMATE_COLUMNS}, got {col!r}")
        if col not in results.columns:
            raise ValueError(f"{name}: the results have no column {col!r} (not a prior-estimation experiment?)")
    if panel not in PANELS:
        raise ValueError(f"panel must be one of {PANELS}, got {panel!r}")


def estimate_summary(results: pd.DataFrame, x: str = "alpha_u_true", y: str = "alpha_u_hat",
                     panel: str = "dataset_name", x_decimals: int = 3, level: float = 0.95,
                     methods=None, bounds: tuple[float, float] | None = None) -> pd.DataFrame:
    """Mean, standard deviation and ``level`` t interval of ``y`` per (panel, x, method).

    ``x`` is rounded to ``x_decimals`` so that repetitions of one nominal value (e.g. a
    realised label frequency 0.2997 for c = 0.3) fall together; an unknown ``x`` (NaN: data
    that is PU already, a user dataset with an ``s_column``) is a group of its own, written
    ``unknown`` by :func:`estimate_markdown`. Returns a frame with
    columns ``panel, x, method, n, mean, sd, lo, hi, points`` sorted by panel, x and method
    (in the order of ``methods`` when given, e.g. the config's, else of first appearance).
    ``lo, hi`` is :func:`pu_lib.workflow.reporting.mean_interval` clipped to ``bounds`` (default
    :func:`pu_lib.workflow.reporting.value_range` of ``y``), NaN with fewer than
    :data:`pu_lib.workflow.reporting.MIN_INTERVAL_N` repetitions; ``points`` is then the list of
    the repetitions' values (in row order), else None. Then come
    ``boot_n, boot_lo, boot_hi, boot_coverage`` when ``y`` is an estimate and the
    results hold its per-repetition bootstrap interval (see the module docstring; NaN for
    methods without one).
    """
    _check(results, x, y, panel)
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    boot = bootstrap_columns_for(y)
    if boot is not None and not (boot[0] in results.columns and boot[1] in results.columns
                                 and boot[2] in results.columns and results[boot[0]].notna().any()):
        boot = None
    cols = [panel, x, y, "method"] + (list(boot) if boot else [])
    df = results[list(dict.fromkeys(cols))].copy()
    df["x"] = df[x].astype(float).round(x_decimals)
    seen = list(methods or []) + [m for m in pd.unique(df["method"]) if m not in (methods or [])]
    order = {m: i for i, m in enumerate(seen)}
    # dropna=False: on data that is PU already the true x is unknown (NaN), its estimates stay
    g = df.groupby([panel, "x", "method"], sort=False, dropna=False)[y]
    out = g.agg(n="count", mean="mean", sd="std").reset_index().rename(columns={panel: "panel"})
    out["points"] = [[float(v) for v in part.dropna()] for _, part in g]  # groups in the order of agg
    if boot is not None:
        lo_col, hi_col, true_col = boot
        has = df[lo_col].notna() & df[hi_col].notna()
        covers = (df[lo_col] <= df[true_col]) & (df[true_col] <= df[hi_col])
        df["_covers"] = np.where(has, covers.astype(float), np.nan)
        b = df.groupby([panel, "x", "method"], sort=False, dropna=False).agg(
            boot_n=(lo_col, "count"), boot_lo=(lo_col, "mean"), boot_hi=(hi_col, "mean"),
            boot_coverage=("_covers", "mean")).reset_index().rename(columns={panel: "panel"})
        out = out.merge(b, on=["panel", "x", "method"], how="left", sort=False)
    out["lo"], out["hi"] = mean_interval(out["mean"], out["sd"], out["n"], level=level,
                                         bounds=value_range(y) if bounds is None else bounds)
    out["points"] = [p if n < MIN_INTERVAL_N else None for p, n in zip(out.pop("points"), out["n"])]
    out = out[[c for c in out.columns if not c.startswith("boot_")] + [c for c in out.columns if c.startswith("boot_")]]
    out["_m"] = out["method"].map(order)
    out = out.sort_values(["panel", "x", "_m"], kind="stable").drop(columns="_m").reset_index(drop=True)
    return out


def estimate_markdown(summary: pd.DataFrame, x: str, y: str, decimals: int = 3, title: str = "") -> str:
    """Markdown: one table per panel, rows = x values, columns = methods, cells
    ``mean [lo, hi]`` (the 95% interval over repetitions; with fewer than 3 repetitions
    ``mean (values a, b)``, :func:`pu_lib.workflow.reporting.interval_cell`); with bootstrap columns
    (:func:`estimate_summary`) followed by ``{boot_lo, boot_hi}``, the mean bootstrap
    interval of one repetition."""
    lines = [f"# {title}", ""] if title else []
    f = f"{{:.{decimals}f}}"
    has_boot = "boot_lo" in summary.columns and summary["boot_lo"].notna().any()
    if has_boot:
        lines += ["Cells: mean [95% t interval of the mean over repetitions] {mean bootstrap percentile "
                  "interval of one repetition}; the csv also holds the bootstrap intervals' coverage of the "
                  "true value (boot_coverage).", ""]
    for panel, part in summary.groupby("panel", sort=False):
        methods = list(pd.unique(part["method"]))
        head = f"{y} (mean [95% CI] {{bootstrap CI}})" if has_boot else f"{y} (mean [95% CI])"
        lines += [f"## {panel}", "", f"{head} by {x}", ""]
        lines.append("| " + " | ".join([x] + methods) + " |")
        lines.append("|" + "---|" * (len(methods) + 1))
        for xv, rows in part.groupby("x", sort=True, dropna=False):
            cells = []
            for m in methods:
                r = rows[rows["method"] == m]
                if r.empty:
                    cells.append("")
                    continue
                r = r.iloc[0]
                cell = interval_cell(r["mean"], r["lo"], r["hi"], r.get("points"), decimals)
                if has_boot and np.isfinite(r["boot_lo"]):
                    cell += f" {{{f.format(r['boot_lo'])}, {f.format(r['boot_hi'])}}}"
                cells.append(cell)
            lines.append("| " + " | ".join([f"{xv:g}" if np.isfinite(xv) else "unknown"] + cells) + " |")
        lines.append("")
    return "\n".join(lines)


def estimate_figure(summary: pd.DataFrame, x: str, y: str, identity: bool | None = None, title: str = "",
                    not_comparable: dict | None = None):
    """One panel per ``panel`` value: ``y`` against ``x`` per method, error bars = the
    interval (clipped to the range of ``y`` by :func:`estimate_summary`); where there is
    none (fewer than 3 repetitions), the repetitions' values as hollow markers; the mean
    bootstrap interval (``boot_lo``, ``boot_hi``), when the summary has one, as a pale
    wide bar behind; the identity line when ``identity`` (default: when y estimates x,
    i.e. ``x`` is a ``*_true`` column and ``y`` the matching ``*_hat``). A panel that names
    a data set of ``not_comparable`` (:func:`pu_lib.workflow.reporting.not_comparable_labels`) is
    marked ‡, with the reason under the figure."""
    matplotlib = require("matplotlib", purpose="class-prior figures")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pu_lib.workflow.figures import draw_points, finish_panel_grid, panel_grid

    nc = not_comparable or {}
    if identity is None:
        identity = x.endswith("_true") and y == x[: -len("_true")] + "_hat"
    panels = list(pd.unique(summary["panel"]))
    fig, axes = panel_grid(len(panels))
    ncol = axes.shape[1]
    methods = list(pd.unique(summary["method"]))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    markers = "osD^v<>ph*"
    for i, panel in enumerate(panels):
        ax = axes[i // ncol][i % ncol]
        part = summary[summary["panel"] == panel]
        xs_all = np.sort(part["x"].unique())
        width = (xs_all.max() - xs_all.min()) if xs_all.size > 1 else 1.0
        for j, m in enumerate(methods):
            r = part[part["method"] == m].sort_values("x")
            if r.empty:
                continue
            off = (j - (len(methods) - 1) / 2) * 0.008 * width  # dodge overlapping error bars
            lo, hi = r["lo"].to_numpy(dtype=float), r["hi"].to_numpy(dtype=float)
            mean = r["mean"].to_numpy(dtype=float)
            err = np.vstack([mean - lo, hi - mean])
            err = np.where(np.isfinite(err), np.maximum(err, 0.0), 0.0)
            color = colors[j % len(colors)]
            if "boot_lo" in r.columns and r["boot_lo"].notna().any():
                ok = r["boot_lo"].notna().to_numpy()
                ax.vlines((r["x"] + off)[ok], r["boot_lo"][ok], r["boot_hi"][ok], color=color, lw=5,
                          alpha=0.25, zorder=1)
            ax.errorbar(r["x"] + off, mean, yerr=err, label=m, color=color,
                        marker=markers[j % len(markers)], ms=4, lw=1.2, capsize=2, zorder=2)
            if "points" in r.columns:
                draw_points(ax, r["x"] + off, r["points"], color=color, marker=markers[j % len(markers)])
        if identity and xs_all.size:
            lo, hi = float(xs_all.min()), float(xs_all.max())
            ax.plot([lo, hi], [lo, hi], color="0.4", lw=0.8, ls="--", label="true value")
        ax.set_title(comparability_label(panel, nc), fontsize=10)
        ax.set_xlabel(_LABELS.get(x, x))
        ax.set_ylabel(_LABELS.get(y, y))
        ax.grid(alpha=0.3)
    return finish_panel_grid(fig, axes, len(panels), title=title, legend_cols=6, bottom=0.06,
                             notes=comparability_notes(panels, nc))


def write_estimate_outputs(results: pd.DataFrame, *, experiment: str, options: dict, outputs: dict) -> str:
    """What rule ``prior_estimates`` writes for one experiment: ``outputs`` maps ``png``,
    ``pdf``, ``md`` and ``csv`` to paths (each written atomically). ``options`` holds
    ``x``, ``y``, ``panel``, ``x_decimals`` and ``decimals`` (config ``report.estimates``)."""
    from pu_lib._io import write_text_atomic
    from pu_lib.workflow.figures import save_figure

    if "experiment" in results.columns:
        results = results[results["experiment"] == experiment]
    x, y, panel = options.get("x", "alpha_u_true"), options.get("y", "alpha_u_hat"), options.get("panel", "dataset_name")
    summ = estimate_summary(results, x=x, y=y, panel=panel, x_decimals=options.get("x_decimals", 3),
                            methods=options.get("methods"))
    title = f"{experiment}: {_LABELS.get(y, y)} by {_LABELS.get(x, x)}"
    if "boot_lo" in summ.columns:
        title += " (pale bars: mean bootstrap interval)"
    write_text_atomic(estimate_markdown(summ, x, y, options.get("decimals", 3), title), outputs["md"])
    write_text_atomic(summ.to_csv(index=False), outputs["csv"])
    fig = estimate_figure(summ, x, y, title=title, not_comparable=not_comparable_labels(results))
    save_figure(fig, [outputs["png"], outputs["pdf"]])
    import matplotlib.pyplot as plt

    plt.close(fig)
    return f"{experiment}: {len(summ)} cells ({summ['panel'].nunique()} panels, {summ['method'].nunique()} methods)"


# --------------------------------------------------------------------------- calibration
def _pool_curves(curves: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Pool per-repetition calibration curves (dicts with ``bin``, ``mean_predicted``,
    ``fraction_positive``, ``count``) bin by bin, weighting by the counts."""
    num_p, num_f, cnt = {}, {}, {}
    for c in curves:
        for b, mp, fp, n in zip(c["bin"], c["mean_predicted"], c["fraction_positive"], c["count"]):
            num_p[b] = num_p.get(b, 0.0) + mp * n
            num_f[b] = num_f.get(b, 0.0) + fp * n
            cnt[b] = cnt.get(b, 0) + n
    bins = sorted(cnt)
    return (np.array([num_p[b] / cnt[b] for b in bins]), np.array([num_f[b] / cnt[b] for b in bins]))


def calibration_figure(results: pd.DataFrame, panel: str = "dataset_name", x: str = "alpha_u_true",
                       x_decimals: int = 3, title: str = ""):
    """PULSNAR Figures 6-11: calibration curves of the uncalibrated and the isotonically
    calibrated probabilities, pooled over repetitions; one row per (panel, method), one
    column per true alpha; solid = calibration on 'PU' data (all rows), dashed = on 'U'
    data (unlabeled rows)."""
    import json

    matplotlib = require("matplotlib", purpose="class-prior figures")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pu_lib.workflow.figures import figure_notes

    df = results[results["calibration_curves"].notna()].copy()
    if df.empty:
        raise ValueError("no calibration curves in the results (prior_evaluation.calibration with PULSCAR/PULSNAR)")
    df["x"] = df[x].astype(float).round(x_decimals)
    nc = not_comparable_labels(df)
    rows = list(df.groupby([panel, "method"], sort=False).groups)
    xs = sorted(df["x"].unique())
    fig, axes = plt.subplots(len(rows), len(xs), figsize=(2.6 * len(xs), 2.6 * len(rows)), squeeze=False)
    for i, key in enumerate(rows):
        part = df[(df[panel] == key[0]) & (df["method"] == key[1])]
        for j, xv in enumerate(xs):
            ax = axes[i][j]
            cell = [json.loads(v) for v in part.loc[part["x"] == xv, "calibration_curves"]]
            ax.plot([0, 1], [0, 1], color="0.6", lw=0.7, ls=":")
            for data, ls in (("PU", "-"), ("U", "--")):
                if not cell:
                    continue
                for kind, color in (("uncalibrated", "tab:blue"), ("calibrated", "tab:red")):
                    px, py = _pool_curves([c[data][kind] for c in cell])
                    ax.plot(px, py, ls=ls, color=color, marker=".", ms=3, lw=1,
                            label=f"{kind} ({data})")
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
            ax.set_title(f"{comparability_label(key[0], nc)} / {key[1]}\nalpha = {xv:g}", fontsize=8)
            ax.tick_params(labelsize=7)
            if j == 0:
                ax.set_ylabel("fraction of positives", fontsize=8)
            if i == len(rows) - 1:
                ax.set_xlabel("mean predicted probability", fontsize=8)
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=4, frameon=False, fontsize=8,
                   bbox_to_anchor=(0.5, -0.01))
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    figure_notes(fig, comparability_notes([key[0] for key in rows], nc), y=-0.03)
    return fig


# ------------------------------------------------------------------------ classification


def classification_summary(results: pd.DataFrame, panel: str = "dataset_name", x: str = "alpha_u_true",
                           x_decimals: int = 3, level: float = 0.95, methods=None) -> pd.DataFrame:
    """Mean and t interval (clipped to the metric's range; none below 3 repetitions, see
    :func:`estimate_summary`) of every Algorithm 5 metric with (``clf_with_*``) and without
    (``clf_without_*``) the estimate, per (panel, x, method)."""
    from pu_lib.prior.classification import CLASSIFICATION_METRICS

    cols = [f"clf_{w}_{m}" for m in CLASSIFICATION_METRICS for w in ("with", "without")]
    missing = [c for c in cols if c not in results.columns]
    if missing:
        raise ValueError(f"no classification results (columns {missing[:2]}...); set prior_evaluation.classification")
    long = results.melt(id_vars=[panel, x, "method"], value_vars=cols, var_name="column", value_name="value")
    long = long[long["value"].notna()]
    long["variant"] = np.where(long["column"].str.startswith("clf_with_"), "with", "without")
    long["metric"] = long["column"].str.replace("clf_without_", "", regex=False).str.replace("clf_with_", "", regex=False)
    long["method"] = long["method"] + " (" + long["variant"] + ")"
    order = [f"{m} ({v})" for m in (methods or []) for v in ("with", "without")]
    out = []
    for metric, part in long.groupby("metric", sort=False):
        s = estimate_summary(part.rename(columns={"value": "alpha_u_hat"})[[panel, x, "method", "alpha_u_hat"]]
                             .assign(**{x: part[x]}), x=x, y="alpha_u_hat", panel=panel,
                             x_decimals=x_decimals, level=level, methods=order, bounds=value_range(metric))
        s.insert(0, "metric", metric)
        out.append(s)
    return pd.concat(out, ignore_index=True)


def classification_figure(summary: pd.DataFrame, title: str = "", not_comparable: dict | None = None):
    """PULSNAR Figures 12-13: each metric against the true alpha, with and without the
    estimate (mean and 95% interval, or the repetitions' values with fewer than 3), one
    row per panel; a panel of ``not_comparable`` (:func:`pu_lib.workflow.reporting.not_comparable_labels`)
    is marked ‡, with the reason under the figure."""
    matplotlib = require("matplotlib", purpose="class-prior figures")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pu_lib.workflow.figures import draw_points, figure_notes

    panels = list(pd.unique(summary["panel"]))
    nc = not_comparable or {}
    from pu_lib.prior.classification import CLASSIFICATION_METRICS

    metrics = [m for m in CLASSIFICATION_METRICS if m in set(summary["metric"])]
    fig, axes = plt.subplots(len(panels), len(metrics), figsize=(3.0 * len(metrics), 2.8 * len(panels)),
                             squeeze=False)
    for i, panel in enumerate(panels):
        for j, metric in enumerate(metrics):
            ax = axes[i][j]
            part = summary[(summary["panel"] == panel) & (summary["metric"] == metric)]
            for k, (m, r) in enumerate(part.groupby("method", sort=False)):
                r = r.sort_values("x")
                err = np.vstack([r["mean"] - r["lo"], r["hi"] - r["mean"]])
                err = np.where(np.isfinite(err), err, 0.0)
                line = ax.errorbar(r["x"], r["mean"], yerr=err, label=m, marker="os^D"[k % 4], ms=3, lw=1,
                                   capsize=2, ls="-" if "(with)" in m else "--")
                if "points" in r.columns:
                    draw_points(ax, r["x"], r["points"], color=line.lines[0].get_color(), marker="os^D"[k % 4],
                                ms=2.5)
            ax.set_title(f"{comparability_label(panel, nc)}: {metric}", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.set_xlabel("true alpha", fontsize=8)
            ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=min(4, len(labels)), frameon=False, fontsize=8,
                   bbox_to_anchor=(0.5, -0.01))
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    figure_notes(fig, comparability_notes(panels, nc), y=-0.03)
    return fig


def write_evaluation_outputs(results: pd.DataFrame, *, experiment: str, options: dict, outputs: dict) -> str:
    """Rule ``prior_evaluation``: calibration curves (``calibration_png``/``_pdf``) and the
    classification figure and table (``classification_png``/``_pdf``/``_md``/``_csv``),
    whichever ``outputs`` names; each file written atomically."""
    plt = require("matplotlib.pyplot", purpose="class-prior figures")

    from pu_lib._io import write_text_atomic
    from pu_lib.workflow.figures import save_figure

    if "experiment" in results.columns:
        results = results[results["experiment"] == experiment]
    x, panel = options.get("x", "alpha_u_true"), options.get("panel", "dataset_name")
    xd = options.get("x_decimals", 3)
    done = []
    if "calibration_png" in outputs:
        fig = calibration_figure(results, panel=panel, x=x, x_decimals=xd,
                                 title=f"{experiment}: calibration curves (blue uncalibrated, red calibrated)")
        save_figure(fig, [outputs["calibration_png"], outputs["calibration_pdf"]])
        plt.close(fig)
        done.append("calibration curves")
    if "classification_png" in outputs:
        summ = classification_summary(results, panel=panel, x=x, x_decimals=xd, methods=options.get("methods"))
        write_text_atomic(summ.to_csv(index=False), outputs["classification_csv"])
        lines = [f"# {experiment}: classification with and without the estimated alpha (Algorithm 5)", ""]
        for metric, part in summ.groupby("metric", sort=False):
            lines.append(estimate_markdown(part, x, metric, options.get("decimals", 3)))
        write_text_atomic("\n".join(lines), outputs["classification_md"])
        fig = classification_figure(summ, title=f"{experiment}: with (solid) and without (dashed) the estimate",
                                    not_comparable=not_comparable_labels(results))
        save_figure(fig, [outputs["classification_png"], outputs["classification_pdf"]])
        plt.close(fig)
        done.append("classification")
    return f"{experiment}: {', '.join(done) or 'nothing'}"
