"""PU Hellinger trees (Ortega Vazquez, vanden Broucke, De Weerdt): the criterion's closed
forms (eqs. 1-3, Figure 1), the trees' split choices, the leaf probabilities, the
stratified bootstrap of PU-SHRF (Algorithm 2), and determinism across workers."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from pu_lib.trees import (
    HellingerTreeClassifier,
    PNDecisionTreeClassifier,
    PUHellingerForestClassifier,
    PUHellingerTreeClassifier,
    pu_weights,
)
from pu_lib.trees._classes import _resolve_max_features
from pu_lib.trees._criteria import (
    GINI,
    HELLINGER,
    PU_HELLINGER,
    PU_HELLINGER_AUTHORS,
    hellinger_counts,
    hellinger_distance,
    node_impurity,
    split_improvement,
)
from pu_lib.trees._parallel import tree_sample


def pu_data(n=400, d=5, seed=0, prior=0.1, c=0.5):
    """Imbalanced PU data: positives shifted in the first two features, labeled SCAR."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prior).astype(int)
    X = rng.normal(size=(n, d))
    X[:, 0] += 2.0 * y
    X[:, 1] -= 1.5 * y
    s = y * (rng.random(n) < c)
    return X, y, s


# --------------------------------------------------------------------------- Figure 1

# The paper's Figure 1: a node with 10 labeled and 90 unlabeled rows, alpha / Pr(l=1) = 2
# (estimated 20 positives, 80 negatives). Left tree: children (L, U) = (2, 2) and (8, 88);
# right tree: (0, 35) and (10, 55).
FIG1_LEFT = ((2, 2), (8, 88))
FIG1_RIGHT = ((0, 35), (10, 55))
N_ROWS, N_LAB, ALPHA = 100, 10, 0.2


def _pu_node(lab, unl):
    """(Wp, W) of a node with ``lab`` labeled and ``unl`` unlabeled rows (single training
    set weights of the Figure 1 data: a = alpha / n_L, u = 1 / n)."""
    return lab * ALPHA / N_LAB, (lab + unl) / N_ROWS


def _pu_hd(split):
    (l1, u1), (l2, u2) = split
    wp_l, w_l = _pu_node(l1, u1)
    wp_r, w_r = _pu_node(l2, u2)
    p_l, n_l = hellinger_counts(PU_HELLINGER, wp_l, w_l)
    p_r, n_r = hellinger_counts(PU_HELLINGER, wp_r, w_r)
    return hellinger_distance(p_l, n_l, p_r, n_r)


def test_count_estimate_is_eq_3():
    # P_hat = min(L alpha / Pr(l = 1), T), N_hat = T - P_hat, up to the common factor n
    for lab, unl in [(2, 2), (8, 88), (0, 35), (10, 55), (10, 90), (5, 0)]:
        p, n = hellinger_counts(PU_HELLINGER, *_pu_node(lab, unl))
        t = lab + unl
        p_hat = min(lab * ALPHA / (N_LAB / N_ROWS), t)
        assert p * N_ROWS == pytest.approx(p_hat)
        assert n * N_ROWS == pytest.approx(t - p_hat)
    # the Figure 1 node itself: 20 estimated positives, 80 negatives
    p, n = hellinger_counts(PU_HELLINGER, *_pu_node(10, 90))
    assert (p * N_ROWS, n * N_ROWS) == (pytest.approx(20), pytest.approx(80))


def test_count_estimate_on_real_weights_and_random_nodes():
    X, y, s = pu_data(n=300, seed=3)
    prior = 0.13
    a, u = pu_weights(s, prior, "single_training_set")
    pr_l = s.mean()
    rng = np.random.default_rng(0)
    for _ in range(50):
        node = rng.random(len(s)) < rng.uniform(0.05, 0.9)
        p, n = hellinger_counts(PU_HELLINGER, a[node].sum(), u[node].sum())
        L, T = s[node].sum(), node.sum()
        assert p * len(s) == pytest.approx(min(L * prior / pr_l, T))
        assert n * len(s) == pytest.approx(T - min(L * prior / pr_l, T), abs=1e-9)


