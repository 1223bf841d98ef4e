"""Scorecards: our cells beside a paper's published cells, cell by cell.

A paper config (``config/papers/<paper>.yaml``) names, per paper target, the tables it
reproduces and the file of the paper's printed cells (``config/papers/<paper>.published.csv``,
one row per printed cell: ``table, metric, experiment, dataset, setting, method, mean, sd,
label, note``; the values as printed, in the paper's units). :func:`build_scorecard` puts
ours beside each published cell:

- **ours**: mean, sd and number of runs of the cell, from the experiment's aggregate
  (:func:`summarise_results`, raw metric times the target's ``scale`` so that both sides are
  in the paper's units) or from a recorded summary of an earlier run
  (``docs/scorecards/recorded/<paper>.csv``, the same keys plus ``n_runs``, ``protocol`` and
  ``source``: the command that measured it);
- **difference** ours - published, and **within tolerance** or not: by default
  accuracy / F1 / AUC within 1.5 points (0.015 of the metric's range), class-prior errors
  within 0.03 absolute or within the paper's printed sd, whichever is larger, SAR MSEs
  within 0.03; times and other metrics are compared but not judged
  (:data:`DEFAULT_TOLERANCE`, overridable per target with ``tolerance``);
- **protocol** ``full`` or ``reduced``: reduced when the cell has fewer runs than the
  paper (``runs``) or its experiment is listed in the config's ``scorecard_reduced`` (set by
  the reduced overlays, with the reason);
- **cause**: the documented causes (config ``scorecard_causes``: kind, text, and the keys
  ``experiment`` / ``dataset`` / ``setting`` / ``method`` / ``metric`` they attach to; an
  omitted key matches anything) of every cell they match, the reduced protocol of a reduced
  cell, and ``unexplained`` for a cell outside its tolerance that no documented cause covers
  (the protocol marking alone explains nothing: fewer runs do not move a mean by many sds;
  a reduction that does, such as fewer epochs, is a ``reduced_protocol`` cause of its own).

An ``experiment`` written ``a+b`` pools the two experiments' cells (the TIcE thesis pools its
PU and NU data). A ``dataset`` or ``setting`` of ``all`` in the published file is a mean over all data sets
(settings) of the experiment that the paper averages: ours is the mean of the per-cell means,
its sd over the runs' values (``sd_over: runs``, default), over the cell means
(``sd_over: cells``) or the mean of the cells' sds over runs (``sd_over: mean_cell_sd``) as the
paper (or its authors' code) computes it for that table. A ``paper:<name>`` data set or
method has no counterpart in pu_lib (ours stays empty, cause ``not_available``).

Under the table: the counts (cells published, compared, within tolerance, outside with a
documented cause, unexplained, not run) and each headline claim of the paper
(``claims``) with its verdict, computed from our cells: **reproduced** (holds on every
compared cell), **reproduced with a documented deviation** (holds on some cells and fails
only on cells that carry a documented cause), **contradicted** (fails on a cell without one, or
on every cell), or **not tested** (no cell with ours for every method);
beside it, whether the claim holds in the paper's own printed cells.

The rule for settings (also in docs/developers.md): no setting is chosen by its distance to a
published cell; each comes from the paper, the authors' code, or a validation procedure on
PU data that the docs name. Published cells are for comparison only.

Command line (``python -m pu_lib.workflow.experiments.scorecard``): ``docs`` writes the scorecards of
every paper config from the published and recorded files into ``docs/scorecards/`` and the
marked blocks of the docs pages and README (``--check``: fail when a page disagrees);
``record`` copies the cells of a workflow scorecard (``results/scorecards/<target>.csv``)
into the recorded file with their command; ``card TARGET FITS... --configfile ...`` writes a
target's scorecard from chosen fit files (:func:`scorecard_from_fits`), e.g. one data set
rerun with an overlay, for ``record``.
"""

from __future__ import annotations

import html as _html
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "CAUSE_KINDS", "DEFAULT_TOLERANCE", "KEYS", "PUBLISHED_COLUMNS", "RECORDED_COLUMNS", "VERDICTS",
    "alias_results", "build_scorecard", "evaluate_claims", "load_published", "load_recorded", "render_html",
    "render_markdown", "scorecard_counts", "summarise_results", "target_spec", "write_scorecard",
]

#: the columns that name a cell, in the published and the recorded files
KEYS = ("table", "metric", "experiment", "dataset", "setting", "method")
PUBLISHED_COLUMNS = (*KEYS, "mean", "sd", "label", "note")
RECORDED_COLUMNS = (*KEYS, "mean", "sd", "n_runs", "protocol", "source")

#: documented causes of a deviation: kind -> the words of the scorecard's cause column
CAUSE_KINDS = {
    "data_differs": "data differs ‡",
    "reduced_protocol": "reduced protocol",
    "authors_code_differs": "authors' code differs",
    "settings_unknown": "paper's settings unknown",
    "not_available": "not available",
    "misprint": "paper's misprint",
    "run_noise": "within run-to-run noise",
    "unexplained": "unexplained",
}
#: a deviation is within run-to-run noise when it is at most this many standard errors of
#: the difference of the two means (:func:`noise_bound`)
NOISE_Z = 2.0
#: between the texts of a cell's causes (a text may hold semicolons)
CAUSE_SEP = " || "
VERDICTS = ("reproduced", "reproduced with a documented deviation", "contradicted", "not tested")

#: tolerance per metric in the metric's own units (fractions: 0.015 = 1.5 points); "sd" after
#: a number: the larger of it and the paper's printed sd; None: compared, not judged
DEFAULT_TOLERANCE = {
    "accuracy": 0.015, "f1": 0.015, "f1_tuned": 0.015, "f1_test_oracle": 0.015,
    "auc": 0.015, "auc_pr": 0.015, "auc_roc": 0.015,
    "balanced_accuracy": 0.015, "precision": 0.015, "recall": 0.015,
    "prior_abs_error": "0.03 sd", "alpha_u_abs_error": "0.03 sd", "alpha_abs_error": "0.03 sd",
    "prior_error": "0.03 sd", "c_error": "0.03 sd", "alpha_u_hat": "0.03 sd",
    "brier": 0.03, "propensity_mse": 0.03,
    "train_pu_risk_01": 0.03, "test_pn_risk_01": 0.03,
}


