"""PU decision trees and PU Extra Trees (Wilton, Koay, Ko, Xu, Ye, NeurIPS 2022) and their
PN counterparts, all on one compiled engine. The paper's tree baselines (SupervisedET,
NaivePUET, PUBaggingET) build on these classes in :mod:`pu_lib.baselines`.

Labels follow pu_lib's convention: PU trees are fitted with ``fit(X, s)``, ``s = 1`` for
labeled positives and ``s = 0`` for unlabeled examples; ``predict`` returns 0/1 and
``predict_proba`` has the columns ``[P(y=0), P(y=1)]``. PN trees take any two class
labels (``classes_``, sorted; the second is the positive class of the criteria).

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

``prior`` may also be the name of a prior estimator
(:data:`pu_lib.prior._names.PRIOR_ESTIMATORS`: ``"tice"``, ``"pulscar"``, ...) or an estimator with ``fit(X, s)`` and a
``prior_`` attribute (for case-control, ``alpha_``: the positive fraction among the
unlabeled); it is cloned and fitted on the training data inside ``fit``
(``prior_estimator_`` keeps it; None when ``prior`` is a number).

**Sample weights.** Every ``fit`` takes ``sample_weight`` (non-negative, one per row).
A row's weight multiplies its node weights, and the normalisations use weighted sums
(``w_p = prior / sum of the labeled rows' weights``, ``w_u = 1 / sum of all weights``
in the single-training-set scenario, ``1 / sum of the unlabeled rows' weights`` in the
case-control scenario, ``1 / sum of all weights`` for PN trees), so an integer weight
``k`` gives the tree of ``k`` copies of the row and a zero weight the tree without the row
(zero-weight rows are left out before any tree is grown). Row counts stay unweighted,
as in scikit-learn: ``min_samples_split`` and ``min_samples_leaf`` (and the trees'
``n_node_samples``) count training rows, not weight. With a prior estimator (name or
object) and ``sample_weight``, the weights are passed to the estimator's ``fit``; an
estimator whose ``fit`` takes no ``sample_weight`` is a ``ValueError``.

**Fitted trees.** A decision tree keeps its :class:`pu_lib.trees.Tree` in ``tree_``. A
forest keeps them in ``trees_`` and, as scikit-learn's forests, a list of fitted
single-tree estimators in ``estimators_`` (:class:`PUDecisionTreeClassifier` /
:class:`PNDecisionTreeClassifier` instances, each with its ``tree_``).

Parameters are validated declaratively (scikit-learn's ``_parameter_constraints``) when
``fit`` is called; an invalid value is a ``ValueError`` naming the parameter and the
allowed values.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Integral, Interval, RealNotInt, StrOptions
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import (
    SCENARIOS,
    check_sample_weight,
    check_scenario,
    check_input_kind,
    check_X,
    validate_pu_data,
)
from pu_lib.base import (
    RANDOM_STATE_CONSTRAINT,
    SCENARIO_CONSTRAINT,
    PUClassifierMixin,
)
from pu_lib.prior import PRIOR_CONSTRAINT, resolve_prior
from pu_lib.trees._criteria import LOSSES, PN_CRITERIA, PU_RISKS, criterion_code, pu_criterion_code
from pu_lib.trees._parallel import fit_trees, forest_predict, pack

THRESHOLD_RULES = {"uniform": 0, "authors": 1}
SPLITTERS = {"random": 0, "best": 1}
FEATURE_DRAWS = {"nonconstant": 0, "any": 1}

__all__ = [
    "PUDecisionTreeClassifier",
    "PUExtraTreesClassifier",
    "PNDecisionTreeClassifier",
    "PNExtraTreesClassifier",
    "pu_weights",
    "pn_weights",
]


# --------------------------------------------------------------------------- parameters

#: constraints shared by every tree estimator
TREE_CONSTRAINTS: dict = {
    "max_features": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
        StrOptions({"sqrt", "log2", "all"}),
        None,
    ],
    "n_thresholds": [Interval(Integral, 1, None, closed="left")],
    "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    "min_samples_split": [Interval(Integral, 2, None, closed="left")],
    "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
    "threshold_rule": [StrOptions(set(THRESHOLD_RULES))],
    "feature_draw": [StrOptions(set(FEATURE_DRAWS))],
    "random_state": RANDOM_STATE_CONSTRAINT,
}
#: the PU trees' parameters beyond those
PU_CONSTRAINTS: dict = {
    "risk": [StrOptions(set(PU_RISKS))],
    "loss": [StrOptions(set(LOSSES))],
    "prior": PRIOR_CONSTRAINT,
    "scenario": SCENARIO_CONSTRAINT,
}
#: the forests' parameters
FOREST_CONSTRAINTS: dict = {
    "n_estimators": [Interval(Integral, 1, None, closed="left")],
    "bootstrap": ["boolean"],
    "n_jobs": [Integral, None],
    "use_dask": ["boolean"],
}
SPLITTER_CONSTRAINT = {"splitter": [StrOptions(set(SPLITTERS))]}
PN_CONSTRAINT = {"criterion": [StrOptions(set(PN_CRITERIA))]}


def _resolve_max_features(max_features, d: int, sqrt_rounding: str = "ceil") -> int:
    """'sqrt' -> ceil(sqrt(d)) (PU ET's F; ``sqrt_rounding="floor"``: floor(sqrt(d)), as
    scikit-learn's and the PU-HDT paper's forests), 'log2' -> ceil(log2(d)), None / 'all'
    -> d, int -> that many (at most d), float in (0, 1] -> ceil(fraction * d)."""
    if max_features is None or max_features == "all":
        return d
    if max_features == "sqrt":
        root = math.floor(math.sqrt(d)) if sqrt_rounding == "floor" else math.ceil(math.sqrt(d))
        return max(1, root)
    if max_features == "log2":
        return max(1, math.ceil(math.log2(d))) if d > 1 else 1
    if isinstance(max_features, numbers.Integral):
        return min(int(max_features), d)
    return max(1, math.ceil(max_features * d))


def _engine_params(est, crit: int, splitter: str, d: int) -> dict:
    """The compiled builder's integer parameters from a (validated) tree estimator."""
    return {
        "crit": int(crit),
        "splitter": SPLITTERS[splitter],
        "max_features": _resolve_max_features(est.max_features, d, est._sqrt_rounding),
        "n_thresholds": int(est.n_thresholds),
        "max_depth": -1 if est.max_depth is None else int(est.max_depth),
        "min_samples_split": int(est.min_samples_split),
        "min_samples_leaf": int(est.min_samples_leaf),
        "threshold_rule": THRESHOLD_RULES[est.threshold_rule],
        "draw_rule": FEATURE_DRAWS[est.feature_draw],
    }