def test_figure_1_hellinger_values():
    # the paper prints three decimals, truncated (0.4595 -> 0.459)
    assert math.floor(_pu_hd(FIG1_LEFT) * 1000) / 1000 == 0.459
    assert math.floor(_pu_hd(FIG1_RIGHT) * 1000) / 1000 == 0.707
    assert _pu_hd(FIG1_RIGHT) == pytest.approx(math.sqrt(0.5))   # closed form: sqrt(7/16 + 1/16)


def test_figure_1_gini_values():
    # weighted Gini of the children on s (labeled vs unlabeled): 0.166 vs 0.169
    def children_gini(split):
        return sum(node_impurity(GINI, lab / N_ROWS, (lab + unl) / N_ROWS) for lab, unl in split)

    # node_impurity(GINI) is W * 2p(1-p) = W * (1 - p^2 - (1-p)^2), the paper's I_G weighted by W
    assert math.floor(children_gini(FIG1_LEFT) * 1000) / 1000 == 0.166
    assert math.floor(children_gini(FIG1_RIGHT) * 1000) / 1000 == 0.169


def _figure_1_data():
    """100 rows, 10 labeled: feature 0 isolates (2 labeled, 2 unlabeled) -- the left tree
    of Figure 1 -- and feature 1 isolates 35 unlabeled rows -- the right tree."""
    s = np.r_[np.ones(10, int), np.zeros(90, int)]
    X = np.zeros((100, 2))
    X[[0, 1, 10, 11], 0] = 1.0
    X[20:55, 1] = 1.0
    return X, s


def test_figure_1_split_choices_on_data():
    X, s = _figure_1_data()
    pu = PUHellingerTreeClassifier(prior=ALPHA, max_depth=1).fit(X, s)
    gini = PNDecisionTreeClassifier(criterion="gini", max_depth=1).fit(X, s)
    assert pu.tree_.feature[0] == 1        # PU Hellinger prefers the right tree
    assert gini.tree_.feature[0] == 0      # Gini prefers the left tree
    # the stored improvement is W * HD with W = 1 at the root
    assert pu.tree_.improvement[0] == pytest.approx(math.sqrt(0.5))


# --------------------------------------------------------------------------- criterion

def test_pn_hellinger_is_eq_1_and_bounded():
    rng = np.random.default_rng(1)
    for _ in range(200):
        wp_l, wn_l, wp_r, wn_r = rng.random(4)
        hd = hellinger_distance(wp_l, wn_l, wp_r, wn_r)
        P, N = wp_l + wp_r, wn_l + wn_r
        ref = math.sqrt((math.sqrt(wn_l / N) - math.sqrt(wp_l / P)) ** 2
                        + (math.sqrt(wn_r / N) - math.sqrt(wp_r / P)) ** 2)
        assert hd == pytest.approx(ref)
        assert 0.0 <= hd <= math.sqrt(2.0) + 1e-12
        # insensitive to the class ratio: scaling one class leaves HD unchanged (the point of eq. 1)
        assert hellinger_distance(7 * wp_l, wn_l, 7 * wp_r, wn_r) == pytest.approx(hd)
        imp = split_improvement(HELLINGER, 0.0, wp_l, wp_l + wn_l, wp_r, wp_r + wn_r)
        assert imp == pytest.approx((P + N) * hd)
    assert hellinger_distance(1.0, 0.0, 0.0, 1.0) == pytest.approx(math.sqrt(2.0))   # perfect separation


def test_split_without_both_distributions_is_never_chosen():
    assert hellinger_distance(0.0, 1.0, 0.0, 2.0) == -np.inf        # no positives
    assert hellinger_distance(1.0, 0.0, 2.0, 0.0) == -np.inf        # no negatives
    # PU: both children estimated all-positive (N_hat = 0): not a usable split
    assert split_improvement(PU_HELLINGER, 0.0, 0.5, 0.2, 0.5, 0.3) == -np.inf