# ----------------------------------------------------------------------------- inputs
def _check_frame(df: pd.DataFrame, columns, path, empty_mean_needs_note: bool = False) -> pd.DataFrame:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}; expected {list(columns)}")
    extra = [c for c in df.columns if c not in columns]
    if extra:
        raise ValueError(f"{path}: unexpected column(s) {extra}; expected {list(columns)}")
    for col in ("mean", "sd"):
        values = pd.to_numeric(df[col], errors="coerce")
        bad = df.index[values.isna() & df[col].notna() & (df[col].astype(str).str.strip() != "")]
        if len(bad):
            raise ValueError(f"{path}: column {col!r} is not a number in row {int(bad[0]) + 2}: {df.at[bad[0], col]!r}")
        df[col] = values
    no_mean = df["mean"].isna()
    if empty_mean_needs_note:  # a printed cell without a number ("Failed"): the note says what is printed
        no_mean &= df["note"].astype(str).str.strip() == ""
    if no_mean.any():
        row = int(df.index[no_mean][0]) + 2
        raise ValueError(f"{path}: row {row} has no mean" + (" (and no note saying what is printed)"
                                                             if empty_mean_needs_note else ""))
    for col in KEYS:
        empty = df[col].isna() | (df[col].astype(str).str.strip() == "")
        if empty.any():
            raise ValueError(f"{path}: row {int(df.index[empty][0]) + 2} has an empty {col!r}")
        df[col] = df[col].astype(str).str.strip()
    dup = df.duplicated(list(KEYS), keep=False)
    if dup.any():
        first = df[dup].iloc[0]
        raise ValueError(f"{path}: cell {tuple(first[list(KEYS)])} appears {int(dup.sum())} times")
    return df


def load_published(path) -> pd.DataFrame:
    """A paper's published cells (``PUBLISHED_COLUMNS``); ``ValueError`` naming the file, the
    row and the column for a malformed file."""
    df = pd.read_csv(path, dtype={c: str for c in (*KEYS, "label", "note")}, keep_default_na=False,
                     na_values={"mean": [""], "sd": [""]})
    return _check_frame(df, PUBLISHED_COLUMNS, path, empty_mean_needs_note=True)


def load_recorded(path) -> pd.DataFrame:
    """Our recorded cells of earlier runs (``RECORDED_COLUMNS``, the paper's units)."""
    df = pd.read_csv(path, dtype={c: str for c in (*KEYS, "protocol", "source")}, keep_default_na=False,
                     na_values={"mean": [""], "sd": [""], "n_runs": [""]})
    df = _check_frame(df, RECORDED_COLUMNS, path)
    bad = ~df["protocol"].isin(["full", "reduced"])
    if bad.any():
        raise ValueError(f"{path}: protocol must be full or reduced, not {df.loc[bad, 'protocol'].iloc[0]!r} "
                         f"(row {int(df.index[bad][0]) + 2})")
    df["n_runs"] = pd.to_numeric(df["n_runs"], errors="raise").astype("Int64")
    return df


def target_spec(config: dict, target: str) -> dict:
    """The scorecard spec of a target (``config['scorecards'][target]``) with defaults
    filled in: ``tables`` (all tables of the published file), ``scale`` ({}), ``runs``
    (None), ``sd_over`` ('runs'), ``tolerance`` ({}), ``claims`` ([]), plus the config's
    ``scorecard_causes``, ``scorecard_reduced`` and ``scorecard_aliases`` (a reduced overlay's
    experiments and methods named as the published cells' ones)."""
    cards = config.get("scorecards") or {}
    if target not in cards:
        raise ValueError(f"target {target!r} has no scorecard (config scorecards: {sorted(cards)})")
    spec = dict(cards[target])
    if "published" not in spec:
        raise ValueError(f"scorecards.{target}: no `published` file")
    spec.setdefault("tables", None)
    spec["scale"] = dict(spec.get("scale") or {})
    spec.setdefault("runs", None)
    spec.setdefault("sd_over", "runs")
    spec["tolerance"] = dict(spec.get("tolerance") or {})
    spec["claims"] = list(spec.get("claims") or [])
    spec["causes"] = list(config.get("scorecard_causes") or [])
    spec["reduced"] = dict(config.get("scorecard_reduced") or {})
    spec["aliases"] = {k: dict((config.get("scorecard_aliases") or {}).get(k) or {}) for k in ("experiments", "methods")}
    return spec


# ----------------------------------------------------------------------------- ours
def _select(results: pd.DataFrame, cell) -> pd.DataFrame:
    m = results["experiment"].astype(str).isin(cell.experiment.split("+"))
    if cell.dataset != "all":
        m &= results["dataset"].astype(str) == cell.dataset
    if cell.setting != "all":
        m &= results["setting"].astype(str) == cell.setting
    m &= results["method"].astype(str) == cell.method
    return results[m]


