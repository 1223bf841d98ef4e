"""Benchmark: pu_lib.datasets.load_canonical vs pandas for MNIST (70000 x 784).

Usage: python benchmarks/bench_datasets.py [--mirror DIR] [--repeat N]
Prepares the canonical MNIST Parquet from the mirror (in a temporary cache), then
times ``load_canonical(path)`` against
``pandas.read_parquet(path).drop(columns=meta+target).to_numpy(np.float32)`` and
prints the best-of-N times and their ratio. With ``--svd300`` it also times building
``newsgroups20_svd300`` from the mirror (TF-IDF + truncated SVD on one BLAS thread, then
the fingerprint check; the build is not cached across runs here).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from pu_lib.datasets import get_spec, load_canonical, prepare_dataset

DEFAULT_MIRROR = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def main() -> None:
    """Run the benchmark and print timings."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--svd300", action="store_true", help="also time building newsgroups20_svd300")
    args = ap.parse_args()
    if args.svd300:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            prepare_dataset("newsgroups20_svd300", Path(tmp) / "ng.parquet", data_mirror=args.mirror,
                            cache_dir=Path(tmp) / "cache", download=False)
            print(f"prepare_dataset newsgroups20_svd300 (TF-IDF + SVD, verified): {time.perf_counter() - t0:.2f} s")
    spec = get_spec("mnist")
    drop = list(spec["meta_columns"]) + ["target"]
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        path = prepare_dataset("mnist", data_mirror=args.mirror, cache_dir=tmp, download=False)
        print(f"prepare_dataset (mirror -> canonical, verified): {time.perf_counter() - t0:.2f} s")
        ours, theirs = [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            ds = load_canonical(path)
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            X = pd.read_parquet(path).drop(columns=drop).to_numpy(np.float32)
            theirs.append(time.perf_counter() - t)
        assert np.array_equal(ds.X, X)
    a, b = min(ours), min(theirs)
    print(f"load_canonical: {a:.3f} s   pandas read_parquet+to_numpy: {b:.3f} s   ratio ours/pandas = {a / b:.2f}")


if __name__ == "__main__":
    main()
