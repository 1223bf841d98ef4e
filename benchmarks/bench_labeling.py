"""Benchmark pu_lib.labeling.

1. ``make_label_set`` with the SAR mechanism (thesis section 5.6.2) on a 1e6 x 20 random
   matrix (binary and continuous columns, so the std >= 0.6 filter keeps some).
2. The vectorised SAR propensity formula (:func:`sar_propensity`) against a naive
   per-row Python loop on 1e5 rows; prints the speed-up ratio and checks both agree.

Run: ``python benchmarks/bench_labeling.py [--rows 1000000] [--loop-rows 100000]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pu_lib.labeling import make_label_set, sar_propensity, scale_minus1_1


def naive_sar_propensity(Z, p_minus=0.2, p_plus=0.8):
    """Per-row Python loop of e(x) = prod_i sc(x_i)^(1/k) (reference implementation)."""
    n, k = Z.shape
    mins = [min(Z[i][j] for i in range(n)) for j in range(k)]
    maxs = [max(Z[i][j] for i in range(n)) for j in range(k)]
    out = []
    rows = Z.tolist()
    for row in rows:
        e = 1.0
        for j in range(k):
            width = maxs[j] - mins[j]
            t = (row[j] - mins[j]) / width if width > 0 else 0.5
            e *= (p_minus + t * (p_plus - p_minus)) ** (1.0 / k)
        out.append(e)
    return np.array(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--cols", type=int, default=20)
    ap.add_argument("--loop-rows", type=int, default=100_000)
    ap.add_argument("--k", type=int, default=3)
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.rows, args.cols))
    X[:, : args.cols // 2] = X[:, : args.cols // 2] > 0  # half binary columns (scaled std ~1)
    y = (X[:, 0] + 0.5 * X[:, -1] + rng.normal(size=args.rows) > 0.7).astype(np.int8)

    for selection in ("random", "correlated"):
        t0 = time.perf_counter()
        df = make_label_set(X, y, mechanism="sar", params={"k": args.k, "selection": selection},
                            test_size=0.3, val_size=0.1, random_state=0)
        dt = time.perf_counter() - t0
        lab = df[df["split"] != "test"]
        print(f"make_label_set sar/{selection:<10} {args.rows:>9,d} x {args.cols}: {dt:7.3f} s "
              f"(labeled {int(lab['s'].sum()):,d} of {int(lab['y'].sum()):,d} positives)")

    Z = scale_minus1_1(rng.random((args.loop_rows, args.k)))
    t0 = time.perf_counter()
    e_vec = sar_propensity(Z)
    t_vec = time.perf_counter() - t0
    t0 = time.perf_counter()
    e_loop = naive_sar_propensity(Z)
    t_loop = time.perf_counter() - t0
    np.testing.assert_allclose(e_vec, e_loop, rtol=1e-12, atol=1e-12)
    print(f"sar_propensity {args.loop_rows:,d} rows, k={args.k}: vectorised {t_vec * 1e3:8.2f} ms, "
          f"python loop {t_loop * 1e3:9.2f} ms, ratio {t_loop / t_vec:,.0f}x")


if __name__ == "__main__":
    main()
