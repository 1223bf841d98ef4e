"""PU decision trees and PU Extra Trees (Wilton, Koay, Ko, Xu, Ye, NeurIPS 2022), their
PN counterparts and the paper's tree baselines, all on one compiled engine.

Labels follow pu_lib's convention: ``fit(X, s)`` with ``s = 1`` for labeled positives and
``s = 0`` for unlabeled examples; ``predict`` returns 0/1 and ``predict_proba`` has the
columns ``[P(y=0), P(y=1)]``.

**The two PU scenarios and the meaning of ``prior``.**

* ``scenario="single_training_set"`` (default): the unlabeled sample is *all* rows of X
  and the labeled positives (``s = 1``) are a subset of it (P is a subset of U). This is
  the paper's protocol (1,000 labeled positives, the whole training set as U, following
  Kiryo et al. 2017). ``prior`` is the class prior P(y = 1) of the rows of X.
  Weights: ``w_p = prior / n_p`` on the labeled rows, ``w_u = 1 / n`` on every row.
* ``scenario="case_control"``: the ``s = 1`` rows are the positive sample and the
  ``s = 0`` rows an independent unlabeled sample. ``prior`` is P(y = 1) in the
  population the unlabeled sample was drawn from. Weights: ``w_p = prior / n_p`` on
  ``s = 1`` rows, ``w_u = 1 / n_u`` on ``s = 0`` rows.

The paper's protocol can be written either way: ``(X, s)`` single-training-set, or the
labeled rows stacked on top of all rows, labeled ``[1]*n_p + [0]*n``, case-control, with
the same prior. Both give the same node weights and hence the same trees (tested).

``prior`` may also be the name of a prior estimator of :mod:`pu_lib.prior` (``"tice"``,
``"pulscar"``, ``"pulsnar"``, ``"elkan_noto"``) or an estimator with ``fit(X, s)`` and a
``prior_`` attribute (for case-control, ``alpha_``: the positive fraction among the
unlabeled); it is cloned and fitted on the training data inside ``fit``
(``prior_estimator_`` keeps it; None when ``prior`` is a number).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from pu_lib._seeding import seed_to_int
from pu_lib._validation import check_binary, check_prior, check_X, check_X_s
from pu_lib.trees._criteria import LOSSES, PN_CRITERIA, PU_CRITERIA
from pu_lib.trees._parallel import fit_trees, forest_predict, pack

SCENARIOS = ("single_training_set", "case_control")
THRESHOLD_RULES = {"uniform": 0, "authors": 1}
SPLITTERS = {"random": 0, "best": 1}
FEATURE_DRAWS = {"nonconstant": 0, "any": 1}

__all__ = [
    "PUDecisionTreeClassifier",
    "PUExtraTreesClassifier",
    "PNDecisionTreeClassifier",
    "PNExtraTreesClassifier",
    "SupervisedExtraTreesClassifier",
    "NaivePUExtraTreesClassifier",
    "PUBaggingExtraTreesClassifier",
]


# --------------------------------------------------------------------------- validation

def _check_int(value, name, minimum, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer >= {minimum}{' or None' if allow_none else ''}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def _resolve_max_features(max_features, d: int) -> int:
    """'sqrt' -> ceil(sqrt(d)) (the paper's F), 'log2' -> ceil(log2(d)), None / 'all' -> d,
    int -> that many, float in (0, 1] -> ceil(fraction * d)."""
    if max_features is None or max_features == "all":
        return d
    if max_features == "sqrt":
        return max(1, math.ceil(math.sqrt(d)))
    if max_features == "log2":
        return max(1, math.ceil(math.log2(d))) if d > 1 else 1
    if isinstance(max_features, bool):
        raise ValueError(f"max_features must be 'sqrt', 'log2', None, an int or a float, got {max_features!r}")
    if isinstance(max_features, numbers.Integral):
        if max_features < 1:
            raise ValueError(f"max_features must be >= 1, got {max_features}")
        return min(int(max_features), d)
    if isinstance(max_features, numbers.Real):
        if not 0.0 < max_features <= 1.0:
            raise ValueError(f"max_features as a fraction must lie in (0, 1], got {max_features}")
        return max(1, math.ceil(max_features * d))
    raise ValueError(f"max_features must be 'sqrt', 'log2', None, an int or a float, got {max_features!r}")


def _tree_params(est, crit: int, splitter: str, d: int) -> dict:
    if splitter not in SPLITTERS:
        raise ValueError(f"splitter must be one of {sorted(SPLITTERS)}, got {splitter!r}")
    if est.threshold_rule not in THRESHOLD_RULES:
        raise ValueError(f"threshold_rule must be one of {sorted(THRESHOLD_RULES)}, got {est.threshold_rule!r}")
    max_depth = _check_int(est.max_depth, "max_depth", 1, allow_none=True)
    draw = getattr(est, "feature_draw", "nonconstant")
    if draw not in FEATURE_DRAWS:
        raise ValueError(f"feature_draw must be one of {sorted(FEATURE_DRAWS)}, got {draw!r}")
    return {
        "draw_rule": FEATURE_DRAWS[draw],
        "crit": int(crit),
        "splitter": SPLITTERS[splitter],
        "max_features": _resolve_max_features(est.max_features, d),
        "n_thresholds": _check_int(est.n_thresholds, "n_thresholds", 1),
        "max_depth": -1 if max_depth is None else max_depth,
        "min_samples_split": _check_int(est.min_samples_split, "min_samples_split", 2),
        "min_samples_leaf": _check_int(est.min_samples_leaf, "min_samples_leaf", 1),
        "threshold_rule": THRESHOLD_RULES[est.threshold_rule],
    }


def _pu_criterion(risk, loss) -> int:
    if risk not in ("upu", "nnpu"):
        raise ValueError(f"risk must be 'upu' or 'nnpu', got {risk!r}")
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {list(LOSSES)}, got {loss!r}")
    return PU_CRITERIA[(risk, loss)]


#: For PU trees, X up to this size is copied to column-major order for fitting. Results
#: do not depend on the layout, only speed does: PU trees have few, large nodes, whose
#: feature columns are read about 1.3x faster column-major (PU ET on MNIST); PN trees
#: have many small nodes and fit as fast or faster row-major, so they use X as given.
#: Larger matrices are not copied, to avoid doubling memory; an X that is already
#: column-major float32 is never copied.
FORTRAN_COPY_MAX_BYTES = 1 << 30


def _fit_layout(Xv, column_major: bool):
    if column_major and not Xv.flags.f_contiguous and Xv.nbytes <= FORTRAN_COPY_MAX_BYTES:
        return np.asfortranarray(Xv)
    return Xv if (Xv.flags.f_contiguous or Xv.flags.c_contiguous) else np.ascontiguousarray(Xv)


def _resolve_prior(prior, X, s, scenario, random_state=None, n_jobs=None):
    """``(prior, fitted prior estimator or None)`` from the ``prior`` parameter: a number,
    a registered prior-estimator name (``"tice"``, ``"pulscar"``, ...) or an estimator;
    see :func:`pu_lib.prior.resolve_prior`. The estimator's seed is derived from the
    classifier's ``random_state``."""
    from pu_lib._seeding import derive_seed
    from pu_lib._seeding import seed_to_int
    from pu_lib.prior import resolve_prior

    seed = seed_to_int(random_state)
    est_seed = None if seed is None else derive_seed(seed, "prior_estimator")
    return resolve_prior(prior, X, s, scenario, random_state=est_seed, n_jobs=n_jobs)


def pu_weights(s, prior: float, scenario: str):
    """Per-example weights (a, u) of :mod:`pu_lib.trees._criteria` for PU data."""
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {SCENARIOS}, got {scenario!r}")
    s = np.asarray(s)
    lab = s == 1
    n, n_p = s.shape[0], int(lab.sum())
    a = np.where(lab, prior / n_p, 0.0)
    if scenario == "single_training_set":
        u = np.full(n, 1.0 / n)
    else:
        n_u = n - n_p
        u = np.where(lab, 0.0, 1.0 / n_u)
    return a.astype(np.float64), u.astype(np.float64)


def pn_weights(y):
    y = np.asarray(y)
    n = y.shape[0]
    return np.where(y == 1, 1.0 / n, 0.0), np.full(n, 1.0 / n)


def _tree_seeds(random_state, n: int) -> np.ndarray:
    seed = seed_to_int(random_state, fresh_if_none=True)
    return np.random.default_rng(seed).integers(0, 2**63 - 1, size=n, dtype=np.int64)


# --------------------------------------------------------------------------- base classes

class _TreeEnsembleMixin:
    """Shared prediction code. Subclasses set ``estimators_``, ``n_features_in_``,
    ``_packed`` and ``voting`` ("majority": the paper's vote of the trees' +-1 leaf
    predictions; "mean": mean leaf value > 0.5, as scikit-learn's forests)."""

    _voting = "majority"

    def _check_X_predict(self, X):
        check_is_fitted(self, "estimators_")
        X = check_X(X, dtype=np.float32)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} was fitted with {self.n_features_in_}"
            )
        return np.ascontiguousarray(X)

    def _votes(self, X):
        X = self._check_X_predict(X)
        votes, vsum = forest_predict(self._packed, X, getattr(self, "n_jobs", None))
        n_trees = len(self.estimators_)
        return votes, vsum / n_trees, n_trees

    def predict_proba(self, X):
        """Mean over trees of the leaf estimates v* clipped to [0, 1] (v* estimates the
        fraction of positives in the leaf; uPU / nnPU leaves can have v* > 1)."""
        _, p, _ = self._votes(X)
        return np.column_stack([1.0 - p, p])

    def decision_function(self, X):
        """Majority voting: (votes for +1 - votes for -1) / n_trees, in [-1, 1]; mean
        voting: mean clipped v* - 0.5. ``predict`` is ``decision_function > 0``."""
        votes, p, n_trees = self._votes(X)
        if self._voting == "majority":
            return (2.0 * votes - n_trees) / n_trees
        return p - 0.5

    def predict(self, X):
        """Majority voting (the paper): 1 iff more than half of the trees predict +1, a tree
        predicting +1 iff its leaf has v* > 0.5 (Proposition 4); a tie gives 0. Mean voting:
        1 iff the mean clipped v* > 0.5."""
        return (self.decision_function(X) > 0).astype(np.int64)

    def _importances(self, normalized):
        check_is_fitted(self, "estimators_")
        imp = np.zeros(self.n_features_in_)
        for t in self.estimators_:
            imp += t.importances(self.n_features_in_, normalized=normalized)
        return imp / len(self.estimators_)

    @property
    def feature_importances_(self):
        """Risk-reduction importance (Section 4): per feature, the total risk reduction of
        the nodes splitting on it, averaged over trees; not rescaled to sum to 1."""
        return self._importances(False)

    @property
    def feature_importances_normalized_(self):
        """The normalised variant: each node's risk reduction divided by its total weight W."""
        return self._importances(True)


