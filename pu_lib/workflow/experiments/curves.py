"""Metric-versus-rounds curves of boosting methods and metric-versus-epochs curves of
the neural PU learners (Ada-PU paper Figures 1-3 and 5).

An experiment with ``staged_metrics: [accuracy]`` records, for every method with
``staged_predict`` (Ada-PU, the PN boosting baselines, and the neural PU learners fitted
with ``keep_epoch_states: true``), the metric on the evaluation rows after each boosting
round or training epoch: the result column ``staged_accuracy`` holds one list per
repetition (:func:`staged_scores`). Rule ``curves`` turns the aggregate into a table of
mean and standard deviation per (data set, setting, method, round) and a figure with one
panel per data set and setting, the mean as a line and mean +/- sd as a band, as the
paper draws them ("the dense line shows the average of 5 trials, and the shadow area
shows the standard deviation").
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pu_lib._io import write_text_atomic
from pu_lib._optional import require

__all__ = ["STAGED_METRICS", "curve_figure", "curve_summary", "staged_scores", "write_curve_outputs", "x_label"]

#: metrics that can be recorded per round (functions of the true and predicted classes)
STAGED_METRICS = ("accuracy", "f1")


def x_label(methods) -> str:
    """The x axis of a curve figure for the registered method names ``methods``: boosting
    methods stage by round, the neural PU learners (:mod:`pu_lib.neural`) by training
    epoch; with both, the Ada-PU paper's shared axis ("we put the number of weak
    classifiers and training epochs together as the horizontal axis"), named as both."""
    from pu_lib.workflow import registry

    neural = [registry.get(m).target.startswith("pu_lib.neural") for m in methods]
    if neural and all(neural):
        return "training epoch"
    if any(neural):
        return "boosting round / training epoch (networks)"
    return "boosting round"


def staged_scores(est, X, y, metrics) -> dict[str, list[float]]:
    """``{"staged_<metric>": [value after round 1, 2, ...]}`` for ``est.staged_predict``
    on ``(X, y)``; empty when the estimator has no ``staged_predict``."""
    from pu_lib import metrics as M

    if not metrics or not hasattr(est, "staged_predict"):
        return {}
    for m in metrics:
        if m not in STAGED_METRICS:
            raise ValueError(f"staged_metrics: {m!r} is not one of {list(STAGED_METRICS)}")
    out: dict[str, list[float]] = {f"staged_{m}": [] for m in metrics}
    for pred in est.staged_predict(X):
        for m in metrics:
            out[f"staged_{m}"].append(float(getattr(M, m)(y, pred)))
    return out


def curve_summary(results: pd.DataFrame, metric: str = "accuracy", methods=None) -> pd.DataFrame:
    """Mean and sd of ``staged_<metric>`` per (dataset, setting, method, round), rounds
    counted from 1; repetitions with fewer rounds (a boosting run that stopped early)
    count only in the rounds they have. Methods in the order of ``methods`` (the
    config's), then of first appearance; methods without curves are left out."""
    col = f"staged_{metric}"
    if col not in results.columns:
        raise ValueError(f"the results have no column {col!r}: add {metric!r} to the experiment's staged_metrics "
                         "(methods need staged_predict)")
    rows = []
    for (dataset, setting, method), part in results.groupby(["dataset", "setting", "method"], sort=False):
        curves = [np.asarray(v, dtype=float) for v in part[col] if v is not None and not _isnan(v)]
        if not curves:
            continue
        n_rounds = max(len(c) for c in curves)
        for r in range(n_rounds):
            vals = np.array([c[r] for c in curves if len(c) > r])
            rows.append({"dataset": dataset, "setting": setting, "method": method, "round": r + 1,
                         "n": int(vals.size), "mean": float(vals.mean()),
                         "sd": float(vals.std(ddof=1)) if vals.size > 1 else float("nan")})
    out = pd.DataFrame(rows, columns=["dataset", "setting", "method", "round", "n", "mean", "sd"])
    seen = list(methods or []) + [m for m in pd.unique(out["method"]) if m not in (methods or [])]
    order = {m: i for i, m in enumerate(seen)}
    out["_m"] = out["method"].map(order)
    return out.sort_values(["dataset", "setting", "_m", "round"], kind="stable").drop(columns="_m").reset_index(
        drop=True)


def _isnan(v) -> bool:
    return isinstance(v, float) and np.isnan(v)


def curve_figure(summary: pd.DataFrame, metric: str = "accuracy", title: str = "", xlabel: str = "boosting round",
                 not_comparable: dict | None = None):
    """One panel per (dataset, setting): the metric's mean per round per method, with a
    mean +/- sd band (the paper's; clipped to the metric's range,
    :func:`pu_lib.workflow.reporting.value_range`). A data set in ``not_comparable`` (``{name:
    reason}``, :func:`pu_lib.workflow.reporting.not_comparable_labels`) is marked ‡ in its panel
    titles, with the reason under the figure."""
    matplotlib = require("matplotlib", purpose="learning-curve figures")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pu_lib.workflow.figures import panel_grid
    from pu_lib.workflow.reporting import comparability_label, comparability_notes, value_range

    nc = not_comparable or {}

    panels = list(dict.fromkeys(zip(summary["dataset"], summary["setting"])))
    fig, axes = panel_grid(len(panels), (4.4, 3.4))
    ncol = axes.shape[1]
    methods = list(pd.unique(summary["method"]))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (dataset, setting) in enumerate(panels):
        ax = axes[i // ncol][i % ncol]
        part = summary[(summary["dataset"] == dataset) & (summary["setting"] == setting)]
        for j, m in enumerate(methods):
            r = part[part["method"] == m]
            if r.empty:
                continue
            c = colors[j % len(colors)]
            ax.plot(r["round"], r["mean"], color=c, lw=1.4, label=m)
            sd = r["sd"].fillna(0.0)
            low, high = value_range(metric)  # a band of a bounded metric stays in its range
            ax.fill_between(r["round"], np.clip(r["mean"] - sd, low, high), np.clip(r["mean"] + sd, low, high),
                            color=c, alpha=0.2, lw=0)
        name = comparability_label(dataset, nc)
        ax.set_title(f"{name} ({setting})" if len(set(s for _, s in panels)) > 1 else name, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"test {metric}")
        ax.grid(alpha=0.3)
    from pu_lib.workflow.figures import finish_panel_grid

    return finish_panel_grid(fig, axes, len(panels), title=title, legend_cols=5, bottom=0.08,
                             notes=comparability_notes([d for d, _ in panels], nc))


def write_curve_outputs(results: pd.DataFrame, *, experiment: str, metric: str, methods, outputs: dict,
                        xlabel: str = "boosting round") -> str:
    """Write the curve table (``outputs["csv"]``) and figure (``png``, ``pdf``; x axis
    ``xlabel``, :func:`x_label`); return a short text summary (the last round's mean per
    data set and method) for the log."""
    from pu_lib.workflow.figures import save_figure

    summary = curve_summary(results, metric, methods)
    write_text_atomic(summary.to_csv(index=False), outputs["csv"])
    from pu_lib.workflow.reporting import not_comparable_labels

    fig = curve_figure(summary, metric, title=f"{experiment}: test {metric} by {xlabel} (mean, band = sd)",
                       xlabel=xlabel, not_comparable=not_comparable_labels(results))
    save_figure(fig, [outputs["png"], outputs["pdf"]])
    last = summary.groupby(["dataset", "setting", "method"], sort=False).tail(1)
    return last.to_string(index=False)
