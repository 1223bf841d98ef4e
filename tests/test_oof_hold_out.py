"""pu_lib.oof is the one module for held-out / out-of-fold probabilities: Elkan-Noto's
hold-out split and the folds returned by cv_probabilities."""

from __future__ import annotations

import numpy as np

import pu_lib.baselines.elkan_noto as en
import pu_lib.prior.elkan_noto as en_core
from pu_lib import oof
from pu_lib._seeding import derive_seed
from pu_lib.baselines import ElkanNotoClassifier
from pu_lib.prior import ElkanNotoPrior


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    s = (rng.random(n) < 0.2).astype(int)
    X[s == 1] += 1.5
    return X, s


def test_elkan_noto_hold_out_split_comes_from_oof():
    # one Elkan-Noto fit, in the prior module, on oof's split; the classifier calls it
    assert en_core.stratified_hold_out is oof.stratified_hold_out
    assert en.elkan_noto_fit is en_core.elkan_noto_fit
    assert not hasattr(en, "stratified_hold_out") and not hasattr(en, "_stratified_hold_out")
    X, s = _data()
    clf = ElkanNotoClassifier(random_state=7).fit(X, s)
    rng = np.random.default_rng(derive_seed(7, "ElkanNotoClassifier", "hold_out"))
    np.testing.assert_array_equal(clf.hold_out_indices_, oof.split_rows(s.astype(np.int8), 0.1, rng)[1])
    prior = ElkanNotoPrior(random_state=7).fit(X, s)
    np.testing.assert_array_equal(prior.hold_out_indices_, clf.hold_out_indices_)
    assert prior.c_estimates_ == clf.c_estimates_


def test_split_rows_counts():
    s = np.array([1] * 3 + [0] * 27)
    train, hold = oof.split_rows(s, 0.1, np.random.default_rng(0))
    assert s[hold].sum() == 1 and (s[hold] == 0).sum() == 3  # 0.3 -> clipped to 1; 2.7 -> 3
    assert np.union1d(train, hold).size == 30 and np.intersect1d(train, hold).size == 0


def test_cv_probabilities_return_folds():
    X, s = _data()
    from sklearn.linear_model import LogisticRegression

    p = oof.cv_probabilities(X, s, estimator=LogisticRegression(), n_folds=4, random_state=3)
    q, folds = oof.cv_probabilities(X, s, estimator=LogisticRegression(), n_folds=4, random_state=3,
                                    return_folds=True)
    np.testing.assert_array_equal(p, q)
    for k, (train, test) in enumerate(oof.fold_splits(s, 4, 3)):
        assert np.all(folds[test] == k)
        model = LogisticRegression().fit(X[train], s[train])
        np.testing.assert_allclose(p[test], model.predict_proba(X[test])[:, 1])
