"""Benchmark pu_lib.workflow.stats against the libraries it replaces.

1. Within-block ranks: ``pu_lib.workflow.stats.rank_matrix`` against ``scipy.stats.rankdata(axis=1)``
   (checks that both agree).
2. The whole Demšar analysis (``pu_lib.workflow.stats.compare``: ranks, Friedman / Iman-Davenport,
   Holm against the best and over all pairs, Nemenyi and Bonferroni-Dunn CDs) against
   scipy's Friedman test plus scikit-posthocs' Nemenyi and Holm-adjusted all-pairs
   tests, when scikit-posthocs is installed (``pip install -e ".[test]"``).

Typical sizes are small (tens of data sets, up to ~20 methods), so the benchmark uses
a large-ish grid to make the timings measurable: 2,000 blocks x 15 methods.

Run: ``python benchmarks/bench_stats.py [--blocks 2000] [--methods 15] [--repeat 5]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=2000)
    ap.add_argument("--methods", type=int, default=15)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    from scipy import stats as ss

    from pu_lib.workflow.stats import compare, rank_matrix

    rng = np.random.default_rng(0)
    scores = np.round(rng.normal(size=(args.blocks, args.methods)) + np.linspace(0, 1, args.methods), 2)
    print(f"scores: {args.blocks} blocks x {args.methods} methods (rounded to 2 decimals, so with ties)")

    t_ours, r_ours = best_of(lambda: rank_matrix(scores, greater_is_better=True), args.repeat)
    t_scipy, r_scipy = best_of(lambda: ss.rankdata(-scores, axis=1), args.repeat)
    assert np.array_equal(r_ours, r_scipy)
    print(f"ranks     pu_lib {t_ours * 1e3:8.2f} ms   scipy.rankdata {t_scipy * 1e3:8.2f} ms   "
          f"ratio pu_lib/scipy = {t_ours / t_scipy:.2f}")

    t_cmp, c = best_of(lambda: compare(scores, greater_is_better=True), args.repeat)
    try:
        import scikit_posthocs as sp
    except ImportError:
        print(f"compare   pu_lib {t_cmp * 1e3:8.2f} ms   (scikit-posthocs not installed: no reference)")
        return

    def reference():
        fr = ss.friedmanchisquare(*scores.T)
        nem = sp.posthoc_nemenyi_friedman(scores)
        holm = sp.posthoc_siegel_friedman(scores, p_adjust="holm")
        return fr, nem, holm

    t_ref, (fr, _, holm) = best_of(reference, args.repeat)
    # Same all-pairs Holm p-values; Friedman differs only by scipy's tie correction.
    m = c.methods
    worst = max(abs(r.p_holm - holm.iloc[m.index(r.method), m.index(r.versus)])
                for r in c.pairs.comparisons.itertuples(index=False))
    print(f"compare   pu_lib {t_cmp * 1e3:8.2f} ms   scipy + scikit-posthocs {t_ref * 1e3:8.2f} ms   "
          f"ratio pu_lib/reference = {t_cmp / t_ref:.2f}")
    print(f"          chi2_F: pu_lib {c.friedman.chi2:.3f} (Demšar, no tie correction) vs scipy {fr.statistic:.3f}; "
          f"max |Holm p difference| = {worst:.1e}")


if __name__ == "__main__":
    main()
