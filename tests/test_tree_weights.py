"""Sample weights, pickling and the fitted sub-estimators of every tree estimator
(pu_lib.trees and the tree baselines of pu_lib.baselines)."""

import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from pu_lib.baselines import (
    NaivePUExtraTreesClassifier,
    PUBaggingExtraTreesClassifier,
    SupervisedExtraTreesClassifier,
)
from pu_lib.trees import (
    HellingerTreeClassifier,
    PNDecisionTreeClassifier,
    PUHellingerTreeClassifier,
    PNExtraTreesClassifier,
    PUDecisionTreeClassifier,
    PUExtraTreesClassifier,
    pu_weights,
)

#: name -> (unfitted estimator, what fit's second argument is: "s", "y" or "s+y_true")
ESTIMATORS = {
    "pu_decision_tree": (lambda: PUDecisionTreeClassifier(prior=0.45, random_state=0), "s"),
    "pu_decision_tree_random": (lambda: PUDecisionTreeClassifier(prior=0.45, splitter="random", max_features=2,
                                                                 random_state=0), "s"),
    "pu_extra_trees": (lambda: PUExtraTreesClassifier(n_estimators=6, prior=0.45, random_state=0), "s"),
    "pu_extra_trees_upu_case_control": (lambda: PUExtraTreesClassifier(
        n_estimators=6, risk="upu", loss="logistic", prior=0.45, scenario="case_control", random_state=0), "s"),
    "pn_decision_tree": (lambda: PNDecisionTreeClassifier(random_state=0), "y"),
    "pu_hellinger_tree": (lambda: PUHellingerTreeClassifier(prior=0.45, max_depth=None, random_state=0), "s"),
    "pu_hellinger_tree_labeled_fraction_cc": (lambda: PUHellingerTreeClassifier(
        prior=0.45, scenario="case_control", proba="labeled_fraction", random_state=0), "s"),
    "hellinger_tree": (lambda: HellingerTreeClassifier(max_depth=None, random_state=0), "y"),
    "pn_extra_trees": (lambda: PNExtraTreesClassifier(n_estimators=6, criterion="entropy", random_state=0), "y"),
    "supervised_et": (lambda: SupervisedExtraTreesClassifier(n_estimators=6, random_state=0), "s+y_true"),
    "naive_pu_et": (lambda: NaivePUExtraTreesClassifier(n_estimators=6, random_state=0), "s"),
    "pu_bagging_et": (lambda: PUBaggingExtraTreesClassifier(n_estimators=3, base_n_estimators=4,
                                                            random_state=0), "s"),
}


def pu_data(n=160, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.normal(size=n) > 0).astype(int)
    s = y * (rng.random(n) < 0.4)
    return X, y, s


def fit(name, X, y, s, sample_weight=None):
    make, target = ESTIMATORS[name]
    est = make()
    if target == "y":
        return est.fit(X, y, sample_weight=sample_weight)
    if target == "s+y_true":
        return est.fit(X, s, y_true=y, sample_weight=sample_weight)
    return est.fit(X, s, sample_weight=sample_weight)


def node_counts(est):
    if hasattr(est, "tree_"):
        return [est.tree_.node_count]
    if hasattr(est, "trees_"):
        return [t.node_count for t in est.trees_]
    return [c for e in est.estimators_ for c in node_counts(e)]


