"""ADASYN + random forest: the PU Hellinger paper's non-PU baseline (Ortega Vazquez,
vanden Broucke and De Weerdt, PU Hellinger trees, Table 2: "RF" with ADASYN resampling,
neighbours = 5, sampling strategy = balanced ratio, trees = 100).

The unlabeled rows are taken as negatives (the classifier learns ``s``, not ``y``): the
minority side of ``s`` is oversampled by ADASYN (He, Bai, Garcia and Li 2008, "ADASYN:
adaptive synthetic sampling approach for imbalanced learning", IJCNN) with
imbalanced-learn's implementation, and a scikit-learn random forest is fitted on the
resampled set. Where ADASYN refuses the data (fewer minority rows than neighbours + 1,
or no majority row among any minority row's neighbours), the authors' code
(``expsetup.py``: ``try: ADASYN(...).fit_resample(...) except: <original data>``) fits
the forest on the original rows; so does this class, and says so in ``resampled_`` and
``resample_error_``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from pu_lib._optional import require
from pu_lib._seeding import seed_to_int
from pu_lib._validation import validate_pu_data
from pu_lib.base import RANDOM_STATE_CONSTRAINT, PUClassifierMixin
from pu_lib.base_learners import check_predict_X, positive_proba

__all__ = ["ADASYNRandomForestClassifier"]


class ADASYNRandomForestClassifier(PUClassifierMixin, BaseEstimator):
    """ADASYN oversampling of ``s``'s minority side, then a random forest on ``s``.

    ``fit(X, s)``: ``ADASYN(sampling_strategy, n_neighbors, random_state)`` from
    imbalanced-learn resamples ``(X, s)`` (the synthetic rows follow the original rows);
    ``sklearn.ensemble.RandomForestClassifier(n_estimators, random_state, n_jobs)`` is
    fitted on the result. When ADASYN raises ``ValueError`` or ``RuntimeError`` (too few
    minority rows for ``n_neighbors``; no majority neighbour anywhere), the forest is
    fitted on ``(X, s)`` unchanged, as in the authors' code; ``resampled_`` is then False
    and ``resample_error_`` holds ADASYN's message.

    **Sample weights.** ADASYN takes none. Rows of weight 0 are dropped before
    resampling (so a zero weight is a removed row); ADASYN then counts the remaining
    rows unweighted, and the forest gets the original rows' weights and weight 1 for
    every synthetic row. Integer weights are therefore not the same as repeated rows
    (repeating a row changes ADASYN's neighbourhoods and its number of synthetic rows).

    Parameters (defaults: the PU Hellinger paper, Table 2, and its authors' code)
    ----------
    n_estimators : trees of the forest; 100 (Table 2; scikit-learn's default, which the
        authors' ``RandomForestClassifier(random_state=r, n_jobs=-1)`` uses).
    n_neighbors : ADASYN's neighbours; 5 (Table 2; imbalanced-learn's default).
    sampling_strategy : ADASYN's; ``"auto"`` (Table 2's "balanced ratio": the minority
        side is grown to the size of the majority side), or a float in (0, 1], the
        desired minority / majority ratio after resampling.
    random_state : None, int, ``numpy.random.Generator`` or ``RandomState``; the one integer seed goes to
        ADASYN and to the forest (the authors pass their ``r`` to both).
    n_jobs : threads of the forest (its result does not depend on them).

    Attributes
    ----------
    estimator_ : the fitted ``RandomForestClassifier``.
    resampled_ : whether ADASYN's output was used. ``resample_error_`` : its error or None.
    n_synthetic_ : number of synthetic rows (0 on the fallback path).
    resampled_counts_ : ``[#s=0, #s=1]`` of the forest's training set.
    classes_ (``[0, 1]``), ``n_features_in_``, ``feature_importances_``.

    **predict_proba** (kind ``"score"``, docs/probabilities.md): the forest's probability of
    ``s = 1`` on the oversampled data, not ``P(s = 1 | x)`` of the original rows nor
    ``P(y = 1 | x)``.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "score"

    _parameter_constraints: dict = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "sampling_strategy": [StrOptions({"auto"}), Interval(Real, 0.0, 1.0, closed="right")],
        "random_state": RANDOM_STATE_CONSTRAINT,
        "n_jobs": [None, Integral],
    }

    def __init__(self, *, n_estimators=100, n_neighbors=5, sampling_strategy="auto", random_state=None, n_jobs=None):
        self.n_estimators = n_estimators
        self.n_neighbors = n_neighbors
        self.sampling_strategy = sampling_strategy
        self.random_state = random_state
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled)."""
        ADASYN = require("imblearn.over_sampling", purpose=f"{type(self).__name__} (ADASYN oversampling)").ADASYN
        from sklearn.ensemble import RandomForestClassifier

        X, s, sw, _ = validate_pu_data(self, X, s, sample_weight=sample_weight)
        seed = seed_to_int(self.random_state)
        self.resample_error_ = None
        try:
            Xr, sr = ADASYN(sampling_strategy=self.sampling_strategy, n_neighbors=self.n_neighbors,
                            random_state=seed).fit_resample(X, s)
        except (ValueError, RuntimeError) as exc:
            Xr, sr = X, s
            self.resample_error_ = f"{type(exc).__name__}: {exc}"
        self.resampled_ = self.resample_error_ is None
        self.n_synthetic_ = int(sr.shape[0] - s.shape[0])
        sr = np.asarray(sr, dtype=np.int8)
        self.resampled_counts_ = np.bincount(sr, minlength=2)
        w = None if sw is None else np.concatenate([sw, np.ones(self.n_synthetic_)])
        forest = RandomForestClassifier(n_estimators=self.n_estimators, random_state=seed, n_jobs=self.n_jobs)
        self.estimator_ = forest.fit(Xr, sr, sample_weight=w)
        self.classes_ = np.array([0, 1])
        return self

    @property
    def feature_importances_(self):
        """The forest's impurity-decrease importances."""
        return self.estimator_.feature_importances_

    def predict_proba(self, X):
        """``(n, 2)``; column 1 is the forest's probability of ``s = 1``."""
        X = check_predict_X(self, X)
        p = positive_proba(self.estimator_, X)
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        """1 iff ``predict_proba(X)[:, 1] > 0.5``."""
        return (self.predict_proba(X)[:, 1] > 0.5).astype(np.int64)
