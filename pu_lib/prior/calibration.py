"""Probability calibration (Algorithm 4, eq. 6) of PULSCAR / PULSNAR (Kumar & Lambert,
PeerJ CS 2024, Appendix) and calibration-curve points (the paper's Figures 6-11).

Notation: ``probs`` are the classifier-estimated (out-of-fold) class-1 probabilities of
all rows of PU data, ``s`` the PU labels (1 = labeled positive, 0 = unlabeled), ``P`` the
labeled rows, ``U`` the unlabeled rows and ``alpha`` the estimated fraction of positives
among the unlabeled (``alpha_`` of :class:`~pu_lib.prior.PULSCAR`).

Algorithm 4 (calibration)
-------------------------
Lines 1-15, :func:`flip_labels`: the unlabeled rows get labels ``su`` (all 0), and
``round(alpha |U|)`` of them are flipped to 1 so that the flipped rows follow the
distribution of the labeled positives' probabilities: the normalized histogram density
``d_k`` of ``probs[P]`` over ``n_bins`` equal bins of ``[0, 1]`` times the bin width
(``d_k w = count_k / |P|``) times ``alpha |U|`` is the expected number of unlabeled
positives in bin ``k``. Bins are walked from the highest (``p = 1``) to the lowest; in
every bin the required number of unlabeled rows, chosen at random, is flipped; a bin
holding fewer unlabeled rows than required flips all of them and the shortfall is added
to the next lower bin (line 11). See :func:`flip_labels` for the rounding rule and the
one extension (the residual pass).

Lines 16-26, :func:`calibrate_probabilities`: an isotonic regression (or, ``"sigmoid"``,
a logistic regression) of the labels (1 on ``P``, ``su`` on ``U``) on the probabilities,
fitted on ``'PU'`` (all rows) or ``'U'`` (unlabeled rows only) data, gives the
calibrated probabilities of those rows.

**Sum property.** Isotonic regression (pool-adjacent-violators) replaces the targets by
block means, so on the rows it was fitted on the fitted values sum to the sum of the
targets. Hence with ``'U'`` data the calibrated probabilities of ``U`` sum to the number
of flips ``round(alpha |U|)``, and with ``'PU'`` data those of all rows sum to
``|P| + round(alpha |U|)`` -- the paper's statement that they "add up to alpha |U|"
(resp. ``|P| + alpha |U|``), exact up to floating point. A logistic regression with an
(unpenalized) intercept satisfies the same identity at its optimum (the intercept's
score equation is ``sum(p_i - y_i) = 0``), up to the optimizer tolerance.

PULSNAR (eq. 6)
---------------
PULSNAR splits ``P`` into ``c`` clusters and estimates ``alpha_j`` per cluster with a
model of (cluster ``j`` labeled rows + all of ``U``). Each cluster is calibrated with
its own ``alpha_j`` (:func:`calibrate_pulsnar`), so every unlabeled row gets ``c``
calibrated probabilities ``p_1 .. p_c``. Eq. 6 combines them as

    p = 1 - prod_j (1 - p_j)

("one minus the probability that it is in none of the subclasses", which keeps
``p <= 1``); the formula was lost in the text conversion of the paper and is
reconstructed from that sentence (the authors' public implementation computes the same
quantity). Eq. 6 alone does not preserve the total mass. With ``'U'`` data each
cluster's calibrated probabilities of ``U`` sum to its flips ``F_j = round(alpha_j |U|)``
(sum property above), and ``1 - prod(1 - p_j) <= sum_j p_j`` with equality only when at
most one ``p_j`` is non-zero, so eq. 6 sums to *at most* ``T = sum_j F_j`` (in practice
clearly less); with ``'PU'`` data the per-cluster sums over ``U`` are not ``F_j`` (the
fit also covers the cluster's labeled rows) and eq. 6 may sum to more or less than
``T``. To meet the paper's statement that the calibrated probabilities of ``U`` sum to
``alpha |U|`` (``alpha = sum_j alpha_j``), the eq. 6 values ``q`` are then mapped by the
**capped proportional rescaling** ``p_i = min(1, t q_i)``, with the ``t > 0`` that
gives ``sum_i p_i = T`` (``t >= 1`` for ``'U'`` data; :func:`combine_cluster_probabilities`).
``T`` differs from ``alpha |U|`` by at most ``c / 2`` (rounding of each ``F_j``). The map
is non-decreasing, so it keeps eq. 6's ranking of the unlabeled rows (which is all
Algorithm 5 uses), keeps ``p <= 1`` and zeros at zero. ``rescale=False`` returns eq. 6
verbatim; ``combine="sum"`` uses ``sum_j p_j`` instead (the law of total probability for
disjoint subclasses), with the same rescaling.

Algorithm 5 (classification improvement with the calibrated probabilities) is in
:mod:`pu_lib.prior.classification`.

Rounding
--------
Every count ``round(x)`` in this module is *round half up*
(:func:`pu_lib._rounding.round_half_up`), not Python's banker's rounding; per-bin counts
are apportioned by the largest-remainder method (:func:`pu_lib._rounding.largest_remainder`,
ties to the higher bin).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from pu_lib._rounding import largest_remainder, round_half_up
from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import (Interval, StrOptions, check_binary, check_fraction, check_probabilities,
                                validate_params)

__all__ = [
    "CalibrationResult",
    "PULSNARCalibrationResult",
    "ProbabilityCalibrator",
    "calibrate_probabilities",
    "calibrate_pulscar",
    "calibrate_pulsnar",
    "calibration_curve_data",
    "combine_cluster_probabilities",
    "flip_labels",
    "flip_targets_per_bin",
]

METHODS = ("isotonic", "sigmoid")
DATA = ("PU", "U")
COMBINE = ("eq6", "sum")

#: inverse L2 strength of the ``"sigmoid"`` calibrator's slope (the intercept is not
#: penalized by scikit-learn's lbfgs solver, which keeps the mean-preservation property)
SIGMOID_C = 1.0e4


# --------------------------------------------------------------------------- argument checks

#: parameter constraints shared by the public functions (scikit-learn's declarations,
#: checked by :func:`pu_lib._validation.validate_params`)
ALPHA_CONSTRAINT = [Interval(Real, 0.0, 1.0, closed="both")]
N_BINS_CONSTRAINT = [Interval(Integral, 1, None, closed="left")]
_CALIBRATION_CONSTRAINTS = {
    "probs": ["array-like"],
    "s": ["array-like"],
    "alpha": ALPHA_CONSTRAINT,
    "n_bins": N_BINS_CONSTRAINT,
    "method": [StrOptions(METHODS)],
    "data": [StrOptions(DATA)],
    "combine": [StrOptions(COMBINE)],
    "target": [None, Interval(Real, 0.0, None, closed="left")],
    "strategy": [StrOptions(("uniform", "quantile"))],
    "rescale": ["boolean"],
}


def _constraints(*names) -> dict:
    return {name: _CALIBRATION_CONSTRAINTS[name] for name in names}


def _check_probs_s(probs, s):
    s = check_binary(s, "s")
    p = check_probabilities(probs, "probs", n=s.shape[0])
    n_l = int(s.sum())
    if n_l == 0:
        raise ValueError("s has no labeled positives (no s == 1); the flip targets come from their histogram")
    if n_l == s.shape[0]:
        raise ValueError("s has no unlabeled rows (all s == 1); there is nothing to calibrate")
    return p, s


def _rng(random_state, *keys) -> np.random.Generator:
    seed = seed_to_int(random_state, fresh_if_none=True)
    return np.random.default_rng(derive_seed("pu_lib.prior.calibration", *keys, seed))


# ------------------------------------------------------------- Algorithm 4, lines 1-15


def _bin_index(p: np.ndarray, n_bins: int) -> np.ndarray:
    """Bin of each probability among ``n_bins`` equal bins of [0, 1]: ``[k/n, (k+1)/n)``,
    the last bin closed (the convention of ``np.histogram(range=(0, 1))``)."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    return np.clip(np.searchsorted(edges, p, side="right") - 1, 0, n_bins - 1)


