"""Run the PU Hellinger trees authors' code (Ortega Vazquez, vanden Broucke and De Weerdt;
``CarlosOrtegaV/PU_Hellinger_Trees``, commit ``2e442450bc8595f1f104909e03834d0a3fe9ad11``) on
our prepared data, and write one CSV row per (repetition, method): ``auc_pr``,
``f1_test_oracle`` (the best F1 over their 100 thresholds ``linspace(0.01, 0.99, 100)`` on
the test rows: the statistic of their released ``experimental_results.csv``), ``f1_tuned``
(the first F1-maximising threshold of that grid on the validation rows, applied to the
test rows), ``fit_seconds`` (the final fit) and the tree sizes. It runs in the authors'
interpreter, without pu_lib; docs/pu_hellinger_trees.md quotes its results.

Two modes:

* ``pipeline``: their ``expsetup.py`` end to end for seeds ``r`` in ``--seeds`` (the paper:
  0-19): a stratified 10,000-row draw above 10,000 rows (``StratifiedShuffleSplit(
  train_size=10000, random_state=r)``), their ``make_noisy_negatives(y, flip_ratio,
  label_noise="uniform", random_state=r)`` on the whole file, the 70/30
  ``StratifiedShuffleSplit(random_state=r)`` on the three classes (negatives, unlabeled
  positives, labeled positives), a 50/50 split of the training part for the threshold.
  ``--released experimental_results.csv --released-name NAME`` counts the repetitions whose
  AUC-PR equals their released value (to 1e-6) and prints both means. One deviation from
  their script: its tuning rows index the whole table, not the training part (``X[ix_tr_tr]``
  with indices into ``X[ix_tr]``); here they index the training part. ``auc_pr`` and
  ``f1_test_oracle`` do not depend on it.
* ``draws``: their estimators on our label draws (the workflow's
  ``results/labels/<experiment>/<dataset>/<setting>.parquet``, columns ``rep``, ``row``,
  ``split``, ``s``, ``y``): the tuning fit on the ``train`` rows, the threshold on the ``val``
  rows, the final fit on ``train`` + ``val`` scored on ``test``, as pu_lib's ``split.refit``;
  the prior given is the true class prior of the ``train`` + ``val`` rows (ours: ``prior:
  true``; their script passes the whole file's).

* ``time``: their PU-SHRF / PU-HRF fitted on the arrays of ``IN.npz`` (``X``, ``s``,
  ``X_test``, ``y_test``, ``prior``, ``n_estimators``, ``max_features``, ``n_jobs``,
  ``repeat``), written by ``bench_hellinger.py --authors-src`` so that both packages fit
  the same rows; one JSON line per method to ``OUT.jsonl``: the fit's wall seconds per
  round, nodes (all trees), mean maximum depth, ``predict_proba`` seconds (best of 3) and
  test AUC-PR against ``y_test``. Usage: ``.../python benchmarks/authors_hellinger.py time IN.npz OUT.jsonl
  --src /tmp/PU_Hellinger_Trees``.

Methods and settings (``expsetup.py``): PU-SHRF ``PURandomForestClassifier(random_state=r,
max_samples=<unlabeled rows>, pu_biased_bootstrap=True)``, PU-HRF the same with
``pu_biased_bootstrap=False`` (100 trees, their defaults), both with ``p_y`` the true prior;
PU-HDT their ``DecisionTreeClassifier(random_state=r, max_depth=5)`` with ``p_y`` the labeled
fraction in the tuning fit and the true prior in the final fit; HDT the same tree with the
labeled fraction in both (``pipeline``: the true prior and labeled fraction of the whole
drawn table, as theirs; ``draws``: of the fitted rows); ADASYN-RF ``ADASYN(random_state=r)`` (imbalanced-learn; on its
error the rows as they are, as their ``try``/``except``) then
``RandomForestClassifier(random_state=r)`` on ``s``.

Setup (outside this repository; their code is not vendored)::

    git clone https://github.com/CarlosOrtegaV/PU_Hellinger_Trees /tmp/PU_Hellinger_Trees
    git -C /tmp/PU_Hellinger_Trees checkout 2e442450bc8595f1f104909e03834d0a3fe9ad11
    python3.9 -m venv /tmp/puhd_venv   # scikit-learn 0.24.2 has no wheels after Python 3.9
    /tmp/puhd_venv/bin/pip install scikit-learn==0.24.2 "numpy<1.24" cython==0.29.37 scipy \\
        pandas pyarrow imbalanced-learn==0.8.1
    /tmp/puhd_venv/bin/python benchmarks/authors_hellinger.py build --src /tmp/PU_Hellinger_Trees

``build`` compiles the four ``.pyx`` of ``pu_tree_simplified`` in place (the repository ships
Windows ``.pyd`` files only). Their N = 0 line (``_pu_criterion.pyx`` L562-563) changed to
pu_lib's rule in a copy of the checkout gives the "authors' code, our rule" column of
docs/pu_hellinger_trees.md ("The N = 0 rule").

Usage (the data file is the workflow's prepared table ``results/data/<entry>.parquet``;
``--positive`` lists the ``target`` values of the positive class, as the registry entry's
``positive`` rule maps them, e.g. ``1,2`` for Thyroid; by default ``target`` is already
0 / 1)::

    /tmp/puhd_venv/bin/python benchmarks/authors_hellinger.py pipeline \\
        results/data/pendigits_odds_puhdt.parquet --flip 0.5 --seeds 0:20 --methods HDT \\
        --src /tmp/PU_Hellinger_Trees --released /tmp/PU_Hellinger_Trees/experimental_results.csv \\
        --released-name pendigits --out /tmp/pen_pipeline.csv
    /tmp/puhd_venv/bin/python benchmarks/authors_hellinger.py draws \\
        results/data/pendigits_odds_puhdt.parquet results/labels/pu_hellinger/PEN/flip-50.parquet \\
        --methods HDT --src /tmp/PU_Hellinger_Trees --out /tmp/pen_draws.csv
"""