class _PUTreeParams:
    def _fit_pu(self, X, s, splitter, n_trees, bootstrap=False):
        Xv, s = check_X_s(X, s, dtype=np.float32)
        if self.scenario not in SCENARIOS:
            raise ValueError(f"scenario must be one of {SCENARIOS}, got {self.scenario!r}")
        crit = _pu_criterion(self.risk, self.loss)
        params = _tree_params(self, crit, splitter, Xv.shape[1])
        prior, prior_est = _resolve_prior(self.prior, Xv, s, self.scenario, self.random_state,
                                          getattr(self, "n_jobs", None))
        a, u = pu_weights(s, prior, self.scenario)
        Xf = _fit_layout(Xv, column_major=True)
        seeds = _tree_seeds(self.random_state, n_trees)
        trees = fit_trees(Xf, a, u, params, seeds, n_jobs=getattr(self, "n_jobs", None),
                          use_dask=getattr(self, "use_dask", False), bootstrap=bootstrap)
        self.prior_ = prior
        self.prior_estimator_ = prior_est
        self.n_features_in_ = Xv.shape[1]
        self.classes_ = np.array([0, 1])
        self.estimators_ = trees
        self._packed = pack(trees)
        return self


# --------------------------------------------------------------------------- PU estimators

class PUDecisionTreeClassifier(_PUTreeParams, _TreeEnsembleMixin, ClassifierMixin, BaseEstimator):
    """A PU decision tree by recursive greedy risk minimisation (Wilton et al. 2022, Section 3.2).

    Each node predicts v* = Wp / (Wp + Wn) (Proposition 1); splits maximise the uPU
    (eq. 10) or nnPU risk reduction using the closed forms of Propositions 1-2 (quadratic,
    logistic; savage: Proposition 3, identical to quadratic for nnPU; sigmoid: Proposition 5). With
    ``splitter="best"`` (default) every threshold of every tried feature is scanned
    (Algorithm 2); ``"random"`` draws ``n_thresholds`` cut points per feature
    (Algorithm 5). Growth stops when all features are constant, ``max_depth`` is reached,
    the node has fewer than ``min_samples_split`` rows, or the node is pure (R* = -inf for
    uPU, 0 for nnPU). ``predict`` is sign(v* - 0.5) (Proposition 4) as 0/1.

    Parameters: ``risk`` ("nnpu" | "upu"), ``loss`` ("quadratic" | "logistic" | "savage" |
    "sigmoid"), ``prior`` (see the module docstring), ``scenario``, ``max_features``
    (None = all features), ``threshold_rule`` ("uniform": the paper; "authors": the
    authors' code's interior interval).

    Fitted attributes: ``tree_`` (:class:`pu_lib.trees.Tree`), ``estimators_`` (``[tree_]``),
    ``prior_``, ``n_features_in_``, ``classes_``, ``feature_importances_``,
    ``feature_importances_normalized_``.
    """

    def __init__(self, risk="nnpu", loss="quadratic", splitter="best", max_features=None, n_thresholds=1,
                 max_depth=None, min_samples_split=2, min_samples_leaf=1, prior=None,
                 scenario="single_training_set", threshold_rule="uniform", random_state=None):
        self.risk = risk
        self.loss = loss
        self.splitter = splitter
        self.max_features = max_features
        self.n_thresholds = n_thresholds
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.prior = prior
        self.scenario = scenario
        self.threshold_rule = threshold_rule
        self.random_state = random_state

    def fit(self, X, s):
        self._fit_pu(X, s, self.splitter, 1)
        self.tree_ = self.estimators_[0]
        return self


