"""Dataset registry: ``registry.json`` (package data) and look-up helpers."""

from __future__ import annotations

import copy
import difflib
import json
import os
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

__all__ = ["load_registry", "list_datasets", "get_spec", "comparability_note", "KINDS"]

#: mirror: a file in the data mirror (and download URLs); sklearn: bundled with
#: scikit-learn; synthetic: generated; download: no mirror copy, download only.
KINDS = ("mirror", "sklearn", "synthetic", "download")


@lru_cache(maxsize=1)
def _packaged() -> dict:
    text = resources.files("pu_lib.datasets").joinpath("registry.json").read_text(encoding="utf-8")
    return json.loads(text)


def load_registry(registry: str | os.PathLike | Mapping | None = None) -> dict:
    """Return the registry as a dict ``{"datasets": {name: spec}, ...}``.

    ``registry`` may be None (the packaged ``registry.json``), a path to a JSON file
    of the same layout, or an already loaded mapping. A deep copy is returned so
    callers may modify it freely.
    """
    if registry is None:
        return copy.deepcopy(_packaged())
    if isinstance(registry, Mapping):
        return copy.deepcopy(dict(registry))
    return json.loads(Path(registry).read_text(encoding="utf-8"))


def list_datasets(kind: str | None = None, *, registry=None) -> list[str]:
    """Sorted names of the registered datasets, optionally only of one ``kind``
    (``"mirror"``, ``"sklearn"``, ``"synthetic"`` or ``"download"``)."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS} or None, got {kind!r}")
    ds = (_packaged() if registry is None else load_registry(registry))["datasets"]
    return sorted(n for n, s in ds.items() if kind is None or s["kind"] == kind)


def get_spec(name: str, *, registry=None) -> dict:
    """Registry entry of dataset ``name`` (a copy).

    Raises ``ValueError`` for an unknown name, listing close matches.
    """
    ds = (_packaged() if registry is None else load_registry(registry))["datasets"]
    if name not in ds:
        close = difflib.get_close_matches(str(name), list(ds), n=5, cutoff=0.4)
        hint = f" Close matches: {', '.join(close)}." if close else ""
        raise ValueError(f"unknown dataset {name!r}.{hint} Use list_datasets() for all names.")
    return copy.deepcopy(ds[name])


def spec_from(name_or_spec: Any, registry=None) -> dict:
    """A spec from a name (looked up) or a spec mapping (copied)."""
    if isinstance(name_or_spec, Mapping):
        return copy.deepcopy(dict(name_or_spec))
    return get_spec(name_or_spec, registry=registry)


def comparability_note(spec: Mapping[str, Any]) -> str | None:
    """Why results on this dataset are not comparable with the papers' numbers, or None.

    A registry entry with ``paper_comparable: false`` (e.g. a one-partition split where
    the paper used the official partitions, or a substitute representation) must give
    the reason in ``comparability_note``; the reporting layer marks its cells and keeps
    them out of the cross-data-set comparison. Absent or true: comparable. ``ValueError``
    for a non-boolean ``paper_comparable`` or a missing note."""
    flag = spec.get("paper_comparable", True)
    if not isinstance(flag, bool):
        raise ValueError(f"dataset {spec.get('name')!r}: paper_comparable must be true or false, got {flag!r}")
    if flag:
        return None
    note = spec.get("comparability_note")
    if not isinstance(note, str) or not note.strip():
        raise ValueError(f"dataset {spec.get('name')!r}: paper_comparable is false but comparability_note "
                         "(the reason) is missing")
    return note.strip()