def _flip_targets(pp: np.ndarray, n_u: int, alpha: float, n_bins: int):
    n_flip = round_half_up(alpha * n_u)
    counts = np.bincount(_bin_index(pp, n_bins), minlength=n_bins)
    # normalized histogram density times bin width = count_k / |P|: the bins' shares of
    # N = n_flip are N count_k / |P| (N * count_k is an exact integer, so a quotient that
    # is an integer is computed exactly), made integers by largest remainders, ties to
    # the higher bin (where positives are more likely)
    return largest_remainder(n_flip, counts, ties="high"), n_flip


@validate_params(_constraints("probs", "s", "alpha", "n_bins"))
def flip_targets_per_bin(probs, s, alpha, n_bins=100) -> np.ndarray:
    """Number of unlabeled rows to flip in each bin (Algorithm 4, lines 3-4), before the
    carry-over of line 11.

    ``count_k`` is the number of labeled positives with ``probs`` in bin ``k`` (``n_bins``
    equal bins of [0, 1], ``[k/n, (k+1)/n)`` with the last bin closed, as
    ``np.histogram``); the normalized density ``d_k = count_k / (|P| w)`` times the bin
    width ``w`` times the target ``N = round(alpha |U|)`` is the expected number
    ``e_k = N count_k / |P|`` of unlabeled positives in bin ``k``. The ``e_k`` sum to
    ``N``; they are made integers by the largest-remainder (Hamilton) method -- floors,
    then one more for the ``N - sum(floor)`` bins with the largest fractional parts, ties
    to the higher bin -- so the targets sum to ``N`` exactly and each differs from
    ``e_k`` by less than 1. ``round`` is round half up.

    Returns an int64 array of length ``n_bins``, index 0 = lowest bin ``[0, 1/n)``.
    """
    p, s = _check_probs_s(probs, s)
    targets, _ = _flip_targets(p[s == 1], int((s == 0).sum()), float(alpha), int(n_bins))
    return targets


