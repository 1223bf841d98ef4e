"""PU model selection (pu_lib.model_selection): each scorer against a value computed by hand,
the scorers inside scikit-learn's GridSearchCV / cross_val_score with a pu_lib estimator,
the splitter's stratification on s, the PU estimates against the PN metrics on a large
SCAR draw, and the errors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, cross_val_score

from pu_lib import metrics
from pu_lib.baselines import PUWeightedLogisticRegression
from pu_lib.model_selection import (PRIOR_SCORERS, PU_SCORERS, PUStratifiedKFold, lee_liu_score, make_pu_scorer,
                                    pu_accuracy_score, pu_f1_score, pu_risk_sigmoid, pu_roc_auc_corrected,
                                    pu_roc_auc_score)

# 4 labeled rows, 3 of them predicted positive (r = 3/4); 5 of 10 rows predicted positive
# (q = 1/2 over all rows; 2 of the 6 unlabeled rows: q = 1/3 in the case-control scenario)
S = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
PRED = np.array([1, 1, 1, 0, 1, 1, 0, 0, 0, 0])


class _Fixed:
    """A fitted stand-in returning fixed outputs (no decision_function unless given)."""

    def __init__(self, pred=None, proba=None, margin=None):
        self._pred, self._proba = pred, proba
        if margin is not None:
            self.decision_function = lambda X: np.asarray(margin, float)

    def predict(self, X):
        return self._pred

    def predict_proba(self, X):
        p = np.asarray(self._proba, float)
        return np.c_[1 - p, p]


# ----------------------------------------------------------------- hand-made values
def test_lee_liu_by_hand_and_equal_to_the_metric():
    assert lee_liu_score(S, PRED) == pytest.approx((3 / 4) ** 2 / (1 / 2))
    assert lee_liu_score(S, PRED, scenario="case_control") == pytest.approx((3 / 4) ** 2 / (1 / 3))
    assert lee_liu_score(S, PRED) == pytest.approx(metrics.lee_liu(S, PRED))
    for scenario in ("single_training_set", "case_control"):
        assert lee_liu_score(S, PRED, scenario) == metrics.lee_liu(S, PRED, scenario=scenario)
    assert lee_liu_score(S, np.zeros(10, int)) == 0.0


def test_pu_f1_and_accuracy_by_hand():
    # F1 = 2 pi r / (pi + q); accuracy = 1 - pi - q + 2 pi r
    assert pu_f1_score(S, PRED, 0.6) == pytest.approx(2 * 0.6 * 0.75 / (0.6 + 0.5))
    assert pu_accuracy_score(S, PRED, 0.6) == pytest.approx(1 - 0.6 - 0.5 + 2 * 0.6 * 0.75)
    assert pu_f1_score(S, PRED, 0.3, "case_control") == pytest.approx(2 * 0.3 * 0.75 / (0.3 + 1 / 3))
    # prior 0.9: pi r = 0.675 > q = 0.5, so q is clipped to 0.675 (precision 1): F1 = 2 r / (1 + r)
    assert pu_f1_score(S, PRED, 0.9) == pytest.approx(2 * 0.75 / 1.75)
    assert pu_accuracy_score(S, PRED, 0.9) == pytest.approx(1 - 0.9 - 0.675 + 2 * 0.9 * 0.75)
    assert pu_f1_score(S, np.zeros(10, int), 0.5) == 0.0


def test_pu_auc_and_its_correction_by_hand():
    s = np.array([1, 1, 0, 0, 0])
    score = np.array([0.9, 0.4, 0.5, 0.1, 0.4])
    # labeled 0.9 beats all three unlabeled (3); 0.4 loses to 0.5, beats 0.1, ties 0.4 (1.5)
    assert pu_roc_auc_score(s, score) == pytest.approx(4.5 / 6)
    # single training set, prior 0.6, labeled share 0.4: alpha = (0.6 - 0.4) / 0.6 = 1/3
    assert pu_roc_auc_corrected(s, score, 0.6) == pytest.approx((0.75 - 1 / 6) / (2 / 3))
    # case-control: alpha = prior
    assert pu_roc_auc_corrected(s, score, 0.5, "case_control") == pytest.approx((0.75 - 0.25) / 0.5)


def test_pu_risks_by_hand():
    s = np.array([1, 1, 0, 0])
    p = np.array([0.8, 0.6, 0.3, 0.1])
    # E_P[1 - p] = 0.3, E_P[p] = 0.7, E_all[p] = 0.45
    assert pu_risk_sigmoid(s, p, 0.5, "upu") == pytest.approx(0.5 * 0.3 - 0.5 * 0.7 + 0.45)
    assert pu_risk_sigmoid(s, p, 0.9, "upu") == pytest.approx(0.9 * 0.3 - 0.9 * 0.7 + 0.45)
    assert pu_risk_sigmoid(s, p, 0.9, "nnpu") == pytest.approx(0.9 * 0.3)  # negative part clipped at 0
    # case-control: U = the two unlabeled rows, E_U[p] = 0.2
    assert pu_risk_sigmoid(s, p, 0.2, "upu", scenario="case_control") == pytest.approx(0.2 * 0.3 - 0.2 * 0.7 + 0.2)
    # a zero margin has sigmoid loss 1/2 on both sides: uPU = pi/2 - pi/2 + 1/2
    assert pu_risk_sigmoid(s, np.zeros(4), 0.3, "upu", kind="margin") == pytest.approx(0.5)
    # a margin is the logit of the probability: the same risk
    assert pu_risk_sigmoid(s, np.log(p / (1 - p)), 0.5, "nnpu", kind="margin") == pytest.approx(
        pu_risk_sigmoid(s, p, 0.5, "nnpu"))


def test_scorers_read_the_right_response():
    X = np.zeros((10, 1))
    proba = np.linspace(0.05, 0.95, 10)
    est = _Fixed(pred=PRED, proba=proba)
    assert make_pu_scorer("lee_liu")(est, X, S) == pytest.approx(9 / 8)
    assert make_pu_scorer("pu_f1", prior=0.6)(est, X, S) == pytest.approx(pu_f1_score(S, PRED, 0.6))
    assert make_pu_scorer("pu_accuracy", prior=0.6)(est, X, S) == pytest.approx(pu_accuracy_score(S, PRED, 0.6))
    # no decision_function: the AUC reads predict_proba; with one, the AUC reads it
    assert make_pu_scorer("pu_auc")(est, X, S) == pytest.approx(pu_roc_auc_score(S, proba))
    margin = proba[::-1]
    est_m = _Fixed(pred=PRED, proba=proba, margin=margin)
    assert make_pu_scorer("pu_auc")(est_m, X, S) == pytest.approx(pu_roc_auc_score(S, margin))
    assert make_pu_scorer("pu_auc_corrected", prior=0.6)(est_m, X, S) == pytest.approx(
        pu_roc_auc_corrected(S, margin, 0.6))
    # the risks read predict_proba (when there is one) and are negated
    for name in ("upu_risk", "nnpu_risk"):
        scorer = make_pu_scorer(name, prior=0.6)
        assert scorer(est_m, X, S) == pytest.approx(-pu_risk_sigmoid(S, proba, 0.6, name[:-5]))


def test_every_scorer_documents_its_source_and_assumptions():
    from pu_lib.metrics import PRIOR_SCORER_NAMES, PU_SCORER_NAMES

    assert PRIOR_SCORERS < set(PU_SCORERS)
    # the names the command line's help lists without importing this module
    assert tuple(PU_SCORERS) == PU_SCORER_NAMES and PRIOR_SCORERS == PRIOR_SCORER_NAMES
    for name, factory in PU_SCORERS.items():
        doc = " ".join(factory.__doc__.split())
        assert "SCAR" in doc and "Source" in doc, name
        assert ("prior" in doc and "required" in doc) == (name in PRIOR_SCORERS), name
        scorer = make_pu_scorer(name, prior=0.3)
        assert scorer.name == name and pickle.loads(pickle.dumps(scorer)).name == name
        assert repr(scorer).startswith(f"make_pu_scorer({name!r}")


# -------------------------------------------------------------- scikit-learn use
def _small_pu(n=160, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    X = rng.normal(size=(n, 3)) + 1.5 * y[:, None]
    s = y * (rng.random(n) < 0.5)
    return X, s


def test_scorers_work_in_grid_search_and_cross_val_score():
    X, s = _small_pu()
    scoring = {name: make_pu_scorer(name, prior=0.4) for name in PU_SCORERS}
    search = GridSearchCV(PUWeightedLogisticRegression(C=1.0), {"C": [0.01, 1.0]}, scoring=scoring,
                          refit="pu_f1", cv=PUStratifiedKFold(2, random_state=0))
    search.fit(X, s)
    assert search.best_params_["C"] in (0.01, 1.0)
    for name in PU_SCORERS:
        assert np.all(np.isfinite(search.cv_results_[f"mean_test_{name}"])), name
    # a well-separated problem: the estimated F1 / accuracy / AUC are in the right range
    assert 0.5 < search.cv_results_["mean_test_pu_auc_corrected"][1] <= 1.1
    scores = cross_val_score(PUWeightedLogisticRegression(C=1.0), X, s, scoring=make_pu_scorer("lee_liu"),
                             cv=PUStratifiedKFold(2, random_state=0))
    assert scores.shape == (2,) and np.all(scores > 0)


# ------------------------------------------------------------------------ splitter
@pytest.mark.parametrize("n,n_lab,k", [(200, 37, 5), (101, 10, 3), (50, 7, 7)])
def test_splitter_keeps_the_labeled_share_within_one_row(n, n_lab, k):
    s = np.zeros(n, int)
    s[np.random.default_rng(1).choice(n, n_lab, replace=False)] = 1
    folds = list(PUStratifiedKFold(k, random_state=0).split(np.zeros((n, 2)), s))
    assert len(folds) == k
    tests = np.concatenate([te for _, te in folds])
    assert np.array_equal(np.sort(tests), np.arange(n))  # a partition of the rows
    for tr, te in folds:
        assert np.intersect1d(tr, te).size == 0
        assert abs(s[te].sum() - te.size * n_lab / n) <= 1  # labeled share of the whole, within one row
    lab = [s[te].sum() for _, te in folds]
    assert max(lab) - min(lab) <= 1
    # same seed, same folds; a Generator is accepted
    again = list(PUStratifiedKFold(k, random_state=0).split(None, s))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, again))
    assert len(list(PUStratifiedKFold(k, random_state=np.random.default_rng(0)).split(None, s))) == k


# ---------------------------------------------------- estimates on a large SCAR draw
def test_pu_estimates_match_the_pn_metrics_on_a_large_scar_draw():
    """On 40,000 rows (prior 0.4, half the positives labeled at random) the PU estimates
    equal the PN metrics on the same rows up to sampling error. The standard errors are
    below 0.005 here (an AUC over about 8,000 x 24,000 pairs; rates over 8,000+ rows,
    scaled by at most 1 / (1 - alpha) = 1.33 for the correction), so 0.02 is four or more
    standard errors and still far below the bias of the uncorrected PU AUC (about 0.065)."""
    rng = np.random.default_rng(0)
    n, prior = 40_000, 0.4
    y = (rng.random(n) < prior).astype(int)
    s = y * (rng.random(n) < 0.5)
    margin = 1.5 * (2 * y - 1) + rng.normal(scale=1.5, size=n)
    pred = (margin > 0).astype(int)
    pi = float(y.mean())
    auc_pn = metrics.auc_roc(y, margin)
    assert pu_roc_auc_corrected(s, margin, pi) == pytest.approx(auc_pn, abs=0.02)
    assert auc_pn - pu_roc_auc_score(s, margin) > 0.04  # the correction matters
    assert pu_f1_score(s, pred, pi) == pytest.approx(metrics.f1(y, pred), abs=0.02)
    assert pu_accuracy_score(s, pred, pi) == pytest.approx(metrics.accuracy(y, pred), abs=0.02)
    pn_risk = float(np.mean(np.where(y == 1, 1 / (1 + np.exp(margin)), 1 / (1 + np.exp(-margin)))))
    assert pu_risk_sigmoid(s, margin, pi, "upu", kind="margin") == pytest.approx(pn_risk, abs=0.02)
    assert pu_risk_sigmoid(s, margin, pi, "nnpu", kind="margin") == pytest.approx(pn_risk, abs=0.02)


# --------------------------------------------------------------------------- errors
def test_errors():
    with pytest.raises(ValueError, match="needs the class prior"):
        make_pu_scorer("pu_f1")
    with pytest.raises(ValueError, match="'name' parameter"):
        make_pu_scorer("f1")
    with pytest.raises(ValueError, match="'prior' parameter"):
        make_pu_scorer("pu_accuracy", prior=1.0)
    with pytest.raises(ValueError, match="'scenario' parameter"):
        make_pu_scorer("lee_liu", scenario="case-control")
    est = _Fixed(pred=PRED, proba=np.full(10, 0.5))
    with pytest.raises(ValueError, match="sample_weight"):
        make_pu_scorer("lee_liu")(est, np.zeros((10, 1)), S, sample_weight=np.ones(10))
    with pytest.raises(ValueError, match="no labeled positives"):
        make_pu_scorer("lee_liu")(est, np.zeros((10, 1)), np.zeros(10, int))
    with pytest.raises(ValueError, match="only 0 and 1"):
        lee_liu_score(S, PRED * 2)
    with pytest.raises(ValueError, match="y_pred has 3 entries"):
        lee_liu_score(S, [1, 0, 1])
    with pytest.raises(ValueError, match="probabilities"):
        pu_risk_sigmoid(S, np.full(10, 2.0), 0.5)
    with pytest.raises(ValueError, match="every s == 1"):
        lee_liu_score(np.ones(4, int), np.ones(4, int), "case_control")
    with pytest.raises(ValueError, match="at least n_splits=5"):
        list(PUStratifiedKFold(5).split(None, np.r_[np.ones(3, int), np.zeros(20, int)]))
    with pytest.raises(ValueError, match="only 0 and 1"):
        list(PUStratifiedKFold(2).split(None, np.r_[np.full(5, -1), np.zeros(5, int)]))
    with pytest.raises(ValueError, match="X has 4 rows"):
        list(PUStratifiedKFold(2).split(np.zeros((4, 1)), S))
    with pytest.raises(ValueError, match="n_splits"):
        PUStratifiedKFold(1)
    with pytest.raises(ValueError, match="random_state only applies"):
        PUStratifiedKFold(3, shuffle=False, random_state=0)
