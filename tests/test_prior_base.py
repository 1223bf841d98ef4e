"""pu_lib.prior.base: conversions between alpha, prior and c (Bekker thesis eqs. 2.5-2.7),
the common estimator interface, and prior estimators plugged into classifiers."""

import numpy as np
import pytest

from pu_lib.labeling import label_frequency_from_prior, prior_from_label_frequency
from pu_lib.prior import (
    PRIOR_ESTIMATORS,
    BasePriorEstimator,
    ElkanNotoPrior,
    alpha_from_c,
    alpha_from_prior,
    c_from_alpha,
    make_prior_estimator,
    population_prior,
    prior_from_alpha,
    resolve_prior,
)


class _Fixed(BasePriorEstimator):
    """Returns a fixed native estimate (for testing the base class)."""

    def __init__(self, kind="alpha", value=0.3, random_state=None):
        self.kind = kind
        self.value = value
        self.random_state = random_state

    def _estimate(self, X, s):
        return self.kind, self.value


def _pu(n=1000, n_lab=200, n_pos_u=240):
    """n rows, n_lab labeled, n_pos_u hidden positives among the unlabeled."""
    s = np.zeros(n, dtype=int)
    s[:n_lab] = 1
    y = s.copy()
    y[n_lab:n_lab + n_pos_u] = 1
    X = np.arange(n, dtype=float).reshape(-1, 1)
    return X, s, y


# ----------------------------------------------------------------- conversions
def test_conversions_on_counts():
    # 1000 rows, 200 labeled, 240 of the 800 unlabeled positive: alpha = 0.3,
    # prior = 440/1000, c = 200/440.
    lf = 0.2
    assert prior_from_alpha(0.3, lf) == pytest.approx(0.44)
    assert c_from_alpha(0.3, lf) == pytest.approx(200 / 440)
    assert alpha_from_c(200 / 440, lf) == pytest.approx(0.3)
    assert alpha_from_prior(0.44, lf) == pytest.approx(0.3)


@pytest.mark.parametrize("alpha", [0.0, 0.05, 0.3, 0.77, 1.0])
@pytest.mark.parametrize("lf", [0.01, 0.25, 0.6])
def test_case_control_eqs_2_6_and_2_7(alpha, lf):
    # eq. 2.6: c = l / (alpha (1 - l) + l); eq. 2.7: alpha = (1-c)/c * l/(1-l)
    c = lf / (alpha * (1 - lf) + lf)
    assert c_from_alpha(alpha, lf) == pytest.approx(c)
    assert alpha_from_c(c, lf) == pytest.approx(alpha, abs=1e-12)
    if 0 < alpha < 1:  # the labeling module's case-control conversion agrees
        assert label_frequency_from_prior(alpha, lf, "case-control") == pytest.approx(c)
        assert prior_from_label_frequency(c, lf, "case-control") == pytest.approx(alpha)


@pytest.mark.parametrize("prior,lf", [(0.5, 0.1), (0.35, 0.3), (0.9, 0.45)])
def test_single_training_set_eq_2_5(prior, lf):
    # eq. 2.5: c = Pr(s=1) / prior, prior = whole-sample prior
    alpha = alpha_from_prior(prior, lf)
    assert c_from_alpha(alpha, lf) == pytest.approx(lf / prior)
    assert label_frequency_from_prior(prior, lf, "single-training-set") == pytest.approx(lf / prior)
    assert prior_from_alpha(alpha, lf) == pytest.approx(prior)


def test_conversion_errors():
    with pytest.raises(ValueError, match="labeled_fraction"):
        prior_from_alpha(0.3, 0.0)
    with pytest.raises(ValueError, match="alpha"):
        prior_from_alpha(1.3, 0.2)
    with pytest.raises(ValueError, match="c 0.1"):
        alpha_from_c(0.1, 0.2)  # fewer positives than labeled rows
    with pytest.raises(ValueError, match="prior"):
        alpha_from_prior(0.1, 0.2)
    with pytest.raises(ValueError, match="number"):
        prior_from_alpha("x", 0.2)


# ----------------------------------------------------------------- base estimator
def test_base_sets_all_three_from_alpha_and_from_c():
    X, s, y = _pu()
    e = _Fixed("alpha", 0.3).fit(X, s)
    assert e.alpha_ == pytest.approx(0.3)
    assert e.prior_ == pytest.approx(y.mean())
    assert e.c_ == pytest.approx(s.sum() / y.sum())
    assert (e.labeled_fraction_, e.n_labeled_, e.n_unlabeled_) == (0.2, 200, 800)
    f = _Fixed("c", 200 / 440).fit(X, s)
    assert f.alpha_ == pytest.approx(0.3) and f.prior_ == pytest.approx(0.44)
    # scenario: the population prior a classifier uses
    assert population_prior(e, "single_training_set") == pytest.approx(0.44)
    assert population_prior(e, "case_control") == pytest.approx(0.3)
    assert e.prior_for("case_control") == pytest.approx(0.3)
    with pytest.raises(ValueError, match="scenario"):
        population_prior(e, "case-control-typo")


def test_base_clips_infeasible_estimates_and_keeps_raw():
    X, s, _ = _pu()
    e = _Fixed("alpha", 1.4).fit(X, s)
    assert e.alpha_ == 1.0 and e.prior_ == 1.0 and e.c_ == pytest.approx(0.2) and e.raw_estimate_ == 1.4
    e = _Fixed("c", 0.05).fit(X, s)  # below the labeled fraction: implies prior > 1
    assert e.prior_ == 1.0 and e.raw_estimate_ == 0.05
    e = _Fixed("alpha", -0.1).fit(X, s)
    assert e.alpha_ == 0.0 and e.c_ == 1.0
    with pytest.raises(ValueError, match="non-finite"):
        _Fixed("alpha", float("nan")).fit(X, s)