def outputs(est, X):
    return est.predict_proba(X), est.decision_function(X), est.predict(X)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_integer_weights_give_the_model_of_duplicated_rows(name):
    X, y, s = pu_data()
    w = np.random.default_rng(1).integers(0, 4, size=len(y))      # zeros included
    assert (w == 0).any() and (w > 1).any()
    weighted = fit(name, X, y, s, sample_weight=w)
    repeated = fit(name, np.repeat(X, w, axis=0), np.repeat(y, w), np.repeat(s, w))
    assert node_counts(weighted) == node_counts(repeated)
    for a, b in zip(outputs(weighted, X), outputs(repeated, X)):
        assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_zero_weights_give_the_model_without_those_rows(name):
    X, y, s = pu_data()
    w = (np.random.default_rng(2).random(len(y)) < 0.7).astype(float)
    keep = w > 0
    weighted = fit(name, X, y, s, sample_weight=w)
    removed = fit(name, X[keep], y[keep], s[keep])
    assert node_counts(weighted) == node_counts(removed)
    for a, b in zip(outputs(weighted, X), outputs(removed, X)):
        assert_allclose(a, b, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", ["pu_extra_trees", "pn_extra_trees", "pu_bagging_et"])
def test_non_integer_weights_change_the_model(name):
    X, y, s = pu_data()
    X_test = pu_data(seed=9)[0]
    w = np.random.default_rng(3).uniform(0.1, 3.0, size=len(y))
    a = fit(name, X, y, s, sample_weight=w).predict_proba(X_test)
    b = fit(name, X, y, s).predict_proba(X_test)
    assert not np.allclose(a, b)


def test_constant_weights_do_not_change_the_trees():
    X, y, s = pu_data()
    a = PUExtraTreesClassifier(n_estimators=4, prior=0.45, random_state=0).fit(X, s, sample_weight=np.full(len(s), 3.0))
    b = PUExtraTreesClassifier(n_estimators=4, prior=0.45, random_state=0).fit(X, s)
    assert len(a.trees_) > 0  # an empty forest would pass the loop
    for ta, tb in zip(a.trees_, b.trees_, strict=True):
        assert_array_equal(ta.feature, tb.feature)
        assert_array_equal(ta.threshold, tb.threshold)
        assert_allclose(ta.value, tb.value, rtol=1e-12)


def test_weighted_pu_weights_by_hand():
    s = np.array([1, 0, 0, 1, 0])
    sw = np.array([2.0, 1.0, 0.0, 1.0, 4.0])
    a, u = pu_weights(s, 0.3, "single_training_set", sw)
    assert_allclose(a, [2 * 0.3 / 3, 0, 0, 0.3 / 3, 0])      # w_p = prior / (2 + 1)
    assert_allclose(u, sw / 8)                                 # w_u = 1 / (2 + 1 + 0 + 1 + 4)
    a, u = pu_weights(s, 0.3, "case_control", sw)
    assert_allclose(a, [2 * 0.3 / 3, 0, 0, 0.3 / 3, 0])
    assert_allclose(u, [0, 1 / 5, 0, 0, 4 / 5])                 # 1 / (1 + 0 + 4) on s = 0 rows
    with pytest.raises(ValueError, match=r"every labeled row .* one class"):
        pu_weights(s, 0.3, "single_training_set", np.array([0.0, 1, 1, 0, 1]))


@pytest.mark.parametrize("name", ["pu_extra_trees", "naive_pu_et", "pu_bagging_et"])
def test_weights_leaving_no_unlabeled_row_are_an_error_naming_the_class(name):
    X, y, s = pu_data()
    if name == "naive_pu_et":  # a PN forest on s: one class left is a constant model
        est = fit(name, X, y, s, sample_weight=s.astype(float))
        assert_array_equal(est.predict(X), np.ones(len(s)))
        return
    with pytest.raises(ValueError, match=r"s has no unlabeled examples \(all s == 1\): one class only"):
        fit(name, X, y, s, sample_weight=s.astype(float))


class _WeightedPrior(BaseEstimator):
    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, s, sample_weight=None):
        self.sample_weight_ = sample_weight
        self.prior_ = 0.4
        self.alpha_ = 0.3
        return self


class _UnweightedPrior(BaseEstimator):
    def fit(self, X, s):
        self.prior_ = 0.4
        self.alpha_ = 0.3
        return self


@pytest.mark.parametrize("cls", [PUDecisionTreeClassifier, PUExtraTreesClassifier])
def test_sample_weight_is_passed_to_a_prior_estimator_or_is_an_error_naming_it(cls):
    X, y, s = pu_data()
    w = np.random.default_rng(4).integers(1, 3, size=len(s)).astype(float)
    kw = {"n_estimators": 2} if cls is PUExtraTreesClassifier else {}
    m = cls(prior=_WeightedPrior(), random_state=0, **kw).fit(X, s, sample_weight=w)
    assert_array_equal(m.prior_estimator_.sample_weight_, w)
    assert m.prior_ == 0.4
    m = cls(prior=_WeightedPrior(), scenario="case_control", random_state=0, **kw).fit(X, s, sample_weight=w)
    assert m.prior_ == 0.3
    assert cls(prior=_UnweightedPrior(), **kw).fit(X, s).prior_ == 0.4     # no weights: fine
    with pytest.raises(ValueError, match="_UnweightedPrior does not accept sample_weight"):
        cls(prior=_UnweightedPrior(), **kw).fit(X, s, sample_weight=w)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_pickle_round_trip_gives_the_same_predictions(name):
    X, y, s = pu_data()
    est = fit(name, X, y, s)
    again = pickle.loads(pickle.dumps(est))
    for a, b in zip(outputs(est, X), outputs(again, X)):
        assert_array_equal(a, b)
    assert_array_equal(est.feature_importances_, again.feature_importances_)
    assert node_counts(est) == node_counts(again)


