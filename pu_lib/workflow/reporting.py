"""Paper-style result tables with significance marks.

Two layouts, both methods-as-rows with ``mean ± sd`` cells, rendered to Markdown, LaTeX
(booktabs), HTML and CSV from the same :class:`PaperTable` object:

* **Summary table** (:func:`summary_table`), the layout of the PU Hellinger trees paper's
  Tables 3-4: one column per label setting (e.g. flip ratio), cells = mean and standard
  deviation *over data sets* of the per-data-set mean over repetitions. In each column
  the Friedman / Iman-Davenport test is run with the data sets as blocks (Demšar 2006;
  ``test_blocks="dataset_repetitions"``: data set x repetition pairs, the PU Hellinger
  authors' released convention, named in a note under the table), and Holm's post hoc
  test compares every method with the best-ranked one (the control). A mean over fewer
  data sets than the column has is marked † and the missing data sets are named.
  Data sets whose registry entry says ``paper_comparable: false`` (e.g. a one-partition
  split where the paper used the official partitions) are left out of the tests and
  the means, and a note names them with the reason.
  Marks, as in that paper: the best cell of a column is **bold and underlined**; cells
  whose method is not significantly worse than the control at ``alpha`` (Holm) are
  **bold**. The last row gives the Iman-Davenport p-value. The grouping ``"all"`` makes
  a single column whose blocks are all (data set, setting) pairs.
* **Per-data-set tables** (:func:`per_dataset_tables`): one table per data set, one column
  per setting, cells = mean and sd over repetitions, best cell bold and underlined; or
  (:func:`wide_table`) data sets as columns, one table per setting for that paper's
  Tables A2-A7 (``per_setting``). Cells of a data set with ``paper_comparable: false``
  in the registry are marked ‡ and a note gives the registry's reason. No significance marks: a test with the
  repetitions of one data set as blocks would treat resamples of the same data as
  independent data sets, which Demšar (2006, section 3.1) advises against.

Choices where the papers are silent (documented here and tested):

* "Best cell" is the best mean as printed (after scaling and rounding), so cells that
  print identically are all marked. The Holm control is the best *average rank*
  (Demšar's procedure); the two usually coincide, and when they do not both marks show.
* The standard deviation is the sample sd (ddof = 1); with a single value the cell shows
  the mean alone. A missing cell prints as an en dash.
* Number formats: ``decimals`` (3, as the PU Hellinger and PULSNAR papers print F1 / AUC),
  ``scale`` (100 for the percentages of the PU Extra Trees / Ada-PU tables) and ``style``
  ``"pm"`` (``0.812 ± 0.020``) or ``"paren"`` (``81.2 (2.0)``, PU Extra Trees).
  P-values print as everywhere in the package, :func:`pu_lib.workflow.stats.format_p_value`
  (``0.0198``, ``< 0.0001``, ``n/a`` when no test was run).
"""

from __future__ import annotations

import html as _html
import json
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pu_lib._io import write_text_atomic
from pu_lib.workflow.stats import format_p_value

GROUPINGS = ("setting", "all")
#: the blocks of the Friedman / Iman-Davenport and Holm tests of a summary table
#: (``report.test_blocks``) -> the note printed under every table that uses them
TEST_BLOCKS = {
    "datasets": "the data sets (per-data-set means over repetitions), as Demšar (2006) prescribes.",
    "dataset_repetitions": (
        "data set x repetition pairs, the PU Hellinger authors' convention (evaluation_experiments.py "
        "of CarlosOrtegaV/PU_Hellinger_Trees). The repetitions of a data set are resamples of the same data, not "
        "independent data sets (Demšar 2006, section 3.1): N counts them as such, which makes the tests more "
        "liberal than with the data sets as blocks."),
}
INCOMPLETE_MARK = "†"
#: cells of a data set whose registry entry has ``paper_comparable: false``
#: (:func:`not_comparable_datasets`); the note under the table gives the reason
NOT_COMPARABLE_MARK = "‡"
SMALL_N = 5  # below this many blocks the table notes that the p-values are rough approximations
STYLES = ("pm", "paren")
DASH = "–"