from __future__ import annotations

import argparse
import os
import sys
import time

METHODS = ("PU-SHRF", "PU-HRF", "PU-HDT", "HDT", "ADASYN-RF")
#: the released results' column suffix per method (experimental_results.csv)
RELEASED = {"PU-SHRF": "srf_puhd", "PU-HRF": "rf_puhd", "PU-HDT": "dt_puhd", "HDT": "dt_hd", "ADASYN-RF": "rf"}


def build(src: str) -> None:
    """Compile pu_tree_simplified's extensions in place (``setup.py build_ext --inplace``)."""
    import subprocess
    import tempfile

    script = (
        "import numpy\nfrom setuptools import setup, Extension\nfrom Cython.Build import cythonize\n"
        "mods = ['_pu_criterion', '_pu_splitter', '_pu_tree', '_utils']\n"
        "ext = [Extension(f'pu_tree_simplified.{m}', [f'pu_tree_simplified/{m}.pyx'], "
        "include_dirs=[numpy.get_include()], extra_compile_args=['-O3']) for m in mods]\n"
        "setup(name='pu_tree_simplified_build', ext_modules=cythonize(ext, language_level=3))\n"
    )
    with tempfile.NamedTemporaryFile("w", suffix=".py", dir=src, delete=False) as f:
        f.write(script)
    try:
        subprocess.run([sys.executable, f.name, "build_ext", "--inplace"], cwd=src, check=True)
    finally:
        os.unlink(f.name)


def their_forest(forest_class, method: str, s_fit, random_state: int, **params):
    """Their ``PURandomForestClassifier`` as ``expsetup.py`` builds PU-SHRF (stratified
    bootstrap, ``max_samples`` = the unlabeled rows) or PU-HRF (standard bootstrap)."""
    if method == "PU-SHRF":
        return forest_class(random_state=random_state, max_samples=int((s_fit == 0).sum()),
                            pu_biased_bootstrap=True, **params)
    return forest_class(random_state=random_state, pu_biased_bootstrap=False, **params)


def tree_shape(model) -> dict:
    """Nodes of all trees, their mean maximum depth and mean leaf count (a forest's
    ``estimators_`` or a single tree)."""
    trees = [e.tree_ for e in getattr(model, "estimators_", [model])]
    return {"nodes": int(sum(t.node_count for t in trees)),
            "depth": sum(t.max_depth for t in trees) / len(trees),
            "leaves": sum(t.n_leaves for t in trees) / len(trees)}