#: For PU trees, X up to this size is copied to column-major order for fitting. Results
#: do not depend on the layout, only speed does: PU trees have few, large nodes, whose
#: feature columns are read about 1.3x faster column-major (PU ET on MNIST); PN trees
#: have many small nodes and fit as fast or faster row-major, so they use X as given.
#: Larger matrices are not copied, to avoid doubling memory; an X that is already
#: column-major float32 is never copied.
FORTRAN_COPY_MAX_BYTES = 1 << 30


def _fit_layout(Xv, column_major: bool):
    if column_major and not Xv.flags.f_contiguous and Xv.nbytes <= FORTRAN_COPY_MAX_BYTES:
        from pu_lib.trees._builder import column_major_copy

        return column_major_copy(Xv)
    return Xv if (Xv.flags.f_contiguous or Xv.flags.c_contiguous) else np.ascontiguousarray(Xv)


def _int_seed(random_state) -> int:
    """One integer seed from ``random_state`` (None: fresh entropy; an int as is; a
    ``numpy.random.Generator`` is drawn from once)."""
    return seed_to_int(random_state, fresh_if_none=True)


def _tree_seeds(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**63 - 1, size=n, dtype=np.int64)


# --------------------------------------------------------------------------- data and weights

def _check_labels_1d(y, name="y"):
    """A 1-D label vector (a column vector warns, as in scikit-learn) of binary
    classification targets: continuous targets raise "Unknown label type", more than two
    classes "Only binary classification is supported"."""
    y = column_or_1d(y, warn=True)
    check_classification_targets(y)
    kind = type_of_target(y, input_name=name)
    if kind not in ("binary", "unknown") and np.unique(y).shape[0] > 2:
        raise ValueError(f"Only binary classification is supported. The type of the target {name} is {kind}.")
    return y


