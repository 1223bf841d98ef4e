"""Benchmark: an untuned ``NNPUClassifier(prior=...)`` on data sets of different sizes -- the
old defaults (the nnPU reference's ``train.py`` defaults, passed explicitly), the new
defaults (``batch_size="auto"``, ``epochs="auto"``, the reference's MNIST network), and
``pu_lib.trees.PUExtraTreesClassifier`` (registry ``pu_extra_trees``, its defaults) with the
same true prior; test accuracy, F1 and fit wall time, a few seeds each.

Protocol, per data set and seed ``k``:

* the data set from the offline mirror (``pu_lib.datasets.load_dataset``, ``download=False``),
  its registry ``"default"`` positive definition (rows it drops are dropped);
* MNIST: the mirror's train / test split (even digits positive), pixels / 255, the training
  rows subsampled to ``--mnist-train`` (10,000; seed ``k``) to fit the time budget, all 10,000
  test rows; every other set: a stratified (on the true class) 75 / 25 train / test split
  (seed ``k``), at most ``--max-rows`` rows drawn first (stratified, seed ``k``; none of the
  default sets is that large), features standardised with the training rows' mean and standard
  deviation (``StandardScaler``; what a user does before a network);
* SCAR labels: ``round(--labeled-fraction * positives)`` (0.3; or ``--n-labeled``) of the training positives drawn
  without replacement (seed ``k``) get ``s = 1``, every other training row ``s = 0``; U = all
  training rows (``scenario="single_training_set"``, the estimators' default), the prior the
  true positive share of the training rows (given to all three methods);
* ``random_state=k``, one thread (``n_jobs=1``); accuracy and F1 (positive class) of
  ``predict`` on the test rows; the fit's wall time.

Methods (``--methods``):

* ``old``: ``NNPUClassifier(prior=pi, hidden_sizes=(100,), batch_norm=False, batch_size=30000,
  epochs=100)`` -- the defaults before ``"auto"``;
* ``new``: ``NNPUClassifier(prior=pi)``;
* ``pu_et``: ``PUExtraTreesClassifier(prior=pi)`` (100 trees, nnPU risk, quadratic loss);
* ``mnist_net``: the new defaults' batches and epochs with the nnPU reference's MNIST network
  (``hidden_sizes=(300, 300, 300, 300), batch_norm=True``) in place of the default ``d-100-1``
  (how the default network was chosen; docs/neural.md).

Results go to ``--out`` (default ``results/bench_neural_defaults/cells.csv``), one row per
(data set, seed, method); a rerun skips the rows already there (resumable), ``--summary``
prints the tables from the file without fitting.

Run: ``OMP_NUM_THREADS=1 python benchmarks/bench_neural_defaults.py [--datasets ...]
[--seeds 0 1 2] [--methods old new pu_et mnist_net] [--labeled-fraction 0.3 | --n-labeled N]
[--mnist-train 10000]
[--out results/bench_neural_defaults/cells.csv] [--summary]``.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import make_pu  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MIRROR = os.environ.get("PU_LIB_DATA_MIRROR", "/work/shared/datasets")
#: the default data sets, smallest first
DATASETS = ("breast_cancer_wdbc", "splice", "satellite_odds", "mushroom", "magic_gamma", "adult", "mnist")
METHODS = ("old", "new", "pu_et", "mnist_net")
OLD = {"hidden_sizes": (100,), "batch_norm": False, "batch_size": 30000, "epochs": 100}
FIELDS = ["dataset", "seed", "method", "n_train", "n_test", "d", "n_labeled", "prior", "batch_size", "epochs",
          "accuracy", "f1", "fit_seconds"]


def load(name: str, seed: int, *, labeled_fraction: float, mnist_train: int, max_rows: int, n_labeled=None):
    """``(X_train, s, y_train, X_test, y_test, prior, note)`` (module docstring)."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from pu_lib.datasets import load_dataset

    ds = load_dataset(name, data_mirror=MIRROR, download=False)
    y = ds.binary_target("default")
    keep = y >= 0
    X, y = np.asarray(ds.X, dtype=np.float32)[keep], y[keep].astype(np.int64)
    rng = np.random.default_rng(seed)
    note = ""
    if name == "mnist":
        train = (ds.meta["split"] == "train").to_numpy()[keep]
        X = X / np.float32(255.0)
        Xtr, ytr, Xte, yte = X[train], y[train], X[~train], y[~train]
        if mnist_train < ytr.shape[0]:
            rows = np.sort(rng.choice(ytr.shape[0], mnist_train, replace=False))
            Xtr, ytr = Xtr[rows], ytr[rows]
            note = f"train subsampled to {mnist_train:,} of 60,000"
    else:
        if max_rows and y.shape[0] > max_rows:
            rows, _ = train_test_split(np.arange(y.shape[0]), train_size=max_rows, stratify=y, random_state=seed)
            X, y = X[rows], y[rows]
            note = f"subsampled to {max_rows:,}"
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)
        scaler = StandardScaler().fit(Xtr)
        Xtr = scaler.transform(Xtr).astype(np.float32)
        Xte = scaler.transform(Xte).astype(np.float32)
    k = int(round(labeled_fraction * int(ytr.sum()))) if n_labeled is None else int(n_labeled)
    s = make_pu(ytr, k, seed)
    return Xtr, s, ytr, Xte, yte, float(ytr.mean()), note


def estimator(method: str, prior: float, seed: int):
    from pu_lib.neural import NNPUClassifier
    from pu_lib.trees import PUExtraTreesClassifier

    common = {"prior": prior, "random_state": seed, "n_jobs": 1}
    if method == "old":
        return NNPUClassifier(**common, **OLD)
    if method == "new":
        return NNPUClassifier(**common)
    if method == "pu_et":
        return PUExtraTreesClassifier(**common)
    if method == "mnist_net":
        return NNPUClassifier(**common, hidden_sizes=(300,) * 4, batch_norm=True)
    raise ValueError(method)


