"""The Ada-PU paper's PN boosting baselines (Zhao et al., Section 5.2.2 and 5.1):
scikit-learn's AdaBoost and gradient boosting and XGBoost, each with 100 decision stumps,
trained on *positive and negative* data drawn from the training rows by their true
classes.

**The PN sample** (Section 5.1, after Kiryo et al. 2017; the authors' ``get_pn`` in
``src/load_data.py`` of github.com/Yawen-Zhao-820/Ada-PU): ``n_p`` positives and
``n_n = int((pi_n / (2 pi_p))^2 n_p)`` negatives, ``pi_p`` the class prior of the training
rows (``pi_n = 1 - pi_p``), drawn without replacement from the training rows by their true
classes. That many negatives make a PN learner about as informative as a PU learner with
unlimited unlabeled data (Niu et al. 2016), which is the comparison the paper draws.
``n_p`` is the PU methods' label budget: with ``n_positives="labeled"`` (the default) it is
the number of rows with ``y == 1`` -- in a PU experiment the labeled positives ``s`` the PU
methods get (the authors' script passes its ``num_pos``, 10 on Breast Cancer and 1,000 on
the other sets, to ``get_pn``); fitted on classes alone (no ``y_true``), every positive.
Choices the paper leaves open (tested in ``tests/test_pn_boosting.py``):

* ``n_p`` larger than the training positives takes all of them; ``n_n`` is computed from
  the number actually drawn, rounded down as the authors' code (``int``), and capped at
  the training negatives.
* **The minimum.** The boosters are two-class learners: they need at least one row of each
  class (``MIN_PER_CLASS = 1``). Where the formula gives fewer than one negative
  (``pi_p > 1 / (1 + 2 / sqrt(n_p))``: Breast Cancer with 10 labeled positives and our
  split's prior 0.63 gives ``int(0.885) = 0``) one negative is drawn. With so few rows of
  one class the boosters predict (nearly) one class everywhere; that is the paper's
  protocol, not a failure (the authors' ``get_pn`` at their prior 0.59 draws 1 negative
  for 10 positives). No labeled positive (``n_p = 0``) is a ``ValueError``.
* Rows are drawn with a generator seeded by ``random_state``; the booster gets the same
  seed.

The fitted ``n_positives_`` / ``n_negatives_`` are written to the result rows of the
workflow (columns ``pn_n_positives`` / ``pn_n_negatives``).

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
from pu_lib._validation import accepts_sparse, check_input_kind, check_sample_weight, check_X, is_sparse
from pu_lib.base import RANDOM_STATE_CONSTRAINT

__all__ = ["BOOSTERS", "MIN_PER_CLASS", "PNBoostingClassifier", "paper_n_negatives"]

#: booster name -> what it is
BOOSTERS = {
    "adaboost": "scikit-learn AdaBoostClassifier with DecisionTreeClassifier(max_depth=1)",
    "gradient_boosting": "scikit-learn GradientBoostingClassifier(max_depth=1)",
    "xgboost": "xgboost XGBClassifier(max_depth=1)",
}

#: rows of each class the PN sample holds at least (the boosters are two-class learners)
MIN_PER_CLASS = 1


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
    n_positives : "labeled", int or None, default "labeled"
        Positives drawn: ``"labeled"`` = the number of rows with ``y == 1`` (the labeled
        positives of a PU experiment, the authors' ``get_pn``); an int (all positives
        when there are fewer); None: all.
    n_negatives : "paper", int or None, default "paper"
        Negatives drawn: ``"paper"`` = ``int((pi_n / (2 pi_p))^2 n_p)``, at least
        ``MIN_PER_CLASS``; None: all.
    n_jobs : int or None (XGBoost threads)
    random_state : None, int, numpy Generator or RandomState

    Attributes
    ----------
    estimator_ : the fitted booster; ``sample_indices_`` : the training rows it saw;
    n_positives_, n_negatives_, prior_ (class prior of the training rows), classes_,
    n_features_in_, feature_importances_.

    **predict_proba** (kind ``"score"``, docs/probabilities.md): the booster's probabilities on the
    PN sample, whose class balance is not the population's.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "score"

    __metadata_request__fit = {"y_true": True}

    _parameter_constraints: dict = {
        "booster": [StrOptions(set(BOOSTERS))],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "n_positives": [StrOptions({"labeled"}), Interval(Integral, 1, None, closed="left"), None],
        "n_negatives": [StrOptions({"paper"}), Interval(Integral, 1, None, closed="left"), None],
        "n_jobs": [Integral, None],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    #: sparse X (as CSR) for every booster: scikit-learn's stumps read absent entries as zeros
    #: (the dense result), XGBoost as missing values (the result on the dense array with NaN
    #: in place of the absent entries; pu_lib.prior.pulscar.SPARSE_WITH_XGBOOST)
    _accepts_sparse = True

    def __init__(self, *, booster="adaboost", n_estimators=100, n_positives="labeled", n_negatives="paper", n_jobs=None,
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
        tags.input_tags.sparse = accepts_sparse(self)
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
        check_input_kind(X, estimator=self)
        sparse = is_sparse(X)
        n_labeled = None
        if self.n_positives == "labeled" and y_true is not None:
            s_arr = np.asarray(y)
            if s_arr.ndim != 1 or s_arr.shape[0] != np.shape(y_true)[0]:
                raise ValueError(f"y (the PU labels) must be 1-d with one entry per row of y_true, got shape "
                                 f"{s_arr.shape} for {np.shape(y_true)[0]} rows")
            n_labeled = int(np.sum(s_arr == 1))
        X, y = validate_data(self, X, y if y_true is None else y_true, dtype=np.float64,
                             accept_sparse="csr" if sparse else False)
        X = check_X(X, accept_sparse=sparse)
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
        if self.n_positives == "labeled":
            n_p = pos.size if n_labeled is None else n_labeled
        else:
            n_p = pos.size if self.n_positives is None else self.n_positives
        if n_p < 1:
            raise ValueError('PNBoostingClassifier(n_positives="labeled") needs at least one labeled positive '
                             "(y == 1) to size the PN sample, got none")
        n_p = min(n_p, pos.size)
        prior = pos.size / yi.size
        if self.n_negatives is None:
            n_n = neg.size
        elif self.n_negatives == "paper":
            n_n = paper_n_negatives(n_p, prior)
        else:
            n_n = self.n_negatives
        n_n = int(min(max(n_n, MIN_PER_CLASS), neg.size))
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
        check_input_kind(X, estimator=self)
        sparse = is_sparse(X)
        return check_X(validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=False,
                                     accept_sparse="csr" if sparse else False), accept_sparse=sparse)

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
        """``(n, 2)``; the booster's ``predict_proba`` (class balance of the PN sample)."""
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
