"""Benchmark: pu_lib's compiled Extra Trees against scikit-learn's ExtraTreesClassifier.

In one run, for each data size (``--sizes``):

1. **PN Extra Trees (Gini)**: ``pu_lib.trees.PNExtraTreesClassifier`` against
   ``sklearn.ensemble.ExtraTreesClassifier(criterion="gini", max_features=F,
   bootstrap=False)`` with the same integer ``F = ceil(sqrt(d))`` (our ``"sqrt"``; note
   that scikit-learn's own ``"sqrt"`` is ``floor(sqrt(d))``), the same data, the same
   ``n_estimators`` and the same ``n_jobs``. Reported: fit time, predict time on the
   held-out rows, nodes per tree, fit time per node (wall seconds / total nodes of the
   forest), peak resident-memory increase during the fit, test accuracy (a sanity
   check), and the ratios ours / scikit-learn's.
2. **PU Extra Trees (nnPU, quadratic loss)**: ``PUExtraTreesClassifier`` on PU data made
   from the same training set -- 1,000 labeled positives drawn from the positives, every
   training row in the unlabeled set (single-training-set scenario, the paper's
   protocol), ``prior`` = the true positive fraction of the training set. Reported: fit
   time, nodes per tree, time per node and its ratio to scikit-learn's PN time per node
   (the trees have very different sizes, so only normalised times compare), peak memory
   and test accuracy against the true labels.

Time per node favours forests of small nodes (a node's split costs about F times its
number of rows), and nnPU trees are tiny (they stop at nodes whose nnPU risk is 0), so
the fit time per *row-visit* -- fit time / sum over internal nodes of their row counts --
is also reported; it is the fairer work-normalised comparison, especially for PU vs PN.

Not quite the same algorithm on data with many constant features (MNIST's border
pixels): pu_lib draws features until ``F`` *non-constant* ones have been evaluated
(Algorithm 5 of the paper), whereas scikit-learn's random splitter counts constant
features it draws towards its ``max_features`` budget. On MNIST pu_lib therefore scans
more features per node (more work per node, fewer and better nodes); on the tall table
(no constant features) both grow trees of the same size.

Sizes:

* ``mnist``: the real MNIST from ``/work/shared/datasets/mnist.parquet`` (784 pixels,
  positive = even digit, first 60,000 rows train, last 10,000 test); if it is missing,
  or with ``--synthetic``, a synthetic 70,000 x 784 matrix of uint8 values (stored as
  float32) with ten digit-like prototypes, split 60,000 / 10,000.
* ``tall``: ``make_classification(200000, 50, n_informative=20, random_state=0)``,
  split 90 / 10.

Both estimators get the same float32 C-contiguous training matrix (what
``check_array(dtype=float32)`` gives); pu_lib copies it to column-major inside ``fit``
(part of its fit time and memory: 4 * n * d bytes, e.g. ~180 MB for MNIST), scikit-learn
uses it as is.

Timing: ``time.perf_counter``; each fit is run ``--repeat`` times (default 1) and the
best time is kept; predictions are cheap and timed best of ``max(5, --repeat)``. The
numba JIT is warmed up first (a tiny PN and PU forest, fitted and used to predict) and
that one-off time is reported separately; it is a cache load when numba's on-disk
cache is populated, so the true cold compile time is also measured in a subprocess with
an empty ``NUMBA_CACHE_DIR`` (skip with ``--no-cold-jit``). Peak memory is the maximum
RSS, sampled every 10 ms by a background thread, minus the RSS when the fit started
(after ``gc.collect()`` and glibc ``malloc_trim``); spikes shorter than 10 ms can be
missed.

The paper (Wilton et al. 2022) uses 100 trees; the default here is 10 to keep the run
short (fit times scale about linearly with ``--n-estimators``).

Run: ``python benchmarks/bench_trees.py [--n-estimators 10] [--n-jobs 2]
[--sizes mnist,tall] [--repeat 1] [--synthetic] [--json out.json]``
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
from _timing import make_pu

MNIST_PATH = "/work/shared/datasets/mnist.parquet"
N_LABELED = 1000


# --------------------------------------------------------------------------- helpers

def _malloc_trim():
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


class PeakRSS:
    """Context manager: peak RSS increase (bytes) over the RSS at entry, sampled every
    ``interval`` seconds in a daemon thread."""

    def __init__(self, interval: float = 0.01):
        import psutil

        self._proc = psutil.Process()
        self.interval = interval
        self.increase = 0

    def _run(self):
        while not self._stop.wait(self.interval):
            self._peak = max(self._peak, self._proc.memory_info().rss)

    def __enter__(self):
        gc.collect()
        _malloc_trim()
        self._base = self._proc.memory_info().rss
        self._peak = self._base
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._peak = max(self._peak, self._proc.memory_info().rss)
        self.increase = self._peak - self._base
        return False


def _cpu_snapshot():
    """(busy CPU seconds of the whole machine, CPU seconds of this process)."""
    import psutil

    t = psutil.cpu_times()
    busy = sum(t) - t.idle - getattr(t, "iowait", 0.0)
    own = psutil.Process().cpu_times()
    return busy, own.user + own.system


def _other_cores(snap0, snap1, wall):
    """Mean number of cores used by other processes between two snapshots."""
    return max(0.0, ((snap1[0] - snap0[0]) - (snap1[1] - snap0[1])) / wall) if wall > 0 else float("nan")


def best_time(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


# --------------------------------------------------------------------------- data

def synthetic_mnist(n: int = 70_000, d: int = 784, seed: int = 0):
    """uint8-valued float32 images: ten sparse 'digit' prototypes (~120 lit pixels each)
    plus noise and a sparse background; label = prototype index."""
    rng = np.random.default_rng(seed)
    protos = np.zeros((10, d), np.float32)
    for k in range(10):
        on = rng.choice(d, 120, replace=False)
        protos[k, on] = rng.uniform(150, 255, on.size)
    digit = rng.integers(0, 10, n)
    X = np.empty((n, d), np.float32)
    step = 10_000
    for i in range(0, n, step):
        sl = slice(i, min(n, i + step))
        m = sl.stop - sl.start
        keep = rng.random((m, d), dtype=np.float32) < 0.7
        img = protos[digit[sl]] * keep
        img += rng.normal(0, 25, (m, d)).astype(np.float32) * (img > 0)
        img += (rng.random((m, d), dtype=np.float32) < 0.05) * rng.uniform(0, 255, (m, d)).astype(np.float32)
        X[sl] = np.clip(np.rint(img), 0, 255)
    return X, digit


def load_mnist(synthetic: bool):
    """(X_train, y_train, X_test, y_test, description); y = 1 for even digits."""
    if not synthetic and os.path.exists(MNIST_PATH):
        import pandas as pd

        df = pd.read_parquet(MNIST_PATH)
        pix = [c for c in df.columns if c.startswith("pixel")]
        X = np.ascontiguousarray(df[pix].to_numpy(dtype=np.float32))
        digit = df["target"].to_numpy()
        split = df["split"].to_numpy() if "split" in df.columns else None
        desc = f"MNIST ({MNIST_PATH})"
        del df
    else:
        X, digit = synthetic_mnist()
        split = None
        desc = "synthetic MNIST-shaped (uint8 values as float32)"
    y = (digit % 2 == 0).astype(np.int64)
    tr, te = slice(0, 60_000), slice(60_000, 70_000)
    if split is not None:  # check the documented layout: first 60000 train, last 10000 test
        ok = np.all(split[tr] == split[0]) and np.all(split[te] == split[-1]) and split[0] != split[-1]
        if not ok:
            print("warning: 'split' column does not match the 60000/10000 layout; using row order anyway")
    return X[tr], y[tr], X[te], y[te], desc


def load_tall(n: int = 200_000, d: int = 50):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n, n_features=d, n_informative=20,
                               random_state=0)
    X = np.ascontiguousarray(X, dtype=np.float32)
    y = y.astype(np.int64)
    n_tr = int(0.9 * n)
    return X[:n_tr], y[:n_tr], X[n_tr:], y[n_tr:], f"make_classification({n}, {d}, n_informative=20)"


# --------------------------------------------------------------------------- JIT warm-up

_WARMUP_SNIPPET = """
import time, numpy as np
t0 = time.perf_counter()
from pu_lib.trees import PNExtraTreesClassifier, PUExtraTreesClassifier
t1 = time.perf_counter()
rng = np.random.default_rng(0)
X = rng.random((300, 5)).astype(np.float32)
y = (X[:, 0] > 0.5).astype(np.int64)
PNExtraTreesClassifier(n_estimators=2, random_state=0).fit(X, y).predict(X)
PUExtraTreesClassifier(n_estimators=2, prior=0.5, scenario="case_control", random_state=0).fit(X, y).predict(X)
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def warm_up(n_jobs):
    """Import pu_lib.trees and JIT-compile (or load from numba's cache) in this process."""
    t0 = time.perf_counter()
    from pu_lib.trees import PNExtraTreesClassifier, PUExtraTreesClassifier
    from pu_lib.trees._builder import build_tree

    t_import = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    X = rng.random((300, 5)).astype(np.float32)
    y = (X[:, 0] > 0.5).astype(np.int64)
    t0 = time.perf_counter()
    PNExtraTreesClassifier(n_estimators=2, random_state=0, n_jobs=n_jobs).fit(X, y).predict(X)
    PUExtraTreesClassifier(n_estimators=2, prior=0.5, scenario="case_control", random_state=0,
                           n_jobs=n_jobs).fit(X, y).predict(X)
    t_jit = time.perf_counter() - t0
    try:
        st = build_tree.stats
        source = "cache load" if sum(st.cache_hits.values()) and not sum(st.cache_misses.values()) else "compiled"
    except AttributeError:
        source = "unknown"
    # scikit-learn has no JIT; warm its code paths / thread pools too, untimed
    from sklearn.ensemble import ExtraTreesClassifier

    ExtraTreesClassifier(n_estimators=2, n_jobs=n_jobs, random_state=0).fit(X, y).predict(X)
    return t_import, t_jit, source


