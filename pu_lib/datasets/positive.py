"""Machine-readable positive-class definitions (registry ``positive`` entries).

A definition is a mapping with exactly one *positive selector*

* ``{"values": [...]}``      positive iff the class value is in the list;
* ``{"not_values": [...]}``  positive iff the class value is NOT in the list;
* ``{"parity": "even"|"odd"}`` integer class values (MNIST, digits);
* ``{"prefixes": [...]}``    string class values starting with one of the prefixes
  (20 Newsgroups hierarchies, mice ``c-*``);
* ``{"most_frequent": true}`` positive iff the class value is the most frequent one among
  the kept rows (ties: the smallest value); PU Extra Trees, Section 5: "for mushroom and
  covtype, the most prominent class makes up the P class";
* ``{"least_frequent": true}`` positive iff the class value is the least frequent one among
  the kept rows (ties: the smallest value); the minority class of an imbalanced data set
  whose label spelling is not known before the first download (PU Hellinger trees,
  OpenML PizzaCutter1);

and optional *row selectors* for classes a paper drops (PULSNAR paper, Table 1:
anuran Bufonidae dropped, letter recognition A-F only):

* ``"drop_values"``: class values whose rows are dropped;
* ``"keep_values"`` / ``"keep_prefixes"``: only these classes are kept;
* ``"keep_meta"``: ``{column: value or [values]}``, only rows whose meta column (e.g.
  ``split``) has one of the values are kept (Bekker thesis, Table 3.1: the 20 Newsgroups
  pairs use the bydate training documents only, ``{"split": ["train"]}``); needs the
  dataset's meta columns (``load_canonical(..., with_meta=True)``, the default).

:func:`binary_labels` returns ``int8`` labels: 1 positive, 0 negative, -1 dropped.
:func:`row_mask` applies only the row selectors (used e.g. to choose the documents a
text vocabulary is fitted on).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

__all__ = ["binary_labels", "validate_definition", "validate_row_selectors", "row_mask"]

_SELECTORS = ("values", "not_values", "parity", "prefixes", "most_frequent", "least_frequent")
_ROWS = ("drop_values", "keep_values", "keep_prefixes", "keep_meta")


def validate_row_selectors(rows: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` unless ``rows`` holds only valid row selectors (``_ROWS``)."""
    unknown = set(rows) - set(_ROWS)
    if unknown:
        raise ValueError(f"unknown row selectors: {sorted(unknown)}; allowed: {list(_ROWS)}")
    if "keep_meta" in rows:
        km = rows["keep_meta"]
        if not isinstance(km, Mapping) or not km:
            raise ValueError("keep_meta must be a non-empty mapping {meta column: value or list of values}")
        for col, vals in km.items():
            if not isinstance(col, str):
                raise ValueError(f"keep_meta: column names must be strings, got {col!r}")
            if isinstance(vals, (list, tuple)) and not vals:
                raise ValueError(f"keep_meta[{col!r}]: empty list of values")
            if isinstance(vals, Mapping):
                raise ValueError(f"keep_meta[{col!r}]: a value or a list of values, got a mapping")


