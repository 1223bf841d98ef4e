"""Benchmark: PU-SHRF, PU-HRF (pu_lib.trees.PUHellingerForestClassifier) and a bagged HDT
forest against scikit-learn's RandomForestClassifier, side by side in one run, per node.

Three kinds of data, each split 80 / 20 into training and test rows:

* ``--sizes`` (default ``20000x20`` and ``200000x50``), imbalanced:
  ``make_classification(n, d, n_informative=d // 2, weights=[0.95], flip_y=0.01)`` (5%
  positives), half of the positives labeled (SCAR);
* ``--balanced`` (default ``20000x20``):
  ``make_classification(n, d, n_informative=d // 2, n_redundant=d // 5)`` (50%
  positives), ``--n-labeled`` (default 1,000) positives of the training rows labeled;
* ``--mnist N`` (default none): ``N`` rows of MNIST's training split (drawn with seed 0)
  from the datasets mirror (``--mirror``, default ``$PU_LIB_DATA_MIRROR`` or
  ``/work/shared/datasets``), pixels / 255, 784 features, even digits positive (about 49%),
  ``N // 10`` positives of the training rows labeled (1,000 at ``N = 10000``).

Every forest gets the same training matrix (float32, C order), ``--n-estimators`` trees
(default 100, the paper's), the same integer ``max_features = floor(sqrt(d))``
(scikit-learn's ``"sqrt"``), the same ``--n-jobs`` and fully grown trees:

* PU-SHRF: ``bootstrap="stratified"`` (all labeled rows + ``K_U = n_U`` unlabeled draws),
  ``prior`` = the true positive fraction of the training rows;
* PU-HRF: ``bootstrap="standard"``;
* HDT forest: :class:`pu_lib.trees.HellingerTreeClassifier` trees (``max_depth=None``)
  on Breiman bootstrap samples of ``(X, s)``, grown by the engine's forest driver
  (``pu_lib.trees._parallel.fit_trees``) as scikit-learn grows its trees (the package has
  no HDT forest estimator);
* scikit-learn: ``RandomForestClassifier(criterion="gini", bootstrap=True)`` on ``s`` (the
  PN forest on the PU labels, which is what the PU-HDT paper's authors' code extends) and,
  as a second reference, on the true labels ``y``.

The models are fitted in turn, ``--repeat`` rounds (so each model sees the same machine
load as the others). Reported per model: fit wall time (min and median over the rounds),
nodes (all trees together), the trees' mean maximum depth, fit time per node (min and
median), rows per node (the training rows of the internal nodes summed over all nodes:
how many rows each tried feature sorts per node built; bootstrap repeats counted for the
package's trees, whose engine keeps the repeated rows, and not for scikit-learn's, which
weights the distinct rows), fit time per such row,
``predict_proba`` time on the test rows (best of 3) and test AUC-PR against ``y`` (a
sanity check); then per Hellinger model the ratios of its time per node (min and
median over the rounds) and per row (median) to scikit-learn's on ``s`` and on ``y``.
The numba JIT is warmed up on tiny forests first (its time is printed separately).

On MNIST the PU Hellinger trees grow as long chains, as the first author's code does
(docs/pu_hellinger_trees.md, "Tree shape on MNIST"): the depth and rows-per-node columns
show it beside the two tabular shapes.

With ``--authors-src DIR --authors-python PY`` the first author's code (PU-SHRF and PU-HRF
of ``CarlosOrtegaV/PU_Hellinger_Trees`` 2e44245, built in its own Python 3.9 environment as
``benchmarks/authors_hellinger.py`` describes) is fitted on the same rows with the same
trees, ``max_features``, threads and prior, ``--repeat`` rounds after ours (its ``time``
mode); printed: its fit times, nodes, depth and AUC-PR, and ours / theirs for the fit
(median) and per node. Its trees are larger than ours (it scores a split with no estimated
negatives as HD = 1; docs/pu_hellinger_trees.md, "The N = 0 rule"), hence both ratios.

Run: ``python benchmarks/bench_hellinger.py [--sizes 20000x20 200000x50] [--balanced
20000x20] [--n-labeled 1000] [--mnist 10000] [--n-jobs 2] [--repeat 3] [--authors-src
/tmp/PU_Hellinger_Trees --authors-python /tmp/puhd_venv/bin/python]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time

import numpy as np
from _timing import make_pu, timed
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import average_precision_score

from pu_lib.datasets import load_dataset
from pu_lib.trees import HellingerTreeClassifier, PUHellingerForestClassifier
from pu_lib.trees._builder import forest_votes
from pu_lib.trees._classes import _engine_params, _tree_seeds, pn_weights
from pu_lib.trees._criteria import HELLINGER
from pu_lib.trees._parallel import fit_trees, pack


def imbalanced_data(n: int, d: int, seed: int = 0):
    X, y = make_classification(n_samples=n, n_features=d, n_informative=max(2, d // 2), weights=[0.95],
                               flip_y=0.01, random_state=seed)
    rng = np.random.default_rng(seed)
    s = ((y == 1) & (rng.random(n) < 0.5)).astype(np.int8)
    return split(X, y, s)


def balanced_data(n: int, d: int, n_labeled: int, seed: int = 0):
    X, y = make_classification(n_samples=n, n_features=d, n_informative=max(2, d // 2), n_redundant=d // 5,
                               random_state=seed)
    n_tr = int(0.8 * n)
    s = np.zeros(n, np.int8)
    s[:n_tr] = make_pu(y[:n_tr], n_labeled, seed)
    return split(X, y, s)


def mnist_data(n: int, mirror: str, seed: int = 0):
    ds = load_dataset("mnist", data_mirror=mirror, download=False)
    y = ds.binary_target("pu_extra_trees").astype(np.int64)  # even digits positive
    train = np.flatnonzero((ds.meta["split"] == "train").to_numpy())
    rows = np.sort(np.random.default_rng(seed).choice(train, n, replace=False))
    X, y = ds.X[rows] / np.float32(255.0), y[rows]
    n_tr = int(0.8 * n)
    s = np.zeros(n, np.int8)
    s[:n_tr] = make_pu(y[:n_tr], n // 10, seed)
    return split(X, y, s)


def split(X, y, s):
    X = np.ascontiguousarray(X, dtype=np.float32)
    n_tr = int(0.8 * X.shape[0])
    return X[:n_tr], y[:n_tr], s[:n_tr], X[n_tr:], y[n_tr:]


class HDTForest:
    """Bagged HDTs (HellingerTreeClassifier, fully grown) on the package's tree engine."""

    def __init__(self, n_estimators, max_features, n_jobs, random_state=0):
        self.n_estimators, self.max_features, self.n_jobs, self.random_state = (
            n_estimators, max_features, n_jobs, random_state)

    def fit(self, X, s):
        tree = HellingerTreeClassifier(max_depth=None, max_features=self.max_features)
        params = _engine_params(tree, HELLINGER, "best", X.shape[1])
        a, u = pn_weights(np.asarray(s))
        self.trees_ = fit_trees(X, a, u, params, _tree_seeds(self.random_state, self.n_estimators),
                                n_jobs=self.n_jobs, use_dask=False, bootstrap=True)
        self._packed = pack(self.trees_)
        return self

    def predict_proba(self, X):
        p = self._packed
        _, vsum = forest_votes(X, p["offsets"], p["left"], p["right"], p["feature"], p["threshold"], p["value"])
        p1 = vsum / len(self.trees_)
        return np.column_stack([1.0 - p1, p1])


