"""``tune="cv_logloss"`` of PULSCAR, PULSNAR and DEDPUL (:mod:`pu_lib.prior.tuning`): the
chosen classifier setting minimises the cross-validated log-loss of ``s`` over the grid
(recomputed here from independent out-of-fold runs), the choice is deterministic, the
chosen setting's probabilities are those the estimator gets with that setting, sparse
input, the workflow's method specs, and the errors. Small data and, where the grid's
size does not matter, a small grid: every test runs in about a second."""

import numpy as np
import pytest
from scipy import sparse
from sklearn.linear_model import LogisticRegression

from pu_lib._seeding import derive_seed
from pu_lib.oof import cv_probabilities
from pu_lib.prior import DEDPUL, PULSCAR, PULSNAR
from pu_lib.prior import tuning

SMALL_GRID = {"max_depth": (2, 4), "learning_rate": (0.3,), "n_estimators": (5, 20)}


@pytest.fixture
def small_grid(monkeypatch):
    monkeypatch.setattr(tuning, "TUNE_GRID", SMALL_GRID)
    return SMALL_GRID


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.5).astype(np.int64)
    X = rng.normal(size=(n, 4))
    X[y == 1, 0] += 1.5
    X[y == 1, 1] -= 1.0
    s = np.zeros(n, dtype=np.int64)
    s[np.flatnonzero(y == 1)[: n // 4]] = 1
    return X, s


def _weighted_log_loss(s, p, folds):
    """The tuning's criterion written out: each held-out labeled row weighted by its fold's
    ``scale_pos_weight`` (#unlabeled / #labeled of the training part), unlabeled rows by 1."""
    w = np.ones(s.shape[0])
    for k in np.unique(folds):
        train = folds != k
        w[(folds == k) & (s == 1)] = np.sum(s[train] == 0) / np.sum(s[train] == 1)
    p = np.clip(p, 1e-15, 1 - 1e-15)
    ll = -(s * np.log(p) + (1 - s) * np.log(1 - p))
    return np.sum(w * ll) / np.sum(w)


@pytest.mark.parametrize("cls, key", [(PULSCAR, "PULSCAR"), (DEDPUL, "DEDPUL")])
def test_the_chosen_setting_minimises_the_cv_log_loss(small_grid, cls, key):
    X, s = _data()
    est = cls(tune="cv_logloss", random_state=3).fit(X, s)
    seed = derive_seed(key, 3, "cv")  # the estimator's own folds (first iteration)
    losses = {}
    for md in small_grid["max_depth"]:
        for lr in small_grid["learning_rate"]:
            for n in small_grid["n_estimators"]:
                p, folds = cv_probabilities(X, s, random_state=seed, max_depth=md, return_folds=True,
                                            xgb_params={"learning_rate": lr, "n_estimators": n})
                losses[(md, lr, n)] = _weighted_log_loss(s, p, folds)
    reported = {(r["max_depth"], r["learning_rate"], r["n_estimators"]): r["log_loss"] for r in est.tuning_results_}
    assert reported.keys() == losses.keys()
    for k in losses:
        assert reported[k] == pytest.approx(losses[k], rel=1e-6)
    best = min(losses, key=losses.get)
    assert (est.tuned_params_["max_depth"], est.tuned_params_["learning_rate"],
            est.tuned_params_["n_estimators"]) == best


@pytest.mark.parametrize("cls", [PULSCAR, DEDPUL])
def test_the_tuned_probabilities_are_the_estimators_with_the_chosen_setting(small_grid, cls):
    X, s = _data()
    tuned = cls(tune="cv_logloss", random_state=1).fit(X, s)
    p = tuned.tuned_params_
    kw = {"learning_rate": p["learning_rate"]} if cls is PULSCAR else {}
    xgb = {"n_estimators": p["n_estimators"]} if cls is PULSCAR else \
        {"n_estimators": p["n_estimators"], "learning_rate": p["learning_rate"]}
    plain = cls(max_depth=p["max_depth"], xgb_params=xgb, random_state=1, **kw).fit(X, s)
    np.testing.assert_allclose(tuned.probs_, plain.probs_, atol=1e-6)
    assert tuned.alpha_ == pytest.approx(plain.alpha_, abs=1e-6)


def test_tuning_is_deterministic_and_independent_of_n_jobs(small_grid):
    X, s = _data(seed=2)
    a = PULSCAR(tune="cv_logloss", random_state=5, n_jobs=1).fit(X, s)
    b = PULSCAR(tune="cv_logloss", random_state=5, n_jobs=2).fit(X, s)
    assert a.tuned_params_ == b.tuned_params_
    assert a.tuning_results_ == b.tuning_results_
    assert a.alpha_ == b.alpha_


def test_the_default_grid_is_around_the_authors_settings():
    """Every per-set depth of the authors' PULSCAR / PULSNAR configs (3-5) and their
    synthetic-example settings (depth 4, 100 rounds, learning rate 0.3 for PULSCAR) are in
    the grid; the default is no tuning."""
    grid = tuning.TUNE_GRID
    assert set(grid["max_depth"]) == {3, 4, 5}
    assert 100 in grid["n_estimators"] and 0.3 in grid["learning_rate"]
    for cls in (PULSCAR, PULSNAR, DEDPUL):
        assert cls().tune is None


def test_pulsnar_uses_the_tuned_settings_for_its_models(small_grid, monkeypatch):
    from pu_lib import oof as _cv

    seen = []
    real = _cv.make_xgb

    def spy(max_depth=6, random_state=None, n_jobs=1, xgb_params=None):
        seen.append((max_depth, dict(xgb_params or {}).get("n_estimators")))
        return real(max_depth=max_depth, random_state=random_state, n_jobs=n_jobs, xgb_params=xgb_params)

    X, s = _data(seed=4)
    est = PULSNAR(tune="cv_logloss", max_clusters=2, random_state=0)
    monkeypatch.setattr(_cv, "make_xgb", spy)
    est.fit(X, s)
    chosen = (est.tuned_params_["max_depth"], est.tuned_params_["n_estimators"])
    n_grid = 5 * len(SMALL_GRID["max_depth"]) * len(SMALL_GRID["learning_rate"])  # tuning: one model per fold
    assert len(seen) > n_grid
    assert all(m == chosen for m in seen[n_grid:])  # importance model and cluster folds
    assert 0.0 <= est.alpha_ <= 1.0


def test_sparse_input_is_tuned_as_the_dense_array_with_missing_values(small_grid):
    X, s = _data(seed=6)
    X[np.abs(X) < 0.5] = 0.0
    Xs = sparse.csr_matrix(X)
    Xnan = np.where(X == 0.0, np.nan, X)  # XGBoost reads absent entries as missing
    a = PULSCAR(tune="cv_logloss", random_state=0).fit(Xs, s)
    b = PULSCAR(tune="cv_logloss", random_state=0).fit(Xnan, s)
    assert a.tuned_params_ == b.tuned_params_
    assert a.alpha_ == pytest.approx(b.alpha_, abs=1e-9)


def test_the_workflow_method_spec_takes_tune():
    from pu_lib.workflow.experiments.methods import check_method_spec, make_method

    for name in ("pulscar", "pulsnar", "dedpul"):
        spec = {"method": name, "params": {"tune": "cv_logloss"}}
        check_method_spec(spec)
        assert make_method(spec, random_state=0).tune == "cv_logloss"
        with pytest.raises(ValueError, match="tune"):
            check_method_spec({"method": name, "params": {"tune": "grid_search"}})


@pytest.mark.parametrize("cls", [PULSCAR, PULSNAR, DEDPUL])
def test_errors_name_the_problem(cls):
    X, s = _data(n=60)
    with pytest.raises(ValueError, match="tune"):
        cls(tune="cv_auc").fit(X, s)
    with pytest.raises(ValueError, match="estimator=None"):
        cls(tune="cv_logloss", estimator=LogisticRegression()).fit(X, s)
    with pytest.raises(ValueError, match="n_estimators"):
        cls(tune="cv_logloss", xgb_params={"n_estimators": 10}).fit(X, s)
    if cls is not DEDPUL:
        with pytest.raises(ValueError, match="booster"):
            cls(tune="cv_logloss", booster="hist_boost").fit(X, s)