@dataclass
class PaperTable:
    """A methods x columns table of ``mean ± sd`` cells with optional significance marks.

    ``best`` and ``not_worse`` are boolean frames shaped like ``mean`` (``not_worse`` is
    None when no test was run); ``pvalues`` maps a column to its Iman-Davenport p-value or
    to None when the test could not be run (the reason goes to ``notes``).
    """

    metric: str
    mean: pd.DataFrame
    sd: pd.DataFrame
    count: pd.DataFrame
    greater_is_better: bool = True
    decimals: int = 3
    scale: float = 1.0
    style: str = "pm"
    title: str | None = None
    not_worse: pd.DataFrame | None = None
    pvalues: dict | None = None
    notes: list = field(default_factory=list)
    row_label: str = "method"
    best: pd.DataFrame | None = None
    #: cells whose mean is over fewer data sets than the column has (marked with
    #: :data:`INCOMPLETE_MARK`; the notes name the missing data sets)
    incomplete: pd.DataFrame | None = None
    #: cells of data sets not comparable with the paper (marked :data:`NOT_COMPARABLE_MARK`)
    not_comparable: pd.DataFrame | None = None

    def __post_init__(self):
        if self.style not in STYLES:
            raise ValueError(f"unknown table style {self.style!r}; use one of {STYLES}")
        if int(self.decimals) < 0:
            raise ValueError(f"decimals must be >= 0, got {self.decimals}")
        if self.best is None:
            self.best = self._best_cells()

    # ------------------------------------------------------------------ cells
    def _rounded(self) -> pd.DataFrame:
        return (self.mean * self.scale).round(self.decimals)

    def _best_cells(self) -> pd.DataFrame:
        r = self._rounded()
        target = r.max(axis=0) if self.greater_is_better else r.min(axis=0)
        best = r.eq(target, axis=1) & r.notna()
        return best

    def cell_text(self, row, col) -> str:
        m, s, n = self.mean.loc[row, col], self.sd.loc[row, col], self.count.loc[row, col]
        if pd.isna(m):
            return DASH
        d = int(self.decimals)
        mt = f"{m * self.scale:.{d}f}"
        mark = ""
        if self.incomplete is not None and bool(self.incomplete.loc[row, col]):
            mark = f" {INCOMPLETE_MARK}"
        if self.not_comparable is not None and bool(self.not_comparable.loc[row, col]):
            mark += f" {NOT_COMPARABLE_MARK}"
        if n <= 1 or pd.isna(s):
            return mt + mark
        st = f"{s * self.scale:.{d}f}"
        return (f"{mt} ± {st}" if self.style == "pm" else f"{mt} ({st})") + mark

    def marks(self, row, col) -> tuple[bool, bool]:
        """(bold, underline) for a cell."""
        best = bool(self.best.loc[row, col])
        nw = bool(self.not_worse.loc[row, col]) if self.not_worse is not None else False
        return best or nw, best

    def _legend(self) -> list[str]:
        lines = []
        better = "higher" if self.greater_is_better else "lower"
        lines.append(f"{better.capitalize()} is better. Best value per column in bold and underlined.")
        if self.not_worse is not None:
            lines.append("Bold: not significantly worse than the best-ranked method "
                         "(Holm's post hoc test on average ranks, Demšar 2006).")
        return lines + list(self.notes)

    def _marked_rows(self, escape, underline, bold):
        """``(row, cells)`` per method: each cell's text escaped for the output format,
        then underlined (best) and / or bolded (best or not worse) by the given wrappers."""
        for r in self.mean.index:
            cells = []
            for c in self.mean.columns:
                t = escape(self.cell_text(r, c))
                is_bold, under = self.marks(r, c)
                if under:
                    t = underline(t)
                if is_bold:
                    t = bold(t)
                cells.append(t)
            yield r, cells

    def _pvalue_row(self) -> list[str] | None:
        if self.pvalues is None:
            return None
        return [format_p_value(self.pvalues.get(c)) for c in self.mean.columns]

    # ------------------------------------------------------------------ renderers
    def to_markdown(self) -> str:
        cols = [str(c) for c in self.mean.columns]
        lines = []
        if self.title:
            lines += [f"### {self.title}", ""]
        lines.append("| " + " | ".join([self.row_label] + cols) + " |")
        lines.append("|" + "|".join(["---"] + [":---:"] * len(cols)) + "|")
        for r, cells in self._marked_rows(str, lambda t: f"<ins>{t}</ins>", lambda t: f"**{t}**"):
            lines.append("| " + " | ".join([str(r)] + cells) + " |")
        prow = self._pvalue_row()
        if prow is not None:
            lines.append("| " + " | ".join(["Iman-Davenport p"] + prow) + " |")
        lines.append("")
        lines += self._legend()
        return "\n".join(lines) + "\n"

    def to_latex(self, label: str | None = None) -> str:
        cols = [_tex(str(c)) for c in self.mean.columns]
        out = ["\\begin{table}[ht]", "\\centering"]
        if self.title:
            out.append(f"\\caption{{{_tex(self.title)}}}")
        if label:
            out.append(f"\\label{{{label}}}")
        out.append("\\begin{tabular}{l" + "c" * len(cols) + "}")
        out.append("\\toprule")
        out.append(" & ".join([_tex(self.row_label.capitalize())] + cols) + " \\\\")
        out.append("\\midrule")
        for r, cells in self._marked_rows(_tex, lambda t: f"\\underline{{{t}}}", lambda t: f"\\textbf{{{t}}}"):
            out.append(" & ".join([_tex(str(r))] + cells) + " \\\\")
        prow = self._pvalue_row()
        if prow is not None:
            out.append("\\midrule")
            out.append(" & ".join(["Iman-Davenport $p$"] + [_tex(p).replace("<", "$<$") for p in prow]) + " \\\\")
        out.append("\\bottomrule")
        out.append("\\end{tabular}")
        legend = " ".join(self._legend())
        if legend:
            out.append(f"\\par\\smallskip{{\\footnotesize {_tex(legend)}}}")
        out.append("\\end{table}")
        return "\n".join(out) + "\n"

    def to_html(self) -> str:
        esc = _html.escape
        out = ["<table class=\"pu-table\">"]
        if self.title:
            out.append(f"<caption>{esc(self.title)}</caption>")
        out.append("<thead><tr>" + "".join(f"<th>{esc(str(c))}</th>" for c in
                                            [self.row_label] + list(self.mean.columns)) + "</tr></thead>")
        out.append("<tbody>")
        for r, cells in self._marked_rows(esc, lambda t: f"<u>{t}</u>", lambda t: f"<b>{t}</b>"):
            out.append(f"<tr><th>{esc(str(r))}</th>" + "".join(f"<td>{t}</td>" for t in cells) + "</tr>")
        prow = self._pvalue_row()
        if prow is not None:
            out.append("<tr class=\"pvalue\"><th>Iman-Davenport p</th>"
                       + "".join(f"<td>{esc(p)}</td>" for p in prow) + "</tr>")
        out.append("</tbody></table>")
        out += [f"<p>{esc(line)}</p>" for line in self._legend()]
        return "\n".join(out) + "\n"

    def to_frame(self) -> pd.DataFrame:
        """Long form: one row per cell with the numbers and the marks."""
        rows = []
        for r in self.mean.index:
            for c in self.mean.columns:
                bold, under = self.marks(r, c)
                rows.append({
                    "metric": self.metric, self.row_label: r, "column": c,
                    "mean": self.mean.loc[r, c], "sd": self.sd.loc[r, c], "n": int(self.count.loc[r, c]),
                    "best": under,
                    "not_worse_than_best": (bool(self.not_worse.loc[r, c]) if self.not_worse is not None else None),
                    "iman_davenport_p": (self.pvalues.get(c) if self.pvalues is not None else None),
                })
        return pd.DataFrame(rows)

    def to_csv(self) -> str:
        return self.to_frame().to_csv(index=False, float_format="%.6g")


