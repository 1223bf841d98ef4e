"""Benchmark: Ada-PU (pu_lib.ensemble.AdaPUClassifier) against scikit-learn's AdaBoost with
decision stumps and, with ``--authors-path``, against the authors' Cython code
(``Yawen-Zhao-820/Ada-PU`` at commit ``c602247b55cd4e2aa61d9f1c37264eaf5259ab49``), side by
side in one run.

**Speed, per size** (``--sizes``, default ``20000x20`` and ``100000x50``): data from
``make_classification(n, d, n_informative=d // 2)`` (about half positives), 1,000
positives labeled (the paper's n_p), split 80 / 20. Every model gets the same training
matrix (float32), ``--n-estimators`` rounds (default 100, the paper's) and runs on
``--n-jobs`` threads where it can (scikit-learn's AdaBoost and the authors' code have no
``n_jobs``; they run on one core):

* Ada-PU with its defaults (one random threshold per feature and round, learning rate
  ``--learning-rate``, default 0.0001 = ``AdaPUClassifier``'s default), the true prior;
  and with ``splitter="best"`` (every midpoint, the paper's brute-force ablation), which is
  the same search as scikit-learn's stumps;
* scikit-learn: ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1))`` fitted on
  ``s`` (PN AdaBoost on the PU labels: the same data, rounds and stump search);
* with ``--authors-path``: the authors' ``AdaBoost_PU(n_estimators, prior, 1, beta)`` (their
  ``train.py`` settings: random thresholds, one per feature and round) with the same prior
  and learning rate, fitted on P = the labeled rows and U = every training row (the
  single-training-set scenario that Ada-PU's default also uses).

Reported: fit and predict (``predict`` on the held-out rows) times, best of ``--repeat``;
test accuracy against the true labels (a sanity check, not the point); the rounds kept; and
the ratios ours / scikit-learn's (below 1.0: faster) and the authors' / ours (above 1.0:
ours faster). The numba JIT is warmed up first (its time is printed separately: a cache
load after the first run).

**Accuracy against the authors' code** (with ``--authors-path``; ``--seeds N``, default 50):
their Breast Cancer protocol (``src/train.py`` defaults and ``src/load_data.py``
``get_breastcancer`` / ``make_dataset``): scikit-learn's WDBC as float32, benign = +1, the
first 455 rows for training and the other 114 for testing, unshuffled; for seed ``k`` in
0..N-1, ``np.random.seed(k)``, 10 labeled positives = the first 10 of a permutation of the
training positives, U = a permutation of all 455 training rows (the labeled ones included),
prior = the positive share of U; 100 rounds (``--n-estimators``), beta 0.0001
(``--bc-learning-rate``; their script's default and README value for Breast Cancer).
Theirs: ``AdaBoost_PU`` on (P, U), accuracy by their ``utils.accuracy``; ours:
``AdaPUClassifier(learning_rate=<the same>, prior=<the same>, random_state=k)`` on U with
``s = 1`` for the 10 labeled rows. Printed per seed: both accuracies, their difference, the
rounds their fit kept (it stops when its weight total reaches zero) and our accuracy after
that many rounds; then mean (sd, ddof 1) of both and of the per-seed differences, and the
mean fit times. Their stump reseeds numpy from the clock
(microseconds) for every threshold, so their accuracies vary from run to run for one seed;
only the data split is seeded.

The authors' code runs in a separate interpreter (``--authors-python``, default this one)
through ``benchmarks/authors_ada_pu.py`` (its docstring: clone, throw-away venv, Cython
build). Without ``--authors-path`` only ours and scikit-learn's run.

Run: ``python benchmarks/bench_ada_pu.py [--sizes 20000x20 100000x50] [--n-jobs 1]
[--authors-path /tmp/Ada-PU --authors-python /tmp/adapu_venv/bin/python [--seeds 50]
[--bc-learning-rate 0.0001]]``
(``--sizes`` with no value: the Breast Cancer comparison only).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _timing import timed
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from pu_lib.ensemble import AdaPUClassifier

HERE = Path(__file__).resolve().parent


def make_data(n: int, d: int, n_labeled: int = 1000, seed: int = 0):
    X, y = make_classification(n_samples=n, n_features=d, n_informative=max(2, d // 2), random_state=seed)
    X = np.ascontiguousarray(X, dtype=np.float32)
    n_tr = int(0.8 * n)
    rng = np.random.default_rng(seed)
    s = np.zeros(n_tr, dtype=np.int8)
    s[rng.choice(np.flatnonzero(y[:n_tr] == 1), n_labeled, replace=False)] = 1
    return X[:n_tr], y[:n_tr], s, X[n_tr:], y[n_tr:]


def authors_breast_cancer_split(seed: int, n_labeled: int = 10, n_train: int = 455):
    """Their ``get_breastcancer`` + ``make_dataset`` for ``seed``: ``(X_u, s, prior, X_test, y_test)``
    with ``X_u`` their U (a permutation of the first 455 rows), ``s = 1`` on their 10 labeled
    positives (``X_u[s == 1]`` are their P rows, in U order) and ``y_test`` in {0, 1}."""
    data = load_breast_cancer()
    x, y = np.asarray(data.data, dtype=np.float32), np.where(data.target == 1, 1, -1)
    x_tr, y_tr, x_te, y_te = x[:n_train], y[:n_train], x[n_train:], y[n_train:]
    rs = np.random.RandomState(seed)  # the stream of np.random.seed(seed) + np.random.permutation
    idx_pos = np.flatnonzero(y_tr == 1)
    selected = idx_pos[rs.permutation(idx_pos.size)][:n_labeled]
    perm = rs.permutation(n_train)
    s = np.isin(perm, selected).astype(np.int8)
    prior = float((y_tr[perm] == 1).sum()) / n_train
    return np.ascontiguousarray(x_tr[perm]), s, prior, x_te, (y_te == 1).astype(np.int64), x_tr[selected]


def run_authors(args, tasks, beta: float, repeat: int = 1) -> list[dict]:
    """Fit the authors' code on ``tasks`` (dicts with Xp, Xu, prior, optional Xtp / Xtn) in their
    interpreter; one result dict per task (``authors_ada_pu.py``)."""
    with tempfile.TemporaryDirectory(prefix="bench_ada_pu_") as tmp:
        inp, out = Path(tmp) / "in.npz", Path(tmp) / "out.jsonl"
        arrays = {"n_tasks": len(tasks), "beta": beta, "n_estimators": args.n_estimators, "repeat": repeat}
        for i, t in enumerate(tasks):
            arrays.update({f"{k}_{i}": v for k, v in t.items()})
        np.savez(inp, **arrays)
        subprocess.run([args.authors_python, str(HERE / "authors_ada_pu.py"), str(inp), str(out),
                        "--src", str(Path(args.authors_path).resolve())], check=True, cwd=tmp,
                       stdout=subprocess.DEVNULL)
        return [json.loads(line) for line in out.read_text().splitlines()]


def breast_cancer(args):
    beta, T = args.bc_learning_rate, args.n_estimators
    print(f"\nBreast Cancer, the authors' protocol: first 455 rows train, 114 test, 10 labeled, {T} rounds, "
          f"beta {beta}, seeds 0..{args.seeds - 1}")
    tasks, ours, ours_s, staged = [], [], [], []
    for seed in range(args.seeds):
        Xu, s, prior, Xt, yt, Xp = authors_breast_cancer_split(seed)
        tasks.append({"Xp": Xp, "Xu": Xu, "prior": prior, "Xtp": Xt[yt == 1], "Xtn": Xt[yt == 0]})
        t0 = time.perf_counter()
        m = AdaPUClassifier(n_estimators=T, learning_rate=beta, prior=prior, n_jobs=1, random_state=seed).fit(Xu, s)
        ours_s.append(time.perf_counter() - t0)
        ours.append((100 * np.mean(m.predict(Xt) == yt), int(np.sum(m.feature_ >= 0))))
        staged.append([100 * np.mean((F > 0) == yt) for F in m.staged_decision_function(Xt)])
    theirs = run_authors(args, tasks, beta)
    print(f"{'seed':>4} {'theirs %':>9} {'ours %':>7} {'ours-theirs':>11} {'their rounds':>12} {'our stumps':>10} "
          f"{'ours % after their rounds':>25}")
    cut = []
    for seed, ((acc, k), r) in enumerate(zip(ours, theirs)):
        cut.append(staged[seed][max(r["rounds"], 1) - 1])
        print(f"{seed:>4} {100 * r['accuracy']:9.2f} {acc:7.2f} {acc - 100 * r['accuracy']:11.2f} "
              f"{r['rounds']:>12} {k:>10} {cut[-1]:25.2f}")
    a_t = 100 * np.array([r["accuracy"] for r in theirs])
    a_o = np.array([a for a, _ in ours])
    diff = a_o - a_t
    print(f"theirs {a_t.mean():.2f} ({a_t.std(ddof=1):.2f}), ours {a_o.mean():.2f} ({a_o.std(ddof=1):.2f}); "
          f"ours - theirs per seed: mean {diff.mean():+.2f} (sd {diff.std(ddof=1):.2f}), "
          f"ours higher / equal / lower in {int((diff > 0).sum())} / {int((diff == 0).sum())} / "
          f"{int((diff < 0).sum())} seeds")
    rounds = np.array([r["rounds"] for r in theirs])
    if (rounds < T).any():
        print(f"their fit stopped early in {int((rounds < T).sum())} seeds (after {rounds.min()}-{rounds.max()} "
              f"rounds); ours after the same number of rounds: {np.mean(cut):.2f} ({np.std(cut, ddof=1):.2f})")
    t_t = np.array([r["seconds"] for r in theirs])
    print(f"fit seconds per seed, mean: theirs {t_t.mean():.4f}, ours {np.mean(ours_s):.4f} "
          f"(ratio theirs / ours {t_t.mean() / np.mean(ours_s):.1f}x)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="*", default=["20000x20", "100000x50"])
    ap.add_argument("--n-estimators", type=int, default=100)
    ap.add_argument("--learning-rate", type=float, default=0.0001,
                    help="Ada-PU's (and the authors') beta in the speed part")
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--authors-path", default=None, help="the authors' Ada-PU checkout (built: src/decisionstump*.so)")
    ap.add_argument("--authors-python", default=sys.executable, help="interpreter for the authors' code")
    ap.add_argument("--seeds", type=int, default=50, help="Breast Cancer seeds 0..N-1 (with --authors-path)")
    ap.add_argument("--bc-learning-rate", type=float, default=0.0001, help="beta in the Breast Cancer comparison")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    Xw, _, sw, _, _ = make_data(3000, 5, n_labeled=100)
    for splitter in ("random", "best"):
        AdaPUClassifier(n_estimators=3, splitter=splitter, prior=0.5, random_state=0).fit(Xw, sw).predict(Xw)
    print(f"numba warm-up (compile or cache load): {time.perf_counter() - t0:.1f} s")

    if args.authors_path and args.seeds > 0:
        breast_cancer(args)

    for size in args.sizes:
        n, d = (int(v) for v in size.lower().split("x"))
        X, y, s, Xt, yt = make_data(n, d)
        prior = float(y.mean())
        T, lr = args.n_estimators, args.learning_rate
        models = {
            "Ada-PU": lambda: AdaPUClassifier(n_estimators=T, learning_rate=lr, prior=prior, n_jobs=args.n_jobs,
                                              random_state=0),
            "Ada-PU best": lambda: AdaPUClassifier(n_estimators=T, learning_rate=lr, splitter="best", prior=prior,
                                                   n_jobs=args.n_jobs, random_state=0),
            "sklearn AdaBoost": lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=T,
                                                           random_state=0),
        }
        print(f"\n{n} x {d} ({len(y)} train rows, {int(s.sum())} labeled, prior {prior:.3f}), {T} rounds, "
              f"learning rate {lr:g}, n_jobs {args.n_jobs}")
        print(f"{'model':<17} {'fit s':>8} {'predict s':>10} {'accuracy':>9} {'rounds':>7}")
        res = {}
        for name, make in models.items():
            fit_s, model = timed(lambda: make().fit(X, s), args.repeat)
            pred_s, p = timed(lambda: model.predict(Xt), max(3, args.repeat))
            res[name] = (fit_s, pred_s)
            rounds = int(np.sum(model.feature_ >= 0)) if hasattr(model, "feature_") else len(model.estimators_)
            print(f"{name:<17} {fit_s:8.3f} {pred_s:10.4f} {np.mean(p == yt):9.3f} {rounds:>7}")
        if args.authors_path:
            r = run_authors(args, [{"Xp": X[s == 1], "Xu": X, "prior": prior, "Xtp": Xt[yt == 1],
                                    "Xtn": Xt[yt == 0]}], lr, args.repeat)[0]
            res["authors"] = (r["seconds"], r["predict_seconds"])
            print(f"{'authors Ada-PU':<17} {r['seconds']:8.3f} {r['predict_seconds']:10.4f} {r['accuracy']:9.3f} "
                  f"{r['rounds']:>7}")
        ref_fit, ref_pred = res["sklearn AdaBoost"]
        for name in ("Ada-PU", "Ada-PU best"):
            print(f"ratio {name} / sklearn AdaBoost: fit {res[name][0] / ref_fit:.3f}x, "
                  f"predict {res[name][1] / ref_pred:.3f}x")
        if args.authors_path:
            a_fit, a_pred = res["authors"]
            print(f"ratio authors / Ada-PU: fit {a_fit / res['Ada-PU'][0]:.1f}x, predict "
                  f"{a_pred / res['Ada-PU'][1]:.1f}x (above 1: ours faster)")


if __name__ == "__main__":
    main()
