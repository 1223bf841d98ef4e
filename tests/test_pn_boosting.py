"""The Ada-PU paper's PN boosting baselines (pu_lib.baselines.pn_boosting)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification

from pu_lib.base import fit_inputs
from pu_lib.baselines import PNBoostingClassifier
from pu_lib.baselines.pn_boosting import BOOSTERS, MIN_PER_CLASS, paper_n_negatives


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(3000, 8, n_informative=5, weights=[0.4, 0.6], random_state=3)
    return X, y


def test_paper_negative_count_is_the_formula_of_section_5_1():
    # (pi_n / (2 pi_p))^2 n_p: pi_p = 0.5 -> n_p / 4; pi_p = 0.4 -> (0.6 / 0.8)^2 = 0.5625
    assert paper_n_negatives(1000, 0.5) == 250
    assert paper_n_negatives(1000, 0.4) == 562
    assert paper_n_negatives(1000, 0.68) == int((0.32 / 1.36) ** 2 * 1000)  # UNSW-NB15's prior: 55
    with pytest.raises(ValueError, match="prior"):
        paper_n_negatives(10, 1.0)


def test_the_pn_sample_has_the_papers_sizes_and_true_classes(data):
    X, y = data
    est = PNBoostingClassifier(n_positives=1000, random_state=0).fit(X, np.zeros_like(y), y_true=y)
    prior = y.mean()
    assert est.prior_ == pytest.approx(prior)
    assert est.n_positives_ == 1000
    assert est.n_negatives_ == paper_n_negatives(1000, prior)
    rows = est.sample_indices_
    assert rows.size == est.n_positives_ + est.n_negatives_ == np.unique(rows).size
    assert y[rows].sum() == 1000


def _labeled(y, n, seed=0):
    """PU labels: ``n`` of the positives of ``y`` labeled."""
    s = np.zeros_like(y)
    s[np.random.default_rng(seed).choice(np.flatnonzero(y == 1), n, replace=False)] = 1
    return s


def test_by_default_n_p_is_the_pu_methods_label_budget(data):
    # the authors' get_pn: n_p = the labeled count, n_n = int((pi_n / (2 pi_p))^2 n_p)
    X, y = data
    est = PNBoostingClassifier(n_estimators=5, random_state=0).fit(X, _labeled(y, 100), y_true=y)
    assert est.n_positives_ == 100
    assert est.n_negatives_ == max(MIN_PER_CLASS, paper_n_negatives(100, y.mean()))
    assert y[est.sample_indices_].sum() == 100  # drawn by the true classes
    # fitted on classes alone: every positive
    assert PNBoostingClassifier(n_estimators=5, random_state=0).fit(X, y).n_positives_ == y.sum()


def test_below_one_negative_the_minimum_is_drawn_and_the_booster_still_fits(data):
    X, y = data  # prior 0.6: int((0.4 / 1.2)^2 * 5) = 0 negatives by the formula
    assert paper_n_negatives(5, y.mean()) == 0
    for booster in sorted(BOOSTERS):
        est = PNBoostingClassifier(booster=booster, n_estimators=5, random_state=0).fit(
            X, _labeled(y, 5), y_true=y)
        assert (est.n_positives_, est.n_negatives_) == (5, MIN_PER_CLASS)
        assert set(np.unique(est.predict(X))) <= {0, 1}


def test_no_labeled_positive_is_refused(data):
    X, y = data
    with pytest.raises(ValueError, match="labeled positive"):
        PNBoostingClassifier().fit(X, np.zeros_like(y), y_true=y)


def test_the_result_row_records_the_pn_sample_sizes(data):
    from pu_lib.workflow.experiments.classifier_eval import classifier_row
    from pu_lib.workflow.experiments.runner import RepetitionData, fit_kwargs

    X, y = data[0][:600], data[1][:600]
    split = np.where(np.arange(600) < 450, "train", "test")
    s = np.where(split == "train", _labeled(np.where(split == "train", y, 0), 20), 0)
    cell = RepetitionData(X, np.arange(600), split, s, y, None, split == "train")
    est = PNBoostingClassifier(n_estimators=5, random_state=0)
    row = classifier_row(est, cell, fit_kwargs(est, cell.supplied()), {"evaluate_on": "test"}, None)
    assert row["fit_on"] == "y"
    assert (row["pn_n_positives"], row["pn_n_negatives"]) == (20, est.n_negatives_)
    assert row["pn_n_negatives"] == max(MIN_PER_CLASS, paper_n_negatives(20, y[:450].mean()))


def test_more_positives_asked_than_exist_takes_them_all(data):
    X, y = data
    est = PNBoostingClassifier(n_positives=10**6, n_negatives=None, random_state=0).fit(X, y)
    assert est.n_positives_ == y.sum() and est.n_negatives_ == (y == 0).sum()


def test_the_workflow_passes_the_true_classes():
    assert fit_inputs(PNBoostingClassifier()) == {"y_true"}


@pytest.mark.parametrize("booster", sorted(BOOSTERS))
def test_each_booster_has_stumps_and_staged_scores_ending_at_the_final_model(booster, data):
    X, y = data
    # every negative (the paper's n_n is ~11% of n_p at this prior: a skewed sample)
    est = PNBoostingClassifier(booster=booster, n_estimators=30, n_negatives=None, random_state=1).fit(X, y)
    staged = list(est.staged_decision_function(X[:200]))
    assert len(staged) == 30
    np.testing.assert_allclose(staged[-1], est.decision_function(X[:200]), rtol=1e-6, atol=1e-6)
    preds = list(est.staged_predict(X[:200]))
    np.testing.assert_array_equal(preds[-1], est.predict(X[:200]))
    assert (est.predict(X) == y).mean() > 0.7  # majority class: 0.6
    inner = est.estimator_
    depth = (inner.get_params()["max_depth"] if booster == "xgboost" else
             inner.estimator.max_depth if booster == "adaboost" else inner.max_depth)
    assert depth == 1


def test_same_seed_same_model_other_seed_other_sample(data):
    X, y = data
    a = PNBoostingClassifier(booster="xgboost", random_state=5).fit(X, y)
    b = PNBoostingClassifier(booster="xgboost", random_state=5).fit(X, y)
    c = PNBoostingClassifier(booster="xgboost", random_state=6).fit(X, y)
    np.testing.assert_array_equal(a.sample_indices_, b.sample_indices_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert not np.array_equal(a.sample_indices_, c.sample_indices_)


@pytest.mark.parametrize("booster", ["adaboost", "gradient_boosting"])
def test_integer_weights_equal_repeated_rows_when_every_row_is_used(booster, data):
    X, y = data[0][:400], data[1][:400]
    w = np.random.default_rng(0).integers(1, 3, size=400)
    kw = dict(booster=booster, n_estimators=20, n_positives=None, n_negatives=None, random_state=0)
    weighted = PNBoostingClassifier(**kw).fit(X, y, sample_weight=w)
    repeated = PNBoostingClassifier(**kw).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), rtol=1e-9, atol=1e-9)


def test_bad_input_is_refused(data):
    X, y = data
    with pytest.raises(ValueError, match="binary"):
        PNBoostingClassifier().fit(X, np.arange(X.shape[0]) % 3)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError):
        PNBoostingClassifier().fit(Xn, y)
    with pytest.raises(ValueError, match="booster"):
        PNBoostingClassifier(booster="lightgbm").fit(X, y)
