"""PULSCAR, PULSNAR and DEDPUL with ``tune="cv_logloss"`` (classifier settings chosen by
cross-validated log-loss of ``s``, :mod:`pu_lib.prior.tuning`) against their defaults (the
authors' synthetic-data example settings) and the authors' per-set settings (the
``pulscar_<set>`` / ``pulsnar_<set>`` methods of ``config/papers/pulsnar.yaml``), on the
workflow's own draws of the PULSNAR paper's Figures 3-5: the label sets that
``snakemake pulsnar_figure_3 pulsnar_figure_4 pulsnar_figure_5`` draws (same config seed,
experiment, setting and repetition; :func:`pu_lib.workflow.experiments.runner.make_label_sets`).

Cells: Figure 4 (SCAR sets; PULSCAR per-set / default / tuned, DEDPUL default / tuned),
Figure 5 (SNAR sets; PULSNAR per-set / default / tuned), Figure 3 (synthetic SCAR:
PULSCAR and DEDPUL default / tuned; synthetic SNAR: PULSNAR default / tuned). Every fit
of a cell gets the same ``random_state`` and ``n_jobs``. Run order, so that a partial run
covers every set: alpha by alpha (in the order given), the Figure 4-5 sets for each
seed, then the Figure 3 recipes for each seed; the sets of more than 100,000 rows (CDC
diabetes) after all the others. Each fit records its wall time and its process CPU time (all threads): on a
machine shared with other jobs the wall time is an upper bound and the CPU time the
better measure of the work.

    nice -n 15 python benchmarks/bench_prior_tuning.py --out results/bench/prior_tuning.csv \\
        --seeds 0 1 2 --alphas 0.05 0.2 0.5
    python benchmarks/bench_prior_tuning.py --out results/bench/prior_tuning.csv --summary

One CSV row per fit, appended as it finishes (a rerun skips the fits already in the file),
so that a partial run keeps its results. ``--summary`` prints the Markdown tables: mean
|alpha_hat - alpha| per set and variant, the overall means, and the cost ratio (total fit
seconds, wall and CPU, of the tuned variant over the default's on the same cells).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

FIELDS = ["figure", "experiment", "dataset", "alpha", "seed", "method", "variant", "alpha_true", "alpha_hat",
          "abs_error", "fit_seconds", "cpu_seconds", "tuned_params", "n_rows"]

#: Figure 4 / 5 experiments of config/papers/pulsnar.yaml and their per-set method names
FIG4 = {"pulsnar_scar_magic": "pulscar_magic", "pulsnar_scar_grid": "pulscar_grid",
        "pulsnar_scar_wilt": "pulscar_wilt", "pulsnar_scar_mice": "pulscar_mice",
        "pulsnar_scar_diabetes": "pulscar_diabetes"}
FIG5 = {"pulsnar_snar_anuran": "pulsnar_anuran", "pulsnar_snar_dry_bean": "pulsnar_dry_bean",
        "pulsnar_snar_letter": "pulsnar_letter", "pulsnar_snar_occupancy": "pulsnar_occupancy",
        "pulsnar_snar_shuttle": "pulsnar_shuttle"}
FIG3 = ("pulsnar_synthetic_scar", "pulsnar_synthetic_snar")
LARGE = {"pulsnar_scar_diabetes"}


def _deep_merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        out[k] = _deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def load_grid():
    """The workflow's grid of config/config.yaml with config/papers/pulsnar.yaml merged over it
    (as Snakemake merges ``--configfile``)."""
    import yaml

    from pu_lib.workflow.experiments.config import DEFAULT_SCHEMA, Grid, validate_config

    raw = {}
    for name in ("config/config.yaml", "config/papers/pulsnar.yaml"):
        with open(ROOT / name, encoding="utf-8") as fh:
            raw = _deep_merge(raw, yaml.safe_load(fh) or {})
    config = validate_config(raw, DEFAULT_SCHEMA)
    return config, Grid(config, workdir=ROOT)


def _dataset_path(config, entry):
    from pu_lib.datasets import get_spec, prepare_dataset

    if get_spec(entry["name"])["kind"] == "synthetic":
        return None
    return str(prepare_dataset(entry["name"], data_mirror=ROOT / config["data_mirror"],
                               cache_dir=ROOT / config["cache_dir"], download=False))


def draw(config, grid, experiment, dataset_id, setting_id, seed):
    """``(X, s, y)`` of repetition ``seed`` of a cell, the training rows of the workflow's label set."""
    from pu_lib.workflow.experiments.runner import load_cell_dataset, make_label_sets

    entry = grid.dataset_entry(experiment, dataset_id)
    path = _dataset_path(config, entry)
    spec = grid.label_spec(experiment, dataset_id, setting_id)
    spec["repetitions"] = seed + 1
    labels = make_label_sets(spec, path)
    lab = labels[(labels["rep"] == seed) & (labels["split"] == "train")]
    X, _, _ = load_cell_dataset(entry, path, seed)
    rows = lab["row"].to_numpy()
    return X[rows], lab["s"].to_numpy().astype(np.int64), lab["y"].to_numpy().astype(np.int64)


