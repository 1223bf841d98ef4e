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

and optional *row selectors* for classes a paper drops (PULSNAR paper, Table 1:
anuran Bufonidae dropped, letter recognition A-F only):

* ``"drop_values"``: class values whose rows are dropped;
* ``"keep_values"`` / ``"keep_prefixes"``: only these classes are kept.

:func:`binary_labels` returns ``int8`` labels: 1 positive, 0 negative, -1 dropped.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

__all__ = ["binary_labels", "validate_definition"]

_SELECTORS = ("values", "not_values", "parity", "prefixes", "most_frequent")
_ROWS = ("drop_values", "keep_values", "keep_prefixes")


def validate_definition(definition: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` unless ``definition`` is a valid positive definition."""
    keys = set(definition)
    sel = [k for k in _SELECTORS if k in keys]
    if len(sel) != 1:
        raise ValueError(f"a positive definition needs exactly one of {_SELECTORS}, got {sorted(keys)}")
    unknown = keys - set(_SELECTORS) - set(_ROWS)
    if unknown:
        raise ValueError(f"unknown keys in positive definition: {sorted(unknown)}")
    if "parity" in definition and definition["parity"] not in ("even", "odd"):
        raise ValueError("parity must be 'even' or 'odd'")
    if "most_frequent" in definition and definition["most_frequent"] is not True:
        raise ValueError("most_frequent must be true")


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


def binary_labels(target, definition: Mapping[str, Any]) -> np.ndarray:
    """Apply a positive ``definition`` to original class values ``target``.

    Returns an ``int8`` array: 1 = positive, 0 = negative, -1 = row dropped by the
    definition (``drop_values`` / ``keep_values`` / ``keep_prefixes``).
    """
    validate_definition(definition)
    target = np.asarray(target)
    keep = np.ones(len(target), dtype=bool)
    if "drop_values" in definition:
        keep &= ~_isin(target, definition["drop_values"])
    if "keep_values" in definition:
        keep &= _isin(target, definition["keep_values"])
    if "keep_prefixes" in definition:
        keep &= _startswith(target, definition["keep_prefixes"])
    if "most_frequent" in definition:
        kept = target[keep]
        if kept.size == 0:
            raise ValueError("most_frequent: no rows are kept")
        as_key = kept if kept.dtype.kind in "iufb" else kept.astype(str)
        values, counts = np.unique(as_key, return_counts=True)
        top = values[int(np.argmax(counts))]  # np.unique sorts: ties -> smallest value
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