def check_X_fit(est, X, reset: bool) -> np.ndarray:
    """``X`` as a float32 array for the engine: scikit-learn's ``validate_data`` (2-D,
    numeric, not sparse, at least one row and column; records or checks
    ``n_features_in_`` and ``feature_names_in_``), then pu_lib's finiteness check; sparse
    input and non-numeric DataFrame columns are named first (:func:`check_input_kind`)."""
    check_input_kind(X)
    X = validate_data(est, X, reset=reset, dtype=np.float32, ensure_all_finite=False)
    return check_X(X, dtype=np.float32)


def _sample_weight(sample_weight, n: int):
    """None, or the validated weight vector (:func:`pu_lib._validation.check_sample_weight`)."""
    return None if sample_weight is None else check_sample_weight(sample_weight, n)


def _kept_rows(sw):
    """Training rows of the engine: None (all rows) unless some weights are zero."""
    if sw is None or np.all(sw > 0):
        return None
    return np.flatnonzero(sw > 0).astype(np.int64)


def pu_weights(s, prior: float, scenario: str, sample_weight=None):
    """Per-example weights (a, u) of :mod:`pu_lib.trees._criteria` for PU data, with
    optional per-row ``sample_weight`` (see the module docstring)."""
    check_scenario(scenario)
    s = np.asarray(s)
    lab = s == 1
    n = s.shape[0]
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    sum_p = float(sw[lab].sum())
    sum_u = float(sw[~lab].sum())
    if not sum_p > 0:
        raise ValueError("sample_weight is zero on every labeled row (s == 1): one class of s left, "
                         "PU learning needs labeled positives")
    if not sum_u > 0:
        raise ValueError("sample_weight is zero on every unlabeled row (s == 0): one class of s left, "
                         "PU learning needs unlabeled data")
    a = np.where(lab, sw * (prior / sum_p), 0.0)
    if scenario == SCENARIOS[0]:  # single training set: every row is in U
        u = sw * (1.0 / float(sw.sum()))
    else:
        u = np.where(lab, 0.0, sw * (1.0 / sum_u))
    return a.astype(np.float64), u.astype(np.float64)


def pn_weights(y, sample_weight=None):
    """Per-example weights (a, u) for PN data with 0/1 classes ``y`` (1 = positive)."""
    y = np.asarray(y)
    n = y.shape[0]
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    u = sw * (1.0 / float(sw.sum()))
    return np.where(y == 1, u, 0.0), u


def _resolve_prior(prior, X, s, scenario, sample_weight, random_state, n_jobs):
    """``(prior, fitted prior estimator or None)`` from the ``prior`` parameter
    (:func:`pu_lib.prior.resolve_prior`, with the training rows' sample weights)."""
    return resolve_prior(prior, X, s, scenario, random_state=random_state, n_jobs=n_jobs,
                         sample_weight=sample_weight)


# --------------------------------------------------------------------------- shared behaviour

