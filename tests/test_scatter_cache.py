"""pu_lib.distributed.scatter_shared: shared data go to the workers once per content."""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from pu_lib.distributed import parallel_map, scatter_shared  # noqa: E402


def _row_sum(X, i):
    return float(X[i].sum())


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as lc:
        with distributed.Client(lc) as c:
            yield c


def test_equal_data_is_scattered_once_and_reused(client):
    X = np.arange(12.0).reshape(4, 3)
    a = scatter_shared(client, (X,))
    b = scatter_shared(client, (X.copy(),))  # equal content, another object
    assert a[0].key == b[0].key
    c = scatter_shared(client, (X + 1,))
    assert c[0].key != a[0].key
    # the kept futures stay usable across maps (the release bug of content-hashed keys)
    first = parallel_map(_row_sum, [(i,) for i in range(4)], client=client, shared=(X,))
    del a, b
    second = parallel_map(_row_sum, [(i,) for i in range(4)], client=client, shared=(X.copy(),))
    assert first == second == [3.0, 12.0, 21.0, 30.0]


def test_a_list_is_one_shared_object(client):
    rows = [1, 2, 3]
    (ref,) = scatter_shared(client, (rows,))
    assert client.submit(len, ref).result() == 3


def test_the_cache_keeps_the_latest_objects_only(client):
    from pu_lib import distributed as d

    for k in range(d.SCATTER_CACHE_SIZE + 3):
        scatter_shared(client, (np.full(5, float(k) + 100.0),))
    assert len(d._SCATTERED["futures"]) == d.SCATTER_CACHE_SIZE
