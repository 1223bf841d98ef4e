"""Benchmark: do the PU scorers of pu_lib.model_selection rank models like the true-label
metric each one estimates?

For each data set and seed: a stratified 70 / 30 train / test split of the true labels
``y``; SCAR PU labels on the training rows (a random ``--label-frequency`` share of the
training positives labeled, the rest unlabeled; single-training-set scenario); the true
training prior ``pi`` given to the methods and to the scorers. A grid of models
(:func:`models`: PU Extra Trees depths, Ada-PU rounds and seven more registered
methods) is

* scored with every scorer of :data:`pu_lib.model_selection.PU_SCORERS` by
  ``cross_validate`` on the training rows ``(X, s)`` with
  ``PUStratifiedKFold(--folds)`` (no true label is used), and
* refitted on all training rows and scored on the test rows with the true-label metric
  each scorer estimates: F1 for ``lee_liu`` and ``pu_f1``, accuracy for ``pu_accuracy``,
  AUC for ``pu_auc`` and ``pu_auc_corrected``, minus the PN sigmoid risk
  ``mean(l(g(x), y))`` (the response the risk scorers read) for ``upu_risk`` /
  ``nnpu_risk``.

Reported per data set and scorer: the Spearman correlation over the models between the
cross-validated PU score and the test metric, the regret (best test metric of the grid
minus the test metric of the model the scorer picks) and, for the scorers that estimate
a value, the mean absolute error |CV estimate - test metric| over the models. A final
table averages over data sets and seeds.

Data: ``synthetic`` (``make_classification``: 3,000 rows, 10 features, 5 informative,
40 % positives, 5 % flipped labels), and from the datasets mirror (``pu_lib.datasets``,
``PU_LIB_DATA_MIRROR``, default /work/shared/datasets): ``breast_cancer_wdbc`` (569
rows), ``mushroom`` (3,000 of its 8,124 rows drawn per seed) and ``image_segmentation``
(2,308 rows, the Bekker positive class).

Run (one core): ``OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python
benchmarks/bench_model_selection.py [--seeds 0 1] [--folds 5] [--label-frequency 0.5]
[--prior-scales 0.8 1.25] [--csv OUT.csv]``; ``--summarize OUT.csv`` prints the tables
of such a file again without fitting.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn.datasets import make_classification
from sklearn.model_selection import cross_validate, train_test_split

from pu_lib import metrics
from pu_lib.datasets import load_dataset
from pu_lib.model_selection import PRIOR_SCORERS, PU_SCORERS, PUStratifiedKFold, make_pu_scorer
from pu_lib.workflow.registry import make_estimator

MIRROR = os.environ.get("PU_LIB_DATA_MIRROR", "/work/shared/datasets")
DATASETS = ("synthetic", "breast_cancer_wdbc", "mushroom", "image_segmentation")
#: scorer -> true-label metric it is compared with
TRUE_METRIC = {"lee_liu": "f1", "pu_f1": "f1", "pu_accuracy": "accuracy", "pu_auc": "auc",
               "pu_auc_corrected": "auc", "upu_risk": "neg_pn_risk", "nnpu_risk": "neg_pn_risk"}
#: scorers whose value estimates the true metric (lee_liu and pu_auc do not)
ESTIMATES = ("pu_f1", "pu_accuracy", "pu_auc_corrected", "upu_risk", "nnpu_risk")


def load(name: str, seed: int):
    """``(X float32, y 0/1)``."""
    if name == "synthetic":
        X, y = make_classification(3000, 10, n_informative=5, weights=[0.6], flip_y=0.05, random_state=seed)
        return X.astype(np.float32), y.astype(np.int64)
    definition = "bekker" if name == "image_segmentation" else "default"
    ds = load_dataset(name, data_mirror=MIRROR, download=False)
    X, y = np.asarray(ds.X, np.float32), ds.binary_target(definition).astype(np.int64)
    if name == "mushroom":
        keep = np.random.default_rng(seed).choice(X.shape[0], 3000, replace=False)
        X, y = X[keep], y[keep]
    return X, y


def models(prior: float, seed: int) -> dict:
    """The grid: name -> unfitted estimator (small fits: the whole run stays on one core)."""
    grid = {}

    def make(name, **params):
        return make_estimator(name, params, random_state=seed, n_jobs=1)

    for depth in (1, 2, 4, 8, None):
        grid[f"pu_et depth={depth}"] = make("pu_extra_trees", n_estimators=50, max_depth=depth, prior=prior)
    for rounds in (5, 25, 100):
        grid[f"ada_pu T={rounds}"] = make("ada_pu", n_estimators=rounds, learning_rate=0.1, prior=prior)
    grid["naive (LR)"] = make("naive")
    grid["elkan_noto"] = make("elkan_noto")
    grid["pu_weighted_lr"] = make("pu_weighted_lr")
    grid["nnpu_xgb"] = make("nnpu_xgb", n_estimators=50, prior=prior)
    grid["pu_bagging"] = make("pu_bagging", n_estimators=20)
    grid["spy_em"] = make("spy_em")
    grid["rank_pruning"] = make("rank_pruning")
    return grid


def _risk_output(est, X):
    """What the risk scorers read (``PUScorer``): predict_proba, else decision_function."""
    if hasattr(est, "predict_proba"):
        return np.asarray(est.predict_proba(X))[:, 1], "proba"
    return np.asarray(est.decision_function(X)).ravel(), "margin"


def _ranking(est, X):
    if hasattr(est, "decision_function"):
        return np.asarray(est.decision_function(X)).ravel()
    return np.asarray(est.predict_proba(X))[:, 1]


def true_metrics(est, X, y) -> dict:
    pred = np.asarray(est.predict(X)).ravel()
    out, kind = _risk_output(est, X)
    # the PN sigmoid risk: the uPU formula with every positive labeled and prior = mean(y) in the
    # case-control reading (P = positives, U = negatives, pi = share of positives) would differ, so
    # compute it directly: mean over rows of l(g, y)
    if kind == "proba":
        loss = np.where(y == 1, 1.0 - out, out)
    else:
        loss = np.where(y == 1, 1.0 / (1.0 + np.exp(out)), 1.0 / (1.0 + np.exp(-out)))
    return {"f1": metrics.f1(y, pred), "accuracy": metrics.accuracy(y, pred),
            "auc": metrics.auc_roc(y, _ranking(est, X)), "neg_pn_risk": -float(loss.mean())}


def run_one(name: str, seed: int, folds: int, c: float, scales=(1.0,)) -> pd.DataFrame:
    X, y = load(name, seed)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
    rng = np.random.default_rng(seed + 1000)
    pos = np.flatnonzero(ytr == 1)
    s = np.zeros_like(ytr)
    s[rng.choice(pos, int(round(c * pos.size)), replace=False)] = 1
    prior = float(ytr.mean())
    scoring = {}
    for scale in scales:
        for k in PU_SCORERS:
            if scale == 1.0:
                scoring[k] = make_pu_scorer(k, prior=prior)
            elif k in PRIOR_SCORERS:
                scoring[f"{k}@{scale:g}"] = make_pu_scorer(k, prior=min(max(prior * scale, 1e-3), 0.999))
    cv = PUStratifiedKFold(folds, random_state=seed)
    rows = []
    for model, est in models(prior, seed).items():
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = cross_validate(est, Xtr, s, scoring=scoring, cv=cv, error_score="raise")
            est.fit(Xtr, s)
            truth = true_metrics(est, Xte, yte)
        row = {"dataset": name, "seed": seed, "model": model, "seconds": time.perf_counter() - t0, **truth}
        row.update({f"cv_{k}": float(np.mean(res[f"test_{k}"])) for k in scoring})
        rows.append(row)
    return pd.DataFrame(rows)


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """One row per data set, seed and scorer column (``cv_<scorer>`` or
    ``cv_<scorer>@<prior scale>``): Spearman, regret and MAE against the scorer's own true
    metric, and the regret of its pick in each true metric (``regret_<metric>``)."""
    out = []
    keys = [c[3:] for c in df.columns if c.startswith("cv_")]
    for (name, seed), g in df.groupby(["dataset", "seed"], sort=False):
        g = g.dropna(axis=1, how="all")
        for key in keys:
            base, _, scale = key.partition("@")
            truth_col = TRUE_METRIC[base]
            est, truth = g[f"cv_{key}"].to_numpy(), g[truth_col].to_numpy()
            pick = int(np.argmax(est))
            row = {"dataset": name, "seed": seed, "scorer": base, "prior_scale": float(scale or 1.0),
                   "true_metric": truth_col, "spearman": float(spearmanr(est, truth).statistic),
                   "regret": float(truth.max() - truth[pick]), "picked": g["model"].iloc[pick],
                   "mae": float(np.mean(np.abs(est - truth))) if base in ESTIMATES else np.nan}
            for m in ("f1", "accuracy", "auc", "neg_pn_risk"):
                row[f"regret_{m}"] = float(g[m].max() - g[m].iloc[pick])
            out.append(row)
    return pd.DataFrame(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS))
    ap.add_argument("--seeds", nargs="+", type=int, default=[0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--label-frequency", type=float, default=0.5)
    ap.add_argument("--prior-scales", nargs="+", type=float, default=[1.0],
                    help="also score with the prior times each of these (a misspecified prior); 1.0 is always run")
    ap.add_argument("--csv", help="write the per-model rows here")
    ap.add_argument("--summarize", metavar="CSV", help="print the tables of a --csv file of an earlier run (no fits)")
    args = ap.parse_args(argv)
    scales = sorted({1.0, *args.prior_scales})
    t0 = time.perf_counter()
    if args.summarize:
        df = pd.read_csv(args.summarize)
    else:
        frames = []
        for name in args.datasets:
            for seed in args.seeds:
                t1 = time.perf_counter()
                frames.append(run_one(name, seed, args.folds, args.label_frequency, scales))
                print(f"{name} seed {seed}: {len(frames[-1])} models, {time.perf_counter() - t1:.0f} s", flush=True)
        df = pd.concat(frames, ignore_index=True)
        if args.csv:
            df.to_csv(args.csv, index=False)
    summ = summarize(df)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    pd.set_option("display.max_rows", 1000)
    fmt = {"float_format": lambda v: f"{v:.3f}"}
    exact = summ[summ.prior_scale == 1.0]
    print("\nper data set and seed (true prior)")
    print(exact.drop(columns=["prior_scale"]).to_string(index=False, **fmt))
    n_cells = summ[["dataset", "seed"]].drop_duplicates().shape[0]
    print(f"\nmean over {n_cells} data set x seed cells (true prior); max_regret: the worst cell")
    mean = exact.groupby("scorer", sort=False)[["spearman", "regret", "mae"]].mean()
    worst = exact.groupby("scorer", sort=False)["regret"].max().rename("max_regret")
    print(pd.concat([mean, worst], axis=1).to_string(**fmt))
    print("\nper data set (mean over seeds, true prior): Spearman / regret")
    per = exact.groupby(["scorer", "dataset"], sort=False)[["spearman", "regret"]].mean().unstack("dataset")
    print(per.to_string(**fmt))
    print("\nregret of each scorer's pick in every true metric (mean over cells, true prior); last row: the mean "
          "regret of a model drawn at random from the grid")
    cross = exact.groupby("scorer", sort=False)[[c for c in summ.columns if c.startswith("regret_")]].mean()
    metrics_ = [c[len("regret_"):] for c in cross.columns]
    cells = df.groupby(["dataset", "seed"], sort=False)
    cross.loc["(random model)"] = [float(cells[m].apply(lambda v: (v.max() - v).mean()).mean()) for m in metrics_]
    print(cross.to_string(**fmt))
    if (summ.prior_scale != 1.0).any():
        print("\nthe prior given to the scorers scaled (the methods keep the true prior): mean Spearman / regret / MAE")
        print(summ.groupby(["scorer", "prior_scale"], sort=False)[["spearman", "regret", "mae"]].mean()
              .to_string(**fmt))
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
