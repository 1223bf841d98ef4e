"""A user's own table (CSV or Parquet) as a dataset of the workflow (config ``user_datasets``).

An entry names a file and either

* ``class_column`` with its ``positive_value``: fully labeled data; the workflow draws PU
  labels with any mechanism, exactly as for the registered datasets (the positive
  definition is ``{"values": [positive_value]}``), or
* ``s_column``: data that is PU already (1 = labeled positive, 0 = unlabeled); the
  true classes are unknown, so only what needs none is reported (the label setting is
  ``mechanism: given``).

:func:`user_dataset_spec` checks an entry (file, format, columns, values, reading options)
and returns a registry-like spec (``kind: "user"``) holding the file's SHA-256;
:func:`prepare_user_dataset` writes its canonical Parquet: the class (or ``s``) column
becomes ``target`` and every other column is a feature, categorical columns encoded by
:func:`pu_lib.datasets.canonical.canonicalize` exactly as the mirror's data.

How a file is read is :func:`read_user_file`, the one reader of the workflow, the command
line (``pu-lib``) and the API: unique column names; row indices, identifiers, empty
columns and text columns of too many distinct values left out with a warning
(``keep_columns`` keeps them); a numeric column with a few text cells an error
(``coerce_numeric`` reads them as missing); numbers finite and within float32; missing
values by one policy, ``missing``: ``refuse`` (the default), ``drop`` or ``impute``
(:class:`ReadPolicy`; docs/own_data.md, "How a file is read").
"""

from __future__ import annotations

import csv
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from .canonical import TARGET, _is_string_dtype, canonicalize, fingerprint
from .download import sha256_file, write_canonical

__all__ = ["USER_FORMATS", "MISSING_POLICIES", "DEFAULT_MISSING", "NUMERIC_SHARE", "MAX_CATEGORIES",
           "ReadPolicy", "UserFile", "canonical_key", "canonical_user_table", "file_columns", "read_user_file",
           "user_dataset_spec", "read_user_table", "prepare_user_dataset"]

log = logging.getLogger(__name__)

#: file formats of a user dataset, by file name suffix when ``format`` is not given
USER_FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


def _format(path: Path, fmt: str | None) -> str:
    if fmt:
        if fmt not in set(USER_FORMATS.values()):
            raise ValueError(f"format: must be 'csv' or 'parquet', got {fmt!r}")
        return fmt
    suffix = path.suffix.lower()
    if suffix not in USER_FORMATS:
        raise ValueError(f"file: cannot tell the format of {str(path)!r} from its suffix "
                         f"(known: {', '.join(USER_FORMATS)}); set format: csv or format: parquet")
    return USER_FORMATS[suffix]


def _csv_header(path: Path) -> list[str]:
    """A CSV file's header as written (the first non-blank record): pandas renames a
    repeated name (``s``, ``s`` -> ``s``, ``s.1``), so duplicates are found here; an
    empty name becomes pandas' ``Unnamed: <position>``."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        for record in csv.reader(f):
            if any(cell.strip() for cell in record):
                return [c if c != "" else f"Unnamed: {i}" for i, c in enumerate(record)]
    return []


def file_columns(path: Path, fmt: str) -> list[str]:
    """The column names of a user file (its header), without reading the rows;
    ``ValueError`` naming a name that occurs more than once (a second label column would
    otherwise become a feature)."""
    if fmt == "csv":
        names = _csv_header(Path(path))
        if not names:  # let pandas say what is wrong with the file
            names = [str(c) for c in pd.read_csv(path, nrows=0).columns]
    else:
        import pyarrow.parquet as pq

        names = [str(c) for c in pq.read_schema(path).names]
    _check_unique(path, names)
    return names


class DuplicateColumns(ValueError):
    """A column name occurs more than once in a user's file."""


