"""PULSCAR class-prior estimator for SCAR data (Kumar & Lambert, PeerJ Computer Science
10:e2451, 2024, Algorithm 1; the paper is ``pulsnar.md``).

PULSCAR estimates ``alpha``, the fraction of positives among the unlabeled examples:
out-of-fold class-1 probabilities of a classifier (XGBoost, 5-fold CV;
:mod:`pu_lib.oof`) trained to separate labeled from unlabeled rows, then the
beta-kernel densities of the labeled and unlabeled probabilities and the objective of
eq. 3 (:mod:`pu_lib.prior._beta_density`, where the implementation choices are listed).

**Classifier**: ``xgboost.XGBClassifier(tree_method="hist", max_depth=...,
learning_rate=...)`` with ``scale_pos_weight = |U| / |P|`` per fold (paper);
``xgb_params`` passes further parameters. The estimates depend strongly on the
classifier: on the synthetic SCAR data ``max_depth=4`` gave a mean absolute error of
0.014 (40 data sets) against 0.030 for XGBoost's default 6.

*Tree method (a choice).* The authors' code sets no ``tree_method``, so it gets XGBoost's
default: ``hist`` since XGBoost 2.0, the exact greedy method before it on data of these
sizes (the paper's experiments predate XGBoost 2.0; their repository pins no version).
We use ``hist``, the default of the XGBoost their code runs with today, and the one whose
estimates their released code reproduces on the same draws. ``xgb_params={"tree_method":
"exact"}`` gives the exact trees (importance model and folds): on the authors' SNAR
generator (seeds 0-19 at alpha 0.4 and 0.5, 0-7 at 0.1) PULSNAR's mean absolute error
was 0.061 with them against 0.084 with ``hist`` on the same 48 draws (Wilcoxon p = 0.016),
at a higher cost per fit (docs/class_priors.md, "PULSNAR beside the authors' code").

**Defaults** (:data:`PULSCAR_DEFAULTS`) are the settings of the authors' synthetic-data
example (``unmtransinfo/PULSNAR``: ``examples/pulscar_syn_alpha_estimation_1.py`` with
``examples/testparams/pulscar_synthetic_alpha.yaml``), parameter by parameter:

=====================  ==========  ==========================================================
parameter              default     source
=====================  ==========  ==========================================================
``n_folds``            5           ``kfold=5`` (and the paper: "five-fold cross-validation")
``max_depth``          4           YAML ``XGB_params.max_depth: 4`` (also 10 of the 13
                                   per-data-set PULSCAR YAMLs use 4)
``learning_rate``      0.3         not set in that YAML, so XGBoost's own default 0.3
``bin_rule``           ``"rice"``  ``bin_method='rice'``
``bandwidth_range``    (0.05, 0.5) ``lowerbw=0.05, upperbw=0.5``
``bandwidth_search``   ``"local"`` ``optim='local'`` (bounded scalar minimisation; every
                                   example script uses it)
``n_iterations``       1           ``n_iterations=1`` (the CV and the estimate are run once)
=====================  ==========  ==========================================================

The authors' library class itself defaults to ``bin_method='scott'``, ``lowerbw=0.01``,
``optim='global'`` and ``max_depth`` 6 (``PulsnarParams.XGB_params``); their examples and
paper runs override all four, so the examples are what we follow.

Parallelism and determinism: the CV folds run on ``n_jobs`` local threads, or as Dask
tasks when a Dask client is active; all seeds are derived up front from ``random_state``
(:func:`pu_lib._seeding.derive_seed`); XGBoost ``hist`` models are bit-identical for any
thread count and the kernel density uses no BLAS, so a seed gives the same alpha
whatever ``n_jobs`` or Dask.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib.distributed import effective_n_jobs
from pu_lib.prior._beta_density import BANDWIDTH_SEARCHES, BIN_RULES, check_bandwidth_range, pulscar_alpha
from pu_lib.oof import (BOOSTERS, check_booster, check_extra_xgb_params, check_xgb_estimator, cv_probabilities_many,
                        hist_boost_params)
from pu_lib.base import RANDOM_STATE_CONSTRAINT, SparseWhen, learner_accepts_sparse
from pu_lib.prior.base import BasePriorEstimator
from pu_lib.prior.tuning import TUNE_CONSTRAINT, check_tune, tune_classifier

__all__ = ["PULSCAR", "PULSCAR_DEFAULTS", "SPARSE_WITH_XGBOOST", "iteration_seed", "xgb_settings"]

#: PULSCAR's defaults: the authors' synthetic-data example (see the module docstring)
PULSCAR_DEFAULTS: dict = {
    "n_folds": 5,
    "max_depth": 4,
    "learning_rate": 0.3,
    "bin_rule": "rice",
    "bandwidth_range": (0.05, 0.5),
    "bandwidth_search": "local",
    "n_iterations": 1,
}


def iteration_seed(*keys, iteration: int) -> int:
    """The seed of iteration ``iteration`` (``n_iterations`` of PULSCAR / PULSNAR):
    ``derive_seed(*keys)`` for iteration 0, so that a single run keeps its seeds, and
    ``derive_seed(*keys, iteration)`` for the others."""
    return derive_seed(*keys) if iteration == 0 else derive_seed(*keys, iteration)


def xgb_settings(estimator) -> dict:
    """The further XGBoost parameters of a PULSCAR/PULSNAR instance: ``learning_rate``
    merged with ``xgb_params`` (which may not set it twice)."""
    extra = dict(estimator.xgb_params or {})
    if "learning_rate" in extra:
        raise ValueError("xgb_params must not set 'learning_rate'; use the learning_rate parameter")
    return {"learning_rate": float(estimator.learning_rate), **extra}


def check_xgboost_settings(estimator) -> None:
    """The checks of a PULSCAR / PULSNAR instance's parameters beyond scikit-learn's
    constraints, run by ``_validate_params`` (so when ``fit`` starts and when a workflow
    config is read): ``bandwidth_range`` a pair ``0 < low < high``; ``xgb_params`` a dict
    of XGBoost parameters that XGBoost accepts (each tried on a one-tree model:
    :func:`pu_lib.oof.check_xgb_params`; ``n_estimators`` >= 1), none of which has
    its own argument; an XGBoost classifier given as ``estimator`` likewise. Each
    problem is a ``ValueError`` naming the parameter."""
    check_bandwidth_range(estimator.bandwidth_range)
    if check_booster(estimator.booster, estimator.estimator) == "hist_boost":
        hist_boost_params(estimator.max_depth, xgb_settings(estimator))
    else:
        check_extra_xgb_params(xgb_settings(estimator))
    check_xgb_estimator(estimator.estimator)
    check_tune(estimator)

#: sparse X for PULSCAR and PULSNAR: with booster "xgboost" (the default) and the default
#: XGBoost or a classifier that takes sparse input. XGBoost reads the entries a sparse
#: matrix does not store as missing values, not as zeros (dmlc/xgboost#21 and #1634: "sparse
#: elements are treated as missing by the tree booster"): the estimate on a CSR matrix is
#: the one on the dense array with NaN in place of the absent entries (tests/test_sparse_input.py)
SPARSE_WITH_XGBOOST = SparseWhen(
    lambda est: est.booster == "xgboost" and learner_accepts_sparse(est.estimator, default=True),
    "with booster='xgboost' and a classifier that takes sparse input; absent entries are missing values")

#: parameter constraints shared by PULSCAR and PULSNAR (scikit-learn's declarative checks)
PULSCAR_CONSTRAINTS: dict = {
    "estimator": [None, HasMethods(["fit", "predict_proba"])],
    "n_folds": [Interval(Integral, 2, None, closed="left")],
    "max_depth": [Interval(Integral, 1, None, closed="left")],
    "learning_rate": [Interval(Real, 0, None, closed="neither")],
    "bin_rule": [StrOptions(set(BIN_RULES))],
    "n_bins": [None, Interval(Integral, 2, None, closed="left")],
    # a pair (low, high), 0 < low < high: the pair is checked at the start of fit
    "bandwidth_range": ["array-like"],
    "bandwidth_search": [StrOptions(set(BANDWIDTH_SEARCHES))],
    # a dict of further XGBoost parameters; keys with their own argument are refused by
    # pu_lib.oof.make_xgb before any model is fitted
    "xgb_params": [None, dict],
    "booster": [StrOptions(set(BOOSTERS))],
    "n_iterations": [Interval(Integral, 1, None, closed="left")],
    "tune": TUNE_CONSTRAINT,
    "random_state": RANDOM_STATE_CONSTRAINT,
    "n_jobs": [None, Interval(Integral, None, -1, closed="right"), Interval(Integral, 1, None, closed="left")],
}


class PULSCAR(BasePriorEstimator):
    """PULSCAR class-prior estimator for SCAR data (Kumar & Lambert 2024, Algorithm 1).

    Parameters
    ----------
    estimator : None (XGBoost, ``tree_method="hist"``, ``max_depth``) or a scikit-learn
        classifier with ``predict_proba``, cloned per CV fold.
    n_folds : CV folds for the out-of-fold probabilities (5).
    max_depth : ``max_depth`` of the default XGBoost (4, the authors' setting).
    learning_rate : ``learning_rate`` of the default XGBoost (0.3, XGBoost's default,
        which the authors' PULSCAR synthetic-data config leaves unchanged).
    bin_rule : ``"rice"`` (default, the authors' examples), ``"scott"``, ``"fd"``,
        ``"sqrt"`` or ``"sturges"``.
    n_bins : None (from ``bin_rule``) or a fixed grid size >= 2.
    bandwidth_range : bandwidth search interval ``(low, high)``, ``0 < low < high``;
        default (0.05, 0.5) (the authors' synthetic-data example).
    bandwidth_search : ``"local"`` (default; bounded scalar minimisation, the authors'
        examples) or ``"global"`` (differential evolution, seeded).
    xgb_params : further parameters of the default XGBoost (dict; not ``max_depth``,
        ``learning_rate``, ``random_state``, ``n_jobs``, ``scale_pos_weight``), e.g.
        ``{"tree_method": "exact"}`` (the module docstring says why ``hist`` is the default).
    booster : ``"xgboost"`` (default; the paper's classifier) or ``"hist_boost"``: the same
        boosted trees (``binary:logistic``, ``max_depth``, ``learning_rate``, XGBoost's
        other defaults) grown by :mod:`pu_lib.hist_boost` on bins computed once for all
        folds, several times faster; ``xgb_params`` may then set only ``n_estimators``,
        ``reg_lambda``, ``min_child_weight``, ``gamma`` and ``max_bin``.
    n_iterations : how many times the cross-validation and the estimate are run, each
        time with other folds and fold models; ``alpha_`` is the mean of the iterations'
        estimates (the authors' ``n_iterations``: ``PULSNARClassifier.pulsnar`` returns
        the mean of ``est_alphas`` over ``range(n_iterations)``, each iteration with its
        own fold seed). Default 1, the authors' examples. More iterations average out the
        fold noise of a single split at ``n_iterations`` times the cost; the bias of the
        estimate stays (docs/class_priors.md, "n_iterations").
    tune : None (default: ``max_depth`` and ``learning_rate`` as given) or ``"cv_logloss"``:
        the default XGBoost's ``max_depth``, ``learning_rate`` and ``n_estimators`` are
        chosen from a small grid around the authors' settings by the cross-validated
        log-loss of ``s`` on ``(X, s)``, on the estimator's own folds (no true label is
        used; :mod:`pu_lib.prior.tuning`, which states the grid and its source); the
        given ``max_depth`` and ``learning_rate`` are then ignored. The docs measure it
        (docs/class_priors.md, "Classifier settings by cross-validated log-loss").
    random_state : None, int, Generator or RandomState; None draws a fresh seed per fit.
    n_jobs : threads (CV folds and kernel sums); a Dask client, when active, runs the
        folds. The estimate does not depend on ``n_jobs`` or Dask.

    Sparse ``X`` (CSR, CSC, ...) is taken with ``booster="xgboost"``: XGBoost reads the
    entries the matrix does not store as *missing*, not as zeros, so the estimate equals
    the one on the dense array with NaN in place of the absent entries
    (:data:`SPARSE_WITH_XGBOOST`).

    Attributes
    ----------
    alpha_, prior_, c_, ... : see :class:`~pu_lib.prior.base.BasePriorEstimator`.
    iteration_alphas_ : the estimate of every iteration (``alpha_`` clips their mean).
    tuned_params_, tuning_results_ : with ``tune``: the chosen ``max_depth``,
        ``learning_rate`` and ``n_estimators``, and every grid setting with its CV log-loss.
    probs_ : out-of-fold class-1 probabilities of all rows, in row order (first iteration,
        as the attributes below).
    n_bins_, bandwidth_ : grid size and beta-kernel bandwidth used.
    grid_, density_pos_, density_unl_ : the grid and the densities ``f_p``, ``f_u``.
    alphas_, objective_ : the alpha grid and the objective curve (eq. 3).
    """

    _parameter_constraints: dict = dict(PULSCAR_CONSTRAINTS)
    _allow_nan = True
    _accepts_sparse = SPARSE_WITH_XGBOOST
    #: ``n_folds`` (:meth:`min_labeled`): the out-of-fold probabilities come from stratified
    #: ``n_folds``-fold cross-validation, which puts a labeled row in every fold
    _MIN_LABELED_WHY = "one per fold of the stratified n_folds={self.n_folds} cross-validation"

    def min_labeled(self) -> int:
        """``n_folds``: the stratified cross-validation needs a labeled row in every fold."""
        return int(self.n_folds)

    def __init__(self, estimator=None, *, n_folds=5, max_depth=4, learning_rate=0.3, bin_rule="rice", n_bins=None,
                 bandwidth_range=(0.05, 0.5), bandwidth_search="local", xgb_params=None, booster="xgboost",
                 n_iterations=1, tune=None, random_state=None, n_jobs=1):
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
        self.n_iterations = n_iterations
        self.tune = tune
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _validate_params(self):
        super()._validate_params()
        check_xgboost_settings(self)

    def _estimate(self, X, s):
        bandwidth_range = check_bandwidth_range(self.bandwidth_range)
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        # the folds of all iterations are scheduled together (one float32 copy / one binning of X)
        rows = np.arange(X.shape[0], dtype=np.int64)
        problems = [(rows, iteration_seed("PULSCAR", seed, "cv", iteration=it)) for it in range(int(self.n_iterations))]
        max_depth, xgb_params, tuned = self.max_depth, xgb_settings(self), []
        if self.tune is not None:  # the first iteration's folds: their probabilities are the tuning's
            max_depth, xgb_params, oof = tune_classifier(self, X, s, problems[0][1])
            tuned, problems = [oof], problems[1:]
        all_probs = tuned + (cv_probabilities_many(X, s, problems, estimator=self.estimator, n_folds=self.n_folds,
                                                   n_jobs=self.n_jobs, max_depth=max_depth, xgb_params=xgb_params,
                                                   booster=self.booster) if problems else [])
        results = []
        for it, probs in enumerate(all_probs):
            res = pulscar_alpha(probs[s == 1], probs[s == 0], n_bins=self.n_bins, bin_rule=self.bin_rule,
                                random_state=iteration_seed("PULSCAR", seed, "bandwidth", iteration=it),
                                bandwidth_range=bandwidth_range, bandwidth_search=self.bandwidth_search,
                                n_jobs=effective_n_jobs(self.n_jobs))
            if it == 0:
                first = (probs, res)
            results.append(res.alpha)
        probs, res = first
        self.iteration_alphas_ = np.array(results, dtype=np.float64)
        self.probs_ = probs
        self.n_bins_ = res.n_bins
        self.bandwidth_ = res.bandwidth
        self.grid_ = res.grid
        self.density_pos_ = res.density_pos
        self.density_unl_ = res.density_unl
        self.alphas_ = res.alphas
        self.objective_ = res.objective
        return "alpha", float(np.mean(self.iteration_alphas_))
