"""PU bagging (Mordelet & Vert 2014, Algorithm 1) on any base: bags, out-of-bag scores,
score kinds, seeds, and the PUBaggingET configuration against outputs recorded before the
refactor (``tests/data/pu_bagging_et_reference.npz``, written by the stand-alone
PUBaggingExtraTreesClassifier of commit 1695fc6)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from pu_lib.workflow import registry
from pu_lib.base_learners import make_base_estimator
from pu_lib.baselines import PUBaggingClassifier, PUBaggingExtraTreesClassifier
from pu_lib.trees import PNExtraTreesClassifier

REFERENCE = Path(__file__).parent / "data" / "pu_bagging_et_reference.npz"

#: the recorded cases: constructor parameters of PUBaggingExtraTreesClassifier, weighted?
CASES = {
    "default": (dict(n_estimators=4, base_n_estimators=6, random_state=3), False),
    "int_k": (dict(n_estimators=5, base_n_estimators=5, max_samples=7, max_features=2, random_state=11), False),
    "weighted": (dict(n_estimators=4, base_n_estimators=6, max_samples=0.5, random_state=5), True),
}


def data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    X = rng.normal(size=(n, 3)) + 1.5 * y[:, None]
    s = ((y == 1) & (rng.random(n) < 0.5)).astype(int)
    return X, s


@pytest.fixture(scope="module")
def ref():
    return dict(np.load(REFERENCE))


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_extra_trees_configuration_reproduces_recorded_outputs(ref, case, n_jobs):
    params, weighted = CASES[case]
    sw = ref["w"] if weighted else None
    old = PUBaggingExtraTreesClassifier(**params, n_jobs=n_jobs).fit(ref["X"], ref["s"], sample_weight=sw)
    np.testing.assert_array_equal(old.predict_proba(ref["Xt"]), ref[case + "_proba"])
    np.testing.assert_array_equal(old.oob_decision_, ref[case + "_oob"])
    # the generic class configured with the same PN Extra Trees base
    base = PNExtraTreesClassifier(n_estimators=params["base_n_estimators"],
                                  max_features=params.get("max_features", "sqrt"))
    gen = PUBaggingClassifier(base, n_estimators=params["n_estimators"], max_samples=params.get("max_samples", 1.0),
                              random_state=params["random_state"], n_jobs=n_jobs)
    gen.fit(ref["X"], ref["s"], sample_weight=sw)
    assert gen.score_kind_ == "predict_proba"
    np.testing.assert_array_equal(gen.predict_proba(ref["Xt"]), ref[case + "_proba"])
    np.testing.assert_array_equal(gen.oob_decision_, ref[case + "_oob"])


@pytest.mark.parametrize("base", [SVC(kernel="linear"), LogisticRegression()])
def test_bags_hold_every_positive_and_k_draws_and_oob_scores_only_out_of_bag_rows(base):
    X, s = data()
    m = PUBaggingClassifier(base, n_estimators=7, random_state=1).fit(X, s)
    P, U = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
    assert m.max_samples_ == P.size  # "balanced": K = |P|
    np.testing.assert_array_equal(m.oob_rows_, U)
    kind = "decision_function" if isinstance(base, SVC) else "predict_proba"
    assert m.score_kind_ == kind
    total, count = np.zeros(U.size), np.zeros(U.size)
    assert len(m.estimators_) == 7
    for model, rows in zip(m.estimators_, m.estimators_samples_, strict=True):
        assert rows.size == P.size + m.max_samples_
        np.testing.assert_array_equal(rows[: P.size], P)  # every labeled positive, once
        assert np.isin(rows[P.size:], U).all()  # the draws are unlabeled rows
        out = ~np.isin(U, rows)
        score = model.decision_function(X[U[out]]) if kind == "decision_function" else \
            model.predict_proba(X[U[out]])[:, 1]
        total[out] += score
        count[out] += 1
    # Algorithm 1: the mean over exactly the bags a row is out of
    expected = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    np.testing.assert_allclose(m.oob_decision_, expected, rtol=1e-12, atol=1e-12)
    assert np.isnan(m.oob_decision_).sum() == (count == 0).sum()


def test_balanced_is_positive_weight_and_int_and_fraction_sizes():
    X, s = data()
    U = int((s == 0).sum())
    assert U % 2 == 1  # 0.5 * U ends in .5: rounded half up
    w = np.ones(s.size)
    w[np.flatnonzero(s == 1)[:3]] = 3.0  # labeled weight |P| + 6
    m = PUBaggingClassifier(LogisticRegression(), n_estimators=2, random_state=0).fit(X, s, sample_weight=w)
    assert m.max_samples_ == int((s == 1).sum()) + 6
    assert PUBaggingClassifier(n_estimators=2, max_samples=9, random_state=0).fit(X, s).max_samples_ == 9
    half = PUBaggingClassifier(n_estimators=2, max_samples=0.5, random_state=0).fit(X, s)
    assert half.max_samples_ == (U + 1) // 2  # rounded half up


@pytest.mark.parametrize("base", [SVC(kernel="linear"), LogisticRegression()])
def test_same_result_for_any_n_jobs(base):
    X, s = data(120, seed=4)
    a = PUBaggingClassifier(base, n_estimators=9, random_state=7, n_jobs=1).fit(X, s)
    b = PUBaggingClassifier(base, n_estimators=9, random_state=7, n_jobs=2).fit(X, s)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.mean_score(X), b.mean_score(X))
    np.testing.assert_array_equal(a.oob_decision_, b.oob_decision_)
    assert len(a.estimators_samples_) == 9
    for ra, rb in zip(a.estimators_samples_, b.estimators_samples_, strict=True):
        np.testing.assert_array_equal(ra, rb)
    c = PUBaggingClassifier(base, n_estimators=9, random_state=8).fit(X, s)
    assert not np.array_equal(a.oob_decision_, c.oob_decision_, equal_nan=True)


def test_decision_function_base_votes_for_proba_and_averages_decisions():
    X, s = data()
    m = PUBaggingClassifier(n_estimators=5, random_state=2).fit(X, s)  # default: scaler + linear SVC
    assert isinstance(m.estimators_[0][0], StandardScaler)
    assert isinstance(m.estimators_[0][-1], SVC) and m.estimators_[0][-1].kernel == "linear"
    votes = np.mean([e.predict(X) == 1 for e in m.estimators_], axis=0)
    np.testing.assert_array_equal(m.predict_proba(X)[:, 1], votes)
    np.testing.assert_array_equal(m.decision_function(X), votes - 0.5)
    np.testing.assert_array_equal(m.predict(X), (votes > 0.5).astype(int))
    # Algorithm 1's aggregation on new rows: the mean decision function over all bags
    np.testing.assert_allclose(m.mean_score(X), np.mean([e.decision_function(X) for e in m.estimators_], 0))


class ThresholdOnFirstFeature(ClassifierMixin, BaseEstimator):
    """A predict-only classifier: 1 above the midpoint of the class means of feature 0."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.cut_ = (X[y == 1, 0].mean() + X[y == 0, 0].mean()) / 2
        return self

    def predict(self, X):
        return (X[:, 0] > self.cut_).astype(int)