class PUExtraTreesClassifier(_PUTreeParams, _TreeEnsembleMixin, ClassifierMixin, BaseEstimator):
    """PU Extra Trees (Wilton et al. 2022, Section 4 and Algorithms 3-5).

    ``n_estimators`` PU trees, each grown on all of the data (no bootstrap, as the paper)
    with the Extra-Trees splitter: at each node ``max_features`` features are drawn among
    the non-constant ones (``"sqrt"`` = ceil(sqrt(d)), the paper's F) and
    ``n_thresholds`` random cut points per feature (T = 1), keeping the split with the
    largest uPU / nnPU risk reduction. ``feature_draw="any"`` switches to scikit-learn's
    rule, where constant features drawn count towards ``max_features``. Defaults are the paper's: 100 trees, nnPU risk,
    quadratic loss, no depth limit.

    ``predict`` is the paper's majority vote of the trees' +-1 leaf predictions;
    ``predict_proba`` is the mean of the leaf v* clipped to [0, 1] (our choice, for
    ranking metrics; the paper defines no probability); ``decision_function`` is the vote
    margin. ``feature_importances_`` is the risk-reduction importance averaged over trees
    and ``feature_importances_normalized_`` its normalised variant.

    Trees are fitted on ``n_jobs`` threads or, when a Dask client is active and
    ``use_dask`` is "auto" (default) or True, on the Dask cluster. Per-tree seeds are drawn
    from ``random_state`` before fitting, so the forest does not depend on the number of
    threads or workers.
    """

    def __init__(self, n_estimators=100, risk="nnpu", loss="quadratic", max_features="sqrt", n_thresholds=1,
                 max_depth=None, min_samples_split=2, min_samples_leaf=1, bootstrap=False, prior=None,
                 scenario="single_training_set", threshold_rule="uniform", feature_draw="nonconstant",
                 random_state=None, n_jobs=None, use_dask="auto"):
        self.feature_draw = feature_draw
        self.n_estimators = n_estimators
        self.risk = risk
        self.loss = loss
        self.max_features = max_features
        self.n_thresholds = n_thresholds
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.bootstrap = bootstrap
        self.prior = prior
        self.scenario = scenario
        self.threshold_rule = threshold_rule
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.use_dask = use_dask

    def fit(self, X, s):
        n = _check_int(self.n_estimators, "n_estimators", 1)
        if not isinstance(self.bootstrap, (bool, np.bool_)):
            raise ValueError(f"bootstrap must be True or False, got {self.bootstrap!r}")
        return self._fit_pu(X, s, "random", n, bootstrap=bool(self.bootstrap))