def _flip(pp, pu, alpha, n_bins, rng):
    targets, n_flip = _flip_targets(pp, pu.shape[0], alpha, n_bins)
    bins = _bin_index(pu, n_bins)
    order = np.argsort(bins, kind="stable")  # unlabeled rows grouped by bin, row order inside
    starts = np.searchsorted(bins[order], np.arange(n_bins + 1), side="left")
    members = [order[starts[k]:starts[k + 1]] for k in range(n_bins)]
    su = np.zeros(pu.shape[0], dtype=np.int8)
    carry = 0
    for k in range(n_bins - 1, -1, -1):  # line 6: from the highest bin to the lowest
        need = int(targets[k]) + carry  # lines 7-8
        idx = members[k]
        if need > idx.shape[0]:  # lines 9-11: flip all, carry the shortfall down
            su[idx] = 1
            carry = need - idx.shape[0]
        else:  # line 13: flip `need` random rows of the bin
            if need > 0:
                su[rng.choice(idx, size=need, replace=False)] = 1
            carry = 0
    if carry > 0:
        # Residual pass (not in Algorithm 4, which drops a shortfall left after the lowest
        # bin): walk the bins again from the top and flip random still-unflipped rows.
        for k in range(n_bins - 1, -1, -1):
            idx = members[k][su[members[k]] == 0]
            if idx.shape[0] == 0:
                continue
            take = min(carry, idx.shape[0])
            su[idx if take == idx.shape[0] else rng.choice(idx, size=take, replace=False)] = 1
            carry -= take
            if carry == 0:
                break
    return su, targets, n_flip


@validate_params(_constraints("probs", "s", "alpha", "n_bins"))
def flip_labels(probs, s, alpha, n_bins=100, random_state=None) -> np.ndarray:
    """Updated 0/1 labels ``su`` of the unlabeled rows (Algorithm 4, lines 1-15).

    Parameters
    ----------
    probs : class-1 probabilities in [0, 1] of all rows.
    s : 0/1 PU labels of the same rows (1 = labeled positive); both kinds required.
    alpha : fraction of positives among the unlabeled, in [0, 1].
    n_bins : number of equal bins of [0, 1] (the paper: 100).
    random_state : None, int, ``numpy.random.Generator`` or ``RandomState`` -- which rows of a bin are
        flipped; the same seed gives the same labels.

    Procedure: the per-bin targets of :func:`flip_targets_per_bin` (they sum to
    ``N = round(alpha |U|)``, round half up) are met walking the bins from the highest
    to the lowest; in bin ``k`` the target plus the carried shortfall is the number
    ``need`` of rows to flip; if the bin holds at least ``need`` unlabeled rows, ``need``
    of them chosen uniformly at random are flipped from 0 to 1 (line 13), otherwise all
    are flipped and ``need - m_k`` is carried to bin ``k - 1`` (line 11). If a shortfall
    is still left after the lowest bin (lower bins without enough unlabeled rows), a
    residual pass -- an extension of the paper -- flips random still-unflipped rows
    walking down again from the highest bin. Since ``N <= |U|``, exactly ``N`` rows are
    flipped.

    Returns
    -------
    int8 array of length ``|U|``: the labels of the unlabeled rows, in row order.
    """
    p, s = _check_probs_s(probs, s)
    su, _, _ = _flip(p[s == 1], p[s == 0], float(alpha), int(n_bins), _rng(random_state, "flip_labels"))
    return su