#: fewest repetitions for an interval over repetitions: below, tables and figures show the
#: repetitions' values themselves (:func:`mean_interval`)
MIN_INTERVAL_N = 3

_UNIT = (0.0, 1.0)
_NONNEGATIVE = (0.0, float("inf"))
#: the range of a quantity that intervals are clipped to (:func:`value_range`)
VALUE_RANGES = {
    **{name: _UNIT for name in (
        "accuracy", "f1", "f1_tuned", "auc_roc", "auc_pr", "average_precision", "brier", "prior_abs_error",
        "train_pu_risk_01", "test_pn_risk_01", "propensity_mse",
        "alpha_u_true", "alpha_u_hat", "prior_true", "prior_hat", "c_true", "c_hat",
        "alpha_u_abs_error", "c_abs_error")},
    "mcc": (-1.0, 1.0),
    **{name: _NONNEGATIVE for name in ("fit_seconds", "predict_seconds", "ms_per_example", "n_clusters",
                                       "lee_liu")},
}


def value_range(name: str) -> tuple[float, float]:
    """``(low, high)``: the values a metric or result column can take (fractions,
    probabilities and scores in [0, 1], MCC in [-1, 1], times and counts non-negative);
    ``(-inf, inf)`` for a name not in :data:`VALUE_RANGES`."""
    return VALUE_RANGES.get(name, (-float("inf"), float("inf")))


def mean_interval(mean, sd, n, level: float = 0.95, bounds: tuple[float, float] | None = None,
                  min_n: int = MIN_INTERVAL_N):
    """``(lo, hi)``: the ``level`` interval of a mean over ``n`` repetitions, elementwise.

    Student's t interval ``mean +- t_{(1 + level) / 2, n - 1} sd / sqrt(n)``, with ``sd``
    the sample standard deviation (ddof = 1). A workflow experiment has 2-40 repetitions:
    t with n - 1 degrees of freedom is the interval that accounts for estimating the sd
    from so few values (a normal 1.96 would be too narrow), and the repetitions' means of
    metrics and estimates are close to normal. A bootstrap percentile interval needs some
    tens of repetitions before its ends mean anything, so it is not used here. The ends
    are clipped to ``bounds`` (:func:`value_range`: an estimate of alpha stays in [0, 1])
    since a symmetric interval can overshoot a bounded quantity.

    Where ``n < min_n`` (default :data:`MIN_INTERVAL_N` = 3) both ends are NaN: with two
    repetitions t_{0.975, 1} = 12.7, an interval about nine times as wide as the two
    values' spread, which says nothing; tables and figures show the values instead.
    """
    from scipy import stats as st

    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    if min_n < 2:
        raise ValueError(f"min_n must be at least 2 (an sd needs two values), got {min_n}")
    mean = np.asarray(mean, dtype=float)
    n = np.asarray(n, dtype=float)
    ok = n >= min_n
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(ok, st.t.ppf(0.5 + level / 2, np.maximum(n - 1, 1)), np.nan)
        half = t * np.asarray(sd, dtype=float) / np.sqrt(n)
    lo, hi = mean - half, mean + half
    if bounds is not None:
        lo, hi = np.clip(lo, *bounds), np.clip(hi, *bounds)
    return lo, hi


def interval_cell(mean, lo, hi, points=None, decimals: int = 3) -> str:
    """One table cell of :func:`mean_interval`: ``"0.276 [0.241, 0.311]"``; without an
    interval (fewer than :data:`MIN_INTERVAL_N` repetitions) the mean and the repetitions'
    values, ``"0.276 (values 0.250, 0.302)"``, or the mean alone with one value."""
    f = f"{{:.{decimals}f}}"
    if lo is not None and np.isfinite(lo) and hi is not None and np.isfinite(hi):
        return f"{f.format(mean)} [{f.format(lo)}, {f.format(hi)}]"
    if points is not None and len(points) > 1:
        return f"{f.format(mean)} (values {', '.join(f.format(v) for v in points)})"
    return f.format(mean)


def _tex(s: str) -> str:
    repl = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
    return "".join(repl.get(ch, ch) for ch in s).replace("±", "$\\pm$").replace(INCOMPLETE_MARK, r"\textdagger{}")


