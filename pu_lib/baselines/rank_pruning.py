"""Rank Pruning for PU data (Northcutt, Wu & Chuang, UAI 2017).

C. G. Northcutt, T. Wu and I. L. Chuang, "Learning with confident examples: Rank
pruning for robust classification with noisy labels", UAI 2017. The observed label
``s`` is a noisy copy of the true class ``y``; the noise rates are
``rho1 = P(s=0|y=1)`` and ``rho0 = P(s=1|y=0)``, the inverse noise rates
``pi1 = P(y=0|s=1)`` and ``pi0 = P(y=1|s=0)``. PU learning is the case ``rho0 = 0``
(no labeled negatives) and, under SCAR, ``rho1 = 1 - c`` with the label frequency ``c``.

Algorithm (the paper's Algorithm 1 with ``rho0 = 0``):

1. ``g(x) = P(s=1|x)``: out-of-fold probabilities of the base classifier fitted on
   ``(X, s)`` (:func:`pu_lib.oof.cv_probabilities`, stratified K folds).
2. Confident counts (the paper's estimator ``rho^conf``, thresholds ``LB_{y=1}``, ``UB_{y=0}``): ``LB_{y=1} = mean of g over s = 1``,
   ``UB_{y=0} = mean of g over s = 0``;
   ``P~_{y=1} = {s=1, g >= LB}``, ``N~_{y=1} = {s=0, g >= LB}``,
   ``rho1 = |N~_{y=1}| / (|N~_{y=1}| + |P~_{y=1}|)``, clipped to ``[0, 0.9999]``
   (``rho0`` likewise from ``UB_{y=0}``, but set to 0 in the PU case).
3. Inverse noise rates (the paper's ``pi^conf`` from ``rho^conf``): ``p_s1 = P(s=1)``, ``p_y1 = (p_s1 - rho0) / (1 - rho1 - rho0)``,
   ``pi1 = rho0 (1 - p_y1) / p_s1`` (= 0 for PU), ``pi0 = rho1 p_y1 / (1 - p_s1)``,
   each clipped to ``[0, 0.9999]``.
4. Prune (Algorithm 1, "rank and prune"): the ``k1 = pi1 |P~|`` labeled rows with the
   smallest ``g`` (none for PU) and the ``k0 = pi0 |N~|`` unlabeled rows with the largest
   ``g``.
5. Refit the base classifier on the kept rows with the paper's loss reweighting: weight
   ``1 / (1 - rho1)`` for kept ``s = 1`` rows and ``1 / (1 - rho0)`` (= 1) for kept
   ``s = 0`` rows, so that the "apparent" class sizes are restored. ``predict_proba`` is
   the refitted classifier's.

Defaults and details taken from the authors' reference implementation
(``rankpruning/rankpruning.py`` in GitHub ``cgnorthcutt/rankpruning``), fact by fact:

* ``n_folds = 3``: ``RankPruning.fit(cv_n_folds=3)``;
* the noise rates are estimated **per fold**, on each fold's held-out probabilities (with
  that fold's own ``LB`` / ``UB``), and averaged over the folds, leaving out folds where
  the estimate is undefined (``compute_noise_rates_and_cv_pred_proba``,
  ``_mean_without_nan_inf``); clipping to ``[0, 0.9999]``;
* ``k = int(pi * n)`` (truncation) and at least ``MIN_NUM_PER_CLASS = 10`` rows of each
  class are kept: ``k0 = max(min(int(pi0 n_0), n_0 - 10), 0)`` (``get_noise_indices``);
* PU learning sets ``rho0 = 0`` (``fit(pulearning=...)``; the PU Hellinger authors call it
  as ``RankPruning(clf=LogisticRegression(penalty=None), frac_neg2pos=0)`` in
  ``expsetup.py`` of ``CarlosOrtegaV/PU_Hellinger_Trees``).

Choices where the reference differs or is silent:

* the reference prunes the rows whose ``g`` is strictly above the ``(k0+1)``-th largest
  value, so ties there prune fewer than ``k0``; here exactly ``k0`` rows are pruned, the
  largest ``g`` first and ties by row order (the paper's count);
* the default base classifier is the library's ``StandardScaler`` +
  ``LogisticRegression(max_iter=1000)`` (:func:`pu_lib.base_learners.default_logistic_regression`,
  as for every baseline here); the reference defaults to scikit-learn's
  ``LogisticRegression()`` and the PU Hellinger authors use ``penalty=None`` (a config's
  ``base:`` / ``estimator`` gives either);
* no ``sample_weight``: the out-of-fold step cannot give repeated rows and integer weights
  the same folds.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import validate_pu_data
from pu_lib.base import RANDOM_STATE_CONSTRAINT, SPARSE_WITH_BASE, PUClassifierMixin
from pu_lib.base_learners import check_predict_X, clone_base, fit_base, positive_proba
from pu_lib.oof import cv_probabilities

__all__ = ["MIN_NUM_PER_CLASS", "RankPruningClassifier", "confident_noise_rates", "inverse_noise_rates",
           "prune_counts"]

#: rows of each class never pruned (reference implementation, ``MIN_NUM_PER_CLASS``)
MIN_NUM_PER_CLASS = 10
_CLIP = 0.9999


def confident_noise_rates(s: np.ndarray, g: np.ndarray) -> tuple[float, float]:
    """``(rho1, rho0)`` by the paper's confident counts on one set of rows:
    ``LB = mean g over s = 1``, ``UB = mean g over s = 0``;
    ``rho1 = #{s=0, g >= LB} / #{g >= LB}``, ``rho0 = #{s=1, g <= UB} / #{g <= UB}``,
    clipped to ``[0, 0.9999]``; NaN where a denominator is 0."""
    lab = s == 1
    lb = g[lab].mean() if lab.any() else np.nan
    ub = g[~lab].mean() if (~lab).any() else np.nan
    above, below = g >= lb, g <= ub
    n_above, n_below = int(above.sum()), int(below.sum())
    rho1 = np.count_nonzero(above & ~lab) / n_above if n_above else np.nan
    rho0 = np.count_nonzero(below & lab) / n_below if n_below else np.nan
    return float(np.clip(rho1, 0.0, _CLIP)), float(np.clip(rho0, 0.0, _CLIP))


def inverse_noise_rates(p_s1: float, rho1: float, rho0: float = 0.0) -> tuple[float, float, float]:
    """``(p_y1, pi1, pi0)`` from ``P(s=1)`` and the noise rates (the paper's ``pi^conf``):
    ``p_y1 = (p_s1 - rho0) / (1 - rho1 - rho0)``, ``pi1 = rho0 (1 - p_y1) / p_s1``,
    ``pi0 = rho1 p_y1 / (1 - p_s1)``; ``pi1``, ``pi0`` clipped to ``[0, 0.9999]``."""
    p_y1 = (p_s1 - rho0) / (1.0 - rho1 - rho0)
    pi1 = rho0 * (1.0 - p_y1) / p_s1
    pi0 = rho1 * p_y1 / (1.0 - p_s1)
    return float(p_y1), float(np.clip(pi1, 0.0, _CLIP)), float(np.clip(pi0, 0.0, _CLIP))


def prune_counts(n1: int, n0: int, pi1: float, pi0: float) -> tuple[int, int]:
    """``(k1, k0)``: rows to prune from the labeled (``n1``) and unlabeled (``n0``) rows,
    ``k = max(min(int(pi n), n - MIN_NUM_PER_CLASS), 0)`` (reference implementation)."""
    k1 = max(min(int(pi1 * n1), n1 - MIN_NUM_PER_CLASS), 0)
    k0 = max(min(int(pi0 * n0), n0 - MIN_NUM_PER_CLASS), 0)
    return k1, k0


class RankPruningClassifier(PUClassifierMixin, BaseEstimator):
    """Rank Pruning (Northcutt et al., UAI 2017, Algorithm 1) for PU data (``rho0 = 0``).

    See the module docstring for the steps, equations and the source of each default.

    Parameters
    ----------
    estimator : unfitted probabilistic classifier (``fit`` with ``sample_weight``, and
        ``predict_proba``), used for the out-of-fold ``g`` and for the final refit; default
        ``StandardScaler`` + ``LogisticRegression(max_iter=1000)``.
    n_folds : folds of the out-of-fold probabilities (reference default 3).
    random_state : None, int, ``numpy.random.Generator`` or ``RandomState``: the folds and the seeds of the
        base models (set on a base with a ``random_state`` parameter).
    n_jobs : threads for the folds (:func:`pu_lib.oof.cv_probabilities`); the result does
        not depend on it.

    Attributes
    ----------
    estimator_ : the base classifier refitted on the kept rows with the paper's weights.
    oof_probabilities_ : out-of-fold ``g(x) = P(s=1|x)`` of the training rows.
    folds_ : each training row's fold.
    rho1_fold_ : per-fold confident-count estimates of ``rho1`` (NaN where undefined).
    rho1_ : mean over folds of ``rho1_fold_`` (an estimate of ``1 - c`` under SCAR).
    rho0_ : 0.0 (PU learning).
    pi1_, pi0_ : inverse noise rates; ``pi1_ = 0``.
    prior_ : ``p_y1 = P(s=1) / (1 - rho1_)``, the implied class prior, at most 1.
    n_pruned_ : ``(k1, k0)``, rows pruned among labeled and unlabeled rows.
    pruned_indices_ : training-row indices of the pruned rows (sorted).
    sample_weight_ : the weights of the final fit on the kept rows (in row order).
    classes_ : ``array([0, 1])``; ``n_features_in_``; ``feature_names_in_`` for a DataFrame.

    **predict_proba** (kind ``"posterior"``, docs/probabilities.md): the refitted base model's
    ``P(y = 1 | x)`` (with a probabilistic base such as the default logistic regression).
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "posterior"

    #: sparse X (as CSR) when the base learner takes it (pu_lib.base.SPARSE_WITH_BASE)
    _accepts_sparse = SPARSE_WITH_BASE

    _parameter_constraints: dict = {
        "estimator": [None, HasMethods(["fit", "predict_proba"])],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "random_state": RANDOM_STATE_CONSTRAINT,
        "n_jobs": [None, Interval(Integral, None, -1, closed="right"), Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, estimator=None, *, n_folds=3, random_state=None, n_jobs=1):
        self.estimator = estimator
        self.n_folds = n_folds
        self.random_state = random_state
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled)."""
        X, s, _, _ = validate_pu_data(self, X, s)
        n_folds = int(self.n_folds)
        n1 = int(s.sum())
        n0 = s.shape[0] - n1
        if min(n1, n0) < n_folds:
            raise ValueError(f"n_folds={n_folds} needs at least {n_folds} labeled and {n_folds} unlabeled rows; "
                             f"got {n1} labeled and {n0} unlabeled")
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        base = clone_base(self.estimator, derive_seed(seed, "RankPruningClassifier", "model"))
        g, folds = cv_probabilities(X, s, estimator=base, n_folds=n_folds,
                                    random_state=derive_seed(seed, "RankPruningClassifier", "folds"),
                                    n_jobs=self.n_jobs, scale_pos_weight=None, return_folds=True)
        rho1_fold = np.array([confident_noise_rates(s[folds == k], g[folds == k])[0] for k in range(n_folds)])
        finite = np.isfinite(rho1_fold)
        if not finite.any():
            raise ValueError("rho1 is undefined in every fold (no row reaches the mean probability of the "
                             "labeled rows); the base classifier separates nothing")
        rho1 = float(rho1_fold[finite].mean())
        rho0 = 0.0
        p_s1 = n1 / s.shape[0]
        p_y1, pi1, pi0 = inverse_noise_rates(p_s1, rho1, rho0)
        k1, k0 = prune_counts(n1, n0, pi1, pi0)

        lab_rows, unl_rows = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
        prune_lab = lab_rows[np.argsort(g[lab_rows], kind="stable")[:k1]]  # least P(s=1): smallest g first
        prune_unl = unl_rows[np.argsort(-g[unl_rows], kind="stable")[:k0]]  # largest g first
        pruned = np.sort(np.concatenate([prune_lab, prune_unl]))
        keep = np.ones(s.shape[0], dtype=bool)
        keep[pruned] = False
        s_keep = s[keep]
        w = np.where(s_keep == 1, 1.0 / (1.0 - rho1), 1.0 / (1.0 - rho0))
        fit_base(base, X[keep], s_keep, w)

        self.estimator_ = base
        self.oof_probabilities_ = g
        self.folds_ = folds
        self.rho1_fold_ = rho1_fold
        self.rho1_ = rho1
        self.rho0_ = rho0
        self.pi1_, self.pi0_ = pi1, pi0
        self.prior_ = float(min(p_y1, 1.0))
        self.n_pruned_ = (k1, k0)
        self.pruned_indices_ = pruned
        self.sample_weight_ = w
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X) -> np.ndarray:
        """``(n, 2)``; column 1 is the refitted classifier's ``P(y = 1 | x)``."""
        X = check_predict_X(self, X)
        p = positive_proba(self.estimator_, X)
        return np.column_stack([1.0 - p, p])

    def predict(self, X) -> np.ndarray:
        """1 where ``predict_proba(X)[:, 1] >= 0.5``."""
        return (self.predict_proba(X)[:, 1] >= 0.5).astype(np.int64)

    def decision_function(self, X) -> np.ndarray:
        """``predict_proba(X)[:, 1] - 0.5`` (positive exactly where :meth:`predict` is 1, but at 0)."""
        return self.predict_proba(X)[:, 1] - 0.5