def test_the_authors_rule_scores_a_split_without_estimated_negatives_hd_1():
    """``all_positive_split="authors"`` (criterion PU_HELLINGER_AUTHORS): the authors' code
    replaces N = 0 by 1, so both negative terms vanish and the positive shares sum to 1:
    HD = 1, improvement W * 1. Splits with both distributions score as pu_hellinger's, and
    a split without positives is still never chosen."""
    assert split_improvement(PU_HELLINGER_AUTHORS, 0.0, 0.5, 0.2, 0.5, 0.3) == pytest.approx(0.5)
    for split in ((0.02, 0.3, 0.05, 0.4), (0.01, 0.01, 0.06, 0.5)):
        assert split_improvement(PU_HELLINGER_AUTHORS, 0.0, *split) == split_improvement(PU_HELLINGER, 0.0, *split)
    assert split_improvement(PU_HELLINGER_AUTHORS, 0.0, 0.0, 0.2, 0.0, 0.3) == -np.inf


def _splits_all_positive_regions(tree) -> bool:
    """Whether an internal node has two children estimated all-positive (P_hat = T, N_hat
    = 0 in each: a split without estimated negatives)."""
    internal = np.flatnonzero(tree.children_left != -1)
    capped = tree.weight_p >= tree.weight
    return bool(np.any(capped[tree.children_left[internal]] & capped[tree.children_right[internal]]))


def test_the_authors_rule_keeps_splitting_regions_estimated_all_positive():
    X, y, s = pu_data(n=600, seed=3, prior=0.3, c=0.8)
    for rule, splits in (("never", False), ("authors", True)):
        tree = PUHellingerTreeClassifier(prior=0.3, max_depth=None, all_positive_split=rule).fit(X, s).tree_
        assert _splits_all_positive_regions(tree) is splits, rule
        forest = PUHellingerForestClassifier(prior=0.3, n_estimators=5, random_state=0, all_positive_split=rule)
        forest.fit(X, s)
        assert any(_splits_all_positive_regions(t) for t in forest._fitted_trees()) is splits, rule
        assert {e.all_positive_split for e in forest.estimators_} == {rule}


def _best_root_split(X, s, prior):
    """Brute force: the (feature, midpoint) of maximal PU Hellinger distance."""
    pr_l = s.mean()
    best = (-1.0, None, None)
    for f in range(X.shape[1]):
        vals = np.unique(X[:, f])
        for t in (vals[:-1] + vals[1:]) / 2:
            left = X[:, f] <= t
            parts = []
            for m in (left, ~left):
                L, T = s[m].sum(), m.sum()
                p = min(L * prior / pr_l, T)
                parts += [p, T - p]
            p_l, n_l, p_r, n_r = parts
            P, N = p_l + p_r, n_l + n_r
            if P <= 0 or N <= 0:
                continue
            hd = math.sqrt((math.sqrt(n_l / N) - math.sqrt(p_l / P)) ** 2 + (math.sqrt(n_r / N) - math.sqrt(p_r / P)) ** 2)
            if hd > best[0] + 1e-12:
                best = (hd, f, t)
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_root_split_is_the_brute_force_maximum(seed):
    X, y, s = pu_data(n=120, d=3, seed=seed, prior=0.2)
    X = np.round(X, 2).astype(np.float32).astype(np.float64)
    prior = float(y.mean())
    hd, f, t = _best_root_split(X, s, prior)
    m = PUHellingerTreeClassifier(prior=prior, max_depth=1).fit(X, s)
    assert m.tree_.feature[0] == f
    assert m.tree_.threshold[0] == pytest.approx(t, rel=1e-6)
    assert m.tree_.improvement[0] == pytest.approx(hd, rel=1e-9)


