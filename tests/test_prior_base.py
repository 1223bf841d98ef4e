"""pu_lib.prior.base: conversions between alpha, prior and c (Bekker thesis eqs. 2.5-2.7),
the common estimator interface, prior estimators plugged into classifiers by registry
name or instance, and the Elkan-Noto prior estimator (sample weights, pickling)."""

import pickle

import numpy as np
import pytest

from pu_lib.workflow import registry
from pu_lib.labeling import label_frequency_from_prior, prior_from_label_frequency
from pu_lib.prior import (
    DEDPUL,
    AlphaMax,
    AlphaMaxN,
    PULSCAR,
    PULSNAR,
    BasePriorEstimator,
    ElkanNotoPrior,
    KMPriorEstimator,
    PEPriorEstimator,
    PenL1PriorEstimator,
    TIcE,
    alpha_from_c,
    alpha_from_prior,
    c_from_alpha,
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
def test_conversions_on_hand_computed_counts():
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
        assert label_frequency_from_prior(alpha, lf, "case_control") == pytest.approx(c)
        assert prior_from_label_frequency(c, lf, "case_control") == pytest.approx(alpha)


@pytest.mark.parametrize("prior,lf", [(0.5, 0.1), (0.35, 0.3), (0.9, 0.45)])
def test_single_training_set_eq_2_5(prior, lf):
    # eq. 2.5: c = Pr(s=1) / prior, prior = whole-sample prior
    alpha = alpha_from_prior(prior, lf)
    assert c_from_alpha(alpha, lf) == pytest.approx(lf / prior)
    assert label_frequency_from_prior(prior, lf, "single_training_set") == pytest.approx(lf / prior)
    assert prior_from_alpha(alpha, lf) == pytest.approx(prior)


def test_conversions_reject_values_outside_their_range():
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


def test_base_rejects_pu_data_without_both_label_kinds_nan_or_wrong_length():
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
def test_prior_names_are_the_registry_prior_entries_and_get_the_callers_seed():
    assert registry.names("prior") == ["tice", "pulscar", "pulsnar", "elkan_noto_prior", "km1", "km2", "dedpul",
                                       "alphamax", "alphamax_n", "pe", "pen_l1"]
    classes = {"tice": TIcE, "pulscar": PULSCAR, "pulsnar": PULSNAR, "elkan_noto_prior": ElkanNotoPrior,
               "km1": KMPriorEstimator, "km2": KMPriorEstimator, "dedpul": DEDPUL,
               "alphamax": AlphaMax, "alphamax_n": AlphaMaxN,
               "pe": PEPriorEstimator, "pen_l1": PenL1PriorEstimator}
    for name in registry.names("prior"):
        est = registry.make_estimator(name, kind="prior", random_state=3)
        assert type(est) is classes[name] and est.random_state == 3
    X, s, _ = _pu()
    X = X + np.random.default_rng(0).normal(size=X.shape)
    _, fitted = resolve_prior("elkan_noto_prior", X, s, random_state=7)
    assert isinstance(fitted, ElkanNotoPrior) and fitted.random_state == 7
    # the former aliases are gone: an ElkanNotoPrior instance chooses e1 / e2 / e3
    for old in ("elkan_noto", "elkan_noto_e1", "elkan_noto_e3", "nope"):
        with pytest.raises(ValueError, match=f"unknown prior method {old!r}"):
            resolve_prior(old, X, s)
    p, fitted = resolve_prior(ElkanNotoPrior(c_estimator="e3"), X, s, random_state=7)
    assert fitted.c_estimator == "e3" and fitted.raw_estimate_ == fitted.c_estimates_["e3"]


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
        lf = s.mean()
        assert pr.alpha_ == pytest.approx(alpha_from_c(min(1.0, max(lf, pr.raw_estimate_)), lf))


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
@pytest.mark.parametrize("prior", ["elkan_noto_prior", "tice", "pulscar"])
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
    # TIcE() bounds c on a tree fold of 300 rows, which leaves eq. 3.4's slack of about
    # 0.1 on c here (c 0.38 for 0.5, prior 0.64 for 0.48); Elkan-Noto 0.56, PULSCAR 0.43
    assert abs(clf.prior_ - y.mean()) < (0.2 if prior == "tice" else 0.15)
    again = PUDecisionTreeClassifier(prior=prior, random_state=0, max_depth=3).fit(X, s)
    assert again.prior_ == clf.prior_  # seeded from the classifier's random_state


def test_pu_trees_take_an_estimator_instance_and_its_scenario_prior():
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


# ----------------------------------------------------------------- Elkan-Noto prior: weights, pickle
def _en_data(n=800, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    X = rng.normal(size=(n, 3))
    X[:, 0] += 2.0 * y
    s = y * (rng.random(n) < 0.5)
    return X, s


def test_elkan_noto_prior_integer_weights_equal_duplicated_rows():
    X, s = _en_data()
    w = np.random.default_rng(1).integers(0, 4, size=s.shape[0])
    weighted = ElkanNotoPrior(random_state=2).fit(X, s, sample_weight=w)
    repeated = ElkanNotoPrior(random_state=2).fit(np.repeat(X, w, axis=0), np.repeat(s, w))
    # the base logistic regression with weights vs duplicated rows agrees to ~1e-6
    np.testing.assert_allclose(weighted.raw_estimate_, repeated.raw_estimate_, rtol=1e-5)
    np.testing.assert_allclose([weighted.alpha_, weighted.prior_, weighted.c_],
                               [repeated.alpha_, repeated.prior_, repeated.c_], rtol=1e-5)
    assert weighted.labeled_fraction_ == repeated.labeled_fraction_
    assert (weighted.n_labeled_, weighted.n_unlabeled_) == (repeated.n_labeled_, repeated.n_unlabeled_)


def test_elkan_noto_prior_zero_weights_equal_removed_rows():
    X, s = _en_data(seed=3)
    w = np.ones(s.shape[0])
    w[::5] = 0
    weighted = ElkanNotoPrior(random_state=4).fit(X, s, sample_weight=w)
    removed = ElkanNotoPrior(random_state=4).fit(X[w > 0], s[w > 0])
    assert weighted.c_estimates_ == removed.c_estimates_
    assert (weighted.alpha_, weighted.prior_, weighted.c_) == (removed.alpha_, removed.prior_, removed.c_)


@pytest.mark.parametrize("make", [
    lambda: TIcE(random_state=0),
    lambda: PULSCAR(max_depth=2, n_folds=3, xgb_params={"n_estimators": 20}, random_state=0),
    lambda: PULSNAR(max_depth=2, n_folds=3, max_clusters=3, xgb_params={"n_estimators": 20}, random_state=0),
    lambda: ElkanNotoPrior(random_state=0),
], ids=["TIcE", "PULSCAR", "PULSNAR", "ElkanNotoPrior"])
def test_prior_estimator_pickle_round_trip_keeps_estimate_and_refits_identically(make):
    X, s = _en_data(n=600, seed=5)
    est = make().fit(X, s)
    loaded = pickle.loads(pickle.dumps(est))
    assert (loaded.alpha_, loaded.prior_, loaded.c_) == (est.alpha_, est.prior_, est.c_)
    assert loaded.fit(X, s).alpha_ == est.alpha_  # a seeded refit of the loaded object agrees


@pytest.mark.parametrize("make", [
    lambda: TIcE(random_state=0),
    lambda: PULSCAR(max_depth=2, n_folds=3, xgb_params={"n_estimators": 20}, random_state=0),
    lambda: ElkanNotoPrior(random_state=0),
], ids=["TIcE", "PULSCAR", "ElkanNotoPrior"])
def test_prior_estimators_take_any_numeric_dtype_lists_and_a_single_feature(make):
    # (scikit-learn's dtype and one-feature checks use labels {1, 2}: exempted there)
    X, s = _en_data(n=400, seed=6)
    X32 = X.astype(np.float32)
    assert make().fit(X32, s).alpha_ == make().fit(X32.astype(np.float64), s).alpha_
    Xi = np.round(3 * X)
    assert make().fit(Xi.astype(np.int32), s).alpha_ == make().fit(Xi, s).alpha_
    assert make().fit(X.tolist(), s.tolist()).alpha_ == make().fit(X, s).alpha_
    one = make().fit(X[:, :1], s)
    assert one.n_features_in_ == 1 and np.isfinite(one.raw_estimate_)


def test_prior_estimators_record_dataframe_feature_names():
    pd = pytest.importorskip("pandas")
    X, s = _en_data(n=300, seed=7)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    est = TIcE(random_state=0).fit(df, s)
    assert est.feature_names_in_.tolist() == ["a", "b", "c"]
    assert est.alpha_ == TIcE(random_state=0).fit(X, s).alpha_


def test_prior_fit_errors_follow_scikit_learn_wording():
    X, s = _en_data(n=100, seed=8)
    with pytest.raises(ValueError, match="requires y to be passed"):
        TIcE().fit(X, None)
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        TIcE().fit(X, np.arange(100) % 3)
    with pytest.raises(ValueError, match="Unknown label type"):
        TIcE().fit(X, np.linspace(0, 1, 100))
    with pytest.raises(ValueError, match="one class only"):
        TIcE().fit(X, np.ones(100))
    with pytest.raises(ValueError, match="1 sample"):
        TIcE().fit(X[:1], s[:1])
    with pytest.warns(Warning, match="column-vector y"):
        TIcE(random_state=0).fit(X, s[:, None])