def node_counts(model) -> tuple[int, int]:
    """(nodes, rows entering split searches): all trees' nodes, and the training rows
    (bootstrap repeats counted) of their internal nodes summed -- the rows each tried
    feature sorts."""
    trees = model.trees_ if hasattr(model, "trees_") else [e.tree_ for e in model.estimators_]
    nodes = sum(int(t.node_count) for t in trees)
    rows = sum(int(t.n_node_samples[t.children_left != -1].sum()) for t in trees)
    return nodes, rows


def mean_depth(model) -> float:
    """The trees' maximum depths (root = 0), averaged over the trees."""
    trees = model.trees_ if hasattr(model, "trees_") else [e.tree_ for e in model.estimators_]
    return float(np.mean([t.max_depth for t in trees]))


def run_shape(title, data, args):
    X, y, s, Xt, yt = data
    d = X.shape[1]
    mf = max(1, int(np.floor(np.sqrt(d))))
    prior = float(y.mean())
    k = args.n_estimators
    models = {
        "PU-SHRF": (lambda: PUHellingerForestClassifier(
            n_estimators=k, bootstrap="stratified", prior=prior, max_features=mf, n_jobs=args.n_jobs,
            use_dask=False, random_state=0), s),
        "PU-HRF": (lambda: PUHellingerForestClassifier(
            n_estimators=k, bootstrap="standard", prior=prior, max_features=mf, n_jobs=args.n_jobs,
            use_dask=False, random_state=0), s),
        "HDT forest": (lambda: HDTForest(k, mf, args.n_jobs), s),
        "sklearn RF s": (lambda: RandomForestClassifier(
            n_estimators=k, max_features=mf, n_jobs=args.n_jobs, random_state=0), s),
        "sklearn RF y": (lambda: RandomForestClassifier(
            n_estimators=k, max_features=mf, n_jobs=args.n_jobs, random_state=0), y),
    }
    print(f"\n{title}: {len(y)} train rows x {d}, {int(s.sum())} labeled, prior {prior:.3f}; {k} trees, "
          f"max_features {mf}, n_jobs {args.n_jobs}, {args.repeat} rounds")
    fit_s = {name: [] for name in models}
    fitted = {}
    for _ in range(args.repeat):
        for name, (make, labels) in models.items():
            t0 = time.perf_counter()
            fitted[name] = make().fit(X, labels)
            fit_s[name].append(time.perf_counter() - t0)
    print(f"{'model':<13} {'fit s min':>9} {'median':>7} {'nodes':>9} {'depth':>6} {'us/node min':>11} {'median':>7} "
          f"{'rows/node':>9} {'ns/row':>6} {'predict s':>9} {'AUC-PR':>6}")
    per_node, per_row, per_node_min = {}, {}, {}
    for name, model in fitted.items():
        nodes, rows = node_counts(model)
        t = np.asarray(fit_s[name])
        per_node[name] = np.median(t) / nodes * 1e6
        per_node_min[name] = t.min() / nodes * 1e6
        per_row[name] = np.median(t) / rows * 1e9
        pred_s, p = timed(lambda: model.predict_proba(Xt)[:, 1], 3)
        print(f"{name:<13} {t.min():9.2f} {np.median(t):7.2f} {nodes:9d} {mean_depth(model):6.1f} "
              f"{t.min() / nodes * 1e6:11.2f} "
              f"{per_node[name]:7.2f} {rows / nodes:9.1f} {per_row[name]:6.1f} {pred_s:9.3f} "
              f"{average_precision_score(yt, p):6.3f}")
    if args.authors_src:
        authors(X, s, Xt, yt, prior, mf, args, fit_s, node_counts_of={n: node_counts(fitted[n])[0]
                                                                      for n in ("PU-SHRF", "PU-HRF")})
    for name in ("PU-SHRF", "PU-HRF", "HDT forest"):
        def ratio(table, ref):
            return table[name] / table[f"sklearn RF {ref}"]

        print(f"{name} / sklearn RF: time per node (min, median) {ratio(per_node_min, 's'):.2f}x, "
              f"{ratio(per_node, 's'):.2f}x on s, {ratio(per_node_min, 'y'):.2f}x, {ratio(per_node, 'y'):.2f}x on y; "
              f"time per row of a split search (median) {ratio(per_row, 's'):.2f}x on s, "
              f"{ratio(per_row, 'y'):.2f}x on y")


