"""Benchmark: :class:`pu_lib.hist_boost.HistBoostClassifier` beside ``xgboost.XGBClassifier``
(``tree_method="hist"``), the natural reference, with the same parameters and one thread
each, in one run.

Two timings per size:

* **one model**: ``fit`` + ``predict_proba`` on a held-out fifth (both bin the data
  themselves); test AUC of both and the correlation of their probabilities;
* **5-fold CV** as PULSCAR/PULSNAR run it (:func:`pu_lib.oof.cv_probabilities` with
  ``booster="xgboost"`` and ``"hist_boost"``): XGBoost builds its quantile matrix in every
  fold, the numba booster bins all rows once.

Data: two Gaussian classes (10% positives, 10 informative of ``d`` features), the PULSNAR
settings (depth 4, learning rate 0.2, 100 rounds, ``scale_pos_weight = #neg / #pos``).
Prints ratio = XGBoost seconds / ours.

Usage: ``python benchmarks/bench_hist_boost.py [--sizes 8000:50 105000:100] [--repeat 2]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def best_of(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", nargs="*", default=["8000:50", "105000:100"], help="rows:features")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)

    from sklearn.metrics import roc_auc_score
    from xgboost import XGBClassifier

    from pu_lib.hist_boost import HistBoostClassifier
    from pu_lib.oof import cv_probabilities

    params = dict(n_estimators=100, max_depth=4, learning_rate=0.2)
    HistBoostClassifier(n_estimators=2).fit(np.random.default_rng(0).normal(size=(50, 3)), np.arange(50) % 2)
    print(f"{'rows':>7} {'d':>4} {'task':<10} {'xgboost s':>10} {'ours s':>8} {'ratio':>6}  note")
    for size in args.sizes:
        n, d = (int(v) for v in size.split(":"))
        rng = np.random.default_rng(0)
        y = (rng.random(n) < 0.1).astype(int)
        X = rng.normal(size=(n, d))
        X[y == 1, :10] += 0.5
        test = rng.random(n) < 0.2
        spw = float((y[~test] == 0).sum() / (y[~test] == 1).sum())

        def xgb_one():
            m = XGBClassifier(tree_method="hist", n_jobs=1, random_state=0, scale_pos_weight=spw, **params)
            return m.fit(X[~test], y[~test]).predict_proba(X[test])[:, 1]

        def ours_one():
            m = HistBoostClassifier(scale_pos_weight=spw, **params)
            return m.fit(X[~test], y[~test]).predict_proba(X[test])[:, 1]

        tx, px = best_of(xgb_one, args.repeat)
        to, po = best_of(ours_one, args.repeat)
        note = (f"AUC xgboost {roc_auc_score(y[test], px):.4f}, ours {roc_auc_score(y[test], po):.4f}; "
                f"probability correlation {np.corrcoef(px, po)[0, 1]:.3f}")
        print(f"{n:>7} {d:>4} {'one model':<10} {tx:10.2f} {to:8.2f} {tx / to:6.2f}  {note}", flush=True)

        def cv(booster):
            return cv_probabilities(X, y, random_state=0, n_jobs=1, max_depth=4, xgb_params={"learning_rate": 0.2},
                                    booster=booster)

        tx, px = best_of(lambda: cv("xgboost"), args.repeat)
        to, po = best_of(lambda: cv("hist_boost"), args.repeat)
        note = (f"out-of-fold AUC xgboost {roc_auc_score(y, px):.4f}, ours {roc_auc_score(y, po):.4f}")
        print(f"{n:>7} {d:>4} {'5-fold CV':<10} {tx:10.2f} {to:8.2f} {tx / to:6.2f}  {note}", flush=True)


if __name__ == "__main__":
    main()