def time_forests(arrays: str, out: str, src: str) -> None:
    """The ``time`` mode: their two forests on the arrays of ``arrays``, one JSON line each."""
    import json

    import numpy as np
    from sklearn.metrics import average_precision_score

    sys.path.insert(0, src)
    from pu_tree_simplified._pu_randomforest import PURandomForestClassifier

    a = np.load(arrays)
    X, s, X_test, y_test = a["X"], a["s"].astype(int), a["X_test"], a["y_test"]
    prior, k, mf = float(a["prior"]), int(a["n_estimators"]), int(a["max_features"])
    n_jobs, repeat = int(a["n_jobs"]), int(a["repeat"])
    with open(out, "w") as f:
        for name in ("PU-SHRF", "PU-HRF"):
            seconds = []
            for _ in range(repeat):
                model = their_forest(PURandomForestClassifier, name, s, 0, n_estimators=k, max_features=mf,
                                     n_jobs=n_jobs)
                t0 = time.perf_counter()
                model.fit(X, s, p_y=prior)
                seconds.append(time.perf_counter() - t0)
            best, prob = float("inf"), None
            for _ in range(3):
                t0 = time.perf_counter()
                prob = model.predict_proba(X_test)[:, 1]
                best = min(best, time.perf_counter() - t0)
            shape = tree_shape(model)
            f.write(json.dumps({
                "method": name, "seconds": seconds, "nodes": shape["nodes"], "depth": shape["depth"],
                "predict_seconds": best, "auc_pr": float(average_precision_score(y_test, prob)),
            }) + "\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    b = sub.add_parser("build")
    b.add_argument("--src", required=True)
    tm = sub.add_parser("time")
    tm.add_argument("arrays")
    tm.add_argument("out")
    tm.add_argument("--src", required=True)
    for name in ("pipeline", "draws"):
        a = sub.add_parser(name)
        a.add_argument("data")
        if name == "draws":
            a.add_argument("labels")
        else:
            a.add_argument("--flip", type=float, required=True)
            a.add_argument("--seeds", default="0:20", help="START:STOP (the paper: 0:20)")
            a.add_argument("--released", help="their experimental_results.csv")
            a.add_argument("--released-name", help="the data set's name in it, e.g. pendigits")
        a.add_argument("--src", required=True, help="their checkout, built")
        a.add_argument("--methods", default=",".join(METHODS))
        a.add_argument("--positive", help="comma-separated target values of the positive class")
        a.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if args.mode == "build":
        build(args.src)
        return 0
    if args.mode == "time":
        time_forests(args.arrays, args.out, args.src)
        return 0

    import numpy as np
    import pandas as pd
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.metrics import average_precision_score, f1_score
    from sklearn.model_selection import StratifiedShuffleSplit

    sys.path.insert(0, args.src)
    from pu_tree_simplified._pu_classes import DecisionTreeClassifier
    from pu_tree_simplified._pu_randomforest import PURandomForestClassifier

    methods = args.methods.split(",")
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        p.error(f"--methods: unknown {unknown}; known: {', '.join(METHODS)}")
    grid = np.linspace(0.01, 0.99, num=100)

    def f1_grid(y, prob):
        return np.array([f1_score(y, (prob > t).astype(int)) for t in grid])

    data = pd.read_parquet(args.data)
    X_all = data.drop(columns=["split", "target"], errors="ignore").to_numpy(dtype=np.float64)
    target = data["target"]
    if args.positive:
        y_all = target.astype(str).isin(args.positive.split(",")).to_numpy().astype(int)
    else:
        if not set(pd.unique(target)) <= {0, 1}:
            p.error(f"{args.data}: target holds {sorted(pd.unique(target))[:10]}; name the positive values with --positive")
        y_all = target.to_numpy().astype(int)

    def fit_predict(method, r, X_fit, s_fit, X_pred, prior, tune, labeled):
        """The fitted model's scores on X_pred, the model and the fit's seconds (expsetup.py's
        settings; ``labeled``: the labeled fraction given to the trees, None for s_fit's)."""
        labeled = float(np.mean(s_fit)) if labeled is None else labeled
        if method == "ADASYN-RF":
            from imblearn.over_sampling import ADASYN
            try:
                X_rs, s_rs = ADASYN(random_state=r).fit_resample(X_fit, s_fit)
            except Exception:  # their try/except: the rows as they are
                X_rs, s_rs = X_fit, s_fit
            model = RandomForestClassifier(random_state=r, n_jobs=1)
            t0 = time.perf_counter()
            model.fit(X_rs, s_rs)
        else:
            if method in ("PU-SHRF", "PU-HRF"):
                model, p_y = their_forest(PURandomForestClassifier, method, s_fit, r), prior
            elif method == "PU-HDT":
                model = DecisionTreeClassifier(random_state=r, max_depth=5)
                p_y = labeled if tune else prior
            else:  # HDT: the labeled fraction
                model, p_y = DecisionTreeClassifier(random_state=r, max_depth=5), labeled
            t0 = time.perf_counter()
            model.fit(X_fit, s_fit, p_y=p_y)
        seconds = time.perf_counter() - t0
        return model.predict_proba(X_pred)[:, 1], model, seconds

    def score(rows, r, method, X_tr, s_tr, X_va, y_va, X_fit, s_fit, X_te, y_te, prior, labeled=None):
        p_va, _, _ = fit_predict(method, r, X_tr, s_tr, X_va, prior, True, labeled)
        f1_va = f1_grid(y_va, p_va)
        threshold = grid[int(np.argmax(f1_va))]  # the first maximum, as theirs
        p_te, model, seconds = fit_predict(method, r, X_fit, s_fit, X_te, prior, False, labeled)
        shape = tree_shape(model)
        rows.append(dict(rep=r, method=method, auc_pr=average_precision_score(y_te, p_te),
                         f1_test_oracle=float(f1_grid(y_te, p_te).max()),
                         f1_tuned=f1_score(y_te, (p_te > threshold).astype(int)), f1_threshold=threshold,
                         fit_seconds=seconds, mean_depth=shape["depth"], mean_leaves=shape["leaves"]))
        print(rows[-1], flush=True)

    rows = []
    if args.mode == "pipeline":
        from pos_noisyneg.utils import make_noisy_negatives

        start, stop = map(int, args.seeds.split(":"))
        for r in range(start, stop):
            X, y = X_all, y_all
            if len(y) > 10000:
                keep, _ = next(StratifiedShuffleSplit(n_splits=1, train_size=10000, random_state=r).split(X, y))
                X, y = X[keep], y[keep]
            s = make_noisy_negatives(y.astype(float), X=X, flip_ratio=args.flip, label_noise="uniform",
                                     random_state=r).astype(int)
            cls = np.select([y == 0, (y == 1) & (s == 0), y == 1], ["negs", "noisy_negs", "pos"])
            tr, te = next(StratifiedShuffleSplit(n_splits=1, test_size=0.30, random_state=r).split(X, cls))
            tt, tv = next(StratifiedShuffleSplit(n_splits=1, test_size=0.50, random_state=r).split(X[tr], cls[tr]))
            # expsetup.py: p_y = np.mean(y) (true prior) or np.mean(noisy_y) (labeled fraction) of the
            # whole (drawn) table, test rows included
            prior, labeled = float(np.mean(y)), float(np.mean(s))
            for method in methods:
                score(rows, r, method, X[tr][tt], s[tr][tt], X[tr][tv], y[tr][tv], X[tr], s[tr], X[te], y[te],
                      prior, labeled)
    else:
        labels = pd.read_parquet(args.labels)
        for r in sorted(labels["rep"].unique()):
            lab = labels[labels["rep"] == r]
            part = {k: lab[lab["split"] == k] for k in ("train", "val", "test")}
            fit = pd.concat([part["train"], part["val"]])
            prior = float(np.mean(fit["y"]))  # the true prior of the training rows, as pu_lib's prior: true
            rows_of = lambda d: d["row"].to_numpy()  # noqa: E731
            for method in methods:
                score(rows, int(r), method, X_all[rows_of(part["train"])], part["train"]["s"].to_numpy().astype(int),
                      X_all[rows_of(part["val"])], part["val"]["y"].to_numpy(),
                      X_all[rows_of(fit)], fit["s"].to_numpy().astype(int),
                      X_all[rows_of(part["test"])], part["test"]["y"].to_numpy(), prior)
    out = pd.DataFrame(rows)
    out.to_csv(args.out, index=False)
    summary = out.groupby("method")[["auc_pr", "f1_test_oracle", "f1_tuned"]].agg(["mean", "std"]) * 100
    print(summary.round(2).to_string())
    if args.mode == "pipeline" and args.released:
        rel = pd.read_csv(args.released, encoding="utf-8-sig")
        rel = rel[(rel["dataset"] == args.released_name) & (rel["flip_ratio"] == args.flip)].set_index("data_partition")
        if rel.empty:
            p.error(f"--released: no rows for {args.released_name!r} at flip ratio {args.flip}")
        for method in methods:
            ours = out[out["method"] == method].set_index("rep")
            joined = ours.join(rel[[f"ap_{RELEASED[method]}", f"f1_max_{RELEASED[method]}"]], how="inner")
            equal = int(((joined["auc_pr"] - joined[f"ap_{RELEASED[method]}"]).abs() < 1e-6).sum())
            print(f"{method}: {equal} of {len(joined)} repetitions equal to the released AUC-PR; released means "
                  f"AUC-PR {100 * joined[f'ap_{RELEASED[method]}'].mean():.2f}, "
                  f"F1 {100 * joined[f'f1_max_{RELEASED[method]}'].mean():.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
