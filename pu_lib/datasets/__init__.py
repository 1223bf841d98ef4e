"""Benchmark datasets for PU learning: registry, canonical files, loading.

Public API
----------
``list_datasets(kind=None)``, ``get_spec(name)``, ``prepare_dataset(name, ...)``,
``offline_unavailable_reason(name, ...)``,
``load_canonical(path, name=None, ...)``, ``load_dataset(name, ...)``,
``Dataset`` (``X`` float32 C-contiguous, ``target`` original class values,
``binary_target(definition)``, ``select(definition)``), the synthetic PULSNAR
generators ``make_pulsnar_scar`` / ``make_pulsnar_snar``, and the helpers
``canonicalize``, ``fingerprint``, ``fetch_raw``.

Positive definitions come from the registry (``spec["positive"]``); rows of a class
that a definition drops (PULSNAR: anuran Bufonidae, letters other than A-F) get
label ``-1`` from :meth:`Dataset.binary_target` (so do rows outside a definition's
``keep_meta``, e.g. the bydate test documents of the Bekker TIcE 20 Newsgroups pairs);
:meth:`Dataset.select` returns the mask of kept rows and their 0/1 labels.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .canonical import TARGET, canonicalize, feature_columns, fingerprint
from .download import PARQUET_META_KEY, default_cache_dir, fetch_raw, offline_unavailable_reason, prepare_dataset
from .positive import binary_labels
from .registry import get_spec, list_datasets, load_registry, spec_from
from .synthetic import make_imbalanced_moons, make_pulsnar_scar, make_pulsnar_snar

__all__ = [
    "Dataset",
    "list_datasets",
    "get_spec",
    "load_registry",
    "prepare_dataset",
    "offline_unavailable_reason",
    "load_canonical",
    "load_dataset",
    "make_imbalanced_moons",
    "make_pulsnar_scar",
    "make_pulsnar_snar",
    "canonicalize",
    "fingerprint",
    "fetch_raw",
    "default_cache_dir",
]


@dataclass
class Dataset:
    """A loaded dataset.

    Attributes
    ----------
    name : registry name.
    X : ``np.float32`` C-contiguous array, shape ``(n, d)``.
    target : original class values (strings or ints), shape ``(n,)``.
    feature_names : names of the ``d`` columns of ``X``.
    groups : subclass ids (synthetic SNAR) or None.
    meta : non-feature columns (``split``, ids, ``recipe_s``...) or None.
    spec : the registry entry (used for positive definitions), may be None.
    """

    name: str
    X: np.ndarray
    target: np.ndarray
    feature_names: list[str]
    groups: np.ndarray | None = None
    meta: pd.DataFrame | None = None
    spec: dict | None = field(default=None, repr=False)

    def __post_init__(self):
        X = np.asarray(self.X)
        if X.dtype != np.float32 or not X.flags.c_contiguous:
            X = np.ascontiguousarray(X, dtype=np.float32)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
        self.X = X
        self.target = np.asarray(self.target)
        if len(self.target) != X.shape[0]:
            raise ValueError("X and target have different numbers of rows")
        if len(self.feature_names) != X.shape[1]:
            raise ValueError("feature_names does not match X's columns")
        if self.spec is None:
            try:
                self.spec = get_spec(self.name)
            except ValueError:
                self.spec = None

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    def definitions(self) -> list[str]:
        """Names of the positive definitions available for this dataset."""
        return sorted((self.spec or {}).get("positive", {}))

    def _definition(self, definition) -> Mapping[str, Any]:
        if isinstance(definition, Mapping):
            return definition
        defs = (self.spec or {}).get("positive") or {}
        if definition not in defs:
            raise ValueError(f"dataset {self.name!r} has no positive definition {definition!r}; available: {sorted(defs)}")
        return defs[definition]

    def binary_target(self, definition: str | Mapping = "default") -> np.ndarray:
        """``int8`` labels under a registry positive definition (name or mapping):
        1 positive, 0 negative, -1 row dropped by the definition (e.g. PULSNAR
        anuran Bufonidae, or rows outside ``keep_meta``, which reads :attr:`meta`).
        See :mod:`pu_lib.datasets.positive`."""
        return binary_labels(self.target, self._definition(definition), meta=self.meta)

    def select(self, definition: str | Mapping = "default") -> tuple[np.ndarray, np.ndarray]:
        """``(mask, y)``: boolean mask of the rows a definition keeps and their
        ``int8`` 0/1 labels (``y = binary_target(definition)[mask]``)."""
        y = self.binary_target(definition)
        mask = y >= 0
        return mask, y[mask]

    def subset(self, mask) -> "Dataset":
        """A new Dataset with the rows selected by a boolean mask or index array."""
        idx = np.asarray(mask)
        return Dataset(
            name=self.name,
            X=np.ascontiguousarray(self.X[idx]),
            target=self.target[idx],
            feature_names=list(self.feature_names),
            groups=None if self.groups is None else self.groups[idx],
            meta=None if self.meta is None else self.meta.iloc[np.flatnonzero(idx) if idx.dtype == bool else idx].reset_index(drop=True),
            spec=self.spec,
        )


_BLOCK = 32


def _column_to_numpy(col: pa.ChunkedArray) -> np.ndarray:
    if col.null_count:
        col = col.cast(pa.float64()).fill_null(np.nan)
    return col.to_numpy()


def load_canonical(
    path: str | os.PathLike,
    name: str | None = None,
    *,
    dropna: bool = True,
    with_meta: bool = True,
    registry=None,
) -> Dataset:
    """Load a canonical Parquet file (see :func:`prepare_dataset`) as a :class:`Dataset`.

    Meta columns come from the file's ``pu_lib.dataset`` metadata, else from the
    registry entry of ``name``. Only the needed columns are read (meta columns are
    skipped with ``with_meta=False``); ``X`` is preallocated as an ``(n, d)``
    float32 C-contiguous array and filled column by column straight from the Arrow
    buffers (no intermediate DataFrame). With ``dropna`` (default) rows having a
    NaN feature are removed (e.g. breast_cancer_wisconsin_original -> 683 rows);
    use ``dropna=False`` to keep them (PULSNAR's XGBoost handles NaN).
    """
    path = Path(path)
    pfile = pq.ParquetFile(path)
    schema = pfile.schema_arrow
    stored = json.loads((schema.metadata or {}).get(PARQUET_META_KEY, b"{}"))
    name = name or stored.get("name") or path.stem
    spec = None
    try:
        spec = spec_from(name, registry)
    except ValueError:
        spec = None
    if "meta_columns" in stored:
        meta_cols = list(stored["meta_columns"])
    elif spec is not None:
        meta_cols = list(spec.get("meta_columns") or [])
    else:
        meta_cols = []
    feats = feature_columns(schema.names, meta_cols)
    cols = feats + [TARGET] + (meta_cols if with_meta else [])
    table = pfile.read(columns=cols, use_threads=True)
    n, d = table.num_rows, len(feats)
    X = np.empty((n, d), dtype=np.float32, order="C")
    has_nan = False
    # Fill in blocks of columns: stacking a block row-major and assigning it is far
    # faster than d strided single-column writes into a C-ordered array.
    for start in range(0, d, _BLOCK):
        names = feats[start : start + _BLOCK]
        blk = np.stack([_column_to_numpy(table.column(c)) for c in names], axis=1)
        X[:, start : start + len(names)] = blk
        if blk.dtype.kind == "f" and not has_nan:
            has_nan = bool(np.isnan(X[:, start : start + len(names)]).any())
    target = table.column(TARGET).to_numpy(zero_copy_only=False)
    if target.dtype == object:
        target = target.astype(object)
    meta = table.select(meta_cols).to_pandas() if (with_meta and meta_cols) else None
    del table
    ds = Dataset(name=name, X=X, target=target, feature_names=feats, groups=None, meta=meta, spec=spec)
    if dropna and has_nan:
        keep = ~np.isnan(X).any(axis=1)
        ds = ds.subset(keep)
    return ds


def load_dataset(
    name: str,
    *,
    params: Mapping[str, Any] | None = None,
    seed: int | None = None,
    data_mirror: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
    download: bool = True,
    dropna: bool = True,
    registry=None,
) -> Dataset:
    """Load a registered dataset.

    File datasets (``mirror``/``sklearn``): :func:`prepare_dataset` then
    :func:`load_canonical` (``params``/``seed`` ignored). Synthetic datasets: the
    PULSNAR generator with the registry defaults updated by ``params`` and
    ``random_state = seed`` (default 0); ``frac`` must lie in ``[0, 1)``.
    """
    spec = get_spec(name, registry=registry)
    if spec["kind"] == "synthetic":
        kwargs = dict(spec.get("params") or {})
        unknown = set(params or {}) - set(kwargs)
        if unknown:
            raise ValueError(f"unknown params for {name!r}: {sorted(unknown)}; allowed: {sorted(kwargs)}")
        kwargs.update(params or {})
        kwargs["random_state"] = 0 if seed is None else seed
        gen = make_pulsnar_scar if name == "pulsnar_scar" else make_pulsnar_snar
        ds = gen(**kwargs)
        ds.spec = spec
        return ds
    path = prepare_dataset(name, data_mirror=data_mirror, cache_dir=cache_dir, download=download, registry=registry)
    return load_canonical(path, name, dropna=dropna, registry=registry)
