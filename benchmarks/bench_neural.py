"""Benchmark: pu_lib's NNPUClassifier against the same nnPU training written as a plain
PyTorch loop, side by side in one run; with ``--full``, the 200-epoch MNIST nnPU and uPU
fits of the PU Extra Trees paper's protocol.

Data: MNIST from the datasets mirror (``pu_lib.datasets.load_dataset("mnist")``: rows
0-59,999 train, 60,000-69,999 test), pixels divided by 255 (as the nnPU reference), even
digits positive. PU set: 1,000 labeled positives drawn from the training positives
(``--seed``), the whole training set unlabeled (the labeled rows are part of U: the
estimator's ``scenario="single_training_set"``, the workflow's ``case_control``), prior =
the true positive share of the 60,000 training rows.

Network: the nnPU reference's MNIST preset (kiryor/nnPUlearning ``--preset exp-mnist``,
``MultiLayerPerceptron``): 784-300-300-300-300-1, hidden ``Linear`` layers without bias,
each followed by batch norm and ReLU; sigmoid loss, beta = 0, gamma = 1; Adam with
learning rate 1e-3 and weight decay 0.005, batch size 30,000 (the preset's; the PU Extra
Trees paper tuned these and does not give them).

**Epoch timing** (default): one fit of ``--epochs`` epochs (default 1) from the numpy
arrays to the trained network, on ``--threads`` torch threads (default 2):

* ``NNPUClassifier(risk="nnpu", model="mlp", hidden_sizes=(300,) * 4, batch_norm=True,
  epochs=..., batch_size=30000, learning_rate=1e-3, weight_decay=0.005, n_jobs=threads)``;
* the plain loop: the same ``torch.nn.Sequential``, ``torch.optim.Adam`` with the same
  settings, one ``torch.randperm`` per epoch and mini-batches taken by index tensors (no
  ``DataLoader``), the nnPU risk with boolean masks and the corrected step
  (``-gamma * negative risk`` when it falls below ``-beta``).

Each is run once to warm up, then ``--repeat`` times (default 3), alternating; the
median (and fastest) wall time of each, the median process CPU time (less sensitive to
other processes on a shared machine) and the ratios ours / plain (goal: at most 1.1) are
printed, with the test accuracy of the last fit of each (a sanity check).
``--profile`` adds a cProfile of one ``NNPUClassifier`` fit (top functions by own time).

Devices: the CPU always; the GPU too where ``torch.cuda.is_available()`` (the same code
path with ``device="cuda"``; timings synchronise the GPU before the clock is read). Where
no GPU is present that is printed and the GPU rows are skipped.

**Full run** (``--full``): one nnPU fit and one uPU fit of ``--full-epochs`` epochs
(default 200, the paper's; ``--upu-epochs`` shortens the uPU fit) with
``keep_epoch_states=True``; printed: wall time, final test accuracy on the 10,000 test
rows, and the test accuracy and mean training negative risk every ``--every`` epochs
(uPU's negative risk goes below 0 and its test accuracy drops: it overfits); a line per
epoch (wall time, negative risk, and every ``--every`` epochs the test accuracy) shows
the progress of a long run. The acceptance target is nnPU at least 92% test accuracy and uPU well below it.

``--init`` is ``NNPUClassifier``'s ``init`` (default ``chainer``, the estimator's default;
``pytorch`` reproduces the tables of docs/neural.md measured before the option existed);
the plain loop keeps PyTorch's initialisation. ``benchmarks/bench_neural_init.py`` compares
the two initialisations' early epochs.

Run: ``python benchmarks/bench_neural.py [--epochs 1] [--repeat 3] [--threads 2]
[--profile] [--init chainer] [--full [--full-epochs 200] [--upu-epochs 200] [--every 10]]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np
import torch

from pu_lib.datasets import load_dataset
from pu_lib.neural import NNPUClassifier

MIRROR = os.environ.get("PU_LIB_DATA_MIRROR", "/work/shared/datasets")
HIDDEN = (300, 300, 300, 300)
PRESET = {"batch_size": 30000, "learning_rate": 1e-3, "weight_decay": 0.005}


def load_mnist_pu(n_labeled: int, seed: int):
    """``(X_train, s, y_train, X_test, y_test, prior)``; pixels / 255, even digits positive."""
    ds = load_dataset("mnist", data_mirror=MIRROR, download=False)
    y = ds.binary_target("pu_extra_trees").astype(np.int64)
    train = (ds.meta["split"] == "train").to_numpy()
    X = np.ascontiguousarray(ds.X / np.float32(255.0), dtype=np.float32)
    Xtr, ytr, Xte, yte = X[train], y[train], X[~train], y[~train]
    rng = np.random.default_rng(seed)
    s = np.zeros(ytr.shape[0], dtype=np.int64)
    s[rng.choice(np.flatnonzero(ytr == 1), n_labeled, replace=False)] = 1
    return Xtr, s, ytr, Xte, yte, float(ytr.mean())


def sync(device: str) -> None:
    """Wait for the device's queued work (a no-op on the CPU)."""
    if device == "cuda":
        torch.cuda.synchronize()


