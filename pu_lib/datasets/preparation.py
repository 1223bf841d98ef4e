"""Named data-preparation steps of a registry entry (``spec["preparation"]``).

Some papers prepare their data before the experiment: the PU Hellinger trees authors
standardise every data set, draw a fixed stratified sample of Satellite, drop the
credit-card transactions of amount 0 and log the amount, and replace categorical
attributes by their weight of evidence. A registry entry records such a preparation as
an ordered list of steps; :func:`pu_lib.datasets.canonical.canonicalize` applies them to
the source table (original columns and class values) *before* the categorical encoding,
so the canonical table, its registry ``fingerprint`` and every cached canonical file
depend on them (a changed preparation gives a new fingerprint; the canonical file also
stores :func:`preparation_digest`, which :func:`pu_lib.datasets.download.is_valid_canonical`
compares for download-only entries whose fingerprint is recorded on first use).

Steps (each a mapping with ``"step"`` and its parameters; all deterministic):

``{"step": "drop_columns", "columns": [...]}``
    remove these feature columns.
``{"step": "drop_rows", "column": c, "equals": v or [v, ...]}``
    remove the rows whose value in feature column ``c`` equals ``v`` (one of the values).
``{"step": "log", "columns": [...], "prefix": ""}``
    natural logarithm of each column, in place, renamed ``prefix + name``; every value
    must be positive (``math.log`` per value, float64).
``{"step": "standardize", "columns": [...]}``
    ``(x - mean) / sd`` with the population sd (ddof 0), as scikit-learn's
    ``StandardScaler().fit_transform``, fitted on **all rows of the table** (transductive:
    the test rows of every later split take part in the mean and sd). ``columns`` left
    out: every numeric (non-string) feature column at that point. A constant column
    becomes 0 (scikit-learn: scale 1). Sums are exact (``math.fsum``), so the result does
    not depend on the machine's SIMD summation order; missing values raise.
``{"step": "stratified_sample", "n": 5000, "random_state": 123, "positive": name}``
    when the table has more than ``n`` rows, keep the ``n`` rows of the training part of
    ``StratifiedShuffleSplit(n_splits=1, train_size=n, random_state=random_state)`` split
    on the binary labels of positive definition ``positive``, in the order the splitter
    returns them; a table of at most ``n`` rows is kept as it is.
``{"step": "woe_encode", "columns": [...], "positive": name, "regularization": 1.0, "decimals": 10}``
    replace each category (distinct value; missing = its own group, encoded 0) by its
    weight of evidence under the binary labels of definition ``positive``, the formula of
    ``category_encoders.WOEEncoder`` (2.x): ``log(((n1 + r) / (P + 2 r)) / ((n0 + r) / (N + 2 r)))``
    with ``n1`` / ``n0`` the positives / negatives of the category, ``P`` / ``N`` those of
    the table and ``r`` the regularization; a category seen once gets 0. Values are
    rounded to ``decimals`` decimals (robust to last-bit differences between ``libm``
    builds). The encoding is **supervised and fitted on all rows**: it uses the true class
    of every row, test rows included (label leakage), as the authors' code does.

``positive`` (stratified_sample, woe_encode) names a positive definition of the entry
(``spec["positive"][name]``) or is an inline definition mapping; default ``"default"``.
Every row must be labeled 0 or 1 under it.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["STEPS", "validate_preparation", "preparation_digest", "apply_preparation"]

TARGET = "target"

#: step name -> (required parameters, optional parameters)
STEPS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "drop_columns": (("columns",), ()),
    "drop_rows": (("column", "equals"), ()),
    "log": (("columns",), ("prefix",)),
    "standardize": ((), ("columns",)),
    "stratified_sample": (("n", "random_state"), ("positive",)),
    "woe_encode": (("columns",), ("positive", "regularization", "decimals")),
}


def validate_preparation(steps: Any) -> list[dict]:
    """Check a ``preparation`` list (step names, parameter names and types); return the
    steps as a list of dicts. Raises ``ValueError`` naming the offending step."""
    if steps is None:
        return []
    if not isinstance(steps, (list, tuple)):
        raise ValueError(f"preparation must be a list of steps, got {type(steps).__name__}")
    out = []
    for i, step in enumerate(steps):
        where = f"preparation[{i}]"
        if not isinstance(step, Mapping) or "step" not in step:
            raise ValueError(f"{where}: a step is a mapping with a 'step' name, got {step!r}")
        name = step["step"]
        if name not in STEPS:
            raise ValueError(f"{where}: unknown step {name!r}; known: {', '.join(STEPS)}")
        required, optional = STEPS[name]
        params = {k: v for k, v in step.items() if k != "step"}
        missing = [k for k in required if k not in params]
        unknown = sorted(set(params) - set(required) - set(optional))
        if missing or unknown:
            raise ValueError(f"{where} ({name}): missing {missing}, unknown {unknown}; "
                             f"takes {list(required)} and optionally {list(optional)}")
        if "columns" in params:
            cols = params["columns"]
            if not isinstance(cols, (list, tuple)) or not cols or not all(isinstance(c, str) for c in cols):
                raise ValueError(f"{where} ({name}): columns must be a non-empty list of column names, got {cols!r}")
        if name == "stratified_sample":
            for key in ("n", "random_state"):
                if not isinstance(params[key], int) or isinstance(params[key], bool) or params[key] < (1 if key == "n" else 0):
                    raise ValueError(f"{where} ({name}): {key} must be a {'positive' if key == 'n' else 'non-negative'} "
                                     f"integer, got {params[key]!r}")
        if name == "woe_encode":
            reg = params.get("regularization", 1.0)
            if not isinstance(reg, (int, float)) or isinstance(reg, bool) or reg < 0:
                raise ValueError(f"{where} ({name}): regularization must be a number >= 0, got {reg!r}")
            dec = params.get("decimals", 10)
            if dec is not None and (not isinstance(dec, int) or isinstance(dec, bool) or dec < 0):
                raise ValueError(f"{where} ({name}): decimals must be a non-negative integer or null, got {dec!r}")
        if "prefix" in params and not isinstance(params["prefix"], str):
            raise ValueError(f"{where} ({name}): prefix must be a string, got {params['prefix']!r}")
        if "positive" in params and not isinstance(params["positive"], (str, Mapping)):
            raise ValueError(f"{where} ({name}): positive must be a definition name or mapping, got {params['positive']!r}")
        out.append(dict(step))
    return out


def preparation_digest(steps: Any) -> str | None:
    """``"sha256:<hex>"`` of the canonical JSON of a preparation (None when there is none):
    stored in canonical files so a changed preparation invalidates them."""
    steps = validate_preparation(steps)
    if not steps:
        return None
    text = json.dumps(steps, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


# --------------------------------------------------------------------------- helpers
def _is_string(dtype) -> bool:
    return (isinstance(dtype, pd.CategoricalDtype) or dtype == object
            or pd.api.types.is_string_dtype(dtype))


def _features(df: pd.DataFrame, meta: Sequence[str]) -> list[str]:
    skip = set(meta) | {TARGET}
    return [c for c in df.columns if c not in skip]


def _check_columns(df: pd.DataFrame, cols, meta, where: str) -> list[str]:
    feats = set(_features(df, meta))
    absent = [c for c in cols if c not in feats]
    if absent:
        raise ValueError(f"{where}: no feature column(s) {absent} (feature columns: {list(_features(df, meta))[:12]}...)")
    return list(cols)


def _labels(df: pd.DataFrame, spec: Mapping[str, Any], positive, meta, where: str) -> np.ndarray:
    from .positive import binary_labels

    if isinstance(positive, Mapping):
        definition = positive
    else:
        defs = spec.get("positive") or {}
        if positive not in defs:
            raise ValueError(f"{where}: the entry has no positive definition {positive!r} (has {sorted(defs)})")
        definition = defs[positive]
    target = df[TARGET].to_numpy(dtype=object) if _is_string(df[TARGET].dtype) else df[TARGET].to_numpy()
    y = binary_labels(target, definition, meta=df[list(meta)] if meta else None)
    if (y < 0).any():
        raise ValueError(f"{where}: the positive definition drops {int((y < 0).sum())} rows; "
                         "the step needs a 0/1 label for every row")
    if y.min() == y.max():
        raise ValueError(f"{where}: every row has label {int(y[0])}; the step needs both classes")
    return y


def _float_column(col: pd.Series, where: str) -> np.ndarray:
    if _is_string(col.dtype):
        raise ValueError(f"{where}: column {col.name!r} is not numeric")
    x = col.to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isnan(x).any():
        raise ValueError(f"{where}: column {col.name!r} has {int(np.isnan(x).sum())} missing values")
    return x


def _standardize(x: np.ndarray) -> np.ndarray:
    if x.size == 0 or x.min() == x.max():
        return np.zeros_like(x)
    n = x.size
    mean = math.fsum(x.tolist()) / n
    d = x - mean
    sd = math.sqrt(math.fsum((d * d).tolist()) / n)
    return d / sd


def _woe(col: pd.Series, y: np.ndarray, reg: float, decimals: int | None) -> np.ndarray:
    obj = col.to_numpy(dtype=object, na_value=None)
    missing = pd.isna(obj)
    keys = np.array([None if m else (v if not isinstance(v, np.generic) else v.item()) for v, m in zip(obj, missing)],
                    dtype=object)
    P = int(y.sum())
    N = int(len(y) - P)
    out = np.zeros(len(y), dtype=np.float64)  # missing values: 0 (category_encoders' handle_missing='value')
    present = ~missing
    codes, uniques = pd.factorize(pd.Series(keys[present], dtype=object), sort=False)
    n = np.bincount(codes, minlength=len(uniques))
    n1 = np.bincount(codes, weights=y[present].astype(np.float64), minlength=len(uniques)).astype(np.int64)
    values = np.zeros(len(uniques), dtype=np.float64)
    for k in range(len(uniques)):
        if n[k] == 1:  # category_encoders: a category seen once is encoded 0
            continue
        num = (n1[k] + reg) / (P + 2 * reg)
        den = ((n[k] - n1[k]) + reg) / (N + 2 * reg)
        v = math.log(num / den)
        if decimals is not None:
            v = round(v, int(decimals))
        values[k] = v + 0.0  # no negative zero
    out[present] = values[codes]
    return out


# --------------------------------------------------------------------------- apply
def apply_preparation(df: pd.DataFrame, spec: Mapping[str, Any]) -> pd.DataFrame:
    """Apply ``spec["preparation"]`` to a source table (feature columns, the meta columns
    ``spec["meta_columns"]`` and ``target`` with the original class values) and return
    the prepared table (a new DataFrame with a default index). Without a preparation the
    table is returned unchanged. See the module docstring for the steps."""
    steps = validate_preparation(spec.get("preparation"))
    if not steps:
        return df
    meta = list(spec.get("meta_columns") or [])
    df = df.reset_index(drop=True).copy()
    for i, step in enumerate(steps):
        name = step["step"]
        where = f"dataset {spec.get('name')!r}: preparation[{i}] ({name})"
        if name == "drop_columns":
            df = df.drop(columns=_check_columns(df, step["columns"], meta, where))
        elif name == "drop_rows":
            (col,) = _check_columns(df, [step["column"]], meta, where)
            vals = step["equals"] if isinstance(step["equals"], (list, tuple)) else [step["equals"]]
            df = df.loc[~df[col].isin(vals).to_numpy()].reset_index(drop=True)
        elif name == "log":
            prefix = step.get("prefix", "")
            renames = {}
            for col in _check_columns(df, step["columns"], meta, where):
                x = _float_column(df[col], where)
                bad = ~(x > 0)
                if bad.any():
                    raise ValueError(f"{where}: column {col!r} has {int(bad.sum())} values <= 0; "
                                     "drop them first (drop_rows)")
                df[col] = np.fromiter((math.log(v) for v in x.tolist()), dtype=np.float64, count=len(x))
                if prefix:
                    renames[col] = prefix + col
            clash = [n for n in renames.values() if n in df.columns]
            if clash:
                raise ValueError(f"{where}: renamed column(s) {clash} already exist")
            df = df.rename(columns=renames)
        elif name == "standardize":
            if "columns" in step:
                cols = _check_columns(df, step["columns"], meta, where)
            else:
                cols = [c for c in _features(df, meta) if not _is_string(df[c].dtype)]
            for col in cols:
                df[col] = _standardize(_float_column(df[col], where))
        elif name == "stratified_sample":
            n = int(step["n"])
            if len(df) > n:
                from sklearn.model_selection import StratifiedShuffleSplit

                y = _labels(df, spec, step.get("positive", "default"), meta, where)
                rs = StratifiedShuffleSplit(n_splits=1, train_size=n, random_state=int(step["random_state"]))
                idx, _ = next(rs.split(np.zeros((len(y), 1)), y))
                df = df.iloc[idx].reset_index(drop=True)
        elif name == "woe_encode":
            cols = _check_columns(df, step["columns"], meta, where)
            y = _labels(df, spec, step.get("positive", "default"), meta, where)
            reg = float(step.get("regularization", 1.0))
            dec = step.get("decimals", 10)
            for col in cols:
                df[col] = _woe(df[col], y, reg, dec)
        else:  # pragma: no cover - validate_preparation rejects unknown steps
            raise AssertionError(name)
    return df