def summarise_results(results: pd.DataFrame, published: pd.DataFrame, *, scale: dict | None = None,
                      sd_over: str = "runs") -> pd.DataFrame:
    """Ours for every published cell that our results hold: ``KEYS`` + mean, sd, n_runs in
    the paper's units (raw metric times ``scale[metric]``). A cell of ``all`` data sets or
    settings: mean of the per-(data set, setting) means over the cells with a value; sd over
    all runs' values (``sd_over='runs'``), over those cell means (``'cells'``), or the mean
    of the cells' sds over their runs (``'mean_cell_sd'``, PU Hellinger trees Tables 3-4); n_runs =
    the fewest runs of a cell. Cells without a value (metric absent or all NaN) are left out."""
    if sd_over not in ("runs", "cells", "mean_cell_sd"):
        raise ValueError(f"sd_over must be 'runs', 'cells' or 'mean_cell_sd', not {sd_over!r}")
    scale = scale or {}
    rows = []
    for cell in published.itertuples(index=False):
        if cell.method.startswith("paper:") or cell.dataset.startswith("paper:") or cell.metric not in results.columns:
            continue
        part = _select(results, cell)
        part = part[pd.to_numeric(part[cell.metric], errors="coerce").notna()]
        if part.empty:
            continue
        factor = float(scale.get(cell.metric, 1.0))
        values = pd.to_numeric(part[cell.metric]) * factor
        groups = values.groupby([part["dataset"].astype(str), part["setting"].astype(str)])
        means = groups.mean()
        if len(means) == 1:
            sd = float(values.std(ddof=1)) if len(values) > 1 else math.nan
        elif sd_over == "mean_cell_sd":
            sd = float(groups.std(ddof=1).mean())
        else:
            sd = float((values if sd_over == "runs" else means).std(ddof=1))
        row = {**{k: getattr(cell, k) for k in KEYS}, "mean": float(means.mean()), "sd": sd,
               "n_runs": int(groups.size().min())}
        if "reduced_reason" in part.columns:  # the reasons of the reduced experiments the rows came from
            row["reduced_reason"] = "; ".join(dict.fromkeys(r for r in part["reduced_reason"] if isinstance(r, str)))
        rows.append(row)
    extra = ["reduced_reason"] if "reduced_reason" in results.columns else []
    return pd.DataFrame(rows, columns=[*KEYS, "mean", "sd", "n_runs", *extra])


# ----------------------------------------------------------------------------- the card
def _tolerance(metric: str, spec_tol: dict, scale: float, published_sd) -> float | None:
    """Tolerance of a cell in the paper's units, or None (not judged)."""
    rule = spec_tol.get(metric, DEFAULT_TOLERANCE.get(metric))
    if rule is None:
        return None
    text = str(rule).split()
    tol = float(text[0]) * scale
    if len(text) > 1 and text[1] == "sd" and published_sd is not None and np.isfinite(published_sd):
        tol = max(tol, float(published_sd))
    return tol


def noise_bound(ours_sd, n_ours, published_sd, n_published) -> float | None:
    """``NOISE_Z`` standard errors of ``mean_ours - mean_published``: ``NOISE_Z *
    sqrt(sd_o^2 / n_o + sd_p^2 / n_p)``, each side's sd standing in for the other's where
    only one is known (the paper prints none, or ours was recorded without one), ``n_p`` the
    paper's runs (ours where the config gives none); None without any sd or with fewer than
    2 of our runs. Two means of runs normal with those spreads differ by more than this bound
    about 5% of the time."""
    def known(v):
        return v is not None and not pd.isna(v) and np.isfinite(float(v))

    if n_ours is None or pd.isna(n_ours) or int(n_ours) < 2 or not (known(ours_sd) or known(published_sd)):
        return None
    sd_o = float(ours_sd) if known(ours_sd) else float(published_sd)
    sd_p = float(published_sd) if known(published_sd) else sd_o
    n_p = int(n_published) if n_published else int(n_ours)
    return NOISE_Z * math.sqrt(sd_o ** 2 / int(n_ours) + sd_p ** 2 / n_p)


def _matches(cause: dict, cell: dict) -> bool:
    for key in ("experiment", "dataset", "setting", "method", "metric", "table"):
        want = cause.get(key)
        if want is None:
            continue
        wants = {str(w) for w in (want if isinstance(want, list) else [want])}
        have = str(cell[key]).split("+") if key == "experiment" else [str(cell[key])]
        if not wants & set(have):
            return False
    return True