def _check_unique(path, names: list[str]) -> None:
    seen: dict[str, list[int]] = {}
    for i, c in enumerate(names):
        seen.setdefault(c, []).append(i + 1)
    dup = {c: where for c, where in seen.items() if len(where) > 1}
    if dup:
        text = "; ".join(f"{c!r} at positions {', '.join(map(str, where))}" for c, where in dup.items())
        raise DuplicateColumns(f"column names must be unique in {str(path)!r}: {text}; rename or remove the "
                               "repeated column (a second copy of the label column would become a feature)")


def read_user_table(path: str | os.PathLike, fmt: str, columns=None) -> pd.DataFrame:
    """The table of a user file (``fmt`` ``"csv"`` or ``"parquet"``), only ``columns`` if given."""
    if fmt == "csv":
        return pd.read_csv(path, usecols=columns)
    return pd.read_parquet(path, columns=columns)


# --------------------------------------------------------------------------- how a file is read
#: missing-value policies: ``refuse`` (an error naming the columns and first rows), ``drop``
#: (rows with a missing feature value are left out) or ``impute`` (a number's column
#: median, a text value's all-zero one-hot pattern)
MISSING_POLICIES = ("refuse", "drop", "impute")
#: the default missing-value policy: nothing is dropped or invented without being asked for
DEFAULT_MISSING = "refuse"
#: a text column with at least this share of its non-missing cells numbers is a numeric
#: column with a few bad cells (a typo, a marker such as ``?``), not a text column: one
#: text cell in ten or fewer. Its text cells are an error (or missing values with
#: ``coerce_numeric``), never 80 one-hot columns of its numbers.
NUMERIC_SHARE = 0.9
#: a text column with more distinct values than this is left out (a warning names it):
#: a one-hot block of more than 100 columns is a date, a name, free text or an
#: identifier far more often than a category, adds more features than most tables have
#: and gives each rare value a column of nearly all zeros. Common categories (a weekday,
#: a state, a product type) stay well below it; ``keep_columns`` keeps a column anyway.
MAX_CATEGORIES = 100
#: a text column is also left out when more than half its non-missing cells hold
#: distinct values (names, codes, free text: nothing repeats, so nothing generalises),
#: once it has more than this many distinct values (a small file's few categories stay)
MIN_ID_CATEGORIES = 10
#: the largest float32: a number beyond it would become infinite as a feature
FLOAT32_MAX = float(np.finfo(np.float32).max)
#: offending cells named in an error
_SHOW = 5
_UNNAMED = re.compile(r"^Unnamed: \d+$")


@dataclass(frozen=True)
class ReadPolicy:
    """How a user's file is read (``user_datasets`` keys ``missing``, ``coerce_numeric``,
    ``keep_columns``; ``pu-lib`` options ``--missing``, ``--coerce-numeric``,
    ``--keep-column``); see :func:`read_user_file`."""

    missing: str = DEFAULT_MISSING
    coerce_numeric: bool = False
    keep_columns: tuple = ()

    def __post_init__(self):
        if self.missing not in MISSING_POLICIES:
            raise ValueError(f"missing: must be one of {', '.join(MISSING_POLICIES)}, got {self.missing!r}")
        if not isinstance(self.coerce_numeric, bool):
            raise ValueError(f"coerce_numeric: must be true or false, got {self.coerce_numeric!r}")
        keep = self.keep_columns
        if isinstance(keep, str) or not all(isinstance(c, str) for c in keep):
            raise ValueError(f"keep_columns: must be a list of column names, got {keep!r}")
        object.__setattr__(self, "keep_columns", tuple(keep))

    @classmethod
    def from_mapping(cls, entry: Mapping[str, Any] | None) -> "ReadPolicy":
        """The policy of a ``user_datasets`` entry (or of :meth:`as_dict`); absent keys
        take the defaults."""
        entry = entry or {}
        return cls(missing=entry.get("missing", DEFAULT_MISSING),
                   coerce_numeric=entry.get("coerce_numeric", False),
                   keep_columns=tuple(entry.get("keep_columns") or ()))

    def as_dict(self) -> dict:
        """The keys that differ from the defaults (empty for the default policy)."""
        out: dict[str, Any] = {}
        if self.missing != DEFAULT_MISSING:
            out["missing"] = self.missing
        if self.coerce_numeric:
            out["coerce_numeric"] = True
        if self.keep_columns:
            out["keep_columns"] = list(self.keep_columns)
        return out