def test_predict_only_base_scores_votes():
    X, s = data()
    m = PUBaggingClassifier(ThresholdOnFirstFeature(), n_estimators=6, random_state=0).fit(X, s)
    assert m.score_kind_ == "predict"
    votes = np.mean([e.predict(X) for e in m.estimators_], axis=0)
    np.testing.assert_array_equal(m.predict_proba(X)[:, 1], votes)
    np.testing.assert_array_equal(m.decision_function(X), votes - 0.5)
    oob = m.oob_decision_[~np.isnan(m.oob_decision_)]
    assert np.all((oob >= 0) & (oob <= 1))  # out-of-bag vote fractions


def test_integer_and_zero_weights_are_repeated_and_removed_rows():
    X, s = data(60, seed=2)
    w = np.random.default_rng(0).integers(0, 3, size=s.size)
    w[np.flatnonzero(s == 1)[0]] = 2
    base = PNExtraTreesClassifier(n_estimators=4)
    kw = dict(n_estimators=3, max_samples=10, random_state=4)
    a = PUBaggingClassifier(base, **kw).fit(X, s, sample_weight=w)
    b = PUBaggingClassifier(base, **kw).fit(np.repeat(X, w, axis=0), np.repeat(s, w))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    # bag rows index the X given to fit; zero-weight rows are never drawn
    for rows in a.estimators_samples_:
        assert np.all(w[rows] > 0)
    assert np.all(w[a.oob_rows_] > 0) and np.all(s[a.oob_rows_] == 0)


def test_weights_need_a_base_that_takes_them():
    X, s = data()
    with pytest.raises(ValueError, match="does not accept sample_weight"):
        PUBaggingClassifier(ThresholdOnFirstFeature(), n_estimators=2).fit(X, s, sample_weight=np.full(s.size, 2.0))
    with pytest.raises(ValueError, match="max_samples"):
        PUBaggingClassifier(max_samples="half").fit(X, s)


def test_registered_with_a_base_and_linear_svm_base_name():
    assert registry.METHODS["pu_bagging"].takes_base
    m = registry.make_estimator("pu_bagging")
    assert (m.estimator, m.n_estimators, m.max_samples) == (None, 100, "balanced")
    svm = make_base_estimator("linear_svm", random_state=3)
    assert isinstance(svm[0], StandardScaler)
    assert isinstance(svm[-1], SVC) and svm[-1].kernel == "linear" and svm[-1].random_state == 3
    bare = make_base_estimator("linear_svm", {"standardize": False})
    assert isinstance(bare, SVC) and bare.kernel == "linear"
    X, s = data()
    fitted = registry.make_estimator("pu_bagging", {"estimator": svm, "n_estimators": 3}, random_state=0).fit(X, s)
    assert fitted.score_kind_ == "decision_function"