def build_scorecard(published: pd.DataFrame, ours: pd.DataFrame | None, spec: dict) -> pd.DataFrame:
    """One row per published cell of the target's tables: ``KEYS``, label, published mean /
    sd, ours mean / sd / n_runs / protocol / source, difference, tolerance, within (True,
    False, or NA when not judged or not run), cause kinds and cause text."""
    tables = spec.get("tables")
    pub = published if not tables else published[published["table"].isin(tables)]
    if tables:
        missing = [t for t in tables if t not in set(published["table"])]
        if missing:
            raise ValueError(f"scorecard: table(s) {missing} are not in the published file "
                             f"(it has {sorted(set(published['table']))})")
    ours = ours if ours is not None else pd.DataFrame(columns=[*KEYS, "mean", "sd", "n_runs"])
    ours_idx = {tuple(r[k] for k in KEYS): r for r in ours.to_dict("records")}
    rows = []
    for cell in pub.to_dict("records"):
        key = tuple(cell[k] for k in KEYS)
        o = ours_idx.get(key)
        scale = float(spec["scale"].get(cell["metric"], 1.0))
        psd = cell["sd"] if pd.notna(cell["sd"]) else None
        row = {**{k: cell[k] for k in KEYS}, "label": cell["label"], "published_note": cell.get("note", ""),
               "published_mean": cell["mean"],
               "published_sd": cell["sd"], "ours_mean": math.nan, "ours_sd": math.nan, "n_runs": pd.NA,
               "protocol": "", "source": "", "difference": math.nan,
               "tolerance": _tolerance(cell["metric"], spec["tolerance"], scale, psd), "within": pd.NA}
        kinds, texts = [], []
        documented = False
        for cause in spec["causes"]:
            if _matches(cause, cell):
                kind = cause.get("kind", "unexplained")
                if kind not in CAUSE_KINDS:
                    raise ValueError(f"scorecard_causes: unknown kind {kind!r}; use one of {sorted(CAUSE_KINDS)}")
                kinds.append(kind)
                texts.append(str(cause.get("text", "")).strip())
                documented = documented or kind != "unexplained"
        if o is not None:
            row.update(ours_mean=float(o["mean"]), ours_sd=float(o["sd"]) if pd.notna(o["sd"]) else math.nan,
                       n_runs=int(o["n_runs"]) if pd.notna(o["n_runs"]) else pd.NA,
                       source=str(o.get("source", "") or ""))
            if isinstance(o.get("reduced_reason"), str):  # per result row, before experiment aliases
                reduced_reason = o["reduced_reason"]
            else:
                reduced_reason = "; ".join(spec["reduced"][e] for e in cell["experiment"].split("+")
                                           if e in spec["reduced"])
            few_runs = bool(spec.get("runs")) and pd.notna(row["n_runs"]) and row["n_runs"] < spec["runs"]
            protocol = str(o.get("protocol") or "full")
            if reduced_reason or few_runs:
                protocol = "reduced"
            row["protocol"] = protocol
            row["difference"] = row["ours_mean"] - float(cell["mean"])
            if row["tolerance"] is not None and pd.notna(cell["mean"]):
                row["within"] = bool(abs(row["difference"]) <= row["tolerance"] + 1e-9)
            if protocol == "reduced":
                kinds.append("reduced_protocol")
                why = reduced_reason or (f"{row['n_runs']} runs of the paper's {spec['runs']}" if few_runs
                                         else "reduced run")
                texts.append(why)
            # a deviation beyond tolerance but within NOISE_Z standard errors of the two
            # means (the tolerance is fixed; per-data-set cells can spread far wider) is
            # within run-to-run noise, a documented cause
            bound = noise_bound(row["ours_sd"], row["n_runs"], psd, spec.get("runs"))
            if row["within"] is False and bound is not None and abs(row["difference"]) <= bound:
                kinds.append("run_noise")
                texts.append(f"the difference is within {NOISE_Z:g} standard errors of the difference of the two means "
                             "(ours: our sd over our runs; the paper's: its printed sd over its runs; either sd stands "
                             "in for the other where only one is known)")
                documented = True
            # a documented cause explains a deviation; the protocol marking alone (fewer runs,
            # a reduced overlay) does not: a deviation beyond tolerance with no other cause
            # is unexplained. An explicit reduced_protocol cause (e.g. 30 epochs instead of
            # 200) in scorecard_causes does count.
            if row["within"] is False and not documented:
                kinds.append("unexplained")
        elif not kinds or "not_available" not in kinds:
            kinds.append("not_available")
            texts.append("not run" if not (cell["method"].startswith("paper:") or cell["dataset"].startswith("paper:"))
                         else "no counterpart in pu_lib")
        row["cause_kind"] = "; ".join(dict.fromkeys(kinds))
        row["cause"] = CAUSE_SEP.join(t for t in dict.fromkeys(texts) if t)
        rows.append(row)
    card = pd.DataFrame(rows)
    if card.empty:
        return card
    # One printed cell may be listed under several of our data sets (the paper's and an
    # offline stand-in, e.g. UNSW-NB15's official partitions and the one partition): keep
    # the row that has ours (the first such), else the first row.
    same = ["table", "metric", "setting", "method", "label", "published_mean"]
    order = card.assign(_has=card["ours_mean"].notna(), _pos=range(len(card)))
    keep = order.sort_values(["_has", "_pos"], ascending=[False, True]).drop_duplicates(same)["_pos"]
    return card.iloc[sorted(keep)].reset_index(drop=True)


def scorecard_counts(card: pd.DataFrame) -> dict:
    """``published`` cells, ``compared`` (ours present), ``judged`` (with a tolerance),
    ``within`` tolerance, ``outside_documented`` (outside, with a cause other than
    unexplained), ``unexplained``, ``not_run``."""
    compared = card["ours_mean"].notna()
    judged = compared & card["within"].notna()
    within = judged & (card["within"] == True)  # noqa: E712 (NA-safe)
    outside = judged & (card["within"] == False)  # noqa: E712
    unexplained = outside & card["cause_kind"].str.contains("unexplained")
    return {"published": int(len(card)), "compared": int(compared.sum()), "judged": int(judged.sum()),
            "within": int(within.sum()), "outside_documented": int((outside & ~unexplained).sum()),
            "unexplained": int(unexplained.sum()), "not_run": int((~compared).sum())}


# ----------------------------------------------------------------------------- claims
def _claim_cells(frame: pd.DataFrame, claim: dict, value: str) -> pd.DataFrame:
    """(data set, setting) x method values of a claim's table and metric: the cells where the
    claim's ``better`` method and at least one of its ``than`` methods have a value (a data
    set may have its own network, e.g. PU ET Table 6's 20News rows)."""
    part = frame[(frame["table"] == claim["table"]) & (frame["metric"] == claim["metric"])]
    methods = [claim["better"], *claim["than"]]
    part = part[part["method"].isin(methods)]
    wide = part.pivot_table(index=["dataset", "setting"], columns="method", values=value, aggfunc="first")
    wide = wide.reindex(columns=methods)
    return wide[wide[claim["better"]].notna() & wide[list(claim["than"])].notna().any(axis=1)]


def _holds(wide: pd.DataFrame, claim: dict) -> pd.Series:
    higher = claim.get("direction", "higher") == "higher"
    best, others = wide[claim["better"]], wide[list(claim["than"])]
    return (best.gt(others.max(axis=1)) if higher else best.lt(others.min(axis=1)))


