"""Run the Self-PU authors' code (Chen et al., ICML 2020, ``VITA-Group/Self-PU`` at commit
``a0e332a``, ``train_2s2t.py``: Self-PU without self-calibration) on MNIST arrays given in a
file, on the CPU, and write one JSON object: per epoch the wall and process time of their
``train`` (the epoch's optimisation, without the test pass) and the test accuracy of their
four networks (student 1, student 2, teacher 1, teacher 2) from their ``validate``. Used by
``bench_selfpu.py --authors-src`` to put their code beside ours on the same data.

Setup (outside this repository; their code is not vendored)::

    git clone https://github.com/VITA-Group/Self-PU /tmp/Self-PU
    git -C /tmp/Self-PU checkout a0e332a

Usage: ``python benchmarks/authors_selfpu.py IN.npz OUT.json --src /tmp/Self-PU
[--epochs 5] [--seed 0] [their flags]``; ``IN.npz`` holds ``x_tr`` (60,000 x 784 float32
pixels in [0, 1]), ``y_tr`` (digits), ``x_te``, ``y_te``. It runs in an interpreter with
torch, numpy, scipy, scikit-learn and matplotlib (pu_lib's venv will do).

Their code as it is, run on the CPU: ``Tensor.cuda`` and ``Module.cuda`` return their
argument unchanged (their scripts call ``.cuda()`` on every tensor and network); their
``get_mnist`` (``fetch_openml``, which needs the internet) returns the arrays of ``IN.npz``
in its layout (pixels / 255, shape (n, 1, 28, 28)); the modules they import for other data
or for display only (``cv2``, ``torchvision``, ``tqdm``) are stubs; their ``DataLoader``
workers follow ``--workers`` (default 0, the main process) except in ``update_dataset``,
which hard-codes 4; files they write (plots, ``model_best.pth.tar``) go to a temporary
directory. Nothing in their training is changed.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import json
import os
import sys
import tempfile
import time
import types

import numpy as np


def _stub_modules():
    cv2 = types.ModuleType("cv2")
    tv = types.ModuleType("torchvision")
    tv.transforms = types.SimpleNamespace(Compose=lambda *a, **k: None, ToPILImage=lambda *a, **k: None,
                                          ToTensor=lambda *a, **k: None, Normalize=lambda *a, **k: None)
    tqdm_mod = types.ModuleType("tqdm")
    tqdm_mod.tqdm = lambda it=None, *a, **k: it
    for name, mod in (("cv2", cv2), ("torchvision", tv), ("tqdm", tqdm_mod)):
        mod.__spec__ = importlib.machinery.ModuleSpec(name, None)  # torch's import checks look for one
        sys.modules.setdefault(name, mod)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--src", required=True, help="the authors' checkout (holding train_2s2t.py)")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    args, their_flags = ap.parse_known_args(argv)  # the rest: flags for train_2s2t.py
    data = np.load(args.data)
    x_tr = data["x_tr"].astype(np.float32).reshape(-1, 1, 28, 28)
    x_te = data["x_te"].astype(np.float32).reshape(-1, 1, 28, 28)
    y_tr, y_te = data["y_tr"].astype(np.int32), data["y_te"].astype(np.int32)

    _stub_modules()
    import matplotlib

    matplotlib.use("Agg")
    import torch

    torch.set_num_threads(args.threads)
    torch.Tensor.cuda = lambda self, *a, **k: self
    torch.nn.Module.cuda = lambda self, *a, **k: self
    sys.path.insert(0, os.path.abspath(args.src))
    out_path = os.path.abspath(args.out)
    work = tempfile.mkdtemp(prefix="selfpu_authors_")
    os.chdir(work)
    import train_2s2t as T  # noqa: E402  (their script; its main() reads sys.argv)

    T.get_mnist = lambda: ((x_tr, y_tr), (x_te, y_te))
    epochs = []
    train, validate = T.train, T.validate

    def timed_train(*a, **k):
        w, c = time.perf_counter(), time.process_time()
        out = train(*a, **k)
        epochs.append({"train_seconds": time.perf_counter() - w, "train_cpu_seconds": time.process_time() - c})
        return out

    def recorded_validate(*a, **k):
        out = validate(*a, **k)
        epochs[-1]["test_accuracy"] = [float(v) for v in out[2:6]]  # PNacc of model1, model2, ema1, ema2
        return out

    T.train, T.validate = timed_train, recorded_validate
    sys.argv = ["train_2s2t.py", "--soft-label", "--epochs", str(args.epochs), "--seed", str(args.seed),
                "--workers", "0", "--modeldir", work + "/", *their_flags]
    w = time.perf_counter()
    T.main()
    with open(out_path, "w") as fh:
        json.dump({"epochs": epochs, "wall_seconds": time.perf_counter() - w, "flags": sys.argv[1:]}, fh)


if __name__ == "__main__":
    main()
