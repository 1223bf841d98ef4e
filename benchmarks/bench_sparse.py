"""Benchmark: sparse against dense input on 20 Newsgroups TF-IDF (time and peak memory).

The registry has no sparse TF-IDF entry (``newsgroups20_bydate`` is the raw text,
``newsgroups20_svd300`` its dense 300-component SVD), so the matrix is built here from the
text entry's mirror file, with the first step of ``newsgroups20_svd300``
(:func:`pu_lib.datasets.canonical.text_svd_features`): texts cleaned by
``strip_newsgroup_text``, ``TfidfVectorizer(sublinear_tf=True, stop_words="english",
min_df=2)`` fitted on the training split (11314 documents), here with at most
``--max-features`` terms (the most frequent; the full vocabulary does not fit a dense
array on a small machine). Positive class: the entry's default ``alt. comp. misc. rec.``
against ``sci. soc. talk.``; ``--labeled`` of the training positives are labeled.

The fit is timed in wall-clock and in CPU seconds of the process (``time.process_time``;
on a shared machine the CPU time is the steadier number). One estimator per process, so
that ``/usr/bin/time -v`` reports the peak memory of one
input kind: ``--input sparse`` fits on the CSR matrix, ``--input dense`` on
``X.toarray()`` (float64), ``--input none`` only builds the matrix (the floor both share).
The estimator is nnPU by XGBoost (``nnpu_xgb``: ``PURiskXGBClassifier(risk="nnpu",
loss="sigmoid")``, 100 rounds, depth 6, the true training prior) or PULSCAR
(``--method pulscar``). XGBoost reads the entries a sparse matrix does not store as
missing values and the zeros of a dense array as values, so the two fits are different
models; the test-split AUC of each is printed for orientation.

Usage::

    nice -n 15 /usr/bin/time -v python benchmarks/bench_sparse.py --input sparse
    nice -n 15 /usr/bin/time -v python benchmarks/bench_sparse.py --input dense
    nice -n 15 /usr/bin/time -v python benchmarks/bench_sparse.py --input none
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from _timing import make_pu

DEFAULT_MIRROR = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
POSITIVE = ("alt.", "comp.", "misc.", "rec.")


def tfidf(mirror: Path, max_features: int | None):
    """``(X_train, y_train, X_test, y_test)``: CSR TF-IDF matrices and 0/1 classes."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from pu_lib.datasets.canonical import strip_newsgroup_text

    df = pd.read_parquet(mirror / "newsgroups20_bydate.parquet", columns=["text", "split", "target"])
    docs = [strip_newsgroup_text(t) for t in df["text"]]
    y = df["target"].str.startswith(POSITIVE).to_numpy().astype(np.int64)
    train = (df["split"] == "train").to_numpy()
    vec = TfidfVectorizer(lowercase=True, stop_words="english", min_df=2, sublinear_tf=True, dtype=np.float64,
                          max_features=max_features)
    X_train = vec.fit_transform([d for d, t in zip(docs, train) if t])
    X_test = vec.transform([d for d, t in zip(docs, train) if not t])
    return X_train.tocsr(), y[train], X_test.tocsr(), y[~train]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--input", choices=("sparse", "dense", "none"), required=True)
    ap.add_argument("--method", choices=("nnpu_xgb", "pulscar"), default="nnpu_xgb")
    ap.add_argument("--max-features", type=int, default=10_000)
    ap.add_argument("--labeled", type=float, default=0.5, help="fraction of the training positives labeled")
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    X, y, X_test, y_test = tfidf(args.mirror, args.max_features)
    s = make_pu(y, int(args.labeled * y.sum()), seed=0)
    build = time.perf_counter() - t0
    print(f"TF-IDF: train {X.shape[0]} x {X.shape[1]}, {X.nnz} stored entries "
          f"({X.nnz / (X.shape[0] * X.shape[1]):.4%} dense), CSR {X.data.nbytes + X.indices.nbytes + X.indptr.nbytes:,} "
          f"bytes, dense float64 {X.shape[0] * X.shape[1] * 8:,} bytes; test {X_test.shape[0]} rows; "
          f"prior {y.mean():.3f}, {int(s.sum())} labeled; built in {build:.1f} s")
    if args.input == "none":
        return
    if args.input == "dense":
        X, X_test = X.toarray(), X_test.toarray()

    from sklearn.metrics import roc_auc_score

    from pu_lib.workflow import registry

    if args.method == "nnpu_xgb":
        est = registry.make_estimator("nnpu_xgb", {"prior": float(y.mean())}, random_state=0, n_jobs=args.n_jobs)
    else:
        est = registry.make_estimator("pulscar", random_state=0, n_jobs=args.n_jobs)
    t0, c0 = time.perf_counter(), time.process_time()
    est.fit(X, s)
    fit, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
    if args.method == "nnpu_xgb":
        t0 = time.perf_counter()
        score = est.predict_proba(X_test)[:, 1]
        pred = time.perf_counter() - t0
        print(f"{args.method} on {args.input} input: fit {fit:.1f} s wall, {fit_cpu:.1f} s CPU; "
              f"predict_proba (test) {pred:.2f} s, "
              f"test AUC {roc_auc_score(y_test, score):.4f}")
    else:
        print(f"{args.method} on {args.input} input: fit {fit:.1f} s wall, {fit_cpu:.1f} s CPU; alpha_ {est.alpha_:.4f} "
              f"(true alpha {(y[s == 0]).mean():.4f})")


if __name__ == "__main__":
    main()
