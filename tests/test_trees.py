"""The tree engine and PU Extra Trees (Wilton et al., NeurIPS 2022): closed forms of
Propositions 1-5 and Theorem 1 against numerical minimisation, purity rules, the
paper's invariances, determinism across threads / Dask workers, and the estimator API."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from pu_lib.baselines import (
    NaivePUExtraTreesClassifier,
    PUBaggingExtraTreesClassifier,
    SupervisedExtraTreesClassifier,
)
from pu_lib.trees import (
    PNDecisionTreeClassifier,
    PNExtraTreesClassifier,
    PUDecisionTreeClassifier,
    PUExtraTreesClassifier,
    pu_weights,
)
from pu_lib.trees import _criteria as C
from pu_lib.trees._tree import FIELDS

from conftest import pu_data

LOSSES = {
    "quadratic": lambda v, y: (1 - v * y) ** 2,
    "logistic": lambda v, y: np.logaddexp(0.0, -v * y),
    "savage": lambda v, y: 4.0 * np.exp(-2 * np.logaddexp(0.0, v * y)),
    "sigmoid": lambda v, y: np.exp(-np.logaddexp(0.0, v * y)),
}


def partial_risk(loss, risk, v, wp, w):
    """R(v; P', U') of Section 3.2 written with Wp = |P'| w_p and W = |U'| w_u."""
    l = LOSSES[loss]
    if risk == "upu":
        return wp * l(v, 1) - wp * l(v, -1) + w * l(v, -1)
    return wp * l(v, 1) + np.maximum(0.0, w * l(v, -1) - wp * l(v, -1))  # v: a number or an array


def numeric_min(loss, risk, wp, w):
    f = lambda v: partial_risk(loss, risk, v, wp, w)
    grid = np.concatenate([np.linspace(-30, 30, 6001)])
    vals = f(grid)
    i = int(np.argmin(vals))
    res = minimize_scalar(f, bracket=(grid[max(i - 1, 0)], grid[i], grid[min(i + 1, len(grid) - 1)])) \
        if 0 < i < len(grid) - 1 else None
    return min(vals.min(), res.fun if res is not None else np.inf)


CODES = {(risk, loss): C.pu_criterion_code(risk, loss) for risk in C.PU_RISKS for loss in C.LOSSES}


# ------------------------------------------------------------------ the criterion table

def test_criterion_table_holds_every_pu_risk_loss_pair_and_the_pn_criteria():
    assert set(C.CRITERIA) == {f"{r}_{l}" for r in ("upu", "nnpu") for l in ("quadratic", "logistic", "savage",
                                                                            "sigmoid")} | {
        "gini", "entropy", "hellinger", "pu_hellinger", "pu_hellinger_authors"}
    assert {n for n, c in C.CRITERIA.items() if c.kind == "pn"} == {"gini", "entropy", "hellinger"}
    assert {n for n, c in C.CRITERIA.items() if c.kind == "pu_count"} == {"pu_hellinger", "pu_hellinger_authors"}
    assert C.CRITERIA["nnpu_savage"].code == C.CRITERIA["nnpu_quadratic"].code     # Proposition 3
    assert C.CRITERIA["upu_savage"].code != C.CRITERIA["upu_quadratic"].code
    others = [c.code for n, c in C.CRITERIA.items() if n != "nnpu_savage"]
    assert len(set(others)) == len(others)
    assert C.pu_criterion_code("upu", "logistic") == C.UPU_LOG
    assert C.criterion_code("entropy", "pn") == C.ENTROPY
    assert C.criterion_code("hellinger", "pn") == C.HELLINGER
    with pytest.raises(ValueError, match="known: .*gini"):
        C.criterion_code("pu_hellinger", "pn")
    with pytest.raises(ValueError, match="unknown pu criterion 'gini'"):
        C.criterion_code("gini", "pu")
    # the estimators' allowed values are read from the table
    assert PUExtraTreesClassifier._parameter_constraints["loss"][0].options == set(C.LOSSES)
    assert PUExtraTreesClassifier._parameter_constraints["risk"][0].options == {"upu", "nnpu"}
    assert PNExtraTreesClassifier._parameter_constraints["criterion"][0].options == {"gini", "entropy", "hellinger"}


@pytest.mark.parametrize("name", [n for n, c in C.CRITERIA.items() if c.kind == "pu"])
def test_pu_tree_uses_the_criterion_named_risk_underscore_loss(name):
    X, y, s = pu_data(n=300, n_lab=60)
    risk, loss = name.split("_")
    t = PUDecisionTreeClassifier(risk=risk, loss=loss, prior=0.45, max_depth=4).fit(X, s).tree_
    code = C.CRITERIA[name].code
    for node in range(t.node_count):
        assert t.impurity[node] == C.node_impurity(code, t.weight_p[node], t.weight[node])


# ------------------------------------------------------------------ Propositions 1-5

def test_hand_computed_node():
    # |P'| = 3 labeled with w_p = 0.1, |U'| = 5 with w_u = 0.1: Wp = 0.3, W = 0.5, Wn = 0.2, v* = 0.6
    wp, w = 0.3, 0.5
    assert C.node_value(wp, w) == pytest.approx(0.6)
    assert C.node_impurity(C.UPU_QUAD, wp, w) == pytest.approx(4 * 0.5 * 0.6 * 0.4)          # eq. (11): 0.48
    assert C.node_impurity(C.NNPU_QUAD, wp, w) == pytest.approx(0.48)                         # eq. (13)
    h = -0.6 * math.log(0.6) - 0.4 * math.log(0.4)
    assert C.node_impurity(C.UPU_LOG, wp, w) == pytest.approx(0.5 * h)                        # eq. (12)
    assert C.node_impurity(C.NNPU_LOG, wp, w) == pytest.approx(0.5 * h)                       # eq. (14)
    assert C.node_impurity(C.UPU_SIG, wp, w) == pytest.approx(0.2)                            # eq. (16)
    # v* > 1: Wp = 0.3, W = 0.2 (Wn = -0.1)
    assert C.node_value(0.3, 0.2) == pytest.approx(1.5)
    assert C.node_impurity(C.UPU_QUAD, 0.3, 0.2) == pytest.approx(4 * 0.2 * 1.5 * -0.5)     # finite, negative
    assert C.node_impurity(C.UPU_LOG, 0.3, 0.2) == -np.inf
    assert C.node_impurity(C.NNPU_QUAD, 0.3, 0.2) == 0.0
    assert C.node_impurity(C.NNPU_LOG, 0.3, 0.2) == 0.0
    assert C.node_impurity(C.UPU_SIG, 0.3, 0.2) == pytest.approx(-0.1)
    assert C.node_impurity(C.NNPU_SIG, 0.3, 0.2) == 0.0
    # W = 0 (no unlabeled weight, case-control node of labeled positives only): v* = +inf
    assert C.node_value(0.3, 0.0) == np.inf
    assert C.node_impurity(C.UPU_QUAD, 0.3, 0.0) == -np.inf
    assert C.node_impurity(C.NNPU_QUAD, 0.3, 0.0) == 0.0
    # v* in {0, 1}
    assert C.node_impurity(C.UPU_LOG, 0.0, 0.4) == 0.0 and C.node_impurity(C.UPU_LOG, 0.4, 0.4) == 0.0


@pytest.mark.parametrize("risk", ["upu", "nnpu"])
@pytest.mark.parametrize("loss", ["quadratic", "logistic", "savage", "sigmoid"])
def test_closed_forms_equal_numerical_minimum(risk, loss):
    rng = np.random.default_rng(1)
    for _ in range(12):
        wp = rng.uniform(0.01, 0.5)
        w = rng.uniform(0.02, 1.0)
        formula = C.node_impurity(CODES[(risk, loss)], wp, w)
        num = numeric_min(loss, risk, wp, w)
        if formula == -np.inf:  # unbounded below: the risk keeps falling as v grows
            r = [partial_risk(loss, risk, v, wp, w) for v in (1e1, 1e2, 1e3)]
            assert r[0] > r[1] > r[2] and r[2] < num
        elif loss == "sigmoid":
            assert num == pytest.approx(formula, abs=1e-9)  # an infimum, reached as v -> +-inf
        else:
            assert num == pytest.approx(formula, rel=1e-5, abs=1e-8)


@pytest.mark.parametrize("risk", ["upu", "nnpu"])
@pytest.mark.parametrize("loss", ["quadratic", "logistic", "savage", "sigmoid"])
def test_proposition4_prediction_is_sign_of_v_minus_half(risk, loss):
    rng = np.random.default_rng(2)
    for _ in range(50):
        wp, w = rng.uniform(0, 1), rng.uniform(0.01, 1)
        v = C.node_value(wp, w)
        plus, minus = partial_risk(loss, risk, 1.0, wp, w), partial_risk(loss, risk, -1.0, wp, w)
        if abs(v - 0.5) > 1e-9:
            assert (plus < minus) == (v > 0.5)


def test_theorem1_gini_and_entropy_are_scaled_risk_reductions():
    rng = np.random.default_rng(3)
    for _ in range(100):
        n = 20
        y = rng.integers(0, 2, n)
        left = rng.random(n) < 0.5
        w = 1.0 / 40  # |D| = 40: the node is a subset of D
        wp, W = w * y.sum(), w * n
        wpl, wl = w * y[left].sum(), w * left.sum()
        parent_q = C.node_impurity(C.UPU_QUAD, wp, W)
        rr_quad = parent_q - C.node_impurity(C.UPU_QUAD, wpl, wl) - C.node_impurity(C.UPU_QUAD, wp - wpl, W - wl)
        gini_gain = C.split_improvement(C.GINI, C.node_impurity(C.GINI, wp, W), wpl, wl, wp - wpl, W - wl)

        def G(yy):
            p = yy.mean() if len(yy) else 0
            return 1 - p ** 2 - (1 - p) ** 2

        ir_gini = G(y) - left.mean() * G(y[left]) - (1 - left.mean()) * G(y[~left])
        assert rr_quad == pytest.approx(2 * n * w * ir_gini, abs=1e-12)        # eq. (8)
        assert rr_quad == pytest.approx(2 * gini_gain, abs=1e-12)

        def H(yy):
            p = yy.mean() if len(yy) else 0
            return 0.0 if p in (0, 1) else -p * np.log(p) - (1 - p) * np.log(1 - p)

        ir_ent = H(y) - left.mean() * H(y[left]) - (1 - left.mean()) * H(y[~left])
        rr_log = (C.node_impurity(C.UPU_LOG, wp, W) - C.node_impurity(C.UPU_LOG, wpl, wl)
                  - C.node_impurity(C.UPU_LOG, wp - wpl, W - wl))
        ent_gain = C.split_improvement(C.ENTROPY, C.node_impurity(C.ENTROPY, wp, W), wpl, wl, wp - wpl, W - wl)
        assert rr_log == pytest.approx(n * w * ir_ent, abs=1e-12)             # eq. (9)
        assert ent_gain == pytest.approx(rr_log, abs=1e-12)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("random_state", [0, 1, 2])
def test_pn_decision_tree_equals_scikit_learn(criterion, random_state):
    """Same splits as scikit-learn's tree wherever the best split is unique (to depth 3
    on these data; deeper, tied splits are won by whichever candidate comes first, which
    depends on the feature draw order), and the same impurities: ours are weighted by the
    node's weight W = n_node / n (Theorem 1's W G(p) and W H(p))."""
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 5)).astype(np.float32)
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 0.5, 300) > 0).astype(int)
    ours = PNDecisionTreeClassifier(criterion=criterion, max_depth=3, random_state=random_state).fit(X, y).tree_
    sk = DecisionTreeClassifier(criterion=criterion, max_depth=3, random_state=0).fit(X, y).tree_
    assert ours.node_count == sk.node_count
    # same structure, features and thresholds (node order: both depth first, left first)
    np.testing.assert_array_equal(ours.children_left, sk.children_left)
    np.testing.assert_array_equal(ours.feature[ours.children_left != -1], sk.feature[sk.children_left != -1])
    np.testing.assert_allclose(ours.threshold[ours.children_left != -1], sk.threshold[sk.children_left != -1],
                               rtol=1e-6)
    np.testing.assert_array_equal(ours.n_node_samples, sk.n_node_samples)
    unit = 1.0 if criterion == "gini" else math.log(2.0)  # sklearn's entropy is in bits, ours in nats
    np.testing.assert_allclose(ours.impurity, unit * sk.impurity * sk.n_node_samples / 300, rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------ trees

def trees_equal(a, b):
    for f in FIELDS:
        if f in ("n_node_samples",):
            continue
        x, z = getattr(a, f), getattr(b, f)
        if x.dtype.kind == "f":
            np.testing.assert_allclose(x, z, rtol=1e-12, atol=1e-15)
        else:
            np.testing.assert_array_equal(x, z)


def test_nnpu_quadratic_leaves_are_pure_and_importances_sum_to_the_root_risk():
    X, y, s = pu_data()
    pi = y.mean()
    for est in (PUDecisionTreeClassifier(prior=pi),
                PUExtraTreesClassifier(n_estimators=5, prior=pi, random_state=0)):
        est.fit(X, s)
        for t in (est.trees_ if hasattr(est, "trees_") else [est.tree_]):
            leaves = t.children_left == -1
            assert np.all(t.impurity[leaves] == 0)              # pure leaves
            assert t.impurity[0] == pytest.approx(4 * pi * (1 - pi))
            assert t.importances(6).sum() == pytest.approx(4 * pi * (1 - pi), rel=1e-9)
        assert est.feature_importances_.sum() == pytest.approx(4 * pi * (1 - pi), rel=1e-9)


def test_node_weights_value_impurity_and_improvement_match_the_paper():
    X, y, s = pu_data()
    pi = y.mean()
    t = PUDecisionTreeClassifier(prior=pi, max_depth=3).fit(X, s).tree_
    n, n_p = len(s), s.sum()
    leaf_of = t.apply(X)
    for node in range(t.node_count):
        # rows in the node's subtree
        rows = np.isin(leaf_of, _subtree_leaves(t, node))
        wp = (rows & (s == 1)).sum() * pi / n_p
        w = rows.sum() / n
        assert t.weight_p[node] == pytest.approx(wp)
        assert t.weight[node] == pytest.approx(w)
        assert t.value[node] == pytest.approx(wp / w)
        assert t.impurity[node] == pytest.approx(C.node_impurity(C.NNPU_QUAD, wp, w))
        if t.children_left[node] != -1:
            l, r = t.children_left[node], t.children_right[node]
            assert t.improvement[node] == pytest.approx(t.impurity[node] - t.impurity[l] - t.impurity[r])


def _subtree_leaves(t, node):
    out, stack = [], [node]
    while stack:
        k = stack.pop()
        if t.children_left[k] == -1:
            out.append(k)
        else:
            stack += [t.children_left[k], t.children_right[k]]
    return out


def test_exhaustive_split_is_the_best_over_all_thresholds():
    X, y, s = pu_data(n=120, d=3, n_lab=25)
    pi = y.mean()
    a, u = pu_weights(s, pi, "single_training_set")
    t = PUDecisionTreeClassifier(prior=pi, max_depth=1).fit(X, s).tree_
    parent = C.node_impurity(C.NNPU_QUAD, a.sum(), u.sum())
    best = -np.inf
    for f in range(3):
        v = np.unique(X[:, f])
        for thr in (v[:-1] + v[1:]) / 2:
            m = X[:, f] <= thr
            g = C.split_improvement(C.NNPU_QUAD, parent, a[m].sum(), u[m].sum(), a[~m].sum(), u[~m].sum())
            if g > best:
                best, bf, bt = g, f, thr
    assert t.feature[0] == bf
    assert t.threshold[0] == pytest.approx(bt, rel=1e-6)
    assert t.improvement[0] == pytest.approx(best)


def test_purity_rules_upu_minus_inf_and_nnpu_zero():
    X, y, s = pu_data()
    pi = y.mean()
    # case-control (P and U disjoint samples): a node holding only labeled positives has
    # W = 0 -> v* = +inf and R* = -inf under uPU quadratic
    Xc = np.vstack([X[s == 1], X[s == 0]])
    sc = np.r_[np.ones(s.sum(), int), np.zeros((s == 0).sum(), int)]
    t = PUDecisionTreeClassifier(risk="upu", prior=pi, scenario="case_control").fit(Xc, sc).tree_
    leaves = t.children_left == -1
    assert np.any(t.impurity[leaves] == -np.inf)
    internal = ~leaves
    assert np.all(t.impurity[internal] > -np.inf)           # -inf nodes are never split
    t = PUDecisionTreeClassifier(risk="nnpu", prior=pi).fit(X, s).tree_
    assert np.all(t.impurity[t.children_left != -1] > 0)     # 0-risk nodes are never split
    assert np.all(t.impurity[t.children_left == -1] == 0)


def test_termination_max_depth_min_samples_and_constant_features():
    X, y, s = pu_data()
    pi = y.mean()
    t = PUDecisionTreeClassifier(prior=pi, max_depth=2).fit(X, s).tree_
    assert t.max_depth <= 2
    t = PUDecisionTreeClassifier(prior=pi, min_samples_leaf=20).fit(X, s).tree_
    assert t.n_node_samples[t.children_left == -1].min() >= 20
    t = PUDecisionTreeClassifier(prior=pi, min_samples_split=100).fit(X, s).tree_
    assert np.all(t.n_node_samples[t.children_left != -1] >= 100)
    Xc = np.ones((50, 3), np.float32)
    sc = np.r_[np.ones(10, int), np.zeros(40, int)]
    t = PUExtraTreesClassifier(n_estimators=2, prior=0.3, random_state=0).fit(Xc, sc)
    assert all(tr.node_count == 1 for tr in t.trees_)


@pytest.mark.parametrize("rule", ["uniform", "authors"])
def test_random_splits_never_leave_a_child_empty(rule):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, size=(400, 4)).astype(np.float32)   # few distinct values
    X[:, 3] = np.round(rng.normal(size=400), 1)
    s = (rng.random(400) < 0.2).astype(int)
    m = PUExtraTreesClassifier(n_estimators=10, prior=0.4, threshold_rule=rule, random_state=1).fit(X, s)
    for t in m.trees_:
        internal = np.flatnonzero(t.children_left != -1)
        assert np.all(t.n_node_samples[t.children_left[internal]] >= 1)
        assert np.all(t.n_node_samples[t.children_right[internal]] >= 1)
        assert np.all(t.n_node_samples[t.children_left[internal]] + t.n_node_samples[t.children_right[internal]]
                      == t.n_node_samples[internal])


def test_authors_rule_cuts_inside_the_interior_interval():
    # one feature with distinct values 0, 1, 2, 3: cut in [0 + 2/5, 2 + 3/5] = [0.4, 2.6]
    X = np.repeat(np.arange(4, dtype=np.float32), 10)[:, None]
    s = np.r_[np.ones(5, int), np.zeros(35, int)]
    m = PUExtraTreesClassifier(n_estimators=50, prior=0.3, threshold_rule="authors", max_depth=1,
                               random_state=0).fit(X, s)
    cuts = np.array([t.threshold[0] for t in m.trees_])
    assert cuts.min() >= 0.4 and cuts.max() <= 2.6
    m = PUExtraTreesClassifier(n_estimators=50, prior=0.3, max_depth=1, random_state=0).fit(X, s)
    cuts = np.array([t.threshold[0] for t in m.trees_])
    assert cuts.min() >= 0.0 and cuts.max() < 3.0 and cuts.min() < 0.4  # uniform over the range


def test_savage_equals_quadratic_where_proposition3_applies():
    rng = np.random.default_rng(8)
    for _ in range(100):
        wp, w = rng.uniform(0, 1), rng.uniform(0.01, 1)
        assert C.node_impurity(C.NNPU_QUAD, wp, w) == pytest.approx(numeric_min("savage", "nnpu", wp, w), abs=1e-6)
        if wp <= w:  # Wn >= 0: uPU savage = uPU quadratic
            assert C.node_impurity(C.UPU_SAV, wp, w) == pytest.approx(C.node_impurity(C.UPU_QUAD, wp, w), abs=1e-12)
    # uPU with Wn < 0: the savage infimum 4 Wn, not the quadratic closed form
    assert C.node_impurity(C.UPU_SAV, 0.3, 0.2) == pytest.approx(numeric_min("savage", "upu", 0.3, 0.2), abs=1e-6)
    assert C.node_impurity(C.UPU_SAV, 0.3, 0.2) != pytest.approx(C.node_impurity(C.UPU_QUAD, 0.3, 0.2))


def test_nnpu_savage_gives_identical_trees_to_nnpu_quadratic():
    X, y, s = pu_data()
    q = PUExtraTreesClassifier(n_estimators=5, risk="nnpu", loss="quadratic", prior=y.mean(), random_state=3).fit(X, s)
    v = PUExtraTreesClassifier(n_estimators=5, risk="nnpu", loss="savage", prior=y.mean(), random_state=3).fit(X, s)
    assert len(q.trees_) > 0  # an empty forest would pass the loop
    for a, b in zip(q.trees_, v.trees_, strict=True):
        trees_equal(a, b)


def test_paper_protocol_same_forest_single_training_set_or_case_control():
    X, y, s = pu_data()
    pi = y.mean()
    a = PUExtraTreesClassifier(n_estimators=8, prior=pi, random_state=7).fit(X, s)
    Xc = np.vstack([X[s == 1], X])
    sc = np.r_[np.ones(s.sum(), int), np.zeros(len(s), int)]
    b = PUExtraTreesClassifier(n_estimators=8, prior=pi, scenario="case_control", random_state=7).fit(Xc, sc)
    assert len(a.trees_) > 0  # an empty forest would pass the loop
    for ta, tb in zip(a.trees_, b.trees_, strict=True):
        trees_equal(ta, tb)   # sample counts differ (labeled rows counted twice), weights do not
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_upu_trees_are_larger_than_nnpu_trees_and_upu_logistic_smaller_than_upu_quadratic():
    """Tree sizes (node counts): uPU trees only stop at R* = -inf nodes and grow far larger
    than nnPU trees (Section 3.2's motivation for nnPU); under uPU the logistic loss stops
    earlier than the quadratic one."""
    X, y, s = pu_data(n=1500, d=8, n_lab=200, seed=2)
    nodes = {}
    for risk in ("upu", "nnpu"):
        for loss in ("quadratic", "logistic"):
            m = PUExtraTreesClassifier(n_estimators=5, risk=risk, loss=loss, prior=y.mean(), random_state=0).fit(X, s)
            nodes[(risk, loss)] = np.mean([t.node_count for t in m.trees_])
    for loss in ("quadratic", "logistic"):
        assert nodes[("upu", loss)] > 3 * nodes[("nnpu", loss)]
    assert nodes[("upu", "logistic")] < nodes[("upu", "quadratic")]


def test_pu_et_accuracy_above_90_percent_and_above_naive_pu_et_on_digits_parity():
    from sklearn.datasets import load_digits

    d = load_digits()
    X, y = d.data.astype(np.float32), (d.target % 2 == 0).astype(int)
    rng = np.random.default_rng(0)
    tr = rng.random(len(y)) < 0.75
    s = np.zeros(tr.sum(), int)
    s[rng.choice(np.flatnonzero(y[tr] == 1), 300, replace=False)] = 1
    m = PUExtraTreesClassifier(prior=y[tr].mean(), random_state=0, n_jobs=2).fit(X[tr], s)
    acc = (m.predict(X[~tr]) == y[~tr]).mean()
    assert acc > 0.9
    naive = NaivePUExtraTreesClassifier(random_state=0).fit(X[tr], s)
    assert acc > (naive.predict(X[~tr]) == y[~tr]).mean()


# ------------------------------------------------------------------ determinism

def test_same_forest_for_any_number_of_threads():
    X, y, s = pu_data()
    m1 = PUExtraTreesClassifier(n_estimators=12, prior=y.mean(), random_state=11, n_jobs=1).fit(X, s)
    m2 = PUExtraTreesClassifier(n_estimators=12, prior=y.mean(), random_state=11, n_jobs=2).fit(X, s)
    m4 = PUExtraTreesClassifier(n_estimators=12, prior=y.mean(), random_state=11, n_jobs=4).fit(X, s)
    assert len(m1.trees_) > 0  # an empty forest would pass the loop
    for a, b, c in zip(m1.trees_, m2.trees_, m4.trees_, strict=True):
        trees_equal(a, b)
        trees_equal(a, c)
    np.testing.assert_array_equal(m1.predict_proba(X), m4.predict_proba(X))


def test_same_forest_for_1_2_4_dask_workers():
    distributed = pytest.importorskip("distributed")
    X, y, s = pu_data()
    ref = PUExtraTreesClassifier(n_estimators=10, prior=y.mean(), random_state=5, use_dask=False).fit(X, s)
    for n_workers in (1, 2, 4):
        with distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=False,
                                      dashboard_address=None) as cluster, distributed.Client(cluster):
            m = PUExtraTreesClassifier(n_estimators=10, prior=y.mean(), random_state=5, use_dask=True).fit(X, s)
        assert len(ref.trees_) > 0  # an empty forest would pass the loop
        for a, b in zip(ref.trees_, m.trees_, strict=True):
            trees_equal(a, b)


@pytest.mark.slow
def test_dask_with_worker_processes():
    distributed = pytest.importorskip("distributed")
    X, y, s = pu_data()
    ref = PNExtraTreesClassifier(n_estimators=6, random_state=2, use_dask=False).fit(X, y)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        m = PNExtraTreesClassifier(n_estimators=6, random_state=2, use_dask=True).fit(X, y)
    assert len(ref.trees_) > 0  # an empty forest would pass the loop
    for a, b in zip(ref.trees_, m.trees_, strict=True):
        trees_equal(a, b)


def test_use_dask_true_without_client_is_an_error():
    X, y, s = pu_data()
    with pytest.raises(ValueError, match="no Dask client"):
        PUExtraTreesClassifier(n_estimators=2, prior=0.5, use_dask=True).fit(X, s)


# ------------------------------------------------------------------ API

def test_predictions_are_the_paper_vote_and_the_mean_clipped_leaf_value():
    X, y, s = pu_data()
    m = PUExtraTreesClassifier(n_estimators=9, prior=y.mean(), random_state=0).fit(X, s)
    p = m.predict_proba(X)
    assert p.shape == (len(X), 2)
    np.testing.assert_allclose(p.sum(1), 1.0)
    dec = m.decision_function(X)
    np.testing.assert_array_equal(m.predict(X), (dec > 0).astype(int))
    # majority vote of the trees' +-1 predictions (Proposition 4 leaves)
    votes = np.array([(t.leaf_values(X) > 0.5) for t in m.trees_]).sum(0)
    np.testing.assert_array_equal(m.predict(X), (votes > 9 / 2).astype(int))
    np.testing.assert_allclose(p[:, 1], np.mean([np.clip(t.leaf_values(X), 0, 1) for t in m.trees_], 0))
    # some leaves of nnPU trees have v* > 1: predict_proba clips them, the trees keep them
    assert max(t.value.max() for t in m.trees_) > 1.0
    assert m.prior_ == pytest.approx(y.mean()) and m.n_features_in_ == 6
    assert list(m.classes_) == [0, 1]
    from sklearn.base import clone

    assert clone(m).get_params() == m.get_params()
    assert m.feature_importances_normalized_.shape == (6,)


@pytest.mark.parametrize("kwargs,match", [
    ({"prior": 1.2}, "'prior' parameter"), ({"prior": 0.0}, "'prior' parameter"),
    ({"prior": "oracle"}, "'prior' parameter .* among .*tice"), ({"prior": None}, "prior is required"),
    ({"prior": 0.5, "n_thresholds": 0}, "'n_thresholds' parameter .* range"),
    ({"prior": 0.5, "risk": "pn"}, "'risk' parameter .*nnpu"),
    ({"prior": 0.5, "loss": "hinge"}, "'loss' parameter .*quadratic"),
    ({"prior": 0.5, "max_features": 0}, "'max_features' parameter"),
    ({"prior": 0.5, "max_features": 1.5}, "'max_features' parameter"),
    ({"prior": 0.5, "scenario": "sar"}, "'scenario' parameter .*case_control"),
    ({"prior": 0.5, "threshold_rule": "mid"}, "'threshold_rule' parameter .*authors"),
    ({"prior": 0.5, "feature_draw": "all"}, "'feature_draw' parameter .*nonconstant"),
    ({"prior": 0.5, "n_estimators": 0}, "'n_estimators' parameter"),
    ({"prior": 0.5, "max_depth": 0}, "'max_depth' parameter"),
    ({"prior": 0.5, "min_samples_split": 1}, "'min_samples_split' parameter"),
    ({"prior": 0.5, "bootstrap": "yes"}, "'bootstrap' parameter"),
    ({"prior": 0.5, "use_dask": "always"}, "'use_dask' parameter"),
    ({"prior": 0.5, "random_state": -1}, "'random_state' parameter"),
])
def test_invalid_parameters_raise_value_error_naming_them(kwargs, match):
    X, y, s = pu_data(n=50, n_lab=10)
    with pytest.raises(ValueError, match=match):
        PUExtraTreesClassifier(**kwargs).fit(X, s)


@pytest.mark.parametrize("est,match", [
    (PUDecisionTreeClassifier(prior=0.5, splitter="exact"), "'splitter' parameter .*best"),
    (PNDecisionTreeClassifier(criterion="pu_hellinger"), "'criterion' parameter .*entropy"),
    (PNExtraTreesClassifier(criterion="log_loss"), "'criterion' parameter .*gini"),
    (NaivePUExtraTreesClassifier(n_estimators=1.5), "'n_estimators' parameter"),
    (SupervisedExtraTreesClassifier(min_samples_leaf=0), "'min_samples_leaf' parameter"),
    (PUBaggingExtraTreesClassifier(max_samples=0.0), "'max_samples' parameter"),
    (PUBaggingExtraTreesClassifier(base_n_estimators=0), "'base_n_estimators' parameter"),
])
def test_every_tree_estimator_validates_its_parameters(est, match):
    X, y, s = pu_data(n=50, n_lab=10)
    with pytest.raises(ValueError, match=match):
        est.fit(X, s)


def test_input_validation():
    X, y, s = pu_data(n=50, n_lab=10)
    with pytest.raises(ValueError, match=r"s has no labeled positives \(no s == 1\): one class only"):
        PUExtraTreesClassifier(prior=0.5).fit(X, np.zeros(50, int))
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        PUExtraTreesClassifier(prior=0.5).fit(X, np.arange(50) % 3)
    with pytest.raises(ValueError, match="s must hold only 0 and 1"):
        PUExtraTreesClassifier(prior=0.5).fit(X, s + 1)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        PUExtraTreesClassifier(prior=0.5).fit(Xn, s)
    Xi = X.copy()
    Xi[0, 0] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        PUDecisionTreeClassifier(prior=0.5).fit(Xi, s)
    with pytest.raises(ValueError, match="entries but X has"):
        PUExtraTreesClassifier(prior=0.5).fit(X, s[:-1])
    m = PUExtraTreesClassifier(n_estimators=2, prior=0.5).fit(X, s)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :3])


def test_prior_estimator_object_is_cloned_fitted_and_its_prior_used():
    from pu_lib.baselines import ElkanNotoClassifier

    X, y, s = pu_data(n=400)
    given = ElkanNotoClassifier(random_state=0)
    m = PUExtraTreesClassifier(n_estimators=3, prior=given, random_state=0).fit(X, s)
    assert not hasattr(given, "prior_")                        # the argument is not fitted
    assert m.prior_estimator_ is not given
    assert m.prior_ == pytest.approx(m.prior_estimator_.prior_)
    assert abs(m.prior_ - y.mean()) < 0.15


def test_supervised_et_fits_y_true_naive_pu_et_fits_s_and_pu_bagging_ranks_unlabeled_positives():
    from sklearn.metrics import roc_auc_score

    X, y, s = pu_data(n=800)
    # SupervisedET trains on y_true when given (the runner passes it), else on the second argument
    sup = SupervisedExtraTreesClassifier(n_estimators=20, random_state=0).fit(X, s, y_true=y)
    assert (sup.predict(X) == y).mean() == 1.0
    np.testing.assert_array_equal(
        SupervisedExtraTreesClassifier(n_estimators=20, random_state=0).fit(X, y).predict_proba(X),
        sup.predict_proba(X))
    naive = NaivePUExtraTreesClassifier(n_estimators=20, random_state=0).fit(X, s)
    ref = PNExtraTreesClassifier(n_estimators=20, random_state=0).fit(X, s)
    np.testing.assert_array_equal(naive.predict_proba(X), ref.predict_proba(X))
    assert roc_auc_score(y, sup.predict_proba(X)[:, 1]) > roc_auc_score(y, naive.predict_proba(X)[:, 1])
    bag = PUBaggingExtraTreesClassifier(n_estimators=4, base_n_estimators=10, random_state=0).fit(X, s)
    assert len(bag.estimators_) == 4 and bag.oob_decision_.shape == ((s == 0).sum(),)
    assert all(isinstance(e, PNExtraTreesClassifier) and len(e.trees_) == 10 for e in bag.estimators_)
    np.testing.assert_allclose(bag.predict_proba(X)[:, 1],
                               np.mean([e.predict_proba(X)[:, 1] for e in bag.estimators_], axis=0))
    # PU bagging ranks positives above negatives among the unlabeled rows (out of bag)
    ok = ~np.isnan(bag.oob_decision_)
    assert roc_auc_score(y[s == 0][ok], bag.oob_decision_[ok]) > 0.8
    # the seed fixes the bags: the same seed refits the same model, another seed another one
    b2 = PUBaggingExtraTreesClassifier(n_estimators=4, base_n_estimators=10, random_state=0).fit(X, s)
    np.testing.assert_array_equal(b2.predict_proba(X), bag.predict_proba(X))
    b3 = PUBaggingExtraTreesClassifier(n_estimators=4, base_n_estimators=10, random_state=1).fit(X, s)
    assert not np.array_equal(b3.predict_proba(X), bag.predict_proba(X))


def test_fit_inputs_only_supervised_et_requests_y_true():
    from pu_lib.base import fit_inputs

    assert fit_inputs(SupervisedExtraTreesClassifier()) == {"y_true"}
    for cls in (PUDecisionTreeClassifier, PUExtraTreesClassifier, PNDecisionTreeClassifier, PNExtraTreesClassifier,
                NaivePUExtraTreesClassifier, PUBaggingExtraTreesClassifier):
        assert fit_inputs(cls()) == frozenset(), cls.__name__


def test_tree_baselines_live_in_pu_lib_baselines_only():
    import pu_lib.baselines
    import pu_lib.trees

    for name in ("SupervisedExtraTreesClassifier", "NaivePUExtraTreesClassifier", "PUBaggingExtraTreesClassifier"):
        assert name in pu_lib.baselines.__all__
        assert not hasattr(pu_lib.trees, name)


def test_importance_maps_on_digits_are_nonnegative_pu_like_pn_and_fixed_by_the_seed(tmp_path):
    from sklearn.datasets import load_digits

    from pu_lib.workflow.figures import save_figure
    from pu_lib.trees.importance_maps import digit_importances, importance_figure

    d = load_digits()
    imp = digit_importances(d.data, d.target, positive_digits=[0, 1], n_labeled=100, n_estimators=20,
                            random_state=0, n_jobs=2)
    assert sorted(imp) == [0, 1]
    for k in (0, 1):
        for key in ("pu_raw", "pu_normalized", "pn_raw", "pn_normalized"):
            assert imp[k][key].shape == (64,) and np.all(imp[k][key] >= 0)
        # the PU model's importances resemble the PN model's (Section 5.2)
        assert np.corrcoef(imp[k]["pu_raw"], imp[k]["pn_raw"])[0, 1] > 0.5
    # the seed fixes the maps, whatever the number of threads; another seed changes them
    again = digit_importances(d.data, d.target, positive_digits=[0], n_labeled=100, n_estimators=20, random_state=0)
    np.testing.assert_array_equal(again[0]["pu_raw"], imp[0]["pu_raw"])
    other = digit_importances(d.data, d.target, positive_digits=[0], n_labeled=100, n_estimators=20, random_state=1)
    assert not np.array_equal(other[0]["pu_raw"], imp[0]["pu_raw"])
    fig = importance_figure(imp, "normalized", shape=(8, 8))
    save_figure(fig, [tmp_path / "m.png"])
    assert (tmp_path / "m.png").read_bytes()[:4] == b"\x89PNG"


def test_feature_draw_rules():
    X, y, s = pu_data()
    # without constant features the two rules draw and evaluate the same features
    a = PNExtraTreesClassifier(n_estimators=3, feature_draw="any", max_features=2, random_state=4).fit(X, y)
    b = PNExtraTreesClassifier(n_estimators=3, feature_draw="nonconstant", max_features=2, random_state=4).fit(X, y)
    assert len(a.trees_) > 0  # an empty forest would pass the loop
    for ta, tb in zip(a.trees_, b.trees_, strict=True):
        trees_equal(ta, tb)
    # with many constant features, scikit-learn's rule evaluates fewer features per node
    Xc = np.hstack([X, np.zeros((len(X), 30), np.float32)])
    a = PNExtraTreesClassifier(n_estimators=5, feature_draw="any", max_features=6, random_state=4).fit(Xc, y)
    b = PNExtraTreesClassifier(n_estimators=5, feature_draw="nonconstant", max_features=6, random_state=4).fit(Xc, y)
    assert any(ta.node_count != tb.node_count for ta, tb in zip(a.trees_, b.trees_, strict=True))
    assert PUExtraTreesClassifier().feature_draw == "nonconstant"      # the paper's Algorithm 5
    assert PNExtraTreesClassifier().feature_draw == "any"              # scikit-learn's ExtraTrees
    with pytest.raises(ValueError, match="feature_draw"):
        PUExtraTreesClassifier(prior=0.5, feature_draw="all").fit(X, s)


def test_layout_does_not_change_the_forest():
    X, y, s = pu_data()
    a = PUExtraTreesClassifier(n_estimators=4, prior=y.mean(), random_state=9).fit(np.ascontiguousarray(X), s)
    b = PUExtraTreesClassifier(n_estimators=4, prior=y.mean(), random_state=9).fit(np.asfortranarray(X), s)
    c = PUExtraTreesClassifier(n_estimators=4, prior=y.mean(), random_state=9).fit(X.astype(np.float64), s)
    assert len(a.trees_) > 0  # an empty forest would pass the loop
    for ta, tb, tc in zip(a.trees_, b.trees_, c.trees_, strict=True):
        trees_equal(ta, tb)
        trees_equal(ta, tc)


@pytest.mark.parametrize("shape", [(1, 1), (1, 130), (130, 1), (63, 65), (200, 129), (0, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_column_major_copy_equals_numpy(shape, dtype):
    from pu_lib.trees._builder import column_major_copy

    X = np.random.default_rng(0).normal(size=shape).astype(dtype)
    out = column_major_copy(X)
    assert out.flags.f_contiguous and out.dtype == X.dtype
    np.testing.assert_array_equal(out, X)
    strided = np.random.default_rng(1).normal(size=(50, 80)).astype(dtype)[::2, 1::3]  # neither layout
    np.testing.assert_array_equal(column_major_copy(strided), strided)
    assert column_major_copy(strided).flags.f_contiguous