# ---------------------------------------------------------------------- builders

def _direction(metric: str, greater_is_better):
    if greater_is_better is not None:
        return bool(greater_is_better)
    from pu_lib.metrics import METRICS

    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}: pass greater_is_better explicitly")
    return bool(METRICS[metric]["greater_is_better"])


def effective_scale(metric: str, scale: float) -> float:
    """``report.scale`` applies to rates (e.g. 100 for percentages), not to result columns
    measured in their own units (``fit_seconds``)."""
    from pu_lib.metrics import METRICS

    return 1.0 if METRICS.get(metric, {}).get("result_column") else float(scale)


def _ms(style: str) -> str:
    return "mean (sd)" if style == "paren" else "mean ± sd"


def _metric_label(metric: str) -> str:
    from pu_lib.metrics import METRICS

    return METRICS.get(metric, {}).get("label", metric)


def _agg(values: pd.DataFrame, by_row: str, by_col: str, value: str, row_order, col_order):
    g = values.groupby([by_row, by_col], sort=False)[value]
    frames = []
    for f in (g.mean(), g.std(ddof=1), g.count()):
        f = f.unstack(by_col).reindex(index=row_order, columns=col_order)
        f.index.name = None
        f.columns.name = None
        frames.append(f)
    frames[2] = frames[2].fillna(0).astype(int)
    return frames


def _order(present, preferred):
    """``preferred`` order (e.g. the config's) for the values present, then the rest."""
    present = list(dict.fromkeys(present))
    if preferred is None:
        return present
    pref = [v for v in preferred if v in set(present)]
    return pref + [v for v in present if v not in set(pref)]


def _metric_frame(results: pd.DataFrame, metric: str, greater_is_better):
    """``(greater_is_better, frame)``: the metric's direction and the ``dataset``,
    ``setting``, ``method`` and metric columns of ``results``, the metric as float."""
    gib = _direction(metric, greater_is_better)
    _check_columns(results, metric, ["dataset", "setting", "method"])
    df = results[["dataset", "setting", "method", metric]].copy()
    df[metric] = pd.to_numeric(df[metric], errors="coerce").astype(float)
    return gib, df


def not_comparable_datasets(results: pd.DataFrame) -> dict:
    """``{dataset id: reason}`` for the data sets of ``results`` whose registry entry has
    ``paper_comparable: false`` (:func:`pu_lib.datasets.registry.comparability_note`). The
    registry name is the ``dataset_name`` column when there is one, else the ``dataset``
    column; names not in the registry (user data sets) are comparable."""
    from pu_lib.datasets.registry import comparability_note, get_spec, list_datasets

    known = set(list_datasets())
    names = results["dataset_name"] if "dataset_name" in results.columns else results["dataset"]
    out = {}
    for d, n in dict.fromkeys(zip(results["dataset"].astype(str), names.astype(str))):
        note = comparability_note(get_spec(n)) if n in known else None
        if note:
            out[d] = note
    return out


def not_comparable_labels(results: pd.DataFrame) -> dict:
    """``{label: reason}`` for figures: :func:`not_comparable_datasets` keyed by both the
    dataset id and the registry name (``dataset_name``), since a panel, legend entry or
    title may show either; empty for results without a ``dataset`` column."""
    if "dataset" not in results.columns:
        return {}
    reasons = not_comparable_datasets(results)
    out = dict(reasons)
    if reasons and "dataset_name" in results.columns:
        for d, n in dict.fromkeys(zip(results["dataset"].astype(str), results["dataset_name"].astype(str))):
            if d in reasons:
                out[n] = reasons[d]
    return out


def comparability_label(label, reasons: dict) -> str:
    """``label`` with :data:`NOT_COMPARABLE_MARK` appended when it names a data set of
    ``reasons`` (:func:`not_comparable_labels`)."""
    return f"{label} {NOT_COMPARABLE_MARK}" if str(label) in reasons else str(label)


def comparability_notes(labels, reasons: dict) -> list[str]:
    """One figure note per marked data set among ``labels``: ``"‡ <label>: <reason>."``."""
    shown = [str(v) for v in dict.fromkeys(labels) if str(v) in reasons]
    return [f"{NOT_COMPARABLE_MARK} {v}: {reasons[v]}." for v in shown]


def _comparability_marks(table: "PaperTable", col_dataset: dict, reasons: dict) -> "PaperTable":
    """Mark the columns of ``table`` whose data set (``col_dataset[column]``) is in ``reasons``
    and add one note per such data set."""
    marked = [c for c in table.mean.columns if col_dataset.get(c) in reasons]
    if marked:
        table.not_comparable = pd.DataFrame(False, index=table.mean.index, columns=table.mean.columns)
        table.not_comparable[marked] = True
        table.notes.extend(comparability_notes([col_dataset[c] for c in marked], reasons))
    return table


