"""Stratified holdout and subsampling of pu_lib.labeling."""

from __future__ import annotations

import numpy as np
import pytest

from pu_lib.labeling import stratified_holdout, subsample


def test_stratified_holdout_puts_round_test_size_of_each_class_in_test():
    y = np.array([0] * 73 + [1] * 27)
    tr, te = stratified_holdout(y, 0.3, random_state=0)
    assert np.all(np.diff(tr) > 0) and np.all(np.diff(te) > 0)
    assert np.intersect1d(tr, te).size == 0 and np.union1d(tr, te).size == 100
    # round(0.3 * 73) = round(21.9) = 22, round(0.3 * 27) = round(8.1) = 8
    assert (y[te] == 0).sum() == 22 and (y[te] == 1).sum() == 8
    # a half rounds up: 0.5 * 27 = 13.5 -> 14 test positives
    _, te_half = stratified_holdout(y, 0.5, random_state=0)
    assert (y[te_half] == 1).sum() == 14 and (y[te_half] == 0).sum() == 37
    tr0, te0 = stratified_holdout(y, 0.0, random_state=0)
    assert te0.size == 0 and tr0.size == 100
    with pytest.raises(ValueError, match="test_size"):
        stratified_holdout(y, 1.0)


def test_subsample_is_identity_uniform_or_stratified_by_largest_remainder():
    np.testing.assert_array_equal(subsample(50, 100, random_state=0), np.arange(50))
    np.testing.assert_array_equal(subsample(50, None), np.arange(50))
    idx = subsample(1000, 100, random_state=0)
    assert idx.size == 100 and np.unique(idx).size == 100 and np.all(np.diff(idx) > 0)
    y = np.array([0] * 900 + [1] * 100)
    # 55 rows: shares 49.5 and 5.5 tie on the remainder; the tie goes to the lower class
    ids = subsample(y, 55, random_state=1, stratify=True)
    assert ids.size == 55 and y[ids].sum() == 5
    ids2 = subsample(1000, 200, random_state=1, stratify=y)
    assert y[ids2].sum() == 20
    # three classes 500 / 300 / 200 to 7 rows: shares 3.5, 2.1, 1.4 -> 4, 2, 1
    y3 = np.repeat([0, 1, 2], [500, 300, 200])
    assert np.bincount(y3[subsample(y3, 7, random_state=0, stratify=True)]).tolist() == [4, 2, 1]
    with pytest.raises(ValueError, match="max_samples"):
        subsample(1000, 0)
    with pytest.raises(ValueError, match="stratify"):
        subsample(1000, 10, stratify=True)