# --------------------------------------------------------------------------- PN estimators

class _PNBase(_TreeEnsembleMixin, ClassifierMixin, BaseEstimator):
    _voting = "mean"
    _splitter = "random"

    def _fit_pn(self, X, y, n_trees, splitter, bootstrap=False):
        Xv = check_X(X, dtype=np.float32)
        y = check_binary(y, "y", n=Xv.shape[0])
        if self.criterion not in PN_CRITERIA:
            raise ValueError(f"criterion must be one of {sorted(PN_CRITERIA)}, got {self.criterion!r}")
        params = _tree_params(self, PN_CRITERIA[self.criterion], splitter, Xv.shape[1])
        a, u = pn_weights(y)
        seeds = _tree_seeds(self.random_state, n_trees)
        trees = fit_trees(_fit_layout(Xv, column_major=False), a, u, params, seeds, n_jobs=getattr(self, "n_jobs", None),
                          use_dask=getattr(self, "use_dask", False), bootstrap=bootstrap)
        self.n_features_in_ = Xv.shape[1]
        self.classes_ = np.array([0, 1])
        self.estimators_ = trees
        self._packed = pack(trees)
        return self


class PNDecisionTreeClassifier(_PNBase):
    """A PN decision tree on the same engine (Gini or entropy; by Theorem 1 of Wilton et al.
    2022 the same tree as recursive greedy minimisation of the quadratic / logistic risk).
    ``predict`` is leaf positive fraction > 0.5."""

    def __init__(self, criterion="gini", splitter="best", max_features=None, n_thresholds=1, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, threshold_rule="uniform", random_state=None):
        self.criterion = criterion
        self.splitter = splitter
        self.max_features = max_features
        self.n_thresholds = n_thresholds
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.threshold_rule = threshold_rule
        self.random_state = random_state

    def fit(self, X, y):
        self._fit_pn(X, y, 1, self.splitter)
        self.tree_ = self.estimators_[0]
        return self