def cells(config, grid, alphas):
    """``(figure, experiment, dataset_id, setting_id, alpha)`` of every cell, in run order."""
    out = []
    for exp in (*FIG3, *FIG4, *FIG5):
        e = grid.experiments[exp]
        fig = "3" if exp in FIG3 else "4" if exp in FIG4 else "5"
        for did, entry in e["datasets"].items():
            for sid, st in e["settings"].items():
                a = float(entry["params"]["frac"]) if exp in FIG3 else float(st["alpha"])
                if any(abs(a - b) < 1e-9 for b in alphas):
                    out.append((fig, exp, did, sid, a))
    return out


def variants(config, figure, experiment):
    """``[(method, variant, estimator)]`` of a cell's figure."""
    from pu_lib.prior import DEDPUL, PULSCAR, PULSNAR

    out = []
    if figure == "4" or experiment == "pulsnar_synthetic_scar":
        if figure == "4":
            out.append(("PULSCAR", "per_set", PULSCAR(**config["methods"][FIG4[experiment]]["params"])))
        out += [("PULSCAR", "default", PULSCAR()), ("PULSCAR", "tuned", PULSCAR(tune="cv_logloss")),
                ("DEDPUL", "default", DEDPUL()), ("DEDPUL", "tuned", DEDPUL(tune="cv_logloss"))]
    else:
        if figure == "5":
            out.append(("PULSNAR", "per_set", PULSNAR(**config["methods"][FIG5[experiment]]["params"])))
        out += [("PULSNAR", "default", PULSNAR()), ("PULSNAR", "tuned", PULSNAR(tune="cv_logloss"))]
    return out


def _done(path: Path) -> set:
    if not path.exists():
        return set()
    with open(path, newline="") as fh:
        return {(r["experiment"], r["dataset"], r["alpha"], r["seed"], r["method"], r["variant"])
                for r in csv.DictReader(fh)}