# ------------------------------------------------------------ Algorithm 4, lines 16-26


class ProbabilityCalibrator:
    """The calibration map of Algorithm 4, lines 21-25: ``"isotonic"`` --
    ``IsotonicRegression(increasing=True, y_min=0, y_max=1, out_of_bounds="clip")``;
    ``"sigmoid"`` -- a logistic regression of the labels on the probability itself
    (Platt scaling with the probability as the score; lbfgs, ``C = SIGMOID_C`` on the
    slope, unpenalized intercept). ``fit(p, y)`` then ``predict(p)``; a single-class ``y``
    gives the constant map ``mean(y)``."""

    @validate_params(_constraints("method"))
    def __init__(self, method: str = "isotonic"):
        self.method = method

    def fit(self, p, y):
        p = check_probabilities(p, "p")
        y = check_binary(y, "y")
        if y.shape[0] != p.shape[0]:
            raise ValueError(f"y has {y.shape[0]} entries but p has {p.shape[0]}")
        if p.shape[0] == 0:
            raise ValueError("cannot fit a calibrator on zero rows")
        self.constant_ = None
        if y.min() == y.max():
            self.constant_ = float(y[0])
        elif self.method == "isotonic":
            from sklearn.isotonic import IsotonicRegression

            self.model_ = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip")
            self.model_.fit(p, y.astype(np.float64))
        else:
            from sklearn.linear_model import LogisticRegression

            self.model_ = LogisticRegression(C=SIGMOID_C, solver="lbfgs", tol=1e-10, max_iter=10_000)
            self.model_.fit(p.reshape(-1, 1), y)
        return self

    def predict(self, p) -> np.ndarray:
        """Calibrated probabilities of the probabilities ``p`` (values in [0, 1])."""
        if not hasattr(self, "constant_"):
            raise ValueError("this ProbabilityCalibrator is not fitted yet; call fit(p, y)")
        p = check_probabilities(p, "p")
        if self.constant_ is not None:
            return np.full(p.shape[0], self.constant_)
        if self.method == "isotonic":
            out = self.model_.predict(p)
        else:
            out = self.model_.predict_proba(p.reshape(-1, 1))[:, 1]
        return np.clip(np.asarray(out, dtype=np.float64), 0.0, 1.0)


@dataclass(frozen=True, eq=False)
class CalibrationResult:
    """Output of :func:`calibrate_probabilities` / :func:`calibrate_pulscar`.

    ``probs`` are the calibrated probabilities of the rows ``rows`` (indices into the
    input; all rows for ``data="PU"``, the unlabeled rows for ``"U"``);
    ``unlabeled_probs`` those of the unlabeled rows in row order (for both ``data``);
    ``labels`` the regression targets of ``rows`` (1 for labeled, ``su`` for unlabeled);
    ``n_flips = round(alpha |U|)``; ``bin_targets`` the per-bin flip targets;
    ``calibrator`` the fitted :class:`ProbabilityCalibrator` (``transform`` maps new
    probabilities, e.g. of a test set)."""

    probs: np.ndarray
    rows: np.ndarray
    unlabeled_probs: np.ndarray
    labels: np.ndarray
    n_flips: int
    alpha: float
    method: str
    data: str
    n_bins: int
    bin_targets: np.ndarray
    calibrator: ProbabilityCalibrator = field(repr=False)

    def transform(self, probs) -> np.ndarray:
        """Apply the fitted calibration map to new probabilities."""
        return self.calibrator.predict(probs)