def validate_definition(definition: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` unless ``definition`` is a valid positive definition."""
    keys = set(definition)
    sel = [k for k in _SELECTORS if k in keys]
    if len(sel) != 1:
        raise ValueError(f"a positive definition needs exactly one of {_SELECTORS}, got {sorted(keys)}")
    unknown = keys - set(_SELECTORS) - set(_ROWS)
    if unknown:
        raise ValueError(f"unknown keys in positive definition: {sorted(unknown)}")
    validate_row_selectors({k: definition[k] for k in keys if k in _ROWS})
    if "parity" in definition and definition["parity"] not in ("even", "odd"):
        raise ValueError("parity must be 'even' or 'odd'")
    for key in ("most_frequent", "least_frequent"):
        if key in definition and definition[key] is not True:
            raise ValueError(f"{key} must be true")


def _isin(target: np.ndarray, values) -> np.ndarray:
    values = list(values)
    if target.dtype.kind in "iuf":
        nums = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
        return np.isin(target, np.array(nums)) if nums else np.zeros(len(target), bool)
    as_str = np.array([str(v) for v in values], dtype=object)
    return np.isin(target.astype(object), as_str)


def _startswith(target: np.ndarray, prefixes) -> np.ndarray:
    pref = tuple(str(p) for p in prefixes)
    return np.fromiter((str(t).startswith(pref) for t in target), dtype=bool, count=len(target))


def _meta_column(meta, col: str, n: int) -> np.ndarray:
    if meta is None:
        raise ValueError(
            f"keep_meta needs the meta column {col!r}, but no meta columns were given "
            "(load the dataset with its meta columns, e.g. load_canonical(..., with_meta=True))"
        )
    try:
        have = list(meta.columns) if hasattr(meta, "columns") else list(meta)
    except TypeError:
        have = []
    if col not in have:
        raise ValueError(f"keep_meta: no meta column {col!r} (meta columns: {have})")
    values = meta[col]
    arr = values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)
    if len(arr) != n:
        raise ValueError(f"keep_meta: meta column {col!r} has {len(arr)} rows, target has {n}")
    return arr


def row_mask(target, rows: Mapping[str, Any], meta=None) -> np.ndarray:
    """Boolean mask of the rows kept by the row selectors in ``rows`` (``drop_values``,
    ``keep_values``, ``keep_prefixes``, ``keep_meta``; other keys are ignored).

    ``meta``: a DataFrame (or mapping of equally long arrays) with the meta columns that
    ``keep_meta`` names; only needed for ``keep_meta``.
    """
    validate_row_selectors({k: v for k, v in rows.items() if k in _ROWS})
    target = np.asarray(target)
    keep = np.ones(len(target), dtype=bool)
    if "drop_values" in rows:
        keep &= ~_isin(target, rows["drop_values"])
    if "keep_values" in rows:
        keep &= _isin(target, rows["keep_values"])
    if "keep_prefixes" in rows:
        keep &= _startswith(target, rows["keep_prefixes"])
    for col, vals in (rows.get("keep_meta") or {}).items():
        vals = list(vals) if isinstance(vals, (list, tuple)) else [vals]
        arr = _meta_column(meta, col, len(target))
        if arr.dtype.kind not in "iufb":
            arr = np.asarray(arr, dtype=object)
        keep &= _isin(arr, vals)
    return keep


def binary_labels(target, definition: Mapping[str, Any], meta=None) -> np.ndarray:
    """Apply a positive ``definition`` to original class values ``target``.

    Returns an ``int8`` array: 1 = positive, 0 = negative, -1 = row dropped by the
    definition (``drop_values`` / ``keep_values`` / ``keep_prefixes`` / ``keep_meta``).
    ``meta`` (DataFrame of the meta columns, same rows as ``target``) is only needed
    for ``keep_meta``.
    """
    validate_definition(definition)
    target = np.asarray(target)
    keep = row_mask(target, definition, meta)
    if "most_frequent" in definition or "least_frequent" in definition:
        key = "most_frequent" if "most_frequent" in definition else "least_frequent"
        kept = target[keep]
        if kept.size == 0:
            raise ValueError(f"{key}: no rows are kept")
        as_key = kept if kept.dtype.kind in "iufb" else kept.astype(str)
        values, counts = np.unique(as_key, return_counts=True)
        # np.unique sorts, argmax / argmin take the first: ties -> smallest value
        top = values[int(np.argmax(counts) if key == "most_frequent" else np.argmin(counts))]
        pos = (target == top) if kept.dtype.kind in "iufb" else (target.astype(str) == top)
    elif "values" in definition:
        pos = _isin(target, definition["values"])
    elif "not_values" in definition:
        pos = ~_isin(target, definition["not_values"])
    elif "prefixes" in definition:
        pos = _startswith(target, definition["prefixes"])
    else:
        if target.dtype.kind not in "iu":
            target_int = target.astype(np.int64)
        else:
            target_int = target
        even = (target_int % 2) == 0
        pos = even if definition["parity"] == "even" else ~even
    y = np.asarray(pos, dtype=bool).astype(np.int8)
    y[~keep] = -1
    return y