def evaluate_claims(card: pd.DataFrame, claims: list[dict]) -> list[dict]:
    """Each claim with ``verdict`` (:data:`VERDICTS`), ``cells`` compared, ``held`` (cells
    where it holds on our side), ``failed`` (the failing cells, ``dataset / setting``),
    ``paper_held`` / ``paper_cells`` (the same test on the published cells). ``over: mean``
    compares the means over the compared cells instead of each cell."""
    out = []
    for claim in claims:
        claim = {"direction": "higher", "over": "each", **claim}
        claim["than"] = list(claim["than"]) if isinstance(claim["than"], (list, tuple)) else [claim["than"]]
        ours = _claim_cells(card, claim, "ours_mean")
        paper = _claim_cells(card, claim, "published_mean")
        if claim["over"] == "mean":
            ours = ours.mean().to_frame().T if len(ours) else ours
            paper = paper.mean().to_frame().T if len(paper) else paper
        held = _holds(ours, claim) if len(ours) else pd.Series(dtype=bool)
        paper_held = _holds(paper, claim) if len(paper) else pd.Series(dtype=bool)
        failed = [] if claim["over"] == "mean" else [f"{d} / {s}" for (d, s), ok in held.items() if not ok]
        if not len(ours):
            verdict = "not tested"
        elif held.all():
            verdict = "reproduced"
        elif claim["over"] == "mean" or not held.any():
            verdict = "contradicted"
        else:
            # fails on some cells: a documented deviation when every failing cell carries a
            # documented cause (the reduced-protocol marking alone is none, as for a cell)
            rows = card[(card["table"] == claim["table"]) & (card["metric"] == claim["metric"])
                        & card["method"].isin([claim["better"], *claim["than"]])]

            def documented(dataset, setting) -> bool:
                part = rows[(rows["dataset"] == dataset) & (rows["setting"] == setting)]
                kinds = {k.strip() for text in part["cause_kind"].fillna("") for k in text.split(";")}
                return bool(kinds - {"", "unexplained", "reduced_protocol"})

            verdict = ("reproduced with a documented deviation"
                       if all(documented(d, s) for (d, s), ok in held.items() if not ok) else "contradicted")
        out.append({"text": claim["text"], "table": claim["table"], "metric": claim["metric"], "verdict": verdict,
                    "cells": int(len(held)), "held": int(held.sum()), "failed": failed,
                    "paper_cells": int(len(paper_held)), "paper_held": int(paper_held.sum())})
    return out


# ----------------------------------------------------------------------------- rendering
def _fmt(v, decimals: int) -> str:
    """``decimals`` places; one more below 1 (class-prior errors, MSEs, risks)."""
    if v is None or v is pd.NA or (isinstance(v, float) and not np.isfinite(v)):
        return ""
    v = float(v)
    return f"{v:.{decimals + 1 if 0 < abs(v) < 1 else decimals}f}"


def _cell(mean, sd, decimals, note=None) -> str:
    m = _fmt(mean, decimals)
    if not m:
        return "–" if not (isinstance(note, str) and note.strip()) else note.split(";")[0][:40]
    s = _fmt(sd, decimals)
    return f"{m} ({s})" if s else m


def _cause_notes(card: pd.DataFrame) -> dict:
    """``{cause text: note number}`` in the order of first appearance."""
    notes: dict = {}
    for r in card.to_dict("records"):
        for text in _cause_parts(r):
            notes.setdefault(text, len(notes) + 1)
    return notes


def _cause_parts(r) -> list[str]:
    return [t.strip() for t in str(r.get("cause") or "").split(CAUSE_SEP) if t.strip()]


def _display_rows(card: pd.DataFrame, decimals: int, notes: dict) -> list[list[str]]:
    rows = []
    for r in card.to_dict("records"):
        within = "" if r["within"] is pd.NA or pd.isna(r["within"]) else ("yes" if r["within"] else "**no**")
        if r["tolerance"] is None or (isinstance(r["tolerance"], float) and not np.isfinite(r["tolerance"])):
            within = "not judged" if pd.notna(r["ours_mean"]) else ""
        runs = "" if pd.isna(r["n_runs"]) else f"{int(r['n_runs'])}, {r['protocol']}"
        diff = _fmt(r["difference"], decimals)
        if diff and not diff.startswith("-"):
            diff = "+" + diff
        kinds = [CAUSE_KINDS[k.strip()] for k in str(r["cause_kind"] or "").split(";") if k.strip()]
        refs = "".join(f"[{notes[t]}]" for t in _cause_parts(r))
        rows.append([r["table"], r["metric"], str(r["label"]),
                     _cell(r["published_mean"], r["published_sd"], decimals, r.get("published_note")),
                     _cell(r["ours_mean"], r["ours_sd"], decimals), runs, diff, within,
                     "; ".join(kinds) + (f" {refs}" if refs else "")])
    return rows


HEADER = ["table", "metric", "cell (paper's label)", "paper", "ours", "runs, protocol", "ours − paper", "within",
          "cause"]


def _counts_line(counts: dict) -> str:
    return (f"{counts['published']} published cells, {counts['compared']} compared, {counts['within']} of "
            f"{counts['judged']} judged within tolerance, {counts['outside_documented']} outside with a documented "
            f"cause, {counts['unexplained']} unexplained, {counts['not_run']} without ours")


def render_markdown(target: str, card: pd.DataFrame, claims: list[dict], *, title: str = "",
                    decimals: int = 2, heading: str = "###", full_link: str | None = None) -> str:
    """The scorecard as Markdown: a heading, the cells, the counts and the claims. With
    ``full_link`` (a docs page's block) only the cells with ours are listed, and the link
    names the full scorecard."""
    md = lambda s: str(s).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    lines = [f"{heading} Scorecard: {target}" + (f" ({title})" if title else ""), ""]
    shown = card[card["ours_mean"].notna()] if full_link else card
    if full_link:
        lines += [f"The cells with ours; every published cell, the causes' sources and the claims: "
                  f"[the full scorecard]({full_link}).", ""]
    lines.append("| " + " | ".join(HEADER) + " |")
    lines.append("|" + "---|" * len(HEADER))
    notes = _cause_notes(shown)
    for row in _display_rows(shown, decimals, notes):
        lines.append("| " + " | ".join(md(x) for x in row) + " |")
    if notes:
        lines += ["", "Causes: " + " ".join(f"[{n}] {md(t)}" for t, n in notes.items())]
    counts = scorecard_counts(card)
    lines += ["", f"**{_counts_line(counts)}.** Tolerances: accuracy / F1 / AUC ±1.5 points, class-prior errors "
              "±0.03 or the paper's sd, SAR MSE ±0.03; times are not judged. No setting was chosen by its distance "
              "to a published cell."]
    if claims:
        lines += ["", "| the paper's claim | verdict | our cells where it holds | paper's cells where it holds |",
                  "|---|---|---|---|"]
        for c in claims:
            failed = f" (fails: {', '.join(c['failed'][:6])}{' ...' if len(c['failed']) > 6 else ''})" if c["failed"] else ""
            lines.append(f"| {md(c['text'])} ({c['table']}, {c['metric']}) | {c['verdict']} | "
                         f"{c['held']} of {c['cells']}{md(failed)} | {c['paper_held']} of {c['paper_cells']} |")
    return "\n".join(lines) + "\n"


