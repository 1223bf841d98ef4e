"""pu_lib.hist_boost: XGBoost's hist booster (binary:logistic) compiled with numba.

Where the bins agree (integer features with fewer distinct values than ``max_bin``, for
which XGBoost also cuts between every pair of values), the trees and margins must equal
XGBoost's up to XGBoost's float32 gradients."""

from __future__ import annotations

import numpy as np
import pytest
import xgboost as xgb
from sklearn.utils.estimator_checks import parametrize_with_checks

from pu_lib.hist_boost import (MISSING, HistBoostClassifier, apply_bins, bin_cuts, bin_features,
                               hist_boost_fit, hist_boost_fit_many, hist_boost_gain_importances,
                               hist_boost_margin)
from pu_lib.oof import cv_probabilities, cv_probabilities_many, xgb_gain_importances
from pu_lib.prior import PULSCAR, PULSNAR


def _integer_data(n=3000, d=12, seed=1, nan_share=0.05):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 25, size=(n, d)).astype(float)
    y = (rng.random(n) < 0.2).astype(int)
    X[y == 1, :4] += 3
    X[rng.random((n, d)) < nan_share] = np.nan
    return X, y


def _xgb(X, y, rounds, weight=None, **params):
    p = dict(objective="binary:logistic", tree_method="hist", nthread=1, **params)
    return xgb.train(p, xgb.DMatrix(X, label=y, weight=weight), rounds)


@pytest.mark.parametrize("depth, eta, spw", [(4, 0.2, 3.0), (6, 0.3, 1.0), (2, 0.5, 0.5)])
def test_margins_equal_xgboost_where_the_bins_agree(depth, eta, spw):
    X, y = _integer_data()
    booster = _xgb(X, y, 30, max_depth=depth, eta=eta, scale_pos_weight=spw)
    ref = booster.predict(xgb.DMatrix(X), output_margin=True)
    Xb, _, n_bins = bin_features(X)
    trees = hist_boost_fit(Xb, n_bins, y, n_estimators=30, learning_rate=eta, max_depth=depth, scale_pos_weight=spw)
    ours = hist_boost_margin(trees, Xb)
    assert np.max(np.abs(ours - ref)) < 2e-3
    # the first tree splits on the same features in the same order (node 0 = root)
    first = booster.trees_to_dataframe().query("Tree == 0 and Feature != 'Leaf'")
    assert int(first.iloc[0]["Feature"][1:]) == trees.feat[0, 0]


def test_sample_weights_and_gain_importances_equal_xgboost():
    X, y = _integer_data(seed=2, nan_share=0.0)
    w = np.random.default_rng(0).integers(1, 4, size=y.shape[0]).astype(float)
    booster = _xgb(X, y, 20, weight=w, max_depth=3, eta=0.3)
    Xb, _, n_bins = bin_features(X)
    trees = hist_boost_fit(Xb, n_bins, y, sample_weight=w, n_estimators=20, learning_rate=0.3, max_depth=3)
    ref = booster.predict(xgb.DMatrix(X), output_margin=True)
    assert np.max(np.abs(hist_boost_margin(trees, Xb) - ref)) < 2e-3
    idx, gain = hist_boost_gain_importances(trees, X.shape[1])
    score = booster.get_score(importance_type="gain")
    assert sorted(idx.tolist()) == sorted(int(k[1:]) for k in score)
    for i, g in zip(idx, gain):
        assert g == pytest.approx(score[f"f{i}"], rel=1e-3)


@pytest.mark.parametrize("spw", [0.5, 1.0, 4.0])
def test_start_margin_is_xgboosts_intercept(spw):
    import json

    X, y = _integer_data(n=500, seed=3)
    Xb, _, n_bins = bin_features(X)
    trees = hist_boost_fit(Xb, n_bins, y, n_estimators=1, scale_pos_weight=spw)
    booster = _xgb(X, y, 1, max_depth=2, scale_pos_weight=spw)
    base_score = float(json.loads(booster.save_config())["learner"]["learner_model_param"]["base_score"].strip("[]"))
    assert 1 / (1 + np.exp(-trees.base_margin)) == pytest.approx(base_score, rel=1e-5)
    p = spw * y.sum() / (spw * y.sum() + (1 - y).sum())
    assert trees.base_margin == pytest.approx(np.log(p / (1 - p)) if spw == 1 else 4 * (p - 0.5))


def test_bins():
    X = np.array([[0.0, 1.0, 5.0], [1.0, 1.0, np.nan], [2.0, 1.0, 7.0], [2.0, 1.0, 5.0]])
    cuts, n_bins = bin_cuts(X, max_bin=4)
    assert n_bins.tolist() == [3, 1, 2]  # midpoints between distinct values; a constant has one bin
    assert cuts[0, :2].tolist() == [0.5, 1.5] and cuts[2, 0] == 6.0
    Xb = apply_bins(X, cuts, n_bins)
    assert Xb[:, 0].tolist() == [0, 1, 2, 2] and Xb[1, 2] == MISSING and set(Xb[:, 1]) == {0}
    # many distinct values: at most max_bin bins of about equal counts
    Z = np.random.default_rng(0).normal(size=(10_000, 1))
    Zb, _, nb = bin_features(Z, max_bin=16)
    assert nb[0] == 16 and np.bincount(Zb[:, 0]).min() > 500
    with pytest.raises(ValueError, match="max_bin"):
        bin_cuts(Z, max_bin=256)


def test_cv_with_hist_boost_does_not_depend_on_threads():
    X, y = _integer_data(n=1200, seed=4)
    a = cv_probabilities(X, y, random_state=5, n_jobs=1, booster="hist_boost", max_depth=3)
    b = cv_probabilities(X, y, random_state=5, n_jobs=2, booster="hist_boost", max_depth=3)
    np.testing.assert_array_equal(a, b)
    assert np.all((a > 0) & (a < 1))
    rows = np.arange(0, 1200, 2)
    many = cv_probabilities_many(X, y, [(rows, 5)], booster="hist_boost", max_depth=3)[0]
    assert many.shape == rows.shape and not np.isnan(many).any()


