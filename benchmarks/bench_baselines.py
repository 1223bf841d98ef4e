"""Benchmark: overhead of the PU baseline wrappers over a plain scikit-learn fit.

Compares, on one synthetic 200000 x 20 SCAR data set and in a single run,

* ``NaivePUClassifier(LogisticRegression)`` vs ``LogisticRegression`` fitted
  directly on ``(X, s)`` (the natural reference: Naive is exactly that fit), and
* ``ElkanNotoClassifier(LogisticRegression)`` vs the same direct fit (Elkan-Noto
  fits on 90% of the rows and adds the c estimation on the held-out 10%).

Each configuration is timed ``--repeat`` times (fit + predict_proba on the
training data); the best time is reported with the ratio wrapper / reference.

Usage: ``python benchmarks/bench_baselines.py [--n 200000] [--d 20] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.linear_model import LogisticRegression

from pu_lib.baselines import ElkanNotoClassifier, NaivePUClassifier


def make_data(n: int, d: int, seed: int = 0, alpha: float = 0.3, c: float = 0.5):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < alpha).astype(np.int8)
    X = rng.normal(size=(n, d))
    X[:, : d // 4 or 1] += np.where(y == 1, 1.0, -1.0)[:, None]
    pos = np.flatnonzero(y == 1)
    s = np.zeros(n, dtype=np.int8)
    s[rng.choice(pos, int(round(c * pos.size)), replace=False)] = 1
    return X, y, s


def best_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    X, y, s = make_data(args.n, args.d)
    print(f"data: {args.n} x {args.d}, labeled fraction {s.mean():.3f}, class prior {y.mean():.3f}")

    def ref():
        LogisticRegression(max_iter=1000).fit(X, s).predict_proba(X)

    def naive():
        NaivePUClassifier().fit(X, s).predict_proba(X)

    def en():
        ElkanNotoClassifier(random_state=0).fit(X, s).predict_proba(X)

    # warm-up (imports, caches)
    LogisticRegression(max_iter=1000).fit(X[:2000], s[:2000])

    t_ref = best_time(ref, args.repeat)
    t_naive = best_time(naive, args.repeat)
    t_en = best_time(en, args.repeat)

    print(f"{'method':<42}{'seconds':>10}{'ratio':>10}")
    print(f"{'LogisticRegression on (X, s) [reference]':<42}{t_ref:>10.3f}{1.0:>10.2f}")
    print(f"{'NaivePUClassifier(LogisticRegression)':<42}{t_naive:>10.3f}{t_naive / t_ref:>10.2f}")
    print(f"{'ElkanNotoClassifier(LogisticRegression)':<42}{t_en:>10.3f}{t_en / t_ref:>10.2f}")

    est = ElkanNotoClassifier(random_state=0).fit(X, s)
    print(f"Elkan-Noto: c_ = {est.c_:.4f} (true 0.5), prior_ = {est.prior_:.4f} (true {y.mean():.4f})")


if __name__ == "__main__":
    main()
