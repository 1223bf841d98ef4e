"""PULSNAR class-prior estimator for SNAR data (Kumar & Lambert, PeerJ Computer Science
10:e2451, 2024, Algorithm 3; the paper is ``pulsnar.md``).

PULSNAR estimates ``alpha``, the fraction of positives among the unlabeled examples,
when the labeled positives were not selected completely at random. Labeled positives
are clustered (Gaussian mixture on the features an XGBoost model uses, each scaled by
its gain importance; number of clusters from the knee of the BIC curve, Zhao,
Hautamaki & Franti 2008), PULSCAR (:mod:`pu_lib.prior.pulscar`) is run on every
cluster's labeled positives together with all unlabeled rows, and the cluster alphas are
summed (eq. 5).

Implementation choices (the authors' code, ``unmtransinfo/PULSNAR``, supplied the facts
marked "authors"; the density choices are in :mod:`pu_lib.prior._beta_density`)
------------------------------------------------------------------------------------------
* **Number of clusters** (:func:`bic_knee`): Zhao et al.'s angle-based knee detection
  (facts from the first author's reference implementation, ``AngleCalc``), on
  ``F = -BIC`` (scikit-learn's BIC is lower-is-better, Zhao's higher-is-better):
  candidates are the local minima of the successive difference
  ``F(m-1) + F(m+1) - 2 F(m)`` that are negative (concave bends; the curve is padded
  with 0 at both ends so the first and last interior points can qualify), ``F`` is
  rescaled to ``[0, K-1]`` (``K`` = number of BIC values; Zhao rescales by the first and
  last value, min/max is the same for a monotone curve and also defined otherwise), and
  the knee is the candidate whose angle to the first and the last point of the curve is
  smallest. Without a candidate the BIC minimum is used. ``m = 1`` is never a knee
  (paper: "this approach always returns more than one cluster").
* **Features** (:class:`PULSNAR`, ``top_fraction``): the XGBoost importance model uses
  (nearly) every column, noise included, so "the features the trees used" can be all of
  them. On the project's synthetic SNAR data (10 informative of 50 features) the 40
  noise columns, scaled by gains only about half those of the informative ones, swamp
  the mixture: the BIC rises from k = 1 and the clusters are unrelated to the
  subclasses (adjusted Rand index ~0.05). Keeping the top half by gain -- the authors'
  ``top50p_covars`` option -- recovers the five subclasses (knee at 5, ARI 0.84-0.96),
  so ``top_fraction=0.5`` is the default; ``top_fraction=1.0`` is Algorithm 3 as written.
  The per-cluster classifiers use the kept features only (authors).
* **Clusters** (:class:`PULSNAR`): ``GaussianMixture(covariance_type="full",
  max_iter=250)``, the other parameters at their defaults; features with missing values
  are imputed by the labeled positives' column mean for clustering only. Components
  that receive no labeled row are dropped; a cluster with fewer than ``n_folds``
  labeled rows cannot be cross-validated, so its rows are moved to their next most
  likely component.
* **Classifier**: that of PULSCAR (:mod:`pu_lib.prior.pulscar`), per cluster on the kept
  features; the authors' synthetic-data configs use ``max_depth`` 4 and
  ``learning_rate`` 0.2 (``xgb_params``). On the synthetic SNAR data (400 labeled per
  cluster) PULSNAR's sum was within 0.05 of the truth in 8 of 12 data sets
  (``max_depth=4``, errors -0.13 to +0.01), while PULSCAR missed by up to 0.38.

Parallelism and determinism: CV folds (of all clusters together), the GMM fits of the
BIC sweep and the per-cluster alpha estimation run in parallel -- on ``n_jobs`` local
threads, or as Dask tasks when a Dask client is active
(:func:`pu_lib.distributed.parallel_map`). All seeds are derived up front from
``random_state`` (:func:`pu_lib._seeding.derive_seed`); XGBoost ``hist`` models are
bit-identical for any thread count, GMMs are fitted with one BLAS thread and the kernel
density uses no BLAS, so a seed gives the same alpha whatever ``n_jobs`` or Dask.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib.distributed import active_dask_client, limit_threads, parallel_map
from pu_lib.prior._beta_density import BANDWIDTH_RANGE, DEFAULT_BIN_RULE, _check_bandwidth_range, pulscar_alpha
from pu_lib.prior._cv import cv_probabilities_many, xgb_gain_importances
from pu_lib.prior.base import BasePriorEstimator
from pu_lib.prior.pulscar import PULSCAR_CONSTRAINTS

__all__ = ["PULSNAR", "bic_knee"]


# --------------------------------------------------------------------------- BIC knee
def bic_knee(bic) -> int:
    """Number of clusters at the knee of a BIC curve (Zhao, Hautamaki & Franti 2008,
    angle-based knee point detection; see the module docstring).

    ``bic[k - 1]`` is scikit-learn's BIC (lower is better) of a ``k``-component model,
    ``k = 1..K``. With ``F = -bic``: candidates are the negative local minima of
    ``F(m-1) + F(m+1) - 2 F(m)``, ``m = 2..K-1`` (padded with 0 at both ends); ``F`` is
    rescaled to ``[0, K-1]``; the knee is the candidate with the smallest angle between
    the segments to the first point ``(1, F(1))`` and the last point ``(K, F(K))``
    (ties: the more concave candidate). No candidate (or ``K < 3``): the BIC minimum.
    Returns ``k`` (1-based).
    """
    b = np.asarray(bic, dtype=np.float64)
    if b.ndim != 1 or b.shape[0] == 0 or not np.all(np.isfinite(b)):
        raise ValueError("bic must be a non-empty 1-D array of finite values")
    K = b.shape[0]
    if K < 3:
        return int(np.argmin(b)) + 1
    F = -b
    df = np.zeros(K + 2)  # df[m] for m = 1..K (1-based); df[0] = df[K+1] = 0 padding
    df[2:K] = F[:-2] + F[2:] - 2.0 * F[1:-1]
    cands = [m for m in range(2, K) if df[m] < 0.0 and df[m] < df[m - 1] and df[m] <= df[m + 1]]
    span = F.max() - F.min()
    if not cands or span <= 0.0:
        return int(np.argmin(b)) + 1
    Fn = (K - 1) * (F - F.min()) / span
    first = np.array([1.0, Fn[0]])
    last = np.array([float(K), Fn[-1]])
    best, best_key = None, None
    for m in cands:
        p = np.array([float(m), Fn[m - 1]])
        v1, v2 = first - p, last - p
        cosang = float(np.dot(v1, v2) / (np.linalg.norm(v1) * np.linalg.norm(v2)))
        angle = math.acos(min(1.0, max(-1.0, cosang)))
        key = (angle, df[m], m)
        if best_key is None or key < best_key:
            best, best_key = m, key
    return int(best)


# --------------------------------------------------------------------------- estimator
def _pulscar_task(pp, pu, n_bins, bin_rule, seed, bandwidth_range):
    return pulscar_alpha(pp, pu, n_bins=n_bins, bin_rule=bin_rule, random_state=seed,
                         bandwidth_range=bandwidth_range)


def _impute_columns(Z: np.ndarray) -> np.ndarray:
    """Replace NaN by the column mean (0 for an all-NaN column)."""
    if not np.isnan(Z).any():
        return Z
    import warnings

    Z = Z.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN column
        means = np.nanmean(Z, axis=0)
    means = np.where(np.isfinite(means), means, 0.0)
    r, c = np.nonzero(np.isnan(Z))
    Z[r, c] = means[c]
    return Z


def _fit_gmm(Z, k, seed):
    """``GaussianMixture(k, covariance_type="full", max_iter=250)``: (BIC, responsibilities).
    Callers limit BLAS to one thread (results then do not depend on the thread count)."""
    from sklearn.mixture import GaussianMixture

    gm = GaussianMixture(n_components=k, covariance_type="full", max_iter=250, random_state=seed).fit(Z)
    return float(gm.bic(Z)), gm.predict_proba(Z)


def _fit_gmm_dask(Z, k, seed):
    with limit_threads(1):
        return _fit_gmm(Z, k, seed)


def _fit_gmms(Z, ks, seeds, n_jobs, client):
    """Fit one GMM per ``k`` (threads with one BLAS thread each, or Dask tasks)."""
    tasks = list(zip(ks, seeds))
    if client is not None:
        return parallel_map(_fit_gmm_dask, tasks, client=client, shared=(Z,))
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return parallel_map(_fit_gmm, tasks, n_jobs=n_jobs, shared=(Z,))


class PULSNAR(BasePriorEstimator):
    """PULSNAR class-prior estimator for SNAR data (Kumar & Lambert 2024, Algorithm 3).

    Parameters
    ----------
    estimator, n_folds, max_depth, bin_rule, n_bins, bandwidth_range, xgb_params, random_state, n_jobs :
        as :class:`PULSCAR` (the importance model is always the default XGBoost, with
        ``max_depth`` and ``xgb_params``). ``n_jobs`` threads (or the Dask client) run
        the GMM fits, the CV folds of all clusters together and the per-cluster alphas.
    max_clusters : largest number of GMM components tried for the BIC curve (25).
    n_clusters : None (BIC knee, :func:`bic_knee`) or a fixed number of clusters.
    top_fraction : fraction of the features the importance model used that are kept,
        by decreasing gain (at least one): they are clustered on (scaled by gain) and
        the per-cluster classifiers use them. 1.0 keeps every feature the trees used
        (Algorithm 3 as written, the authors' default); the default 0.5 is the authors'
        ``top50p_covars`` option (``floor(n_used / 2)`` features) -- see the module
        docstring for why.

    Attributes
    ----------
    alpha_ : sum of the cluster alphas, clipped to [0, 1] (``raw_estimate_`` unclipped).
    n_clusters_ : number of (non-empty) clusters.
    cluster_labels_ : cluster (0..n_clusters_-1) of every labeled row, in the order of
        ``np.flatnonzero(s == 1)``.
    cluster_alphas_ : PULSCAR alpha of every cluster.
    cluster_probs_labeled_ : list; out-of-fold probabilities of cluster j's labeled rows
        (row order) in cluster j's model.
    cluster_probs_unlabeled_ : array (n_clusters_, n_unlabeled); out-of-fold probabilities
        of every unlabeled row (row order) in cluster j's model.
    cluster_n_bins_, cluster_bandwidths_ : per-cluster grid size and bandwidth.
    important_features_ : indices of the kept features (``top_fraction`` of those the
        importance model used, by decreasing gain): clustered on and used by the
        per-cluster classifiers.
    feature_importances_ : their gain importances.
    used_features_, used_feature_importances_ : every feature the importance model used
        and its gain (decreasing gain).
    bic_ : BIC of 1..max_clusters components (empty when ``n_clusters`` is given).
    n_clusters_bic_ : number of GMM components chosen (before dropping empty/small ones).
    """

    _parameter_constraints: dict = {
        **PULSCAR_CONSTRAINTS,
        "max_clusters": [Interval(Integral, 1, None, closed="left")],
        "n_clusters": [None, Interval(Integral, 1, None, closed="left")],
        "top_fraction": [Interval(Real, 0, 1, closed="right")],
    }
    _allow_nan = True

    def __init__(self, estimator=None, n_folds=5, max_depth=6, bin_rule=DEFAULT_BIN_RULE, n_bins=None,
                 bandwidth_range=BANDWIDTH_RANGE, xgb_params=None, max_clusters=25, n_clusters=None, top_fraction=0.5,
                 random_state=None, n_jobs=1):
        self.estimator = estimator
        self.n_folds = n_folds
        self.max_depth = max_depth
        self.xgb_params = xgb_params
        self.bin_rule = bin_rule
        self.n_bins = n_bins
        self.bandwidth_range = bandwidth_range
        self.max_clusters = max_clusters
        self.n_clusters = n_clusters
        self.top_fraction = top_fraction
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _cluster(self, Z, seed, client):
        """GMM on the labeled positives: BIC sweep (or fixed k), knee, final labels."""
        n_l = Z.shape[0]
        if self.n_clusters is not None:
            k = min(int(self.n_clusters), n_l)
            _, resp = _fit_gmms(Z, [k], [derive_seed("PULSNAR", seed, "gmm", k)], 1, None)[0]
            return k, np.empty(0), resp
        ks = list(range(1, min(int(self.max_clusters), n_l) + 1))
        fits = _fit_gmms(Z, ks, [derive_seed("PULSNAR", seed, "gmm", k) for k in ks], self.n_jobs, client)
        bic = np.array([f[0] for f in fits])
        k = bic_knee(bic)
        return k, bic, fits[k - 1][1]

    def _labels_from_resp(self, resp, min_size):
        """Argmax labels; drop empty components and move the rows of components with
        fewer than ``min_size`` rows to their next most likely component."""
        allowed = np.ones(resp.shape[1], dtype=bool)
        while True:
            r = np.where(allowed[None, :], resp, -1.0)
            lab = np.argmax(r, axis=1)
            counts = np.bincount(lab, minlength=resp.shape[1])
            allowed &= counts > 0
            small = np.flatnonzero(allowed & (counts < min_size))
            if small.size == 0 or allowed.sum() <= 1:
                break
            allowed[small[np.argmin(counts[small])]] = False
        used = np.flatnonzero(np.bincount(lab, minlength=resp.shape[1]) > 0)
        remap = np.full(resp.shape[1], -1, dtype=np.int64)
        remap[used] = np.arange(used.size)
        return remap[lab]

    def _estimate(self, X, s):
        bandwidth_range = _check_bandwidth_range(self.bandwidth_range)
        tf = float(self.top_fraction)
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        client = active_dask_client()
        lab_rows = np.flatnonzero(s == 1)
        unl_rows = np.flatnonzero(s == 0)

        # Algorithm 3, line 1: important features and gain scores from XGBoost on all (X, s)
        idx, gains = xgb_gain_importances(X, s, max_depth=self.max_depth,
                                          random_state=derive_seed("PULSNAR", seed, "importance"),
                                          n_jobs=self.n_jobs, xgb_params=self.xgb_params)
        if idx.size == 0:  # no split at all: cluster on (and classify with) all features
            idx = np.arange(X.shape[1], dtype=np.int64)
            gains = np.ones(X.shape[1])
        self.used_features_ = idx
        self.used_feature_importances_ = gains
        n_keep = max(1, int(math.floor(tf * idx.size + 1e-9)))
        idx, gains = idx[:n_keep], gains[:n_keep]
        self.important_features_ = idx
        self.feature_importances_ = gains

        # lines 2-4: scale important features by gain, cluster the labeled positives
        Z = _impute_columns(np.asarray(X[np.ix_(lab_rows, idx)], dtype=np.float64)) * gains[None, :]
        k, bic, resp = self._cluster(Z, seed, client)
        self.bic_ = bic
        self.n_clusters_bic_ = int(k)
        labels = self._labels_from_resp(resp, int(self.n_folds))
        n_clusters = int(labels.max()) + 1
        self.n_clusters_ = n_clusters
        self.cluster_labels_ = labels

        # lines 5-10: PULSCAR on (cluster j positives + all unlabeled), CV folds of all clusters together
        Xi = np.ascontiguousarray(X[:, idx])
        problems = []
        for j in range(n_clusters):
            rows = np.sort(np.concatenate([lab_rows[labels == j], unl_rows]))
            problems.append((rows, derive_seed("PULSNAR", seed, "cluster", j, "cv")))
        probs = cv_probabilities_many(Xi, s, problems, estimator=self.estimator, n_folds=self.n_folds,
                                      n_jobs=self.n_jobs, max_depth=self.max_depth, xgb_params=self.xgb_params)
        probs_lab, probs_unl = [], np.empty((n_clusters, unl_rows.shape[0]))
        for j, ((rows, _), p) in enumerate(zip(problems, probs)):
            is_lab = s[rows] == 1
            probs_lab.append(p[is_lab])
            probs_unl[j] = p[~is_lab]
        tasks = [
            (probs_lab[j], probs_unl[j], self.n_bins, self.bin_rule,
             derive_seed("PULSNAR", seed, "cluster", j, "bandwidth"), bandwidth_range)
            for j in range(n_clusters)
        ]
        results = parallel_map(_pulscar_task, tasks, n_jobs=self.n_jobs, client=client)
        self.cluster_alphas_ = np.array([r.alpha for r in results], dtype=np.float64)
        self.cluster_n_bins_ = np.array([r.n_bins for r in results], dtype=np.int64)
        self.cluster_bandwidths_ = np.array([r.bandwidth for r in results], dtype=np.float64)
        self.cluster_objectives_ = [r.objective for r in results]
        self.cluster_probs_labeled_ = probs_lab
        self.cluster_probs_unlabeled_ = probs_unl
        return "alpha", float(self.cluster_alphas_.sum())