def ours(X, s, prior, *, epochs, threads, device, seed, risk="nnpu", keep=False, init="chainer"):
    return NNPUClassifier(risk=risk, prior=prior, model="mlp", hidden_sizes=HIDDEN, batch_norm=True, init=init,
                          epochs=epochs, n_jobs=threads, device=device, random_state=seed,
                          keep_epoch_states=keep, **PRESET).fit(X, s)


def plain_network(d: int):
    layers, width = [], d
    for h in HIDDEN:
        layers += [torch.nn.Linear(width, h, bias=False), torch.nn.BatchNorm1d(h), torch.nn.ReLU()]
        width = h
    layers.append(torch.nn.Linear(width, 1))
    return torch.nn.Sequential(*layers)


def plain(X, s, prior, *, epochs, threads, device, seed, beta=0.0, gamma=1.0):
    """nnPU (sigmoid loss, single training set: U = every row of the batch) by hand."""
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    net = plain_network(X.shape[1]).to(device)
    Xt = torch.from_numpy(X).to(device)
    st = torch.from_numpy(s == 1).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=PRESET["learning_rate"], weight_decay=PRESET["weight_decay"])
    gen = torch.Generator().manual_seed(seed)
    n, bs = X.shape[0], PRESET["batch_size"]
    starts = list(range(0, n, bs))
    if len(starts) > 1 and n - starts[-1] == 1:  # batch norm needs two rows: as NNPUClassifier
        starts.pop()
    stops = starts[1:] + [n]
    for _ in range(epochs):
        net.train()
        perm = torch.randperm(n, generator=gen).to(device)
        for a, b in zip(starts, stops):
            idx = perm[a:b]
            z = net(Xt[idx])[:, 0]
            p = st[idx]
            zp = z[p]
            n_p = max(1, zp.numel())
            positive = prior * torch.sigmoid(-zp).sum() / n_p
            negative = torch.sigmoid(z).mean() - prior * torch.sigmoid(zp).sum() / n_p
            opt.zero_grad()
            if negative.item() < -beta:
                (-gamma * negative).backward()
            else:
                (positive + negative).backward()
            opt.step()
    net.eval()
    return net


def accuracy_ours(model, X, y):
    return float(np.mean(model.predict(X) == y))


def accuracy_plain(net, X, y, device):
    with torch.no_grad():
        z = net(torch.from_numpy(X).to(device))[:, 0].cpu().numpy()
    return float(np.mean((z >= 0).astype(np.int64) == y))


def time_epochs(data, args, device):
    X, s, _, Xte, yte, prior = data
    kw = dict(epochs=args.epochs, threads=args.threads, device=device, seed=args.seed)
    runs = {"NNPUClassifier": lambda: ours(X, s, prior, init=args.init, **kw),
            "plain loop": lambda: plain(X, s, prior, **kw)}
    times = {k: [] for k in runs}
    cpu = {k: [] for k in runs}
    last = {}
    for rep in range(args.repeat + 1):  # the first round warms up and is not counted
        for name, fn in runs.items():
            old = torch.get_num_threads()
            sync(device)
            t0, c0 = time.perf_counter(), time.process_time()
            last[name] = fn()
            sync(device)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            torch.set_num_threads(old)
            if rep:
                times[name].append(dt)
                cpu[name].append(dc)
    acc = {"NNPUClassifier": accuracy_ours(last["NNPUClassifier"], Xte, yte),
           "plain loop": accuracy_plain(last["plain loop"], Xte, yte, device)}
    print(f"\n{device}: {args.epochs} epoch(s) of {X.shape[0]} x {X.shape[1]}, {args.threads} torch threads, "
          f"median / fastest of {args.repeat} (after one warm-up round)")
    print(f"{'':<16} {'median s':>9} {'fastest s':>10} {'s / epoch':>10} {'CPU s':>8} {'test acc':>9}")
    med, mcpu = {}, {}
    for name, ts in times.items():
        med[name], mcpu[name] = statistics.median(ts), statistics.median(cpu[name])
        print(f"{name:<16} {med[name]:9.3f} {min(ts):10.3f} {med[name] / args.epochs:10.3f} {mcpu[name]:8.2f} "
              f"{acc[name]:9.4f}")
    print(f"ratio NNPUClassifier / plain loop: {med['NNPUClassifier'] / med['plain loop']:.3f} (median), "
          f"{min(times['NNPUClassifier']) / min(times['plain loop']):.3f} (fastest), "
          f"{mcpu['NNPUClassifier'] / mcpu['plain loop']:.3f} (median process CPU time); goal <= 1.1")
    return med