def render_html(target: str, card: pd.DataFrame, claims: list[dict], *, title: str = "", decimals: int = 2) -> str:
    """The scorecard as a standalone HTML page (for ``snakemake --report``)."""
    from pu_lib.workflow.reporting import html_document

    esc = _html.escape
    head = "".join(f"<th>{esc(h)}</th>" for h in HEADER)
    notes = _cause_notes(card)
    body = "".join("<tr>" + "".join(f"<td>{esc(x.replace('**', ''))}</td>" for x in row) + "</tr>"
                   for row in _display_rows(card, decimals, notes))
    parts = [f"<h2>Scorecard: {esc(target)}{' (' + esc(title) + ')' if title else ''}</h2>",
             f"<table class=\"pu-table\"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>",
             "<p>Causes: " + " ".join(f"[{n}] {esc(t)}" for t, n in notes.items()) + "</p>",
             f"<p><b>{esc(_counts_line(scorecard_counts(card)))}.</b></p>"]
    if claims:
        rows = "".join(f"<tr><td>{esc(c['text'])} ({esc(c['table'])}, {esc(c['metric'])})</td><td>{esc(c['verdict'])}"
                       f"</td><td>{c['held']} of {c['cells']}</td><td>{c['paper_held']} of {c['paper_cells']}</td></tr>"
                       for c in claims)
        parts.append("<table class=\"pu-table\"><thead><tr><th>the paper's claim</th><th>verdict</th><th>ours holds"
                     f"</th><th>paper holds</th></tr></thead><tbody>{rows}</tbody></table>")
    return html_document("\n".join(parts), f"Scorecard {target}")


CSV_COLUMNS = [*KEYS, "label", "published_mean", "published_sd", "ours_mean", "ours_sd", "n_runs", "protocol",
               "difference", "tolerance", "within", "cause_kind", "cause", "source"]


def write_scorecard(target: str, card: pd.DataFrame, claims: list[dict], outputs: dict, *, title: str = "") -> None:
    """Write the card as every format in ``outputs`` ({"md": path, "csv": ..., "html": ...}),
    each atomically."""
    from pu_lib._io import write_text_atomic

    for fmt, path in outputs.items():
        if fmt == "md":
            text = render_markdown(target, card, claims, title=title, heading="#")
        elif fmt == "html":
            text = render_html(target, card, claims, title=title)
        elif fmt == "csv":
            text = card.reindex(columns=CSV_COLUMNS).to_csv(index=False, float_format="%.6g")
        else:
            raise ValueError(f"unknown scorecard format {fmt!r}; use md, csv or html")
        write_text_atomic(text, path)


def alias_results(results: pd.DataFrame, spec: dict) -> tuple[pd.DataFrame, dict]:
    """``(results, spec)`` with a reduced overlay's experiments and methods filed under the
    paper's names (``scorecard_aliases``). Each row first gets the reason of the reduced
    experiment it came from (``reduced_reason``), so a full-protocol data set of the aliased
    experiment stays full; the returned spec has no experiment-level reasons left."""
    results = results.copy()
    results["reduced_reason"] = results["experiment"].astype(str).map(spec["reduced"])
    for col, key in (("experiment", "experiments"), ("method", "methods")):
        if spec["aliases"][key]:
            results[col] = results[col].astype(str).replace(spec["aliases"][key])
    return results, {**spec, "reduced": {}}


def scorecard_from_results(config: dict, target: str, aggregates: list, *, root=".") -> tuple:
    """(card, claims) of a target from its experiments' aggregate Parquet files."""
    frames = [pd.read_parquet(p) for p in aggregates]
    results = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["experiment", "dataset", "setting", "method"])
    card, claims, _ = _card(config, target, results, root=root)
    return card, claims


def _card(config: dict, target: str, results: pd.DataFrame, *, root=".", planned: pd.DataFrame | None = None):
    """(card, claims, left_out) from result rows. With ``planned`` (the experiment /
    dataset / setting cells a full run of the target would hold), a published cell that
    averages over ``all`` data sets or settings is left out of ours when the rows of its
    method do not cover every planned cell it averages: ``left_out`` lists it, naming
    the missing cells (a mean over the data sets at hand would not be the paper's mean)."""
    spec = target_spec(config, target)
    published = load_published(Path(root) / spec["published"])
    aliases = spec["aliases"]["experiments"]
    results, spec = alias_results(results, spec)
    left_out = []
    kept = published
    if planned is not None:
        planned = planned.assign(experiment=planned["experiment"].astype(str).replace(aliases))
        drop = []
        for i, cell in published.iterrows():
            if spec["tables"] and cell["table"] not in spec["tables"]:
                continue
            if "all" not in (cell["dataset"], cell["setting"]) or cell["method"].startswith("paper:"):
                continue
            part = _select(results, cell)
            if part.empty:
                continue
            need = planned[planned["experiment"].isin(cell["experiment"].split("+"))]
            for col in ("dataset", "setting"):
                if cell[col] != "all":
                    need = need[need[col].astype(str) == cell[col]]
            have = set(map(tuple, part[["experiment", "dataset", "setting"]].astype(str).drop_duplicates().values))
            missing = sorted(c for c in map(tuple, need.astype(str).values) if c not in have)
            if missing:
                drop.append(i)
                left_out.append({**{k: cell[k] for k in KEYS}, "missing": missing})
        kept = published.drop(index=drop)
    ours = summarise_results(results, kept, scale=spec["scale"], sd_over=spec["sd_over"])
    ours["protocol"] = "full"
    card = build_scorecard(published, ours, spec)
    return card, evaluate_claims(card, spec["claims"]), left_out


