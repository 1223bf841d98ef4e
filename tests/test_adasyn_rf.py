"""ADASYN + random forest (the PU Hellinger paper's non-PU baseline): balanced resampling,
100 trees, the authors' fall-back to the original rows when ADASYN refuses, determinism."""

from __future__ import annotations

import numpy as np
import pytest
from imblearn.over_sampling import ADASYN
from sklearn.ensemble import RandomForestClassifier

from pu_lib.workflow import registry
from pu_lib.baselines import ADASYNRandomForestClassifier


def data(n=300, n_labeled=None, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    X = rng.normal(size=(n, 3)) + 1.2 * y[:, None]
    s = ((y == 1) & (rng.random(n) < 0.5)).astype(int)
    if n_labeled is not None:
        s[:] = 0
        s[np.flatnonzero(y == 1)[:n_labeled]] = 1
    return X, s


def test_defaults_balanced_resampling_and_100_trees():
    X, s = data()
    m = ADASYNRandomForestClassifier(random_state=0).fit(X, s)
    assert m.resampled_ and m.resample_error_ is None
    assert len(m.estimator_.estimators_) == 100
    n0, n1 = np.bincount(s)
    # ADASYN grows the minority (s = 1) towards n0 - n1 synthetic rows; each minority row's
    # share is rounded, so the total misses the target by at most half a row per row
    assert abs(m.n_synthetic_ - (n0 - n1)) <= n1 / 2 + 1
    np.testing.assert_array_equal(m.resampled_counts_, [n0, n1 + m.n_synthetic_])
    assert abs(m.resampled_counts_[1] - n0) / n0 < 0.1
    # the composition: ADASYN then a random forest on the resampled set, one seed for both
    Xr, sr = ADASYN(n_neighbors=5, random_state=0).fit_resample(X, s)
    rf = RandomForestClassifier(n_estimators=100, random_state=0).fit(Xr, sr)
    np.testing.assert_array_equal(m.predict_proba(X)[:, 1], rf.predict_proba(X)[:, 1])


def test_fallback_when_adasyn_refuses_is_recorded():
    X, s = data(n_labeled=3)  # 3 minority rows < n_neighbors + 1
    m = ADASYNRandomForestClassifier(n_estimators=20, random_state=1).fit(X, s)
    assert not m.resampled_ and "n_neighbors" in m.resample_error_
    assert m.n_synthetic_ == 0
    np.testing.assert_array_equal(m.resampled_counts_, np.bincount(s))
    rf = RandomForestClassifier(n_estimators=20, random_state=1).fit(X, s)
    np.testing.assert_array_equal(m.predict_proba(X)[:, 1], rf.predict_proba(X)[:, 1])
    # separated classes: no majority row among any minority neighbours (RuntimeError)
    rng = np.random.default_rng(0)
    Xs = np.vstack([rng.normal(size=(50, 2)), rng.normal(size=(10, 2)) + 20])
    ss = np.r_[np.zeros(50, int), np.ones(10, int)]
    m2 = ADASYNRandomForestClassifier(n_estimators=5, random_state=0).fit(Xs, ss)
    assert not m2.resampled_ and m2.resample_error_.startswith("RuntimeError")


def test_deterministic_and_n_jobs_free():
    X, s = data(seed=2)
    a = ADASYNRandomForestClassifier(n_estimators=30, random_state=4).fit(X, s)
    b = ADASYNRandomForestClassifier(n_estimators=30, random_state=4, n_jobs=2).fit(X, s)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    c = ADASYNRandomForestClassifier(n_estimators=30, random_state=5).fit(X, s)
    assert not np.array_equal(a.predict_proba(X), c.predict_proba(X))
    np.testing.assert_array_equal(a.predict(X), (a.predict_proba(X)[:, 1] > 0.5).astype(int))


def test_sample_weight_goes_to_the_forest_and_zero_weight_removes_rows():
    X, s = data(seed=3)
    w = np.ones(s.size)
    w[:10] = 0.0
    w[10:20] = 2.0
    m = ADASYNRandomForestClassifier(n_estimators=10, random_state=0).fit(X, s, sample_weight=w)
    keep = w > 0
    Xr, sr = ADASYN(random_state=0).fit_resample(X[keep], s[keep])
    wr = np.concatenate([w[keep], np.ones(sr.size - keep.sum())])
    rf = RandomForestClassifier(n_estimators=10, random_state=0).fit(Xr, sr, sample_weight=wr)
    np.testing.assert_array_equal(m.predict_proba(X)[:, 1], rf.predict_proba(X)[:, 1])


def test_registered():
    m = registry.make_estimator("adasyn_rf")
    assert (m.n_estimators, m.n_neighbors, m.sampling_strategy) == (100, 5, "auto")
    with pytest.raises(ValueError, match="'sampling_strategy' parameter"):
        ADASYNRandomForestClassifier(sampling_strategy="minority").fit(*data())
