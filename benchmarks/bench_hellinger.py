"""Benchmark: PU-SHRF and PU-HRF (pu_lib.trees.PUHellingerForestClassifier) against
scikit-learn's RandomForestClassifier, side by side in one run.

For each size (``--sizes``, default ``20000x20`` and ``200000x50``): imbalanced data from
``make_classification(n, d, n_informative=d // 2, weights=[0.95])`` (5% positives), half
of the positives labeled (SCAR), split 80 / 20. All three forests get the same training
matrix (float32, C order), ``--n-estimators`` trees (default 100, the paper's), the same
integer ``max_features = floor(sqrt(d))`` (scikit-learn's ``"sqrt"``), the same
``--n-jobs`` and fully grown trees:

* PU-SHRF: ``bootstrap="stratified"`` (all labeled rows + ``K_U = n_U`` unlabeled draws),
  ``prior`` = the true positive fraction of the training rows;
* PU-HRF: ``bootstrap="standard"``;
* scikit-learn: ``RandomForestClassifier(criterion="gini", bootstrap=True)`` fitted on
  ``s`` (the PN forest on the PU labels, which is what the PU-HDT paper's authors' code
  extends).

Reported: fit and predict (``predict_proba`` on the held-out rows) times, best of
``--repeat``; nodes per tree; test AUC-PR against the true labels (a sanity check); and
the ratios ours / scikit-learn's. The numba JIT is warmed up on a tiny forest first (its
time is printed separately: a cache load after the first run).

Run: ``python benchmarks/bench_hellinger.py [--sizes 20000x20 200000x50] [--n-jobs 1]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _timing import timed
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import average_precision_score

from pu_lib.trees import PUHellingerForestClassifier


def make_data(n: int, d: int, seed: int = 0):
    X, y = make_classification(n_samples=n, n_features=d, n_informative=max(2, d // 2), weights=[0.95],
                               flip_y=0.01, random_state=seed)
    X = np.ascontiguousarray(X, dtype=np.float32)
    rng = np.random.default_rng(seed)
    s = ((y == 1) & (rng.random(n) < 0.5)).astype(np.int8)
    n_tr = int(0.8 * n)
    return X[:n_tr], y[:n_tr], s[:n_tr], X[n_tr:], y[n_tr:]



def n_nodes(model) -> float:
    if hasattr(model, "trees_"):
        return float(np.mean([t.node_count for t in model.trees_]))
    return float(np.mean([e.tree_.node_count for e in model.estimators_]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", default=["20000x20", "200000x50"])
    ap.add_argument("--n-estimators", type=int, default=100)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    Xw, yw, sw, _, _ = make_data(500, 5)
    PUHellingerForestClassifier(n_estimators=2, prior=0.05, random_state=0).fit(Xw, sw).predict_proba(Xw)
    print(f"numba warm-up (compile or cache load): {time.perf_counter() - t0:.1f} s")

    for size in args.sizes:
        n, d = (int(v) for v in size.lower().split("x"))
        X, y, s, Xt, yt = make_data(n, d)
        mf = max(1, int(np.floor(np.sqrt(d))))
        prior = float(y.mean())
        models = {
            "PU-SHRF": lambda: PUHellingerForestClassifier(
                n_estimators=args.n_estimators, bootstrap="stratified", prior=prior, max_features=mf,
                n_jobs=args.n_jobs, use_dask=False, random_state=0),
            "PU-HRF": lambda: PUHellingerForestClassifier(
                n_estimators=args.n_estimators, bootstrap="standard", prior=prior, max_features=mf,
                n_jobs=args.n_jobs, use_dask=False, random_state=0),
            "sklearn RF": lambda: RandomForestClassifier(
                n_estimators=args.n_estimators, max_features=mf, n_jobs=args.n_jobs, random_state=0),
        }
        print(f"\n{n} x {d} ({len(y)} train rows, {int(s.sum())} labeled, prior {prior:.3f}), "
              f"{args.n_estimators} trees, max_features {mf}, n_jobs {args.n_jobs}")
        print(f"{'model':<11} {'fit s':>8} {'predict s':>10} {'nodes/tree':>11} {'AUC-PR':>7}")
        res = {}
        for name, make in models.items():
            fit_s, model = timed(lambda: make().fit(X, s), args.repeat)
            pred_s, p = timed(lambda: model.predict_proba(Xt)[:, 1], max(3, args.repeat))
            res[name] = (fit_s, pred_s)
            print(f"{name:<11} {fit_s:8.2f} {pred_s:10.3f} {n_nodes(model):11.0f} "
                  f"{average_precision_score(yt, p):7.3f}")
        ref_fit, ref_pred = res["sklearn RF"]
        for name in ("PU-SHRF", "PU-HRF"):
            print(f"ratio {name} / sklearn RF: fit {res[name][0] / ref_fit:.2f}x, "
                  f"predict {res[name][1] / ref_pred:.2f}x")


if __name__ == "__main__":
    main()