@pytest.mark.parametrize("n_jobs, step", [(1, None), (2, None), (2, 1), (2, 7), (3, 40)])
def test_round_robin_models_equal_one_fit_each(n_jobs, step):
    """hist_boost_fit_many grows models in steps of rounds, round robin on threads; each
    model's trees must equal, bit for bit, those of one uninterrupted fit."""
    X, y = _integer_data(n=1500, seed=6)
    Xb, _, n_bins = bin_features(X)
    rng = np.random.default_rng(0)
    fits = [dict(train_rows=np.sort(rng.choice(1500, 1000, replace=False)), n_estimators=m, max_depth=dp,
                 scale_pos_weight=spw)
            for m, dp, spw in [(20, 3, 1.0), (33, 4, 2.5), (5, 2, 1.0), (20, 6, 0.7), (1, 3, 1.0)]]
    many = hist_boost_fit_many(Xb, n_bins, y, fits, n_jobs=n_jobs, rounds_per_step=step)
    for kw, got in zip(fits, many):
        want = hist_boost_fit(Xb, n_bins, y, **kw)
        for name in ("feat", "thr", "mleft", "left", "right", "value", "gain", "n_nodes"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
        assert got.base_margin == want.base_margin


def test_training_row_order_does_not_matter():
    """Each round starts from the training rows in ascending order, so the trees (and
    every float sum in them) do not depend on the order the rows are given in."""
    X, y = _integer_data(n=1500, seed=7)
    X[:, 5] = np.random.default_rng(3).normal(size=1500)  # a continuous column: many bins
    Xb, _, n_bins = bin_features(X)
    rows = np.random.default_rng(1).choice(1500, 1100, replace=False)
    a = hist_boost_fit(Xb, n_bins, y, rows, n_estimators=30, max_depth=4, scale_pos_weight=2.0)
    b = hist_boost_fit(Xb, n_bins, y, np.sort(rows)[::-1], n_estimators=30, max_depth=4, scale_pos_weight=2.0)
    for name in ("feat", "thr", "mleft", "left", "right", "value", "gain", "n_nodes"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(hist_boost_margin(a, Xb), hist_boost_margin(b, Xb))


def test_booster_option_errors_name_the_problem():
    X, y = _integer_data(n=300, seed=5)
    with pytest.raises(ValueError, match="booster must be one of"):
        cv_probabilities(X, y, random_state=0, booster="lightgbm")
    with pytest.raises(ValueError, match="leave estimator=None"):
        cv_probabilities(X, y, random_state=0, booster="hist_boost", estimator=HistBoostClassifier())
    with pytest.raises(ValueError, match="colsample_bytree"):
        PULSCAR(booster="hist_boost", xgb_params={"colsample_bytree": 0.5}).fit(X, y)
    with pytest.raises(ValueError, match="booster"):
        PULSNAR(booster="xgb").fit(X, y)


def test_importances_through_the_hist_booster_match_xgboost():
    X, y = _integer_data(n=2000, seed=6, nan_share=0.0)
    a_idx, a_gain = xgb_gain_importances(X, y, max_depth=3, random_state=0, xgb_params={"n_estimators": 20})
    b_idx, b_gain = xgb_gain_importances(X, y, max_depth=3, random_state=0, xgb_params={"n_estimators": 20},
                                         booster="hist_boost")
    assert a_idx.tolist() == b_idx.tolist()
    np.testing.assert_allclose(a_gain, b_gain, rtol=1e-3)


@pytest.mark.slow
def test_pulscar_with_the_hist_booster_on_the_scar_recipe():
    """PULSCAR with ``booster="hist_boost"`` on the authors' SCAR recipe: the mean of seeds
    0-2 within 0.05 of alpha at 0.1, 0.3 and 0.5 (with XGBoost: 0.111 / 0.324 / 0.513)."""
    from pu_lib.datasets.synthetic import make_pulsnar_scar

    for alpha in (0.1, 0.3, 0.5):
        est = []
        for seed in range(3):
            ds = make_pulsnar_scar(alpha, random_state=seed)
            est.append(PULSCAR(random_state=seed, booster="hist_boost", n_jobs=2).fit(ds.X, ds.meta["recipe_s"]).alpha_)
        assert abs(np.mean(est) - alpha) < 0.05, (alpha, est)


@pytest.mark.slow
def test_pulsnar_with_the_hist_booster_finds_the_subclasses():
    """PULSNAR with ``booster="hist_boost"`` on the SNAR recipe (alpha 0.3, seed 0): the
    five labeled subclasses come back as five clusters of 400 rows and the estimate is
    within 0.1 of alpha (a sanity bound: single PULSNAR estimates scatter by about 0.1 with
    either booster; the 10-seed comparison is in docs/class_priors.md)."""
    from pu_lib.datasets.synthetic import make_pulsnar_snar

    ds = make_pulsnar_snar(0.3, random_state=0)
    s = ds.meta["recipe_s"].to_numpy()
    est = PULSNAR(random_state=0, booster="hist_boost", n_jobs=2).fit(ds.X, s)
    assert est.n_clusters_ == 5
    assert sorted(np.bincount(est.cluster_labels_[est.cluster_labels_ >= 0]).tolist()) == [400] * 5
    assert abs(est.alpha_ - 0.3) < 0.1


@parametrize_with_checks([HistBoostClassifier(n_estimators=5, max_depth=3)])
def test_sklearn_checks(estimator, check):
    check(estimator)
