"""Refresh the computed fields of ``registry.json`` from a data mirror.

Usage::

    python -m pu_lib.datasets.build_registry --mirror /work/shared/datasets [--only NAME ...]

For every mirror dataset whose file is in the mirror (sha256 checked against the
manifest) and for the scikit-learn built-ins, the canonical table is built with
:func:`pu_lib.datasets.canonical.canonicalize` and these fields are (re)written:
``mirror_columns`` and ``mirror_dtypes`` (layout of the mirror table, used to align
raw conversions), ``n_rows``, ``n_features``, ``feature_names_head`` (first 5) and
``fingerprint``. Also ``mirror_sha256`` is taken from the manifest. The file is
written atomically. Hand-written fields (URLs, positive definitions, notes) are
kept as they are. Several entries may share one mirror file (e.g. ``mushroom`` and
``mushrooms_libsvm``, or ``satellite_openml`` and ``satellite_openml_puhdt``, the PU
Hellinger trees authors' preparation); each gets its own canonical table and fingerprint.
An entry's hand-written ``preparation`` (:mod:`pu_lib.datasets.preparation`) is part of
its canonical table, so rerun this after changing one (``--only NAME``).
Download-only entries (``kind == "download"``) are skipped.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from .._io import write_text_atomic
from .canonical import TARGET, canonicalize, dtype_tag, feature_columns, fingerprint
from .download import _sklearn_frame, sha256_file

REGISTRY_PATH = Path(__file__).with_name("registry.json")


def refresh_entry(spec: dict, mirror: Path | None) -> dict:
    """Recompute the computed fields of one registry entry (returns the entry)."""
    if spec["kind"] == "synthetic":
        from .synthetic import make_pulsnar_scar, make_pulsnar_snar

        gen = make_pulsnar_scar if spec["name"] == "pulsnar_scar" else make_pulsnar_snar
        ds = gen(**spec["params"], random_state=0)
        frame = pd.DataFrame(ds.X, columns=ds.feature_names)
        frame["recipe_s"] = ds.meta["recipe_s"].to_numpy()
        frame[TARGET] = ds.target
        spec["n_rows"], spec["n_features"] = int(ds.X.shape[0]), int(ds.X.shape[1])
        spec["fingerprint"] = None
        spec["fingerprint_seed0"] = fingerprint(frame)
        spec["fingerprint_note"] = "synthetic: no canonical file; fingerprint_seed0 = table (features, recipe_s, target) for the default params and random_state=0, on this scikit-learn version"
        return spec
    if spec["kind"] == "sklearn":
        raw = _sklearn_frame(spec)
    else:
        if mirror is None:
            raise ValueError("--mirror is required for mirror datasets")
        path = mirror / spec["mirror_file"]
        man = pd.read_csv(mirror / "manifest.csv", dtype=str)
        row = man[man["file"] == spec["mirror_file"]].iloc[0]
        actual = sha256_file(path)
        if actual != row["sha256"].lower():
            raise ValueError(f"{spec['name']}: mirror file sha256 {actual} != manifest {row['sha256']}")
        spec["mirror_sha256"] = actual
        raw = pq.read_table(path).to_pandas()
        spec["mirror_columns"] = list(raw.columns)
        spec["mirror_dtypes"] = {c: dtype_tag(raw[c].dtype) for c in raw.columns}
    canon = canonicalize(raw, spec)
    feats = feature_columns(canon.columns, spec.get("meta_columns") or [])
    spec["n_rows"] = int(len(canon))
    spec["n_features"] = len(feats)
    spec["feature_names_head"] = feats[:5]
    spec["fingerprint"] = fingerprint(canon)
    return spec


def main(argv=None) -> int:
    """Command-line entry point; see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, default=None, help="mirror directory (manifest.csv + parquet files)")
    ap.add_argument("--registry", type=Path, default=REGISTRY_PATH)
    ap.add_argument("--only", nargs="*", default=None, help="only these dataset names")
    args = ap.parse_args(argv)
    reg = json.loads(args.registry.read_text(encoding="utf-8"))
    for name, spec in reg["datasets"].items():
        if args.only and name not in args.only:
            continue
        if spec["kind"] == "download":
            print(f"skip {name}: download-only (fingerprint recorded in the canonical file on first build)")
            continue
        if spec["kind"] == "mirror" and args.mirror is not None and not (args.mirror / spec["mirror_file"]).is_file():
            print(f"skip {name}: not in mirror")
            continue
        if spec["kind"] == "mirror" and args.mirror is None:
            continue
        refresh_entry(spec, args.mirror)
        print(f"{name}: {spec.get('n_rows')} x {spec.get('n_features')} {spec.get('fingerprint')}")
    write_text_atomic(json.dumps(reg, indent=1, ensure_ascii=False) + "\n", args.registry)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
