"""Split criteria of the tree engine (compiled with numba), looked up by name.

**Node statistics.** Every example carries two weights: ``a_i`` (its contribution to the
node's positive weight) and ``u_i`` (its contribution to the node's total weight). A
node's sufficient statistics are ``Wp = sum a_i`` and ``W = sum u_i``; ``Wn = W - Wp``.
With per-row sample weights ``sw_i`` (``sample_weight`` of ``fit``; all ones by default)
this covers:

* **PU, single-training-set** (P is a subset of U, the Wilton et al. 2022 protocol):
  labeled rows ``a = sw w_p`` with ``w_p = pi / sum_{s=1} sw``, every row
  ``u = sw w_u`` with ``w_u = 1 / sum sw``; unlabeled rows ``a = 0``. Unweighted,
  ``w_p = pi / n_p``, ``w_u = 1 / n``, and ``W = |U'| w_u``, ``Wn = |U'| w_u - |P'| w_p``
  exactly as in Proposition 1 of the paper.
* **PU, case-control** (P and U independent samples): labeled rows
  ``a = sw pi / sum_{s=1} sw``, ``u = 0``; unlabeled rows ``a = 0``,
  ``u = sw / sum_{s=0} sw``.
* **PN** (fully labeled): ``u = sw / sum sw`` on every row, ``a = u`` on the positives and
  ``0`` on the negatives, so ``Wp`` / ``Wn`` are the weights of the positives / negatives.

An integer sample weight ``k`` therefore gives a row the node weights of ``k`` copies of
it, and a zero weight none (the builder drops such rows before growing a tree).

**Impurity and improvement.** A criterion maps a node's ``(Wp, W)`` to its *impurity*
(:func:`node_impurity`) and a split to its *improvement* (:func:`split_improvement`); the
tree stores both per node (``Tree.impurity``, ``Tree.improvement``) and the feature
importances sum the improvements. For the PU criteria the impurity is the paper's minimum
partial risk ``R*`` of a constant prediction on the node and the improvement its risk
reduction ``RR = R*(parent) - R*(left) - R*(right)`` (eqs. 7 and 10). For Gini and entropy
they are the weighted impurity ``W G(p)`` / ``W H(p)`` and its decrease, which Theorem 1
relates to the quadratic / logistic risk reductions.

**The criterion table.** :data:`CRITERIA` maps each criterion *name* to its integer code
(what the compiled builder receives), its kind (``"pu"``: a PU risk for ``fit(X, s)`` with a
class prior, named ``f"{risk}_{loss}"``; ``"pu_count"``: a PU criterion on estimated class
counts, also with a prior; ``"pn"``: for fully labeled data) and a short description, as scikit-learn maps
criterion names to classes. PU trees take the paper's parameters ``risk`` and ``loss`` and
look up ``f"{risk}_{loss}"``; PN trees look up their ``criterion`` parameter
(:func:`criterion_code`). The estimators' allowed parameter values are read from this
table.

**Adding a criterion** = one :data:`CRITERIA` entry (a new code) plus its branches in the
compiled node formulas: :func:`node_impurity` and :func:`is_pure` always, and
:func:`split_improvement` when the split's improvement is not a difference of node
impurities (e.g. a Hellinger-distance criterion, whose gain compares the children's class
distributions directly: give it its own branch there, before the generic difference).
The builder only calls :func:`node_impurity`, :func:`is_pure`, :func:`split_improvement`
and :func:`node_value`.

**The formulas** (paper: Wilton, Koay, Ko, Xu, Ye, "Positive-Unlabeled Learning using
Random Forests via Recursive Greedy Risk Minimization", NeurIPS 2022):

==========  ============================================================================
code        impurity(Wp, W); for PU: the minimum partial risk R*, with v* = Wp / W
==========  ============================================================================
UPU_QUAD    eq. (11), Prop. 1a: -inf if W = 0 (v* = +inf), else 4 W v*(1 - v*)
UPU_LOG     eq. (12), Prop. 1b: W H(v*) for 0 < v* < 1, 0 at v* in {0, 1}, -inf if v* > 1
UPU_SIG     eq. (16), Prop. 5: min(Wp, Wn) (sigmoid loss)
UPU_SAV     savage loss: 4 Wp Wn / W (= 4 W v*(1 - v*), Prop. 3) when Wn >= 0; 4 Wn when
            Wn < 0 (the infimum, approached as v -> +inf)
NNPU_QUAD   eq. (13), Prop. 2a: 0 if v* > 1, else 4 W v*(1 - v*)
NNPU_LOG    eq. (14), Prop. 2b: W H(v*) for 0 < v* < 1, else 0
NNPU_SIG    nnPU version of eq. (16): min(Wp, max(Wn, 0)) (derived like Prop. 5: for
            Wn < 0 the max{0, .} term vanishes and inf_v Wp / (1 + e^v) = 0)
GINI        W G(p), G = 1 - p^2 - (1-p)^2 = 2 p (1 - p): the weighted Gini impurity.
            By Theorem 1a, R*_quad = 2 W G, so Gini improvements are half the quadratic
            risk reductions (same splits).
ENTROPY     W H(p) with the natural logarithm: by Theorem 1b equal to R*_logistic.
HELLINGER   no impurity (0); improvement W * HD, HD the Hellinger distance of eq. (1) of
            the PU-HDT paper (Ortega Vazquez, vanden Broucke, De Weerdt) between the
            children's positive (Wp) and negative (W - Wp) distributions
PU_HELL.    as HELLINGER on the estimated counts P = min(Wp, W), N = W - P (PU-HDT
            eqs. 2-3, :func:`hellinger_counts`)
PU_HELL_A.  as PU_HELL., but a split whose children hold no estimated negatives (N = 0)
            scores HD = 1 instead of never being chosen: the authors' code (their
            ``n_neg = 1.0`` when it is 0, ``_pu_criterion.pyx`` L562-563)
==========  ============================================================================

The savage loss: Proposition 3 shows R*_savage = R*_quadratic for PN weights (q+, q- >= 0).
It carries over to nnPU exactly (for Wn < 0 both are 0), so ``"nnpu_savage"`` has the
``NNPU_QUAD`` code and grows identical trees. For uPU it holds only on nodes with
Wn >= 0 (v* <= 1): with Wn < 0 the savage risk Wp 4/(1+e^v)^2 + Wn 4/(1+e^-v)^2 falls
to 4 Wn as v -> +inf, while the quadratic closed form is 4 Wp Wn / W. So ``"upu_savage"``
has its own code (``UPU_SAV``); this is our derivation, checked numerically in the tests.
``H(v) = -v ln v - (1 - v) ln(1 - v)``.

Purity (the paper's termination rule "pure if the impurity is -inf for uPU or 0 for
nnPU"): ``UPU_QUAD`` / ``UPU_LOG`` nodes are pure at R* = -inf, ``NNPU_*`` nodes at R* = 0,
Gini / entropy nodes at zero impurity, and ``UPU_SIG`` / ``UPU_SAV`` nodes (never -inf)
when they hold no positive weight (then no split can change R*). ``HELLINGER`` nodes are
pure with one class only; ``PU_HELLINGER`` (and ``PU_HELLINGER_AUTHORS``) nodes without
labeled rows (PU-HDT paper, Section 3.1: "a node without labeled examples cannot be split").
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

UPU_QUAD = 0
UPU_LOG = 1
UPU_SIG = 2
NNPU_QUAD = 3
NNPU_LOG = 4
NNPU_SIG = 5
GINI = 6
ENTROPY = 7
UPU_SAV = 8
HELLINGER = 9
PU_HELLINGER = 10
PU_HELLINGER_AUTHORS = 11


class Criterion(NamedTuple):
    """One entry of :data:`CRITERIA`."""

    code: int
    kind: str  # "pu" (risk criteria: f"{risk}_{loss}"), "pu_count" (estimated counts) or "pn"
    description: str


#: criterion name -> (code, kind, description). PU names are ``f"{risk}_{loss}"``.
CRITERIA: dict[str, Criterion] = {
    "upu_quadratic": Criterion(UPU_QUAD, "pu", "uPU risk, quadratic loss (eq. 11, Prop. 1a)"),
    "upu_logistic": Criterion(UPU_LOG, "pu", "uPU risk, logistic loss (eq. 12, Prop. 1b)"),
    "upu_savage": Criterion(UPU_SAV, "pu", "uPU risk, savage loss (Prop. 3 where Wn >= 0; 4 Wn below)"),
    "upu_sigmoid": Criterion(UPU_SIG, "pu", "uPU risk, sigmoid loss (eq. 16, Prop. 5)"),
    "nnpu_quadratic": Criterion(NNPU_QUAD, "pu", "nnPU risk, quadratic loss (eq. 13, Prop. 2a)"),
    "nnpu_logistic": Criterion(NNPU_LOG, "pu", "nnPU risk, logistic loss (eq. 14, Prop. 2b)"),
    "nnpu_savage": Criterion(NNPU_QUAD, "pu", "nnPU risk, savage loss = nnPU quadratic (Prop. 3)"),
    "nnpu_sigmoid": Criterion(NNPU_SIG, "pu", "nnPU risk, sigmoid loss (nnPU form of eq. 16)"),
    "gini": Criterion(GINI, "pn", "weighted Gini impurity (half the quadratic risk, Theorem 1a)"),
    "entropy": Criterion(ENTROPY, "pn", "weighted entropy in nats (= logistic risk, Theorem 1b)"),
    "hellinger": Criterion(HELLINGER, "pn", "Hellinger distance of the children's class distributions "
                                            "(Cieslak & Chawla 2008; PU-HDT paper eq. 1)"),
    "pu_hellinger": Criterion(PU_HELLINGER, "pu_count", "Hellinger distance on the estimated counts "
                                                        "P = min(L alpha / Pr(l=1), T), N = T - P (PU-HDT eqs. 1-3)"),
    "pu_hellinger_authors": Criterion(PU_HELLINGER_AUTHORS, "pu_count",
                                      "pu_hellinger with the authors' code's N = 0 rule: such a split scores HD = 1"),
}

#: the PU trees' ``risk`` and ``loss`` values, read from :data:`CRITERIA`
PU_RISKS = tuple(dict.fromkeys(n.split("_")[0] for n, c in CRITERIA.items() if c.kind == "pu"))
LOSSES = tuple(dict.fromkeys(n.split("_", 1)[1] for n, c in CRITERIA.items() if c.kind == "pu"))
#: the PN trees' ``criterion`` values
PN_CRITERIA = tuple(n for n, c in CRITERIA.items() if c.kind == "pn")


def criterion_code(name: str, kind: str | None = None) -> int:
    """The integer code of the criterion ``name`` (of ``kind`` when given); ``ValueError``
    naming the known criteria otherwise."""
    entry = CRITERIA.get(name) if isinstance(name, str) else None
    if entry is None or (kind is not None and entry.kind != kind):
        known = [n for n, c in CRITERIA.items() if kind is None or c.kind == kind]
        raise ValueError(f"unknown {kind + ' ' if kind else ''}criterion {name!r}; known: {known}")
    return entry.code


def pu_criterion_code(risk: str, loss: str) -> int:
    """The code of the PU criterion ``f"{risk}_{loss}"``."""
    return criterion_code(f"{risk}_{loss}", "pu")


NEG_INF = -np.inf
#: relative size below which a Hellinger criterion's class count is a rounding residue (0)
HD_TOL = 1e-9


@njit(cache=True, nogil=True)
def _h(v):
    """Binary entropy in nats for 0 < v < 1."""
    return -v * math.log(v) - (1.0 - v) * math.log(1.0 - v)


@njit(cache=True, nogil=True)
def node_value(wp, w):
    """v* = Wp / (Wp + Wn) = Wp / W; +inf when W = 0 and Wp > 0, 0 for an empty node."""
    if w > 0.0:
        return wp / w
    if wp > 0.0:
        return np.inf
    return 0.0


@njit(cache=True, nogil=True)
def node_impurity(crit, wp, w):
    """Impurity of a node; for the PU criteria the minimum partial risk R*(P', U')
    (see the module table)."""
    wn = w - wp
    if crit == UPU_QUAD:
        if w <= 0.0:
            return NEG_INF if wp > 0.0 else 0.0
        v = wp / w
        return 4.0 * w * v * (1.0 - v)
    if crit == NNPU_QUAD:
        if w <= 0.0:
            return 0.0
        v = wp / w
        if v > 1.0:
            return 0.0
        return 4.0 * w * v * (1.0 - v)
    if crit == UPU_LOG:
        if w <= 0.0:
            return NEG_INF if wp > 0.0 else 0.0
        v = wp / w
        if v > 1.0:
            return NEG_INF
        if v <= 0.0 or v >= 1.0:
            return 0.0
        return w * _h(v)
    if crit == NNPU_LOG:
        if w <= 0.0:
            return 0.0
        v = wp / w
        if v <= 0.0 or v >= 1.0:
            return 0.0
        return w * _h(v)
    if crit == UPU_SAV:
        if wn < 0.0:
            return 4.0 * wn
        if w <= 0.0:
            return 0.0
        return 4.0 * wp * wn / w
    if crit == UPU_SIG:
        return min(wp, wn)
    if crit == NNPU_SIG:
        return min(wp, max(wn, 0.0))
    if crit == GINI:
        if w <= 0.0:
            return 0.0
        p = wp / w
        return w * 2.0 * p * (1.0 - p)
    if crit == ENTROPY:
        if w <= 0.0:
            return 0.0
        p = wp / w
        if p <= 0.0 or p >= 1.0:
            return 0.0
        return w * _h(p)
    if crit == HELLINGER or crit == PU_HELLINGER or crit == PU_HELLINGER_AUTHORS:
        return 0.0  # a distance between children, no node impurity
    return np.nan


@njit(cache=True, nogil=True)
def hellinger_counts(crit, wp, w):
    """``(P, N)``: a node's positive and negative mass under a Hellinger criterion.

    ``HELLINGER`` (PN): ``P = Wp``, ``N = W - Wp``. ``PU_HELLINGER``: eqs. (2)-(3) of the
    PU-HDT paper, ``P_hat = min(L alpha / Pr(l = 1), T)``, ``N_hat = T - P_hat``. With the
    single-training-set weights (``a = alpha / n_L`` on labeled rows, ``u = 1 / n`` on all
    rows) ``Wp = alpha L / n_L`` and ``W = T / n``, so ``n min(Wp, W) = min(L alpha n / n_L,
    T) = P_hat`` exactly (``Pr(l = 1) = n_L / n``); the common factor ``n`` cancels in the
    Hellinger distance. With the case-control weights the same formula caps the labeled
    sample's positive mass ``alpha L / n_L`` at the node's unlabeled mass ``U / n_U``.
    Counts below ``HD_TOL`` times the node's weight are rounding residues, returned as 0.
    """
    p = min(wp, w) if (crit == PU_HELLINGER or crit == PU_HELLINGER_AUTHORS) else wp
    n = w - p
    # The split scan computes a right child's sums as parent - left, which leaves rounding
    # residues of ~1e-17 where a count is 0, and sqrt(residue) in eq. 1 would turn them
    # into errors of ~1e-9: counts below HD_TOL times the node's weight are zero.
    tol = HD_TOL * (abs(w) + abs(wp))
    if p < tol:
        p = 0.0
    if n < tol:
        n = 0.0
    return p, n


@njit(cache=True, nogil=True)
def hellinger_distance(p_l, n_l, p_r, n_r):
    """Hellinger distance of a split (PU-HDT paper eq. 1; Algorithm 1, lines 22-29):
    ``sqrt((sqrt(N_l/N) - sqrt(P_l/P))^2 + (sqrt(N_r/N) - sqrt(P_r/P))^2)`` with
    ``P = P_l + P_r`` and ``N = N_l + N_r`` (the sums over the children, as Algorithm 1).
    ``-inf`` when ``P = 0`` or ``N = 0``: such a split says nothing about one of the two
    distributions and is never chosen (the authors' code scores ``N = 0`` as 1; see
    :mod:`pu_lib.trees.hellinger`). In [0, sqrt(2)]."""
    p = p_l + p_r
    n = n_l + n_r
    if not (p > 0.0 and n > 0.0):
        return NEG_INF
    dl = math.sqrt(n_l / n) - math.sqrt(p_l / p)
    dr = math.sqrt(n_r / n) - math.sqrt(p_r / p)
    return math.sqrt(dl * dl + dr * dr)


@njit(cache=True, nogil=True)
def is_pure(crit, wp, w, impurity):
    """The paper's purity rule: no split can lower this node's impurity any further."""
    if crit == UPU_QUAD or crit == UPU_LOG:
        return impurity == NEG_INF
    if crit == UPU_SIG or crit == UPU_SAV:
        return wp <= 0.0  # bounded losses: never -inf; without positives R* = 0 everywhere below
    if crit == PU_HELLINGER or crit == PU_HELLINGER_AUTHORS:
        return wp <= 0.0  # "a node without labeled examples cannot be split" (no P_hat anywhere below)
    if crit == HELLINGER:
        return wp <= 0.0 or wp >= w  # one class only
    # nnPU risks and impurities are >= 0 and reach 0 only at pure nodes.
    return impurity <= 0.0


@njit(cache=True, nogil=True)
def split_improvement(crit, parent_impurity, wp_l, w_l, wp_r, w_r):
    """Improvement of a split: for every criterion except the Hellinger ones the impurity decrease
    ``impurity(parent) - impurity(left) - impurity(right)``, for the PU criteria the risk
    reduction RR (eq. 7 / eq. 10). A criterion whose gain is not such a difference gets
    its own branch here, before the generic one.

    A child with impurity -inf gives +inf (the parent is never -inf: it would be pure).

    Hellinger criteria: ``W * HD``, the node's total weight ``W = W_l + W_r`` times the
    split's Hellinger distance (:func:`hellinger_distance`): the split maximises HD
    (Algorithm 1), and the weight makes the summed improvements a size-weighted feature
    importance, as scikit-learn weights impurity decreases by the node's share of the
    samples. ``-inf`` (never chosen) when HD is undefined, except that
    ``PU_HELLINGER_AUTHORS`` scores a split with positives but no estimated negatives as
    HD = 1 (the authors' code: ``N = 0`` replaced by 1 makes both negative terms 0, and the
    positive shares sum to 1).
    """
    if crit == HELLINGER or crit == PU_HELLINGER or crit == PU_HELLINGER_AUTHORS:
        p_l, n_l = hellinger_counts(crit, wp_l, w_l)
        p_r, n_r = hellinger_counts(crit, wp_r, w_r)
        hd = hellinger_distance(p_l, n_l, p_r, n_r)
        if hd == NEG_INF:
            if crit == PU_HELLINGER_AUTHORS and p_l + p_r > 0.0:
                return w_l + w_r  # HD = 1
            return NEG_INF
        return (w_l + w_r) * hd
    il = node_impurity(crit, wp_l, w_l)
    ir = node_impurity(crit, wp_r, w_r)
    if il == NEG_INF or ir == NEG_INF:
        return np.inf
    return parent_impurity - il - ir