@validate_params(_constraints("probs", "s", "alpha", "n_bins", "method", "data"))
def calibrate_probabilities(probs, s, alpha, n_bins=100, method="isotonic", data="PU",
                            random_state=None) -> CalibrationResult:
    """Calibrated class-1 probabilities of PU data (Algorithm 4).

    The unlabeled rows are relabeled by :func:`flip_labels` (same ``random_state`` gives
    the same flips), then a :class:`ProbabilityCalibrator` (``method`` ``"isotonic"`` or
    ``"sigmoid"``) is fitted on ``data``:

    * ``"PU"`` (lines 16-17): all rows, targets 1 for labeled positives and ``su`` for
      the unlabeled; returns the calibrated probabilities of all rows (row order);
    * ``"U"`` (lines 18-19): the unlabeled rows with targets ``su``; returns theirs.

    Isotonic regression preserves the sum of the targets on the fitted rows, so the
    returned probabilities sum to ``|P| + round(alpha |U|)`` (``"PU"``) or
    ``round(alpha |U|)`` (``"U"``) up to floating point; see the module docstring.

    Returns a :class:`CalibrationResult` (``.probs``, ``.unlabeled_probs``, ``.transform``).
    """
    p, s = _check_probs_s(probs, s)
    alpha, n_bins = float(alpha), int(n_bins)
    unl = np.flatnonzero(s == 0)
    su, targets, n_flip = _flip(p[s == 1], p[unl], alpha, n_bins, _rng(random_state, "flip_labels"))
    if data == "PU":
        rows = np.arange(s.shape[0])
        labels = s.copy()
        labels[unl] = su
    else:
        rows = unl
        labels = su
    cal = ProbabilityCalibrator(method).fit(p[rows], labels)
    out = cal.predict(p[rows])
    unl_probs = out[unl] if data == "PU" else out
    return CalibrationResult(
        probs=out, rows=rows, unlabeled_probs=unl_probs, labels=labels, n_flips=n_flip, alpha=alpha,
        method=method, data=data, n_bins=n_bins, bin_targets=targets, calibrator=cal,
    )


def _estimator_seed(estimator, random_state):
    """``random_state``, or the estimator's integer ``random_state`` when it is None."""
    if random_state is None:
        rs = getattr(estimator, "random_state", None)
        if isinstance(rs, (int, np.integer)) and not isinstance(rs, bool) and rs >= 0:
            return derive_seed("calibration_from_estimator", int(rs))
    return random_state


def _fitted_attr(estimator, name):
    if not hasattr(estimator, name):
        raise ValueError(f"{type(estimator).__name__} has no attribute {name}; fit it first")
    return getattr(estimator, name)


@validate_params(_constraints("s", "n_bins", "method", "data"))
def calibrate_pulscar(estimator, s, n_bins=100, method="isotonic", data="PU",
                      random_state=None) -> CalibrationResult:
    """Algorithm 4 for a fitted :class:`~pu_lib.prior.PULSCAR` (SCAR data): its
    out-of-fold probabilities ``probs_`` of all training rows and its ``alpha_``.

    ``s`` are the PU labels the estimator was fitted on. ``random_state=None`` falls back
    to a seed derived from the estimator's integer ``random_state`` (so a seeded estimator
    gives reproducible calibrations); otherwise as :func:`calibrate_probabilities`.
    """
    probs = np.asarray(_fitted_attr(estimator, "probs_"))
    alpha = _fitted_attr(estimator, "alpha_")
    s_arr = np.asarray(s)
    if probs.ndim != 1 or s_arr.ndim < 1 or probs.shape[0] != s_arr.shape[0]:
        raise ValueError(f"estimator.probs_ has shape {probs.shape} but s has shape {s_arr.shape}; "
                         "pass the labels the estimator was fitted on")
    return calibrate_probabilities(probs, s, alpha, n_bins=n_bins, method=method, data=data,
                                   random_state=_estimator_seed(estimator, random_state))


# ------------------------------------------------------------------------ eq. 6