class PNExtraTreesClassifier(_PNBase):
    """Extra-Trees for fully labeled data on the PU Extra Trees engine ("PN ET" in the paper).

    Same splitter as :class:`PUExtraTreesClassifier` with the Gini (default) or entropy
    criterion. Like scikit-learn's ``ExtraTreesClassifier``: ``predict_proba`` is the mean
    of the leaves' positive fractions, ``predict`` is ``predict_proba > 0.5``, and by
    default (``feature_draw="any"``) features drawn constant in a node count towards
    ``max_features``, as in scikit-learn's splitters (it keeps drawing only while no
    non-constant feature has been found). ``feature_draw="nonconstant"`` applies the PU
    ET paper's rule (Algorithm 5: ``max_features`` non-constant features per node), as the
    authors' own PN ET does.
    ``feature_importances_`` is the raw (unnormalised) weighted impurity decrease summed
    per feature and averaged over trees, i.e. half the quadratic risk-reduction importance
    for Gini (Theorem 1).
    """

    def __init__(self, n_estimators=100, criterion="gini", max_features="sqrt", n_thresholds=1, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, bootstrap=False, threshold_rule="uniform",
                 feature_draw="any", random_state=None, n_jobs=None, use_dask="auto"):
        self.feature_draw = feature_draw
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_features = max_features
        self.n_thresholds = n_thresholds
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.bootstrap = bootstrap
        self.threshold_rule = threshold_rule
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.use_dask = use_dask

    def fit(self, X, y):
        n = _check_int(self.n_estimators, "n_estimators", 1)
        if not isinstance(self.bootstrap, (bool, np.bool_)):
            raise ValueError(f"bootstrap must be True or False, got {self.bootstrap!r}")
        return self._fit_pn(X, y, n, "random", bootstrap=bool(self.bootstrap))


class SupervisedExtraTreesClassifier(PNExtraTreesClassifier):
    """The paper's SupervisedET baseline: PN Extra Trees trained on the *true* labels
    (an upper bound for tree-based PU methods). ``fit(X, y)`` takes the true 0/1 labels;
    the workflow passes them because of ``_pu_requires_true_labels``."""

    _pu_requires_true_labels = True


