"""Which class-prior estimator by default: every registered prior estimator on real data
sets of the local data mirror, SCAR labels at several label frequencies and sizes.

For each data set (its registry ``default`` positive definition), size ``n``, label
frequency ``c`` and seed: a stratified subsample of ``n`` rows (seeded by the seed; a set
with fewer than ``n`` rows but at least ``--min-large`` rows is taken whole for the
largest size, and sizes above the set's row count are otherwise skipped), SCAR labels
``pu_lib.labeling.scar_label_frequency(y, c, random_state=seed)``, and every estimator
of ``pu_lib.workflow.registry.names("prior")`` with its registry defaults, ``random_state=seed``
and ``n_jobs=1``, as a user would make it (``make_estimator``): KM1 / KM2 take at most
2,000 rows (their default), PULSNAR / PULSCAR / DEDPUL every row. The error is that of
the population prior in the single-training-set scenario,
``|population_prior(est, "single_training_set") - y.mean()|`` (``prior_``, the prior of
the whole sample; docs/class_priors.md). KM1 and KM2 are one fit (the kernel distance
curve gives both thresholds; ``kappa_``): the ``km2`` fit is timed once and the ``km1``
row takes its alpha ``kappa_["km1"]`` and the same time. A cell with fewer than
``--min-labeled`` labeled rows is not run (listed as skipped).

Coverage: on the cells of ``--coverage-sizes`` x ``--coverage-c`` x ``--coverage-seeds``,
``pu_lib.prior.bootstrap_ci(est, X, s, n_resamples=B, random_state=seed)`` (its default
stratified half-sampling, 95% percentile interval), and whether the ``prior`` interval
contains the true prior.

Every finished fit is one row of ``<out>/cells.csv`` (one per dataset, n, c, seed,
estimator) and every interval one row of ``<out>/coverage.csv``; both are rewritten
atomically (temporary file, then ``os.replace``) after each cell, and a rerun skips the
rows already there, so a run can be stopped, resumed and extended (more seeds, sets or
sizes). Fits record wall and process CPU seconds: on a machine shared with other jobs the
wall time is an upper bound. ``--summary`` only prints the tables (also written to
``<out>/summary.md``) from the files.

    OMP_NUM_THREADS=1 nohup python benchmarks/bench_prior_default.py > results/prior_default/run.log 2>&1 &
    python benchmarks/bench_prior_default.py --summary

Usage: ``python benchmarks/bench_prior_default.py [--datasets NAME ...] [--sizes 300 3000 20000]
[--c 0.1 0.3 0.5] [--seeds 0 1 2] [--estimators tice pulscar ...] [--max-size NAME=N ...]
[--coverage-sizes 300] [--coverage-c 0.3] [--coverage-seeds 0] [--coverage-datasets NAME ...]
[--coverage-estimators NAME ...] [--n-resamples 20] [--min-labeled 10] [--min-large 10000]
[--budget SECONDS] [--total-budget SECONDS] [--out DIR]
[--data-mirror DIR] [--summary]``
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

#: (name, kind) of the default data sets: tabular, one-hot categorical, image, text, DNA;
#: priors from 0.02 to 0.95 (registry "default" positive definitions)
DATASETS = {
    "mammography_odds": "tabular (6 numeric), medical",
    "shuttle_odds": "tabular (9 numeric)",
    "ijcnn1": "tabular (22 numeric)",
    "adult": "tabular mixed, one-hot (104)",
    "satellite_odds": "image: Landsat pixel neighbourhoods (36)",
    "newsgroups20_bow200": "text: 200-word bag of words",
    "mushroom": "categorical, one-hot (111)",
    "splice": "DNA sequence, one-hot (240)",
    "mnist": "image: 28x28 pixels (784)",
    "unsw_nb15_testing_set": "network traffic, mixed one-hot (190)",
    "electrical_grid_stability": "tabular (12 numeric) simulation",
    "magic_gamma": "tabular (10 numeric) physics",
    "wilt_odds": "tabular (5 features of satellite image segments)",
}
#: the largest size run on a set where the full grid costs too much on one core
MAX_SIZE = {"mnist": 3000}

CELL_FIELDS = ["dataset", "n", "n_features", "c", "seed", "n_labeled", "true_prior", "estimator", "status",
               "prior_hat", "alpha_hat", "c_hat", "abs_error", "fit_seconds", "cpu_seconds", "error"]
COV_FIELDS = ["dataset", "n", "c", "seed", "estimator", "n_resamples", "true_prior", "prior_hat", "low", "high",
              "covers", "status", "seconds", "error"]


def read_rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def write_rows(path: Path, rows: list[dict], fields: list[str]) -> None:
    """Rewrite ``path`` atomically: a temporary file in the same folder, then ``os.replace``."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)


