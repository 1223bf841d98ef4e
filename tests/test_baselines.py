"""Tests for pu_lib.base_learners and pu_lib.baselines (Naive, Elkan-Noto)."""

import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.metrics import roc_auc_score
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from pu_lib.base_learners import BASE_ESTIMATORS, make_base_estimator
from pu_lib.hist_boost import HistBoostClassifier
from pu_lib._seeding import derive_seed
from pu_lib.baselines import ElkanNotoClassifier, NaivePUClassifier
from pu_lib.oof import split_rows

ESTIMATORS = [NaivePUClassifier, ElkanNotoClassifier]


def _pu_data(n=600, d=4, seed=0, c=0.5, alpha=0.4):
    """Gaussian PU data under SCAR with exactly round(c * n_pos) labeled positives."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < alpha).astype(int)
    X = rng.normal(size=(n, d))
    X[:, 0] += np.where(y == 1, 1.5, -1.5)
    pos = np.flatnonzero(y == 1)
    s = np.zeros(n, dtype=int)
    s[rng.choice(pos, int(round(c * pos.size)), replace=False)] = 1
    return X, y, s


def _separated(n, seed, alpha=0.4):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < alpha).astype(int)
    X = rng.normal(size=(n, 5))
    X[:, 0] += np.where(y == 1, 2.5, -2.5)
    X[:, 1] += np.where(y == 1, 1.5, -1.5)
    return X, y


class ColumnProba(ClassifierMixin, BaseEstimator):
    """Test double: Pr(s=1|x) := X[:, 0] (ignores the training data)."""

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict_proba(self, X):
        p = np.asarray(X, dtype=float)[:, 0]
        return np.column_stack([1 - p, p])

    def predict(self, X):
        return (self.predict_proba(X)[:, 1] >= 0.5).astype(int)


# --------------------------------------------------------------- base estimators


def test_make_base_estimator_types_and_defaults():
    expected = {
        "random_forest": RandomForestClassifier,
        "decision_tree": DecisionTreeClassifier,
        "gaussian_nb": GaussianNB,
        "hist_boost": HistBoostClassifier,
    }
    assert set(BASE_ESTIMATORS) == set(expected) | {"xgboost", "logistic_regression", "weighted_logistic_regression",
                                                   "linear_svm"}
    from pu_lib.sar import WeightedLogisticRegression

    assert type(make_base_estimator("weighted_logistic_regression")) is WeightedLogisticRegression
    for name, cls in expected.items():
        est = make_base_estimator(name, random_state=3)
        assert type(est) is cls
        if "random_state" in est.get_params():
            assert est.get_params()["random_state"] == 3
    # logistic regression: StandardScaler + LogisticRegression pipeline by default
    pipe = make_base_estimator("logistic_regression", random_state=3)
    assert [type(step) for _, step in pipe.steps] == [StandardScaler, LogisticRegression]
    assert pipe[-1].max_iter == 1000 and pipe[-1].random_state == 3
    assert make_base_estimator("random_forest", n_jobs=2).n_jobs == 2
    lr = make_base_estimator("logistic_regression", {"C": 0.1, "max_iter": 50}, random_state=1)[-1]
    assert (lr.C, lr.max_iter, lr.random_state) == (0.1, 50, 1)
    bare = make_base_estimator("logistic_regression", {"standardize": False, "C": 2.0})
    assert type(bare) is LogisticRegression and bare.C == 2.0
    with pytest.raises(ValueError, match="standardize"):
        make_base_estimator("logistic_regression", {"standardize": "yes"})
    # explicit params win over the random_state argument
    rf = make_base_estimator("random_forest", {"random_state": 9}, random_state=1)
    assert rf.random_state == 9


def test_make_base_estimator_xgboost_fits():
    xgb = make_base_estimator("xgboost", {"n_estimators": 5, "max_depth": 2}, random_state=0, n_jobs=1)
    assert type(xgb).__name__ == "XGBClassifier"
    params = xgb.get_params()
    assert params["tree_method"] == "hist" and params["n_jobs"] == 1 and params["n_estimators"] == 5
    X, _, s = _pu_data(n=200)
    p = xgb.fit(X, s).predict_proba(X)
    assert p.shape == (200, 2)


def test_make_base_estimator_errors():
    with pytest.raises(ValueError, match="logistic_regression, random_forest, xgboost"):
        make_base_estimator("svm")
    with pytest.raises(ValueError, match="unknown parameter"):
        make_base_estimator("decision_tree", {"n_estimators": 10})
    with pytest.raises(ValueError, match="params must be a dict"):
        make_base_estimator("gaussian_nb", [1, 2])
    with pytest.raises(ValueError, match="random_state"):
        make_base_estimator("decision_tree", random_state=-1)
    with pytest.raises(ValueError, match="n_jobs"):
        make_base_estimator("random_forest", n_jobs=0)


def test_make_base_estimator_accepts_generator():
    a = make_base_estimator("decision_tree", random_state=np.random.default_rng(1))
    b = make_base_estimator("decision_tree", random_state=np.random.default_rng(1))
    assert isinstance(a.random_state, int) and a.random_state == b.random_state


# ---------------------------------------------------- scikit-learn conventions
# (scikit-learn's own estimator checks run in tests/test_sklearn_checks.py)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_params_clone_and_fitted_attributes_follow_sklearn_conventions(cls):
    base = RandomForestClassifier(n_estimators=5)
    est = cls(estimator=base, random_state=4)
    params = est.get_params()
    assert params["estimator"] is base and params["random_state"] == 4
    assert "estimator__n_estimators" in est.get_params(deep=True)
    c = clone(est)
    assert c.get_params()["random_state"] == 4 and c.estimator is not base
    est.set_params(estimator__n_estimators=7, random_state=5)
    assert base.n_estimators == 7 and est.random_state == 5

    X, y, s = _pu_data()
    for method in ("predict", "predict_proba", "decision_function"):
        with pytest.raises(NotFittedError):
            getattr(cls(), method)(X)
    est.fit(X, s)
    assert est.estimator_ is not base and not hasattr(base, "classes_")
    assert np.array_equal(est.classes_, [0, 1])
    assert est.n_features_in_ == X.shape[1]
    proba = est.predict_proba(X)
    assert proba.shape == (X.shape[0], 2)
    pred = est.predict(X)
    assert np.array_equal(pred, (proba[:, 1] >= 0.5).astype(int))
    # decision_function ranks like the positive-class probability
    d = est.decision_function(X)
    assert d.shape == (X.shape[0],)
    assert roc_auc_score(y, d) == pytest.approx(roc_auc_score(y, proba[:, 1]), abs=1e-2)
    # ClassifierMixin.score is the accuracy of predict against the labels given
    assert est.score(X, y) == np.mean(pred == y)
    with pytest.raises(ValueError, match="X has 2 features"):
        est.predict(X[:, :2])


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_pickle_round_trip_keeps_predictions(cls):
    X, _, s = _pu_data(seed=8)
    est = cls(random_state=0).fit(X, s)
    loaded = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(loaded.predict_proba(X), est.predict_proba(X))
    np.testing.assert_array_equal(loaded.decision_function(X), est.decision_function(X))
    assert type(loaded.estimator_) is type(est.estimator_)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_dataframe_input_records_feature_names_and_checks_them(cls):
    pd = pytest.importorskip("pandas")
    X, _, s = _pu_data(seed=9)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    est = cls(random_state=0).fit(df, s)
    assert est.feature_names_in_.tolist() == list(df.columns)
    # (a DataFrame's values may come column-major: equal up to float summation order)
    np.testing.assert_allclose(est.predict_proba(df), cls(random_state=0).fit(X, s).predict_proba(X), rtol=1e-9)
    with pytest.raises(ValueError, match="feature names"):
        est.predict(df[list(reversed(df.columns))])


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_random_state_seeds_the_base_estimator_and_changes_the_model(cls):
    X, _, s = _pu_data(seed=2)
    base = RandomForestClassifier(n_estimators=10, max_features=1)
    est = cls(estimator=base, random_state=11).fit(X, s)
    assert est.estimator_.random_state == 11 and base.random_state is None
    p3 = cls(estimator=base, random_state=12).fit(X, s).predict_proba(X)
    assert not np.array_equal(est.predict_proba(X), p3)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_invalid_input_raises_value_error_naming_the_problem(cls):
    X, _, s = _pu_data(n=100)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        cls().fit(Xn, s)
    Xi = X.copy()
    Xi[0, 0] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        cls().fit(Xi, s)
    with pytest.raises(ValueError, match="no labeled positives"):
        cls().fit(X, np.zeros(100, int))
    with pytest.raises(ValueError, match="no unlabeled"):
        cls().fit(X, np.ones(100, int))
    with pytest.raises(ValueError, match="only 0 and 1"):
        cls().fit(X, np.where(s == 1, 1, -1))
    with pytest.raises(ValueError, match="s has 99 entries"):
        cls().fit(X, s[:-1])
    est = cls().fit(X, s)
    with pytest.raises(ValueError, match="NaN or infinite"):
        est.predict_proba(Xn)
    with pytest.raises(ValueError, match="'estimator' parameter"):
        cls(estimator="logreg").fit(X, s)
    with pytest.raises(ValueError, match="'random_state' parameter"):
        cls(random_state=-1).fit(X, s)


# ------------------------------------------------------------------------ Naive


def test_naive_is_the_base_estimator_fitted_on_s():
    X, _, s = _pu_data(seed=3)
    naive = NaivePUClassifier().fit(X, s)
    ref = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X, s)
    assert np.allclose(naive.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-12)
    assert np.array_equal(naive.predict(X), ref.predict(X))
    assert np.allclose(naive.decision_function(X), ref.decision_function(X))

    rf = RandomForestClassifier(n_estimators=8)
    naive_rf = NaivePUClassifier(estimator=rf, random_state=5).fit(X, s)
    ref_rf = RandomForestClassifier(n_estimators=8, random_state=5).fit(X, s)
    assert naive_rf.estimator_.random_state == 5
    assert np.array_equal(naive_rf.predict_proba(X), ref_rf.predict_proba(X))


def test_naive_keeps_the_base_seed_without_random_state_and_falls_back_to_proba_minus_half():
    X, _, s = _pu_data(seed=4)
    naive = NaivePUClassifier(estimator=DecisionTreeClassifier(random_state=3)).fit(X, s)
    assert naive.estimator_.random_state == 3
    # GaussianNB has no decision_function -> proba[:, 1] - 0.5
    nb = NaivePUClassifier(estimator=GaussianNB()).fit(X, s)
    assert np.allclose(nb.decision_function(X), nb.predict_proba(X)[:, 1] - 0.5)


# ------------------------------------------------------------------ Elkan-Noto


@pytest.fixture(scope="module")
def scar_problem():
    """20000 training rows, alpha ~ 0.4, exactly 30% of the positives labeled."""
    X, y = _separated(20_000, seed=1)
    rng = np.random.default_rng(2)
    pos = np.flatnonzero(y == 1)
    s = np.zeros(y.shape[0], dtype=int)
    s[rng.choice(pos, int(round(0.3 * pos.size)), replace=False)] = 1
    X_test, y_test = _separated(10_000, seed=3)
    return X, y, s, X_test, y_test


def test_elkan_noto_recovers_label_frequency_and_auc(scar_problem):
    X, y, s, X_test, y_test = scar_problem
    c_true = s.sum() / y.sum()
    assert abs(c_true - 0.3) < 1e-3
    en = ElkanNotoClassifier(random_state=0).fit(X, s)
    assert abs(en.c_ - c_true) < 0.05
    assert en.c_ == en.c_estimates_["e1"]
    assert abs(en.prior_ - y.mean()) < 0.05
    auc_en = roc_auc_score(y_test, en.predict_proba(X_test)[:, 1])
    sup = LogisticRegression(max_iter=1000).fit(X, y)
    auc_sup = roc_auc_score(y_test, sup.predict_proba(X_test)[:, 1])
    assert auc_en > auc_sup - 0.01
    # the hold-out is stratified: 10% of each stratum
    hold = en.hold_out_indices_
    assert abs(hold.size - 0.1 * X.shape[0]) <= 2
    assert abs(s[hold].sum() - 0.1 * s.sum()) <= 1
    # e2 is also a sensible estimate here
    assert abs(en.c_estimates_["e2"] - c_true) < 0.05


def test_elkan_noto_hold_out_not_used_for_training(scar_problem):
    X, _, s, _, _ = scar_problem
    en = ElkanNotoClassifier(random_state=0).fit(X, s)
    train = np.setdiff1d(np.arange(X.shape[0]), en.hold_out_indices_)
    ref = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X[train], s[train])
    assert np.allclose(en.estimator_[-1].coef_, ref[-1].coef_)
    g_hold = ref.predict_proba(X[en.hold_out_indices_])[:, 1]
    assert en.c_ == pytest.approx(g_hold[s[en.hold_out_indices_] == 1].mean())


def test_elkan_noto_estimators_on_hand_built_case():
    # g(x) = X[:, 0]: exactly c = 0.4 on every positive, 0 on negatives (a perfect
    # non-traditional classifier for separable classes). Then e1 = e3 = c exactly,
    # and e2 = (#labeled held out) / (#positives held out), the empirical label
    # frequency of the held-out part (equal to c in expectation).
    n = 200
    y = np.r_[np.ones(100, int), np.zeros(100, int)]
    s = np.r_[np.ones(40, int), np.zeros(160, int)]
    X = np.column_stack([np.where(y == 1, 0.4, 0.0), np.arange(n)])
    for ce in ("e1", "e2", "e3"):
        en = ElkanNotoClassifier(ColumnProba(), hold_out_ratio=0.25, c_estimator=ce, random_state=1)
        en.fit(X, s)
        h = en.hold_out_indices_
        expected = {"e1": 0.4, "e3": 0.4, "e2": s[h].sum() / y[h].sum()}
        assert en.c_estimates_ == pytest.approx(expected)
        assert en.c_ == pytest.approx(expected[ce])
        assert en.prior_ == pytest.approx(min(1.0, (40 / 200) / expected[ce]))
        if ce != "e2":
            assert np.allclose(en.predict_proba(X)[:, 1], y)

    # Non-constant g: compare with the formulas on the held-out part.
    rng = np.random.default_rng(0)
    g = np.r_[rng.uniform(0.2, 0.6, 100), rng.uniform(0.0, 0.1, 100)]
    X2 = np.column_stack([g, np.arange(n)])
    en = ElkanNotoClassifier(ColumnProba(), hold_out_ratio=0.25, random_state=1).fit(X2, s)
    h = en.hold_out_indices_
    assert h.size == 50 and s[h].sum() == 10
    gl = g[h][s[h] == 1]
    assert en.c_estimates_["e1"] == pytest.approx(gl.mean())
    assert en.c_estimates_["e2"] == pytest.approx(gl.sum() / g[h].sum())
    assert en.c_estimates_["e3"] == pytest.approx(g[h].max())
    # relations: e3 >= e1 (max over all >= mean over labeled); e2 <= e1 here since
    # the unlabeled part adds mass to the denominator
    assert en.c_estimates_["e3"] >= en.c_estimates_["e1"] >= en.c_estimates_["e2"]

    # decision_function is g / c - 0.5 (unclipped); predict is g >= c / 2
    c = en.c_
    assert np.allclose(en.decision_function(X2), g / c - 0.5)
    assert np.array_equal(en.predict(X2), (g >= c / 2).astype(int))
    assert np.allclose(en.predict_proba(X2)[:, 1], np.clip(g / c, 0, 1))
    assert en.decision_function(X2).max() > 0.5  # some g exceed c, not clipped


def test_elkan_noto_hold_out_is_seeded_from_random_state_as_documented():
    X, _, s = _pu_data(seed=6)
    a = ElkanNotoClassifier(random_state=11).fit(X, s)
    rng = np.random.default_rng(derive_seed(11, "ElkanNotoClassifier", "hold_out"))
    np.testing.assert_array_equal(a.hold_out_indices_, split_rows(s, 0.1, rng)[1])
    # a Generator is consumed once for an integer seed
    g = ElkanNotoClassifier(random_state=np.random.default_rng(3)).fit(X, s)
    seed = int(np.random.default_rng(3).integers(2**32))
    b = ElkanNotoClassifier(random_state=seed).fit(X, s)
    np.testing.assert_array_equal(g.hold_out_indices_, b.hold_out_indices_)
    assert g.c_ == b.c_


@pytest.mark.parametrize("ratio", [0, 1, -0.1, 1.5, "0.1", True, None, float("nan")])
def test_elkan_noto_rejects_hold_out_ratio_outside_the_open_unit_interval(ratio):
    X, _, s = _pu_data(n=100)
    est = ElkanNotoClassifier(hold_out_ratio=ratio)  # stored unchanged, validated in fit
    assert est.get_params()["hold_out_ratio"] is ratio
    with pytest.raises(ValueError, match="hold_out_ratio"):
        est.fit(X, s)


def test_elkan_noto_rejects_unknown_c_estimator_and_keeps_a_labeled_row_in_each_part():
    X, _, s = _pu_data(n=100)
    with pytest.raises(ValueError, match="'c_estimator' parameter of ElkanNotoClassifier must be a str among"):
        ElkanNotoClassifier(c_estimator="e4").fit(X, s)
    s3 = np.zeros(100, int)
    s3[:3] = 1  # 10% of 3 labeled rounds to 0, but one labeled example is always held out
    est = ElkanNotoClassifier(hold_out_ratio=0.1, random_state=0).fit(X, s3)
    assert int(s3[est.hold_out_indices_].sum()) == 1
    assert len(est.hold_out_indices_) == 1 + 10  # 1 of 3 labeled, 10% of 97 unlabeled
    s1 = np.zeros(100, int)
    s1[0] = 1
    with pytest.raises(ValueError, match="training part has no labeled positives"):
        ElkanNotoClassifier(hold_out_ratio=0.6).fit(X, s1)
    # base predicting 0 for every labeled example -> c = 0 -> informative error
    Xz = np.column_stack([np.zeros(100), np.arange(100)])
    with pytest.raises(ValueError, match="label frequency c"):
        ElkanNotoClassifier(ColumnProba(), random_state=0).fit(Xz, s)


# ------------------------------------------------------------------ sample weights


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_integer_sample_weights_equal_duplicated_rows(cls, seed):
    X, _, s = _pu_data(n=500, seed=seed)
    w = np.random.default_rng(seed).integers(0, 4, size=s.shape[0])
    weighted = cls(random_state=seed).fit(X, s, sample_weight=w)
    repeated = cls(random_state=seed).fit(np.repeat(X, w, axis=0), np.repeat(s, w))
    # logistic regression (lbfgs) with sample weights vs duplicated rows agrees to ~1e-6
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-5, atol=1e-6)
    if cls is ElkanNotoClassifier:
        # the same units are held out: the c estimates agree to the same tolerance
        for e in ("e1", "e2", "e3"):
            np.testing.assert_allclose(weighted.c_estimates_[e], repeated.c_estimates_[e], rtol=1e-5)
        np.testing.assert_allclose(weighted.c_, repeated.c_, rtol=1e-5)
        np.testing.assert_allclose(weighted.prior_, repeated.prior_, rtol=1e-5)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_zero_sample_weights_equal_removed_rows(cls):
    X, _, s = _pu_data(n=500, seed=4)
    w = np.ones(s.shape[0])
    w[np.random.default_rng(4).random(s.shape[0]) < 0.3] = 0.0
    weighted = cls(random_state=1).fit(X, s, sample_weight=w)
    removed = cls(random_state=1).fit(X[w > 0], s[w > 0])
    np.testing.assert_array_equal(weighted.predict_proba(X), removed.predict_proba(X))
    if cls is ElkanNotoClassifier:
        assert weighted.c_estimates_ == removed.c_estimates_
        # held-out rows are reported as indices into the weighted X
        np.testing.assert_array_equal(weighted.hold_out_indices_, np.flatnonzero(w > 0)[removed.hold_out_indices_])


def test_elkan_noto_non_integer_weights_keep_the_row_split_and_weight_the_estimates():
    # g(x) = X[:, 0] (ColumnProba): the estimates are formulas on the held-out rows
    X, _, s = _pu_data(n=400, seed=5)
    g = np.random.default_rng(6).uniform(0.1, 0.9, size=s.shape[0])
    Xg = np.column_stack([g, X])
    w = np.random.default_rng(5).uniform(0.5, 2.0, size=s.shape[0])
    est = ElkanNotoClassifier(ColumnProba(), random_state=3).fit(Xg, s, sample_weight=w)
    plain = ElkanNotoClassifier(ColumnProba(), random_state=3).fit(Xg, s)
    np.testing.assert_array_equal(est.hold_out_indices_, plain.hold_out_indices_)  # the row split
    h = est.hold_out_indices_
    lab = s[h] == 1
    assert est.c_estimates_["e1"] == pytest.approx(np.sum(w[h][lab] * g[h][lab]) / np.sum(w[h][lab]))
    assert est.c_estimates_["e2"] == pytest.approx(np.sum(w[h][lab] * g[h][lab]) / np.sum(w[h] * g[h]))
    assert est.c_estimates_["e3"] == pytest.approx(g[h].max())
    assert est.prior_ == pytest.approx(min(1.0, np.sum(w * s) / np.sum(w) / est.c_))
    assert est.c_estimates_["e1"] != pytest.approx(plain.c_estimates_["e1"])


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_sample_weight_with_a_base_that_takes_none_names_the_base(cls):
    from sklearn.neighbors import KNeighborsClassifier

    X, _, s = _pu_data(n=200, seed=7)
    w = np.full(s.shape[0], 2.0)
    with pytest.raises(ValueError, match="KNeighborsClassifier does not accept sample_weight"):
        cls(estimator=KNeighborsClassifier()).fit(X, s, sample_weight=w)
    with pytest.raises(ValueError, match=r"Pipeline \(final step KNeighborsClassifier\)"):
        cls(estimator=make_pipeline(StandardScaler(), KNeighborsClassifier())).fit(X, s, sample_weight=w)
    # without weights the same base is fine
    cls(estimator=KNeighborsClassifier()).fit(X, s)


# ------------------------------------------- inputs of scikit-learn checks that use labels {1, 2}
# (pu_lib.utils.estimator_checks.EXPECTED_FAILURES lists those checks; the same properties
# with 0/1 labels s are tested here)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_fit_takes_any_numeric_dtype_lists_and_a_single_feature(cls):
    X, _, s = _pu_data(n=300, seed=10)
    X32 = X.astype(np.float32)
    np.testing.assert_array_equal(cls(random_state=0).fit(X32, s).predict_proba(X32),
                                  cls(random_state=0).fit(X32.astype(np.float64), s).predict_proba(X32))
    Xi = np.round(3 * X)
    for dtype in (np.int64, np.int32):
        np.testing.assert_array_equal(cls(random_state=0).fit(Xi.astype(dtype), s).predict_proba(Xi),
                                      cls(random_state=0).fit(Xi, s).predict_proba(Xi))
    np.testing.assert_array_equal(cls(random_state=0).fit(X.tolist(), s.tolist()).predict_proba(X),
                                  cls(random_state=0).fit(X, s).predict_proba(X))
    one = cls(random_state=0).fit(X[:, :1], s)
    assert one.n_features_in_ == 1 and one.predict_proba(X[:, :1]).shape == (300, 2)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_sample_weight_as_series_or_list_bad_shapes_rejected_and_caller_array_unchanged(cls):
    pd = pytest.importorskip("pandas")
    X, _, s = _pu_data(n=300, seed=11)
    w = np.random.default_rng(0).integers(1, 4, 300).astype(float)
    w[0] = 10.0
    w_copy = w.copy()
    ref = cls(random_state=0).fit(X, s, sample_weight=w).predict_proba(X)
    np.testing.assert_array_equal(w, w_copy)
    for other in (pd.Series(w), w.tolist()):
        np.testing.assert_array_equal(cls(random_state=0).fit(X, s, sample_weight=other).predict_proba(X), ref)
    with pytest.raises(ValueError, match="sample_weight has 600 entries but X has 300 rows"):
        cls().fit(X, s, sample_weight=np.ones(600))
    with pytest.raises(ValueError, match="sample_weight must be 1-D"):
        cls().fit(X, s, sample_weight=np.ones((300, 2)))
    with pytest.raises(ValueError, match="sample_weight sums to zero"):
        cls().fit(X, s, sample_weight=np.zeros(300))
    # weights that leave one kind of label only: the error names the single class
    with pytest.raises(ValueError, match="no unlabeled examples .* one class only"):
        cls().fit(X, s, sample_weight=s.astype(float))


def test_elkan_noto_pulearn_weighted_rule_is_the_pu_hellinger_authors_formula():
    # pulearn's WeightedElkanotoPuClassifier (the PU Hellinger authors' expsetup.py):
    # p(x) = g(x) c (n + sum over the predicted batch of w) / n, w = (1 - c)/c g/(1 - g)
    X, _, s = _pu_data(n=400)
    lem = ElkanNotoClassifier(hold_out_ratio=0.2, random_state=0).fit(X, s)
    pul = ElkanNotoClassifier(hold_out_ratio=0.2, proba="pulearn_weighted", random_state=0).fit(X, s)
    assert pul.c_ == lem.c_ and pul.n_labeled_ == s.sum()  # same fit, another read-out
    g = lem.estimator_.predict_proba(X)[:, 1]
    w = (1 - pul.c_) / pul.c_ * g / (1 - g)
    expected = np.clip(g * pul.c_ * (s.sum() + w.sum()) / s.sum(), 0, 1)
    np.testing.assert_allclose(pul.predict_proba(X)[:, 1], expected, rtol=1e-12)
    np.testing.assert_array_equal(pul.predict(X), (expected > 0.5).astype(int))
    # the batch enters the rule: the same rows predicted alone get other probabilities
    assert not np.allclose(pul.predict_proba(X[:50])[:, 1], expected[:50])
    dec = pul.decision_function(X)
    np.testing.assert_array_equal(dec > 0, pul.predict(X) == 1)
    np.testing.assert_array_equal(np.argsort(dec, kind="stable"), np.argsort(lem.decision_function(X), kind="stable"))
    with pytest.raises(ValueError, match="proba"):
        ElkanNotoClassifier(proba="weighted").fit(X, s)
