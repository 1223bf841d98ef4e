"""Run the PULSNAR authors' code (Kumar & Lambert 2024, ``unmtransinfo/PULSNAR``) on one
``.npz`` data set, with the settings of their synthetic-data example scripts, and print one
JSON line ``{"mode", "alpha", "seconds", "cpu_seconds", "n_clusters"}`` (wall and
process CPU time of the ``pulsnar()`` call). Used by ``bench_priors.py
--authors-python`` to time and compare their code beside ours on the same data.

Setup (outside this repository; their code is not vendored)::

    git clone https://github.com/unmtransinfo/PULSNAR /tmp/PULSNAR
    python -m venv /tmp/pulsnar-venv
    /tmp/pulsnar-venv/bin/pip install numpy scipy scikit-learn xgboost pyyaml matplotlib threadpoolctl
    /tmp/pulsnar-venv/bin/python benchmarks/authors_pulsnar.py DATA.npz pulsnar --src /tmp/PULSNAR

``DATA.npz``: ``X`` (n x d floats), ``s`` (1 = labeled positive, 0 = unlabeled).

* ``pulscar``: their ``examples/pulscar_syn_alpha_estimation_1.py`` settings (scar=True,
  XGBoost, ``bin_method='rice'``, ``bw_method='hist'``, bandwidths 0.05-0.5,
  ``optim='local'``, 5 folds) with ``testparams/pulscar_synthetic_alpha.yaml``;
* ``pulsnar``: ``examples/pulsnar_syn_alpha_estimation.py`` (scar=False, GMM up to 10
  clusters, full covariance, all important features, Rice bins, bandwidths 0.015-0.5,
  local search, 5 folds) with ``testparams/pulsnar_synthetic_alpha.yaml``.

``--make-data ALPHA SEED`` writes ``DATA.npz`` instead (``X``, ``s``, ``y`` = 1 for a true
positive): a draw of the authors' own generator (``pudata.SimulatedData``, the example's sizes:
2,000 labeled, 6,000 unlabeled, 50 features, ``class_sep`` 0.3; SNAR with five positive
subclasses for ``pulsnar``, SCAR for ``pulscar``) with ``rseed=SEED`` (the paper: "random
seeds 0-39"), shuffled with ``random_state=SEED``, and prints the true alpha and the value of
their results spreadsheet (``PULSNAR_paper_results.xlsx``, sheet ``SNAR_synthetic`` /
``SCAR_synthetic``, iteration SEED) when pandas can read it (openpyxl).

``--n-jobs`` overrides the YAML's XGBoost ``n_jobs`` (16 there). As in their examples the rows
are shuffled (``random_state=0``; ``--shuffle-seed``) before ``pulsnar()`` is called; ``seconds`` is the wall time
of that call only. Their module ``AlphaEstimate`` imports ``rpy2`` for R bandwidth rules that
these settings never call; without rpy2 (which needs R) an inert stand-in module is
registered. Their code writes result files relative to the working directory, so it runs in
a temporary directory.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
import time
import types

import numpy as np

EXAMPLE = {
    "pulscar": dict(scar=True, bin_method="rice", lowerbw=0.05, upperbw=0.5),
    "pulsnar": dict(scar=False, n_clusters=0, max_clusters=10, covar_type="full", top50p_covars=False,
                    bin_method="rice", lowerbw=0.015, upperbw=0.5),
}
COMMON = dict(csrdata=False, classifier="xgboost", bw_method="hist", optim="local", calibration=False,
              classification_metrics=False, n_iterations=1, kfold=5, kflips=1)


def _inert_rpy2() -> None:
    """Register a stand-in ``rpy2`` (only the names their module imports) if rpy2 is absent."""
    import importlib

    try:
        importlib.import_module("rpy2.robjects")
        return
    except Exception:  # noqa: BLE001 - any import failure (no R, no package)
        pass

    def _no_r(*_a, **_k):
        raise RuntimeError("R bandwidth rules need rpy2 and R; the example settings do not use them")

    root, robjects = types.ModuleType("rpy2"), types.ModuleType("rpy2.robjects")
    packages, numpy2ri = types.ModuleType("rpy2.robjects.packages"), types.ModuleType("rpy2.robjects.numpy2ri")
    packages.importr = _no_r
    numpy2ri.activate = numpy2ri.deactivate = lambda: None
    robjects.packages, robjects.numpy2ri, root.robjects = packages, numpy2ri, robjects
    sys.modules.update({"rpy2": root, "rpy2.robjects": robjects, "rpy2.robjects.packages": packages,
                        "rpy2.robjects.numpy2ri": numpy2ri})


def run(data: str, mode: str, src: str, n_jobs: int | None = None, shuffle_seed: int = 0) -> dict:
    import yaml
    from sklearn.utils import shuffle

    src = _setup(src)
    from PULSNAR import PULSNAR

    yaml_path = os.path.join(src, "examples", "testparams", f"{mode}_synthetic_alpha.yaml")
    with open(yaml_path) as fh:
        config = yaml.safe_load(fh)
    if n_jobs is not None:
        config["XGB_params"]["n_jobs"] = int(n_jobs)
    d = np.load(data)
    X, s = np.asarray(d["X"], dtype=float), np.asarray(d["s"]).astype(int)
    work, cwd = tempfile.mkdtemp(prefix="authors_pulsnar_"), os.getcwd()
    try:
        os.chdir(work)
        os.makedirs("results")
        with open("params.yaml", "w") as fh:
            yaml.safe_dump(config, fh)
        est = PULSNAR.PULSNARClassifier(**EXAMPLE[mode], **COMMON, pulsnar_params_file="params.yaml")
        Xs, ss, ids = X, s, np.arange(s.shape[0])
        if shuffle_seed >= 0:
            Xs, ss, ids = shuffle(Xs, ss, ids, random_state=shuffle_seed)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            t0, c0 = time.perf_counter(), time.process_time()
            res = est.pulsnar(Xs, ss, tru_label=ss.copy(), rec_list=ids)
            seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        os.chdir(cwd)
        shutil.rmtree(work, ignore_errors=True)
    out = {"mode": mode, "alpha": float(res["estimated_alpha"]), "seconds": round(seconds, 3),
           "cpu_seconds": round(cpu, 3)}
    m = re.search(r"Number of clusters in the positive set:\s*(\d+)", printed.getvalue())
    if m:
        out["n_clusters"] = int(m.group(1))
    return out


def _setup(src: str) -> str:
    src = os.path.abspath(src)
    sys.path.insert(0, src)
    _inert_rpy2()
    return src


def sheet_value(src: str, mode: str, alpha: float, seed: int):
    """The results spreadsheet's estimate for (mode's method, alpha, iteration ``seed``), or None."""
    try:
        import pandas as pd

        sheet = pd.read_excel(os.path.join(src, "PULSNAR_paper_results.xlsx"),
                              sheet_name="SNAR_synthetic" if mode == "pulsnar" else "SCAR_synthetic")
    except Exception:  # noqa: BLE001 - no pandas / openpyxl / spreadsheet: no value
        return None
    it = "iteration" if "iteration" in sheet.columns else "Iteration"
    row = sheet[(sheet["Algorithm"] == mode.upper()) & (np.isclose(sheet["True_alpha"], alpha)) & (sheet[it] == seed)]
    return float(row["Est_alpha"].iloc[0]) if len(row) else None


def make_data(path: str, mode: str, alpha: float, seed: int, src: str) -> dict:
    """Their generator's draw for (alpha, seed) with the example's sizes, shuffled as their examples
    do, saved to ``path``; returns the true alpha and the spreadsheet's value."""
    from sklearn.utils import shuffle

    src = _setup(src)
    from PULSNAR.pudata import SimulatedDataParams
    from PULSNAR.pudata.SimulatedData import SklearnSimulatedData

    gen = SklearnSimulatedData(SimulatedDataParams.make_classification_params)
    X, s, y = gen.generate_simulated_data(n_pos=2000, n_unlab=6000, pf_in_unlab=alpha, n_features=50,
                                          n_classes=6 if mode == "pulsnar" else 2, class_sep=0.3,
                                          equal_frac_in_pos=True, discrete_features=False,
                                          scar=mode == "pulscar", rseed=seed)
    X, s, y = shuffle(np.asarray(X, dtype=float), np.asarray(s).astype(int), np.asarray(y), random_state=seed)
    y = (y > 0).astype(int)
    np.savez(path, X=X, s=s, y=y)
    return {"mode": mode, "seed": seed, "alpha": float(y[s == 0].mean()),
            "sheet": sheet_value(src, mode, alpha, seed)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("mode", choices=sorted(EXAMPLE))
    ap.add_argument("--src", required=True, help="a checkout of unmtransinfo/PULSNAR")
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--shuffle-seed", type=int, default=0,
                    help="their examples shuffle the rows before estimating (random_state=0 here); negative: keep "
                         "the file's order (--make-data files are shuffled already)")
    ap.add_argument("--make-data", nargs=2, type=float, metavar=("ALPHA", "SEED"),
                    help="write their generator's draw to DATA instead of running their estimator")
    args = ap.parse_args(argv)
    import logging

    logging.disable(logging.INFO)  # their INFO logging goes to stderr; keep stdout to the JSON line
    if args.make_data:
        out = make_data(args.data, args.mode, args.make_data[0], int(args.make_data[1]), args.src)
    else:
        out = run(args.data, args.mode, args.src, args.n_jobs, args.shuffle_seed)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
