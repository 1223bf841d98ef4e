"""Benchmark: forest fit time on a Dask LocalCluster of 1, 2 and 4 workers.

One run fits the same PU Extra Trees forest (nnPU, quadratic loss, F = ceil(sqrt d), the
paper's protocol: 1,000 labeled positives, every training row unlabeled, the true prior)
on a LocalCluster of ``--workers`` single-threaded worker processes (what a workflow
``fit_eval`` job starts: :func:`pu_lib.distributed.dask_client`) and prints, per worker
count:

* the fit wall time (best of ``--repeat``), and the speed-up over 1 worker;
* the peak resident memory of every worker process (``ru_maxrss``), which stays bounded
  because ``X`` is sent once and each task receives only its chunk of tree seeds. On a
  LocalCluster, ``X`` (above 8 MiB) is one shared-memory file mapped by every worker
  (:class:`pu_lib.distributed.SharedArray`): its pages count in each worker's resident
  memory but exist once on the machine;
* the first fit on fresh workers (which includes sending ``X``), beside the best;
* a check that the forest is identical for every worker count (same predictions).

The natural reference is the same forest on local threads (``n_jobs`` = 1 and 2, no
Dask), printed on the first lines: Dask's overhead is the difference.

Data: the real MNIST training set (60,000 x 784, positive = even digit) from the data
mirror (``--mirror``, default ``../shared/datasets`` beside the repository), or with
``--synthetic`` (or when the mirror has no MNIST) ``make_classification(60000, 100)``.

Run: ``python benchmarks/bench_scaling.py [--n-estimators 40] [--workers 1 2 4] [--repeat 1]``.
A worker count above the machine's cores oversubscribes them (4 workers on 2 cores: no
gain expected; printed so the cost of oversubscription is visible).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _timing import make_pu, timed  # noqa: E402


def load(mirror: Path, synthetic: bool):
    path = mirror / "mnist.parquet"
    if not synthetic and path.exists():
        import pandas as pd

        df = pd.read_parquet(path)
        pix = [c for c in df.columns if c.startswith("pixel")]
        X = np.ascontiguousarray(df[pix].to_numpy(dtype=np.float32)[:60_000])
        y = (df["target"].to_numpy()[:60_000] % 2 == 0).astype(np.int64)
        return X, y, f"MNIST training set ({path}), 60,000 x 784"
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=60_000, n_features=100, n_informative=30, random_state=0)
    return np.ascontiguousarray(X, dtype=np.float32), y.astype(np.int64), "make_classification(60000, 100)"


def warm_up():
    """Load the compiled tree builder in a worker (numba cache) on a tiny random table, so
    that the JIT load is not timed and no large data travels with the warm-up."""
    from pu_lib.trees import PUExtraTreesClassifier

    rng = np.random.default_rng(0)
    Xw = rng.random((500, 8)).astype(np.float32)
    PUExtraTreesClassifier(n_estimators=2, prior=0.5, random_state=0, use_dask=False).fit(Xw, (Xw[:, 0] > 0.7))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n-estimators", type=int, default=40)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--mem-mb", type=int, default=16000, help="memory of the LocalCluster, split over its workers")
    ap.add_argument("--mirror", type=Path, default=HERE.parent.parent / "shared" / "datasets")
    ap.add_argument("--synthetic", action="store_true")
    args = ap.parse_args(argv)

    from pu_lib._logging import Progress
    from pu_lib.distributed import dask_client, worker_peak_rss_mb
    from pu_lib.trees import PUExtraTreesClassifier

    X, y, desc = load(args.mirror, args.synthetic)
    s = make_pu(y, 1000)
    prior = float(y.mean())
    print(f"data: {desc}; PU Extra Trees, {args.n_estimators} trees, nnPU quadratic, prior {prior:.3f}, "
          f"{os.cpu_count()} cores")

    def forest(n_jobs=None, use_dask=False):
        return PUExtraTreesClassifier(n_estimators=args.n_estimators, prior=prior, random_state=0, n_jobs=n_jobs,
                                      use_dask=use_dask)

    warm_up()
    progress = Progress(2 + len(args.workers), "bench_scaling", unit="runs", terminal=sys.stderr)
    rows, reference, firsts = [], None, {}
    for n_jobs in (1, 2):
        secs, est = timed(lambda: forest(n_jobs, False).fit(X, s), args.repeat)
        pred = est.predict_proba(X[:5000])[:, 1]
        reference = pred if reference is None else reference
        rows.append((f"threads n_jobs={n_jobs} (no Dask)", secs, None, bool(np.array_equal(pred, reference))))
        progress.update()
    base = None
    for n in args.workers:
        with dask_client(threads=n, mem_mb=args.mem_mb, processes=True) as client:
            client.run(warm_up)
            first, est = timed(lambda: forest(None, True).fit(X, s), 1)  # X goes to fresh workers
            secs = first
            if args.repeat > 1:
                secs, est = timed(lambda: forest(None, True).fit(X, s), args.repeat - 1)
                secs = min(secs, first)
            peaks = sorted(worker_peak_rss_mb(client).values())
        firsts[n] = first
        pred = est.predict_proba(X[:5000])[:, 1]
        base = secs if base is None else base
        rows.append((f"Dask LocalCluster, {n} worker{'s' * (n > 1)}", secs, peaks, bool(np.array_equal(pred, reference))))
        progress.update()
    print()
    print("| run | fit wall s | speed-up vs 1 worker | peak RSS per worker (MB) | same forest |")
    print("|---|---|---|---|---|")
    one = next((r[1] for r in rows if r[0].endswith(" 1 worker")), None)
    for name, secs, peaks, same in rows:
        speed = f"{one / secs:.2f}x" if one and peaks is not None else "-"
        mem = ", ".join(f"{p:.0f}" for p in peaks) if peaks is not None else "-"
        print(f"| {name} | {secs:.2f} | {speed} | {mem} | {'yes' if same else 'NO'} |")
    if 1 in firsts:
        print()
        print("first fit on fresh workers (includes sending X): "
              + ", ".join(f"{n} worker{'s' * (n > 1)} {t:.2f} s ({firsts[1] / t:.2f}x)" for n, t in firsts.items()))


if __name__ == "__main__":
    main()
