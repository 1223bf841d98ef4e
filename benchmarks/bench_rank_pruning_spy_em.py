"""Benchmark: Rank Pruning and Spy-EM against one fit of their base classifier.

On one synthetic SCAR data set (two Gaussian classes, label frequency c = 0.5) and in a
single run:

* ``RankPruningClassifier`` (default base: ``StandardScaler`` + ``LogisticRegression``,
  3 out-of-fold fits through ``pu_lib.oof`` plus the weighted refit on the kept rows) vs
  one fit of the same base pipeline on ``(X, s)``;
* ``SpyEMClassifier`` (Gaussian naive Bayes: I-EM of step 1 and EM of step 2, at most 8
  iterations each) vs one ``GaussianNB`` fit on ``(X, s)``.

Each is timed ``--repeat`` times (fit + predict_proba on the training rows); the best time
is printed with the ratio method / reference, and the accuracy against the true classes.

Usage: ``python benchmarks/bench_rank_pruning_spy_em.py [--n 100000] [--d 20] [--repeat 3]``
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import timed
from bench_baselines import make_data
from sklearn.naive_bayes import GaussianNB

from pu_lib.base_learners import default_logistic_regression
from pu_lib.baselines import RankPruningClassifier, SpyEMClassifier


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    X, y, s = make_data(args.n, args.d)
    print(f"data: {args.n} x {args.d}, labeled fraction {s.mean():.3f}, class prior {y.mean():.3f}, c = 0.5")
    default_logistic_regression().fit(X[:2000], s[:2000])  # warm-up

    rows = []
    t_lr, p_lr = timed(lambda: default_logistic_regression().fit(X, s).predict_proba(X), args.repeat)
    t_rp, rp = timed(lambda: RankPruningClassifier(random_state=0).fit(X, s), 1)
    t_rp, _ = timed(lambda: RankPruningClassifier(random_state=0).fit(X, s).predict_proba(X), args.repeat)
    rows.append(("StandardScaler+LogisticRegression on (X, s)", t_lr, 1.0, np.mean((p_lr[:, 1] >= 0.5) == y)))
    rows.append(("RankPruningClassifier (3 folds + refit)", t_rp, t_rp / t_lr, np.mean(rp.predict(X) == y)))
    t_nb, p_nb = timed(lambda: GaussianNB().fit(X, s).predict_proba(X), args.repeat)
    t_se, se = timed(lambda: SpyEMClassifier(random_state=0).fit(X, s), 1)
    t_se, _ = timed(lambda: SpyEMClassifier(random_state=0).fit(X, s).predict_proba(X), args.repeat)
    rows.append(("GaussianNB on (X, s)", t_nb, 1.0, np.mean((p_nb[:, 1] >= 0.5) == y)))
    rows.append(("SpyEMClassifier (I-EM + EM, <= 8 iterations)", t_se, t_se / t_nb, np.mean(se.predict(X) == y)))

    print(f"{'method':<46}{'seconds':>10}{'ratio':>8}{'accuracy':>10}")
    for name, t, r, acc in rows:
        print(f"{name:<46}{t:>10.3f}{r:>8.2f}{acc:>10.4f}")
    print(f"Rank Pruning: rho1_ = {rp.rho1_:.4f} (true 1 - c = 0.5), prior_ = {rp.prior_:.4f} "
          f"(true {y.mean():.4f}), pruned {rp.n_pruned_[1]} unlabeled rows")
    print(f"Spy-EM: {se.spy_indices_.size} spies, t = {se.threshold_:.4g}, "
          f"{se.reliable_negative_indices_.size} reliable negatives ({np.mean(y[se.reliable_negative_indices_] == 0):.3f} "
          f"truly negative), step-1 / step-2 EM iterations {se.step1_loglik_.size - 1} / {se.n_iter_}, "
          f"selected iterate {se.selected_iteration_}")


if __name__ == "__main__":
    main()