class _TreeModel:
    """Prediction and importances of one tree or a forest on the compiled engine.

    Subclasses provide ``_fitted_trees()`` (the :class:`~pu_lib.trees.Tree` list),
    ``classes_``, ``n_features_in_`` and ``_voting``: "majority" (the paper's vote of the
    trees' +-1 leaf predictions) or "mean" (mean leaf value > 0.5, as scikit-learn's
    forests)."""

    _voting = "majority"
    #: how ``max_features="sqrt"`` rounds (:func:`_resolve_max_features`)
    _sqrt_rounding = "ceil"

    def _predict_n_jobs(self):
        """Threads for prediction: the forests' ``n_jobs``; one for a single tree."""
        return None

    def __getstate__(self):
        state = dict(super().__getstate__())
        state.pop("_packed", None)  # the trees' arrays packed for prediction: rebuilt on loading
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self._pack()

    def _pack(self) -> None:
        """Pack the fitted trees' arrays for prediction (``_packed``; no copy for one tree)."""
        try:
            trees = self._fitted_trees()
        except AttributeError:  # not fitted
            return
        self._packed = pack(trees, [self._leaf_values(t) for t in trees])

    def _leaf_values(self, tree):
        """The per-node values that ``predict_proba`` averages (clipped to [0, 1]): v*."""
        return tree.value

    def _check_X_predict(self, X):
        check_is_fitted(self)
        return np.ascontiguousarray(check_X_fit(self, X, reset=False))

    def _votes(self, X):
        X = self._check_X_predict(X)
        votes, vsum = forest_predict(self._packed, X, self._predict_n_jobs())
        n_trees = len(self._fitted_trees())
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
        """Majority voting (the paper): the positive class iff more than half of the trees
        predict +1, a tree predicting +1 iff its leaf has v* > 0.5 (Proposition 4); a tie
        gives the negative class. Mean voting: positive iff the mean clipped v* > 0.5."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(np.intp)]

    def _importances(self, normalized):
        check_is_fitted(self)
        trees = self._fitted_trees()
        imp = np.zeros(self.n_features_in_)
        for t in trees:
            imp += t.importances(self.n_features_in_, normalized=normalized)
        return imp / len(trees)

    @property
    def feature_importances_(self):
        """Improvement (for PU trees: risk-reduction) importance, Section 4 of the paper:
        per feature, the total improvement of the nodes splitting on it, averaged over
        trees; not rescaled to sum to 1."""
        return self._importances(False)

    @property
    def feature_importances_normalized_(self):
        """The normalised variant: each node's improvement divided by its total weight W."""
        return self._importances(True)


class BaseSingleTree(_TreeModel):
    def _fitted_trees(self) -> list:
        return [self.tree_]

    def _set_tree(self, tree, owner) -> None:
        """Make this unfitted estimator the fitted tree ``tree`` of the forest ``owner``."""
        self.tree_ = tree
        self.n_features_in_ = owner.n_features_in_
        if hasattr(owner, "feature_names_in_"):
            self.feature_names_in_ = owner.feature_names_in_
        self.classes_ = owner.classes_
        self._pack()


class BaseForest(_TreeModel):
    def _fitted_trees(self) -> list:
        return self.trees_

    def _predict_n_jobs(self):
        return self.n_jobs


def _fit_engine(est, Xf, a, u, rows, crit, splitter, n_trees, seed, *, bootstrap=False, n_jobs=None,
                use_dask=False):
    params = _engine_params(est, crit, splitter, Xf.shape[1])
    return fit_trees(Xf, a, u, params, _tree_seeds(seed, n_trees), rows=rows, n_jobs=n_jobs, use_dask=use_dask,
                     bootstrap=bootstrap)  # bool or (kind, n_draws): pu_lib.trees._parallel.tree_sample


# --------------------------------------------------------------------------- PU estimators

def check_pu_fit_data(est, X, s, sample_weight):
    """``(X as float32, s as int8, sample weights or None)`` for ``est.fit``, by
    :func:`pu_lib._validation.validate_pu_data` (the one PU training-data check of the
    package): rows of weight 0 are dropped there, so a zero weight is a removed row."""
    Xv, s, sw, _ = validate_pu_data(est, X, s, dtype=np.float32, sample_weight=sample_weight)
    return Xv, s, sw