def test_base_validates_input():
    X, s, _ = _pu()
    with pytest.raises(ValueError, match="no labeled positives"):
        _Fixed().fit(X, np.zeros_like(s))
    with pytest.raises(ValueError, match="no unlabeled"):
        _Fixed().fit(X, np.ones_like(s))
    Xn = X.copy()
    Xn[3, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        _Fixed().fit(Xn, s)
    with pytest.raises(ValueError, match="rows"):
        _Fixed().fit(X, s[:-1])


# ----------------------------------------------------------------- registry / resolve
def test_registry_names_resolve_to_estimators():
    for name in PRIOR_ESTIMATORS:
        est = make_prior_estimator(name, random_state=3)
        assert isinstance(est, BasePriorEstimator)
        if "random_state" in est.get_params():
            assert est.get_params()["random_state"] == 3
    assert make_prior_estimator("elkan_noto_e3").c_estimator == "e3"
    with pytest.raises(ValueError, match="unknown prior estimator 'nope'"):
        make_prior_estimator("nope")


def test_resolve_prior_number_name_instance():
    X, s, _ = _pu()
    assert resolve_prior(0.4, X, s) == (0.4, None)
    with pytest.raises(ValueError, match="open interval"):
        resolve_prior(1.0, X, s)
    with pytest.raises(ValueError, match="prior is required"):
        resolve_prior(None, X, s)
    inst = _Fixed("alpha", 0.3)
    p, fitted = resolve_prior(inst, X, s, "case_control", random_state=5)
    assert p == pytest.approx(0.3) and fitted is not inst and not hasattr(inst, "alpha_")
    assert fitted.random_state == 5  # None was filled from the caller's seed
    p, _ = resolve_prior(inst, X, s, "single_training_set")
    assert p == pytest.approx(0.44)
    with pytest.raises(ValueError, match="prior estimated by _Fixed"):
        resolve_prior(_Fixed("alpha", 0.0), X, s, "case_control")


def test_elkan_noto_prior_matches_the_classifier():
    from pu_lib.baselines import ElkanNotoClassifier
    from pu_lib.datasets.synthetic import make_pulsnar_scar

    d = make_pulsnar_scar(0.3, n_labeled=400, n_unlabeled=1200, random_state=1)
    s = d.meta["recipe_s"].to_numpy()
    for e in ("e1", "e2", "e3"):
        pr = ElkanNotoPrior(c_estimator=e, random_state=4).fit(d.X, s)
        clf = ElkanNotoClassifier(c_estimator=e, random_state=4).fit(d.X, s)
        assert pr.raw_estimate_ == pytest.approx(clf.c_estimates_[e])
        assert pr.c_estimates_ == pytest.approx(clf.c_estimates_)
        assert 0 <= pr.alpha_ <= 1


def test_elkan_noto_e1_recovers_c_on_separable_data():
    # g perfect on separable data: g = c on positives, 0 on negatives -> e1 = e2 = e3 = c
    rng = np.random.default_rng(0)
    n = 6000
    y = (rng.random(n) < 0.4).astype(int)
    X = np.column_stack([y * 6.0 + rng.normal(size=n), rng.normal(size=n)])
    s = y * (rng.random(n) < 0.5)
    for e in ("e1", "e2"):
        pr = ElkanNotoPrior(c_estimator=e, hold_out_ratio=0.3, random_state=0).fit(X, s)
        assert pr.c_ == pytest.approx(s.sum() / y.sum(), abs=0.03)
        assert pr.prior_ == pytest.approx(y.mean(), abs=0.03)


# ----------------------------------------------------------------- classifiers take any prior
@pytest.mark.parametrize("prior", ["elkan_noto", "tice", "pulscar"])
def test_pu_trees_accept_prior_estimator_names(prior):
    from pu_lib.trees import PUDecisionTreeClassifier

    rng = np.random.default_rng(0)
    n = 1500
    y = (rng.random(n) < 0.5).astype(int)
    X = np.column_stack([y * 3.0 + rng.normal(size=n), rng.normal(size=n)])
    s = y * (rng.random(n) < 0.5)
    clf = PUDecisionTreeClassifier(prior=prior, random_state=0, max_depth=3).fit(X, s)
    assert 0 < clf.prior_ < 1
    assert clf.prior_ == pytest.approx(clf.prior_estimator_.prior_)
    assert abs(clf.prior_ - y.mean()) < 0.15
    again = PUDecisionTreeClassifier(prior=prior, random_state=0, max_depth=3).fit(X, s)
    assert again.prior_ == clf.prior_  # seeded from the classifier's random_state


def test_pu_trees_accept_an_estimator_instance_case_control():
    from pu_lib.trees import PUExtraTreesClassifier

    rng = np.random.default_rng(1)
    X, s, _ = _pu()
    X = X + rng.normal(size=X.shape)
    inst = _Fixed("alpha", 0.3)
    clf = PUExtraTreesClassifier(prior=inst, scenario="case_control", n_estimators=3, random_state=0).fit(X, s)
    assert clf.prior_ == pytest.approx(0.3)
    clf = PUExtraTreesClassifier(prior=inst, n_estimators=3, random_state=0).fit(X, s)
    assert clf.prior_ == pytest.approx(0.44)
    assert PUExtraTreesClassifier(prior=0.44, n_estimators=3, random_state=0).fit(X, s).prior_estimator_ is None
