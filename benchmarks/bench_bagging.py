"""Benchmark: PU bagging, ADASYN + random forest and Lee & Liu's weighted logistic
regression against their natural scikit-learn references, in one run.

* ``PUBaggingClassifier(SVC(kernel="linear"), n_estimators=T)`` (bags of |P| positives +
  K = |P| drawn unlabeled rows) vs ``sklearn.ensemble.BaggingClassifier`` with the same
  base, T bags of 2|P| rows drawn from a comparable sample (the labeled positives and as
  many unlabeled rows: the same class balance), and vs Algorithm 1 written out by hand on
  the same bags (T SVC fits, out-of-bag decision functions, votes); PU bagging with n_jobs
  1 and 2;
* ``ADASYNRandomForestClassifier`` (ADASYN, then 100 trees) vs a plain
  ``RandomForestClassifier(n_estimators=100)`` on ``(X, s)``;
* ``PUWeightedLogisticRegression`` (selection over 6 values of C on a 30% hold-out, then
  the refit) vs one ``LogisticRegression`` with the same class weights.

Times are the best of ``--repeat`` runs of fit + predict_proba on the training rows.

Usage: ``python benchmarks/bench_bagging.py [--n 10000] [--d 10] [--labeled 300] [--bags 50] [--repeat 1]``
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import make_pu, timed
from sklearn.ensemble import BaggingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from pu_lib.baselines import ADASYNRandomForestClassifier, PUBaggingClassifier, PUWeightedLogisticRegression


def make_data(n: int, d: int, n_labeled: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    X = rng.normal(size=(n, d))
    X[:, : max(1, d // 4)] += np.where(y == 1, 1.0, -1.0)[:, None]
    return X, y, make_pu(y, n_labeled, seed)


def row(name, t, ref_t, ref_name):
    print(f"  {name:<44s} {t:8.3f} s   {ref_name:<34s} {ref_t:8.3f} s   ratio {t / ref_t:6.2f}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--d", type=int, default=10)
    ap.add_argument("--labeled", type=int, default=300)
    ap.add_argument("--bags", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    X, y, s = make_data(args.n, args.d, args.labeled)
    P = int(s.sum())
    T = args.bags
    print(f"data: {args.n} x {args.d}, {P} labeled, class prior {y.mean():.3f}; {T} bags of {2 * P} rows")

    print("PU bagging (linear SVC base)")
    t_pu, pu = timed(lambda: PUBaggingClassifier(SVC(kernel="linear"), n_estimators=T, random_state=0)
                     .fit(X, s).predict_proba(X), args.repeat)
    t_pu2, pu2 = timed(lambda: PUBaggingClassifier(SVC(kernel="linear"), n_estimators=T, random_state=0, n_jobs=2)
                       .fit(X, s).predict_proba(X), args.repeat)
    assert np.array_equal(pu, pu2)
    bags = PUBaggingClassifier(SVC(kernel="linear"), n_estimators=T, random_state=0).fit(X, s).estimators_samples_
    U = np.flatnonzero(s == 0)

    def same_bags_by_hand():  # Algorithm 1 written out on the same bags: fit, out-of-bag scores, votes
        total, count, votes = np.zeros(U.size), np.zeros(U.size), np.zeros(args.n)
        for rows in bags:
            svc = SVC(kernel="linear").fit(X[rows], s[rows])
            out = ~np.isin(U, rows)
            total[out] += svc.decision_function(X[U[out]])
            count[out] += 1
            votes += svc.predict(X)
        return votes / T

    t_hand, _ = timed(same_bags_by_hand, args.repeat)
    # scikit-learn's bagging on a comparable sample: the labeled positives and as many unlabeled
    # rows, bags of 2|P| rows drawn from them (the same class balance as PU bagging's bags)
    sub = np.concatenate([np.flatnonzero(s == 1), np.random.default_rng(1).choice(U, P, replace=False)])
    t_sk, _ = timed(lambda: BaggingClassifier(SVC(kernel="linear"), n_estimators=T, max_samples=2 * P,
                                              random_state=0).fit(X[sub], s[sub]).predict_proba(X), args.repeat)
    row("PUBaggingClassifier n_jobs=1", t_pu, t_hand, "same bags by hand (fit+oob+votes)")
    row("PUBaggingClassifier n_jobs=1", t_pu, t_sk, "sklearn Bagging, P + |P| U rows")
    row("PUBaggingClassifier n_jobs=2 (same result)", t_pu2, t_pu, "PUBaggingClassifier n_jobs=1")

    print("ADASYN + random forest (100 trees)")
    ad = ADASYNRandomForestClassifier(random_state=0).fit(X, s)
    t_rf, _ = timed(lambda: RandomForestClassifier(n_estimators=100, random_state=0).fit(X, s).predict_proba(X),
                    args.repeat)
    t_ad, _ = timed(lambda: ADASYNRandomForestClassifier(random_state=0).fit(X, s).predict_proba(X), args.repeat)
    row(f"ADASYNRandomForest ({ad.n_synthetic_} synthetic rows)", t_ad, t_rf, "RandomForestClassifier on (X, s)")

    print("Lee & Liu weighted logistic regression")
    wlr = PUWeightedLogisticRegression(random_state=0).fit(X, s)
    m = s.mean()
    t_lr, _ = timed(lambda: make_pipeline(StandardScaler(), LogisticRegression(
        max_iter=1000, class_weight={0: m, 1: 1 - m})).fit(X, s).predict_proba(X), args.repeat)
    t_wlr, _ = timed(lambda: PUWeightedLogisticRegression(random_state=0).fit(X, s).predict_proba(X), args.repeat)
    row(f"PUWeightedLR select (C_ = {wlr.C_:g})", t_wlr, t_lr, "one weighted LogisticRegression")
    t_fix, _ = timed(lambda: PUWeightedLogisticRegression(C=float("inf")).fit(X, s).predict_proba(X), args.repeat)
    row("PUWeightedLR C=inf (authors' setting)", t_fix, t_lr, "one weighted LogisticRegression")


if __name__ == "__main__":
    main()