def _mass_scales(s, prior: float, scenario: str, sw) -> tuple[float, float, bool]:
    """``(kL, kU, case_control)``: a node's labeled weight is ``kL * Wp`` and its
    unlabeled-sample weight ``kU * W`` (single training set: ``kU * W`` is the node's total
    weight, labeled rows included), for :func:`labeled_fraction`."""
    sw = np.ones(s.shape[0]) if sw is None else sw
    sum_p = float(sw[s == 1].sum())
    if scenario == SCENARIOS[0]:
        return sum_p / prior, float(sw.sum()), False
    return sum_p / prior, float(sw[s == 0].sum()), True


def labeled_fraction(wp, w, scales) -> np.ndarray:
    """Per node, the weighted fraction of labeled rows L / T (an estimate of
    P(s = 1 | x)) from the node weights ``Wp``, ``W`` and :func:`_mass_scales`."""
    k_l, k_u, case_control = scales
    lab = k_l * np.asarray(wp, dtype=np.float64)
    tot = k_u * np.asarray(w, dtype=np.float64)
    if case_control:
        tot = tot + lab
    out = np.divide(lab, tot, out=np.zeros_like(lab), where=tot > 0)
    return np.clip(out, 0.0, 1.0)


class BasePUTree:
    """Fitting PU trees: validation of ``(X, s, sample_weight)``, the prior, the weights."""

    def _criterion_code(self) -> int:
        return pu_criterion_code(self.risk, self.loss)

    def _fit_pu(self, X, s, sample_weight, *, splitter, n_trees, bootstrap=False, n_jobs=None, use_dask=False):
        Xv, s, sw = check_pu_fit_data(self, X, s, sample_weight)
        crit = self._criterion_code()
        seed = _int_seed(self.random_state)
        est_seed = None if self.random_state is None else derive_seed(seed, "prior_estimator")
        prior, prior_est = _resolve_prior(self.prior, Xv, s, self.scenario, sw, est_seed, n_jobs)
        a, u = pu_weights(s, prior, self.scenario, sw)
        if callable(bootstrap):  # a function of the training labels (e.g. PU-SHRF's K_U)
            bootstrap = bootstrap(s)
        self._fit_scales = _mass_scales(s, prior, self.scenario, sw)
        # rows of weight 0 were already dropped by validate_pu_data: the engine uses every row
        trees = _fit_engine(self, _fit_layout(Xv, column_major=True), a, u, None, crit, splitter, n_trees,
                            seed, bootstrap=bootstrap, n_jobs=n_jobs, use_dask=use_dask)
        self.prior_ = prior
        self.prior_estimator_ = prior_est
        self.n_features_in_ = Xv.shape[1]
        self.classes_ = np.array([0, 1])
        return trees


