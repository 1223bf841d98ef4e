"""The prior estimators' defaults are their authors' settings, parameter by parameter.

PULSCAR / PULSNAR: the synthetic-data examples of the authors' repository
(unmtransinfo/PULSNAR: ``examples/pulscar_syn_alpha_estimation_1.py`` with
``examples/testparams/pulscar_synthetic_alpha.yaml``; ``examples/pulsnar_syn_alpha_estimation.py``
with ``examples/testparams/pulsnar_synthetic_alpha.yaml``). The values below are copied from
those files (as facts); each estimator's module docstring has the same table with the source
of every value.
"""

import inspect

import pytest

from pu_lib.prior import PULSCAR, PULSNAR
from pu_lib.prior.pulscar import PULSCAR_DEFAULTS
from pu_lib.prior.pulsnar import PULSNAR_DEFAULTS

#: the authors' example settings, in their own parameter names
AUTHORS_PULSCAR = {"kfold": 5, "XGB max_depth": 4, "XGB learning_rate": None, "bin_method": "rice",
                   "lowerbw": 0.05, "upperbw": 0.5, "optim": "local", "n_iterations": 1}
AUTHORS_PULSNAR = {"kfold": 5, "XGB max_depth": 4, "XGB learning_rate": 0.20, "bin_method": "rice",
                   "lowerbw": 0.015, "upperbw": 0.5, "optim": "local", "n_iterations": 1, "max_clusters": 10,
                   "covar_type": "full", "top50p_covars": False, "min labeled rows per cluster": 10}
XGBOOST_DEFAULT_LEARNING_RATE = 0.3


def _ours(authors):
    lr = authors["XGB learning_rate"]
    return {
        "n_folds": authors["kfold"],
        "max_depth": authors["XGB max_depth"],
        "learning_rate": XGBOOST_DEFAULT_LEARNING_RATE if lr is None else lr,
        "bin_rule": authors["bin_method"],
        "bandwidth_range": (authors["lowerbw"], authors["upperbw"]),
        "bandwidth_search": authors["optim"],
        "n_iterations": authors["n_iterations"],
    }


def _signature_defaults(cls):
    return {k: p.default for k, p in inspect.signature(cls.__init__).parameters.items() if k != "self"}


@pytest.mark.parametrize("cls, table, authors", [(PULSCAR, PULSCAR_DEFAULTS, AUTHORS_PULSCAR),
                                                  (PULSNAR, PULSNAR_DEFAULTS, AUTHORS_PULSNAR)])
def test_defaults_are_the_authors_example_settings(cls, table, authors):
    sig = _signature_defaults(cls)
    expected = _ours(authors)
    if cls is PULSNAR:
        expected.update(max_clusters=authors["max_clusters"], covariance_type=authors["covar_type"],
                        top_fraction=0.5 if authors["top50p_covars"] else 1.0,
                        min_cluster_size=authors["min labeled rows per cluster"], small_clusters="drop",
                        knee="authors", gmm_params=None)
    for name, value in expected.items():
        assert sig[name] == value, name
        assert table[name] == value, name
    # the documented table and the signature agree on every entry
    assert {k: sig[k] for k in table} == table


def test_pulsnar_importance_and_cluster_models_use_the_classifier_settings():
    """The importance model and the per-cluster classifiers get max_depth 4 and
    learning_rate 0.2 (the authors pass one XGB_params dict to both)."""
    import numpy as np

    from pu_lib import oof as _cv

    seen = []
    real = _cv.make_xgb

    def spy(max_depth=6, random_state=None, n_jobs=1, xgb_params=None):
        seen.append((max_depth, dict(xgb_params or {})))
        return real(max_depth=max_depth, random_state=random_state, n_jobs=n_jobs, xgb_params=xgb_params)

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    X[:150, 0] += 2.0
    s = np.zeros(300, dtype=int)
    s[:100] = 1
    _cv.make_xgb = spy
    try:
        PULSNAR(random_state=0, max_clusters=2, min_cluster_size=5).fit(X, s)
    finally:
        _cv.make_xgb = real
    assert seen and all(d == 4 and p == {"learning_rate": 0.2} for d, p in seen)


def test_learning_rate_cannot_be_set_twice():
    import numpy as np

    X = np.random.default_rng(0).normal(size=(60, 2))
    s = np.r_[np.ones(20, int), np.zeros(40, int)]
    with pytest.raises(ValueError, match="learning_rate"):
        PULSCAR(xgb_params={"learning_rate": 0.1}).fit(X, s)