def profile_fit(data, args):
    import cProfile
    import pstats

    X, s, _, _, _, prior = data
    prof = cProfile.Profile()
    prof.enable()
    ours(X, s, prior, epochs=args.epochs, threads=args.threads, device="cpu", seed=args.seed, init=args.init)
    prof.disable()
    print("\ncProfile of one NNPUClassifier fit (top 15 by own time):")
    pstats.Stats(prof).sort_stats("tottime").print_stats(15)


class _Progress(NNPUClassifier):
    """NNPUClassifier that prints each epoch's wall time and negative risk, and the test
    accuracy every ``every`` epochs (eval mode, no gradient: training is unchanged), so
    that a long run's log shows its progress."""

    def watch(self, X_test, y_test, every):
        self._test, self._every, self._t0 = (X_test, y_test), every, time.perf_counter()
        return self

    def _train_epoch(self, torch_, module, optimizer, T, generator, epoch, consts):
        out = super()._train_epoch(torch_, module, optimizer, T, generator, epoch, consts)
        line = f"  {self.risk} epoch {epoch + 1}: {time.perf_counter() - self._t0:7.1f} s, " \
               f"negative risk {out['negative_risk']:+.4f}"
        if (epoch + 1) % self._every == 0 or epoch == 0:
            module.eval()
            with torch_.no_grad():
                Xt = torch_.from_numpy(self._test[0]).to(T["X"].device)
                z = module(Xt)[:, 0].cpu().numpy()
            module.train()
            line += f", test accuracy {np.mean((z >= 0).astype(np.int64) == self._test[1]):.4f}"
        print(line, flush=True)
        return out


def full_run(data, args, device):
    X, s, _, Xte, yte, prior = data
    print(f"\nfull run on {device}: 1,000 labeled positives, U = all {X.shape[0]} training rows, prior {prior:.4f}, "
          f"batch {PRESET['batch_size']}, lr {PRESET['learning_rate']}, weight decay {PRESET['weight_decay']}, "
          f"{args.threads} threads", flush=True)
    for risk, epochs in (("nnpu", args.full_epochs), ("upu", args.upu_epochs or args.full_epochs)):
        t0 = time.perf_counter()
        model = _Progress(risk=risk, prior=prior, model="mlp", hidden_sizes=HIDDEN, batch_norm=True, init=args.init,
                          epochs=epochs,
                          n_jobs=args.threads, device=device, random_state=args.seed, keep_epoch_states=True,
                          **PRESET).watch(Xte, yte, args.every).fit(X, s)
        wall = time.perf_counter() - t0
        accs = [float(np.mean(p == yte)) for p in model.staged_predict(Xte)]
        neg = model.history_["negative_risk"]
        print(f"\n{risk}: {epochs} epochs in {wall:.1f} s ({wall / epochs:.2f} s / epoch); final test accuracy "
              f"{accs[-1]:.4f}; best {max(accs):.4f} at epoch {int(np.argmax(accs)) + 1}; corrected steps "
              f"{int(model.history_['corrected_steps'].sum())}", flush=True)
        print(f"{'epoch':>6} {'test acc':>9} {'neg risk':>9} {'risk':>9}")
        for e in range(len(accs)):
            if (e + 1) % args.every == 0 or e == 0 or e == len(accs) - 1:
                print(f"{e + 1:6d} {accs[e]:9.4f} {neg[e]:9.4f} {model.history_['risk'][e]:9.4f}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--n-labeled", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--full", action="store_true", help="the 200-epoch nnPU and uPU fits instead of the timing")
    ap.add_argument("--full-epochs", type=int, default=200)
    ap.add_argument("--upu-epochs", type=int, default=None, help="uPU epochs in --full (default: --full-epochs)")
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--init", choices=["chainer", "pytorch"], default="chainer",
                    help="NNPUClassifier's init (its default, chainer; the tables of docs/neural.md measured before "
                         "the option: pytorch); the plain loop keeps PyTorch's initialisation")
    args = ap.parse_args(argv)

    print(f"torch {torch.__version__}, {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    t0 = time.perf_counter()
    data = load_mnist_pu(args.n_labeled, args.seed)
    print(f"MNIST loaded in {time.perf_counter() - t0:.1f} s: train {data[0].shape}, test {data[3].shape}, "
          f"{int(data[1].sum())} labeled, prior {data[5]:.4f}")
    devices = ["cpu"]
    if torch.cuda.is_available():
        devices.append("cuda")
    else:
        print("no GPU present (torch.cuda.is_available() is False): CPU only")
    for device in devices:
        if args.full:
            full_run(data, args, device)
        else:
            time_epochs(data, args, device)
    if args.profile:
        profile_fit(data, args)


if __name__ == "__main__":
    main()