def test_node_without_labeled_rows_is_a_leaf():
    X, y, s = pu_data(n=500, seed=4)
    for m in (PUHellingerTreeClassifier(prior=0.1, max_depth=None).fit(X, s),
              PUHellingerForestClassifier(prior=0.1, n_estimators=5, random_state=0).fit(X, s)):
        for t in m._fitted_trees():
            internal = t.children_left != -1
            assert np.all(t.weight_p[internal] > 0)
            assert np.any(t.weight_p[~internal] == 0)       # such leaves exist ...
            # ... and hold unlabeled rows that a split could still separate
            assert np.any((t.weight_p == 0) & (t.n_node_samples > 1) & ~internal)


def test_hdt_is_pu_hellinger_with_the_labeled_fraction_as_prior():
    # With alpha = Pr(l = 1), P_hat = L and N_hat = T - L: the PU criterion on PU weights is
    # the PN criterion on the labels s (eq. 3 with a factor 1).
    X, y, s = pu_data(n=300, seed=5)
    a_pu, u_pu = pu_weights(s, float(s.mean()), "single_training_set")
    a_pn, u_pn = np.where(s == 1, 1.0 / len(s), 0.0), np.full(len(s), 1.0 / len(s))
    rng = np.random.default_rng(0)
    for _ in range(100):
        left = rng.random(len(s)) < rng.uniform(0.1, 0.9)
        sub = rng.random(len(s)) < 0.8       # a node: a random subset of the rows
        l, r = sub & left, sub & ~left
        pu = split_improvement(PU_HELLINGER, 0.0, a_pu[l].sum(), u_pu[l].sum(), a_pu[r].sum(), u_pu[r].sum())
        pn = split_improvement(HELLINGER, 0.0, a_pn[l].sum(), u_pn[l].sum(), a_pn[r].sum(), u_pn[r].sum())
        assert pu == pytest.approx(pn, rel=1e-12)
    hdt = HellingerTreeClassifier(random_state=0).fit(X, s)
    root = PUHellingerTreeClassifier(prior=float(s.mean()), max_depth=1, random_state=0).fit(X, s)
    assert (root.tree_.feature[0], root.tree_.threshold[0]) == (hdt.tree_.feature[0], hdt.tree_.threshold[0])
    assert root.tree_.improvement[0] == pytest.approx(hdt.tree_.improvement[0], rel=1e-12)
    # HDT is the PN tree with criterion="hellinger" and the paper's depth
    pn = PNDecisionTreeClassifier(criterion="hellinger", max_depth=5, feature_draw="any", random_state=0).fit(X, s)
    trees_equal(hdt.tree_, pn.tree_)
    assert hdt.tree_.max_depth == 5
    assert_array_equal(hdt.predict_proba(X)[:, 1], hdt.tree_.leaf_values(np.asarray(X, np.float32)))


# --------------------------------------------------------------------------- probabilities

def test_labeled_fraction_and_class_probability_of_leaves():
    X, y, s = pu_data(n=600, seed=6)
    prior = float(y.mean())
    lab = PUHellingerTreeClassifier(prior=prior, proba="labeled_fraction", random_state=0).fit(X, s)
    cls = PUHellingerTreeClassifier(prior=prior, random_state=0).fit(X, s)
    leaves = lab.tree_.apply(np.asarray(X, dtype=np.float32))
    frac = np.array([s[leaves == k].mean() for k in leaves])          # empirical L / T of each row's leaf
    assert_allclose(lab.predict_proba(X)[:, 1], frac, atol=1e-12)
    assert_allclose(cls.predict_proba(X)[:, 1], np.minimum(frac * prior / s.mean(), 1.0), atol=1e-12)
    assert_array_equal(cls.predict(X), (cls.predict_proba(X)[:, 1] > 0.5).astype(int))


def test_labeled_fraction_case_control():
    X, y, s = pu_data(n=500, seed=7)
    # case-control: the labeled rows stacked on top of all rows (P a copy of the labeled rows)
    Xc = np.vstack([X[s == 1], X])
    sc = np.r_[np.ones(int(s.sum()), int), np.zeros(len(s), int)]
    m = PUHellingerTreeClassifier(prior=0.1, scenario="case_control", proba="labeled_fraction").fit(Xc, sc)
    leaves = m.tree_.apply(np.asarray(Xc, dtype=np.float32))
    frac = np.array([sc[leaves == k].mean() for k in leaves])
    assert_allclose(m.predict_proba(Xc)[:, 1], frac, atol=1e-12)