def _capped_rescale(q: np.ndarray, target: float) -> np.ndarray:
    """``min(1, t q)`` with ``t >= 0`` such that the sum is ``target`` (q >= 0).

    With ``q`` sorted decreasingly and ``k`` entries capped at 1, ``t = (T - k) / S_k``
    (``S_k`` the sum of the uncapped ``q``); the smallest ``k`` with ``t q_(k+1) <= 1``
    is the solution (the sum is continuous and non-decreasing in ``t``). If ``target``
    is at least the number of positive ``q``, all of them become 1 (the most reachable).
    """
    out = np.zeros_like(q)
    pos = q > 0
    m = int(pos.sum())
    if target <= 0 or m == 0:
        return out
    if target >= m:
        out[pos] = 1.0
        return out
    qs = np.sort(q[pos])[::-1]
    suffix = np.cumsum(qs[::-1])[::-1]  # suffix[k] = sum of qs[k:]
    k = np.arange(m)
    t = (target - k) / suffix
    ok = t * qs <= 1.0 + 1e-12
    k0 = int(np.argmax(ok))  # first True (exists: see docstring)
    return np.minimum(1.0, t[k0] * q)


@validate_params({"cluster_probs": ["array-like"], **_constraints("target", "combine")})
def combine_cluster_probabilities(cluster_probs, target=None, combine="eq6") -> np.ndarray:
    """Combine the ``c`` calibrated probabilities of every unlabeled row (PULSNAR, eq. 6).

    Parameters
    ----------
    cluster_probs : array of shape ``(c, n_u)``, values in [0, 1]: row ``j`` holds the
        probabilities of the unlabeled rows calibrated with cluster ``j``.
    target : None, or the total mass the combined probabilities must have (PULSNAR:
        ``sum_j round(alpha_j |U|)``, i.e. ``alpha |U|`` up to rounding).
    combine : ``"eq6"`` -- ``q = 1 - prod_j (1 - p_j)`` (eq. 6, reconstructed; see the
        module docstring); ``"sum"`` -- ``q = sum_j p_j``.

    With ``target=None`` returns ``q`` (``"sum"`` clipped at 1), i.e. eq. 6 verbatim.
    Otherwise returns the capped proportional rescaling ``min(1, t q)`` whose sum is
    ``target`` (``t > 0`` is unique; for eq. 6 with ``target = sum`` of all ``p_j`` it is
    >= 1, since eq. 6 never exceeds that sum). The map is non-decreasing in ``q``: the
    ranking of the rows is kept. If
    ``target`` exceeds the number of rows with ``q > 0``, those rows all get 1 and the
    sum falls short of ``target`` (cannot be helped without inventing mass).
    """
    P = np.asarray(cluster_probs, dtype=np.float64)
    if P.ndim == 1:
        P = P[None, :]
    if P.ndim != 2 or P.shape[0] == 0:
        raise ValueError(f"cluster_probs must have shape (n_clusters, n_unlabeled), got {np.shape(cluster_probs)}")
    if not np.all(np.isfinite(P)) or (P.size and (P.min() < 0.0 or P.max() > 1.0)):
        raise ValueError("cluster_probs must hold finite probabilities in [0, 1]")
    if combine == "eq6":
        q = 1.0 - np.prod(1.0 - P, axis=0)
    else:
        q = P.sum(axis=0)
    if target is None:
        return np.clip(q, 0.0, 1.0)
    if not np.isfinite(target):
        raise ValueError(f"target must be a finite non-negative number, got {target!r}")
    return _capped_rescale(q, float(target))


@dataclass(frozen=True, eq=False)
class PULSNARCalibrationResult:
    """Output of :func:`calibrate_pulsnar`.

    ``probs`` / ``rows``: calibrated probabilities of all rows in row order (``"PU"``:
    labeled rows from their own cluster's calibration, unlabeled rows combined) or of
    the unlabeled rows (``"U"``); ``unlabeled_probs``: the combined (eq. 6 + rescaling)
    probabilities of the unlabeled rows; ``labeled_probs``: those of the labeled rows
    (``"PU"`` only, else None); ``raw_unlabeled_probs``: eq. 6 (or the sum) before the
    rescaling; ``cluster_unlabeled_probs``: shape ``(c, |U|)``, per-cluster calibrated
    probabilities; ``target = sum_j n_flips[j]`` with ``n_flips[j] = round(alpha_j |U|)``;
    ``cluster_results``: the per-cluster :class:`CalibrationResult` (their ``rows``
    index the cluster's data: its labeled rows then all unlabeled rows)."""

    probs: np.ndarray
    rows: np.ndarray
    unlabeled_probs: np.ndarray
    labeled_probs: np.ndarray | None
    raw_unlabeled_probs: np.ndarray
    cluster_unlabeled_probs: np.ndarray
    target: float
    n_flips: np.ndarray
    alpha: float
    cluster_alphas: np.ndarray
    method: str
    data: str
    n_bins: int
    combine: str
    rescale: bool
    cluster_results: list = field(repr=False)


