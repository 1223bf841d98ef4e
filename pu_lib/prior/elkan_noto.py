"""Elkan & Noto (2008) label-frequency estimators e1, e2, e3: the one implementation, used
by the prior estimator here and by :class:`pu_lib.baselines.ElkanNotoClassifier`.

C. Elkan and K. Noto, "Learning classifiers from only positive and unlabeled data",
KDD 2008, section 2. A non-traditional classifier ``g(x) ~ Pr(s = 1 | x)`` is trained on
part of the data (labeled vs unlabeled); on a held-out validation set ``V`` with
labeled subset ``P``:

* ``e1 = (1/|P|) sum_{x in P} g(x)``  (the paper's choice),
* ``e2 = sum_{x in P} g(x) / sum_{x in V} g(x)``,
* ``e3 = max_{x in V} g(x)``,

each an estimate of the label frequency ``c``; the class prior follows by thesis eq. 2.5
(see :mod:`pu_lib.prior.base`). :func:`elkan_noto_fit` does the fitting (stratified
hold-out split of :mod:`pu_lib.oof`, base classifier through :mod:`pu_lib.base_learners`,
the three estimates); :class:`ElkanNotoPrior` and the classifier both call it, so they
give the same ``c`` for the same seed (tested). The classifier's module imports this one,
never the other way round (docs/developers.md, "Layout and layers").
"""

from __future__ import annotations

from numbers import Real
from typing import NamedTuple

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from pu_lib._seeding import derive_seed
from pu_lib._seeding import seed_to_int as _seed_to_int
from pu_lib.base import RANDOM_STATE_CONSTRAINT
from pu_lib.base_learners import clone_base, fit_base, positive_proba
from pu_lib.oof import stratified_hold_out
from pu_lib.prior.base import BasePriorEstimator

__all__ = ["C_ESTIMATORS", "ElkanNotoFit", "ElkanNotoPrior", "elkan_noto_fit"]

#: the label-frequency estimators of the paper
C_ESTIMATORS = ("e1", "e2", "e3")

#: the parameters of :func:`elkan_noto_fit`, as scikit-learn constraints; the prior
#: estimator and the classifier declare these
PARAMETER_CONSTRAINTS: dict = {
    "estimator": [None, HasMethods(["fit", "predict_proba"])],
    "hold_out_ratio": [Interval(Real, 0, 1, closed="neither")],
    "c_estimator": [StrOptions(set(C_ESTIMATORS))],
    "random_state": RANDOM_STATE_CONSTRAINT,
}


class ElkanNotoFit(NamedTuple):
    """What :func:`elkan_noto_fit` returns."""

    #: the fitted non-traditional classifier ``g`` (trained on the non-held-out rows)
    estimator: object
    #: ``{"e1", "e2", "e3"}``: the three estimates of ``c``, unclipped
    c_estimates: dict
    #: row indices (into ``X``) of the held-out part (with integer weights: the rows with
    #: at least one held-out unit)
    hold_out: np.ndarray
    #: ``Pr(s = 1)`` of all rows, weighted with ``sample_weight``
    labeled_fraction: float


