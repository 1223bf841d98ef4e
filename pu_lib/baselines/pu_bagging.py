"""PU bagging (Mordelet and Vert 2014) on any scikit-learn classifier, and the PU Extra
Trees paper's PUBaggingET baseline (Wilton et al. 2022) as one configuration of it.

F. Mordelet and J.-P. Vert, "A bagging SVM to learn from positive and unlabeled
examples", Pattern Recognition Letters 37 (2014) 201-209, Algorithm 1: for ``t = 1..T``,
draw a bootstrap sample ``U_t`` of size ``K`` from the unlabeled set ``U``, train a
classifier ``f_t`` to separate the positives ``P`` (class 1) from ``U_t`` (class 0), and
for every ``x`` in ``U \\ U_t`` add ``f_t(x)`` to its score; a row's score is the mean
over the bags it is out of. The paper recommends ``K = |P|`` (balanced bags, each base fit
cheap) and ``T`` large (the out-of-bag scores stabilise as ``T`` grows).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.utils._param_validation import HasMethods, Integral, Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from pu_lib._rounding import round_half_up
from pu_lib._seeding import seed_to_int
from pu_lib._validation import validate_pu_data
from pu_lib.base import RANDOM_STATE_CONSTRAINT, SPARSE_WITH_BASE, PUClassifierMixin
from pu_lib.base_learners import check_predict_X, fit_base, make_base_estimator, positive_proba
from pu_lib.distributed import parallel_map, resolve_client
from pu_lib.trees import PNExtraTreesClassifier
from pu_lib.trees._classes import FOREST_CONSTRAINTS, PN_CONSTRAINT, TREE_CONSTRAINTS

__all__ = ["PUBaggingClassifier", "PUBaggingExtraTreesClassifier"]

#: how a fitted base classifier scores rows, in the order of preference
SCORE_KINDS = ("predict_proba", "decision_function", "predict")


def default_linear_svm():
    """The ``linear_svm`` base learner of :mod:`pu_lib.base_learners`: ``StandardScaler``
    + ``SVC(kernel="linear")``. Mordelet and Vert's base learner is an SVM (their simulated
    and text experiments use a linear kernel) and the PU Hellinger authors' PU bagging base
    is ``SVC(kernel='linear')`` (``expsetup.py``) on min-max scaled data; scaling inside the
    base keeps libsvm fast on raw features."""
    return make_base_estimator("linear_svm")


def score_kind(estimator) -> str:
    """Which method of ``estimator`` gives a bag's score: ``predict_proba`` when the
    estimator has one (``hasattr``: an ``SVC(probability=False)`` has none), else
    ``decision_function``, else ``predict``."""
    for kind in SCORE_KINDS:
        if hasattr(estimator, kind):
            return kind
    raise ValueError(f"the base estimator {type(estimator).__name__} has none of {list(SCORE_KINDS)}")


def _bag_scores(model, kind: str, X) -> np.ndarray:
    """One fitted bag's score of the rows ``X``: the class-1 probability, the decision
    function (positive = class 1) or the 0/1 prediction, as float64."""
    if kind == "predict_proba":
        return positive_proba(model, X)
    if kind == "decision_function":
        d = np.asarray(model.decision_function(X), dtype=np.float64)
        return d.ravel() if d.ndim == 2 and d.shape[1] == 1 else d
    return (np.asarray(model.predict(X)) == 1).astype(np.float64)


def _fit_bag(X, P, U, cum, total, last, k, p_w, y, base, bag_seed, kind):
    """Fit one bag (Algorithm 1, lines 2-4): ``k`` weighted draws from ``U`` by
    inverse-CDF sampling on ``cum``; returns ``(model, drawn U positions, out-of-bag
    mask over U, out-of-bag scores)``. Depends only on its arguments (seed fixed up front)."""
    brng = np.random.default_rng(int(bag_seed))
    pick = np.minimum(np.searchsorted(cum, brng.random(k) * total, side="right"), last)
    rows = np.concatenate([P, U[pick]])
    model = clone(base)
    if "random_state" in model.get_params(deep=False):
        model.set_params(random_state=int(brng.integers(2**32)))
    fit_base(model, X[rows], y, p_w)
    oob = np.ones(U.size, bool)
    oob[pick] = False
    scores = _bag_scores(model, kind, X[U[oob]]) if oob.any() else np.empty(0)
    return model, pick, oob, scores


class PUBaggingClassifier(PUClassifierMixin, BaseEstimator):
    """PU bagging (Mordelet and Vert 2014, Algorithm 1) on any scikit-learn classifier.

    For each of ``n_estimators`` bags: draw a bootstrap sample of ``K`` unlabeled rows
    (``s = 0``), fit a clone of ``estimator`` with every labeled positive as class 1 and
    the drawn rows as class 0.

    **Scores.** A bag scores a row with the base's ``predict_proba`` (class-1 column)
    when the base has one, else its ``decision_function``, else its 0/1 ``predict``
    (``score_kind_``). ``oob_decision_`` is Algorithm 1's output: for every unlabeled
    training row, the mean score over the bags it is not in (NaN for a row drawn into
    every bag). For new rows:

    * probability bases: ``predict_proba[:, 1]`` is the mean over bags of the bases'
      class-1 probabilities;
    * ``decision_function`` bases (e.g. the default linear SVC) and ``predict``-only
      bases: ``predict_proba[:, 1]`` is the fraction of bags whose base predicts class 1
      (voting, as scikit-learn's ``BaggingClassifier`` and the PU bagging the PU Hellinger
      authors ran do for a base without ``predict_proba``).

    ``decision_function`` is ``predict_proba[:, 1] - 0.5`` and ``predict`` is 1 iff it is
    positive (a majority of votes for the non-probabilistic bases), so the three agree.
    :meth:`mean_score` applies Algorithm 1's aggregation to new rows: the mean over all
    bags of the bases' scores (for an SVC, the mean decision function -- a continuous
    ranking score where the votes have ties).

    **Bags.** ``max_samples`` is ``K``, the number of draws per bag: ``"balanced"``
    (default) = the number of labeled positives (their total weight with
    ``sample_weight``, rounded half up), Mordelet and Vert's recommended ``K = |P|`` and
    the PU Hellinger authors' setting (``max_samples = sum(s == 1)``); an int; or a
    float in (0, 1], that fraction of the total unlabeled weight, rounded half up. Each
    draw is a uniform real in ``[0, total unlabeled weight)`` mapped through the
    cumulative ``sample_weight`` of the unlabeled rows in row order (weight 1 each by
    default), so a row is drawn with probability proportional to its weight, an integer
    weight ``k`` acts exactly as ``k`` copies of the row (in place, as ``np.repeat``
    makes them) and a zero weight as the row's absence (rows of weight 0 are dropped
    before anything else). The labeled positives enter each base fit with their weights,
    the drawn rows with weight 1 each; without ``sample_weight`` the base is fitted
    unweighted. A base whose ``fit`` takes no ``sample_weight`` is refused (``ValueError``)
    only when weights are given.

    **Seeds and parallelism.** One seed per bag is drawn up front from ``random_state``;
    a bag's draws and its base's ``random_state`` (set when the base has that parameter)
    come from its own seed, so the result is the same for any ``n_jobs``. Bags are fitted
    on ``n_jobs`` threads (:func:`pu_lib.distributed.parallel_map`).

    Parameters
    ----------
    estimator : unfitted scikit-learn classifier, cloned per bag; default
        ``StandardScaler`` + ``SVC(kernel="linear")`` (Mordelet and Vert's SVM; the PU
        Hellinger authors' base, on scaled data).
    n_estimators : number of bags ``T``; default 100 (the PU Hellinger authors'
        ``n_estimators = 100``; Mordelet and Vert: ``T`` large).
    max_samples : ``K`` (see Bags); default ``"balanced"``.
    random_state : None, int, ``numpy.random.Generator`` or ``RandomState``.
    n_jobs : threads over bags (scikit-learn's convention; None = 1).

    Attributes
    ----------
    estimators_ : the fitted base classifiers, one per bag.
    estimators_samples_ : per bag, the indices (rows of the ``X`` given to ``fit``) of its
        training rows: the labeled positives, then the ``K`` drawn unlabeled rows (with
        repeats).
    oob_decision_ : out-of-bag mean score of every unlabeled training row (see Scores),
        in the order of ``oob_rows_``.
    oob_rows_ : indices (rows of ``X``) of the unlabeled rows of positive weight.
    score_kind_ : ``"predict_proba"``, ``"decision_function"`` or ``"predict"``.
    max_samples_ : ``K``. ``classes_`` (``[0, 1]``), ``n_features_in_``.

    **predict_proba** (kind ``"score"``, docs/probabilities.md): each bag separates the labeled rows
    from a sample of unlabeled rows, so the mean of the bags' probabilities (or the vote fraction)
    ranks rows but is not ``P(y = 1 | x)``; :class:`pu_lib.calibration.PUCalibratedClassifier`
    calibrates it.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "score"

    _parameter_constraints: dict = {
        "estimator": [None, HasMethods(["fit"])],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_samples": [StrOptions({"balanced"}), Interval(Integral, 1, None, closed="left"),
                        Interval(RealNotInt, 0.0, 1.0, closed="right")],
        "random_state": RANDOM_STATE_CONSTRAINT,
        "n_jobs": [None, Integral],
    }

    #: dtype of ``X`` handed to the bases
    _fit_dtype = np.float64
    #: sparse X (as CSR) when the base learner takes it (pu_lib.base.SPARSE_WITH_BASE; not the
    #: default StandardScaler + linear SVC, which centres the columns)
    _accepts_sparse = SPARSE_WITH_BASE

    def __init__(self, estimator=None, *, n_estimators=100, max_samples="balanced", random_state=None, n_jobs=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------- hooks for subclasses

    def _make_base(self):
        """The unfitted base classifier (cloned for every bag)."""
        return default_linear_svm() if self.estimator is None else clone(self.estimator)

    def _client(self):
        """Dask client for the bags (None: threads)."""
        return None

    # ------------------------------------------------------------------------- fitting

    def _bag_size(self, p_weight: float, u_weight: float) -> int:
        if isinstance(self.max_samples, str):  # "balanced": K = |P|
            return max(1, round_half_up(p_weight))
        if isinstance(self.max_samples, numbers.Integral):
            return int(self.max_samples)
        return max(1, round_half_up(self.max_samples * u_weight))

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled),
        with optional non-negative ``sample_weight`` (see Bags)."""
        Xv, s, sw, kept = validate_pu_data(self, X, s, dtype=self._fit_dtype, sample_weight=sample_weight)
        P = np.flatnonzero(s == 1)
        U = np.flatnonzero(s == 0)
        u_w = np.ones(U.size) if sw is None else sw[U]
        cum = np.cumsum(u_w)
        total = float(cum[-1])
        last = int(np.flatnonzero(u_w > 0)[-1])
        k = self._bag_size(float(P.size if sw is None else sw[P].sum()), total)
        p_w = None if sw is None else np.concatenate([sw[P], np.ones(k)])
        y = np.concatenate([np.ones(P.size, np.int8), np.zeros(k, np.int8)])
        base = self._make_base()
        kind = score_kind(base)

        rng = np.random.default_rng(seed_to_int(self.random_state, fresh_if_none=True))
        bag_seeds = rng.integers(0, 2**32, size=self.n_estimators)
        results = parallel_map(_fit_bag, [(int(seed), kind) for seed in bag_seeds], n_jobs=self.n_jobs,
                               client=self._client(), shared=(Xv, P, U, cum, total, last, k, p_w, y, base))
        oob_sum = np.zeros(U.size)
        oob_cnt = np.zeros(U.size)
        for _, _, oob, scores in results:  # in bag order: the same sums for any n_jobs
            if oob.any():
                oob_sum[oob] += scores
                oob_cnt[oob] += 1
        self.estimators_ = [r[0] for r in results]
        self.estimators_samples_ = [kept[np.concatenate([P, U[r[1]]])] for r in results]
        self.score_kind_ = kind
        self.max_samples_ = k
        self.classes_ = np.array([0, 1])
        dec = np.full(U.size, np.nan)
        np.divide(oob_sum, oob_cnt, out=dec, where=oob_cnt > 0)
        self.oob_decision_ = dec
        self.oob_rows_ = kept[U]
        return self

    # ---------------------------------------------------------------------- prediction

    def _check_X(self, X):
        return check_predict_X(self, X)

    def _mean_score(self, X, kind):
        return np.mean([_bag_scores(m, kind, X) for m in self.estimators_], axis=0)

    def mean_score(self, X):
        """Mean over bags of the bases' scores of ``X`` (``score_kind_``): Algorithm 1's
        aggregated score, here over every bag."""
        check_is_fitted(self)
        return self._mean_score(self._check_X(X), self.score_kind_)

    def predict_proba(self, X):
        """``(n, 2)``; column 1 is the mean over bags of the bases' class-1 probability
        (probability bases) or the fraction of bags predicting class 1 (other bases)."""
        check_is_fitted(self)
        X = self._check_X(X)
        kind = "predict_proba" if self.score_kind_ == "predict_proba" else "predict"
        p = self._mean_score(X, kind)
        return np.column_stack([1.0 - p, p])

    def decision_function(self, X):
        """``predict_proba(X)[:, 1] - 0.5``."""
        return self.predict_proba(X)[:, 1] - 0.5

    def predict(self, X):
        """1 iff ``predict_proba(X)[:, 1] > 0.5``."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(np.intp)]


class PUBaggingExtraTreesClassifier(PUBaggingClassifier):
    """PUBaggingET (Wilton et al. 2022): :class:`PUBaggingClassifier` with a
    :class:`pu_lib.trees.PNExtraTreesClassifier` base of ``base_n_estimators`` trees
    (``criterion``, ``max_features``, ``n_thresholds``, ``max_depth``,
    ``min_samples_leaf`` are the base forest's), ``max_samples`` default 1.0 (as many
    draws as there are unlabeled rows, the paper's "size of the dataset") and 10 bags.

    Exactly the model of the earlier stand-alone class (same draws, same base seeds, same
    ``predict_proba`` and ``oob_decision_``; ``tests/test_pu_bagging.py`` checks recorded
    outputs). Bags run on ``n_jobs`` threads, or with ``use_dask=True`` as tasks of the
    current Dask client (default False: local threads even when a client is active; see
    docs/cluster.md, "Dask by explicit choice"); each base forest runs single-threaded
    inside its bag.

    Extra fitted attributes: ``feature_importances_`` and
    ``feature_importances_normalized_`` (means over the base forests).

    **predict_proba** (kind ``"score"``, docs/probabilities.md): as :class:`PUBaggingClassifier`.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "score"

    _parameter_constraints: dict = {
        "n_estimators": FOREST_CONSTRAINTS["n_estimators"],
        "max_samples": [Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0.0, 1.0, closed="right")],
        "base_n_estimators": [Interval(Integral, 1, None, closed="left")],
        **PN_CONSTRAINT,
        "max_features": TREE_CONSTRAINTS["max_features"],
        "n_thresholds": TREE_CONSTRAINTS["n_thresholds"],
        "max_depth": TREE_CONSTRAINTS["max_depth"],
        "min_samples_leaf": TREE_CONSTRAINTS["min_samples_leaf"],
        "random_state": TREE_CONSTRAINTS["random_state"],
        "n_jobs": FOREST_CONSTRAINTS["n_jobs"],
        "use_dask": FOREST_CONSTRAINTS["use_dask"],
    }

    _fit_dtype = np.float32
    _accepts_sparse = False  # PN Extra Trees bags: dense input

    def __init__(self, *, n_estimators=10, max_samples=1.0, base_n_estimators=100, criterion="gini",
                 max_features="sqrt", n_thresholds=1, max_depth=None, min_samples_leaf=1, random_state=None,
                 n_jobs=None, use_dask=False):
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

    def _make_base(self):
        return PNExtraTreesClassifier(
            n_estimators=self.base_n_estimators, criterion=self.criterion, max_features=self.max_features,
            n_thresholds=self.n_thresholds, max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf,
            n_jobs=1, use_dask=False,
        )

    def _client(self):
        return resolve_client(self.use_dask)

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
