"""The PU Extra Trees paper's PUBaggingET baseline (Wilton et al. 2022): PU bagging
(Mordelet and Vert 2014) with a PN Extra Trees base classifier."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Integral, Interval, RealNotInt
from sklearn.utils.validation import check_is_fitted

from pu_lib._rounding import round_half_up
from pu_lib._seeding import seed_to_int
from pu_lib.base import PUClassifierMixin
from pu_lib.trees import PNExtraTreesClassifier
from pu_lib.trees._classes import (
    _FOREST_CONSTRAINTS,
    _PN_CONSTRAINT,
    _TREE_CONSTRAINTS,
    check_pu_fit_data,
    check_X_fit,
)

__all__ = ["PUBaggingExtraTreesClassifier"]


class PUBaggingExtraTreesClassifier(PUClassifierMixin, BaseEstimator):
    """PUBaggingET: PU bagging (Mordelet and Vert 2014) with a
    :class:`pu_lib.trees.PNExtraTreesClassifier` base.

    For each of ``n_estimators`` bags: draw a bootstrap sample of the unlabeled rows
    (``s = 0``), fit a PN Extra Trees forest (``base_n_estimators`` trees) with all
    labeled positives as class 1 and the bag as class 0. ``predict_proba`` is the mean
    over bags of the base forests' probabilities; ``predict`` is ``predict_proba > 0.5``;
    ``oob_decision_`` holds, for the unlabeled training rows, Mordelet and Vert's
    out-of-bag average score (NaN for a row that was in every bag).

    **Bags.** A bag holds ``max_samples`` draws (an int), or, for a float in (0, 1], that
    fraction of the total unlabeled weight, rounded half up (default 1.0: as many draws as
    there are unlabeled rows, the paper's "size of the dataset"). Each draw is a uniform
    real in ``[0, total unlabeled weight)`` mapped through the cumulative ``sample_weight``
    of the unlabeled rows in row order (weight 1 each by default), so a row is drawn with
    probability proportional to its weight, an integer weight ``k`` acts exactly as ``k``
    copies of the row (in place, as ``np.repeat`` makes them) and a zero weight as the
    row's absence. The labeled positives enter each base forest with their weights
    (zero-weight ones left out), the drawn rows with weight 1 each.

    Fitted attributes: ``estimators_`` (the fitted base forests), ``oob_decision_``,
    ``classes_`` (``[0, 1]``), ``n_features_in_``, ``feature_importances_`` and
    ``feature_importances_normalized_`` (means over the base forests).
    """

    _parameter_constraints: dict = {
        "n_estimators": _FOREST_CONSTRAINTS["n_estimators"],
        "max_samples": [Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0.0, 1.0, closed="right")],
        "base_n_estimators": [Interval(Integral, 1, None, closed="left")],
        **_PN_CONSTRAINT,
        "max_features": _TREE_CONSTRAINTS["max_features"],
        "n_thresholds": _TREE_CONSTRAINTS["n_thresholds"],
        "max_depth": _TREE_CONSTRAINTS["max_depth"],
        "min_samples_leaf": _TREE_CONSTRAINTS["min_samples_leaf"],
        "random_state": _TREE_CONSTRAINTS["random_state"],
        "n_jobs": _FOREST_CONSTRAINTS["n_jobs"],
        "use_dask": _FOREST_CONSTRAINTS["use_dask"],
    }

    def __init__(self, n_estimators=10, max_samples=1.0, base_n_estimators=100, criterion="gini",
                 max_features="sqrt", n_thresholds=1, max_depth=None, min_samples_leaf=1, random_state=None,
                 n_jobs=None, use_dask="auto"):
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.base_n_estimators = base_n_estimators
        self.criterion = criterion
        self.max_features = max_features
        self.n_thresholds = n_thresholds
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.use_dask = use_dask

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled)."""
        Xv, s, sw = check_pu_fit_data(self, X, s, sample_weight)
        lab = s == 1
        if sw is not None:
            if not sw[lab].sum() > 0 or not sw[~lab].sum() > 0:
                side = "labeled (s == 1)" if not sw[lab].sum() > 0 else "unlabeled (s == 0)"
                raise ValueError(f"sample_weight is zero on every {side} row: one class of s left, "
                                 "PU bagging needs labeled positives and unlabeled data")
            lab = lab & (sw > 0)
        P = np.flatnonzero(lab)
        U = np.flatnonzero(s == 0)
        u_w = np.ones(U.size) if sw is None else sw[U]
        cum = np.cumsum(u_w)
        total = float(cum[-1])
        last = int(np.flatnonzero(u_w > 0)[-1])
        if isinstance(self.max_samples, numbers.Integral):
            k = int(self.max_samples)
        else:
            k = max(1, round_half_up(self.max_samples * total))
        p_w = None if sw is None else np.concatenate([sw[P], np.ones(k)])
        y = np.concatenate([np.ones(P.size, np.int8), np.zeros(k, np.int8)])

        rng = np.random.default_rng(seed_to_int(self.random_state, fresh_if_none=True))
        bag_seeds = rng.integers(0, 2**32, size=self.n_estimators)
        models = []
        oob_sum = np.zeros(U.size)
        oob_cnt = np.zeros(U.size)
        for b in range(self.n_estimators):
            brng = np.random.default_rng(int(bag_seeds[b]))
            pick = np.minimum(np.searchsorted(cum, brng.random(k) * total, side="right"), last)
            rows = np.concatenate([P, U[pick]])
            base = PNExtraTreesClassifier(
                n_estimators=self.base_n_estimators, criterion=self.criterion, max_features=self.max_features,
                n_thresholds=self.n_thresholds, max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf,
                random_state=int(brng.integers(2**32)), n_jobs=self.n_jobs, use_dask=self.use_dask,
            ).fit(Xv[rows], y, sample_weight=p_w)
            oob = np.ones(U.size, bool)
            oob[pick] = False
            if oob.any():
                oob_sum[oob] += base.predict_proba(Xv[U[oob]])[:, 1]
                oob_cnt[oob] += 1
            models.append(base)
        self.estimators_ = models
        self.n_features_in_ = Xv.shape[1]
        self.classes_ = np.array([0, 1])
        dec = np.full(U.size, np.nan)
        np.divide(oob_sum, oob_cnt, out=dec, where=oob_cnt > 0)
        self.oob_decision_ = dec
        return self

    def predict_proba(self, X):
        """Mean over bags of the base forests' ``predict_proba``."""
        check_is_fitted(self)
        X = check_X_fit(self, X, reset=False)
        p = np.mean([m.predict_proba(X)[:, 1] for m in self.estimators_], axis=0)
        return np.column_stack([1.0 - p, p])

    def decision_function(self, X):
        """``predict_proba(X)[:, 1] - 0.5``."""
        return self.predict_proba(X)[:, 1] - 0.5

    def predict(self, X):
        """1 iff ``predict_proba(X)[:, 1] > 0.5``."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(np.intp)]

    def _importances(self, normalized):
        check_is_fitted(self)
        return np.mean([m._importances(normalized) for m in self.estimators_], axis=0)

    @property
    def feature_importances_(self):
        """Mean over bags of the base forests' impurity-decrease importances."""
        return self._importances(False)

    @property
    def feature_importances_normalized_(self):
        """Mean over bags of the base forests' normalised importances."""
        return self._importances(True)