def test_forest_probability_is_the_mean_over_trees():
    X, y, s = pu_data(n=400, seed=8)
    for proba in ("class", "labeled_fraction"):
        m = PUHellingerForestClassifier(prior=0.1, n_estimators=7, proba=proba, random_state=1).fit(X, s)
        per_tree = np.mean([e.predict_proba(X)[:, 1] for e in m.estimators_], axis=0)
        assert_allclose(m.predict_proba(X)[:, 1], per_tree, atol=1e-12)
        assert_allclose(m.decision_function(X), per_tree - 0.5, atol=1e-12)


# --------------------------------------------------------------------------- forests

def test_stratified_bootstrap_composition():
    X, y, s = pu_data(n=300, seed=9)
    prior = 0.1
    a, _ = pu_weights(s, prior, "single_training_set")
    rows = np.arange(len(s))
    n_l, n_u = int(s.sum()), int((s == 0).sum())
    for k in (n_u, 50):
        sample = tree_sample(rows, a, ("stratified", k), seed=3)
        assert_array_equal(np.sort(sample[s[sample] == 1]), np.flatnonzero(s == 1))   # every labeled row once
        assert (s[sample] == 0).sum() == k                                             # K_U unlabeled draws
        if k == n_u:   # with replacement: about 1 - 1/e of the unlabeled rows are drawn
            assert 0.5 * n_u < len(np.unique(sample[s[sample] == 0])) < 0.75 * n_u
    # in the fitted forest: each tree's root holds n_L + K_U rows and all the labeled weight
    for max_samples, k in ((None, n_u), (40, 40), (0.5, round(0.5 * n_u))):
        m = PUHellingerForestClassifier(prior=prior, n_estimators=4, max_samples=max_samples,
                                        random_state=0).fit(X, s)
        for t in m.trees_:
            assert t.n_node_samples[0] == n_l + k
            assert t.weight_p[0] == pytest.approx(prior)
    std = PUHellingerForestClassifier(prior=prior, n_estimators=4, bootstrap="standard", random_state=0).fit(X, s)
    assert {int(t.n_node_samples[0]) for t in std.trees_} == {len(s)}
    assert len({float(t.weight_p[0]) for t in std.trees_}) > 1     # labeled rows vary between samples


def test_forest_defaults_are_the_papers():
    m = PUHellingerForestClassifier()
    assert (m.n_estimators, m.bootstrap, m.max_features, m.max_depth, m.splitter) == (100, "stratified", "sqrt",
                                                                                       None, "best")
    assert PUHellingerTreeClassifier().max_depth == 5 and HellingerTreeClassifier().max_depth == 5
    assert _resolve_max_features("sqrt", 20, "floor") == 4 and _resolve_max_features("sqrt", 20) == 5
    X, y, s = pu_data(n=200, d=20, seed=1)
    m = PUHellingerForestClassifier(prior=0.1, n_estimators=2, random_state=0).fit(X, s)
    assert m.n_features_in_ == 20
    from pu_lib.trees._classes import _engine_params
    assert _engine_params(m, 10, "best", 20)["max_features"] == 4


def trees_equal(a, b):
    for f in ("children_left", "children_right", "feature", "threshold", "value", "weight_p", "weight"):
        assert_array_equal(getattr(a, f), getattr(b, f))


