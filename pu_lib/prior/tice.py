"""TIcE: Tree Induction for c Estimation (Bekker & Davis, AAAI 2018; Bekker PhD thesis,
chapter 3, Algorithm 1).

Under SCAR the label frequency ``c = Pr(s=1 | y=1)`` is the same in every subdomain
``A`` of the attributes (eq. 3.1), so ``c = Pr(s=1 | A) / Pr(y=1 | A)`` (eq. 3.2) and
``c >= Pr(s=1 | A)`` (eq. 3.3), with equality in a purely positive subdomain. With ``L``
labeled among ``T`` examples of a subset, the one-sided Chebyshev inequality gives the
probabilistic lower bound (eq. 3.4)

    c_low = L / T - sqrt(c_prior (1 - c_prior) (1 - delta) / (delta T)),

which with the worst case ``c_prior = 0.5`` is eq. 3.5, ``L/T - 0.5 sqrt((1-delta)/(delta T))``.
TIcE looks for (almost) purely positive subdomains by growing a decision tree on one part
of the data (the *tree data*) and evaluates the bound of every subdomain it creates on the
other part (the *estimation data*), so that the subset selection does not bias the bound
(section 3.1.2). The estimate is the largest bound found (section 3.1.3, "Max c_low"),
averaged over folds, and the whole procedure is run twice, the second time with
``c_prior`` = the first estimate (Algorithm 1, lines 1-2 and 17; "Tighter bound with c").
The authors' released code, which produced the thesis' numbers, computes the bounds on the
tree data instead; that is the default here (``bound_data="tree"``; see "bound_data"
below), and ``bound_data="estimation"`` is Algorithm 1 as written.

Algorithm 1 as implemented here, per pass and per fold (tree data = fold ``i``,
estimation data = the other ``n_folds - 1`` folds):

1. ``delta`` from eq. 3.6 on the number of estimation rows (line 5; :func:`tice_delta`);
2. ``c_best = L/T`` of the whole estimation data (line 6);
3. a priority queue (a binary heap) of nodes, each a pair (tree rows, estimation rows),
   keyed on the lower bound (eq. 3.4) computed on the node's **tree** rows (line 9);
   ties are broken by the larger labeled count of the tree rows, then by creation order
   (earlier first) -- the first two keys are those of the authors' implementation, the
   third makes the order total and deterministic;
4. at most ``max_splits`` times (line 8): pop the best node; choose the attribute by
   max-bepp on its tree rows, ``a* = argmax_a max_v L(S_t: a=v) / (T(S_t: a=v) + k)``
   (line 11; ties -> the lowest attribute index); for every value ``v`` of ``a*``
   compute ``c_low`` on the child's **estimation** rows (with ``bound_data="tree"``, the
   default: on its **tree** rows) and set
   ``c_best = max(c_best, c_low)`` (lines 12-15), and enqueue the child (line 13);
5. the fold's estimate is ``c_best``; the pass's estimate the mean over folds (line 17).

Choices where the thesis is vague (each follows the authors' implementation unless said
otherwise):

* **Features** (section 3.3.1/3.3.2): every feature is min-max scaled to [0, 1] on the
  training ``X``. A numeric feature is split into ``n_bins`` equal-width ranges with cut
  points ``j / n_bins`` (bin ``min(floor(n_bins z), n_bins - 1)`` of the scaled value
  ``z``); a value equal to a cut point goes to the upper range, so for ``n_bins = 4`` the
  children are exactly ``z < 0.25``, ``0.25 <= z < 0.5``, ``0.5 <= z < 0.75`` and
  ``z >= 0.75`` (the authors' ``x < border`` tests; see :func:`bin_features`). A feature
  with exactly two distinct values (a binarised multi-valued attribute) splits into its
  two values. Constant features never split and are dropped. The bins are computed once
  (a ``uint8`` matrix, one row per example, so that all attributes of a row are read from
  one cache line when a node is counted).
* **Path attributes**: an attribute used on the path to a node is not a candidate at that
  node (a binned attribute is pure within a child, so splitting on it again is useless).
* **Genuine splits only**: an attribute whose bins leave all of the node's tree rows in
  one child is not a candidate (the tree data gives no evidence for such a "split"; the
  authors' code discards nodes whose split is trivial on the estimation data). A popped
  node with no candidate is a leaf and does not count against ``max_splits``; so
  ``n_splits_`` counts actual splits.
* **Which nodes are enqueued** (split-eligible): a child is enqueued only if its tree rows
  number at least ``min_node_size`` (the authors' ``minT = 10``), are neither all
  unlabeled (max-bepp would be 0 for every attribute) nor all labeled (the authors'
  purity stop criterion), and an unused attribute remains. The root is treated alike.
* **c_low of small children**: a child with fewer than ``min_node_size`` estimation rows
  gets no ``c_low`` (the authors' ``low_c`` returns 0 for ``T < minT``, which can never
  raise ``c_best >= 0``); in particular children without estimation rows give none. Every
  other child of every split gets one, whether or not it is enqueued.
* **Most promising variant** (``variant="most_promising"``, sections 3.1.3 and 3.3.2): the
  tree is grown exactly as for ``"max"``; among all nodes visited (the root and every
  child created by a split that has tree rows) the one with the highest lower bound on its
  **tree** rows is the most promising subdomain (ties -> the first visited); the fold's
  estimate is ``max(L/T of the estimation data, c_low of that node's estimation rows)``.
  Since that node's ``c_low`` is one of those the ``"max"`` variant maximises over (or the
  root's, which is below ``L/T``), with the same ``c_prior`` and folds the most promising
  estimate of a fold never exceeds the ``"max"`` estimate. (In the second pass the two
  variants use different ``c_prior`` and the inequality need not hold.)
* **Not implemented**: the authors' code additionally prunes attributes and children using
  the *estimation* labels (a "minimum labeled" speed-up that skips subsets which cannot
  beat the current ``c_best``); Algorithm 1 has no such step and it would let the
  estimation labels steer the tree, so it is left out.
* **bound_data** (``"tree"``, the default, or ``"estimation"``): the rows a child's
  ``c_low`` is computed on. Neither is more accurate everywhere: ``"tree"`` reaches the
  thesis' Table 3.4 level (mean |alpha_hat - alpha| 0.091 against 0.152), ``"estimation"``
  is better on the PULSNAR paper's benchmark sets (0.273 / 0.095 against 0.325 / 0.227 on
  its SCAR / SNAR sets; docs/class_priors.md). Algorithm 1 line 14 and section 3.1.2 use the estimation rows
  (``"estimation"``). The authors' released code, which the thesis names as its
  implementation (section 3.3.2, footnote 3, https://dtai.cs.kuleuven.be/software/tice),
  uses the tree rows (``"tree"``). We could not fetch the authors' repository
  (ML-KULeuven/TIcE). We read seven copies of its ``tice.py`` in public repositories. In
  four, ``subsetsThroughDT`` builds the estimation subsets of a split as
  ``X_cond & subset_train``, that is, from the node's *tree* rows. One of the four still
  uses Python-2 ``map`` calls. The other three use ``X_cond & subset_estimate`` and keep
  the old expression in a comment. So in the released code every bound except the
  initial ``L/T`` of the estimation data (line 6) is computed on the rows that selected
  the subset. Three facts show that this code produced the thesis' numbers. On the thesis
  protocol (Table 3.1 data without Cover Type, c in {0.1, ..., 0.9}, 5 labelings, PU and
  NU; ``config/papers/tice.yaml``, docs/class_priors.md):

  - a transcription of the released code with ``subset_train``, run on 80 of our cells
    (Breast Cancer, Mushroom and the 20 Newsgroups pairs, repetition 0), has mean
    ``|alpha_hat - alpha|`` 0.100 (0.182 with ``subset_estimate``);
  - ``"tree"`` has 0.091 (sd 0.071) over all 500 cells, against the thesis' 0.09
    (sd 0.06, Figures 3.7-3.8); ``"estimation"`` has 0.152 (sd 0.117);
  - ``"tree"`` overestimates ``c`` in 23% of the runs, against the thesis' "21% of the
    experiments"; ``"estimation"`` does so in 2%.

  So the default is ``"tree"``: ``TIcE()`` is the estimator whose accuracy the thesis
  reports. Its bounds are computed on the subset that the same labels picked out, so they
  are biased upwards (section 3.1.2 explains why) and are not the probabilistic lower
  bounds of eq. 3.4. ``"estimation"`` is Algorithm 1 as written, with honest bounds; it is
  conservative where pure subsets are small: at ``c = 0.1`` a 20 Newsgroups subset beats
  ``L/T`` only if it is nearly purely positive and holds several hundred estimation rows
  (eq. 3.4 with eq. 3.6's delta). Word-presence trees find pure subsets of about 200
  rows, so the estimate often stays at ``L/T`` and ``alpha_hat`` near 1. On Breast
  Cancer, Mushroom, Adult and IJCNN, where pure subsets are large, it is at least as
  accurate as ``"tree"``.
* **delta** (eq. 3.6): ``delta = max(0.025, 1 / (1 + 0.004 T_e))``. For the ``T_R``
  sensitivity analysis (thesis Figs. 3.3-3.4) ``delta = 1 / (1 + 4 eps^2 T_R)`` with
  ``eps = 0.1`` and ``T_R = tr_factor * min(975, 0.1 T_e)``: eq. 3.6's floor 0.025 is
  exactly ``1 / (1 + 0.04 * 975)``, so the cap 975 (the thesis prose rounds it to 1000,
  which would give ``1/41 = 0.0244``, not 0.025) makes ``tr_factor = 1`` reproduce eq. 3.6.

Speed: all per-row work (counting ``L`` and ``T`` per attribute and bin on a node's tree
rows, partitioning tree and estimation rows of the chosen split) and the heap run in one
compiled numba function per fold (``grow_fold`` in :mod:`pu_lib.prior._tice_kernel`); rows of a node are a contiguous
segment of a per-fold index array that is partitioned in place. Cost per split is
``O(m * n_node)``; a fit is ``O(passes * folds * max_splits * m * n_node)`` at worst.
``tests/tice_reference.py`` is a plain-Python reference of the same algorithm;
the tests check that both give identical splits and estimates.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib.prior._tice_kernel import bin_kernel, column_stats, grow_fold
from pu_lib.base import RANDOM_STATE_CONSTRAINT
from pu_lib.prior.base import BasePriorEstimator

__all__ = ["TICE_DEFAULTS", "TIcE", "bin_features", "make_folds", "tice_delta", "tice_delta_tr", "tice_lower_bound"]

VARIANTS = ("max", "most_promising")
#: which rows of a subset its lower bound ``c_low`` is computed on (see ``TIcE.bound_data``)
BOUND_DATA = ("estimation", "tree")

#: The defaults of :class:`TIcE`: the thesis' settings, and the released code's where the
#: thesis states none (source of each in the class docstring)
TICE_DEFAULTS = {
    "n_folds": 5,             # 3.3.2 "The number of folds is 5"
    "max_splits": 500,        # 3.3.2 "M = 500"
    "k": 5,                   # 3.3.2 "k = 5"
    "n_bins": 4,              # 3.3.2 "the range is split into 4 equal parts"
    "min_node_size": 10,      # not in the thesis: the released code's minT = 10
    "delta": None,            # eq. 3.6 per fold (Algorithm 1 line 5; 3.3.2)
    "tr_factor": 1.0,         # T_R = T_R* = min(1000, 0.1 T) (3.1.3, eq. 3.6)
    "variant": "max",         # 3.1.3 "Max c_low"; Algorithm 1 line 15
    "refine": True,           # Algorithm 1 lines 1-2 (two passes)
    "bound_data": "tree",     # not in the thesis: the released code (3.3.2, footnote 3)
}

#: eq. 3.6's floor on delta; 1 / (1 + 4 * 0.1**2 * 975) == 0.025
_DELTA_FLOOR = 0.025
_TR_CAP = 975.0
_EPSILON = 0.1


# --------------------------------------------------------------------------- formulas

def tice_lower_bound(L, T, c_prior=0.5, delta=0.025) -> float:
    """Lower bound on ``c`` from a subset with ``L`` labeled among ``T`` examples
    (thesis eq. 3.4): ``L/T - sqrt(c_prior (1 - c_prior) (1 - delta) / (delta T))``;
    ``c_prior = 0.5`` gives eq. 3.5."""
    L = float(L)
    T = float(T)
    if T <= 0:
        raise ValueError(f"T must be positive, got {T}")
    return L / T - math.sqrt(c_prior * (1.0 - c_prior) * (1.0 - delta) / (delta * T))


def tice_delta_tr(n_estimation, tr_factor=1.0) -> float:
    """``delta = 1 / (1 + 4 eps^2 T_R)`` with ``eps = 0.1`` and
    ``T_R = tr_factor * min(975, 0.1 n_estimation)`` (thesis section 3.1.3, "Choosing
    delta", and the T_R sensitivity analysis of section 3.3.2). For ``tr_factor = 1`` it
    equals eq. 3.6 up to rounding (see the module docstring for the cap 975)."""
    t_r = tr_factor * min(_TR_CAP, 0.1 * float(n_estimation))
    return 1.0 / (1.0 + 4.0 * _EPSILON * _EPSILON * t_r)


def tice_delta(n_estimation, tr_factor=1.0) -> float:
    """delta of a fold from the number of estimation rows ``T_e``: eq. 3.6,
    ``max(0.025, 1 / (1 + 0.004 T_e))``, when ``tr_factor == 1`` (the default and the
    authors' rule, computed literally); :func:`tice_delta_tr` otherwise."""
    if tr_factor == 1.0:
        return max(_DELTA_FLOOR, 1.0 / (1.0 + 0.004 * float(n_estimation)))
    return tice_delta_tr(n_estimation, tr_factor)


# --------------------------------------------------------------------------- preprocessing

def bin_features(X, n_bins=4):
    """Bin ``X`` for TIcE (see the module docstring, "Features").

    Returns ``(bins, n_values, features)``: ``bins`` a C-contiguous ``uint8`` array of
    shape ``(n, len(features))`` with the bin of every example and used feature,
    ``n_values`` (int64) the number of values of each used feature (``n_bins``, or 2 for
    a two-valued feature, whose bins are 0 = min and 1 = max) and ``features`` the
    indices in ``X`` of the used (non-constant) features. A numeric value ``x`` is scaled
    to ``z = (x - min) / (max - min)`` and its bin is ``min(floor(n_bins * z), n_bins - 1)``:
    value ``v`` holds ``v / n_bins <= z < (v + 1) / n_bins`` (the last bin includes
    ``z = 1``). For a power of two such as the default 4 the product ``n_bins * z`` is
    exact, so the bins are exactly ``z < 0.25``, ``[0.25, 0.5)``, ``[0.5, 0.75)``,
    ``>= 0.75``; for other ``n_bins`` a ``z`` within an ulp of a cut point may fall on
    either side of it."""
    X = np.asarray(X, dtype=np.float64)
    n_bins = int(n_bins)
    mins, maxs, two_valued = column_stats(X)
    features = np.flatnonzero(maxs > mins).astype(np.int64)
    bins = bin_kernel(X, features, mins, maxs, two_valued, n_bins)
    n_values = np.where(two_valued[features], 2, n_bins).astype(np.int64)
    return bins, n_values, features


def make_folds(n, n_folds, seed) -> np.ndarray:
    """Fold id (0 .. n_folds-1) of each of ``n`` rows: a random permutation dealt into
    ``n_folds`` equal-sized folds (sizes differ by at most one), seeded by
    ``derive_seed("TIcE.folds", seed, n, n_folds)``."""
    rng = np.random.default_rng(derive_seed("TIcE.folds", int(seed), int(n), int(n_folds)))
    folds = np.empty(n, dtype=np.int64)
    folds[rng.permutation(n)] = np.arange(n, dtype=np.int64) % n_folds
    return folds


# --------------------------------------------------------------------------- driver

def _fold_rows(folds):
    """(fold ids ascending, [(tree_rows, estimation_rows)]) from a fold id per row."""
    ids = np.unique(folds)
    out = []
    for f in ids:
        mask = folds == f
        out.append((np.flatnonzero(mask).astype(np.int64), np.flatnonzero(~mask).astype(np.int64)))
    return ids, out


def run_tice(bins, s, n_values, folds, k=5.0, max_splits=500, min_node_size=10, delta=None,
             tr_factor=1.0, variant="max", refine=True, bound_data="tree"):
    """Algorithm 1 on pre-binned data (:func:`bin_features`) and given folds.

    Returns a dict with ``c`` (the estimate), ``c_folds`` and ``n_splits`` (per fold,
    last pass), ``c_first_pass`` (mean of the first pass), ``c_folds_passes`` and
    ``split_features`` (per pass, per fold), ``delta_folds`` and ``fold_ids``."""
    bins = np.ascontiguousarray(bins, dtype=np.uint8)
    s8 = np.ascontiguousarray(s, dtype=np.uint8)
    n_values = np.ascontiguousarray(n_values, dtype=np.int64)
    fold_ids, rows = _fold_rows(np.asarray(folds))
    if delta is None:
        deltas = [tice_delta(est.shape[0], tr_factor) for _, est in rows]
    else:
        deltas = [float(delta)] * len(rows)
    if bound_data not in BOUND_DATA:
        raise ValueError(f"bound_data must be one of {BOUND_DATA}, got {bound_data!r}")
    on_tree = bound_data == "tree"
    pick = 1 if variant == "most_promising" else 0
    c_prior = 0.5  # line 1
    passes = 2 if refine else 1
    c_passes, splits_passes, nsplit_passes = [], [], []
    for _ in range(passes):  # line 2
        c_folds, feats, nsplits = [], [], []
        for (tree, est), d in zip(rows, deltas):  # line 4
            res = grow_fold(bins, s8, n_values, tree, est, float(c_prior), float(d), float(k),
                             int(max_splits), int(min_node_size), on_tree)
            c_folds.append(float(res[pick]))
            nsplits.append(int(res[2]))
            feats.append(res[3][: res[2]].copy())
        c_prior = sum(c_folds) / len(c_folds)  # line 17
        c_passes.append(c_folds)
        splits_passes.append(feats)
        nsplit_passes.append(nsplits)
    return {
        "c": c_prior,
        "c_folds": c_passes[-1],
        "n_splits": nsplit_passes[-1],
        "c_first_pass": sum(c_passes[0]) / len(c_passes[0]),
        "c_folds_passes": c_passes,
        "split_features": splits_passes,
        "delta_folds": deltas,
        "fold_ids": fold_ids,
    }


# --------------------------------------------------------------------------- estimator

class TIcE(BasePriorEstimator):
    """TIcE class-prior estimator (Bekker & Davis 2018; thesis ch. 3, Algorithm 1).

    Estimates the label frequency ``c`` natively; ``fit`` sets ``c_``, ``prior_`` and
    ``alpha_`` (see :mod:`pu_lib.prior.base`): ``prior_ = L / (c_ T)``, the conversion of
    thesis section 3.3.2 ("The label frequency c is converted to the class prior with
    alpha_hat = L/(c_hat T)"), with ``c_`` clipped to ``[L/T, 1]`` as the authors' code
    clips ``alpha_hat`` to ``[0, 1]``. The algorithm and every choice where the thesis is
    vague are described in the module docstring of :mod:`pu_lib.prior.tice`.

    Every default is the thesis' setting (chapter 3; "3.3.2" is the "Methods" section of
    the experiments, which fixes the hyperparameters), except two the thesis does not
    state, which are the authors' released code's: ``min_node_size`` and ``bound_data``
    (the released code computes the bounds on the tree data; with it ``TIcE()`` reproduces
    the thesis' numbers, with ``bound_data="estimation"`` it is Algorithm 1 as written).
    ``TICE_DEFAULTS`` holds the same values and ``tests/test_prior_tice_defaults.py`` pins
    them.

    Parameters
    ----------
    n_folds : int, default 5
        Number of random equal-sized folds; in fold ``i`` the tree data is fold ``i`` and
        the estimation data the other folds. Source: 3.3.2, "The number of folds is 5";
        3.1.3, "Folds" (random equal-sized subsets).
    max_splits : int, default 500
        ``M`` of Algorithm 1 (line 8): maximum number of splits per fold and pass.
        Source: 3.3.2, "The maximum number of splits is M = 500".
    k : float, default 5
        The max-bepp parameter of the split choice (Algorithm 1 line 11, ``L / (T + k)``).
        Source: 3.3.2, "The max-bepp parameter is k = 5 as in the original paper".
    n_bins : int, default 4
        Equal-width ranges a numeric feature (min-max scaled to [0, 1]) is split into.
        Source: 3.3.2, "If a node is split on a numerical feature, the range is split into
        4 equal parts"; 3.3.1, "the numerical features were scaled between 0 and 1".
    min_node_size : int, default 10
        Minimum number of tree rows for a node to be split, and minimum number of rows for
        a subset to give a lower bound. Not in the thesis (Algorithm 1 has no minimum);
        the authors' released code's ``minT = 10`` (its command-line default).
    delta : float in (0, 1] or None, default None
        Fixed ``delta`` for every fold; ``None`` computes eq. 3.6,
        ``max(0.025, 1 / (1 + 0.004 T))``, on each fold's estimation data. Source:
        Algorithm 1 line 5; 3.3.2, "delta was set using Equation (3.6) on the estimation
        data in each fold".
    tr_factor : float > 0, default 1.0
        Scales ``T_R* = min(1000, 0.1 T)``, the examples needed to update ``c_low`` with
        error 0.1, from which eq. 3.6 is derived; 1 is eq. 3.6 itself. Source: 3.1.3,
        "Choosing delta" (``T_R*`` and eq. 3.6); 3.3.2, the sensitivity analysis with
        ``T_R`` in {0.5, 0.75, 1.25, 1.5} x ``T_R*`` (Figures 3.3-3.4, Table 3.2).
    variant : {"max", "most_promising"}, default "max"
        "max": the largest lower bound over all subsets (Algorithm 1 line 15);
        "most_promising": the lower bound of the single subset with the best tree-data
        bound. Source: 3.1.3, "Max c_low" (the maximum is TIcE; the most promising
        subdomain is the alternative evaluated in Figures 3.1-3.2).
    refine : bool, default True
        Run the second pass with ``c_prior`` = the first estimate. Source: Algorithm 1
        lines 1-2 and 17 (two passes); 3.1.3, "Tighter bound with c_hat".
    bound_data : {"tree", "estimation"}, default "tree"
        The rows of a subset its lower bound ``c_low`` is computed on. "tree" (the
        default): the subset's tree rows, the rows that selected it, as in the authors'
        released code, the implementation the thesis reports (3.3.2, footnote 3; the
        module docstring, "bound_data", gives the evidence). On the thesis protocol it
        reproduces the thesis' reported accuracy (mean ``|alpha_hat - alpha|`` 0.091
        against the thesis' 0.09, overestimates of ``c`` in 23% of runs against its 21%).
        Its bounds are biased upwards by the selection, so they are not the probabilistic
        lower bounds of eq. 3.4. "estimation": Algorithm 1 as written, the subset's
        estimation rows, which did not select it (Algorithm 1 line 14, ``c_low`` on
        ``{S_e : a* = v}``; 3.1.2, "using independent datasets to 1) identify interesting
        subdomains and 2) calculate the lower bound"); honest lower bounds, conservative
        where the purely positive subsets are small (mean error 0.152 on the same
        protocol, most of it on 20 Newsgroups and at ``c = 0.1``).
    folds : array of int or None, default None
        Explicit fold id per row (overrides ``n_folds``; at least two distinct ids).
    random_state : None, int, numpy Generator or RandomState
        Seeds the folds.

    Attributes
    ----------
    c_folds_ : ndarray
        ``c_best`` of every fold in the final pass (fold ids ascending).
    c_first_pass_ : float
        Mean over folds of the first pass (the ``c_prior`` of the second).
    delta_folds_ : ndarray
        ``delta`` used in every fold.
    n_splits_ : ndarray of int
        Number of splits in every fold in the final pass.
    folds_ : ndarray of int
        Fold id of every training row.
    features_ : ndarray of int
        Indices of the non-constant features the tree may split on.
    """

    _parameter_constraints: dict = {
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "max_splits": [Interval(Integral, 0, None, closed="left")],
        "k": [Interval(Real, 0, None, closed="left")],
        "n_bins": [Interval(Integral, 2, 255, closed="both")],
        "min_node_size": [Interval(Integral, 1, None, closed="left")],
        "delta": [None, Interval(Real, 0, 1, closed="right")],
        "tr_factor": [Interval(Real, 0, None, closed="neither")],
        "variant": [StrOptions(set(VARIANTS))],
        "refine": ["boolean"],
        "bound_data": [StrOptions(set(BOUND_DATA))],
        # one fold id per row, at least two distinct ids: checked against the data in fit
        "folds": [None, "array-like"],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(self, *, n_folds=5, max_splits=500, k=5, n_bins=4, min_node_size=10, delta=None,
                 tr_factor=1.0, variant="max", refine=True, bound_data="tree", folds=None,
                 random_state=None):
        self.n_folds = n_folds
        self.max_splits = max_splits
        self.k = k
        self.n_bins = n_bins
        self.min_node_size = min_node_size
        self.delta = delta
        self.tr_factor = tr_factor
        self.variant = variant
        self.refine = refine
        self.bound_data = bound_data
        self.folds = folds
        self.random_state = random_state

    def min_labeled(self) -> int:
        """At least one labeled row per fold (``n_folds``, or the distinct ids of ``folds``):
        each fold's tree is grown on that fold and its bound computed on the others, so
        with fewer labeled rows than folds some fold's tree sees no labeled row and its
        estimate is only the trivial bound (TIcE on a single labeled row returns whatever
        ``L/T`` of a subset is, e.g. a prior of 1)."""
        if self.folds is not None:
            return max(2, int(np.unique(np.asarray(self.folds)).size))
        return int(self.n_folds)

    def _min_labeled_why(self) -> str:
        folds = f"n_folds={self.n_folds}" if self.folds is None else "the distinct ids of folds"
        return f"one per fold ({folds}): each fold grows its tree on that fold and bounds c on the others"

    def _folds(self, n):
        """Fold id of each of the ``n`` rows: ``folds`` checked against the data, or
        :func:`make_folds` seeded by ``random_state``."""
        n_folds = int(self.n_folds)
        seed = seed_to_int(self.random_state, "random_state", fresh_if_none=self.folds is None)
        if self.folds is None:
            if n_folds > n:
                raise ValueError(f"n_folds={n_folds} exceeds the number of rows ({n})")
            folds = make_folds(n, n_folds, seed)
        else:
            folds = np.asarray(self.folds)
            if folds.ndim != 1 or folds.shape[0] != n:
                raise ValueError(f"folds must be a 1-D array with one fold id per row ({n}), got shape {folds.shape}")
            if not np.issubdtype(folds.dtype, np.integer):
                raise ValueError(f"folds must hold integer fold ids, got dtype {folds.dtype}")
            if folds.min() < 0:
                raise ValueError("folds must hold non-negative fold ids")
            if np.unique(folds).size < 2:
                raise ValueError("folds must contain at least two distinct fold ids")
            folds = folds.astype(np.int64)
        return folds

    def _estimate(self, X, s):
        folds = self._folds(X.shape[0])
        bins, n_values, features = bin_features(X, int(self.n_bins))
        res = run_tice(bins, s, n_values, folds, k=float(self.k), max_splits=int(self.max_splits),
                       min_node_size=int(self.min_node_size),
                       delta=None if self.delta is None else float(self.delta), tr_factor=float(self.tr_factor),
                       variant=self.variant, refine=bool(self.refine), bound_data=self.bound_data)
        self.folds_ = folds
        self.features_ = features
        self.c_folds_ = np.asarray(res["c_folds"], dtype=np.float64)
        self.c_first_pass_ = float(res["c_first_pass"])
        self.delta_folds_ = np.asarray(res["delta_folds"], dtype=np.float64)
        self.n_splits_ = np.asarray(res["n_splits"], dtype=np.int64)
        return "c", res["c"]
