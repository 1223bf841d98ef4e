"""Dask by explicit choice (docs/cluster.md): with an active Dask client, an estimator or
function not told to use Dask (``use_dask`` left at False) runs on local threads -- the
scheduler sees no task from it; told (``use_dask=True``), it sends its work to the client,
with the same result. PULSNAR's and the bootstrap's Dask tests are in
tests/test_prior_pulsnar.py and tests/test_prior_bootstrap.py."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from conftest import pu_data
from dask_helpers import scheduler_tasks

from pu_lib.baselines import PUBaggingExtraTreesClassifier
from pu_lib.distributed import resolve_client
from pu_lib.trees import PNExtraTreesClassifier, PUExtraTreesClassifier

distributed = pytest.importorskip("distributed")


#: the PU sample of the tree tests, smaller
_data = functools.partial(pu_data, n=300, d=4, n_lab=60)


@pytest.fixture(scope="module")
def client():
    # in-process: starts in well under a second
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def test_resolve_client_only_when_told(client):
    assert resolve_client(False) is None  # the default, even with a client active
    assert resolve_client() is None
    assert resolve_client(np.bool_(False)) is None
    assert resolve_client(True) is client
    for bad in ("auto", 1, None):
        with pytest.raises(ValueError, match="use_dask must be True or False"):
            resolve_client(bad)
    # inside a Dask task, True runs the nested work on the task's thread
    assert client.submit(resolve_client, True).result() is None


@pytest.mark.parametrize("make", [
    lambda use_dask: PUExtraTreesClassifier(n_estimators=6, prior=0.5, random_state=3, n_jobs=2, use_dask=use_dask),
    lambda use_dask: PUBaggingExtraTreesClassifier(n_estimators=3, base_n_estimators=2, random_state=3, n_jobs=2,
                                                   use_dask=use_dask),
], ids=["pu_extra_trees", "pu_bagging"])
def test_estimator_not_told_runs_locally_and_told_runs_on_dask_with_equal_results(client, make):
    X, _, s = _data()
    before = scheduler_tasks(client)
    local = make(False).fit(X, s)
    assert scheduler_tasks(client) == before  # no task: it ran on local threads
    assert make(False).get_params()["use_dask"] is False
    dask = make(True).fit(X, s)
    assert scheduler_tasks(client) > before
    np.testing.assert_array_equal(local.predict_proba(X), dask.predict_proba(X))


def test_forest_default_is_local(client):
    X, y, _ = _data()
    before = scheduler_tasks(client)
    PNExtraTreesClassifier(n_estimators=3, random_state=0).fit(X, y)
    assert scheduler_tasks(client) == before


def test_use_dask_auto_is_refused():
    X, _, s = _data(n=60, n_lab=10)
    with pytest.raises(ValueError, match="'use_dask' parameter"):
        PUExtraTreesClassifier(n_estimators=2, prior=0.5, use_dask="auto").fit(X, s)
