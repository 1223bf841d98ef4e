"""Benchmark: pu_lib's SAR-EM (:class:`pu_lib.sar.SAREMClassifier`) against the authors'
``pu_learn_sar_em`` (ML-KULeuven/SAR-PU, ``sarpu/sarpu/pu_learning.py``) on the same SAR
labelings of one data set (default: Mushroom in the thesis' encoding, ``mushrooms_libsvm``,
positive = poisonous).

For each ``k`` in ``--k`` (default 1 2 3 4) and each of ``--labelings`` labelings: the
data scaled to [-1, 1] per column (:func:`pu_lib.labeling.scale_minus1_1`, thesis 5.6.2);
SAR labels from the workflow's labeling (:func:`pu_lib.labeling.sar_bekker`, ``k`` random
attributes with standard deviation >= 0.6, propensities between 0.2 and 0.8); a stratified
80/20 train/test partition (the authors' ``StratifiedShuffleSplit``). Both EMs are fitted
on the training rows with the labeling's propensity attributes and evaluated as the
authors' ``experiments.evaluate_all``: classifier MSE of ``f`` against the true classes on
the test rows, propensity MSE of ``e`` against the true propensities on the test
positives. Printed per labeling: both MSEs, EM iterations and fit seconds for ours and
theirs; then the means.

Ours: ``SAREMClassifier()`` with its defaults (WeightedLogisticRegression, C = 1, for both
models; the intercept unpenalised). Theirs: ``pu_learn_sar_em`` with its defaults
(``LogisticRegressionPU``: scikit-learn's liblinear, C = 1, intercept penalised), run in a
separate interpreter (``--sarpu-python``, default this one) with the directory holding the
authors' ``sarpu`` package (``--sarpu-path``) on its path: their code passes
``multi_class`` to ``LogisticRegression`` (removed from recent scikit-learn) and negative
sample weights to liblinear in the final refit, so it needs an older scikit-learn, e.g. a
throw-away environment ``python -m venv /tmp/sarpu_venv && /tmp/sarpu_venv/bin/pip install
scikit-learn==1.5.2 "numpy<2.1" scipy``. Without ``--sarpu-path`` only ours runs.

Run: ``python benchmarks/bench_sar_em_reference.py --sarpu-path SAR-PU/sarpu
--sarpu-python /tmp/sarpu_venv/bin/python [--dataset mushrooms_libsvm] [--k 1 2 3 4]
[--labelings 2] [--seed 0] [--data-mirror ../shared/datasets]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedShuffleSplit

from pu_lib.datasets import load_dataset
from pu_lib.labeling import sar_bekker, scale_minus1_1
from pu_lib.sar import SAREMClassifier

REPO = Path(__file__).resolve().parents[1]

#: run in the authors' interpreter: argv = sarpu path, input .npz, output .npz
AUTHORS_SCRIPT = r"""
import sys, time, warnings
import numpy as np
warnings.filterwarnings("ignore")
sys.path.insert(0, sys.argv[1])
from sarpu.pu_learning import pu_learn_sar_em
d = np.load(sys.argv[2])
t0 = time.perf_counter()
f_model, e_model, info = pu_learn_sar_em(d["X_tr"], d["s_tr"], d["attributes"])
seconds = time.perf_counter() - t0
np.savez(sys.argv[3], f=f_model.predict_proba(d["X_te"]), e=e_model.predict_proba(d["X_te"]),
         n_iter=info["nb_iterations"], seconds=seconds,
         e_train_unl=e_model.predict_proba(d["X_tr"])[d["s_tr"] == 0])
"""


def scores(f, e, y_te, e_te) -> tuple[float, float]:
    """Classifier MSE on the test rows, propensity MSE on the test positives (the authors'
    ``evaluate_all``)."""
    pos = y_te == 1
    return float(np.mean((f - y_te) ** 2)), float(np.mean((e[pos] - e_te[pos]) ** 2))


def run_authors(args, tmp: Path, X_tr, s_tr, X_te, attributes):
    inp, out = tmp / "in.npz", tmp / "out.npz"
    np.savez(inp, X_tr=X_tr, s_tr=s_tr.astype(np.int64), X_te=X_te, attributes=np.asarray(attributes, dtype=np.int64))
    subprocess.run([args.sarpu_python, "-c", AUTHORS_SCRIPT, str(Path(args.sarpu_path).resolve()), str(inp), str(out)],
                   check=True)
    r = np.load(out)
    return r["f"], r["e"], int(r["n_iter"]), float(r["seconds"])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", default="mushrooms_libsvm")
    ap.add_argument("--positive", default="bekker", help="positive-class definition of the registry entry")
    ap.add_argument("--k", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--labelings", type=int, default=2, help="labelings per k")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-mirror", default=str(REPO.parent / "shared" / "datasets"))
    ap.add_argument("--sarpu-path", default=None, help="directory holding the authors' sarpu package")
    ap.add_argument("--sarpu-python", default=sys.executable, help="interpreter for the authors' code")
    args = ap.parse_args(argv)

    ds = load_dataset(args.dataset, data_mirror=args.data_mirror, download=False)
    mask, y = ds.select(args.positive)
    X = scale_minus1_1(np.asarray(ds.X, dtype=np.float64)[mask])
    y = np.asarray(y, dtype=np.int64)
    print(f"{args.dataset} ({args.positive}): {X.shape[0]} rows x {X.shape[1]} columns, Pr(y=1) = {y.mean():.3f}")
    print(f"{'k':>2} {'lab':>3} {'attributes':<18} {'c':>5} | {'ours MSE f':>10} {'MSE e':>7} {'iter':>4} {'s':>6} | "
          f"{'theirs MSE f':>12} {'MSE e':>7} {'iter':>4} {'s':>6}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in args.k:
            for lab in range(args.labelings):
                seed = args.seed + 1000 * k + lab
                lr = sar_bekker(X, y, k, "random", random_state=seed)
                split = StratifiedShuffleSplit(n_splits=1, test_size=0.2, random_state=seed)
                tr, te = next(split.split(X, y))
                attrs = lr.params["attributes"]
                t0 = time.perf_counter()
                ours = SAREMClassifier(random_state=0).fit(X[tr], lr.s[tr], propensity_attributes=attrs)
                t_ours = time.perf_counter() - t0
                f_o, e_o = scores(ours.predict_proba(X[te])[:, 1], ours.propensity(X[te]), y[te], lr.propensity[te])
                row = {"k": k, "lab": lab, "ours": (f_o, e_o, ours.n_iter_, t_ours)}
                line = (f"{k:>2} {lab:>3} {str(attrs):<18} {lr.s[tr].sum() / y[tr].sum():5.3f} | {f_o:10.4f} {e_o:7.4f} "
                        f"{ours.n_iter_:>4} {t_ours:6.1f} |")
                if args.sarpu_path:
                    f_t, e_t, it_t, t_t = run_authors(args, Path(tmp), X[tr], lr.s[tr], X[te], attrs)
                    f_a, e_a = scores(f_t, e_t, y[te], lr.propensity[te])
                    row["theirs"] = (f_a, e_a, it_t, t_t)
                    line += f" {f_a:12.4f} {e_a:7.4f} {it_t:>4} {t_t:6.1f}"
                rows.append(row)
                print(line, flush=True)
    for who in ("ours", "theirs"):
        vals = [r[who] for r in rows if who in r]
        if vals:
            a = np.array([v[:2] for v in vals])
            print(f"mean {who:<6}: classifier MSE {a[:, 0].mean():.4f}, propensity MSE {a[:, 1].mean():.4f} "
                  f"({len(vals)} labelings)")
    print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    main()
