"""Benchmark: pu_lib's SelfPUClassifier beside the Self-PU authors' code (VITA-Group/Self-PU,
``train_2s2t.py``, run on the CPU by ``benchmarks/authors_selfpu.py``) on the same MNIST
PU set: time per epoch and test accuracy of the four networks.

Data: MNIST from the datasets mirror, pixels / 255, even digits positive. The authors'
code builds its PU set itself (``datasets.make_dataset``: ``np.random.seed(seed)``, a
permutation of the 60,000 training rows, the first 1,000 positives of it labeled, P stacked
on U = all 60,000 rows); this script draws the same 1,000 rows from the same seed, so ours
fits on the identical data, in the case-control form (61,000 rows: P with ``s = 1``, the
60,000 with ``s = 0``), with the authors' prior, 0.49 (``PULoss(Probability_P=0.49)``).

Settings: the authors' defaults on both sides (batch size 256, Adam 5e-4, weight decay
5e-3, cosine learning rate over ``--epochs``, ``--soft-label``, their MNIST MLP with batch
norm and He-normal weights) with a schedule compressed to fit a few epochs so that every
mechanism runs: selections after the epochs from ``--sp-start`` below ``--sp-stop`` every
``--sp-frequency`` (default 1, 4, 1; the selected share still ramps as ``min(epoch / 100,
1)``, fixed in their code) and teachers from ``--ema-start`` (default 3). Ours with
``consistency=0`` (what their code computes; docs/neural.md). Both on ``--threads`` torch
threads (default 1).

Printed: per epoch the wall and process time of each (theirs: their ``train`` only,
without their test pass; ours: the fit's total divided by the epochs), the ratios ours /
theirs, and the final test accuracy of student 1, student 2, teacher 1 and teacher 2 of
each. The two do not draw the same random numbers (their ``DataLoader`` order and
``torch`` initialisation against ours), so accuracies agree only within seed noise.

Run: ``python benchmarks/bench_selfpu.py --authors-src /tmp/Self-PU [--epochs 5]
[--seed 0] [--threads 1]``; without ``--authors-src`` only ours is run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

from pu_lib.datasets import load_dataset
from pu_lib.neural import SelfPUClassifier

MIRROR = os.environ.get("PU_LIB_DATA_MIRROR", "/work/shared/datasets")
AUTHORS_PRIOR = 0.49


def load_mnist():
    ds = load_dataset("mnist", data_mirror=MIRROR, download=False)
    digits = ds.target.to_numpy() if hasattr(ds.target, "to_numpy") else np.asarray(ds.target)
    digits = digits.astype(np.int32)
    train = (ds.meta["split"] == "train").to_numpy()
    X = np.ascontiguousarray(ds.X / np.float32(255.0), dtype=np.float32)
    return X[train], digits[train], X[~train], digits[~train]


def authors_labeled_rows(y_tr, n_labeled: int, seed: int) -> np.ndarray:
    """The training rows the authors' ``make_PU_dataset_from_binary_dataset`` labels:
    ``np.random.seed(seed)``; ``perm = np.random.permutation(n)``; the first ``n_labeled``
    positives (+1 = even digit) in that order."""
    np.random.seed(seed)
    perm = np.random.permutation(len(y_tr))
    pos = perm[(y_tr[perm] % 2) == 0]
    return pos[:n_labeled]


def ours(x_tr, y_tr, x_te, y_te, args):
    lab = authors_labeled_rows(y_tr, 1000, args.seed)
    X = np.concatenate([x_tr[lab], x_tr])
    s = np.r_[np.ones(lab.shape[0], dtype=np.int64), np.zeros(x_tr.shape[0], dtype=np.int64)]
    est = SelfPUClassifier(prior=AUTHORS_PRIOR, scenario="case_control", epochs=args.epochs,
                           self_paced_start=args.sp_start, self_paced_stop=args.sp_stop,
                           self_paced_frequency=args.sp_frequency, ema_start=args.ema_start, consistency=0.0,
                           random_state=args.seed, n_jobs=args.threads)
    w, c = time.perf_counter(), time.process_time()
    est.fit(X, s)
    wall, cpu = time.perf_counter() - w, time.process_time() - c
    import torch

    y = (y_te % 2 == 0).astype(np.int64)
    accs = []
    with torch.no_grad():
        Xt = torch.as_tensor(x_te)
        for k in range(4):
            accs.append(float(np.mean((est.module_.nets[k](Xt).numpy().ravel() >= 0) == y) * 100))
    return {"wall_per_epoch": wall / args.epochs, "cpu_per_epoch": cpu / args.epochs, "test_accuracy": accs}


def authors(x_tr, y_tr, x_te, y_te, args):
    with tempfile.TemporaryDirectory() as tmp:
        data, out = os.path.join(tmp, "mnist.npz"), os.path.join(tmp, "out.json")
        np.savez(data, x_tr=x_tr, y_tr=y_tr, x_te=x_te, y_te=y_te)
        flags = ["--self-paced-start", str(args.sp_start), "--self-paced-stop", str(args.sp_stop),
                 "--self-paced-frequency", str(args.sp_frequency), "--ema-start", str(args.ema_start)]
        runner = os.path.join(os.path.dirname(os.path.abspath(__file__)), "authors_selfpu.py")
        subprocess.run([sys.executable, runner, data, out, "--src", args.authors_src, "--epochs", str(args.epochs),
                        "--seed", str(args.seed), "--threads", str(args.threads), *flags],
                       check=True, stdout=subprocess.DEVNULL)
        with open(out) as fh:
            res = json.load(fh)
    ep = res["epochs"]
    return {"wall_per_epoch": float(np.mean([e["train_seconds"] for e in ep])),
            "cpu_per_epoch": float(np.mean([e["train_cpu_seconds"] for e in ep])),
            "test_accuracy": ep[-1]["test_accuracy"]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--authors-src", default=None, help="a checkout of VITA-Group/Self-PU at a0e332a")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--sp-start", type=int, default=1)
    ap.add_argument("--sp-stop", type=int, default=4)
    ap.add_argument("--sp-frequency", type=int, default=1)
    ap.add_argument("--ema-start", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}; MNIST 1,000 labeled + 60,000 unlabeled, {args.epochs} epochs, seed {args.seed}, "
          f"{args.threads} thread(s)")
    data = load_mnist()
    rows = {"pu_lib SelfPUClassifier": ours(*data, args)}
    if args.authors_src:
        rows["authors' train_2s2t.py"] = authors(*data, args)
    print("| code | wall s / epoch | CPU s / epoch | test accuracy: student 1 / student 2 / teacher 1 / teacher 2 |")
    print("|---|---|---|---|")
    for name, r in rows.items():
        acc = " / ".join(f"{a:.2f}" for a in r["test_accuracy"])
        print(f"| {name} | {r['wall_per_epoch']:.2f} | {r['cpu_per_epoch']:.2f} | {acc} |")
    if len(rows) == 2:
        a, b = rows.values()
        print(f"ratio ours / theirs: wall {a['wall_per_epoch'] / b['wall_per_epoch']:.2f}, "
              f"CPU {a['cpu_per_epoch'] / b['cpu_per_epoch']:.2f}")


if __name__ == "__main__":
    main()
