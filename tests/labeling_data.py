"""Small data generators and checks shared by the tests/test_labeling_*.py modules."""

from __future__ import annotations

import numpy as np

from pu_lib.labeling import LabelResult


def make_y(n, n_pos, seed=0):
    """0/1 vector of length ``n`` with exactly ``n_pos`` ones at random places."""
    y = np.zeros(n, dtype=int)
    y[np.random.default_rng(seed).choice(n, n_pos, replace=False)] = 1
    return y


def binary_data(n=4000, d=6, seed=0):
    """Binary-ish features (std 1 after scaling) so SAR has candidates; y depends on col 0."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.5).astype(float)
    X[:, -1] = rng.normal(size=n)  # continuous column, scaled std well below 0.6
    logits = 2.0 * X[:, 0] - 1.0 + 0.5 * rng.normal(size=n)
    y = (logits > 0).astype(int)
    return X, y


def two_subclasses(X, y):
    """Subclass 1 or 2 for the positives (by column 1), 0 for the negatives."""
    return np.where(y == 1, (X[:, 1] > 0).astype(int) + 1, 0)


def assert_pu(res: LabelResult, y):
    """``res`` has the documented dtypes and shapes, labels only positives and keeps ``y``."""
    y = np.asarray(y)
    assert res.s.dtype == np.int8 and res.y.dtype == np.int8
    assert res.propensity.dtype == np.float64
    assert res.s.shape == res.y.shape == res.propensity.shape == y.shape
    assert np.all(res.s[y == 0] == 0), "only positives may be labeled"
    np.testing.assert_array_equal(res.y, y)