def cold_jit():
    """Import + compile times in a fresh interpreter with an empty numba cache."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
        out = subprocess.run([sys.executable, "-c", _WARMUP_SNIPPET], env=env, capture_output=True,
                             text=True, timeout=600)
    if out.returncode != 0:
        print(f"cold JIT measurement failed:\n{out.stderr[-2000:]}")
        return None, None
    t_import, t_jit = map(float, out.stdout.split()[-2:])
    return t_import, t_jit


# --------------------------------------------------------------------------- one model

def _tree_stats(trees):
    """(nodes per tree, total rows over all internal nodes of the forest) for objects with
    ``children_left`` and ``n_node_samples`` arrays (ours: ``Tree``; sklearn: ``tree_``)."""
    nodes, visits = [], 0
    for t in trees:
        left = np.asarray(t.children_left)
        nodes.append(left.shape[0])
        visits += int(np.asarray(t.n_node_samples)[left != -1].sum())
    return nodes, visits


def run_model(name, make, trees_of, X_tr, target, X_te, y_te, repeat):
    fit_times, mems = [], []
    est = None
    for _ in range(repeat):
        est = None  # free the previous forest before measuring the next fit
        est = make()
        with PeakRSS() as mon:
            t0 = time.perf_counter()
            est.fit(X_tr, target)
            fit_times.append(time.perf_counter() - t0)
        mems.append(mon.increase)
    t_pred, pred = best_time(lambda: est.predict(X_te), max(5, repeat))
    nodes, visits = _tree_stats(trees_of(est))
    nodes = np.asarray(nodes)
    t_fit = min(fit_times)
    res = {
        "model": name,
        "fit_s": t_fit,
        "fit_s_all": fit_times,
        "predict_s": t_pred,
        "nodes_per_tree_mean": float(nodes.mean()),
        "nodes_per_tree_min": int(nodes.min()),
        "nodes_per_tree_max": int(nodes.max()),
        "nodes_total": int(nodes.sum()),
        "us_per_node": 1e6 * t_fit / nodes.sum(),
        "row_visits": visits,
        "ns_per_row_visit": 1e9 * t_fit / visits,
        "peak_rss_increase_mb": max(mems) / 2**20,
        "peak_rss_increase_mb_all": [m / 2**20 for m in mems],
        "test_accuracy": float(np.mean(np.asarray(pred) == y_te)),
    }
    print(f"  {name:<24} fit {t_fit:8.3f} s   predict {t_pred:7.3f} s   nodes/tree {nodes.mean():10.0f} "
          f"[{nodes.min()}, {nodes.max()}]   {res['us_per_node']:7.3f} us/node   "
          f"{res['ns_per_row_visit']:6.2f} ns/row-visit   "
          f"peak +{res['peak_rss_increase_mb']:7.1f} MB   acc {res['test_accuracy']:.4f}", flush=True)
    del est
    gc.collect()
    return res


def run_size(size, args):
    from sklearn.ensemble import ExtraTreesClassifier

    from pu_lib.trees import PNExtraTreesClassifier, PUExtraTreesClassifier

    t0 = time.perf_counter()
    if size == "mnist":
        X_tr, y_tr, X_te, y_te, desc = load_mnist(args.synthetic)
    elif size == "tall":
        X_tr, y_tr, X_te, y_te, desc = load_tall()
    else:
        raise ValueError(f"unknown size {size!r} (use mnist, tall)")
    n, d = X_tr.shape
    F = max(1, math.ceil(math.sqrt(d)))
    s = make_pu(y_tr, N_LABELED)
    prior = float(y_tr.mean())
    print(f"\n[{size}] {desc}: train {n} x {d}, test {X_te.shape[0]}, positive fraction {prior:.4f}, "
          f"F = ceil(sqrt({d})) = {F}; PU: {int(s.sum())} labeled positives, prior {prior:.4f} "
          f"(loaded in {time.perf_counter() - t0:.1f} s)", flush=True)

    common = dict(n_estimators=args.n_estimators, n_jobs=args.n_jobs, random_state=0)
    sk = run_model(
        "sklearn ExtraTrees (PN)",
        lambda: ExtraTreesClassifier(criterion="gini", max_features=F, bootstrap=False, **common),
        lambda e: [t.tree_ for t in e.estimators_],
        X_tr, y_tr, X_te, y_te, args.repeat)
    pn = run_model(
        "pu_lib PN ET (gini)",
        lambda: PNExtraTreesClassifier(criterion="gini", max_features="sqrt", use_dask=False, **common),
        lambda e: e.trees_,
        X_tr, y_tr, X_te, y_te, args.repeat)
    pu = run_model(
        "pu_lib PU ET (nnPU, quad)",
        lambda: PUExtraTreesClassifier(risk="nnpu", loss="quadratic", max_features="sqrt", prior=prior,
                                       scenario="single_training_set", use_dask=False, **common),
        lambda e: e.trees_,
        X_tr, s, X_te, y_te, args.repeat)

    rows = []
    for r in (sk, pn, pu):
        r = dict(r, size=size, data=desc, n_train=n, n_test=int(X_te.shape[0]), d=d, max_features=F)
        r["fit_ratio"] = r["fit_s"] / sk["fit_s"]
        r["predict_ratio"] = r["predict_s"] / sk["predict_s"]
        r["node_ratio"] = r["nodes_per_tree_mean"] / sk["nodes_per_tree_mean"]
        r["us_per_node_ratio"] = r["us_per_node"] / sk["us_per_node"]
        r["ns_per_row_visit_ratio"] = r["ns_per_row_visit"] / sk["ns_per_row_visit"]
        r["mem_ratio"] = (r["peak_rss_increase_mb"] / sk["peak_rss_increase_mb"]
                          if sk["peak_rss_increase_mb"] > 0 else float("nan"))
        rows.append(r)
    print(f"  ratios ours/sklearn: PN fit {rows[1]['fit_ratio']:.2f}, PN predict {rows[1]['predict_ratio']:.2f}, "
          f"PN time/node {rows[1]['us_per_node_ratio']:.2f}, PN peak memory {rows[1]['mem_ratio']:.2f}; "
          f"PN time/row-visit {rows[1]['ns_per_row_visit_ratio']:.2f}; PU time/node vs sklearn PN "
          f"{rows[2]['us_per_node_ratio']:.2f}, PU time/row-visit vs sklearn PN "
          f"{rows[2]['ns_per_row_visit_ratio']:.2f}", flush=True)
    return rows


# --------------------------------------------------------------------------- main

def print_summary(rows):
    hdr = (f"{'size':<6} {'model':<26} {'fit s':>7} {'pred s':>7} {'nodes/tree':>10} {'us/node':>8} "
           f"{'ns/rv':>6} {'peak MB':>8} {'acc':>6} | {'fit x':>6} {'pred x':>6} {'node/t x':>8} "
           f"{'us/node x':>9} {'ns/rv x':>7} {'mem x':>6}")
    print("\nSummary. x = ours / sklearn PN ExtraTrees on the same size; ns/rv = fit ns per row-visit "
          "(fit time / sum of\nrows over internal nodes). PU rows fit a different task (tiny trees): "
          "compare their us/node and ns/rv ratios only.")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        print(f"{r['size']:<6} {r['model']:<26} {r['fit_s']:>7.3f} {r['predict_s']:>7.3f} "
              f"{r['nodes_per_tree_mean']:>10.0f} {r['us_per_node']:>8.3f} {r['ns_per_row_visit']:>6.2f} "
              f"{r['peak_rss_increase_mb']:>8.1f} {r['test_accuracy']:>6.4f} | {r['fit_ratio']:>6.2f} "
              f"{r['predict_ratio']:>6.2f} {r['node_ratio']:>8.2f} {r['us_per_node_ratio']:>9.2f} "
              f"{r['ns_per_row_visit_ratio']:>7.2f} {r['mem_ratio']:>6.2f}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-estimators", type=int, default=10, help="trees per forest (the paper uses 100)")
    ap.add_argument("--n-jobs", type=int, default=2, help="threads for both libraries")
    ap.add_argument("--sizes", default="mnist,tall", help="comma-separated subset of: mnist, tall")
    ap.add_argument("--repeat", type=int, default=1, help="fits per model; the best time is kept")
    ap.add_argument("--synthetic", action="store_true", help="synthetic MNIST-shaped data instead of MNIST")
    ap.add_argument("--no-cold-jit", action="store_true",
                    help="skip measuring the cold numba compile time in a subprocess")
    ap.add_argument("--json", default=None, help="also write the summary as JSON to this path")
    args = ap.parse_args(argv)
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    for s in sizes:
        if s not in ("mnist", "tall"):
            ap.error(f"unknown size {s!r} (use mnist, tall)")
    if args.repeat < 1 or args.n_estimators < 1:
        ap.error("--repeat and --n-estimators must be >= 1")

    import numba
    import sklearn

    load0 = os.getloadavg()
    print(f"python {platform.python_version()}, numpy {np.__version__}, scikit-learn {sklearn.__version__}, "
          f"numba {numba.__version__}; {os.cpu_count()} CPUs, load average {load0[0]:.2f}")
    print(f"n_estimators={args.n_estimators} (the paper uses 100), n_jobs={args.n_jobs}, repeat={args.repeat}")

    t_import, t_jit, source = warm_up(args.n_jobs)
    print(f"JIT warm-up in this process: import pu_lib.trees {t_import:.2f} s, first tiny fit+predict "
          f"{t_jit:.2f} s ({source})")
    cold = (None, None)
    if not args.no_cold_jit:
        cold = cold_jit()
        if cold[0] is not None:
            print(f"cold JIT (fresh interpreter, empty NUMBA_CACHE_DIR): import {cold[0]:.2f} s, "
                  f"compile {cold[1]:.2f} s (one-off per machine / source change)")

    rows = []
    t_all = time.perf_counter()
    cpu0 = _cpu_snapshot()
    for size in sizes:
        rows.extend(run_size(size, args))
    others = _other_cores(cpu0, _cpu_snapshot(), time.perf_counter() - t_all)
    load1 = os.getloadavg()
    print_summary(rows)
    print(f"\ntotal benchmark time {time.perf_counter() - t_all:.1f} s; other processes used on average "
          f"{others:.2f} of {os.cpu_count()} cores meanwhile (well above 0: the machine was shared and "
          f"the timings are inflated); 1-min load average {load0[0]:.2f} at start, {load1[0]:.2f} at end "
          f"(the latter includes this run)")

    if args.json:
        out = {
            "config": {"n_estimators": args.n_estimators, "n_jobs": args.n_jobs, "repeat": args.repeat,
                       "sizes": sizes, "synthetic": args.synthetic, "n_labeled": N_LABELED},
            "versions": {"python": platform.python_version(), "numpy": np.__version__,
                         "sklearn": sklearn.__version__, "numba": numba.__version__},
            "cpu_count": os.cpu_count(),
            "load_average": {"start": load0, "end": load1},
            "other_processes_mean_cores": others,
            "jit": {"import_s": t_import, "warmup_s": t_jit, "warmup_source": source,
                    "cold_import_s": cold[0], "cold_compile_s": cold[1]},
            "rows": rows,
        }
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=2)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