def run(args) -> None:
    from pu_lib._seeding import derive_seed

    config, grid = load_grid()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = _done(out)
    new = not out.exists()
    todo = [c for c in cells(config, grid, args.alphas)
            if c[0] in args.figures and (c[1] not in LARGE or args.large)]
    order = [(c, seed) for big in (False, True) for a in args.alphas for group in ("45", "3") for seed in args.seeds
             for c in todo if abs(c[4] - a) < 1e-9 and (c[1] in LARGE) == big
             and group == ("3" if c[0] == "3" else "45")]
    with open(out, "a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        for (fig, exp, did, sid, a), seed in order:
            names = [(m, v) for m, v, _ in variants(config, fig, exp)]
            if all((exp, did, f"{a:g}", str(seed), m, v) in done for m, v in names):
                continue
            X, s, y = draw(config, grid, exp, did, sid, seed)
            alpha_true = float(y[s == 0].mean())
            rs = derive_seed(config["seed"], exp, did, sid, "bench_prior_tuning", seed)
            for method, variant, est in variants(config, fig, exp):
                if (exp, did, f"{a:g}", str(seed), method, variant) in done:
                    continue
                est.set_params(random_state=rs, n_jobs=args.n_jobs)
                t0, c0 = time.perf_counter(), time.process_time()
                est.fit(X, s)
                dt, dc = time.perf_counter() - t0, time.process_time() - c0
                writer.writerow({"figure": fig, "experiment": exp, "dataset": did, "alpha": f"{a:g}", "seed": seed,
                                 "method": method, "variant": variant, "alpha_true": f"{alpha_true:.6f}",
                                 "alpha_hat": f"{est.alpha_:.6f}", "abs_error": f"{abs(est.alpha_ - alpha_true):.6f}",
                                 "fit_seconds": f"{dt:.3f}", "cpu_seconds": f"{dc:.3f}", "tuned_params": getattr(est, "tuned_params_", ""),
                                 "n_rows": X.shape[0]})
                fh.flush()
                print(f"fig {fig} {did} a={a:g} seed={seed} {method}/{variant}: alpha_hat {est.alpha_:.3f} "
                      f"(true {alpha_true:.3f}) {dt:.1f} s ({dc:.1f} s CPU)", flush=True)


def summary(args) -> None:
    import pandas as pd

    # several files (parts run side by side): a fit in more than one keeps its first row
    df = pd.concat([pd.read_csv(f) for f in [args.out, *args.more]], ignore_index=True)
    df = df.drop_duplicates(["experiment", "dataset", "alpha", "seed", "method", "variant"])
    for fig, method in (("4", "PULSCAR"), ("4", "DEDPUL"), ("5", "PULSNAR"), ("3", "PULSCAR"), ("3", "DEDPUL"),
                        ("3", "PULSNAR")):
        d = df[(df["figure"].astype(str) == fig) & (df["method"] == method)]
        if d.empty:
            continue
        # only the cells (set, alpha, seed) where every variant finished
        piv = d.pivot_table(index=["dataset", "alpha", "seed"], columns="variant", values="abs_error")
        cost = d.pivot_table(index=["dataset", "alpha", "seed"], columns="variant", values="fit_seconds")
        cpu = d.pivot_table(index=["dataset", "alpha", "seed"], columns="variant", values="cpu_seconds")
        piv, cost, cpu = piv.dropna(), cost.dropna(), cpu.dropna()
        cols = [c for c in ("per_set", "default", "tuned") if c in piv.columns]
        per_set = piv.groupby(level="dataset")[cols].mean()
        n = piv.groupby(level="dataset").size()
        print(f"\nFigure {fig}, {method}: mean |alpha_hat - alpha| (cells = set x alpha x seed)\n")
        print("| data set | cells | " + " | ".join(cols) + " |")
        print("|---|---|" + "---|" * len(cols))
        for ds, row in per_set.iterrows():
            print(f"| {ds} | {n[ds]} | " + " | ".join(f"{row[c]:.3f}" for c in cols) + " |")
        print(f"| **all** | {len(piv)} | " + " | ".join(f"**{piv[c].mean():.3f}**" for c in cols) + " |")
        tot, tcpu = cost[cols].sum(), cpu[cols].sum()
        print("| total fit s, wall | | " + " | ".join(f"{tot[c]:.0f}" for c in cols) + " |")
        print("| total fit s, CPU | | " + " | ".join(f"{tcpu[c]:.0f}" for c in cols) + " |")
        if "default" in cols and "tuned" in cols:
            print(f"\ncost ratio tuned / default: {tot['tuned'] / tot['default']:.1f}x wall, "
                  f"{tcpu['tuned'] / tcpu['default']:.1f}x CPU"
                  + (f"; tuned / per-set: {tot['tuned'] / tot['per_set']:.1f}x wall, "
                     f"{tcpu['tuned'] / tcpu['per_set']:.1f}x CPU" if "per_set" in cols else ""))
        chosen = d[d["variant"] == "tuned"]["tuned_params"].value_counts()
        print("chosen settings: " + "; ".join(f"{k} x{v}" for k, v in chosen.items()))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="results/bench/prior_tuning.csv")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--alphas", type=float, nargs="+", default=[0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5])
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--figures", nargs="+", default=["3", "4", "5"], choices=["3", "4", "5"],
                    help="the figures whose cells run (default all)")
    ap.add_argument("--no-large", dest="large", action="store_false",
                    help="leave out the sets of more than 100,000 rows (CDC diabetes)")
    ap.add_argument("--summary", action="store_true", help="print the tables of --out and exit")
    ap.add_argument("--more", nargs="*", default=[], help="with --summary: further CSV files of the same cells")
    args = ap.parse_args(argv)
    os.chdir(ROOT)
    summary(args) if args.summary else run(args)


if __name__ == "__main__":
    sys.exit(main())