@dataclass
class UserFile:
    """A user's file as :func:`read_user_file` read it.

    ``table``: the canonical feature columns (text one-hot encoded by
    :func:`~pu_lib.datasets.canonical.canonicalize`) of the kept rows, then ``target``
    (the label column's values) when a label column was given; ``rows``: the boolean
    mask of the file's rows that were kept; ``info``: what a model keeps to read a new
    file alike (``input_columns``, ``feature_names``, ``numeric``, ``categories``,
    ``medians`` of imputed numeric columns, ``read_policy``); ``left_out``: column ->
    why it is not a feature; ``messages``: what was done to the values (coerced cells,
    rows dropped, cells imputed), one line each, as logged."""

    table: pd.DataFrame
    rows: np.ndarray
    info: dict
    left_out: dict = field(default_factory=dict)
    messages: list = field(default_factory=list)


def _place(fmt: str):
    """Where row ``i`` (0-based, of the data) is in the file: a CSV's line (the header is
    line 1) or a Parquet file's row (the first is row 1)."""
    return (lambda i: f"line {i + 2}") if fmt == "csv" else (lambda i: f"row {i + 1}")


def _cells(values: pd.Series, mask: np.ndarray, place, show_values: bool = True) -> str:
    idx = np.flatnonzero(mask)
    parts = [place(i) + (f" ({_shown(values.iloc[i])})" if show_values else "") for i in idx[:_SHOW]]
    return ", ".join(parts) + (f" and {len(idx) - _SHOW} more" if len(idx) > _SHOW else "")


def _shown(v) -> str:
    return f"{float(v):g}" if isinstance(v, (float, np.floating, int, np.integer)) else repr(str(v))


def _text_cells(col: pd.Series):
    """``(numbers, text_mask)`` of a text column: its cells read as numbers (NaN where
    not a number) and the mask of non-missing cells that are not numbers."""
    num = pd.to_numeric(col.astype(object), errors="coerce")
    return num.astype(np.float64), (col.notna() & num.isna()).to_numpy()


def _is_text(col: pd.Series) -> bool:
    return _is_string_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype)


def _id_like(col: pd.Series) -> bool:
    """Distinct integers, strictly increasing or decreasing, no missing value (a saved
    row index, a running identifier), in a column of at least 3 rows."""
    if len(col) < 3 or pd.api.types.is_bool_dtype(col.dtype) or col.isna().any():
        return False
    kind = np.dtype(getattr(col.dtype, "numpy_dtype", col.dtype)).kind
    if kind == "f":
        v = col.to_numpy(dtype=np.float64)
        if not np.all(np.isfinite(v)) or not np.all(v == np.round(v)):
            return False
    elif kind not in "iu":
        return False
    return bool((col.is_monotonic_increasing or col.is_monotonic_decreasing) and col.is_unique)


def _check_numbers(name: str, values: np.ndarray, place, raw: pd.Series) -> None:
    """Infinite values and numbers float32 cannot hold are errors naming the column."""
    with np.errstate(invalid="ignore"):
        inf = np.isinf(values)
        big = np.abs(values) > FLOAT32_MAX
    if inf.any():
        raise ValueError(f"column {name!r}: infinite value(s) at {_cells(raw, inf, place)}; a feature must be a "
                         "finite number (or missing)")
    if big.any():
        raise ValueError(f"column {name!r}: value(s) beyond float32's range (|x| <= {FLOAT32_MAX:.4g}) at "
                         f"{_cells(raw, big, place)}; features are float32: rescale the column (e.g. its log) "
                         "or leave it out")


def _options_hint(policy_key: str) -> str:
    return {"missing": "choose drop or impute (pu-lib: --missing; workflow: user_datasets.<name>.missing)",
            "coerce": "read them as missing values with coerce_numeric (pu-lib: --coerce-numeric; workflow: "
                      "user_datasets.<name>.coerce_numeric: true), or correct the file",
            "keep": "keep one with keep_columns (pu-lib: --keep-column NAME; workflow: "
                    "user_datasets.<name>.keep_columns)"}[policy_key]


