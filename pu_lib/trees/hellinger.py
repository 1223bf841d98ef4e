"""Hellinger distance trees for imbalanced PU data (Ortega Vazquez, vanden Broucke, De
Weerdt, "Hellinger Distance Decision Trees for PU Learning in Imbalanced Data Sets"):
PU-HDT, the PN baseline HDT (Cieslak & Chawla 2008), and the forests PU-HRF and PU-SHRF,
all on the compiled engine of :mod:`pu_lib.trees` (criteria ``"hellinger"`` and
``"pu_hellinger"`` of :data:`pu_lib.trees.CRITERIA`).

**The criterion.** A split is scored by the Hellinger distance between the positive and
the negative class distributions over the two children (paper eq. 1)::

    HD = sqrt( (sqrt(N_l / N) - sqrt(P_l / P))^2 + (sqrt(N_r / N) - sqrt(P_r / P))^2 )

HDT takes ``P``, ``N`` as the (weighted) counts of the two classes -- fitted on PU data
it treats the labeled rows as positives and the unlabeled rows as negatives. PU-HDT
estimates them from PU data with the class prior ``alpha`` (eqs. 2-3): in a node with
``L`` labeled rows out of ``T``, ``P_hat = min(L alpha / Pr(l = 1), T)`` and
``N_hat = T - P_hat``, with ``Pr(l = 1)`` the labeled fraction of the training data. As
Algorithm 1 (lines 21-24), ``P`` and ``N`` of a split are the sums of the children's
estimates. A node without labeled rows is a leaf (Section 3.1).

**Choices where the paper is silent** (each is tested):

* ``Pr(l = 1)`` comes from the whole training set, also for a forest's bootstrap samples
  (as the authors' code, which bootstraps by sample weights and counts ``Pr(l = 1)`` on
  the full training labels); rows repeated by a bootstrap count with their multiplicity
  in ``L`` and ``T``.
* A split whose children hold no estimated negatives (``N = 0``) or no positives is never
  chosen; a node where every split is like that (e.g. only labeled rows) is a leaf. (The
  authors' code replaces ``N = 0`` by 1, which scores every such split HD = 1 -- often
  above an informative split -- and keeps splitting regions estimated all-positive;
  ``all_positive_split="authors"`` does the same. On the paper's Thyroid and Shuttle at
  flip ratio 75% that rule alone lowers our forests' AUC-PR and best F1 by 1.7-2.2
  points (same draws and seeds): docs/pu_hellinger_trees.md, "The N = 0 rule".)
* Ties between equal distances go to the first candidate (feature draw order, then
  increasing threshold), as :mod:`pu_lib.trees._builder` does for every criterion.
* ``Tree.improvement`` of a Hellinger node is ``W * HD`` (``W``: the node's share of the
  training weight), so ``feature_importances_`` weights each split's distance by the size
  of its node, as scikit-learn weights impurity decreases; ``Tree.impurity`` is 0 (the
  Hellinger criterion has no node impurity).
* ``max_features="sqrt"`` is ``floor(sqrt(d))`` (Algorithm 2 sets ``phi = sqrt(|F_X|)``;
  scikit-learn's forests, which the authors' code extends, take the floor). Features drawn
  constant in a node count towards ``max_features`` (``feature_draw="any"``: scikit-learn's
  splitter, which the authors' trees use).

**Two probabilities** (``proba``): ``"class"`` (default) -- the prior-corrected class
probability of a leaf, ``P_hat / T = min(L alpha / (T Pr(l = 1)), 1)``, an estimate of
P(y = 1 | x); ``"labeled_fraction"`` -- the leaf's labeled fraction ``L / T``, an estimate
of P(s = 1 | x), which is what the authors' code returns from ``predict_proba`` and what
the paper's experiments score (with the F1 threshold tuned on validation data, and AUC-PR
/ AUC-ROC, which depend only on the ranking). Within one tree the two differ by the
constant factor ``alpha / Pr(l = 1)`` up to the cap at 1, so they rank rows almost alike;
``"class"`` is the default because ``predict`` (probability > 0.5) is then the PU
classifier's decision about ``y`` rather than about ``s``. Forests average the trees'
probabilities (scikit-learn's forests), and ``predict`` is the average > 0.5.

``prior`` is a number in (0, 1), ``None`` (a ``ValueError`` at ``fit``: these methods need
it), the name of a prior estimator (``"tice"``, ``"pulscar"``, ...) or a prior estimator
object, as for :class:`pu_lib.trees.PUExtraTreesClassifier`; ``scenario`` says how ``s``
is read (see :mod:`pu_lib.trees._classes`).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Integral, Interval, RealNotInt, StrOptions

from pu_lib.base import PUClassifierMixin
from pu_lib.trees._classes import (
    FOREST_CONSTRAINTS,
    PU_CONSTRAINTS,
    SPLITTER_CONSTRAINT,
    TREE_CONSTRAINTS,
    PNDecisionTreeClassifier,
    BaseForest,
    BasePUTree,
    BaseSingleTree,
    labeled_fraction,
)
from pu_lib.trees._criteria import HELLINGER, PU_HELLINGER, PU_HELLINGER_AUTHORS

__all__ = ["HellingerTreeClassifier", "PUHellingerTreeClassifier", "PUHellingerForestClassifier"]

PROBAS = ("class", "labeled_fraction")
#: ``all_positive_split``: a split whose children hold no estimated negatives is never
#: chosen ("never", pu_lib's rule) or scores HD = 1 ("authors", the authors' code)
ALL_POSITIVE_SPLITS = ("never", "authors")
BOOTSTRAPS = ("stratified", "standard")

_PU_HELLINGER_CONSTRAINTS: dict = {
    **{k: v for k, v in PU_CONSTRAINTS.items() if k not in ("risk", "loss")},
    "proba": [StrOptions(set(PROBAS))],
    "all_positive_split": [StrOptions(set(ALL_POSITIVE_SPLITS))],
}


class _PUHellinger(BasePUTree):
    """PU Hellinger trees: the criterion, a required prior, the two probabilities."""

    _voting = "mean"
    _sqrt_rounding = "floor"

    def _criterion_code(self) -> int:
        return PU_HELLINGER_AUTHORS if self.all_positive_split == "authors" else PU_HELLINGER

    def _leaf_values(self, tree):
        if self.proba == "labeled_fraction":
            return labeled_fraction(tree.weight_p, tree.weight, self._fit_scales)
        return tree.value


class HellingerTreeClassifier(PNDecisionTreeClassifier):
    """HDT: a decision tree split by the Hellinger distance (Cieslak & Chawla 2008; eq. 1
    of the PU-HDT paper), the non-PU baseline of the PU-HDT paper.

    A PN tree: ``fit(X, y)`` with two classes (the second is the positive class); the paper
    fits it on the PU labels ``s`` (labeled = positive, unlabeled = negative), which is how
    the workflow uses it. Exhaustive search over the midpoints of the sorted values
    (``splitter="best"``) or ``n_thresholds`` random cut points per feature
    (``"random"``); ``max_depth=5``, the paper's setting. ``predict_proba`` is the leaf's
    positive fraction (for ``s``: the labeled fraction); ``predict`` is that > 0.5. The same
    tree as :class:`pu_lib.trees.PNDecisionTreeClassifier` with ``criterion="hellinger"``
    and as :class:`PUHellingerTreeClassifier` with ``prior`` equal to the labeled fraction
    (then ``P_hat = L``; tested).

    Fitted attributes: ``tree_`` (``improvement`` = ``W * HD``, ``impurity`` = 0),
    ``classes_``, ``n_features_in_``, ``feature_importances_``.

    **predict_proba** (kind ``"labeled"``, docs/probabilities.md): the leaf's labeled fraction,
    ``P(s = 1 | x)``, when fitted on ``s``.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "labeled"

    _parameter_constraints: dict = {**SPLITTER_CONSTRAINT, **TREE_CONSTRAINTS}
    _sqrt_rounding = "floor"

    def __init__(self, *, splitter="best", max_features=None, n_thresholds=1, max_depth=5, min_samples_split=2,
                 min_samples_leaf=1, threshold_rule="uniform", feature_draw="any", random_state=None):
        self.splitter = splitter
        self.max_features = max_features
        self.n_thresholds = n_thresholds
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.threshold_rule = threshold_rule
        self.feature_draw = feature_draw
        self.random_state = random_state

    def _criterion_code(self) -> int:
        return HELLINGER