def per_dataset_tables(results: pd.DataFrame, metric: str, *, greater_is_better=None, decimals=3,
                       scale=1.0, style="pm", methods=None, datasets=None, settings=None,
                       title_prefix="") -> dict:
    """One :class:`PaperTable` per data set: methods x settings, mean ± sd over repetitions.

    ``methods``, ``datasets`` and ``settings`` give the row / table / column order (the
    config's order in the workflow); by default, order of first appearance."""
    gib, df = _metric_frame(results, metric, greater_is_better)
    method_order = list(methods) if methods is not None else list(dict.fromkeys(df["method"]))
    tables = {}
    for ds in _order(df["dataset"], datasets):
        sub = df[df["dataset"] == ds]
        col_order = _order(sub["setting"], settings)
        mean, sd, count = _agg(sub, "method", "setting", metric, method_order, col_order)
        tables[ds] = PaperTable(
            metric=metric, mean=mean, sd=sd, count=count, greater_is_better=gib, decimals=decimals,
            scale=scale, style=style,
            title=f"{title_prefix}{_metric_label(metric)} on {ds} ({_ms(style)} over repetitions)",
        )
    reasons = not_comparable_datasets(results)
    for ds, t in tables.items():
        _comparability_marks(t, {c: str(ds) for c in t.mean.columns}, reasons)
    return tables


def wide_table(results: pd.DataFrame, metric: str, *, greater_is_better=None, decimals=3, scale=1.0,
               style="pm", methods=None, datasets=None, settings=None, title_prefix="") -> PaperTable:
    """All data sets in one table: methods x data sets (x settings when there are several),
    mean ± sd over repetitions, best cell per column bold and underlined. The natural
    layout when an experiment has one label setting and many data sets."""
    gib, df = _metric_frame(results, metric, greater_is_better)
    ds_order = _order(df["dataset"], datasets)
    st_order = _order(df["setting"], settings)
    one_setting = len(st_order) == 1
    df["_col"] = df["dataset"].astype(str) if one_setting else df["dataset"].astype(str) + " / " + df["setting"].astype(str)
    cols = [d if one_setting else f"{d} / {st}" for d in ds_order for st in st_order]
    cols = [c for c in cols if c in set(df["_col"])]
    method_order = list(methods) if methods is not None else list(dict.fromkeys(df["method"]))
    mean, sd, count = _agg(df, "method", "_col", metric, method_order, cols)
    where = f" ({st_order[0]})" if one_setting else ""
    table = PaperTable(metric=metric, mean=mean, sd=sd, count=count, greater_is_better=gib, decimals=decimals,
                       scale=scale, style=style,
                       title=f"{title_prefix}{_metric_label(metric)} per data set{where} ({_ms(style)} over repetitions)")
    col_dataset = dict(zip(df["_col"], df["dataset"].astype(str)))
    return _comparability_marks(table, col_dataset, not_comparable_datasets(results))


def resolved_setting(mechanism: str, params: dict) -> dict:
    """A label setting's parameters with the mechanism's defaults filled in (as given when
    the mechanism does not accept them: the config check reports that)."""
    from pu_lib.labeling import validate_mechanism_params

    try:
        return validate_mechanism_params(mechanism, dict(params))
    except ValueError:
        return dict(params)


def setting_matches(params: dict, where: dict | None) -> bool:
    """Whether resolved setting parameters pass ``where`` (param -> value or list of
    values; a setting without the parameter does not)."""
    for key, wanted in (where or {}).items():
        if key not in params:
            return False
        if not (params[key] in wanted if isinstance(wanted, (list, tuple)) else params[key] == wanted):
            return False
    return True


def row_settings(results: pd.DataFrame) -> pd.Series:
    """The resolved setting parameters of every result row (mechanism defaults filled in),
    from the ``mechanism`` and ``setting_params`` (JSON) columns."""
    keys = list(zip(results["mechanism"], results["setting_params"]))
    lookup = {(m, raw): resolved_setting(m, json.loads(raw) if isinstance(raw, str) else dict(raw or {}))
              for m, raw in dict.fromkeys(keys)}
    return pd.Series([lookup[k] for k in keys], index=results.index, dtype=object)


def select_settings(results: pd.DataFrame, where: dict | None) -> pd.DataFrame:
    """The rows whose label setting matches ``where`` (:func:`setting_matches` on
    :func:`row_settings`): ``{param: value}`` or ``{param: [values]}``. ``ValueError``
    when nothing matches."""
    if not where:
        return results
    keep = np.array([setting_matches(p, where) for p in row_settings(results)], dtype=bool)
    if not keep.any():
        raise ValueError(f"no result rows have a label setting matching {where}")
    return results[keep]


def dataset_tables(results: pd.DataFrame, metric: str, layout: str = "auto", pool_where: dict | None = None,
                   table_labels: dict | None = None, **kw) -> list:
    """The workflow's per-data-set output: ``layout="tables"`` gives :func:`per_dataset_tables`
    (one table per data set, settings as columns), ``"wide"`` one :func:`wide_table`,
    ``"per_setting"`` one :func:`wide_table` per setting (methods x data sets; one table
    per flip ratio, as the PU Hellinger trees appendix reports per-data-set F1 and AUC-PR),
    ``"pooled"`` one methods x data sets table over the rows of every setting matching
    ``pool_where`` (:func:`select_settings`; all settings when None) pooled, mean ± sd over
    all of them (Bekker thesis Tables 5.2-5.3: MSE per data set and approach over the
    random-attribute settings), and ``"auto"`` the wide table when the experiment has a
    single setting, else the tables. ``table_labels`` (``per_setting`` only): setting ->
    the paper's label of that setting's table (e.g. ``{"flip-25": "Table A2"}``), put in
    front of its title."""
    if layout not in ("auto", "tables", "wide", "per_setting", "pooled"):
        raise ValueError(f"unknown per-data-set layout {layout!r}; use auto, tables, wide, per_setting or pooled")
    if layout == "pooled":
        kw["scale"] = effective_scale(metric, kw.get("scale", 1.0))
        kw["settings"] = None
        sub = select_settings(results, pool_where)
        label = "pooled: " + (", ".join(f"{k} {v}" for k, v in pool_where.items()) if pool_where else "all settings")
        return [wide_table(sub.assign(setting=label), metric, **kw)]
    if layout == "auto":
        layout = "wide" if results["setting"].nunique() == 1 else "tables"
    kw["scale"] = effective_scale(metric, kw.get("scale", 1.0))
    if layout == "wide":
        return [wide_table(results, metric, **kw)]
    if layout == "per_setting":
        labels = table_labels or {}
        prefix = kw.pop("title_prefix", "")
        return [wide_table(results[results["setting"] == st], metric,
                           title_prefix=(f"{labels[st]}. " if st in labels else "") + prefix, **kw)
                for st in _order(results["setting"], kw.get("settings"))]
    return list(per_dataset_tables(results, metric, **kw).values())