def authors(X, s, Xt, yt, prior, mf, args, fit_s, node_counts_of):
    """The first author's PU-SHRF / PU-HRF on the same rows (benchmarks/authors_hellinger.py
    ``time``, in their interpreter), printed beside ours."""
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        arrays, out = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.jsonl")
        np.savez(arrays, X=X, s=np.asarray(s, dtype=np.int64), X_test=Xt, y_test=np.asarray(yt, dtype=np.int64),
                 prior=prior, n_estimators=args.n_estimators, max_features=mf, n_jobs=args.n_jobs,
                 repeat=args.repeat)
        subprocess.run([args.authors_python, os.path.join(here, "authors_hellinger.py"), "time", arrays, out,
                        "--src", args.authors_src], check=True)
        with open(out) as f:
            rows = [json.loads(line) for line in f]
    for r in rows:
        t = np.asarray(r["seconds"])
        name = r["method"]
        ours = np.median(fit_s[name])
        print(f"{'authors ' + name:<16} fit s min {t.min():.2f} median {np.median(t):.2f}, {r['nodes']} nodes, depth "
              f"{r['depth']:.1f}, {np.median(t) / r['nodes'] * 1e6:.2f} us/node, predict {r['predict_seconds']:.3f} s, "
              f"AUC-PR {r['auc_pr']:.3f}; ours / theirs: fit (median) {ours / np.median(t):.3f}x, per node "
              f"{(ours / node_counts_of[name]) / (np.median(t) / r['nodes']):.2f}x")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="*", default=["20000x20", "200000x50"])
    ap.add_argument("--balanced", nargs="*", default=["20000x20"])
    ap.add_argument("--n-labeled", type=int, default=1000)
    ap.add_argument("--mnist", nargs="*", type=int, default=[], metavar="N",
                    help="MNIST training rows drawn (N // 10 positives labeled); none by default")
    ap.add_argument("--mirror", default=os.environ.get("PU_LIB_DATA_MIRROR", "/work/shared/datasets"))
    ap.add_argument("--n-estimators", type=int, default=100)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--authors-src", help="the first author's checkout, built (benchmarks/authors_hellinger.py)")
    ap.add_argument("--authors-python", help="the interpreter of their environment (Python 3.9, scikit-learn "
                    "0.24.2); needed with --authors-src")
    args = ap.parse_args(argv)
    if args.authors_src and not args.authors_python:
        ap.error("--authors-src needs --authors-python (their code does not run in this interpreter)")

    t0 = time.perf_counter()
    Xw, yw, sw, _, _ = imbalanced_data(500, 5)
    PUHellingerForestClassifier(n_estimators=2, prior=0.05, random_state=0).fit(Xw, sw).predict_proba(Xw)
    HDTForest(2, 2, 1).fit(Xw, sw).predict_proba(Xw)
    print(f"numba warm-up (compile or cache load): {time.perf_counter() - t0:.1f} s")

    def shape(size):
        return tuple(int(v) for v in size.lower().split("x"))

    for size in args.sizes:
        n, d = shape(size)
        run_shape(f"imbalanced {n} x {d}", imbalanced_data(n, d), args)
    for size in args.balanced:
        n, d = shape(size)
        run_shape(f"balanced {n} x {d}", balanced_data(n, d, args.n_labeled), args)
    for n in args.mnist:
        run_shape(f"MNIST {n} x 784 (even digits positive)", mnist_data(n, args.mirror), args)


if __name__ == "__main__":
    main()