def sizes_for(n_rows: int, sizes: list[int], min_large: int, cap: int | None) -> list[int]:
    """The sizes run on a set of ``n_rows`` rows: every size up to ``n_rows``; the whole set
    in place of the largest size when ``min_large <= n_rows < max(sizes)``."""
    out = [n for n in sizes if n <= n_rows and (cap is None or n <= cap)]
    if n_rows < max(sizes) and n_rows >= min_large and (cap is None or n_rows <= cap) and n_rows not in out:
        out.append(n_rows)
    return out


def subsample(y, n, seed):
    """Row indices of a stratified subsample of ``n`` rows (all rows when ``n >= len(y)``)."""
    if n >= y.shape[0]:
        return np.arange(y.shape[0])
    from sklearn.model_selection import train_test_split

    idx, _ = train_test_split(np.arange(y.shape[0]), train_size=n, stratify=y, random_state=seed)
    return np.sort(idx)


def fit_cell(name, X, s, seed):
    """Fit registry estimator ``name``; returns (estimator, wall s, cpu s)."""
    from pu_lib.workflow import registry

    est = registry.make_estimator(name, kind="prior", random_state=seed, n_jobs=1)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, s)
    return est, time.perf_counter() - t0, time.process_time() - c0


def run(args) -> None:
    from pu_lib.workflow import registry
    from pu_lib.datasets import load_dataset
    from pu_lib.labeling import scar_label_frequency
    from pu_lib.prior import bootstrap_ci, population_prior, prior_from_alpha

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cells_path, cov_path = out / "cells.csv", out / "coverage.csv"
    cells, cov = read_rows(cells_path), read_rows(cov_path)
    key = lambda r: (r["dataset"], int(r["n"]), float(r["c"]), int(r["seed"]), r["estimator"])  # noqa: E731
    done = {key(r) for r in cells}
    cov_done = {key(r) for r in cov}
    estimators = args.estimators or registry.names("prior")
    t_start = time.perf_counter()
    over = lambda: args.budget is not None and time.perf_counter() - t_start > args.budget  # noqa: E731
    cov_over = lambda: (args.total_budget is not None  # noqa: E731
                        and time.perf_counter() - t_start > args.total_budget)
    max_size = dict(MAX_SIZE)
    for item in args.max_size:
        k, v = item.split("=")
        max_size[k] = int(v)

    data = {}

    def load(name):
        if name not in data:
            ds = load_dataset(name, data_mirror=Path(args.data_mirror))
            y = ds.binary_target("default")
            keep = y >= 0
            data[name] = (ds.X[keep], y[keep].astype(np.int64))
        return data[name]

    def labels(name, n, c, seed):
        X, y = load(name)
        rows = subsample(y, n, seed)
        Xn, yn = X[rows], y[rows]
        s = np.asarray(scar_label_frequency(yn, c=c, random_state=seed).s, dtype=np.int64)
        return Xn, yn, s

    def grid(names, sizes, cs, seeds, cap=True):
        for name in names:
            X, y = load(name)
            for n in sizes_for(y.shape[0], sizes, args.min_large, max_size.get(name) if cap else None):
                for c in cs:
                    for seed in seeds:
                        yield name, n, c, seed

    # --- point estimates: seed by seed, and within a seed the cheapest sizes first, so that a
    # partial run covers every set and size with fewer seeds
    rank = lambda n: args.sizes.index(n) if n in args.sizes else len(args.sizes) - 1  # noqa: E731
    order = {d: i for i, d in enumerate(args.datasets)}
    for name, n, c, seed in sorted(grid(args.datasets, args.sizes, args.c, args.seeds),
                                   key=lambda g: (g[3], rank(g[1]), order[g[0]], g[2])):
        todo = [e for e in estimators if (name, n, c, seed, e) not in done]
        if not todo:
            continue
        if over():
            print("--budget spent: no more point estimates", flush=True)
            break
        Xn, yn, s = labels(name, n, c, seed)
        n_lab, true = int(s.sum()), float(yn.mean())
        base = dict(dataset=name, n=n, n_features=Xn.shape[1], c=c, seed=seed, n_labeled=n_lab, true_prior=true)
        if n_lab < args.min_labeled:
            for e in todo:
                cells.append({**base, "estimator": e, "status": "skipped",
                              "error": f"{n_lab} labeled rows < --min-labeled {args.min_labeled}"})
            write_rows(cells_path, cells, CELL_FIELDS)
            done.update((name, n, c, seed, e) for e in todo)
            continue
        km = None
        for e in todo:
            row = dict(base, estimator=e)
            try:
                if e == "km1" and "km2" in estimators:
                    if km is None:
                        km = fit_cell("km2", Xn, s, seed)
                    est, wall, cpu = km
                    alpha = float(np.clip(est.kappa_["km1"], 0.0, 1.0))
                    p = prior_from_alpha(alpha, est.labeled_fraction_)
                    vals = (p, alpha, est.labeled_fraction_ / p)
                else:
                    if e == "km2" and km is not None:
                        est, wall, cpu = km
                    else:
                        est, wall, cpu = fit_cell(e, Xn, s, seed)
                        if e == "km2":
                            km = (est, wall, cpu)
                    vals = (population_prior(est, "single_training_set"), est.alpha_, est.c_)
                row.update(status="ok", prior_hat=f"{vals[0]:.6f}", alpha_hat=f"{vals[1]:.6f}",
                           c_hat=f"{vals[2]:.6f}", abs_error=f"{abs(vals[0] - true):.6f}",
                           fit_seconds=f"{wall:.4f}", cpu_seconds=f"{cpu:.4f}", error="")
            except Exception as exc:  # a failure is a result: recorded, not retried
                row.update(status="error", error=f"{type(exc).__name__}: {str(exc)[:200]}")
            cells.append(row)
            print(f"{name:<31} n={n:>6} c={c:.1f} seed={seed} {e:<17} "
                  + (f"prior {float(row['prior_hat']):.3f} (true {true:.3f}) {float(row['fit_seconds']):7.2f} s"
                     if row["status"] == "ok" else row["error"][:100]), flush=True)
        write_rows(cells_path, cells, CELL_FIELDS)
        done.update((name, n, c, seed, e) for e in todo)

    # --- coverage of the bootstrap percentile interval of the prior
    cov_names = args.coverage_datasets or args.datasets
    cov_est = args.coverage_estimators or estimators
    cov_grid = sorted(grid(cov_names, args.coverage_sizes, args.coverage_c, args.coverage_seeds, cap=False),
                      key=lambda g: (rank(g[1]), g[3], order.get(g[0], 0), g[2]))
    for name, n, c, seed in cov_grid:
        todo = [e for e in cov_est if (name, n, c, seed, e) not in cov_done]
        if not todo:
            continue
        Xn, yn, s = labels(name, n, c, seed)
        if int(s.sum()) < args.min_labeled:
            continue
        true = float(yn.mean())
        for e in todo:
            if cov_over():
                print("--total-budget spent: no more intervals", flush=True)
                return
            row = dict(dataset=name, n=n, c=c, seed=seed, estimator=e, n_resamples=args.n_resamples,
                       true_prior=true)
            t0 = time.perf_counter()
            try:
                est = registry.make_estimator(e, kind="prior", random_state=seed, n_jobs=1)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = bootstrap_ci(est, Xn, s, n_resamples=args.n_resamples, random_state=seed, n_jobs=1)
                row.update(prior_hat=f"{r.prior.estimate:.6f}", low=f"{r.prior.low:.6f}", high=f"{r.prior.high:.6f}",
                           covers=int(r.prior.low <= true <= r.prior.high), status="ok", error="")
            except Exception as exc:
                row.update(status="error", error=f"{type(exc).__name__}: {str(exc)[:200]}")
            row["seconds"] = f"{time.perf_counter() - t0:.2f}"
            cov.append(row)
            cov_done.add((name, n, c, seed, e))
            write_rows(cov_path, cov, COV_FIELDS)
            print(f"coverage {name:<31} n={n:>6} c={c:.1f} seed={seed} {e:<17} "
                  + (f"[{float(row['low']):.3f}, {float(row['high']):.3f}] true {true:.3f} covers={row['covers']}"
                     if row["status"] == "ok" else row["error"][:100]) + f" {row['seconds']} s", flush=True)