@validate_params(_constraints("s", "n_bins", "method", "data", "combine", "rescale"))
def calibrate_pulsnar(estimator, s, n_bins=100, method="isotonic", data="PU", random_state=None, *,
                      combine="eq6", rescale=True) -> PULSNARCalibrationResult:
    """Algorithm 4 per cluster, combined by eq. 6, for a fitted
    :class:`~pu_lib.prior.PULSNAR` (SNAR data).

    For every cluster ``j``, the probabilities of cluster ``j``'s model --
    ``cluster_probs_labeled_[j]`` (its labeled rows) and ``cluster_probs_unlabeled_[j]``
    (all unlabeled rows) -- are calibrated with ``cluster_alphas_[j]`` on ``data``
    ``"PU"`` (cluster ``j``'s labeled rows + all unlabeled) or ``"U"`` (all unlabeled),
    as in the paper's SNAR experiments. Every unlabeled row thus gets ``c`` calibrated
    probabilities, combined by :func:`combine_cluster_probabilities` (eq. 6, then, if
    ``rescale``, the capped rescaling to ``target = sum_j round(alpha_j |U|)``, so the
    probabilities of ``U`` sum to ``alpha |U|`` up to rounding: ``|target - alpha |U||
    <= c / 2`` when ``alpha_ = sum_j alpha_j``). A labeled row belongs to one cluster and
    keeps that cluster's calibrated probability (``"PU"``); the labeled rows of a small
    cluster that PULSNAR dropped (``cluster_labels_ == -1``) are outside every cluster
    model and keep probability 1 (they are known positives).

    ``s`` are the PU labels the estimator was fitted on. Cluster ``j`` flips with a seed
    derived from ``(random_state, j)``; ``random_state=None`` falls back to the
    estimator's integer ``random_state`` as in :func:`calibrate_pulscar`.
    """
    s = check_binary(s, "s")
    lab = np.flatnonzero(s == 1)
    unl = np.flatnonzero(s == 0)
    if lab.shape[0] == 0:
        raise ValueError("s has no labeled positives (no s == 1)")
    if unl.shape[0] == 0:
        raise ValueError("s has no unlabeled rows (all s == 1); there is nothing to calibrate")
    n_u = unl.shape[0]
    c = int(_fitted_attr(estimator, "n_clusters_"))
    labels = np.asarray(_fitted_attr(estimator, "cluster_labels_"))
    alphas = np.asarray(_fitted_attr(estimator, "cluster_alphas_"), dtype=np.float64).ravel()
    probs_l = list(_fitted_attr(estimator, "cluster_probs_labeled_"))
    probs_u = np.asarray(_fitted_attr(estimator, "cluster_probs_unlabeled_"), dtype=np.float64)
    alpha = check_fraction(_fitted_attr(estimator, "alpha_"), "estimator.alpha_")
    if c < 1:
        raise ValueError(f"estimator.n_clusters_ must be >= 1, got {c}")
    if labels.shape != (lab.shape[0],):
        raise ValueError(f"estimator.cluster_labels_ has shape {labels.shape} but s has {lab.shape[0]} labeled rows; "
                         "pass the labels the estimator was fitted on")
    if alphas.shape[0] != c or len(probs_l) != c:
        raise ValueError(f"estimator has n_clusters_={c} but {alphas.shape[0]} cluster_alphas_ and "
                         f"{len(probs_l)} cluster_probs_labeled_")
    if probs_u.shape != (c, n_u):
        raise ValueError(f"estimator.cluster_probs_unlabeled_ has shape {probs_u.shape}, expected ({c}, {n_u})")
    if not np.all(np.isin(labels, np.arange(-1, c))):
        raise ValueError(f"estimator.cluster_labels_ must lie in 0..{c - 1} (or -1: a dropped small cluster)")
    base_seed = seed_to_int(_estimator_seed(estimator, random_state), fresh_if_none=True)

    results, cal_u, n_flips = [], np.empty((c, n_u)), np.empty(c, dtype=np.int64)
    # labeled rows of dropped small clusters (label -1) are known positives outside every
    # cluster model: they keep probability 1
    labeled_out = np.where(labels < 0, 1.0, np.nan) if data == "PU" else None
    for j in range(c):
        members = np.flatnonzero(labels == j)
        pl = check_probabilities(probs_l[j], f"estimator.cluster_probs_labeled_[{j}]", n=members.shape[0],
                          ref=f"cluster {j} (labeled rows)")
        if members.shape[0] == 0:
            raise ValueError(f"cluster {j} has no labeled rows; cannot calibrate it")
        aj = check_fraction(alphas[j], f"estimator.cluster_alphas_[{j}]")
        pj = np.concatenate([pl, probs_u[j]])
        sj = np.r_[np.ones(members.shape[0], dtype=np.int8), np.zeros(n_u, dtype=np.int8)]
        res = calibrate_probabilities(pj, sj, aj, n_bins=n_bins, method=method, data=data,
                                      random_state=derive_seed("calibrate_pulsnar", base_seed, j))
        results.append(res)
        cal_u[j] = res.unlabeled_probs
        n_flips[j] = res.n_flips
        if data == "PU":
            labeled_out[members] = res.probs[: members.shape[0]]
    target = float(n_flips.sum())
    raw = combine_cluster_probabilities(cal_u, None, combine)
    final = combine_cluster_probabilities(cal_u, target, combine) if rescale else raw
    if data == "PU":
        probs = np.empty(s.shape[0])
        probs[lab] = labeled_out
        probs[unl] = final
        rows = np.arange(s.shape[0])
    else:
        probs, rows = final, unl
    return PULSNARCalibrationResult(
        probs=probs, rows=rows, unlabeled_probs=final, labeled_probs=labeled_out, raw_unlabeled_probs=raw,
        cluster_unlabeled_probs=cal_u, target=target, n_flips=n_flips, alpha=alpha, cluster_alphas=alphas,
        method=method, data=data, n_bins=n_bins, combine=combine, rescale=bool(rescale), cluster_results=results,
    )


