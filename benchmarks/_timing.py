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