def summary_table(results: pd.DataFrame, metric: str, grouping: str = "setting", *, greater_is_better=None,
                  alpha: float = 0.05, control: str = "best", decimals=3, scale=1.0, style="pm",
                  methods=None, datasets=None, settings=None, title_prefix="", test_blocks="datasets"):
    """The significance-marked summary table and the comparison behind each column.

    ``grouping="setting"``: a column per setting, data sets as blocks. ``"all"``: one
    column, (data set, setting) pairs as blocks. Returns ``(table, comparisons)`` where
    ``comparisons[column]`` is a :class:`pu_lib.workflow.stats.Comparison` or, when the test could
    not be run (e.g. fewer than 2 blocks), a string with the reason.

    ``test_blocks`` (one of :data:`TEST_BLOCKS`): ``"datasets"`` (default) tests the
    per-data-set means over repetitions (Demšar 2006); ``"dataset_repetitions"`` makes
    every (data set, repetition) pair a block, as the PU Hellinger authors' released
    evaluation script does (needs a ``rep`` column). The cells (mean ± sd over data sets)
    are the same under both; the note naming the blocks is printed under the table.

    A method without a score on some data sets of a column (a failed or skipped fit) has
    its mean over fewer data sets than the others: the cell is marked
    :data:`INCOMPLETE_MARK` and a note names the missing data sets.
    """
    from pu_lib.workflow.stats import IncompleteBlockWarning, compare, score_matrix

    if grouping not in GROUPINGS:
        raise ValueError(f"unknown grouping {grouping!r}; use one of {GROUPINGS}")
    if test_blocks not in TEST_BLOCKS:
        raise ValueError(f"unknown test_blocks {test_blocks!r}; use one of {sorted(TEST_BLOCKS)}")
    if test_blocks == "dataset_repetitions" and "rep" not in results.columns:
        raise ValueError("test_blocks='dataset_repetitions' needs a 'rep' column in the results")
    gib = _direction(metric, greater_is_better)
    _check_columns(results, metric, ["dataset", "setting", "method"])
    # data sets not comparable with the paper stay out of the comparison (named in a note)
    reasons = not_comparable_datasets(results)
    left_out = [d for d in dict.fromkeys(results["dataset"].astype(str)) if d in reasons]
    if left_out and len(left_out) < results["dataset"].astype(str).nunique():
        results = results[~results["dataset"].astype(str).isin(left_out)]
        datasets = [d for d in datasets if str(d) not in reasons] if datasets is not None else None
    else:
        left_out = []
    method_order = list(methods) if methods is not None else list(dict.fromkeys(results["method"]))
    ds_order = _order(results["dataset"], datasets)
    st_order = _order(results["setting"], settings)
    results = results.assign(_d=results["dataset"].map({d: i for i, d in enumerate(ds_order)}),
                             _s=results["setting"].map({v: i for i, v in enumerate(st_order)}))
    results = results.sort_values(["_d", "_s"], kind="stable")
    if grouping == "setting":
        parts = [(s, results[results["setting"] == s], ["dataset"]) for s in st_order]
    else:
        parts = [("all", results, ["dataset", "setting"])]
    means, sds, counts, not_worse, pvalues, comps, notes, small, agree = {}, {}, {}, {}, {}, {}, [], [], []
    incomplete = {}
    for col, sub, blocks in parts:
        mat = score_matrix(sub, metric, blocks, methods=method_order)
        means[col] = mat.mean(axis=0)
        sds[col] = mat.std(axis=0, ddof=1)
        counts[col] = mat.notna().sum(axis=0)
        # every mean over the same data sets, or the cell marked and the missing ones named
        has_any = mat.notna().any(axis=1)
        incomplete[col] = pd.Series({m: bool((mat[m].isna() & has_any).any()) and mat[m].notna().any()
                                     for m in method_order})
        for m in method_order:
            if incomplete[col][m]:
                missing = [str(b) for b in mat.index[mat[m].isna() & has_any]]
                unit = "data sets" if grouping == "setting" else "(data set, setting) pairs"
                notes.append(f"{INCOMPLETE_MARK} {col}: {m} is averaged over {int(counts[col][m])} of "
                             f"{int(has_any.sum())} {unit} (no score on {', '.join(missing)}).")
        test_mat = mat if test_blocks == "datasets" else score_matrix(sub, metric, blocks + ["rep"],
                                                                        methods=method_order)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", IncompleteBlockWarning)
                comp = compare(test_mat, greater_is_better=gib, alpha=alpha, control=control, metric=metric)
            for w in caught:
                if issubclass(w.category, IncompleteBlockWarning):
                    notes.append(f"{col}: {w.message}")
                    warnings.warn(f"{col}: {w.message}", IncompleteBlockWarning, stacklevel=2)
            comps[col] = comp
            if len(comp.blocks) < SMALL_N:
                small.append(f"{col}: N = {len(comp.blocks)}")
            if comp.friedman.f_stat == float("inf"):
                agree.append(str(col))
            not_worse[col] = pd.Series({m: not comp.control.rejected(m) for m in method_order})
            pvalues[col] = comp.friedman.f_pvalue
        except ValueError as exc:
            comps[col] = str(exc)
            not_worse[col] = pd.Series(False, index=method_order)
            pvalues[col] = None
            notes.append(f"{col}: no test ({exc}).")
    if agree:
        notes.append(f"Every block ranks the methods identically in {', '.join(agree)}: F_F is infinite and "
                     f"p = 0 is the limit of the formula, not an exact probability.")
    if small:
        notes.append(f"Few blocks ({'; '.join(small)}): the p-values rest on chi-square / F approximations "
                     f"that are rough for fewer than {SMALL_N} data sets.")
    for d in left_out:
        notes.append(f"{NOT_COMPARABLE_MARK} Not in this comparison: {d} ({reasons[d]}).")
    tested_n = "; ".join(f"{c}: N = {len(v.blocks)}" for c, v in comps.items() if not isinstance(v, str))
    notes.append(f"Test blocks{f' ({tested_n})' if tested_n else ''}: {TEST_BLOCKS[test_blocks]}")
    cols = [p[0] for p in parts]
    mean = pd.DataFrame(means).reindex(index=method_order, columns=cols)
    sd = pd.DataFrame(sds).reindex(index=method_order, columns=cols)
    count = pd.DataFrame(counts).reindex(index=method_order, columns=cols).fillna(0).astype(int)
    nw = pd.DataFrame(not_worse).reindex(index=method_order, columns=cols).fillna(False).astype(bool)
    inc = pd.DataFrame(incomplete).reindex(index=method_order, columns=cols).fillna(False).astype(bool)
    over = "data sets" if grouping == "setting" else "data set x setting pairs"
    table = PaperTable(
        metric=metric, mean=mean, sd=sd, count=count, greater_is_better=gib, decimals=decimals, scale=scale,
        style=style, not_worse=nw, pvalues=pvalues, notes=notes, incomplete=inc,
        title=(f"{title_prefix}{_metric_label(metric)}: {_ms(style)} over {over} "
               f"(per-{('data-set' if grouping == 'setting' else 'pair')} means over repetitions); "
               f"Holm vs best at {alpha:g}"),
    )
    return table, comps


