"""Every registered classifier works with scikit-learn's tools: pickle, ``clone``,
``Pipeline``, ``cross_val_score`` and ``GridSearchCV`` (a test each), on PU data."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from conftest import is_neural, torch_or_skip
from pu_lib.workflow import registry
from pu_lib.utils.check_settings import check_params

CLASSIFIERS = registry.names("classifier")


@pytest.fixture(scope="module")
def pu_data():
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=300, n_features=6, n_informative=4, random_state=0)
    rng = np.random.default_rng(0)
    s = ((y == 1) & (rng.random(y.size) < 0.5)).astype(np.int8)
    return X, s


def _make(name):
    if is_neural(name):
        torch_or_skip()
    return registry.make_estimator(name, check_params(name), random_state=0)


def _grid(est):
    """A two-value grid over a parameter every classifier has in some form."""
    params = est.get_params()
    for key, values in (("n_estimators", [5, 10]), ("max_depth", [3, 6]), ("hold_out_ratio", [0.1, 0.2]),
                        ("noise_level", [0.1, 0.2]), ("epochs", [2, 3]),
                        ("estimator__logisticregression__C", [0.1, 1.0])):
        if key in params:
            return {key: values}
    if "estimator" in params:  # the base classifier of Naive / Elkan-Noto
        from sklearn.linear_model import LogisticRegression

        return {"estimator": [make_pipeline(StandardScaler(), LogisticRegression(C=c)) for c in (0.1, 1.0)]}
    raise AssertionError(f"no grid parameter for {type(est).__name__}: {sorted(params)}")


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_pickle_round_trip_predicts_the_same(name, pu_data):
    X, s = pu_data
    est = _make(name).fit(X, s)
    loaded = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    np.testing.assert_array_equal(loaded.predict_proba(X), est.predict_proba(X))


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_clone_refits_to_the_same_model(name, pu_data):
    X, s = pu_data
    est = _make(name)
    a = est.fit(X, s).predict_proba(X)
    c = clone(est)
    assert c.get_params() == est.get_params() and c is not est
    np.testing.assert_allclose(c.fit(X, s).predict_proba(X), a)


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_pipeline_equals_fitting_on_transformed_data(name, pu_data):
    X, s = pu_data
    pipe = make_pipeline(StandardScaler(), _make(name)).fit(X, s)
    Z = StandardScaler().fit(X).transform(X)
    direct = _make(name).fit(Z, s)
    np.testing.assert_allclose(pipe.predict_proba(X), direct.predict_proba(Z))
    assert set(np.unique(pipe.predict(X))) <= {0, 1}


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_cross_val_score_equals_a_manual_fold_loop(name, pu_data):
    X, s = pu_data
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(_make(name), X, s, cv=cv)
    manual = [np.mean(_make(name).fit(X[tr], s[tr]).predict(X[te]) == s[te]) for tr, te in cv.split(X, s)]
    np.testing.assert_allclose(scores, manual)


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_grid_search_refits_the_best_parameters(name, pu_data):
    X, s = pu_data
    est = _make(name)
    grid = _grid(est)
    search = GridSearchCV(est, grid, cv=StratifiedKFold(3, shuffle=True, random_state=0)).fit(X, s)
    (key, values), = grid.items()
    assert search.best_params_[key] in values
    best = clone(est).set_params(**search.best_params_).fit(X, s)
    np.testing.assert_allclose(search.best_estimator_.predict_proba(X), best.predict_proba(X))