def test_same_forest_for_1_and_2_threads_and_dask_workers():
    distributed = pytest.importorskip("distributed")
    X, y, s = pu_data(n=400, seed=10)
    kw = dict(prior=0.1, n_estimators=8, random_state=4)
    ref = PUHellingerForestClassifier(n_jobs=1, use_dask=False, **kw).fit(X, s)
    two = PUHellingerForestClassifier(n_jobs=2, use_dask=False, **kw).fit(X, s)
    assert len(ref.trees_) > 0  # an empty forest would pass the loop
    for a, b in zip(ref.trees_, two.trees_, strict=True):
        trees_equal(a, b)
    for n_workers in (1, 2):
        with distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=False,
                                      dashboard_address=None) as cluster, distributed.Client(cluster):
            m = PUHellingerForestClassifier(use_dask=True, **kw).fit(X, s)
        assert len(ref.trees_) > 0  # an empty forest would pass the loop
        for a, b in zip(ref.trees_, m.trees_, strict=True):
            trees_equal(a, b)
        assert_array_equal(ref.predict_proba(X), m.predict_proba(X))


def test_forest_zero_weights_are_removed_rows():
    X, y, s = pu_data(n=300, seed=11)
    w = (np.random.default_rng(2).random(len(y)) < 0.7).astype(float)
    keep = w > 0
    a = PUHellingerForestClassifier(prior=0.1, n_estimators=5, random_state=3).fit(X, s, sample_weight=w)
    b = PUHellingerForestClassifier(prior=0.1, n_estimators=5, random_state=3).fit(X[keep], s[keep])
    assert len(a.trees_) > 0  # an empty forest would pass the loop
    for ta, tb in zip(a.trees_, b.trees_, strict=True):
        trees_equal(ta, tb)


def test_prior_is_required_and_may_be_an_estimator():
    X, y, s = pu_data(n=300, seed=12)
    with pytest.raises(ValueError, match="prior is required"):
        PUHellingerTreeClassifier().fit(X, s)
    with pytest.raises(ValueError, match="prior"):
        PUHellingerForestClassifier(prior=1.5).fit(X, s)
    m = PUHellingerForestClassifier(prior="elkan_noto_prior", n_estimators=3, random_state=0).fit(X, s)
    # the fitted estimator's prior is the one used (a bound such as 0 < prior_ < 1 holds for
    # any estimate: the base class clips alpha_ to [0, 1])
    assert type(m.prior_estimator_).__name__ == "ElkanNotoPrior"
    assert m.prior_ == pytest.approx(m.prior_estimator_.prior_)


def test_pu_shrf_beats_hdt_on_imbalanced_pu_data():
    # the paper's claim in miniature: on imbalanced PU data (prior 5%, half of the positives
    # unlabeled) the PU forest ranks the hidden positives better than HDT fitted on s
    from sklearn.metrics import average_precision_score

    X, y, s = pu_data(n=3000, d=6, seed=13, prior=0.05, c=0.5)
    Xt, yt, _ = pu_data(n=3000, d=6, seed=14, prior=0.05, c=0.5)
    prior = float(y.mean())
    shrf = PUHellingerForestClassifier(prior=prior, n_estimators=50, random_state=0).fit(X, s)
    hdt = HellingerTreeClassifier().fit(X, s)
    ap_shrf = average_precision_score(yt, shrf.predict_proba(Xt)[:, 1])
    ap_hdt = average_precision_score(yt, hdt.predict_proba(Xt)[:, 1])
    assert ap_shrf > ap_hdt
    # the class probability predicts y: about the right number of positives
    assert 0.3 * prior < shrf.predict(Xt).mean() < 3 * prior


def test_rounding_residues_count_as_zero():
    # a right child computed as parent - left: W - Wp = 1e-18 where the true count is 0;
    # sqrt(1e-18 / N) would shift HD by ~1e-10 and break ties between equal splits
    # (and with them: integer sample weights == repeated rows)
    wp, w = 0.007462686567164179, 0.00746268656716418
    assert hellinger_counts(HELLINGER, wp, w) == (wp, 0.0)
    assert hellinger_counts(PU_HELLINGER, 1e-19, 0.5) == (0.0, 0.5)
    tied = split_improvement(HELLINGER, 0.0, 0.0, 0.044776119402985065, wp, w)
    exact = split_improvement(HELLINGER, 0.0, 0.0, 0.044776119402985065, wp, wp)
    assert tied == exact