def _check_columns(results, metric, cols):
    missing = [c for c in [metric] + list(cols) if c not in results.columns]
    if missing:
        raise ValueError(f"results lack column(s) {missing}; have {sorted(results.columns)}")


# ---------------------------------------------------------------------- documents

def render_tables(tables, fmt: str) -> str:
    """Several tables in one document (``tables``: a list of PaperTable or a dict)."""
    items = list(tables.values()) if isinstance(tables, dict) else list(tables)
    if fmt == "md":
        return "\n".join(t.to_markdown() for t in items)
    if fmt == "tex":
        return "% requires \\usepackage{booktabs}\n" + "\n".join(t.to_latex() for t in items)
    if fmt == "html":
        return "\n<hr/>\n".join(t.to_html() for t in items)
    if fmt == "csv":
        return pd.concat([t.to_frame().assign(table=t.title) for t in items], ignore_index=True).to_csv(
            index=False, float_format="%.6g")
    raise ValueError(f"unknown table format {fmt!r}; use md, tex, html or csv")


def html_document(body: str, title: str) -> str:
    """A standalone HTML page (for the Snakemake report) around rendered tables."""
    style = ("body{font-family:sans-serif;font-size:14px} table.pu-table{border-collapse:collapse;"
             "margin:1em 0} .pu-table th,.pu-table td{padding:3px 8px;border-bottom:1px solid #ccc;"
             "text-align:center} .pu-table tbody th{text-align:left} caption{font-weight:bold;"
             "text-align:left;padding-bottom:4px} tr.pvalue td,tr.pvalue th{border-top:2px solid #333}")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{_html.escape(title)}</title>"
            f"<style>{style}</style></head><body>\n{body}</body></html>\n")


def write_table_files(tables, outputs: dict, html_title: str = "") -> None:
    """Write the same tables as every format in ``outputs`` ({"md": path, "tex": ..., "csv": ...,
    "html": ...}), each atomically."""
    for fmt, path in outputs.items():
        text = render_tables(tables, fmt)
        if fmt == "html":
            text = html_document(text, html_title)
        write_text_atomic(text, path)


