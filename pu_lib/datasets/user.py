"""A user's own table (CSV or Parquet) as a dataset of the workflow (config ``user_datasets``).

An entry names a file and either

* ``class_column`` with its ``positive_value``: fully labeled data; the workflow draws PU
  labels with any mechanism, exactly as for the registered datasets (the positive
  definition is ``{"values": [positive_value]}``), or
* ``s_column``: data that is PU already (1 = labeled positive, 0 = unlabeled); the
  true classes are unknown, so only what needs none is reported (the label setting is
  ``mechanism: given``).

:func:`user_dataset_spec` checks an entry (file, format, columns, values) and returns a
registry-like spec (``kind: "user"``) holding the file's SHA-256; :func:`prepare_user_dataset`
writes its canonical Parquet: the class (or ``s``) column becomes ``target`` and every
other column is a feature, categorical columns encoded by
:func:`pu_lib.datasets.canonical.canonicalize` exactly as the mirror's data.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from .canonical import TARGET, canonicalize, fingerprint
from .download import sha256_file, write_canonical

__all__ = ["USER_FORMATS", "canonical_user_table", "file_columns", "user_dataset_spec", "read_user_table",
           "prepare_user_dataset"]

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


def file_columns(path: Path, fmt: str) -> list[str]:
    """The column names of a user file (its header), without reading the rows."""
    if fmt == "csv":
        return [str(c) for c in pd.read_csv(path, nrows=0).columns]
    import pyarrow.parquet as pq

    return [str(c) for c in pq.read_schema(path).names]


def read_user_table(path: str | os.PathLike, fmt: str, columns=None) -> pd.DataFrame:
    """The table of a user file (``fmt`` ``"csv"`` or ``"parquet"``), only ``columns`` if given."""
    if fmt == "csv":
        return pd.read_csv(path, usecols=columns)
    return pd.read_parquet(path, columns=columns)


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
    format, a missing column, a class column without ``positive_value`` or with a value
    it never holds, both or neither of ``class_column`` and ``s_column``, an ``s_column``
    that is not 0/1 with both values present.

    ``file`` is read relative to ``root`` (default: the working directory). The spec
    holds the path as written, the format, the label column, the positive definition
    (class data) and ``sha256``, the file's content hash (so that a changed file changes
    every job parameter that holds the spec). ``file`` stays as written (relative to the
    working directory, where the workflow's jobs run), so that a copy of a working
    directory with its files sees the same job parameters."""
    kind, column = _label_column(entry)
    raw = Path(str(entry["file"])).expanduser()
    root = Path(root if root is not None else Path.cwd())
    path = raw if raw.is_absolute() else root / raw
    if not path.is_file():
        where = "" if raw.is_absolute() else f" (relative paths are read from the working directory {root})"
        raise ValueError(f"file: no such file {str(entry['file'])!r}{where}")
    fmt = _format(path, entry.get("format"))
    try:
        cols = file_columns(path, fmt)
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets one clear message
        raise ValueError(f"file: cannot read {str(path)!r} as {fmt}: {exc}") from None
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
    spec["sha256"] = sha256_file(path)
    return spec


def canonical_user_table(spec: Mapping[str, Any]) -> pd.DataFrame:
    """The canonical table of a user dataset (:func:`user_dataset_spec`), in memory.

    The file is read again and its SHA-256 compared with ``spec["sha256"]`` (a file
    changed after the spec was made is an error, not a silently mixed run); the label
    column becomes ``target`` (an ``s_column`` as ``int8``), every other column is a
    feature and :func:`~pu_lib.datasets.canonical.canonicalize` encodes the categorical
    ones as for the mirror's data. The workflow writes it with
    :func:`prepare_user_dataset`; the command line (:mod:`pu_lib.cli`) uses it directly."""
    path = Path(spec["file"])  # relative to the working directory
    actual = sha256_file(path)
    if spec.get("sha256") and actual != spec["sha256"]:
        raise ValueError(f"user dataset {spec['name']!r}: {str(path)!r} changed after the config was read "
                         f"(sha256 {actual}, expected {spec['sha256']}); run again")
    df = read_user_table(path, spec["format"])
    column = spec.get("class_column") or spec["s_column"]
    df = df.rename(columns={column: TARGET})
    df = df[[c for c in df.columns if c != TARGET] + [TARGET]]
    if spec.get("s_column"):
        df[TARGET] = df[TARGET].to_numpy().astype(np.int8)
    return canonicalize(df, spec)


def prepare_user_dataset(spec: Mapping[str, Any], out_path: str | os.PathLike) -> Path:
    """Write the canonical Parquet of a user dataset (:func:`user_dataset_spec`) to ``out_path``:
    :func:`canonical_user_table`, its fingerprint recorded in the Parquet metadata and
    checked after the write (:func:`~pu_lib.datasets.download.write_canonical`)."""
    canon = canonical_user_table(spec)
    return write_canonical(canon, out_path, {**spec, "fingerprint": fingerprint(canon)})