class PUHellingerTreeClassifier(PUClassifierMixin, _PUHellinger, BaseSingleTree, BaseEstimator):
    """PU-HDT: the PU Hellinger decision tree (PU-HDT paper, Section 3.1, Algorithm 1).

    Splits maximise the Hellinger distance (eq. 1) between the estimated positive and
    negative distributions, with per-node counts estimated from PU data and the class
    prior (eqs. 2-3); see the module docstring for the formulas and every choice the
    paper leaves open. Defaults are the paper's: exhaustive split search
    (``splitter="best"``), all features per split (``max_features=None``),
    ``max_depth=5``.

    Parameters: ``prior`` (required; a number, a prior estimator's name or object),
    ``scenario``, ``splitter`` ("best" | "random"), ``max_features``, ``n_thresholds``
    (random splitter), ``max_depth``, ``min_samples_split``, ``min_samples_leaf``,
    ``threshold_rule`` / ``feature_draw`` (as :class:`pu_lib.trees.PUDecisionTreeClassifier`),
    ``proba`` ("class" | "labeled_fraction"), ``all_positive_split`` ("never" | "authors":
    see the module docstring), ``random_state``.

    Fitted attributes: ``tree_`` (``value`` = the leaf's ``P_hat / T`` before the cap at
    1; ``improvement`` = ``W * HD``), ``prior_``, ``prior_estimator_``, ``classes_``,
    ``n_features_in_``, ``feature_importances_``.

    **predict_proba** (docs/probabilities.md): ``proba="class"`` -- kind ``"posterior"``, the leaf's
    prior-corrected ``P(y = 1 | x)``; ``"labeled_fraction"`` -- kind ``"labeled"``,
    ``P(s = 1 | x)``.
    """

    @property
    def _proba_kind(self):
        """What column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)."""
        return "labeled" if self.proba == "labeled_fraction" else "posterior"

    _parameter_constraints: dict = {**_PU_HELLINGER_CONSTRAINTS, **SPLITTER_CONSTRAINT, **TREE_CONSTRAINTS}

    def __init__(self, *, prior=None, scenario="single_training_set", splitter="best", max_features=None,
                 n_thresholds=1, max_depth=5, min_samples_split=2, min_samples_leaf=1, threshold_rule="uniform",
                 feature_draw="any", proba="class", all_positive_split="never", random_state=None):
        self.prior = prior
        self.scenario = scenario
        self.splitter = splitter
        self.max_features = max_features
        self.n_thresholds = n_thresholds
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.threshold_rule = threshold_rule
        self.feature_draw = feature_draw
        self.proba = proba
        self.all_positive_split = all_positive_split
        self.random_state = random_state

    # prior may be an estimator object: validate its parameters too (nested validation)
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled)."""
        (self.tree_,) = self._fit_pu(X, s, sample_weight, splitter=self.splitter, n_trees=1)
        self._pack()
        return self


class PUHellingerForestClassifier(PUClassifierMixin, _PUHellinger, BaseForest, BaseEstimator):
    """PU-SHRF and PU-HRF: random forests of PU Hellinger trees (PU-HDT paper, Section 3.3,
    Algorithm 2).

    ``n_estimators`` PU-HDTs, grown fully (``max_depth=None``: "the tree can fully grow" in
    a forest), each on its own bootstrap sample, with ``max_features="sqrt"`` =
    floor(sqrt(d)) features tried per split and exhaustive threshold search:

    * ``bootstrap="stratified"`` (default; PU-SHRF): every tree sees all labeled rows once
      plus ``K_U`` unlabeled rows drawn with replacement; ``max_samples`` is ``K_U`` (an
      int, a fraction of the unlabeled rows, or None = all of them: the paper's default
      ``K_U = U_training``).
    * ``bootstrap="standard"`` (PU-HRF): Breiman's bootstrap of all rows; ``max_samples``
      is the number of draws (int, fraction of the rows, or None = all rows).

    Trees are fitted on ``n_jobs`` threads or, with ``use_dask=True``, on the current Dask
    client (as :class:`pu_lib.trees.PUExtraTreesClassifier`); per-tree seeds (which also draw the
    bootstrap samples) come from ``random_state`` before any tree is grown, so the forest
    is the same for any number of threads or workers. ``predict_proba`` averages the
    trees' probabilities (``proba``: "class" or "labeled_fraction", see the module
    docstring); ``predict`` is the average > 0.5; ``decision_function`` the average - 0.5.

    Fitted attributes: ``trees_``, ``estimators_`` (fitted
    :class:`PUHellingerTreeClassifier` instances, ``random_state`` None), ``prior_``,
    ``prior_estimator_``, ``classes_``, ``n_features_in_``, ``feature_importances_``.

    **predict_proba** (kind ``"score"``, docs/probabilities.md, for both ``proba`` values): the mean
    of the bootstrap trees' leaf estimates, which on the two-Gaussian data of
    tests/test_probabilities.py is too low in every probability bin (mean error -0.08 to -0.11
    against the true ``P(y = 1 | x)``, expected calibration error 0.08-0.11 over training seeds
    0-5, ``proba="class"``); :class:`pu_lib.calibration.PUCalibratedClassifier` calibrates it.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "score"

    _parameter_constraints: dict = {
        **_PU_HELLINGER_CONSTRAINTS, **SPLITTER_CONSTRAINT, **TREE_CONSTRAINTS, **FOREST_CONSTRAINTS,
        "bootstrap": [StrOptions(set(BOOTSTRAPS))],
        "max_samples": [Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0.0, 1.0, closed="right"),
                        None],
    }

    def __init__(self, *, n_estimators=100, bootstrap="stratified", max_samples=None, prior=None,
                 scenario="single_training_set", splitter="best", max_features="sqrt", n_thresholds=1,
                 max_depth=None, min_samples_split=2, min_samples_leaf=1, threshold_rule="uniform",
                 feature_draw="any", proba="class", all_positive_split="never", random_state=None, n_jobs=None,
                 use_dask=False):
        self.n_estimators = n_estimators
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.prior = prior
        self.scenario = scenario
        self.splitter = splitter
        self.max_features = max_features
        self.n_thresholds = n_thresholds
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.threshold_rule = threshold_rule
        self.feature_draw = feature_draw
        self.proba = proba
        self.all_positive_split = all_positive_split
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.use_dask = use_dask

    def _bootstrap_spec(self, s) -> tuple[str, int]:
        """``(kind, number of draws)`` for :func:`pu_lib.trees._parallel.tree_sample`."""
        pool = int(np.sum(s == 0)) if self.bootstrap == "stratified" else int(s.shape[0])
        m = self.max_samples
        if m is None:
            k = pool
        elif isinstance(m, numbers.Integral):
            k = int(m)
        else:
            k = max(1, round(m * pool))
        return (self.bootstrap, k)

    # prior may be an estimator object: validate its parameters too (nested validation)
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled)."""
        self.trees_ = self._fit_pu(X, s, sample_weight, splitter=self.splitter, n_trees=self.n_estimators,
                                   bootstrap=self._bootstrap_spec, n_jobs=self.n_jobs, use_dask=self.use_dask)
        self._pack()
        self.estimators_ = [self._tree_estimator(t) for t in self.trees_]
        return self

    def _tree_estimator(self, tree) -> PUHellingerTreeClassifier:
        est = PUHellingerTreeClassifier(
            prior=self.prior_, scenario=self.scenario, splitter=self.splitter, max_features=self.max_features,
            n_thresholds=self.n_thresholds, max_depth=self.max_depth, min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf, threshold_rule=self.threshold_rule,
            feature_draw=self.feature_draw, proba=self.proba, all_positive_split=self.all_positive_split,
            random_state=None,
        )
        est._fit_scales = self._fit_scales
        est._set_tree(tree, self)
        est.prior_ = self.prior_
        est.prior_estimator_ = None
        return est