def read_user_file(path: str | os.PathLike, fmt: str | None = None, label_column: str | None = None,
                   policy: ReadPolicy | None = None, fitted: Mapping[str, Any] | None = None) -> UserFile:
    """Read a user's CSV or Parquet file as features (and a label column): the one
    reader of the workflow (:func:`canonical_user_table`), the command line
    (:mod:`pu_lib.workflow.cli`) and the API. ``ValueError`` naming the column (and the first
    rows, by CSV line or Parquet row) for anything it will not guess about.

    The rules, in order:

    1. **Column names** must be unique (:func:`file_columns` reads a CSV's header
       itself: pandas would rename a second ``s`` to ``s.1`` and make a feature of it).
    2. **Columns left out** with a warning naming them (``keep_columns`` keeps them):
       a column without a name in the header (pandas' ``Unnamed: N``, typically a saved
       row index); a numeric column of distinct, strictly increasing or decreasing
       integers (a row index or a running identifier); a column with no value; a text
       column with more than :data:`MAX_CATEGORIES` (100) distinct values, or with more
       than :data:`MIN_ID_CATEGORIES` (10) distinct values that make up more than half
       its cells (dates, names, free text: one-hot columns of values seen once).
    3. **Numbers with a few text cells**: a text column whose non-missing cells are at
       least :data:`NUMERIC_SHARE` (90 %) numbers is a numeric column with bad cells;
       they are an error naming the column, its first such cells and their values
       (``coerce_numeric``: they become missing values). A text column that holds only
       numbers is read as numbers.
    4. **Numbers** must be finite and fit float32 (``|x| <= 3.4e38``): an infinite value
       or a larger one is an error naming the column and the first cells.
    5. **Missing values** (an empty cell, ``NA``, ``NaN``; in numeric and in text
       columns) follow ``policy.missing``: ``refuse`` (the default) is an error naming
       the columns, their counts and first rows; ``drop`` leaves out every row with a
       missing feature value; ``impute`` fills a number with its column's median (of the
       file; of the training file when ``fitted``) and gives a text value the all-zero
       pattern of its one-hot columns. What was done is in ``messages`` (and logged).
    6. Text columns are one-hot encoded by
       :func:`~pu_lib.datasets.canonical.canonicalize`, as the mirror's data.

    ``fitted`` (the ``info`` of an earlier read, e.g. a model's) reads a new file as that
    one was read: its ``input_columns`` (extra columns are ignored, a missing one is an
    error), which of them are numeric, its policy and medians; rule 2 does not apply,
    and the table holds the fitted ``feature_names`` (text values never seen get zeros,
    a warning names them). ``label_column`` is read as it is (no policy: its checks are
    :func:`user_dataset_spec`'s) and becomes ``target``."""
    import warnings

    path = Path(path)
    fmt = _format(path, fmt)
    policy = policy or ReadPolicy()
    if fitted is not None:
        policy = ReadPolicy.from_mapping(fitted.get("read_policy"))
    try:
        names = file_columns(path, fmt)
        df = read_user_table(path, fmt)
    except DuplicateColumns:
        raise
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets one clear message
        raise ValueError(f"cannot read {str(path)!r} as {fmt}: {' '.join(str(exc).split())}") from None
    unknown = [c for c in policy.keep_columns if c not in names]
    if unknown:
        raise ValueError(f"keep_columns: no column {', '.join(map(repr, unknown))} in {str(path)!r} "
                         f"(columns: {', '.join(names)})")
    if label_column is not None and label_column in policy.keep_columns:
        raise ValueError(f"keep_columns: {label_column!r} is the label column, not a feature")
    df.columns = [str(c) for c in df.columns]
    df = df.reset_index(drop=True)
    place = _place(fmt)
    label = df.pop(label_column) if label_column is not None else None
    if fitted is not None:
        wanted = list(fitted["input_columns"])
        absent = [c for c in wanted if c not in df.columns]
        if absent:
            raise ValueError(f"missing column(s) {', '.join(map(repr, absent))} that the model was fitted on "
                             f"(the model's columns: {', '.join(wanted)})")
        df = df[wanted]
    if TARGET in df.columns:
        raise ValueError(f"a feature column may not be called {TARGET!r} (the canonical class column); rename it")
    messages: list[str] = []
    left_out: dict[str, str] = {}
    keep = set(policy.keep_columns)
    numeric_fitted = set(fitted["numeric"]) if fitted is not None else None
    cols: dict[str, pd.Series] = {}
    for name in df.columns:
        col = df[name]
        kept = name in keep
        if col.dtype.kind in "mM":  # dates and times (Parquet): their text, as a CSV gives them
            col = col.astype(object).map(lambda v: str(v) if pd.notna(v) else None).astype(object)
        if numeric_fitted is None and not kept:
            if _UNNAMED.match(name):
                left_out[name] = "no name in the header, a saved row index?"
                continue
            if col.isna().all():
                left_out[name] = "no value in any row"
                continue
        if _is_text(col) and col.notna().any():
            num, text = _text_cells(col)
            n_text, n_values = int(text.sum()), int(col.notna().sum())
            as_numbers = (n_values - n_text >= NUMERIC_SHARE * n_values if numeric_fitted is None
                          else name in numeric_fitted)
            if as_numbers:
                if n_text and not policy.coerce_numeric:
                    if numeric_fitted is not None:
                        raise ValueError(f"column {name!r} holds text ({n_text} cell(s): {_cells(col, text, place)}), "
                                         "but it held numbers when the model was fitted")
                    raise ValueError(f"column {name!r}: {n_text} of its {n_values} values are not numbers, at "
                                     f"{_cells(col, text, place)}; the column is numeric (at least "
                                     f"{NUMERIC_SHARE:.0%} of its values are numbers): "
                                     + _options_hint("coerce"))
                if n_text:
                    messages.append(f"column {name!r}: {n_text} text cell(s) read as missing values "
                                    f"(coerce_numeric), at {_cells(col, text, place)}")
                col = num
            elif numeric_fitted is None and not kept:
                distinct = int(col.dropna().astype(str).nunique())
                if distinct > MAX_CATEGORIES:
                    left_out[name] = f"text with {distinct} distinct values, more than {MAX_CATEGORIES}"
                    continue
                if distinct > MIN_ID_CATEGORIES and distinct > n_values / 2:
                    left_out[name] = f"text with {distinct} distinct values in {n_values} rows, an identifier?"
                    continue
        elif numeric_fitted is None and not kept and _id_like(col):
            left_out[name] = "distinct increasing or decreasing integers, a row index or an identifier?"
            continue
        if not _is_text(col):
            try:
                values = (col.to_numpy(dtype=np.float64, na_value=np.nan)
                          if not pd.api.types.is_bool_dtype(col.dtype) else np.zeros(len(col)))
            except (TypeError, ValueError):
                raise ValueError(f"column {name!r}: its values ({col.dtype}) are neither numbers nor text") from None
            _check_numbers(name, values, place, col)
        cols[name] = col
    if left_out:
        text = "; ".join(f"{c!r} ({why})" for c, why in left_out.items())
        warnings.warn(f"{str(path)}: column(s) left out: {text}; " + _options_hint("keep"), UserWarning, stacklevel=2)
    features = pd.DataFrame(cols, index=df.index)
    if features.shape[1] == 0:
        why = f" (left out: {', '.join(map(repr, left_out))}; {_options_hint('keep')})" if left_out else ""
        raise ValueError(f"{str(path)!r}: no feature column left{why}")
    # ------------------------------------------------------------------ missing values
    def is_text(c: str) -> bool:  # a text column of the fitted file may be all missing here
        return c in fitted["categories"] if fitted is not None else _is_text(features[c])

    na = features.isna()
    counts = {c: int(n) for c, n in na.sum().items() if n}
    rows = np.ones(len(features), dtype=bool)
    if fitted is not None:
        medians = dict(fitted.get("medians") or {})
    elif policy.missing == "impute":  # every numeric column's, so that a new file is imputed alike
        medians = {c: float(np.nanmedian(features[c].to_numpy(dtype=np.float64, na_value=np.nan)))
                   if features[c].notna().any() else 0.0
                   for c in features.columns if not is_text(c)}
    else:
        medians = {}
    if counts:
        if policy.missing == "refuse":
            parts = [f"{c!r} ({n} cell(s), at {_cells(features[c], na[c].to_numpy(), place, False)})"
                     for c, n in counts.items()]
            raise ValueError(f"missing values in column(s) {'; '.join(parts)}; the missing-value policy is "
                             "refuse (the default): " + _options_hint("missing"))
        detail = ", ".join(f"{c}: {n}" for c, n in counts.items())
        if policy.missing == "drop":
            rows = ~na.any(axis=1).to_numpy()
            if not rows.any():
                raise ValueError(f"missing values: every row has one ({detail}); nothing is left with missing: drop")
            features = features[rows]
            messages.append(f"missing values: {int((~rows).sum())} of {len(rows)} rows dropped (missing cells per "
                            f"column: {detail})")
        else:
            done = []
            for c, n in counts.items():
                if is_text(c):
                    done.append(f"{c}: {n} as all zeros in its one-hot columns")
                    continue
                med = medians.get(c, 0.0)
                features[c] = features[c].astype(np.float64).fillna(med)
                done.append(f"{c}: {n} with the median {med:.6g}")
            messages.append(f"missing values: {sum(counts.values())} cell(s) imputed ({'; '.join(done)})")
    # ------------------------------------------------------------------ encoding
    features[TARGET] = label[rows] if label is not None else 0
    canon = canonicalize(features, {"meta_columns": [], "encoding": {}})
    if label is None:
        canon = canon.drop(columns=[TARGET])
    input_columns = list(cols)
    if fitted is None:
        numeric = [c for c in input_columns if not _is_text(features[c])]
        info = {"input_columns": input_columns, "feature_names": [c for c in canon.columns if c != TARGET],
                "numeric": numeric,
                "categories": {c: sorted({str(v) for v in features[c].dropna().unique()})
                               for c in input_columns if c not in numeric},
                "medians": medians, "read_policy": policy.as_dict()}
    else:
        info = dict(fitted)
        for c in fitted["numeric"]:
            if _is_text(features[c]):
                raise ValueError(f"column {c!r} holds text, but it held numbers when the model was fitted")
        for c, seen in fitted["categories"].items():
            if not _is_text(features[c]) and not features[c].isna().all():
                raise ValueError(f"column {c!r} holds numbers, but it held text when the model was fitted")
            unseen = sorted({str(v) for v in features[c].dropna().unique()} - set(seen))
            if unseen:
                warnings.warn(f"column {c!r}: value(s) {', '.join(map(repr, unseen[:10]))} not seen in fitting; "
                              "those rows get zeros in the column's one-hot features", UserWarning, stacklevel=2)
        target = canon[TARGET] if TARGET in canon.columns else None
        canon = canon.reindex(columns=list(fitted["feature_names"]), fill_value=0)
        if target is not None:
            canon[TARGET] = target
    for m in messages:
        log.info("%s: %s", path.name, m)
    return UserFile(table=canon, rows=rows, info=info, left_out=left_out, messages=messages)