def read_rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def append_row(path: Path, row: dict) -> None:
    new = not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            w.writeheader()
        w.writerow(row)


def run(args) -> None:
    import torch
    from sklearn.metrics import accuracy_score, f1_score

    torch.set_num_threads(1)
    out = Path(args.out)
    done = {(r["dataset"], int(r["seed"]), r["method"]) for r in read_rows(out)}
    t_all = time.perf_counter()
    for name in args.datasets:
        for seed in args.seeds:
            todo = [m for m in args.methods if (name, seed, m) not in done]
            if not todo:
                continue
            Xtr, s, ytr, Xte, yte, prior, note = load(name, seed, labeled_fraction=args.labeled_fraction,
                                                      mnist_train=args.mnist_train, max_rows=args.max_rows,
                                                      n_labeled=args.n_labeled)
            for method in todo:
                est = estimator(method, prior, seed)
                t0 = time.perf_counter()
                est.fit(Xtr, s)
                wall = time.perf_counter() - t0
                pred = est.predict(Xte)
                row = {"dataset": name, "seed": seed, "method": method, "n_train": Xtr.shape[0],
                       "n_test": Xte.shape[0], "d": Xtr.shape[1], "n_labeled": int(s.sum()),
                       "prior": f"{prior:.4f}", "batch_size": getattr(est, "batch_size_", ""),
                       "epochs": getattr(est, "epochs_", ""), "accuracy": f"{accuracy_score(yte, pred):.4f}",
                       "f1": f"{f1_score(yte, pred):.4f}", "fit_seconds": f"{wall:.2f}"}
                append_row(out, row)
                print(f"{name} seed {seed} {method:<20} n={Xtr.shape[0]} b={row['batch_size']} "
                      f"e={row['epochs']} acc {row['accuracy']} f1 {row['f1']} {wall:.1f} s"
                      + (f" ({note})" if note else ""), flush=True)
    print(f"\nthis run: {time.perf_counter() - t_all:.0f} s wall", flush=True)


NAMES = {"old": "old defaults", "new": "new defaults", "pu_et": "PU ET", "mnist_net": "MNIST net, auto"}


def summary(args) -> str:
    """The markdown table of the means over seeds in ``--out`` (and which sets the new
    defaults lose on)."""
    rows = [r for r in read_rows(Path(args.out)) if r["dataset"] in args.datasets]
    methods = [m for m in args.methods if any(r["method"] == m for r in rows)]
    lines = ["| data set | n train / test | d | labeled | prior | new: batch / epochs | "
             + " | ".join(f"{NAMES[m]} acc % / F1" for m in methods)
             + " | fit s: " + " / ".join(NAMES[m] for m in methods) + " | seeds |",
             "|---|---|---|---|---|---|" + "---|" * len(methods) + "---|---|"]
    worse = []
    for name in args.datasets:
        mine = [r for r in rows if r["dataset"] == name]
        if not mine:
            continue
        first, cells, secs, means = mine[0], [], [], {}
        for m in methods:
            rm = [r for r in mine if r["method"] == m]
            if not rm:
                cells.append("-")
                secs.append("-")
                continue
            acc = float(np.mean([float(r["accuracy"]) for r in rm]))
            f1 = float(np.mean([float(r["f1"]) for r in rm]))
            means[m] = (acc, f1)
            cells.append(f"{100 * acc:.2f} / {f1:.3f}")
            secs.append(f"{np.mean([float(r['fit_seconds']) for r in rm]):.1f}")
        new = [r for r in mine if r["method"] == "new"]
        resolved = sorted({(r["batch_size"], r["epochs"]) for r in new})
        bsep = ", ".join(f"{b} / {e}" for b, e in resolved) or "-"
        seeds = sorted({int(r["seed"]) for r in mine})
        lab = sorted({int(r["n_labeled"]) for r in mine})
        lab_s = f"{lab[0]:,}" if len(lab) == 1 else f"{lab[0]:,}-{lab[-1]:,}"
        label = name + (" (train subsample)" if name == "mnist" and int(first["n_train"]) < 60000 else "")
        lines.append(f"| {label} | {int(first['n_train']):,} / {int(first['n_test']):,} | {first['d']} | {lab_s} | "
                     f"{float(first['prior']):.3f} | {bsep} | " + " | ".join(cells) + " | " + " / ".join(secs)
                     + f" | {len(seeds)} |")
        if "old" in means and "new" in means and (means["new"][0] < means["old"][0]
                                                  or means["new"][1] < means["old"][1]):
            worse.append(name)
    lines.append("")
    lines.append("new defaults below the old (mean accuracy or mean F1): " + (", ".join(worse) if worse else "none"))
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS))
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    ap.add_argument("--labeled-fraction", type=float, default=0.3)
    ap.add_argument("--n-labeled", type=int, default=None,
                    help="label this many training positives in place of --labeled-fraction of them")
    ap.add_argument("--mnist-train", type=int, default=10000)
    ap.add_argument("--max-rows", type=int, default=60000)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench_neural_defaults" / "cells.csv"))
    ap.add_argument("--summary", action="store_true", help="print the tables from --out, fit nothing")
    args = ap.parse_args(argv)
    if not args.summary:
        import torch
        print(f"torch {torch.__version__}, {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
              f"load {os.getloadavg()[0]:.1f}, 1 torch thread", flush=True)
        run(args)
    print(summary(args))


if __name__ == "__main__":
    main()
