"""DEDPUL on CatBoost (``DEDPUL(booster="catboost")``, the PULSNAR paper's DEDPUL): an
estimate near the truth on a Gaussian mixture with the default (the DEDPUL authors')
CatBoost settings, results that depend on ``random_state`` only (not on ``n_jobs`` or the
threads per model), parameter checks, and the error naming the extra when catboost is
missing. Skipped without catboost, except the missing-extra test (failed with
PU_LIB_REQUIRE_CATBOOST=1, as CI runs)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from pu_lib.oof import CATBOOST_DEFAULTS, _catboost_fold, check_catboost_params, cv_probabilities
from pu_lib.prior import DEDPUL

FAST = {"iterations": 60}


def _mixture(n_p=300, n_u=700, alpha=0.3, seed=0):
    rng = np.random.default_rng(seed)
    n_up = int(round(alpha * n_u))
    X = np.vstack([rng.normal(1.5, 1.0, (n_p + n_up, 4)), rng.normal(0.0, 1.0, (n_u - n_up, 4))])
    s = np.r_[np.ones(n_p, dtype=int), np.zeros(n_u, dtype=int)]
    return X, s


def test_missing_catboost_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "catboost", None)  # import catboost now raises ImportError
    X, s = _mixture(n_p=40, n_u=60)
    with pytest.raises(ImportError, match=r'pip install "pu_lib\[catboost\]"'):
        DEDPUL(booster="catboost", random_state=0).fit(X, s)


def test_parameter_checks():
    X, s = _mixture(n_p=40, n_u=60)
    with pytest.raises(ValueError, match="catboost_params"):
        DEDPUL(booster="catboost", catboost_params={"random_seed": 1}).fit(X, s)
    with pytest.raises(ValueError, match="use catboost_params"):
        DEDPUL(booster="catboost", xgb_params={"learning_rate": 0.1}).fit(X, s)
    with pytest.raises(ValueError, match='needs booster="catboost"'):
        DEDPUL(catboost_params={"depth": 4}).fit(X, s)
    with pytest.raises(ValueError, match="builds its own models"):
        from sklearn.linear_model import LogisticRegression

        DEDPUL(booster="catboost", estimator=LogisticRegression()).fit(X, s)
    with pytest.raises(ValueError, match="booster='xgboost'"):
        DEDPUL(booster="catboost", tune="cv_logloss").fit(X, s)
    assert check_catboost_params(None) == CATBOOST_DEFAULTS
    assert check_catboost_params({"depth": 4})["depth"] == 4


def test_defaults_are_the_dedpul_authors_catboost_settings():
    # dimonenka/DEDPUL 04c0281, experiments_UCI_MNIST.ipynb, the "### catboost" options
    assert CATBOOST_DEFAULTS == {"iterations": 500, "depth": 8, "learning_rate": 0.02, "l2_leaf_reg": 10,
                                 "early_stopping_rounds": 25, "use_best_model": True}


def test_hist_boost_booster_runs_without_catboost():
    X, s = _mixture(n_p=150, n_u=350, seed=4)
    est = DEDPUL(booster="hist_boost", random_state=0).fit(X, s)
    assert 0.0 <= est.alpha_ <= 1.0
    with pytest.raises(ValueError, match="hist_boost"):
        DEDPUL(booster="hist_boost", xgb_params={"subsample": 0.5}).fit(X, s)


class TestWithCatBoost:
    @pytest.fixture(autouse=True)
    def _catboost(self):
        from conftest import catboost_or_skip

        catboost_or_skip()

    @pytest.mark.slow  # accuracy over several fits: slow tier (the fast tier keeps the API checks)
    def test_estimate_near_truth(self):
        X, s = _mixture(alpha=0.3)
        est = DEDPUL(booster="catboost", random_state=0, n_jobs=2).fit(X, s)
        assert abs(est.alpha_ - 0.3) < 0.08
        assert est.probs_.shape == (X.shape[0],) and np.all((est.probs_ > 0) & (est.probs_ < 1))

    @pytest.mark.slow  # accuracy over several fits: slow tier (the fast tier keeps the API checks)
    def test_deterministic_given_random_state(self):
        X, s = _mixture(n_p=150, n_u=350, seed=1)
        a = DEDPUL(booster="catboost", catboost_params=FAST, random_state=5, n_jobs=1).fit(X, s)
        b = DEDPUL(booster="catboost", catboost_params=FAST, random_state=5, n_jobs=2).fit(X, s)
        c = DEDPUL(booster="catboost", catboost_params=FAST, random_state=6, n_jobs=1).fit(X, s)
        np.testing.assert_array_equal(a.probs_, b.probs_)
        assert a.alpha_ == b.alpha_
        assert not np.array_equal(a.probs_, c.probs_)

    def test_thread_count_does_not_change_a_model(self):
        X, s = _mixture(n_p=150, n_u=350, seed=2)
        train, test = np.arange(0, 500, 2), np.arange(1, 500, 2)
        params = check_catboost_params(FAST)
        outs = [_catboost_fold(X, s, train, test, params, 11, threads, (0.3, 0.7)) for threads in (1, 2, 4)]
        for other in outs[1:]:
            np.testing.assert_array_equal(outs[0], other)

    @pytest.mark.slow  # accuracy over several fits: slow tier (the fast tier keeps the API checks)
    def test_cv_probabilities_catboost(self):
        X, s = _mixture(n_p=100, n_u=200, seed=3)
        p1 = cv_probabilities(X, s, random_state=0, booster="catboost", catboost_params=FAST)
        p2 = cv_probabilities(X, s, random_state=0, booster="catboost", catboost_params=FAST, n_jobs=2)
        np.testing.assert_array_equal(p1, p2)
        assert p1[s == 1].mean() > p1[s == 0].mean()