def _label_column(entry: Mapping[str, Any]) -> tuple[str, str]:
    has_class, has_s = entry.get("class_column") is not None, entry.get("s_column") is not None
    if has_class == has_s:
        raise ValueError("give either class_column (with positive_value) or s_column (data that is PU "
                         "already), " + ("not both" if has_class else "neither is given"))
    if has_class and "positive_value" not in entry:
        raise ValueError(f"class_column {entry['class_column']!r} needs positive_value (the class value "
                         "of the positive rows)")
    if has_s and "positive_value" in entry:
        raise ValueError("positive_value applies to class_column only; an s_column is 1 for labeled positives")
    return ("class", entry["class_column"]) if has_class else ("s", entry["s_column"])


def user_dataset_spec(name: str, entry: Mapping[str, Any], root: str | os.PathLike | None = None) -> dict:
    """Check a ``user_datasets`` entry and return its spec; ``ValueError`` (without the
    config path, which the caller adds) naming the problem: no such file, an unknown
    format, a column name that occurs twice, a missing column, a class column without
    ``positive_value`` or with a value it never holds, both or neither of
    ``class_column`` and ``s_column``, an ``s_column`` that is not 0/1 with both values
    present, a reading option (``missing``, ``coerce_numeric``, ``keep_columns``:
    :class:`ReadPolicy`) that is not valid or names no column. The values of the
    features are checked when the file is read (:func:`read_user_file`).

    ``file`` is read relative to ``root`` (default: the working directory). The spec
    holds the path as written, the format, the label column, the positive definition
    (class data) and ``sha256``, the file's content hash (so that a changed file changes
    every job parameter that holds the spec). ``file`` stays as written (relative to the
    working directory, where the workflow's jobs run), so that a copy of a working
    directory with its files sees the same job parameters. Reading options other than
    the defaults are kept as ``read`` (absent for the defaults, so that such specs, and
    the job parameters holding them, are as they were before the options existed)."""
    kind, column = _label_column(entry)
    raw = Path(str(entry["file"])).expanduser()
    root = Path(root if root is not None else Path.cwd())
    path = raw if raw.is_absolute() else root / raw
    if not path.is_file():
        where = "" if raw.is_absolute() else f" (relative paths are read from the working directory {root})"
        raise ValueError(f"file: no such file {str(entry['file'])!r}{where}")
    fmt = _format(path, entry.get("format"))
    policy = ReadPolicy.from_mapping(entry)
    try:
        cols = file_columns(path, fmt)
    except DuplicateColumns as exc:
        raise ValueError(f"file: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets one clear message
        raise ValueError(f"file: cannot read {str(path)!r} as {fmt}: {exc}") from None
    unknown = [c for c in policy.keep_columns if c not in cols]
    if unknown:
        raise ValueError(f"keep_columns: no column {', '.join(map(repr, unknown))} in {str(path)!r} "
                         f"(columns: {', '.join(cols)})")
    if column in policy.keep_columns:
        raise ValueError(f"keep_columns: {column!r} is the label column, not a feature")
    if column not in cols:
        key = "class_column" if kind == "class" else "s_column"
        raise ValueError(f"{key}: no column {column!r} in {str(path)!r} (columns: {', '.join(cols)})")
    if TARGET in cols and column != TARGET:
        raise ValueError(f"file: a feature column may not be called {TARGET!r} (the canonical class column); "
                         "rename it")
    if len(cols) < 2:
        raise ValueError(f"file: {str(path)!r} has no feature column besides {column!r}")
    values = read_user_table(path, fmt, [column])[column]
    if values.isna().any():
        raise ValueError(f"{'class_column' if kind == 'class' else 's_column'}: column {column!r} has "
                         f"{int(values.isna().sum())} missing values")
    spec: dict[str, Any] = {"name": name, "kind": "user", "file": str(raw), "format": fmt,
                            "meta_columns": [], "encoding": {}}
    if kind == "class":
        definition = {"values": [entry["positive_value"]]}
        from .positive import binary_labels

        y = binary_labels(values.to_numpy(), definition)
        if not y.any() or y.all():
            seen = sorted(map(str, pd.unique(values)))[:10]
            what = "never holds" if not y.any() else "holds only"
            raise ValueError(f"positive_value: class column {column!r} {what} {entry['positive_value']!r} "
                             f"(values: {', '.join(seen)}); a number must be written as a number, a "
                             "string as a string")
        spec.update(class_column=column, positive={"default": definition})
    else:
        v = values.to_numpy()
        ok = v.dtype.kind in "iub" or (v.dtype.kind == "f" and np.all(v == np.round(v)))
        if not ok or not set(np.unique(v.astype(np.int64)).tolist()) == {0, 1}:
            seen = sorted(map(str, pd.unique(values)))[:10]
            raise ValueError(f"s_column: column {column!r} must hold 0 (unlabeled) and 1 (labeled positive), "
                             f"both present; it holds {', '.join(seen)}")
        spec.update(s_column=column, positive={})
    if policy.as_dict():  # only options that differ from the defaults: other specs hash as before
        spec["read"] = policy.as_dict()
    spec["sha256"] = sha256_file(path)
    return spec


def canonical_key(spec: Mapping[str, Any]) -> str:
    """The 16 hex digits that name a user dataset's canonical Parquet: the first 16 of the
    file's SHA-256, or, when the spec holds reading options (``read``: ``missing``,
    ``coerce_numeric``, ``keep_columns`` other than the defaults), of the SHA-256 of the
    file's hash and those options, so that other options make another file."""
    if not spec.get("read"):
        return spec["sha256"][:16]
    import hashlib
    import json

    text = json.dumps({"sha256": spec["sha256"], "read": spec["read"]}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def canonical_user_table(spec: Mapping[str, Any]) -> pd.DataFrame:
    """The canonical table of a user dataset (:func:`user_dataset_spec`), in memory.

    The file is read again and its SHA-256 compared with ``spec["sha256"]`` (a file
    changed after the spec was made is an error, not a silently mixed run); it is read by
    :func:`read_user_file` with the spec's reading options (``read``): the label column
    becomes ``target`` (an ``s_column`` as ``int8``), the other columns that are kept are
    features, missing values follow the policy (rows dropped or values imputed are
    logged) and :func:`~pu_lib.datasets.canonical.canonicalize` encodes the categorical
    ones as for the mirror's data. The workflow writes it with
    :func:`prepare_user_dataset`; the command line (:mod:`pu_lib.workflow.cli`) uses it directly."""
    path = Path(spec["file"])  # relative to the working directory
    actual = sha256_file(path)
    if spec.get("sha256") and actual != spec["sha256"]:
        raise ValueError(f"user dataset {spec['name']!r}: {str(path)!r} changed after the config was read "
                         f"(sha256 {actual}, expected {spec['sha256']}); run again")
    return read_user_spec(spec).table


def read_user_spec(spec: Mapping[str, Any]) -> UserFile:
    """:func:`read_user_file` of a user dataset's spec (its file, label column and reading
    options ``read``), the ``s`` column as ``int8``; the file's SHA-256 is not checked
    here (:func:`canonical_user_table` does)."""
    column = spec.get("class_column") or spec["s_column"]
    got = read_user_file(spec["file"], spec["format"], column, ReadPolicy.from_mapping(spec.get("read")))
    target = got.table[TARGET].to_numpy()
    if spec.get("s_column"):
        got.table[TARGET] = target.astype(np.int8)
        ok = set(np.unique(target.astype(np.int8)).tolist()) == {0, 1}
    else:
        from .positive import binary_labels

        y = binary_labels(target, spec["positive"]["default"])
        ok = bool(y.any() and not y.all())
    if not ok and not got.rows.all():
        raise ValueError(f"missing: after dropping {int((~got.rows).sum())} rows with missing values, the label "
                         f"column {column!r} no longer holds both classes (labeled and unlabeled, or positive and "
                         "other)")
    return got


def prepare_user_dataset(spec: Mapping[str, Any], out_path: str | os.PathLike) -> Path:
    """Write the canonical Parquet of a user dataset (:func:`user_dataset_spec`) to ``out_path``:
    :func:`canonical_user_table`, its fingerprint recorded in the Parquet metadata and
    checked after the write (:func:`~pu_lib.datasets.download.write_canonical`)."""
    canon = canonical_user_table(spec)
    return write_canonical(canon, out_path, {**spec, "fingerprint": fingerprint(canon)})