def elkan_noto_fit(X, s, sample_weight=None, *, estimator=None, hold_out_ratio=0.1, c_estimator="e1",
                   random_state=None) -> ElkanNotoFit:
    """Fit ``g`` and estimate the label frequency ``c`` (Elkan & Noto 2008, section 2).

    ``X``, ``s`` and ``sample_weight`` are validated training data
    (:func:`pu_lib._validation.validate_pu_data`: float ``X``, 0/1 ``s``, positive weights
    or None). Steps: (1) split the rows, stratified on ``s``, into a part of relative size
    ``1 - hold_out_ratio`` and a held-out part (:func:`pu_lib.oof.stratified_hold_out`,
    seeded with ``derive_seed(random_state, "ElkanNotoClassifier", "hold_out")``; ``None``
    gives a non-reproducible split); (2) fit a clone of ``estimator`` (default standardised
    logistic regression; given ``random_state`` when it has that parameter) as ``g`` on the
    first part, unlabeled rows taken as negatives; (3) compute ``e1``, ``e2``, ``e3`` on the
    held-out part, weighted with the held-out weights (``e3``, a maximum, only needs the
    rows). Integer weights act as repeated rows in the split (see
    :class:`pu_lib.baselines.ElkanNotoClassifier`, "Sample weights").

    ``ValueError`` when either part has no labeled row, the training part no unlabeled
    row, or the ``c_estimator`` estimate is not positive."""
    ratio = float(hold_out_ratio)
    w = sample_weight
    seed = _seed_to_int(random_state)
    if seed is None:
        rng = np.random.default_rng()
    else:
        # the tag names the classifier, where this code was first: kept so that seeds give
        # the same splits as before
        rng = np.random.default_rng(derive_seed(seed, "ElkanNotoClassifier", "hold_out"))
    train_idx, w_train, hold_idx, w_hold = stratified_hold_out(s, ratio, rng, w)

    s_train, s_hold = s[train_idx], s[hold_idx]
    n_lab = int(s.sum())
    if not s_hold.any():
        raise ValueError(
            f"the held-out part has no labeled positives (hold_out_ratio={ratio} of "
            f"{n_lab} labeled examples rounds to 0); increase hold_out_ratio or "
            "provide more labeled positives"
        )
    if not s_train.any():
        raise ValueError(
            f"the training part has no labeled positives (hold_out_ratio={ratio} keeps "
            f"none of the {n_lab} labeled examples); decrease hold_out_ratio or "
            "provide more labeled positives"
        )
    if s_train.all():
        raise ValueError(
            "the training part has no unlabeled examples; decrease hold_out_ratio or "
            "provide more unlabeled data"
        )

    base = clone_base(estimator, seed)
    fit_base(base, X[train_idx], s_train, w_train)

    g_hold = positive_proba(base, X[hold_idx])
    lab = s_hold == 1
    if w_hold is None:
        g_lab = g_hold[lab]
        total = float(g_hold.sum())
        e1, e2_num = float(g_lab.mean()), float(g_lab.sum())
        labeled_fraction = float(s.mean())
    else:
        wg = w_hold * g_hold
        total = float(wg.sum())
        e1, e2_num = float(wg[lab].sum() / w_hold[lab].sum()), float(wg[lab].sum())
        labeled_fraction = float(w[s == 1].sum() / w.sum())
    estimates = {
        "e1": e1,
        "e2": e2_num / total if total > 0 else 0.0,
        "e3": float(g_hold.max()),
    }
    c = estimates[c_estimator]
    if not (c > 0.0):
        raise ValueError(
            f"estimated label frequency c ({c_estimator}) is {c}: the base "
            "estimator gives probability 0 to every held-out labeled example; "
            "use a better calibrated estimator or more data"
        )
    return ElkanNotoFit(base, estimates, hold_idx, labeled_fraction)


class ElkanNotoPrior(BasePriorEstimator):
    """Class prior from Elkan & Noto's label-frequency estimate ``c`` (e1, e2 or e3).

    Parameters
    ----------
    estimator : unfitted probabilistic classifier (``fit`` and ``predict_proba``) for
        ``g``; default standardised logistic regression (as in
        :class:`pu_lib.baselines.ElkanNotoClassifier`).
    hold_out_ratio : fraction in (0, 1) of labeled and of unlabeled rows held out to
        estimate ``c`` (the rest trains ``g``).
    c_estimator : ``"e1"`` (default), ``"e2"`` or ``"e3"``.
    random_state : None, int, Generator or RandomState (hold-out split and base classifier seed).

    ``fit(X, s, sample_weight=None)``: weights as in
    :class:`~pu_lib.baselines.ElkanNotoClassifier` (zero weights drop rows, integer
    weights act as duplicated rows); the labeled fraction behind ``prior_`` and
    ``alpha_`` is then weighted too.

    Attributes
    ----------
    alpha_, prior_, c_ : see :mod:`pu_lib.prior.base`; ``c_`` is the chosen estimate
        clipped to [labeled fraction, 1] (``raw_estimate_`` keeps the unclipped one: e1 of
        a poorly calibrated ``g`` can fall below the labeled fraction, implying a prior
        above 1).
    c_estimates_ : dict with all three estimates.
    estimator_ : the fitted non-traditional classifier ``g``.
    hold_out_indices_ : row indices of the held-out part, into the rows that ``fit`` keeps
        (rows of weight 0 are dropped first); the same as the classifier's for the same
        data and seed.
    """

    _parameter_constraints: dict = dict(PARAMETER_CONSTRAINTS)
    #: one labeled row to train ``g`` and one held out to estimate ``c`` on
    #: (:func:`pu_lib.oof.split_rows` holds out at least one of two or more)
    _MIN_LABELED = 2
    _MIN_LABELED_WHY = "one to train the classifier g, one held out to estimate c on"

    def __init__(self, estimator=None, *, hold_out_ratio=0.1, c_estimator="e1", random_state=None):
        self.estimator = estimator
        self.hold_out_ratio = hold_out_ratio
        self.c_estimator = c_estimator
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, sample_weight=None):
        """Estimate ``c`` (and the prior) from features ``X``, labels ``s`` (1 = labeled)
        and optional per-row weights."""
        return self._fit(X, s, sample_weight)

    def _estimate(self, X, s, sample_weight=None):
        fit = elkan_noto_fit(X, s, sample_weight, estimator=self.estimator, hold_out_ratio=self.hold_out_ratio,
                             c_estimator=self.c_estimator, random_state=self.random_state)
        self.estimator_ = fit.estimator
        self.hold_out_indices_ = fit.hold_out
        self.c_estimates_ = dict(fit.c_estimates)
        return "c", fit.c_estimates[self.c_estimator]