class PUDecisionTreeClassifier(PUClassifierMixin, BasePUTree, BaseSingleTree, BaseEstimator):
    """A PU decision tree by recursive greedy risk minimisation (Wilton et al. 2022, Section 3.2).

    Each node predicts v* = Wp / (Wp + Wn) (Proposition 1); splits maximise the uPU
    (eq. 10) or nnPU risk reduction using the closed forms of Propositions 1-2 (quadratic,
    logistic; savage: Proposition 3, identical to quadratic for nnPU; sigmoid:
    Proposition 5); the criterion is ``f"{risk}_{loss}"`` of
    :data:`pu_lib.trees._criteria.CRITERIA`. With ``splitter="best"`` (default) every
    threshold of every tried feature is scanned (Algorithm 2); ``"random"`` draws
    ``n_thresholds`` cut points per feature (Algorithm 5). Growth stops when all features
    are constant, ``max_depth`` is reached, the node has fewer than ``min_samples_split``
    rows, or the node is pure (R* = -inf for uPU, 0 for nnPU). ``predict`` is
    sign(v* - 0.5) (Proposition 4) as 0/1.

    Parameters: ``risk`` ("nnpu" | "upu"), ``loss`` ("quadratic" | "logistic" | "savage" |
    "sigmoid"), ``prior`` and ``scenario`` (see the module docstring), ``max_features``
    (None = all features), ``threshold_rule`` ("uniform": the paper; "authors": the
    authors' code's interior interval), ``feature_draw`` ("nonconstant": Algorithm 5,
    ``max_features`` non-constant features per node; "any": scikit-learn's rule, constant
    features drawn count too).

    Fitted attributes: ``tree_`` (:class:`pu_lib.trees.Tree`: ``impurity`` = R*,
    ``improvement`` = RR per node), ``prior_``, ``prior_estimator_``, ``n_features_in_``,
    ``classes_``, ``feature_importances_``, ``feature_importances_normalized_``.

    **predict_proba** (kind ``"score"``, docs/probabilities.md): the leaf's v* estimates
    ``P(y = 1 | x)``, but a fully grown tree's leaves hold a few rows and v* is mostly 0 or 1; limit
    the growth (``max_depth``, ``min_samples_leaf``) or use
    :class:`pu_lib.calibration.PUCalibratedClassifier`.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "score"

    _parameter_constraints: dict = {**PU_CONSTRAINTS, **SPLITTER_CONSTRAINT, **TREE_CONSTRAINTS}

    def __init__(self, *, risk="nnpu", loss="quadratic", splitter="best", max_features=None, n_thresholds=1,
                 max_depth=None, min_samples_split=2, min_samples_leaf=1, prior=None,
                 scenario="single_training_set", threshold_rule="uniform", feature_draw="nonconstant",
                 random_state=None):
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
        self.feature_draw = feature_draw
        self.random_state = random_state

    # prior may be an estimator object: validate its parameters too (nested validation)
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled)."""
        (self.tree_,) = self._fit_pu(X, s, sample_weight, splitter=self.splitter, n_trees=1)
        self._pack()
        return self


