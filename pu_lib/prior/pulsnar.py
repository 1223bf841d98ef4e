"""PULSNAR class-prior estimator for SNAR data (Kumar & Lambert, PeerJ Computer Science
10:e2451, 2024, Algorithm 3; the paper is ``pulsnar.md``).

PULSNAR estimates ``alpha``, the fraction of positives among the unlabeled examples,
when the labeled positives were not selected completely at random. Labeled positives
are clustered (Gaussian mixture on the features an XGBoost model uses, each scaled by
its gain importance; number of clusters from the knee of the BIC curve, Zhao,
Hautamaki & Franti 2008), PULSCAR (:mod:`pu_lib.prior.pulscar`) is run on every
cluster's labeled positives together with all unlabeled rows, and the cluster alphas are
summed (eq. 5).

Defaults (:data:`PULSNAR_DEFAULTS`): the authors' synthetic-data example
(``unmtransinfo/PULSNAR``: ``examples/pulsnar_syn_alpha_estimation.py`` with
``examples/testparams/pulsnar_synthetic_alpha.yaml``), parameter by parameter:

=====================  ==========  ==========================================================
parameter              default     source
=====================  ==========  ==========================================================
``n_folds``            5           ``kfold=5``
``max_depth``          4           YAML ``XGB_params.max_depth: 4``
``learning_rate``      0.2         YAML ``XGB_params.learning_rate: 0.20``
``bin_rule``           ``"rice"``  ``bin_method='rice'``
``bandwidth_range``    (0.015,     ``lowerbw=0.015, upperbw=0.5``
                       0.5)
``bandwidth_search``   ``"local"`` ``optim='local'``
``max_clusters``       10          ``max_clusters=10``
``top_fraction``       1.0         ``top50p_covars=False`` (every feature the importance
                                   model used)
``covariance_type``    ``"full"``  ``covar_type='full'``
``knee``               authors     ``ClusteringEstimator.find_cluster_count`` (below)
``min_cluster_size``   10          clusters with fewer labeled rows are skipped
                                   (``PULSNAR.snar_data_processing``: ``len(idx1) < 10``)
``small_clusters``     ``"drop"``  (same source)
``n_iterations``       1           ``n_iterations=1`` (per-cluster CV and estimates run once)
``gmm_params``         None        ``max_iter=250`` (the paper, "Determining the number of
                                   clusters"; the authors' code leaves scikit-learn's 100),
                                   otherwise scikit-learn's ``GaussianMixture`` defaults
=====================  ==========  ==========================================================

Algorithm (paper Algorithm 3; facts from the authors' code marked "authors")
--------------------------------------------------------------------------
* **Importance model**: one XGBoost on all rows with the classifier's settings
  (``max_depth``, ``learning_rate``, ``scale_pos_weight = |U| / |P|``); the features with a
  split, by decreasing average gain (authors: ``get_score(importance_type="gain")``).
  ``top_fraction`` keeps the first ``floor(top_fraction * n_used)`` (``0.5`` is the
  authors' ``top50p_covars=True``, used in their anuran, dry bean, letter, occupancy and
  smartphone examples).
* **Clustering** (authors): the labeled positives' kept features, each multiplied by its
  gain, are clustered by ``GaussianMixture(n_components=k, covariance_type, **gmm_params)``
  for ``k = 1..max_clusters`` (one BLAS thread); the final clustering is the sweep's
  ``k``-component model (the authors refit with the same seed, which gives the same
  model); rows go to their most likely component.
* **Number of clusters** (:func:`bic_knee`, ``knee="authors"``): the authors' rule, not the
  knee detector the paper cites. If the BIC curve has a strict local minimum, ``k`` is
  ``1 + min(argmin BIC, first local minimum, argmax(second difference) + 3)`` (0-based
  indices, exactly as in the authors' code); otherwise the local minima of the second
  differences are ranked by value and walked with an angle test (where the authors' code
  fails for lack of a candidate, the angle rule below decides). ``knee="angle"`` is the
  angle-based knee of Zhao, Hautamaki & Franti (2008) that the paper cites (our earlier
  default; on the dry bean SNAR set it swung between 5 and 24 components with the
  XGBoost depth, see docs/class_priors.md).
* **Small clusters** (authors): a cluster with fewer than ``min_cluster_size`` (10) labeled
  rows is skipped and contributes nothing to the sum (``small_clusters="drop"``); with
  ``"merge"`` its rows move to their next most likely component instead. A cluster must
  also hold at least ``n_folds`` labeled rows to be cross-validated, so
  ``min_cluster_size`` is raised to ``n_folds`` when smaller.
* **Per-cluster PULSCAR** (authors): that cluster's labeled rows plus every unlabeled row,
  the kept features only, the classifier and density settings above; the cluster alphas
  are summed (eq. 5). Missing values are imputed by the labeled positives' column mean
  for clustering only.
* **Iterations** (authors' ``n_iterations``): the clusters are found once; the per-cluster
  cross-validation and PULSCAR are run ``n_iterations`` times with other fold seeds, and
  the estimate is the mean of the iterations' sums (authors: ``np.mean(est_alphas)``).

Parallelism and determinism: CV folds (of all clusters together), the GMM fits of the
BIC sweep and the per-cluster alpha estimation run in parallel -- on ``n_jobs`` local
threads, or, with ``use_dask=True``, as tasks of the current Dask client
(:func:`pu_lib.distributed.parallel_map`; default False: local threads even when a client
is active). All seeds are derived up front from
``random_state`` (:func:`pu_lib._seeding.derive_seed`); XGBoost ``hist`` models are
bit-identical for any thread count, GMMs are fitted with one BLAS thread and the kernel
density uses no BLAS, so a seed gives the same alpha whatever ``n_jobs`` or ``use_dask``.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import is_sparse
from pu_lib.distributed import effective_n_jobs, limit_threads, parallel_map, resolve_client
from pu_lib.prior._beta_density import check_bandwidth_range, pulscar_alpha
from pu_lib.oof import cv_probabilities_many, xgb_gain_importances
from pu_lib.prior.base import BasePriorEstimator
from pu_lib.prior.tuning import tune_classifier
from pu_lib.prior.pulscar import (PULSCAR_CONSTRAINTS, PULSCAR_DEFAULTS, SPARSE_WITH_XGBOOST, check_xgboost_settings,
                                  iteration_seed,
                                  xgb_settings)

__all__ = ["KNEE_RULES", "PULSNAR", "PULSNAR_DEFAULTS", "bic_knee"]


# --------------------------------------------------------------------------- BIC knee
KNEE_RULES = ("authors", "angle")


def _strict_local_minima(v: np.ndarray) -> np.ndarray:
    """Indices ``i`` (not the ends) with ``v[i] < v[i-1]`` and ``v[i] < v[i+1]``
    (``scipy.signal.argrelmin`` with ``order=1``)."""
    if v.shape[0] < 3:
        return np.empty(0, dtype=np.int64)
    inner = (v[1:-1] < v[:-2]) & (v[1:-1] < v[2:])
    return np.flatnonzero(inner) + 1


def _authors_knee(b: np.ndarray) -> int:
    """The authors' cluster count (``ClusteringEstimator.find_cluster_count``,
    ``num_of_clusters``), 0-based indices as in their code."""
    K = b.shape[0]
    minima = _strict_local_minima(b)
    if minima.size:
        second = np.diff(np.diff(b))
        return int(min(int(np.argmin(b)), int(minima[0]), int(np.argmax(second)) + 3)) + 1
    # no local minimum: "knee point detection" on the second differences
    diff = np.empty(K - 1)
    diff[0] = b[1] - b[0]
    diff[1:] = b[:-2] + b[2:] - 2.0 * b[1:-1]
    cand = _strict_local_minima(diff)
    if cand.size == 0:  # the authors' code fails here (empty list): Zhao's angle knee instead
        return _angle_knee(b)
    ranked = [int(i) + 1 for i in sorted(cand, key=lambda i: -diff[i])]  # decreasing diff, stable
    angle0 = None
    for m in ranked:
        angle = np.arctan2(1.0, abs(b[m] - b[m - 1])) + np.arctan2(1.0, abs(b[m + 1] - b[m]))
        if angle0 is None:
            angle0 = angle
        elif angle > angle0:
            return m
    return ranked[0]


def _angle_knee(b: np.ndarray) -> int:
    """Zhao, Hautamaki & Franti (2008) angle-based knee on ``F = -BIC`` (see :func:`bic_knee`)."""
    K = b.shape[0]
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


def bic_knee(bic, rule: str = "authors") -> int:
    """Number of clusters from a BIC curve; ``bic[k - 1]`` is scikit-learn's BIC (lower is
    better) of a ``k``-component model, ``k = 1..K``. Returns ``k`` (1-based).

    ``rule="authors"`` (default): the authors' code (``find_cluster_count``). With a
    strict local minimum of the BIC: ``1 + min(argmin BIC, first local minimum,
    argmax(diff(diff(BIC))) + 3)`` (0-based). Otherwise ``diff[0] = BIC[1] - BIC[0]``,
    ``diff[m] = BIC[m-1] + BIC[m+1] - 2 BIC[m]``; the strict local minima ``m`` of
    ``diff`` become candidates ``m + 1``, ranked by decreasing ``diff``; walking them, the
    angle ``atan(1/|BIC[m] - BIC[m-1]|) + atan(1/|BIC[m+1] - BIC[m]|)`` of the first is the
    reference and the first later candidate with a larger angle is returned, else the
    first candidate. Without any candidate (the authors' code raises an IndexError
    there) the ``"angle"`` rule decides.

    ``rule="angle"``: Zhao, Hautamaki & Franti (2008), the knee detector the paper
    cites, on ``F = -BIC``: candidates are the negative local minima of
    ``F(m-1) + F(m+1) - 2 F(m)``, ``m = 2..K-1`` (padded with 0 at both ends); ``F`` is
    rescaled to ``[0, K-1]``; the knee is the candidate with the smallest angle between
    the segments to the first point and the last point (ties: the more concave
    candidate). No candidate: the BIC minimum.

    ``K < 3``: the BIC minimum, for both rules.
    """
    b = np.asarray(bic, dtype=np.float64)
    if b.ndim != 1 or b.shape[0] == 0 or not np.all(np.isfinite(b)):
        raise ValueError("bic must be a non-empty 1-D array of finite values")
    if rule not in KNEE_RULES:
        raise ValueError(f"knee rule must be one of {KNEE_RULES}, got {rule!r}")
    if b.shape[0] < 3:
        return int(np.argmin(b)) + 1
    return _authors_knee(b) if rule == "authors" else _angle_knee(b)


# --------------------------------------------------------------------------- estimator
def _pulscar_task(pp, pu, n_bins, bin_rule, seed, bandwidth_range, bandwidth_search):
    return pulscar_alpha(pp, pu, n_bins=n_bins, bin_rule=bin_rule, random_state=seed,
                         bandwidth_range=bandwidth_range, bandwidth_search=bandwidth_search)


def _dense_with_nan(X, rows, cols) -> np.ndarray:
    """``X[rows][:, cols]`` as a dense float64 array; for a sparse ``X`` the entries it does
    not store are NaN (missing, as XGBoost reads them), so that the clusters of a CSR
    matrix are those of the dense array with NaN in place of the absent entries."""
    if not is_sparse(X):
        return np.asarray(X[np.ix_(rows, cols)], dtype=np.float64)
    sub = X[rows][:, cols].tocoo()
    Z = np.full(sub.shape, np.nan)
    Z[sub.row, sub.col] = sub.data
    return Z


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


_GMM_OWN_KEYS = frozenset({"n_components", "covariance_type", "random_state"})


#: GaussianMixture settings beyond scikit-learn's defaults (paper: "We use max_iter = 250")
GMM_DEFAULTS = {"max_iter": 250}


def _check_gmm_params(gmm_params) -> dict:
    params = {**GMM_DEFAULTS, **dict(gmm_params or {})}
    bad = sorted(set(params) & _GMM_OWN_KEYS)
    if bad:
        raise ValueError(f"gmm_params must not set {bad}; they have their own arguments")
    from sklearn.mixture import GaussianMixture

    unknown = sorted(set(params) - set(GaussianMixture().get_params()))
    if unknown:
        raise ValueError(f"gmm_params has unknown GaussianMixture parameters {unknown}")
    return params


def _fit_gmm(Z, k, seed, covariance_type, gmm_params):
    """``GaussianMixture(k, covariance_type, **gmm_params)``: (BIC, responsibilities).
    Callers limit BLAS to one thread (results then do not depend on the thread count)."""
    from sklearn.mixture import GaussianMixture

    gm = GaussianMixture(n_components=k, covariance_type=covariance_type, random_state=seed, **gmm_params).fit(Z)
    return float(gm.bic(Z)), gm.predict_proba(Z)


def _fit_gmm_dask(Z, k, seed, covariance_type, gmm_params):
    with limit_threads(1):
        return _fit_gmm(Z, k, seed, covariance_type, gmm_params)


def _fit_gmms(Z, ks, seeds, n_jobs, client, covariance_type, gmm_params):
    """Fit one GMM per ``k`` (threads with one BLAS thread each, or Dask tasks)."""
    tasks = [(k, sd, covariance_type, gmm_params) for k, sd in zip(ks, seeds)]
    if client is not None:
        return parallel_map(_fit_gmm_dask, tasks, client=client, shared=(Z,))
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return parallel_map(_fit_gmm, tasks, n_jobs=n_jobs, shared=(Z,))


#: PULSNAR's defaults: the authors' synthetic-data example (see the module docstring):
#: PULSCAR's, but for the learning rate and the bandwidth range, and PULSNAR's own
#: parameters (the signature of :class:`PULSNAR` agrees, tests/test_prior_defaults.py)
PULSNAR_DEFAULTS: dict = {
    **PULSCAR_DEFAULTS,
    "learning_rate": 0.2,
    "bandwidth_range": (0.015, 0.5),
    "max_clusters": 10,
    "top_fraction": 1.0,
    "covariance_type": "full",
    "knee": "authors",
    "min_cluster_size": 10,
    "small_clusters": "drop",
    "gmm_params": None,
}


class PULSNAR(BasePriorEstimator):
    """PULSNAR class-prior estimator for SNAR data (Kumar & Lambert 2024, Algorithm 3).

    Defaults are the authors' synthetic-data example (module docstring, :data:`PULSNAR_DEFAULTS`).

    Parameters
    ----------
    estimator, n_folds, max_depth, learning_rate, bin_rule, n_bins, bandwidth_range, bandwidth_search, xgb_params, booster, random_state, n_jobs :
        as :class:`PULSCAR`, with PULSNAR's own defaults (``learning_rate`` 0.2,
        ``bandwidth_range`` (0.015, 0.5)); the importance model is always the default
        XGBoost with these settings (grown by ``booster``). ``n_jobs`` threads run the GMM
        fits, the CV folds of all clusters together and the per-cluster alphas.
    use_dask : False (default) keeps that work on ``n_jobs`` threads, even when a Dask client
        is active; True makes it tasks of the current Dask client (docs/cluster.md, "Dask
        by explicit choice"). The estimate is the same either way.
    max_clusters : largest number of GMM components tried for the BIC curve (10).
    n_clusters : None (BIC knee, :func:`bic_knee`) or a fixed number of clusters.
    knee : ``"authors"`` (default) or ``"angle"`` (:func:`bic_knee`).
    covariance_type : GMM covariance type (``"full"``).
    gmm_params : further ``GaussianMixture`` parameters (dict, e.g. ``{"reg_covar": 1e-4}``
        as in the authors' dry bean and letter configs), merged over ``max_iter=250``
        (the paper); None: that and scikit-learn's defaults.
    top_fraction : fraction of the features the importance model used that are kept,
        by decreasing gain (at least one): they are clustered on (scaled by gain) and
        the per-cluster classifiers use them. 1.0 (default) keeps every feature the trees
        used; 0.5 is the authors' ``top50p_covars`` option (``floor(n_used / 2)``).
    min_cluster_size : clusters with fewer labeled rows are handled by ``small_clusters``
        (10; raised to ``n_folds`` if smaller).
    small_clusters : ``"drop"`` (default, authors: the cluster is skipped and adds nothing
        to alpha) or ``"merge"`` (its rows move to their next most likely component).
    n_iterations : per-cluster cross-validations and estimates per fit, each with other
        folds (1, the authors' examples); ``cluster_alphas_`` are the means over the
        iterations, the clusters are found once (as :class:`PULSCAR`'s ``n_iterations``).
    tune : None (default) or ``"cv_logloss"``: the classifier's ``max_depth``,
        ``learning_rate`` and ``n_estimators`` chosen once, on all rows, by the
        cross-validated log-loss of ``s`` (:mod:`pu_lib.prior.tuning`; no true label is
        used), then used by the importance model and every cluster's classifier.

    Attributes
    ----------
    alpha_ : sum of the cluster alphas, clipped to [0, 1] (``raw_estimate_`` unclipped).
    n_clusters_ : number of clusters that entered the sum.
    cluster_labels_ : cluster (0..n_clusters_-1) of every labeled row, in the order of
        ``np.flatnonzero(s == 1)``; -1 for the rows of dropped clusters.
    n_dropped_ : number of labeled rows in dropped clusters.
    cluster_alphas_ : PULSCAR alpha of every cluster (mean over the iterations).
    iteration_alphas_ : array (n_iterations,); the sum of the cluster alphas of every
        iteration (``raw_estimate_`` is their mean).
    cluster_probs_labeled_ : list; out-of-fold probabilities of cluster j's labeled rows
        (row order) in cluster j's model (first iteration, as the probabilities, bins,
        bandwidths and objectives below).
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
    tuned_params_, tuning_results_ : with ``tune``, as :class:`PULSCAR`'s.
    """

    _parameter_constraints: dict = {
        **PULSCAR_CONSTRAINTS,
        "max_clusters": [Interval(Integral, 1, None, closed="left")],
        "n_clusters": [None, Interval(Integral, 1, None, closed="left")],
        "knee": [StrOptions(set(KNEE_RULES))],
        "covariance_type": [StrOptions({"full", "tied", "diag", "spherical"})],
        "gmm_params": [None, dict],
        "top_fraction": [Interval(Real, 0, 1, closed="right")],
        "min_cluster_size": [Interval(Integral, 1, None, closed="left")],
        "small_clusters": [StrOptions({"drop", "merge"})],
        "use_dask": ["boolean"],
    }
    _allow_nan = True
    _accepts_sparse = SPARSE_WITH_XGBOOST
    _MIN_LABELED_WHY = ("one per fold of the stratified n_folds={self.n_folds} cross-validation of a cluster "
                        "(the largest cluster is kept however small)")

    def min_labeled(self) -> int:
        """``n_folds``: a cluster's stratified cross-validation needs a labeled row in every
        fold (necessary, not sufficient: when the labeled rows split into several clusters,
        the largest must hold ``n_folds`` of them)."""
        return int(self.n_folds)

    def __init__(self, estimator=None, *, n_folds=5, max_depth=4, learning_rate=0.2, bin_rule="rice", n_bins=None,
                 bandwidth_range=(0.015, 0.5), bandwidth_search="local", xgb_params=None, max_clusters=10,
                 n_clusters=None, knee="authors", covariance_type="full", gmm_params=None, top_fraction=1.0,
                 min_cluster_size=10, small_clusters="drop", booster="xgboost", n_iterations=1, tune=None,
                 random_state=None, n_jobs=1, use_dask=False):
        self.estimator = estimator
        self.booster = booster
        self.n_folds = n_folds
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.xgb_params = xgb_params
        self.bin_rule = bin_rule
        self.n_bins = n_bins
        self.bandwidth_range = bandwidth_range
        self.bandwidth_search = bandwidth_search
        self.max_clusters = max_clusters
        self.n_clusters = n_clusters
        self.knee = knee
        self.covariance_type = covariance_type
        self.gmm_params = gmm_params
        self.top_fraction = top_fraction
        self.min_cluster_size = min_cluster_size
        self.small_clusters = small_clusters
        self.n_iterations = n_iterations
        self.tune = tune
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.use_dask = use_dask

    def _cluster(self, Z, seed, client, gmm_params):
        """GMM on the labeled positives: BIC sweep (or fixed k), knee, final responsibilities."""
        n_l = Z.shape[0]
        if self.n_clusters is not None:
            k = min(int(self.n_clusters), n_l)
            _, resp = _fit_gmms(Z, [k], [derive_seed("PULSNAR", seed, "gmm", k)], 1, None,
                                self.covariance_type, gmm_params)[0]
            return k, np.empty(0), resp
        ks = list(range(1, min(int(self.max_clusters), n_l) + 1))
        fits = _fit_gmms(Z, ks, [derive_seed("PULSNAR", seed, "gmm", k) for k in ks], self.n_jobs, client,
                         self.covariance_type, gmm_params)
        bic = np.array([f[0] for f in fits])
        k = bic_knee(bic, self.knee)
        return k, bic, fits[k - 1][1]

    def _labels_from_resp(self, resp, min_size):
        """Cluster of every labeled row (-1: dropped). Argmax labels; empty components
        vanish; components with fewer than ``min_size`` rows are dropped
        (``small_clusters="drop"``) or, smallest first, removed from the argmax so their
        rows go to their next most likely component (``"merge"``)."""
        lab = np.argmax(resp, axis=1)
        if self.small_clusters == "drop":
            counts = np.bincount(lab, minlength=resp.shape[1])
            keep = counts >= min_size
            if not keep.any():  # every cluster is small: keep the largest (never an empty estimate)
                keep[np.argmax(counts)] = True
            lab = np.where(keep[lab], lab, -1)
        else:
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
        used = np.unique(lab[lab >= 0])
        remap = np.full(resp.shape[1], -1, dtype=np.int64)
        remap[used] = np.arange(used.size)
        return np.where(lab >= 0, remap[np.maximum(lab, 0)], -1)

    def _validate_params(self):
        """scikit-learn's constraints, then PULSCAR's further checks
        (:func:`pu_lib.prior.pulscar.check_xgboost_settings`) and ``gmm_params``."""
        super()._validate_params()
        check_xgboost_settings(self)
        _check_gmm_params(self.gmm_params)

    def _estimate(self, X, s):
        bandwidth_range = check_bandwidth_range(self.bandwidth_range)
        xgb_params = xgb_settings(self)
        gmm_params = _check_gmm_params(self.gmm_params)
        tf = float(self.top_fraction)
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        client = resolve_client(self.use_dask)
        lab_rows = np.flatnonzero(s == 1)
        unl_rows = np.flatnonzero(s == 0)
        max_depth = self.max_depth
        if self.tune is not None:  # one choice on all rows, for the importance and the cluster models
            max_depth, xgb_params, _ = tune_classifier(self, X, s, derive_seed("PULSNAR", seed, "tune"))

        # booster "hist_boost": one binning of X serves the importance model and every fold
        binned = None
        if self.booster == "hist_boost":
            from pu_lib.hist_boost import bin_features

            Xb, _, nb = bin_features(X, dict(xgb_params).get("max_bin", 255), effective_n_jobs(self.n_jobs))
            binned = (Xb, nb)

        # Algorithm 3, line 1: important features and gain scores from XGBoost on all (X, s)
        idx, gains = xgb_gain_importances(X, s, max_depth=max_depth,
                                          random_state=derive_seed("PULSNAR", seed, "importance"),
                                          n_jobs=self.n_jobs, xgb_params=xgb_params, booster=self.booster,
                                          binned=binned)
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
        Z = _impute_columns(_dense_with_nan(X, lab_rows, idx)) * gains[None, :]
        k, bic, resp = self._cluster(Z, seed, client, gmm_params)
        self.bic_ = bic
        self.n_clusters_bic_ = int(k)
        labels = self._labels_from_resp(resp, max(int(self.min_cluster_size), int(self.n_folds)))
        n_clusters = int(labels.max()) + 1
        self.n_clusters_ = n_clusters
        self.cluster_labels_ = labels
        self.n_dropped_ = int(np.sum(labels < 0))

        # lines 5-10: PULSCAR on (cluster j positives + all unlabeled), CV folds of all clusters and
        # iterations together; problem j * n_it + it is cluster j's iteration it (iteration 0: the seeds
        # of a single run)
        n_it = int(self.n_iterations)
        Xi = X[:, idx] if is_sparse(X) else np.ascontiguousarray(X[:, idx])
        problems = []
        for j in range(n_clusters):
            rows = np.sort(np.concatenate([lab_rows[labels == j], unl_rows]))
            problems.extend((rows, iteration_seed("PULSNAR", seed, "cluster", j, "cv", iteration=it))
                            for it in range(n_it))
        probs = cv_probabilities_many(Xi, s, problems, estimator=self.estimator, n_folds=self.n_folds,
                                      n_jobs=self.n_jobs, max_depth=max_depth, xgb_params=xgb_params,
                                      booster=self.booster, use_dask=self.use_dask,
                                      binned=None if binned is None else (np.ascontiguousarray(binned[0][:, idx]),
                                                                          binned[1][idx]))
        probs_lab, probs_unl = [], np.empty((len(problems), unl_rows.shape[0]))
        for q, ((rows, _), p) in enumerate(zip(problems, probs)):
            is_lab = s[rows] == 1
            probs_lab.append(p[is_lab])
            probs_unl[q] = p[~is_lab]
        tasks = [
            (probs_lab[q], probs_unl[q], self.n_bins, self.bin_rule,
             iteration_seed("PULSNAR", seed, "cluster", q // n_it, "bandwidth", iteration=q % n_it),
             bandwidth_range, self.bandwidth_search)
            for q in range(len(problems))
        ]
        results = parallel_map(_pulscar_task, tasks, n_jobs=self.n_jobs, client=client)
        alphas = np.array([r.alpha for r in results], dtype=np.float64).reshape(n_clusters, n_it)
        first = results[::n_it]
        self.cluster_alphas_ = alphas.mean(axis=1)
        self.iteration_alphas_ = alphas.sum(axis=0)
        self.cluster_n_bins_ = np.array([r.n_bins for r in first], dtype=np.int64)
        self.cluster_bandwidths_ = np.array([r.bandwidth for r in first], dtype=np.float64)
        self.cluster_objectives_ = [r.objective for r in first]
        self.cluster_probs_labeled_ = probs_lab[::n_it]
        self.cluster_probs_unlabeled_ = probs_unl[::n_it].copy()
        return "alpha", float(self.cluster_alphas_.sum())
