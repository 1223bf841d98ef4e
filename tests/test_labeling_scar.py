"""SCAR mechanisms of pu_lib.labeling (by c, flip ratio, count, case-control) and the
prior <-> label-frequency conversions by scenario (thesis eqs. 2.5-2.7)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from labeling_data import assert_pu, make_y

from pu_lib._rounding import round_half_up
from pu_lib._validation import CASE_CONTROL, SINGLE_TRAINING_SET
from pu_lib.labeling import (
    case_control,
    expand_case_control,
    label_frequency_from_prior,
    prior_from_label_frequency,
    scar_count,
    scar_flip_ratio,
    scar_label_frequency,
)

# ----------------------------------------------------------------------------- SCAR


@pytest.mark.parametrize("n,n_pos", [(10, 1), (50, 7), (1000, 333), (5000, 2500)])
@pytest.mark.parametrize("c", [0.01, 0.1, 0.25, 0.5, 0.9, 1.0])
def test_scar_label_frequency_labels_round_c_times_positives(n, n_pos, c):
    y = make_y(n, n_pos)
    res = scar_label_frequency(y, c, random_state=1)
    assert_pu(res, y)
    expected = max(1, round_half_up(c * n_pos))
    assert res.n_labeled == expected
    assert res.mechanism == "scar_c" and res.scenario == SINGLE_TRAINING_SET
    np.testing.assert_allclose(res.propensity, expected / n_pos)
    if c == 1.0:
        np.testing.assert_array_equal(res.s, y)


def test_scar_label_frequency_rounds_half_up_and_labels_at_least_one():
    y = make_y(20, 5)
    assert scar_label_frequency(y, 0.7, random_state=0).n_labeled == 4  # 3.4999999999999996 -> 4
    assert scar_label_frequency(y, 0.5, random_state=0).n_labeled == 3  # 2.5 -> 3
    assert scar_label_frequency(y, 0.01, random_state=0).n_labeled == 1  # at least one
    # the pinned counts of a larger case (PU Hellinger trees: 25 / 50 / 75 % labeled)
    y = make_y(1000, 333)
    assert [scar_label_frequency(y, c, random_state=0).n_labeled for c in (0.25, 0.5, 0.75)] == [83, 167, 250]


@pytest.mark.parametrize("n,n_pos", [(10, 1), (40, 4), (1000, 250), (3000, 1001)])
@pytest.mark.parametrize("flip", [0.0, 0.25, 0.5, 0.75, 0.99])
def test_scar_flip_ratio_unlabels_round_flip_times_positives_keeping_one(n, n_pos, flip):
    y = make_y(n, n_pos)
    res = scar_flip_ratio(y, flip, random_state=2)
    assert_pu(res, y)
    n_unlab = min(n_pos - 1, round_half_up(flip * n_pos))
    assert res.n_labeled == n_pos - n_unlab >= 1
    assert res.mechanism == "scar_flip"
    if flip == 0.0:
        np.testing.assert_array_equal(res.s, y)


@pytest.mark.parametrize("n_labeled", [1, 17, 250, 400])
def test_scar_count_and_case_control_label_exactly_n_labeled(n_labeled):
    y = make_y(2000, 400)
    r1 = scar_count(y, n_labeled, random_state=3)
    r2 = case_control(y, n_labeled, random_state=3)
    for r in (r1, r2):
        assert_pu(r, y)
        assert r.n_labeled == n_labeled
        np.testing.assert_allclose(r.propensity, n_labeled / 400)
    assert r1.scenario == "single_training_set" and r2.scenario == "case_control"
    assert r2.params["n_unlabeled"] == 2000


def test_case_control_expansion_puts_p_first_and_obeys_eqs_2_6_and_2_7():
    y = make_y(3000, 600)
    res = case_control(y, 100, random_state=0)
    rows, s = expand_case_control(res)
    # P first (100 rows, s=1), then every row as U (s=0): P is a subset of U
    assert rows.shape[0] == 3100 and s.sum() == 100
    np.testing.assert_array_equal(s[:100], 1)
    np.testing.assert_array_equal(rows[100:], np.arange(3000))
    assert set(rows[:100]) <= set(np.flatnonzero(y == 1))
    # The combined P+U sample obeys eq. 2.6 / 2.7 with alpha = Pr(y=1 | s=0) = prior of U
    ys = y[rows]
    lf = s.mean()
    c_emp = s[ys == 1].mean()
    alpha = ys[s == 0].mean()
    assert lf == pytest.approx(100 / 3100) and lf == pytest.approx(res.params["labeled_fraction"])
    assert c_emp == pytest.approx(100 / 700) and c_emp == pytest.approx(res.params["label_frequency_combined"])
    assert alpha == pytest.approx(0.2)
    assert label_frequency_from_prior(alpha, lf, CASE_CONTROL) == pytest.approx(c_emp)
    assert prior_from_label_frequency(c_emp, lf, CASE_CONTROL) == pytest.approx(alpha)
    # single-training-set expansion is the identity
    r1 = scar_count(y, 5, random_state=0)
    rows1, s1 = expand_case_control(r1)
    np.testing.assert_array_equal(rows1, np.arange(3000))
    np.testing.assert_array_equal(s1, r1.s)


def test_scar_count_labels_each_positive_with_equal_probability():
    y = np.ones(10, dtype=int)
    counts = np.zeros(10)
    for seed in range(2000):
        counts += scar_count(y, 3, random_state=seed).s
    # each of the 10 positives is labeled with probability 0.3 -> 600 expected of 2000
    assert np.all(np.abs(counts - 600) < 5 * math.sqrt(2000 * 0.3 * 0.7))


# ----------------------------------------------------------------------------- conversions


def test_conversions_give_the_hand_computed_values_of_eqs_2_5_to_2_7():
    # eq. 2.5: c = Pr(s=1) / prior
    assert label_frequency_from_prior(0.4, 0.1) == pytest.approx(0.25)
    assert prior_from_label_frequency(0.25, 0.1) == pytest.approx(0.4)
    # eq. 2.6: c = 0.2 / (0.5 * 0.8 + 0.2) = 1/3
    assert label_frequency_from_prior(0.5, 0.2, CASE_CONTROL) == pytest.approx(1 / 3)
    # eq. 2.7: alpha = (1 - 1/3)/(1/3) * 0.2 / 0.8 = 0.5
    assert prior_from_label_frequency(1 / 3, 0.2, CASE_CONTROL) == pytest.approx(0.5)


def test_conversions_are_the_prior_base_relations():
    from pu_lib.prior.base import alpha_from_c, c_from_alpha, prior_from_alpha

    # case-control: the prior is alpha, the prior of U -- the very same functions
    assert label_frequency_from_prior(0.3, 0.05, CASE_CONTROL) == c_from_alpha(0.3, 0.05)
    assert prior_from_label_frequency(0.6, 0.05, CASE_CONTROL) == alpha_from_c(0.6, 0.05)
    # single-training-set: the prior of the whole sample, l + alpha (1 - l)
    assert prior_from_label_frequency(0.6, 0.05) == prior_from_alpha(alpha_from_c(0.6, 0.05), 0.05)


@pytest.mark.parametrize("scenario", [SINGLE_TRAINING_SET, CASE_CONTROL])
def test_conversions_match_the_formulas_and_invert_each_other(scenario):
    for alpha in (0.05, 0.3, 0.5, 0.9):
        for lf in (0.01, 0.04, 0.2):
            if scenario == SINGLE_TRAINING_SET and lf >= alpha:
                continue
            c = label_frequency_from_prior(alpha, lf, scenario)
            expected = lf / alpha if scenario == SINGLE_TRAINING_SET else lf / (alpha * (1 - lf) + lf)
            assert c == pytest.approx(expected, rel=1e-12)
            assert prior_from_label_frequency(c, lf, scenario) == pytest.approx(alpha, rel=1e-12)


def test_conversions_match_generated_scar_data():
    y = make_y(10000, 3000)
    res = scar_label_frequency(y, 0.3, random_state=0)
    lf = res.s.mean()
    assert res.label_frequency == pytest.approx(0.3)
    assert label_frequency_from_prior(y.mean(), lf) == pytest.approx(res.label_frequency)
    assert prior_from_label_frequency(res.label_frequency, lf) == pytest.approx(y.mean())


def test_conversions_reject_inconsistent_inputs_and_unknown_scenarios():
    with pytest.raises(ValueError, match="prior"):
        label_frequency_from_prior(1.2, 0.1)
    with pytest.raises(ValueError, match="labeled_fraction"):
        label_frequency_from_prior(0.5, 0.0)
    with pytest.raises(ValueError, match=r"must lie in \[labeled_fraction, 1\]"):
        label_frequency_from_prior(0.1, 0.2)  # more labeled rows than positives
    with pytest.raises(ValueError, match="scenario must be one of"):
        label_frequency_from_prior(0.5, 0.1, scenario="pu")
    with pytest.raises(ValueError, match="scenario must be one of"):
        label_frequency_from_prior(0.5, 0.1, scenario="case-control")  # the old spelling
    with pytest.raises(ValueError, match=r"c 0.0 must lie in \[labeled_fraction, 1\]"):
        prior_from_label_frequency(0.0, 0.1)
    with pytest.raises(ValueError, match=r"must lie in \[labeled_fraction, 1\]"):
        prior_from_label_frequency(0.1, 0.5)  # implies a prior of 5
    with pytest.raises(ValueError, match="outside"):
        prior_from_label_frequency(1.0, 0.5, CASE_CONTROL)  # implies alpha = 0
