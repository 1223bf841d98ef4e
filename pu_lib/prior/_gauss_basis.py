"""Gaussian basis functions and cross-validation folds shared by the density-ratio class-prior
estimators of the Sugiyama lab, PE (:mod:`pu_lib.prior.pe`) and pen-L1
(:mod:`pu_lib.prior.pen_l1`).

Both model a function of ``x`` as ``sum_l a_l phi_l(x)`` with Gaussian basis functions
``phi_l(x) = exp(-||x - c_l||^2 / (2 sigma^2))`` centred on ``b`` sample points ``c_l``, and
choose ``sigma`` and the regularisation ``lambda`` by ``k``-fold cross-validation; the
authors' MATLAB code splits each sample into folds by ``floor((0:n-1) k / n) + 1`` permuted
at random, which :func:`cv_folds` reproduces (0-based). ``X`` may be a CSR matrix (squared
distances need only row norms and products, :func:`sq_dists`).
"""

from __future__ import annotations

import math

import numpy as np

from pu_lib._validation import is_sparse

__all__ = ["cv_folds", "fold_sums", "median_distance", "sq_dists", "split_samples", "take_rows"]


def take_rows(X, idx):
    """Rows ``idx`` of a dense array or a CSR matrix (kept in its format)."""
    return X[np.asarray(idx, dtype=np.int64)]


def split_samples(X, s, n_folds: int, name: str):
    """``(Xp, Xu)``: the labeled and the unlabeled rows of ``X``; ``ValueError`` naming
    ``name`` when the unlabeled rows are too few for ``n_folds`` cross-validation folds."""
    Xp, Xu = take_rows(X, np.flatnonzero(s == 1)), take_rows(X, np.flatnonzero(s == 0))
    if Xu.shape[0] < n_folds:
        raise ValueError(f"{name} needs at least n_folds={n_folds} unlabeled rows, got {Xu.shape[0]}")
    return Xp, Xu


def _row_sq_norms(X) -> np.ndarray:
    if is_sparse(X):
        return np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
    return np.einsum("ij,ij->i", X, X)


def sq_dists(X, C) -> np.ndarray:
    """Dense ``n x b`` matrix of squared Euclidean distances between the rows of ``X`` and
    of ``C`` (each dense or CSR), ``||x||^2 + ||c||^2 - 2 x.c`` clipped at 0."""
    XC = X @ C.T
    XC = XC.toarray() if is_sparse(XC) else np.asarray(XC, dtype=np.float64)
    D = _row_sq_norms(X)[:, None] + _row_sq_norms(C)[None, :] - 2.0 * XC
    np.maximum(D, 0.0, out=D)
    return D


def median_distance(X, rng, max_rows: int | None = 2000) -> float:
    """``sqrt`` of the median of the squared distances over all ordered pairs of rows of
    ``X`` (the zeros of the diagonal included, as the authors' ``median(dist2(:))``), on a
    seeded subsample of at most ``max_rows`` rows (None: all rows)."""
    n = X.shape[0]
    if max_rows is not None and n > max_rows:
        X = take_rows(X, np.sort(rng.choice(n, int(max_rows), replace=False)))
    return math.sqrt(float(np.median(sq_dists(X, X))))


def cv_folds(n: int, n_folds: int, rng) -> np.ndarray:
    """Fold of each of ``n`` rows, as the authors' ``floor((0:n-1) * k / n)`` permuted at
    random: fold sizes differ by at most one."""
    base = (np.arange(n) * n_folds) // n
    return base[rng.permutation(n)]


def fold_sums(K: np.ndarray, folds: np.ndarray, n_folds: int) -> np.ndarray:
    """``n_folds x b`` sums of the rows of ``K`` in each fold."""
    onehot = (folds[None, :] == np.arange(n_folds)[:, None]).astype(np.float64)
    return onehot @ K