def scorecard_from_fits(config: dict, target: str, fit_files, *, root=".") -> tuple:
    """(card, claims, left_out) of a target from chosen fit files
    (``results/fits/<experiment>/<dataset>/<setting>/<method>.parquet``), e.g. the cells
    of one data set rerun with an overlay, without the rest of the target's fits.

    ``config``: the validated config of the run that wrote them (the command line merges
    its ``--configfile`` files as Snakemake does: ``config.merge_config_files``).
    Each file is checked as the ``aggregate`` rule checks it (its cell, repetitions
    ``0 .. R-1`` of its experiment), and must belong to one of the target's experiments.
    Cells that average over ``all`` data sets or settings get ours only where the files
    cover every cell of the run's grid they average (``left_out`` names the others)."""
    from pu_lib.workflow.experiments.config import Grid
    from pu_lib.workflow.experiments.results import aggregate, fit_file_cell

    targets = config.get("targets") or {}
    if target not in targets:
        raise ValueError(f"target {target!r} is not a target of this config (targets: {sorted(targets)})")
    experiments = list(targets[target]["experiments"])
    for path in fit_files:
        exp = fit_file_cell(path)["experiment"]
        if exp not in experiments:
            raise ValueError(f"{path}: a fit file of experiment {exp!r}, but target {target!r} scores "
                             f"experiment(s) {experiments}")
    grid = Grid(config, workdir=root)
    reps = {name: e["exp"]["repetitions"] for name, e in grid.experiments.items()}
    results = aggregate(fit_files, repetitions=reps)
    planned = pd.DataFrame([(e, d, s) for e in experiments if e in grid.experiments
                            for d in grid.experiments[e]["datasets"] for s in grid.experiments[e]["settings"]],
                           columns=["experiment", "dataset", "setting"])
    return _card(config, target, results, root=root, planned=planned)


# ----------------------------------------------------------------------------- docs
#: a docs page's generated block: the scorecard of one target, or (README) the counts of a paper
BLOCK = re.compile(r"(<!-- scorecard:(?P<name>[A-Za-z0-9_]+) -->)(?P<body>.*?)(<!-- /scorecard:(?P=name) -->)", re.S)
SUMMARY = re.compile(r"(<!-- scorecard-summary:(?P<name>[A-Za-z0-9_]+) -->)(?P<body>.*?)"
                     r"(<!-- /scorecard-summary:(?P=name) -->)", re.S)


def paper_configs(root=".") -> dict:
    """``{paper: config}`` of every ``config/papers/<paper>.yaml`` with a ``scorecards`` section."""
    import yaml

    out = {}
    for path in sorted((Path(root) / "config" / "papers").glob("*.yaml")):
        cfg = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if cfg.get("scorecards"):
            out[path.stem] = cfg
    return out


def recorded_path(paper: str, root=".") -> Path:
    return Path(root) / "docs" / "scorecards" / "recorded" / f"{paper}.csv"


def recorded_scorecards(root=".") -> dict:
    """``{target: (paper, card, claims)}`` of every paper config's targets, ours from the
    recorded file of the paper (cells it lacks stay empty)."""
    out = {}
    for paper, cfg in paper_configs(root).items():
        rec = recorded_path(paper, root)
        ours = load_recorded(rec) if rec.exists() else None
        for target in cfg["scorecards"]:
            spec = target_spec(cfg, target)
            published = load_published(Path(root) / spec["published"])
            card = build_scorecard(published, ours, spec)
            out[target] = (paper, card, evaluate_claims(card, spec["claims"]))
    return out


def paper_summary(cards: dict, paper: str) -> str:
    """One sentence for README: the paper's targets' counts and claim verdicts."""
    totals = {k: 0 for k in ("published", "compared", "judged", "within", "outside_documented", "unexplained",
                             "not_run")}
    verdicts = {v: 0 for v in VERDICTS}
    for p, card, claims in cards.values():
        if p != paper:
            continue
        for k, v in scorecard_counts(card).items():
            totals[k] += v
        for c in claims:
            verdicts[c["verdict"]] += 1
    claim_text = ", ".join(f"{n} {v}" for v, n in verdicts.items() if n)
    return (f"{totals['within']} of {totals['judged']} judged cells within tolerance ({totals['compared']} of "
            f"{totals['published']} published cells compared; {totals['outside_documented']} outside with a "
            f"documented cause, {totals['unexplained']} unexplained)" + (f"; claims: {claim_text}" if claim_text else ""))


