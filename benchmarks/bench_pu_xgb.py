"""Benchmark: uPU / nnPU / imbalanced nnPU by XGBoost (:class:`pu_lib.baselines.PURiskXGBClassifier`)
against a plain ``xgboost.XGBClassifier`` on ``(X, s)``.

The reference is the natural one: the same booster (same number of rounds, depth, learning
rate, ``tree_method``, ``reg_lambda``) with XGBoost's built-in logistic objective on the
labeled indicator ``s``, i.e. what the PU objectives replace. The PU variants add, per
round, a Python-side gradient / hessian (numpy) and the negative-risk term, and the
``lookahead`` correction may fit a second tree in a round. Each configuration is timed
``--repeat`` times (fit + decision on the training rows); the best time and the ratio to
the reference are printed, with the AUC against the true classes for orientation.

Usage: ``python benchmarks/bench_pu_xgb.py [--n 20000] [--d 20] [--rounds 100] [--repeat 2]``
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.metrics import roc_auc_score

from _timing import make_pu, timed
from pu_lib.baselines import PURiskXGBClassifier


def make_data(n: int, d: int, seed: int = 0, prior: float = 0.2):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prior).astype(np.int64)
    X = rng.normal(size=(n, d))
    X[:, : max(1, d // 4)] += np.where(y == 1, 0.8, 0.0)[:, None]
    return X, y, make_pu(y, int(0.5 * y.sum()), seed)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--tree-method", default="exact")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)

    from xgboost import XGBClassifier

    X, y, s = make_data(args.n, args.d)
    prior = float(y.mean())
    print(f"data: {args.n} x {args.d}, prior {prior:.3f}, labeled fraction {s.mean():.3f}; "
          f"{args.rounds} rounds, depth {args.depth}, tree_method {args.tree_method}, 1 thread")
    common = dict(n_estimators=args.rounds, max_depth=args.depth, learning_rate=0.3, tree_method=args.tree_method,
                  reg_lambda=0.0, n_jobs=1)

    def reference():
        m = XGBClassifier(**common, random_state=0).fit(X, s)
        return m.predict(X, output_margin=True)

    runs = [("XGBClassifier on (X, s) [reference]", reference)]
    for risk in ("upu", "nnpu", "imbalanced_nnpu"):
        for loss in ("logistic", "sigmoid"):
            for corr in (("kiryo", "lookahead") if risk != "upu" else ("kiryo",)):
                def fit(risk=risk, loss=loss, corr=corr):
                    m = PURiskXGBClassifier(risk=risk, loss=loss, correction=corr, prior=prior, random_state=0,
                                            **common).fit(X, s)
                    return m.decision_function(X)
                label = f"{risk} {loss}" + (f" {corr}" if risk != "upu" else "")
                runs.append((label, fit))

    reference()  # warm-up (imports)
    print(f"{'method':<40}{'seconds':>10}{'ratio':>8}{'AUC(y)':>8}")
    t_ref = None
    for label, fn in runs:
        t, margin = timed(fn, args.repeat)
        t_ref = t if t_ref is None else t_ref
        print(f"{label:<40}{t:>10.3f}{t / t_ref:>8.2f}{roc_auc_score(y, margin):>8.3f}")


if __name__ == "__main__":
    main()