class PUExtraTreesClassifier(PUClassifierMixin, BasePUTree, BaseForest, BaseEstimator):
    """PU Extra Trees (Wilton et al. 2022, Section 4 and Algorithms 3-5).

    ``n_estimators`` PU trees, each grown on all of the data (no bootstrap, as the paper)
    with the Extra-Trees splitter: at each node ``max_features`` features are drawn among
    the non-constant ones (``"sqrt"`` = ceil(sqrt(d)), the paper's F) and
    ``n_thresholds`` random cut points per feature (T = 1), keeping the split with the
    largest uPU / nnPU risk reduction. ``feature_draw="any"`` switches to scikit-learn's
    rule, where constant features drawn count towards ``max_features``. Defaults are the
    paper's: 100 trees, nnPU risk, quadratic loss, no depth limit.

    ``predict`` is the paper's majority vote of the trees' +-1 leaf predictions;
    ``predict_proba`` is the mean of the leaf v* clipped to [0, 1] (our choice, for
    ranking metrics; the paper defines no probability); ``decision_function`` is the vote
    margin. ``feature_importances_`` is the risk-reduction importance averaged over trees
    and ``feature_importances_normalized_`` its normalised variant.

    Trees are fitted on ``n_jobs`` threads, or with ``use_dask=True`` as tasks of the
    current Dask client (default False: local threads even when a client is active; see
    docs/cluster.md, "Dask by explicit choice"). Per-tree seeds are drawn
    from ``random_state`` before fitting, so the forest does not depend on the number of
    threads or workers.

    Fitted attributes: ``trees_`` (the :class:`pu_lib.trees.Tree` of each tree),
    ``estimators_`` (the trees as fitted :class:`PUDecisionTreeClassifier` instances with
    the forest's parameters and ``prior_``; their ``random_state`` is None, as the trees
    were grown from seeds drawn by the forest), ``prior_``, ``prior_estimator_``,
    ``n_features_in_``, ``classes_``.

    **predict_proba** (kind ``"posterior"``, docs/probabilities.md): the mean of the trees' leaf
    estimates of ``P(y = 1 | x)`` (v* clipped to [0, 1]).
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "posterior"

    _parameter_constraints: dict = {**PU_CONSTRAINTS, **TREE_CONSTRAINTS, **FOREST_CONSTRAINTS}

    def __init__(self, *, n_estimators=100, risk="nnpu", loss="quadratic", max_features="sqrt", n_thresholds=1,
                 max_depth=None, min_samples_split=2, min_samples_leaf=1, bootstrap=False, prior=None,
                 scenario="single_training_set", threshold_rule="uniform", feature_draw="nonconstant",
                 random_state=None, n_jobs=None, use_dask=False):
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
        self.feature_draw = feature_draw
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.use_dask = use_dask

    # prior may be an estimator object: validate its parameters too (nested validation)
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled)."""
        self.trees_ = self._fit_pu(X, s, sample_weight, splitter="random", n_trees=self.n_estimators,
                                   bootstrap=bool(self.bootstrap), n_jobs=self.n_jobs, use_dask=self.use_dask)
        self._pack()
        self.estimators_ = [self._tree_estimator(t) for t in self.trees_]
        return self

    def _tree_estimator(self, tree) -> PUDecisionTreeClassifier:
        est = PUDecisionTreeClassifier(
            risk=self.risk, loss=self.loss, splitter="random", max_features=self.max_features,
            n_thresholds=self.n_thresholds, max_depth=self.max_depth, min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf, prior=self.prior_, scenario=self.scenario,
            threshold_rule=self.threshold_rule, feature_draw=self.feature_draw, random_state=None,
        )
        est._set_tree(tree, self)
        est.prior_ = self.prior_
        est.prior_estimator_ = None
        return est


# --------------------------------------------------------------------------- PN estimators

class _PNTree(ClassifierMixin):
    """Fitting PN trees on any two class labels (``classes_``, sorted; the second is the
    positive class of the criteria)."""

    _voting = "mean"
    #: True for a PU baseline fitted on ``s`` (validated as PU labels, classes [0, 1])
    _labels_are_s = False

    def _criterion_code(self) -> int:
        return criterion_code(self.criterion, "pn")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # binary: the criteria see positives vs. the rest
        return tags

    def _fit_pn(self, X, y, sample_weight, *, splitter, n_trees, bootstrap=False, n_jobs=None, use_dask=False):
        if self._labels_are_s:  # PU labels s taken as classes: 0/1, both present
            Xv, y01, _ = check_pu_fit_data(self, X, y, None)
            classes = np.array([0, 1])
        else:
            Xv = check_X_fit(self, X, reset=True)
            y = _check_labels_1d(y)
            if y.shape[0] != Xv.shape[0]:
                raise ValueError(f"y has {y.shape[0]} entries but X has {Xv.shape[0]} rows")
            classes, y01 = np.unique(y, return_inverse=True)
            if classes.shape[0] != 2:
                raise ValueError(
                    f"{type(self).__name__} is a binary classifier: y must hold exactly 2 classes, got "
                    f"{classes.shape[0]} class(es) {classes[:10].tolist()}"
                )
        sw = _sample_weight(sample_weight, Xv.shape[0])
        a, u = pn_weights(y01, sw)
        trees = _fit_engine(self, _fit_layout(Xv, column_major=False), a, u, _kept_rows(sw),
                            self._criterion_code(), splitter, n_trees, _int_seed(self.random_state),
                            bootstrap=bootstrap, n_jobs=n_jobs, use_dask=use_dask)
        self.n_features_in_ = Xv.shape[1]
        self.classes_ = classes
        return trees