def write_stats_outputs(results: pd.DataFrame, *, experiment: str, metric: str, grouping: str, options: dict,
                        outputs: dict, methods=None, datasets=None, settings=None,
                        provenance: dict | None = None) -> str:
    """Everything the workflow's ``stats`` rule writes for one (experiment, metric, grouping).

    ``outputs`` maps ``json``, ``md``, ``tex``, ``csv``, ``html``, ``cd_png``, ``cd_pdf``,
    ``ranks_png`` and ``ranks_pdf`` to paths; each file is written atomically. The JSON
    holds, per column, the full :class:`pu_lib.workflow.stats.Comparison` (or the reason no test
    was possible) plus ``provenance`` (config hash and files, paper table). When no
    column can be tested, the figures state why instead of showing a diagram.
    Returns a one-line summary.
    """
    import json

    from pu_lib.workflow import figures

    results = results[results["experiment"] == experiment] if "experiment" in results.columns else results
    conventions = options.get("test_blocks", "datasets")
    conventions = [conventions] if isinstance(conventions, str) else list(conventions)
    tables, comps_by = [], {}
    for tb in conventions:  # one table per test convention (report.test_blocks), the first one drawn
        t, c = summary_table(
            results, metric, grouping, alpha=options.get("alpha", 0.05), control=options.get("control", "best"),
            decimals=options.get("decimals", 3), scale=effective_scale(metric, options.get("scale", 1.0)),
            style=options.get("style", "pm"), methods=methods, datasets=datasets, settings=settings,
            title_prefix=f"{experiment}: " + (f"[test blocks: {tb}] " if len(conventions) > 1 else ""),
            test_blocks=tb,
        )
        tables.append(t)
        comps_by[tb] = c
    table, comps = tables[0], comps_by[conventions[0]]

    def _cols(cs):
        return {str(c): (v.to_dict() if not isinstance(v, str) else {"error": v}) for c, v in cs.items()}

    doc = {
        "experiment": experiment, "metric": metric, "grouping": grouping,
        "alpha": options.get("alpha", 0.05), "control": options.get("control", "best"),
        "test_blocks": conventions[0],
        **(provenance or {}),
        "notes": list(table.notes),
        "columns": _cols(comps),
    }
    if len(conventions) > 1:
        doc["by_test_blocks"] = {tb: {"notes": list(t.notes), "columns": _cols(comps_by[tb])}
                                 for tb, t in zip(conventions, tables)}
    write_text_atomic(json.dumps(doc, indent=2, allow_nan=False) + "\n", outputs["json"])
    write_table_files(tables, {k: outputs[k] for k in ("md", "tex", "csv", "html") if k in outputs},
                      html_title=f"{experiment}: {metric} ({grouping})")

    valid = {str(c): v for c, v in comps.items() if not isinstance(v, str)}
    how = options.get("cliques", "nemenyi")
    label = _metric_label(metric)
    if not valid:
        reasons = "; ".join(f"{c}: {v}" for c, v in comps.items())
        cd_fig = figures.notice_figure(f"{experiment} / {label}: no test possible\n{reasons}")
        rank_fig = figures.notice_figure(f"{experiment} / {label}: no ranks\n{reasons}")
    elif grouping == "all":
        comp = valid["all"]
        cd_fig = figures.cd_diagram(comp, cliques=how, title=(
            f"{experiment}: {label}, N = {len(comp.blocks)} (data set, setting) pairs, "
            f"Iman-Davenport {format_p_value(comp.friedman.f_pvalue, 'p')}"))
        rank_fig = figures.rank_plot(comp, title=f"{experiment}: {label} ranks per (data set, setting)")
    else:
        # Panel titles are the settings; cd_diagrams adds N, k and the Iman-Davenport p.
        cd_fig = figures.cd_diagrams(valid, cliques=how, suptitle=f"{experiment}: {label}, data sets as blocks")
        rank_fig = figures.rank_plots(valid, suptitle=f"{experiment}: {label} ranks per data set")
    figures.save_figure(cd_fig, [outputs[k] for k in ("cd_png", "cd_pdf") if k in outputs])
    figures.save_figure(rank_fig, [outputs[k] for k in ("ranks_png", "ranks_pdf") if k in outputs])
    tested = ", ".join(f"{c}: {format_p_value(v.friedman.f_pvalue, 'p')}, best {v.best}" for c, v in valid.items())
    return f"{experiment} {metric} {grouping}: {len(valid)}/{len(comps)} columns tested ({tested})"


def mean_sd_table(results: pd.DataFrame, metric: str, columns=("dataset", "setting"), row: str = "method",
                  decimals: int = 3, greater_is_better=True) -> PaperTable:
    """Methods x (joined ``columns``) table of mean ± sd over all matching rows, no marks
    beyond the best cell (kept for quick looks; the workflow uses the builders above)."""
    _check_columns(results, metric, list(columns) + [row])
    df = results.copy()
    df["_col"] = df[list(columns)].astype(str).agg(" / ".join, axis=1)
    df[metric] = pd.to_numeric(df[metric], errors="coerce").astype(float)
    mean, sd, count = _agg(df, row, "_col", metric, list(dict.fromkeys(df[row])), list(dict.fromkeys(df["_col"])))
    return PaperTable(metric=metric, mean=mean, sd=sd, count=count, decimals=decimals,
                      greater_is_better=greater_is_better, row_label=row)


__all__ = ["PaperTable", "per_dataset_tables", "resolved_setting", "row_settings", "select_settings",
           "setting_matches", "wide_table", "dataset_tables", "summary_table", "render_tables", "write_table_files",
           "html_document", "mean_sd_table", "write_stats_outputs", "GROUPINGS", "MIN_INTERVAL_N",
           "VALUE_RANGES", "interval_cell", "mean_interval", "value_range", "TEST_BLOCKS", "INCOMPLETE_MARK",
           "NOT_COMPARABLE_MARK", "not_comparable_datasets", "not_comparable_labels", "comparability_label",
           "comparability_notes"]