def sync_docs(root=".", check: bool = False) -> list[str]:
    """Write ``docs/scorecards/<target>.{md,csv}`` and the marked blocks of README.md and
    docs/*.md from the recorded scorecards; with ``check``, write nothing and return the
    files that disagree (empty list: all agree)."""
    from pu_lib._io import write_text_atomic

    root = Path(root)
    cards = recorded_scorecards(root)
    stale = []

    def put(path: Path, text: str):
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old != text:
            stale.append(str(path.relative_to(root)))
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_text_atomic(text, path)

    for target, (paper, card, claims) in cards.items():
        base = root / "docs" / "scorecards" / target
        put(base.with_suffix(".md"), render_markdown(target, card, claims, heading="#",
                                                     title=f"config/papers/{paper}.yaml"))
        put(base.with_suffix(".csv"), card.reindex(columns=CSV_COLUMNS).to_csv(index=False, float_format="%.6g"))
    index = ["# Scorecards: our cells beside the papers' published cells", "",
             "Generated by `python -m pu_lib.workflow.experiments.scorecard docs` from `config/papers/<paper>.published.csv` "
             "(the papers' printed cells) and `docs/scorecards/recorded/<paper>.csv` (ours, with the command that "
             "measured each cell); a test fails when a page disagrees. Tolerances: accuracy / F1 / AUC ±1.5 points, "
             "class-prior errors ±0.03 or the paper's sd, SAR MSE ±0.03; times are compared, not judged. No setting "
             "was chosen by its distance to a published cell ([the rule](../developers.md#reproducing-a-paper-"
             "published-cells-and-scorecards)).", "",
             "| target | paper config | cells | claims |", "|---|---|---|---|"]
    for target, (paper, card, claims) in cards.items():
        verdicts = {v: sum(c["verdict"] == v for c in claims) for v in VERDICTS}
        index.append(f"| [{target}]({target}.md) | `config/papers/{paper}.yaml` | {_counts_line(scorecard_counts(card))} | "
                     + (", ".join(f"{n} {v}" for v, n in verdicts.items() if n) or "none") + " |")
    put(root / "docs" / "scorecards" / "README.md", "\n".join(index) + "\n")
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")

        def block(m):
            name = m.group("name")
            if name not in cards:
                raise ValueError(f"{page}: block scorecard:{name} names no target with a scorecard")
            paper, card, claims = cards[name]
            rel = "scorecards/" if page.parent.name == "docs" else "docs/scorecards/"
            return m.group(1) + "\n" + render_markdown(name, card, claims, heading="####",
                                                        full_link=f"{rel}{name}.md") + m.group(4)

        def summary(m):
            name = m.group("name")
            if not any(p == name for p, _, _ in cards.values()):
                raise ValueError(f"{page}: block scorecard-summary:{name} names no paper config with scorecards")
            return m.group(1) + paper_summary(cards, name) + m.group(4)

        new = SUMMARY.sub(summary, BLOCK.sub(block, text))
        if new != text:
            put(page, new)
    return stale


def record(scorecard_csv, paper: str, command: str, root=".") -> int:
    """Copy ours of a workflow scorecard (``results/scorecards/<target>.csv``) into the
    paper's recorded file, replacing the same cells; ``source`` = ``command``. Returns the
    number of cells recorded."""
    from pu_lib._io import write_text_atomic

    card = pd.read_csv(scorecard_csv, dtype={k: str for k in KEYS}, keep_default_na=False,
                       na_values={c: [""] for c in ("ours_mean", "ours_sd", "n_runs")})
    card = card[pd.to_numeric(card["ours_mean"], errors="coerce").notna()]
    new = pd.DataFrame({**{k: card[k] for k in KEYS}, "mean": card["ours_mean"], "sd": card["ours_sd"],
                        "n_runs": card["n_runs"], "protocol": card["protocol"], "source": command})
    path = recorded_path(paper, root)
    old = load_recorded(path) if path.exists() else pd.DataFrame(columns=list(RECORDED_COLUMNS))
    keep = ~old.set_index(list(KEYS)).index.isin(new.set_index(list(KEYS)).index)
    merged = pd.concat([old[keep], new], ignore_index=True).reindex(columns=list(RECORDED_COLUMNS))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(merged.to_csv(index=False, float_format="%.6g"), path)
    return len(new)


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m pu_lib.workflow.experiments.scorecard", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("docs", help="write docs/scorecards/ and the docs' scorecard blocks from the recorded cells")
    d.add_argument("--check", action="store_true", help="write nothing; exit 1 naming the pages that disagree")
    r = sub.add_parser("record", help="copy ours of a workflow scorecard into docs/scorecards/recorded/<paper>.csv")
    r.add_argument("scorecard_csv")
    r.add_argument("--paper", required=True, help="the paper config's stem, e.g. pu_extra_trees")
    r.add_argument("--command", required=True, help="the command that produced the results (recorded as source)")
    c = sub.add_parser("card",
                       help="a target's scorecard from chosen fit files (e.g. one data set rerun with an overlay)")
    c.add_argument("target")
    c.add_argument("fit_files", nargs="+", help="results/fits/<experiment>/<dataset>/<setting>/<method>.parquet")
    c.add_argument("--configfile", nargs="+", required=True,
                   help="the config files of the run that wrote the fits, in the order given to Snakemake")
    c.add_argument("--out", help="output prefix (default results/scorecards/from_fits/<target>): .md, .csv, .html")
    args = parser.parse_args(argv)
    if args.cmd == "card":
        from pu_lib.workflow.experiments.config import DEFAULT_SCHEMA, merge_config_files, validate_config

        config = validate_config(merge_config_files(args.configfile), DEFAULT_SCHEMA)
        card, claims, left_out = scorecard_from_fits(config, args.target, args.fit_files)
        prefix = args.out or f"results/scorecards/from_fits/{args.target}"
        Path(prefix).parent.mkdir(parents=True, exist_ok=True)
        write_scorecard(args.target, card, claims, {fmt: f"{prefix}.{fmt}" for fmt in ("md", "csv", "html")},
                        title=", ".join([*args.configfile, f"{len(args.fit_files)} fit file(s)"]))
        if left_out:
            missing = sorted({m for cell in left_out for m in cell["missing"]})
            shown = ", ".join("/".join(m) for m in missing[:6])
            if len(missing) > 6:
                shown += f" and {len(missing) - 6} more"
            first = left_out[0]
            print(f"left out {len(left_out)} cell(s) that average over all data sets or settings (e.g. "
                  f"{first['table']} {first['metric']} {first['dataset']}/{first['setting']}/{first['method']}): "
                  f"the fit files do not hold {shown}")
        counts = scorecard_counts(card)
        print(f"wrote {prefix}.md, .csv, .html: {counts['compared']} of {counts['published']} published cells compared")
        return 0
    if args.cmd == "docs":
        stale = sync_docs(".", check=args.check)
        for path in stale:
            print(("disagrees with its scorecard: " if args.check else "wrote ") + path)
        return 1 if (args.check and stale) else 0
    n = record(args.scorecard_csv, args.paper, args.command)
    print(f"recorded {n} cells in {recorded_path(args.paper)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
