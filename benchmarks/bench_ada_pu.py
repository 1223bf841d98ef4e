"""Benchmark: Ada-PU (pu_lib.ensemble.AdaPUClassifier) against scikit-learn's AdaBoost with
decision stumps, side by side in one run.

For each size (``--sizes``, default ``20000x20`` and ``100000x50``): data from
``make_classification(n, d, n_informative=d // 2)`` (about half positives), 1,000
positives labeled (the paper's n_p), split 80 / 20. Both models get the same training
matrix (float32), ``--n-estimators`` rounds (default 100, the paper's) and run on
``--n-jobs`` threads where they can (scikit-learn's AdaBoost has no ``n_jobs``; it runs
on one core):

* Ada-PU with its defaults (one random threshold per feature and round, learning rate
  0.1), the true prior; and with ``splitter="best"`` (every midpoint, the paper's
  brute-force ablation), which is the same search as scikit-learn's stumps;
* scikit-learn: ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1))`` fitted on
  ``s`` (PN AdaBoost on the PU labels: the same data, rounds and stump search).

Reported: fit and predict (``predict`` on the held-out rows) times, best of ``--repeat``;
test accuracy against the true labels (a sanity check, not the point); and the ratios
ours / scikit-learn's (below 1.0: faster). The numba JIT is warmed up first (its time is
printed separately: a cache load after the first run).

Run: ``python benchmarks/bench_ada_pu.py [--sizes 20000x20 100000x50] [--n-jobs 1]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _timing import timed
from sklearn.datasets import make_classification
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from pu_lib.ensemble import AdaPUClassifier


def make_data(n: int, d: int, n_labeled: int = 1000, seed: int = 0):
    X, y = make_classification(n_samples=n, n_features=d, n_informative=max(2, d // 2), random_state=seed)
    X = np.ascontiguousarray(X, dtype=np.float32)
    n_tr = int(0.8 * n)
    rng = np.random.default_rng(seed)
    s = np.zeros(n_tr, dtype=np.int8)
    s[rng.choice(np.flatnonzero(y[:n_tr] == 1), n_labeled, replace=False)] = 1
    return X[:n_tr], y[:n_tr], s, X[n_tr:], y[n_tr:]



def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", default=["20000x20", "100000x50"])
    ap.add_argument("--n-estimators", type=int, default=100)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    Xw, _, sw, _, _ = make_data(3000, 5, n_labeled=100)
    for splitter in ("random", "best"):
        AdaPUClassifier(n_estimators=3, splitter=splitter, prior=0.5, random_state=0).fit(Xw, sw).predict(Xw)
    print(f"numba warm-up (compile or cache load): {time.perf_counter() - t0:.1f} s")

    for size in args.sizes:
        n, d = (int(v) for v in size.lower().split("x"))
        X, y, s, Xt, yt = make_data(n, d)
        prior = float(y.mean())
        T = args.n_estimators
        models = {
            "Ada-PU": lambda: AdaPUClassifier(n_estimators=T, prior=prior, n_jobs=args.n_jobs, random_state=0),
            "Ada-PU best": lambda: AdaPUClassifier(n_estimators=T, splitter="best", prior=prior,
                                                   n_jobs=args.n_jobs, random_state=0),
            "sklearn AdaBoost": lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=T,
                                                           random_state=0),
        }
        print(f"\n{n} x {d} ({len(y)} train rows, {int(s.sum())} labeled, prior {prior:.3f}), {T} rounds, "
              f"n_jobs {args.n_jobs}")
        print(f"{'model':<17} {'fit s':>8} {'predict s':>10} {'accuracy':>9}")
        res = {}
        for name, make in models.items():
            fit_s, model = timed(lambda: make().fit(X, s), args.repeat)
            pred_s, p = timed(lambda: model.predict(Xt), max(3, args.repeat))
            res[name] = (fit_s, pred_s)
            print(f"{name:<17} {fit_s:8.3f} {pred_s:10.4f} {np.mean(p == yt):9.3f}")
        ref_fit, ref_pred = res["sklearn AdaBoost"]
        for name in ("Ada-PU", "Ada-PU best"):
            print(f"ratio {name} / sklearn AdaBoost: fit {res[name][0] / ref_fit:.3f}x, "
                  f"predict {res[name][1] / ref_pred:.3f}x")


if __name__ == "__main__":
    main()
