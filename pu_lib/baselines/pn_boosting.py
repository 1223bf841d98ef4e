"""The Ada-PU paper's PN boosting baselines (Zhao et al., Section 5.2.2 and 5.1):
scikit-learn's AdaBoost and gradient boosting and XGBoost, each with 100 decision stumps,
trained on *positive and negative* data drawn from the training rows by their true
classes.

**The PN sample** (Section 5.1, after Kiryo et al. 2017): ``n_p = 1,000`` positives and
``n_n = (pi_n / (2 pi_p))^2 n_p`` negatives, ``pi_p`` the class prior of the training
rows (``pi_n = 1 - pi_p``), drawn without replacement. That many negatives make a PN
learner about as informative as a PU learner with unlimited unlabeled data (Niu et al.
2016), which is the comparison the paper draws. Choices the paper leaves open (tested in
``tests/test_pn_boosting.py``):

* ``n_positives`` larger than the training positives (Breast Cancer: about 285 training
  positives) takes all of them; ``n_n`` is computed from the number actually drawn,
  rounded down as the authors' code (``int``), at least 1 and at most the training
  negatives.
* Rows are drawn with a generator seeded by ``random_state``; the booster gets the same
  seed.

**Boosters** (``booster``), all with ``n_estimators`` stumps and their library defaults
otherwise: ``"adaboost"`` -- ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1))``
(SAMME, learning rate 1); ``"gradient_boosting"`` --
``GradientBoostingClassifier(max_depth=1)`` (log-loss, learning rate 0.1);
``"xgboost"`` -- ``XGBClassifier(max_depth=1)`` (learning rate 0.3, ``hist`` trees).

The estimator is an oracle in a PU experiment: ``fit(X, y, y_true=None)`` trains on
``y_true`` when given (declared with ``__metadata_request__fit = {"y_true": True}``, so
the workflow passes the true classes of the training rows, as for
:class:`pu_lib.baselines.SupervisedExtraTreesClassifier`), else on ``y``. The second
class of ``classes_`` is the positive one. ``staged_decision_function`` /
``staged_predict`` give the accuracy-versus-rounds curves of the paper's Figure 2 for
every booster (XGBoost through ``iteration_range``).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Integral, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from pu_lib._optional import require
from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import check_input_kind, check_sample_weight, check_X
from pu_lib.base import RANDOM_STATE_CONSTRAINT

__all__ = ["BOOSTERS", "PNBoostingClassifier", "paper_n_negatives"]

#: booster name -> what it is
BOOSTERS = {
    "adaboost": "scikit-learn AdaBoostClassifier with DecisionTreeClassifier(max_depth=1)",
    "gradient_boosting": "scikit-learn GradientBoostingClassifier(max_depth=1)",
    "xgboost": "xgboost XGBClassifier(max_depth=1)",
}


def paper_n_negatives(n_positives: int, prior: float) -> int:
    """``int((pi_n / (2 pi_p))^2 n_p)`` (Ada-PU Section 5.1; Kiryo et al. 2017)."""
    if not 0.0 < prior < 1.0:
        raise ValueError(f"the class prior of the training rows must lie in (0, 1), got {prior!r}")
    return int(((1.0 - prior) / (2.0 * prior)) ** 2 * n_positives)


class PNBoostingClassifier(ClassifierMixin, BaseEstimator):
    """A boosting classifier with decision stumps trained on a PN sample of the training
    rows (the Ada-PU paper's PN baselines; see the module docstring).

    Parameters
    ----------
    booster : {"adaboost", "gradient_boosting", "xgboost"}, default "adaboost"
    n_estimators : int, default 100
    n_positives : int or None, default 1000
        Positives drawn (all of them when there are fewer; None: all).
    n_negatives : "paper", int or None, default "paper"
        Negatives drawn: ``"paper"`` = ``(pi_n / (2 pi_p))^2 n_p``; None: all.
    n_jobs : int or None (XGBoost threads)
    random_state : None, int, numpy Generator or RandomState

    Attributes
    ----------
    estimator_ : the fitted booster; ``sample_indices_`` : the training rows it saw;
    n_positives_, n_negatives_, prior_ (class prior of the training rows), classes_,
    n_features_in_, feature_importances_.
    """

    __metadata_request__fit = {"y_true": True}

    _parameter_constraints: dict = {
        "booster": [StrOptions(set(BOOSTERS))],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "n_positives": [Interval(Integral, 1, None, closed="left"), None],
        "n_negatives": [StrOptions({"paper"}), Interval(Integral, 1, None, closed="left"), None],
        "n_jobs": [Integral, None],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def _expected_failed_checks(self) -> dict[str, str]:
        """The estimator checks (:mod:`pu_lib.utils.estimator_checks`) it cannot pass, check name -> reason."""
        return {"check_sample_weight_equivalence_on_dense_data": (
            "fits on a random PN subsample of the rows (n_p positives, (pi_n/2pi_p)^2 n_p negatives): repeating a "
            "row changes which rows are drawn, so integer weights cannot equal repeated rows; with n_positives and "
            "n_negatives None (every row) the booster gets the weights (tested in tests/test_pn_boosting.py)")}

    def __init__(self, booster="adaboost", n_estimators=100, n_positives=1000, n_negatives="paper", n_jobs=None,
                 random_state=None):
        self.booster = booster
        self.n_estimators = n_estimators
        self.n_positives = n_positives
        self.n_negatives = n_negatives
        self.n_jobs = n_jobs
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _make_booster(self, seed: int):
        if self.booster == "adaboost":
            from sklearn.ensemble import AdaBoostClassifier
            from sklearn.tree import DecisionTreeClassifier

            return AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=self.n_estimators,
                                      random_state=seed)
        if self.booster == "gradient_boosting":
            from sklearn.ensemble import GradientBoostingClassifier

            return GradientBoostingClassifier(max_depth=1, n_estimators=self.n_estimators, random_state=seed)
        XGBClassifier = require("xgboost", purpose='PNBoostingClassifier(booster="xgboost")').XGBClassifier

        return XGBClassifier(max_depth=1, n_estimators=self.n_estimators, random_state=seed,
                             n_jobs=1 if self.n_jobs is None else self.n_jobs, verbosity=0)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, y_true=None, sample_weight=None):
        """Draw the PN sample by the classes ``y_true`` (default ``y``) and fit the booster."""
        check_input_kind(X)
        X, y = validate_data(self, X, y if y_true is None else y_true, dtype=np.float64)
        X = check_X(X)
        check_classification_targets(y)
        classes, yi = np.unique(y, return_inverse=True)
        if classes.size != 2:
            raise ValueError(f"Only binary classification is supported: found {classes.size} class(es) "
                             f"{classes.tolist()[:10]}, need 2")
        sw = None if sample_weight is None else check_sample_weight(sample_weight, X.shape[0])
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        rng = np.random.default_rng(derive_seed(seed, "pn_sample"))
        pos = np.flatnonzero(yi == 1)
        neg = np.flatnonzero(yi == 0)
        n_p = pos.size if self.n_positives is None else min(self.n_positives, pos.size)
        prior = pos.size / yi.size
        if self.n_negatives is None:
            n_n = neg.size
        elif self.n_negatives == "paper":
            n_n = paper_n_negatives(n_p, prior)
        else:
            n_n = self.n_negatives
        n_n = int(min(max(n_n, 1), neg.size))
        rows = np.sort(np.concatenate([rng.choice(pos, n_p, replace=False), rng.choice(neg, n_n, replace=False)]))
        est = self._make_booster(derive_seed(seed, "booster") % (2**31))
        fit_params = {} if sw is None else {"sample_weight": sw[rows]}
        est.fit(X[rows], yi[rows], **fit_params)
        self.estimator_ = est
        self.sample_indices_ = rows
        self.n_positives_ = int(n_p)
        self.n_negatives_ = int(n_n)
        self.prior_ = float(prior)
        self.classes_ = classes
        return self

    def _X(self, X):
        check_is_fitted(self)
        check_input_kind(X)
        return check_X(validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=False))

    def _margin(self, X, k=None) -> np.ndarray:
        est = self.estimator_
        if self.booster == "xgboost":
            kw = {} if k is None else {"iteration_range": (0, k)}
            return np.asarray(est.predict(X, output_margin=True, **kw), dtype=np.float64)
        return np.asarray(est.decision_function(X), dtype=np.float64)

    def decision_function(self, X) -> np.ndarray:
        """The booster's score for the positive class (AdaBoost / gradient boosting:
        ``decision_function``; XGBoost: the margin)."""
        return self._margin(self._X(X))

    def predict_proba(self, X) -> np.ndarray:
        X = self._X(X)
        return np.asarray(self.estimator_.predict_proba(X), dtype=np.float64)

    def predict(self, X) -> np.ndarray:
        """The positive class where the score is positive (probability above 1/2)."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]

    def staged_decision_function(self, X):
        """The score after each round (``n_estimators`` arrays)."""
        X = self._X(X)
        if self.booster == "xgboost":
            for k in range(1, self.estimator_.get_booster().num_boosted_rounds() + 1):
                yield self._margin(X, k)
            return
        for F in self.estimator_.staged_decision_function(X):
            yield np.asarray(F, dtype=np.float64).ravel()

    def staged_predict(self, X):
        """``predict`` after each round (the score's sign: AdaBoost's and the boosters'
        decision rule)."""
        for F in self.staged_decision_function(X):
            yield self.classes_[(F > 0).astype(int)]

    @property
    def feature_importances_(self) -> np.ndarray:
        check_is_fitted(self)
        return np.asarray(self.estimator_.feature_importances_, dtype=np.float64)