# ------------------------------------------------------------ calibration curves


@validate_params({"probs": ["array-like"], "y_true": ["array-like"], **_constraints("n_bins", "strategy")})
def calibration_curve_data(probs, y_true, n_bins=10, strategy="uniform") -> dict[str, np.ndarray]:
    """Points of a calibration curve (the paper's Figures 6-11): for every non-empty bin
    of the predicted probabilities, their mean (``mean_predicted``), the observed
    fraction of positives (``fraction_positive``) and the number of rows (``count``).

    Binning as ``sklearn.calibration.calibration_curve`` (same output arrays):
    ``"uniform"`` -- ``n_bins`` equal bins of [0, 1]; ``"quantile"`` -- edges at the
    quantiles of ``probs``; a value on an inner edge goes to the lower bin. Also returns
    ``bin`` (index of each non-empty bin) and ``bin_edges``.
    """
    y = check_binary(y_true, "y_true")
    p = check_probabilities(probs, "probs", n=y.shape[0], ref="y_true")
    if y.shape[0] == 0:
        raise ValueError("probs is empty")
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    else:  # "quantile"
        edges = np.percentile(p, np.linspace(0.0, 1.0, n_bins + 1) * 100)
    ids = np.searchsorted(edges[1:-1], p)
    total = np.bincount(ids, minlength=n_bins)
    sums = np.bincount(ids, weights=p, minlength=n_bins)
    pos = np.bincount(ids, weights=y.astype(np.float64), minlength=n_bins)
    nz = total > 0
    return {
        "mean_predicted": sums[nz] / total[nz],
        "fraction_positive": pos[nz] / total[nz],
        "count": total[nz].astype(np.int64),
        "bin": np.flatnonzero(nz),
        "bin_edges": edges,
    }