class PNDecisionTreeClassifier(_PNTree, BaseSingleTree, BaseEstimator):
    """A PN decision tree on the same engine (Gini or entropy; by Theorem 1 of Wilton et al.
    2022 the same tree as recursive greedy minimisation of the quadratic / logistic risk).
    ``predict`` is leaf positive fraction > 0.5. ``feature_draw``: see
    :class:`PUDecisionTreeClassifier` (both rules agree when ``max_features`` is None).

    Fitted attributes: ``tree_`` (``impurity``: the weighted Gini / entropy impurity,
    ``improvement``: its decrease), ``classes_``, ``n_features_in_``,
    ``feature_importances_``, ``feature_importances_normalized_``.

    **predict_proba** (kind ``"labeled"``, docs/probabilities.md): the leaf's fraction of class 1 of
    the target it is fitted on -- ``P(s = 1 | x)`` on PU data ``fit(X, s)``, as the workflow fits
    it.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "labeled"

    _parameter_constraints: dict = {**PN_CONSTRAINT, **SPLITTER_CONSTRAINT, **TREE_CONSTRAINTS}

    def __init__(self, *, criterion="gini", splitter="best", max_features=None, n_thresholds=1, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, threshold_rule="uniform", feature_draw="nonconstant",
                 random_state=None):
        self.criterion = criterion
        self.splitter = splitter
        self.max_features = max_features
        self.n_thresholds = n_thresholds
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.threshold_rule = threshold_rule
        self.feature_draw = feature_draw
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit on features ``X`` and two-class labels ``y``."""
        (self.tree_,) = self._fit_pn(X, y, sample_weight, splitter=self.splitter, n_trees=1)
        self._pack()
        return self


class PNExtraTreesClassifier(_PNTree, BaseForest, BaseEstimator):
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

    Fitted attributes: ``trees_`` (:class:`pu_lib.trees.Tree` per tree), ``estimators_``
    (fitted :class:`PNDecisionTreeClassifier` instances, ``random_state`` None: the trees
    were grown from seeds drawn by the forest), ``classes_``, ``n_features_in_``.

    **predict_proba** (kind ``"labeled"``, docs/probabilities.md): the probability of class 1 of the
    target it is fitted on -- ``P(s = 1 | x)`` on PU data ``fit(X, s)``, as the workflow fits it.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "labeled"

    _parameter_constraints: dict = {**PN_CONSTRAINT, **TREE_CONSTRAINTS, **FOREST_CONSTRAINTS}

    def __init__(self, *, n_estimators=100, criterion="gini", max_features="sqrt", n_thresholds=1, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, bootstrap=False, threshold_rule="uniform",
                 feature_draw="any", random_state=None, n_jobs=None, use_dask=False):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_features = max_features
        self.n_thresholds = n_thresholds
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.bootstrap = bootstrap
        self.threshold_rule = threshold_rule
        self.feature_draw = feature_draw
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.use_dask = use_dask

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit on features ``X`` and two-class labels ``y``."""
        return self._fit_forest(X, y, sample_weight)

    def _fit_forest(self, X, y, sample_weight):
        self.trees_ = self._fit_pn(X, y, sample_weight, splitter="random", n_trees=self.n_estimators,
                                   bootstrap=bool(self.bootstrap), n_jobs=self.n_jobs, use_dask=self.use_dask)
        self._pack()
        self.estimators_ = [self._tree_estimator(t) for t in self.trees_]
        return self

    def _tree_estimator(self, tree) -> PNDecisionTreeClassifier:
        est = PNDecisionTreeClassifier(
            criterion=self.criterion, splitter="random", max_features=self.max_features,
            n_thresholds=self.n_thresholds, max_depth=self.max_depth, min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf, threshold_rule=self.threshold_rule,
            feature_draw=self.feature_draw, random_state=None,
        )
        est._set_tree(tree, self)
        return est
