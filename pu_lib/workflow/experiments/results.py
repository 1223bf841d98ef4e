"""Result files of the workflow: the checked aggregation of one experiment's fit files.

Every ``fit_eval`` job writes ``results/fits/{experiment}/{dataset}/{setting}/{method}.parquet``
(one row per repetition). :func:`aggregate` concatenates an experiment's files after
checking that each holds the cell it is named for -- a valid Parquet file with another
cell's rows (a copied or misplaced file) would otherwise be aggregated silently -- and
fails with a ``ValueError`` naming the file when it does not, or when the file cannot be
read (a truncated or corrupt file).

The aggregate is written atomically (:func:`pu_lib._io.write_parquet_atomic`), so a
failing aggregation never leaves a half-written file. The rule's output is flagged
``update()`` in the workflow: Snakemake then neither deletes the previous aggregate before
the job nor after a failure, but restores it from its backup. Snakemake gives the
restored file a new modification time, which would make the next run take it for up to
date; so a failing aggregation leaves a failure marker beside it with a new identifier
(:func:`mark_failed`), and the rule has a parameter ``last_failure`` that reads that
identifier (:func:`last_failure`). Snakemake records a job's parameters as they were when
it planned the job, also for a failed job (Snakemake 9), and reruns a job whose parameters
have changed since: the next run sees a new identifier and aggregates again (reporting the
problem again) until an aggregation succeeds. A success keeps the identifier
(:func:`clear_failed` renames the marker), so the run after it has nothing to do. Nothing
is written while the workflow is parsed or planned (a dry run changes no file).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

__all__ = ["CELL_COLUMNS", "aggregate", "check_fit_rows", "clear_failed", "failed_marker", "fit_file_cell",
           "last_failure", "mark_failed"]

#: the columns that name a result row's cell, in the order of the fit file path
CELL_COLUMNS = ("experiment", "dataset", "setting", "method")
_SORT = [*CELL_COLUMNS, "rep"]


def fit_file_cell(path) -> dict:
    """``{experiment, dataset, setting, method}`` of a fit file named
    ``.../{experiment}/{dataset}/{setting}/{method}.parquet`` (the workflow's layout)."""
    p = Path(path)
    if p.suffix != ".parquet" or len(p.parts) < 4:
        raise ValueError(f"aggregate: {path} is not named <experiment>/<dataset>/<setting>/<method>.parquet")
    return {"experiment": p.parts[-4], "dataset": p.parts[-3], "setting": p.parts[-2], "method": p.stem}


def check_fit_rows(df, path, cell: dict, repetitions: int | None = None) -> None:
    """``ValueError`` naming ``path`` unless every row of ``df`` belongs to ``cell`` (its
    experiment, dataset, setting and method) and its ``rep`` column holds each of
    ``0 .. repetitions - 1`` exactly once (without ``repetitions``: ``0 .. len(df) - 1``)."""
    missing = [c for c in (*CELL_COLUMNS, "rep") if c not in df.columns]
    if missing:
        raise ValueError(f"aggregate: result file {path} has no column(s) {missing}; it is not a fit_eval result")
    for col in CELL_COLUMNS:
        values = sorted({str(v) for v in df[col].unique()})
        if values != [str(cell[col])]:
            raise ValueError(
                f"aggregate: result file {path} holds rows of {col} {values}, but it is named for "
                f"{col} {cell[col]!r}: it does not hold the cell it is named for "
                f"({'/'.join(str(cell[c]) for c in CELL_COLUMNS)}); rerun that cell (delete the file)"
            )
    from collections import Counter

    reps = [int(r) for r in df["rep"]]
    expected = int(repetitions) if repetitions is not None else len(reps)
    dup = sorted(r for r, n in Counter(reps).items() if n > 1)
    if dup:
        raise ValueError(f"aggregate: result file {path} holds repetition(s) {dup} more than once")
    if sorted(reps) != list(range(expected)):
        missing_reps = sorted(set(range(expected)) - set(reps))
        extra = sorted(set(reps) - set(range(expected)))
        raise ValueError(
            f"aggregate: result file {path} holds repetitions {sorted(reps)[:20]}, expected 0..{expected - 1}"
            + (f" (missing {missing_reps[:20]})" if missing_reps else "")
            + (f" (unexpected {extra[:20]})" if extra else "")
            + "; rerun that cell (delete the file)"
        )


def _read(path):
    import pandas as pd

    try:
        return pd.read_parquet(path)
    except Exception as exc:  # truncated, corrupt or not Parquet at all: name the file
        raise ValueError(f"aggregate: cannot read result file {path} ({type(exc).__name__}: {exc}); "
                         "it is truncated or not a Parquet file: rerun that cell (delete the file)") from exc


def aggregate(paths, out: str | None = None, *, repetitions=None, cells: dict | None = None):
    """Concatenate result files (in sorted path order) into one frame sorted by cell
    and repetition; with ``out``, write it atomically.

    Each file is checked first (:func:`check_fit_rows`): it must be readable and hold
    exactly the cell its path names (:func:`fit_file_cell`; ``cells`` maps a path to
    another expected cell) with the repetitions ``0 .. R-1``, where ``R`` is
    ``repetitions`` (an int, or a dict experiment -> int; None: as many as the file
    has rows). The first problem raises ``ValueError`` naming the file, before anything
    is written.
    """
    import pandas as pd

    from pu_lib._io import write_parquet_atomic

    frames = []
    for p in sorted(map(str, paths)):
        cell = (cells or {}).get(p) or fit_file_cell(p)
        reps = repetitions.get(cell["experiment"]) if isinstance(repetitions, dict) else repetitions
        df = _read(p)
        check_fit_rows(df, p, cell, reps)
        frames.append(df)
    if not frames:
        raise ValueError("aggregate: no result files given")
    df = pd.concat(frames, ignore_index=True)
    df = df.sort_values(_SORT, kind="stable").reset_index(drop=True)
    if out is not None:
        write_parquet_atomic(df, out)
    return df


# --------------------------------------------------------------------------- failure markers
def failed_marker(out) -> Path:
    """The failure marker of aggregate ``out``: ``.<name>.failed`` beside it, present while
    the last aggregation of ``out`` failed (it holds the failure's identifier and message)."""
    out = Path(out)
    return out.with_name(f".{out.name}.failed")


def _resolved_marker(out) -> Path:
    """``.<name>.last_failure`` beside ``out``: the identifier of a failure fixed since."""
    out = Path(out)
    return out.with_name(f".{out.name}.last_failure")


def mark_failed(out, message: str) -> Path:
    """Leave the failure marker of ``out``: a new identifier on its first line, then
    ``message``. Called by the aggregation job when it fails."""
    marker = failed_marker(out)
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(f"{uuid.uuid4().hex}\n{message}\n", encoding="utf-8")
    _resolved_marker(out).unlink(missing_ok=True)
    return marker


def clear_failed(out) -> None:
    """After a successful aggregation of ``out``: the failure marker, if any, becomes
    ``.<name>.last_failure`` (same identifier, so :func:`last_failure` does not change)."""
    marker = failed_marker(out)
    if marker.exists():
        os.replace(marker, _resolved_marker(out))


def last_failure(out) -> str:
    """The identifier of the last failed aggregation of ``out`` ('' if none): the
    ``last_failure`` parameter of the workflow's aggregate rule. Reads, never writes."""
    for marker in (failed_marker(out), _resolved_marker(out)):
        try:
            with open(marker, encoding="utf-8") as fh:
                return fh.readline().strip()
        except FileNotFoundError:
            continue
    return ""