def size_group(n: int) -> str:
    return "300" if n <= 300 else ("3,000" if n <= 3000 else "large")


def summary(args) -> str:
    import pandas as pd

    out = Path(args.out)
    cells = pd.read_csv(out / "cells.csv") if (out / "cells.csv").exists() else pd.DataFrame(columns=CELL_FIELDS)
    cov = pd.read_csv(out / "coverage.csv") if (out / "coverage.csv").exists() else pd.DataFrame(columns=COV_FIELDS)
    lines = []
    ran = cells[cells.status != "skipped"].copy()
    ok = ran[ran.status == "ok"].copy()
    ok["size"] = ok.n.map(size_group)
    from pu_lib.workflow import registry

    present = set(ran.estimator) | set(cov.estimator)
    order = [e for e in (args.estimators or registry.names("prior")) if e in present]
    cell_key = ["dataset", "n", "c", "seed"]
    n_ok = ok.groupby(cell_key).estimator.transform("nunique")
    common = ok[n_ok == len(order)]
    covok = cov[cov.status == "ok"] if len(cov) else cov
    cov_sizes = sorted(covok.n.unique()) if len(covok) else []
    n_skipped = len(cells[cells.status == "skipped"].groupby(cell_key))
    lines.append(f"{ok.dataset.nunique()} data sets, {len(ran.groupby(cell_key))} cells "
                 f"(dataset x n x c x seed) run, {n_skipped}"
                 f" skipped (< {args.min_labeled} labeled rows); {len(covok)} intervals; "
                 f"{len(common.groupby(cell_key))} cells where every estimator returned an estimate.\n")
    lines.append("| estimator | cells | failed | MAE of the prior | MAE, cells where all ran | median abs. error | "
                 "mean bias | coverage of the 95% interval, n = " + " / ".join(f"{m:,}" for m in cov_sizes)
                 + " | median fit s, 300 / 3,000 / large | median CPU s, large |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for e in order:
        r, o = ran[ran.estimator == e], ok[ok.estimator == e]
        bias = (o.prior_hat - o.true_prior).mean()
        med = [o[o["size"] == g].fit_seconds.median() for g in ("300", "3,000", "large")]
        cpu_large = o[o["size"] == "large"].cpu_seconds.median()
        cv = covok[covok.estimator == e] if len(covok) else covok
        cvs = " / ".join(f"{g.covers.mean():.2f} ({int(g.covers.sum())}/{len(g)})" if len(g) else "-"
                         for g in (cv[cv.n == m] for m in cov_sizes)) if len(cov_sizes) else "-"
        lines.append(f"| {e} | {len(r)} | {int((r.status == 'error').sum())} | {o.abs_error.mean():.3f} | "
                     f"{common[common.estimator == e].abs_error.mean():.3f} | {o.abs_error.median():.3f} | "
                     f"{bias:+.3f} | {cvs} | "
                     + " / ".join(f"{m:.2f}" if m == m else "-" for m in med)
                     + f" | {cpu_large:.2f} |")

    def pivot(by, title, fmt="{:.3f}"):
        t = ok.pivot_table(index=by, columns="estimator", values="abs_error", aggfunc="mean")
        t = t[[e for e in order if e in t.columns]]
        if by == "size":
            t = t.loc[[g for g in ("300", "3,000", "large") if g in t.index]]
        lines.append(f"\n{title}\n")
        lines.append("| " + " | ".join(([by] if isinstance(by, str) else by) + list(t.columns)) + " |")
        lines.append("|" + "---|" * (t.shape[1] + (1 if isinstance(by, str) else len(by))) + "")
        for idx, row in t.iterrows():
            idx = idx if isinstance(idx, tuple) else (idx,)
            best = row.min()
            cells_ = [("**" + fmt.format(v) + "**" if v == best else fmt.format(v)) if v == v else "-" for v in row]
            lines.append("| " + " | ".join(str(i) for i in idx) + " | " + " | ".join(cells_) + " |")

    prior_of = ok.groupby("dataset").true_prior.mean()
    ok["data set (prior)"] = ok.dataset.map(lambda d: f"{d} ({prior_of[d]:.2f})")
    pivot("data set (prior)", "MAE of the prior per data set (all sizes, c, seeds; best in bold):")
    pivot("size", "MAE per size (300 / 3,000 / large = 20,000 rows, or the whole set of 10,000-19,999 rows):")
    pivot("c", "MAE per label frequency c:")
    if len(covok):
        t = covok.pivot_table(index=["dataset", "n"], columns="estimator", values="covers", aggfunc="mean")
        t = t[[e for e in order if e in t.columns]]
        lines.append("\nCoverage per data set and size (fraction of intervals containing the true prior):\n")
        lines.append("| dataset | n | " + " | ".join(t.columns) + " |")
        lines.append("|" + "---|" * (t.shape[1] + 2))
        for (d, m), row in t.iterrows():
            lines.append(f"| {d} | {m:,} | " + " | ".join(f"{v:.2f}" if v == v else "-" for v in row) + " |")
    err = ran[ran.status == "error"]
    if len(err):
        lines.append("\nFailures:\n")
        for (e, d, msg), g in err.groupby(["estimator", "dataset", err.error.str.slice(0, 120)]):
            lines.append(f"- {e} on {d}: {len(g)} cells: {msg}")
    # the full cube: estimator x dataset x c x size
    cube = ok.groupby(["estimator", "dataset", "n", "c"]).abs_error.agg(["mean", "count"]).reset_index()
    cube.to_csv(out / "summary_cells.csv", index=False)
    text = "\n".join(lines)
    (out / "summary.md").write_text(text + "\n")
    return text


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--datasets", nargs="+", default=list(DATASETS))
    p.add_argument("--sizes", nargs="+", type=int, default=[300, 3000, 20000])
    p.add_argument("--c", nargs="+", type=float, default=[0.1, 0.3, 0.5])
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--estimators", nargs="+", default=None, help="registry names (default: all of kind prior)")
    p.add_argument("--max-size", nargs="*", default=[], metavar="NAME=N",
                   help=f"largest size per set (default {MAX_SIZE})")
    p.add_argument("--coverage-sizes", nargs="+", type=int, default=[300])
    p.add_argument("--coverage-c", nargs="+", type=float, default=[0.3])
    p.add_argument("--coverage-seeds", nargs="+", type=int, default=[0])
    p.add_argument("--coverage-datasets", nargs="*", default=None)
    p.add_argument("--coverage-estimators", nargs="*", default=None, help="default: --estimators")
    p.add_argument("--n-resamples", type=int, default=20)
    p.add_argument("--min-labeled", type=int, default=10)
    p.add_argument("--min-large", type=int, default=10000)
    p.add_argument("--budget", type=float, default=None,
                   help="start no point-estimate cell after this many seconds (then the intervals)")
    p.add_argument("--total-budget", type=float, default=None,
                   help="start no interval after this many seconds from the start")
    p.add_argument("--out", default=str(ROOT / "results" / "prior_default"))
    p.add_argument("--data-mirror", default=os.environ.get("PU_LIB_DATA_MIRROR", "/work/shared/datasets"))
    p.add_argument("--summary", action="store_true", help="only print the tables from the files")
    args = p.parse_args(argv)
    args.sizes = sorted(args.sizes)
    if not args.summary:
        run(args)
    print(summary(args))


if __name__ == "__main__":
    sys.exit(main())
