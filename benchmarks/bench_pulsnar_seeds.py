"""Benchmark: the seed-to-seed distribution of PULSNAR's (and PULSCAR's) estimate on the
PULSNAR paper's synthetic SNAR recipe (:func:`pu_lib.datasets.synthetic.make_pulsnar_snar`),
to size the thresholds of the accuracy tests from evidence rather than from lucky seeds.

For every ``--alphas`` value and seed in ``--seeds``, one draw of the recipe (seed = the
draw's and the estimator's ``random_state``), then ``PULSNAR()`` and ``PULSCAR()`` with
their defaults (the authors' synthetic-data example settings). Prints one line per draw
(alpha_hat, error, clusters found, fit seconds) and per alpha the mean, sd and standard
error of alpha_hat over the seeds, the mean absolute error, and the largest mean over any
``--k`` consecutive seeds minus alpha (the quantity a k-seed test bounds).

Sizes: the default is the paper's recipe, 400 labeled per subclass (5 subclasses), 6,000
unlabeled, 50 features. Smaller draws are cheaper but lose the property the tests check:
at 200 labeled per subclass and 3,000 unlabeled, seed 0 at alpha 0.5 gave one GMM cluster
(PULSNAR 0.384); at 100 and 1,500 with 10 features, seeds 0-2 gave 0.304 / 0.261 / 0.307,
barely above PULSCAR (0.243 / 0.224 / 0.279).

Usage: ``python benchmarks/bench_pulsnar_seeds.py [--alphas 0.3 0.5] [--seeds 0-19]
[--n-labeled-per-subclass 400] [--n-unlabeled 6000] [--n-features 50] [--n-jobs 2] [--k 3]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _seeds(text: str) -> list[int]:
    if "-" in text:
        a, b = text.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in text.split(",")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--alphas", type=float, nargs="+", default=[0.3, 0.5])
    ap.add_argument("--seeds", type=_seeds, default=list(range(20)))
    ap.add_argument("--n-labeled-per-subclass", type=int, default=400)
    ap.add_argument("--n-unlabeled", type=int, default=6000)
    ap.add_argument("--n-features", type=int, default=50)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--k", type=int, default=3, help="window of consecutive seeds for the k-seed mean")
    ap.add_argument("--no-pulscar", action="store_true", help="skip PULSCAR")
    args = ap.parse_args(argv)

    from pu_lib.datasets.synthetic import make_pulsnar_snar
    from pu_lib.prior import PULSCAR, PULSNAR

    print(f"recipe: {args.n_labeled_per_subclass} labeled per subclass x 5, {args.n_unlabeled} unlabeled, "
          f"{args.n_features} features; seeds {args.seeds[0]}..{args.seeds[-1]}; n_jobs {args.n_jobs}")
    for alpha in args.alphas:
        rows = []
        for seed in args.seeds:
            ds = make_pulsnar_snar(alpha, n_labeled_per_subclass=args.n_labeled_per_subclass,
                                   n_unlabeled=args.n_unlabeled, n_features=args.n_features, random_state=seed)
            X, s = ds.X, ds.meta["recipe_s"].to_numpy()
            t0 = time.perf_counter()
            est = PULSNAR(random_state=seed, n_jobs=args.n_jobs).fit(X, s)
            t_snar = time.perf_counter() - t0
            a_car, t_car = float("nan"), float("nan")
            if not args.no_pulscar:
                t0 = time.perf_counter()
                a_car = PULSCAR(random_state=seed, n_jobs=args.n_jobs).fit(X, s).alpha_
                t_car = time.perf_counter() - t0
            rows.append((seed, est.alpha_, est.n_clusters_, t_snar, a_car, t_car))
            print(f"alpha {alpha} seed {seed:3d}: PULSNAR {est.alpha_:.3f} (error {est.alpha_ - alpha:+.3f}, "
                  f"{est.n_clusters_} clusters, {t_snar:.1f} s)  PULSCAR {a_car:.3f} ({t_car:.1f} s)", flush=True)
        a = np.array([r[1] for r in rows])
        c = np.array([r[4] for r in rows])
        n = a.size
        sd = a.std(ddof=1) if n > 1 else float("nan")
        k = min(args.k, n)
        window = np.convolve(a - alpha, np.ones(k) / k, mode="valid")
        print(f"alpha {alpha}: PULSNAR mean {a.mean():.3f} sd {sd:.3f} se {sd / np.sqrt(n):.3f} "
              f"mean |error| {np.abs(a - alpha).mean():.3f} min {a.min():.3f} max {a.max():.3f}; "
              f"mean error of {k} consecutive seeds from {window.min():+.3f} to {window.max():+.3f}; "
              f"PULSCAR mean {np.nanmean(c):.3f}; PULSNAR > PULSCAR on {int(np.sum(a > c))} of {n} draws; "
              f"clusters {sorted(int(r[2]) for r in rows)}")


if __name__ == "__main__":
    main()