@pytest.mark.parametrize("name", ["pu_extra_trees", "pn_extra_trees", "supervised_et", "naive_pu_et"])
def test_forest_estimators_are_fitted_single_trees_that_make_up_the_forest(name):
    X, y, s = pu_data()
    forest = fit(name, X, y, s)
    single = PUDecisionTreeClassifier if name == "pu_extra_trees" else PNDecisionTreeClassifier
    assert len(forest.estimators_) == len(forest.trees_) == forest.n_estimators
    for est, tree in zip(forest.estimators_, forest.trees_, strict=True):
        assert type(est) is single
        check_is_fitted(est)
        assert est.tree_ is tree
        assert est.splitter == "random" and est.max_features == forest.max_features
        assert_array_equal(est.classes_, forest.classes_)
    if name == "pu_extra_trees":
        assert all(e.prior == forest.prior_ == e.prior_ for e in forest.estimators_)
    # the forest's probability is the mean of its trees' probabilities
    assert_allclose(forest.predict_proba(X), np.mean([e.predict_proba(X) for e in forest.estimators_], axis=0))
    # and the majority vote (PU ET) / mean (PN ET) of their predictions
    votes = np.mean([e.predict(X) for e in forest.estimators_], axis=0)
    if name == "pu_extra_trees":
        assert_array_equal(forest.predict(X), (votes > 0.5).astype(int))
    assert_allclose(forest.feature_importances_, np.mean([e.feature_importances_ for e in forest.estimators_], axis=0))


def test_pn_trees_take_any_two_class_labels():
    X, y, s = pu_data()
    labels = np.where(y == 1, "spam", "ham")
    est = PNExtraTreesClassifier(n_estimators=4, random_state=0).fit(X, labels)
    ref = PNExtraTreesClassifier(n_estimators=4, random_state=0).fit(X, y)
    assert_array_equal(est.classes_, ["ham", "spam"])
    assert_array_equal(est.predict(X), np.where(ref.predict(X) == 1, "spam", "ham"))
    assert_array_equal(est.predict_proba(X), ref.predict_proba(X))
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        PNDecisionTreeClassifier().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="exactly 2 classes, got 1 class"):
        PNDecisionTreeClassifier().fit(X, np.ones(len(y)))


@pytest.mark.parametrize("name", ["pu_decision_tree", "pu_extra_trees", "naive_pu_et", "pu_bagging_et"])
def test_pu_estimators_take_weights_as_list_or_series_and_refuse_a_wrong_shape(name):
    """What scikit-learn's sample-weight checks test (they label rows {1, 2}, not a PU
    labeling, so they are expected failures for the PU estimators)."""
    pd = pytest.importorskip("pandas")
    X, y, s = pu_data()
    w = np.random.default_rng(5).integers(1, 3, size=len(s)).astype(float)
    ref = fit(name, X, y, s, sample_weight=w).predict_proba(X)
    for given in (list(w), pd.Series(w)):
        assert_array_equal(fit(name, X, y, s, sample_weight=given).predict_proba(X), ref)
    kept = w.copy()
    fit(name, X, y, s, sample_weight=kept)
    assert_array_equal(kept, w)                                   # not overwritten
    for bad, match in ((np.ones(2 * len(s)), "entries but X has"), (np.ones((len(s), 2)), "1-D"),
                       (-w, "non-negative"), (np.zeros(len(s)), "sums to zero")):
        with pytest.raises(ValueError, match=match):
            fit(name, X, y, s, sample_weight=bad)
