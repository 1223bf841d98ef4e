"""Paper-style result tables: methods as rows, (dataset, label setting) as columns,
cells ``mean ± sd`` over repetitions.

This is the layout of the papers' per-dataset tables (e.g. PU Hellinger trees, Tables
A2-A7: methods x flip ratio per dataset). The standard deviation is the sample standard
deviation (ddof = 1) over repetitions; with a single repetition the cell shows the mean
alone. Numbers use a fixed number of decimals
(3 by default, as the papers print F1 / AUC).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pu_lib._io import write_text_atomic


@dataclass
class ResultTable:
    """A formatted table plus the numbers behind it."""

    metric: str
    mean: pd.DataFrame   # methods x columns
    sd: pd.DataFrame
    count: pd.DataFrame
    decimals: int = 3

    def cells(self) -> pd.DataFrame:
        fmt = f"{{:.{self.decimals}f}}"
        out = pd.DataFrame(index=self.mean.index, columns=self.mean.columns, dtype=object)
        for r in self.mean.index:
            for c in self.mean.columns:
                m, s, n = self.mean.loc[r, c], self.sd.loc[r, c], self.count.loc[r, c]
                if pd.isna(m):
                    out.loc[r, c] = "–"
                elif n <= 1 or pd.isna(s):
                    out.loc[r, c] = fmt.format(m)
                else:
                    out.loc[r, c] = f"{fmt.format(m)} ± {fmt.format(s)}"
        return out

    def to_markdown(self, title: str | None = None) -> str:
        cells = self.cells()
        header = ["method"] + [str(c) for c in cells.columns]
        lines = []
        if title:
            lines += [f"### {title}", ""]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join(["---"] + [":---:"] * len(cells.columns)) + "|")
        for r in cells.index:
            lines.append("| " + " | ".join([str(r)] + [str(v) for v in cells.loc[r]]) + " |")
        return "\n".join(lines) + "\n"

    def to_csv(self) -> str:
        long = pd.concat(
            {"mean": self.mean.stack(future_stack=True), "sd": self.sd.stack(future_stack=True),
             "n": self.count.stack(future_stack=True)},
            axis=1,
        ).reset_index()
        long.columns = ["method", "column", "mean", "sd", "n"]
        long.insert(0, "metric", self.metric)
        return long.to_csv(index=False, float_format=f"%.{max(self.decimals, 6)}g")


def mean_sd_table(results: pd.DataFrame, metric: str, columns=("dataset", "setting"),
                  row: str = "method", decimals: int = 3) -> ResultTable:
    """Aggregate result rows into a :class:`ResultTable` for ``metric``.

    Column labels join the ``columns`` fields with `` / `` (e.g. ``digits / scar_c-c0.5``);
    rows and columns keep their order of first appearance in ``results``.
    """
    if metric not in results.columns:
        raise ValueError(f"metric {metric!r} is not a column of the results; have {sorted(results.columns)}")
    df = results.copy()
    columns = list(columns)
    df["_col"] = df[columns].astype(str).agg(" / ".join, axis=1)
    row_order = list(dict.fromkeys(df[row]))
    col_order = list(dict.fromkeys(df["_col"]))
    g = df.groupby([row, "_col"], sort=False)[metric]
    mean = g.mean().unstack("_col").reindex(index=row_order, columns=col_order)
    sd = g.std(ddof=1).unstack("_col").reindex(index=row_order, columns=col_order)
    count = g.count().unstack("_col").reindex(index=row_order, columns=col_order).fillna(0).astype(int)
    for frame in (mean, sd, count):
        frame.index.name = row
        frame.columns.name = None
    return ResultTable(metric=metric, mean=mean, sd=sd, count=count, decimals=decimals)


def write_tables(results: pd.DataFrame, metrics, out_md: dict, out_csv: dict, title_prefix: str = "") -> None:
    """Write one Markdown and one CSV table per metric (atomically)."""
    from pu_lib.metrics import METRICS

    for metric in metrics:
        table = mean_sd_table(results, metric)
        label = METRICS.get(metric, {}).get("label", metric)
        better = "higher" if METRICS.get(metric, {}).get("greater_is_better", True) else "lower"
        title = f"{title_prefix}{label} (mean ± sd over repetitions; {better} is better)"
        write_text_atomic(table.to_markdown(title), out_md[metric])
        write_text_atomic(table.to_csv(), out_csv[metric])