class NaivePUExtraTreesClassifier(PNExtraTreesClassifier):
    """The paper's NaivePUET baseline: PN Extra Trees trained on ``(X, s)``, i.e. with the
    unlabeled examples treated as negatives."""

    def fit(self, X, s):
        X, s = check_X_s(X, s, dtype=np.float32)
        return super().fit(X, s)


class PUBaggingExtraTreesClassifier(_TreeEnsembleMixin, ClassifierMixin, BaseEstimator):
    """The paper's PUBaggingET baseline: PU bagging (Mordelet and Vert 2014) with a PN Extra
    Trees base classifier.

    For each of ``n_estimators`` bags: draw a bootstrap sample of ``max_samples`` unlabeled
    rows (``s = 0``; default 1.0 = as many as there are unlabeled rows, the paper's "size
    of the dataset"), fit a :class:`PNExtraTreesClassifier` (``base_n_estimators`` trees)
    with all labeled positives as class 1 and the bag as class 0. ``predict_proba`` is the
    mean over bags of the base forests' probabilities; ``oob_decision_`` holds, for the
    unlabeled training rows, Mordelet and Vert's out-of-bag average score (NaN for a row
    that was in every bag). ``predict`` is ``predict_proba > 0.5``.
    """

    _voting = "mean"

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

    def fit(self, X, s):
        Xv, s = check_X_s(X, s, dtype=np.float32)
        n_bags = _check_int(self.n_estimators, "n_estimators", 1)
        P = np.flatnonzero(s == 1)
        U = np.flatnonzero(s == 0)
        if isinstance(self.max_samples, numbers.Integral) and not isinstance(self.max_samples, bool):
            k = _check_int(self.max_samples, "max_samples", 1)
        elif isinstance(self.max_samples, numbers.Real) and 0 < self.max_samples <= 1:
            k = max(1, int(round(self.max_samples * U.size)))
        else:
            raise ValueError(f"max_samples must be an int >= 1 or a fraction in (0, 1], got {self.max_samples!r}")
        rng = np.random.default_rng(seed_to_int(self.random_state, fresh_if_none=True))
        bag_seeds = rng.integers(0, 2**32, size=n_bags)
        bags, models = [], []
        oob_sum = np.zeros(U.size)
        oob_cnt = np.zeros(U.size)
        for b in range(n_bags):
            brng = np.random.default_rng(int(bag_seeds[b]))
            pick = brng.integers(0, U.size, k)
            rows = np.concatenate([P, U[pick]])
            y = np.concatenate([np.ones(P.size, np.int8), np.zeros(k, np.int8)])
            base = PNExtraTreesClassifier(
                n_estimators=self.base_n_estimators, criterion=self.criterion, max_features=self.max_features,
                n_thresholds=self.n_thresholds, max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf,
                random_state=int(brng.integers(2**32)), n_jobs=self.n_jobs, use_dask=self.use_dask,
            ).fit(Xv[rows], y)
            oob = np.ones(U.size, bool)
            oob[pick] = False
            if oob.any():
                oob_sum[oob] += base.predict_proba(Xv[U[oob]])[:, 1]
                oob_cnt[oob] += 1
            models.append(base)
            bags.append(pick)
        self.estimators_ = models
        self.n_features_in_ = Xv.shape[1]
        self.classes_ = np.array([0, 1])
        dec = np.full(U.size, np.nan)
        np.divide(oob_sum, oob_cnt, out=dec, where=oob_cnt > 0)
        self.oob_decision_ = dec
        return self

    def predict_proba(self, X):
        check_is_fitted(self, "estimators_")
        p = np.mean([m.predict_proba(X)[:, 1] for m in self.estimators_], axis=0)
        return np.column_stack([1.0 - p, p])

    def decision_function(self, X):
        return self.predict_proba(X)[:, 1] - 0.5

    def predict(self, X):
        return (self.decision_function(X) > 0).astype(np.int64)

    def _importances(self, normalized):
        check_is_fitted(self, "estimators_")
        return np.mean([m._importances(normalized) for m in self.estimators_], axis=0)

