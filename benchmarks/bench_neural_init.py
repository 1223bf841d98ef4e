"""Benchmark: the early-epoch test accuracy of the nnPU reference's MNIST network under the
two initialisations of ``pu_lib.neural`` (``init="chainer"``, the reference's; ``init="pytorch"``,
PyTorch's defaults), for nnPU and uPU, a few seeds each.

Protocol (as ``benchmarks/bench_neural.py`` and docs/neural.md's MNIST section): MNIST from the
datasets mirror, pixels / 255, even digits positive; 1,000 labeled positives drawn from the
60,000 training rows, the whole training set unlabeled (``scenario="single_training_set"``),
the true prior; the network 784-300-300-300-300-1 with batch norm and ReLU
(kiryor/nnPUlearning ``MultiLayerPerceptron``), sigmoid loss, beta = 0, gamma = 1, Adam with
learning rate 1e-3 and weight decay 0.005, batch size 30,000 (two steps per epoch); test
accuracy on the 10,000 test rows after each epoch (``keep_epoch_states=True``,
``staged_predict``). Seed ``k`` draws the labeled rows (``load_mnist_pu(1000, k)``) and is the
estimator's ``random_state`` (``bench_neural.py --seed k``).

Run: ``python benchmarks/bench_neural_init.py [--epochs 10] [--seeds 0 1] [--risks nnpu upu]
[--threads 1]``; fits run risk by risk (nnPU first), seed by seed, ``chainer`` then ``pytorch``,
each printing its line as it ends, then the tables.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_neural import HIDDEN, PRESET, load_mnist_pu  # noqa: E402

from pu_lib.neural import NNPUClassifier  # noqa: E402

INITS = ("chainer", "pytorch")


def curve(data, *, risk, init, seed, epochs, threads):
    """``(test accuracy after each epoch, negative risk per epoch, wall seconds)``."""
    X, s, _, Xte, yte, prior = data
    t0 = time.perf_counter()
    model = NNPUClassifier(risk=risk, prior=prior, model="mlp", hidden_sizes=HIDDEN, batch_norm=True, init=init,
                           epochs=epochs, keep_epoch_states=True, random_state=seed, n_jobs=threads,
                           **PRESET).fit(X, s)
    wall = time.perf_counter() - t0
    accs = [float(np.mean(p == yte)) for p in model.staged_predict(Xte)]
    return accs, model.history_["negative_risk"], wall


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--risks", nargs="+", default=["nnpu", "upu"], choices=["nnpu", "upu"])
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"{args.threads} torch thread(s)", flush=True)
    data = {seed: load_mnist_pu(1000, seed) for seed in args.seeds}
    results = {}
    t_all = time.perf_counter()
    for risk in args.risks:
        for seed in args.seeds:
            for init in INITS:
                accs, neg, wall = curve(data[seed], risk=risk, init=init, seed=seed, epochs=args.epochs,
                                        threads=args.threads)
                results[risk, seed, init] = accs
                print(f"{risk} seed {seed} init {init:<7} {wall:6.1f} s: test acc "
                      + " ".join(f"{100 * a:.2f}" for a in accs)
                      + " | negative risk " + " ".join(f"{v:+.3f}" for v in neg), flush=True)
    print(f"\nall fits: {time.perf_counter() - t_all:.0f} s wall\n")
    head = " | ".join(str(e + 1) for e in range(args.epochs))
    print(f"| method | init | seed | {head} |")
    print("|---|---|---|" + "---|" * args.epochs)
    for (risk, seed, init), accs in results.items():
        print(f"| {'nnPU' if risk == 'nnpu' else 'uPU'} | `{init}` | {seed} | "
              + " | ".join(f"{100 * a:.2f}" for a in accs) + " |")


if __name__ == "__main__":
    main()
