"""Helpers shared by the benchmark scripts (run as ``python benchmarks/<name>.py``, so this
module is imported from the script's directory)."""

from __future__ import annotations

import time

import numpy as np


def timed(fn, repeat: int):
    """``(best seconds over repeat calls, the last result)``."""
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def make_pu(y, n_labeled: int, seed: int = 0):
    """PU labels: ``n_labeled`` positives (``y == 1``) drawn without replacement with
    ``seed`` marked ``s = 1``, everything else unlabeled (the PU Extra Trees protocol)."""
    rng = np.random.default_rng(seed)
    pos = np.flatnonzero(y == 1)
    s = np.zeros(y.shape[0], np.int64)
    s[rng.choice(pos, min(n_labeled, pos.size), replace=False)] = 1
    return s
