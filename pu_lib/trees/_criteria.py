"""Split criteria of the tree engine (compiled with numba).

Every example carries two weights: ``a_i`` (its contribution to the node's positive
weight) and ``u_i`` (its contribution to the node's total weight). A node's sufficient
statistics are ``Wp = sum a_i`` and ``W = sum u_i``; ``Wn = W - Wp``. This covers:

* **PU, single-training-set** (P is a subset of U, Wilton et al. 2022 protocol): labeled
  rows ``a = w_p = pi / n_p``, ``u = w_u = 1 / n``; unlabeled rows ``a = 0``,
  ``u = 1 / n``. Then ``W = |U'| w_u`` and ``Wn = |U'| w_u - |P'| w_p`` exactly as in
  Proposition 1 of the paper.
* **PU, case-control** (P and U independent samples): labeled rows ``a = pi / n_p``,
  ``u = 0``; unlabeled rows ``a = 0``, ``u = 1 / n_u``.
* **PN** (fully labeled): positives ``a = u = 1 / n``, negatives ``a = 0, u = 1 / n``,
  so ``Wp`` / ``Wn`` are the weights of the positives / negatives.

A criterion maps ``(Wp, W)`` to a node "risk" ``R*`` and a split to its reduction
``R*(parent) - R*(left) - R*(right)``. The splitter only calls :func:`split_gain`,
:func:`node_risk` and :func:`is_pure`; a criterion whose gain is not a difference of
node risks (e.g. a Hellinger distance) only needs its own branch in :func:`split_gain`.

Criteria (paper: Wilton, Koay, Ko, Xu, Ye, "Positive-Unlabeled Learning using Random
Forests via Recursive Greedy Risk Minimization", NeurIPS 2022):

==========  ============================================================================
code        minimum partial risk R*(Wp, W), with v* = Wp / W
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
            By Theorem 1a, R*_quad = 2 W G, so Gini reductions are half the quadratic
            risk reductions (same splits).
ENTROPY     W H(p) with the natural logarithm: by Theorem 1b equal to R*_logistic.
==========  ============================================================================

The savage loss: Proposition 3 shows R*_savage = R*_quadratic for PN weights (q+, q- >= 0).
It carries over to nnPU exactly (for Wn < 0 both are 0), so nnPU + savage uses the
``NNPU_QUAD`` code and grows identical trees. For uPU it holds only on nodes with
Wn >= 0 (v* <= 1): with Wn < 0 the savage risk Wp 4/(1+e^v)^2 + Wn 4/(1+e^-v)^2 falls
to 4 Wn as v -> +inf, while the quadratic closed form is 4 Wp Wn / W. So uPU + savage has
its own code (``UPU_SAV``); this is our derivation, checked numerically in the tests.
``H(v) = -v ln v - (1 - v) ln(1 - v)``.

Purity (the paper's termination rule "pure if the impurity is -inf for uPU or 0 for
nnPU"): ``UPU_QUAD`` / ``UPU_LOG`` nodes are pure at R* = -inf, ``NNPU_*`` nodes at R* = 0,
Gini / entropy nodes at zero impurity, and ``UPU_SIG`` nodes (never -inf) when they hold
no positive weight (then no split can change R* = 0).
"""

from __future__ import annotations

import math

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

#: (risk, loss) -> criterion code. nnPU with the savage loss is nnPU with the quadratic
#: loss (Proposition 3); uPU savage differs from uPU quadratic on nodes with v* > 1.
PU_CRITERIA = {
    ("upu", "quadratic"): UPU_QUAD,
    ("upu", "savage"): UPU_SAV,
    ("nnpu", "savage"): NNPU_QUAD,
    ("upu", "logistic"): UPU_LOG,
    ("upu", "sigmoid"): UPU_SIG,
    ("nnpu", "quadratic"): NNPU_QUAD,
    ("nnpu", "logistic"): NNPU_LOG,
    ("nnpu", "sigmoid"): NNPU_SIG,
}
PN_CRITERIA = {"gini": GINI, "entropy": ENTROPY}
LOSSES = ("quadratic", "logistic", "savage", "sigmoid")

NEG_INF = -np.inf


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
def node_risk(crit, wp, w):
    """Minimum partial risk R*(P', U') of a node (see the module table)."""
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
    return np.nan


@njit(cache=True, nogil=True)
def is_pure(crit, wp, w, risk):
    """The paper's purity rule: no split can lower this node's risk any further."""
    if crit == UPU_QUAD or crit == UPU_LOG:
        return risk == NEG_INF
    if crit == UPU_SIG or crit == UPU_SAV:
        return wp <= 0.0  # bounded losses: never -inf; without positives R* = 0 everywhere below
    # nnPU risks and impurities are >= 0 and reach 0 only at pure nodes.
    return risk <= 0.0


@njit(cache=True, nogil=True)
def split_gain(crit, parent_risk, wp_l, w_l, wp_r, w_r):
    """Risk reduction RR = R*(parent) - R*(left) - R*(right) (eq. 7 / eq. 10).

    A child with R* = -inf gives RR = +inf (the parent is never -inf: it would be pure).
    """
    rl = node_risk(crit, wp_l, w_l)
    rr = node_risk(crit, wp_r, w_r)
    if rl == NEG_INF or rr == NEG_INF:
        return np.inf
    return parent_risk - rl - rr
