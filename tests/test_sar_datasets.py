"""The Bekker thesis' chapter 5 encodings of Mushroom and Splice (Table 5.1), against the
shared data mirror (skipped when it is absent)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import SHARED_DATASETS, needs_mirror
from pu_lib.datasets import load_dataset

pytestmark = needs_mirror


def test_splice_libsvm_is_the_ordinal_coding_of_splice(tmp_path):
    coded = load_dataset("splice_libsvm", data_mirror=SHARED_DATASETS, cache_dir=tmp_path)
    onehot = load_dataset("splice", data_mirror=SHARED_DATASETS, cache_dir=tmp_path)
    # Table 5.1: 3,175 rows, 60 attributes, Pr(y = 1) = 0.52 (LIBSVM's class +1 = N)
    assert coded.X.shape == (3175, 60)
    assert set(np.unique(coded.X)) == {1.0, 2.0, 3.0, 4.0}
    y = coded.binary_target("bekker")
    assert int(y.sum()) == 1648 and np.array_equal(y, onehot.binary_target("bekker"))
    # same rows, same bases: LIBSVM's codes A=1, G=2, C=3, T=4 against the one-hot block
    codes = {"A": 1.0, "G": 2.0, "C": 3.0, "T": 4.0}
    for j in (0, 29, 59):
        block = [i for i, f in enumerate(onehot.feature_names) if f.startswith(f"pos{j + 1:02d}=")]
        letters = np.array([onehot.feature_names[i][-1] for i in block])[np.argmax(onehot.X[:, block], axis=1)]
        assert np.array_equal(coded.X[:, j], np.vectorize(codes.get)(letters))


def test_mushrooms_libsvm_bekker_is_the_thesis_encoding(tmp_path):
    ds = load_dataset("mushrooms_libsvm", data_mirror=SHARED_DATASETS, cache_dir=tmp_path)
    # Table 5.1: 8,124 rows, 111 attributes (LIBSVM's 112 less the constant veil-type column),
    # Pr(y = 1) = 0.48 (poisonous)
    assert int((ds.X.std(axis=0) > 0).sum()) == 111
    y = ds.binary_target("bekker")
    assert int(y.sum()) == 3916 and y.mean() == pytest.approx(0.482, abs=1e-3)
