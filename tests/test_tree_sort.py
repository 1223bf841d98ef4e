"""The exhaustive splitter's sorts (pu_lib.trees._builder): the allocation-free co-sort
follows numba's argsort step by step, and the packed-key sort orders float32 values."""

import numpy as np
import pytest
from numba import njit

from pu_lib.trees._builder import RADIX_BITS, RADIX_MIN, SORT_STACK, _key_value, _value_key, co_sort, sort_keys


@njit(cache=False)
def _numba_argsort(v):
    return np.argsort(v, kind="quicksort")


@njit(cache=False)
def _keys_of(v):
    out = np.empty(v.shape[0], np.uint64)
    for i in range(v.shape[0]):
        out[i] = np.uint64(_value_key(v[i]))
    return out


@njit(cache=False)
def _values_of(keys):
    out = np.empty(keys.shape[0], np.float32)
    for i in range(keys.shape[0]):
        out[i] = _key_value(np.uint32(keys[i]))
    return out


def _values(rng, n, kind):
    if kind == "ties":
        return rng.integers(-3, 4, n).astype(np.float32)
    if kind == "two":
        return rng.integers(0, 2, n).astype(np.float32)
    if kind == "const":
        return np.full(n, 1.5, np.float32)
    if kind == "sorted":
        return np.sort(rng.normal(size=n)).astype(np.float32)
    if kind == "reversed":
        return np.sort(rng.normal(size=n))[::-1].astype(np.float32).copy()
    return (rng.normal(size=n) * 10.0 ** rng.integers(-30, 30, n)).astype(np.float32)


@pytest.mark.parametrize("kind", ["random", "ties", "sorted", "reversed"])
@pytest.mark.parametrize("n", [1, 2, 14, 15, 16, 200, 3000])
def test_co_sort_is_numbas_argsort_ties_included(n, kind):
    v = _values(np.random.default_rng(n), n, kind)
    offset = 5  # sorts a range inside a larger buffer, as the builder does
    V = np.concatenate([np.zeros(offset, np.float32), v, np.ones(3, np.float32)])
    R = np.arange(V.shape[0], dtype=np.int64)
    co_sort(V, R, offset, offset + n - 1, np.empty(2 * SORT_STACK, np.int64))
    np.testing.assert_array_equal(R[offset:offset + n] - offset, _numba_argsort(v))
    np.testing.assert_array_equal(V[offset:offset + n], v[_numba_argsort(v)])
    np.testing.assert_array_equal(R[:offset], np.arange(offset))  # outside the range: untouched


@pytest.mark.parametrize("kind", ["random", "ties", "two", "const", "sorted", "reversed"])
@pytest.mark.parametrize("n", [1, 2, 15, 100, RADIX_MIN - 1, RADIX_MIN, 5000])
def test_packed_keys_sort_like_the_float_values(n, kind):
    rng = np.random.default_rng(n + 1)
    v = _values(rng, n, kind)
    v[: n // 10] = -0.0 if n > 20 else v[: n // 10]  # -0.0 is the key of 0.0
    keys = (_keys_of(v) << np.uint64(2)) | rng.integers(0, 4, n).astype(np.uint64)
    K = np.concatenate([np.full(7, 99, np.uint64), keys])
    sort_keys(K, np.empty_like(K), 7, 7 + n, np.empty(2 * SORT_STACK, np.int64), np.empty(3 << RADIX_BITS, np.int64))
    np.testing.assert_array_equal(K[7:], np.sort(keys))
    back = _values_of(K[7:] >> np.uint64(2))
    np.testing.assert_array_equal(back, np.sort(v + np.float32(0.0)))
    assert not np.signbit(back[back == 0]).any()
