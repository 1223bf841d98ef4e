"""PU model selection: scorers that need only ``(X, s)`` -- and the class prior where the
criterion needs it -- and a cross-validation splitter that stratifies on ``s``.

Everything here plugs into scikit-learn's model selection called with the PU labels as
``y``::

    from sklearn.model_selection import GridSearchCV
    from pu_lib.model_selection import PUStratifiedKFold, make_pu_scorer

    search = GridSearchCV(PUExtraTreesClassifier(prior=0.3), {"max_depth": [2, 4, None]},
                          scoring=make_pu_scorer("pu_f1", prior=0.3),
                          cv=PUStratifiedKFold(5, random_state=0))
    search.fit(X, s)                      # y = s: 1 labeled positive, 0 unlabeled

:data:`PU_SCORERS` maps each scorer's name to its factory (the docstring of each factory
cites its source and states its assumptions); :func:`make_pu_scorer` builds one by name.
A scorer is a callable ``scorer(estimator, X, s)`` returning a number where higher is
better (the risks are negated), as ``scoring=`` takes it in ``GridSearchCV``,
``cross_val_score`` and ``cross_validate`` (also in a dict of several).

Notation: ``s`` the labeled indicator, ``y_hat`` the estimator's 0/1 ``predict``,
``pi = Pr(y = 1)`` the class prior of the population the rows represent,
``r = Pr(y_hat = 1 | s = 1)`` the recall measured on the labeled rows and
``q = Pr(y_hat = 1)`` the predicted-positive rate of the population. Which rows
represent the population depends on ``scenario``
(:data:`pu_lib._validation.SCENARIOS`, as in :func:`pu_lib.metrics.pu_risk_01`):

* ``"single_training_set"`` (default): the rows are one sample of the population in
  which some positives are labeled; ``q`` and the unlabeled risk term are taken over all
  rows, and the unlabeled rows hold positives at the rate
  ``alpha = (pi - l) / (1 - l)`` (``l`` the labeled share of the scored rows);
* ``"case_control"``: the labeled rows are a separate sample of positives stacked onto a
  sample of the population (the unlabeled rows); ``q`` and the unlabeled risk term are
  taken over the unlabeled rows, which hold positives at the rate ``alpha = pi``.

Every scorer assumes SCAR (labeled positives are a random sample of the positives), so
that ``r`` estimates the recall on all positives and the labeled rows score like the
unlabeled positives. Under another labeling mechanism (SAR / SNAR) the estimates are
biased. Scorers that need ``pi`` are only as good as the prior given (for example an
estimate from :mod:`pu_lib.prior`). Background: Bekker's thesis, sections 2.3.1 and
2.3.3 (evaluation metrics from PU data under SCAR with a known prior). Measurements of
how well each ranks models: ``docs/model_selection.md``.

This module belongs to the evaluation layer: estimators never import it, and it imports
no workflow code.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.model_selection import StratifiedKFold

from pu_lib._seeding import seed_to_int
from pu_lib._validation import (CASE_CONTROL, SCENARIOS, SINGLE_TRAINING_SET, Interval, StrOptions, as_1d,
                                check_binary, check_scenario, validate_params)
from pu_lib.metrics import PRIOR_SCORER_NAMES, auc_roc, lee_liu, population_mask, pu_risk_from_losses

__all__ = [
    "PRIOR_SCORERS",
    "PUScorer",
    "PUStratifiedKFold",
    "PU_SCORERS",
    "degenerate_predictions",
    "lee_liu_score",
    "lee_liu_scorer",
    "make_pu_scorer",
    "pu_accuracy_score",
    "pu_accuracy_scorer",
    "pu_auc_corrected_scorer",
    "pu_auc_scorer",
    "pu_f1_score",
    "pu_f1_scorer",
    "pu_risk_sigmoid",
    "pu_roc_auc_corrected",
    "pu_roc_auc_score",
    "positive_rate_scorer",
    "nnpu_risk_scorer",
    "upu_risk_scorer",
]

#: a class prior as the scorers take it (0 and 1 leave nothing to select)
_PRIOR = [Interval(Real, 0.0, 1.0, closed="neither")]


# ------------------------------------------------------------------ score functions


def _s(s) -> np.ndarray:
    s = check_binary(s, "s")
    if s.shape[0] == 0:
        raise ValueError("s is empty")
    if not s.any():
        raise ValueError("s has no labeled positives (no s == 1); a PU scorer needs labeled rows in every "
                         "scored fold (use PUStratifiedKFold)")
    return s


def _checked_predictions(s, y_pred, scenario: str) -> tuple[np.ndarray, np.ndarray]:
    """``(s, y_pred)`` after the scorers' input checks (binary, same length, a labeled row,
    a known scenario)."""
    check_scenario(scenario)
    s = _s(s)
    return s, check_binary(as_1d(y_pred, "y_pred", s.shape[0], "s"), "y_pred")


def _recall_and_rate(s, y_pred, scenario: str) -> tuple[np.ndarray, float, float]:
    """``(s, r, q)``: the recall on the labeled rows and the predicted-positive rate of the
    population rows (module docstring)."""
    s, y_pred = _checked_predictions(s, y_pred, scenario)
    r = float(y_pred[s == 1].mean())
    q = float(y_pred[population_mask(s, scenario)].mean())
    return s, r, q


def _clipped_rate(r: float, q: float, prior: float) -> float:
    """``q`` clipped into ``[pi r, pi r + 1 - pi]``, the range the identity
    ``q = pi r + (1 - pi) FPR`` allows; sampling noise (or a wrong prior) can put the
    measured ``q`` outside, which would give a precision above 1 or a negative false
    positive rate."""
    return min(max(q, prior * r), prior * r + 1.0 - prior)


def lee_liu_score(s, y_pred, scenario: str = SINGLE_TRAINING_SET) -> float:
    """Lee & Liu's (2003) criterion ``r^2 / q`` of 0/1 predictions (0 when nothing is
    predicted positive). Equals ``precision * recall / pi`` under SCAR, so it ranks like
    F1 without the prior (Bekker thesis, eq. 2.8): :func:`pu_lib.metrics.lee_liu` after
    the scorers' input checks."""
    s, y_pred = _checked_predictions(s, y_pred, scenario)
    return lee_liu(s, y_pred, scenario=scenario)


@validate_params({"prior": _PRIOR, "scenario": [StrOptions(SCENARIOS)]})
def pu_f1_score(s, y_pred, prior, scenario: str = SINGLE_TRAINING_SET) -> float:
    """PU estimate of the F1 score of 0/1 predictions from the class prior ``pi``.

    ``F1 = 2 TP / (2 TP + FP + FN) = 2 Pr(y_hat = 1, y = 1) / (Pr(y_hat = 1) + Pr(y = 1))
    = 2 pi r / (pi + q)`` -- equivalently ``2 p r / (p + r)`` with the precision
    ``p = pi r / q`` (Bayes' rule) -- where, under SCAR, ``r`` is measured on the labeled
    rows and ``q`` on the population rows; ``q`` is clipped into ``[pi r, pi r + 1 - pi]``
    so the estimate stays in [0, 1]. 0 when nothing is predicted positive.
    """
    _, r, q = _recall_and_rate(s, y_pred, scenario)
    q = _clipped_rate(r, q, prior)
    return 0.0 if r == 0.0 else 2.0 * prior * r / (prior + q)


@validate_params({"prior": _PRIOR, "scenario": [StrOptions(SCENARIOS)]})
def pu_accuracy_score(s, y_pred, prior, scenario: str = SINGLE_TRAINING_SET) -> float:
    """PU estimate of the accuracy of 0/1 predictions from the class prior ``pi``.

    ``accuracy = pi r + (1 - pi)(1 - FPR)`` and ``q = pi r + (1 - pi) FPR``, so
    ``accuracy = 1 - pi - q + 2 pi r`` (error rate ``pi + q - 2 pi r``), with ``r`` from the
    labeled rows (SCAR) and ``q`` from the population rows, clipped into
    ``[pi r, pi r + 1 - pi]`` (a false positive rate in [0, 1]).
    """
    _, r, q = _recall_and_rate(s, y_pred, scenario)
    q = _clipped_rate(r, q, prior)
    return 1.0 - prior - q + 2.0 * prior * r


def pu_roc_auc_score(s, score) -> float:
    """AUC between the labeled rows (as positives) and the unlabeled rows (as negatives)
    of a ranking ``score``; ties count 1/2 (:func:`pu_lib.metrics.auc_roc`). NaN when
    every row is labeled."""
    s = _s(s)
    return auc_roc(s, as_1d(score, "score", s.shape[0], "s"))


def _unlabeled_positive_rate(s: np.ndarray, prior: float, scenario: str) -> float:
    """``alpha``, the share of positives among the unlabeled rows (module docstring),
    clipped at 0 (a prior below the labeled share in the single-training-set scenario)."""
    if scenario == CASE_CONTROL:
        return prior
    labeled = float(s.mean())
    if labeled >= 1.0:
        return 0.0
    return max(0.0, (prior - labeled) / (1.0 - labeled))


@validate_params({"prior": _PRIOR, "scenario": [StrOptions(SCENARIOS)]})
def pu_roc_auc_corrected(s, score, prior, scenario: str = SINGLE_TRAINING_SET) -> float:
    """PU AUC corrected to the PN AUC (Menon et al. 2015 -- the AUC under label noise
    is affine in the clean AUC; Jain, White & Radivojac 2017, the
    positive-unlabeled case).

    The unlabeled rows are a mixture ``alpha P + (1 - alpha) N`` and, under SCAR, the
    labeled rows are a sample of ``P``; a labeled row outranks an unlabeled positive with
    probability 1/2 on average, so ``AUC_PU = alpha / 2 + (1 - alpha) AUC_PN`` and

        ``AUC_PN = (AUC_PU - alpha / 2) / (1 - alpha)``.

    ``alpha`` is the positive share of the unlabeled rows: the prior ``pi`` in the
    case-control scenario, ``(pi - l) / (1 - l)`` (``l``: labeled share of the scored rows)
    in the single-training-set scenario (clipped at 0). The correction is a fixed increasing
    map of ``AUC_PU`` for given ``alpha``, so it ranks models as :func:`pu_roc_auc_score`
    does on the same rows; it differs in the value, which estimates the PN AUC. Not clipped
    to [0, 1] (sampling noise can take it slightly outside).
    """
    s = _s(s)
    auc = pu_roc_auc_score(s, score)
    alpha = _unlabeled_positive_rate(s, prior, scenario)
    return float((auc - alpha / 2.0) / (1.0 - alpha))


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * v))  # 1 / (1 + exp(-v)), without overflow


@validate_params({"prior": _PRIOR, "estimator": [StrOptions({"upu", "nnpu"})],
                  "kind": [StrOptions({"proba", "margin"})], "scenario": [StrOptions(SCENARIOS)]})
def pu_risk_sigmoid(s, output, prior, estimator: str = "nnpu", kind: str = "proba",
                    scenario: str = SINGLE_TRAINING_SET) -> float:
    """Empirical uPU / nnPU risk with the sigmoid loss ``l(z, y) = 1 / (1 + exp(y z))``
    (du Plessis, Niu & Sugiyama 2014/2015; Kiryo et al. 2017, the nnPU risk their eq. 6), lower
    is better.

    ``output``: a margin ``g(x)`` (``kind="margin"``, e.g. ``decision_function``) or
    ``P(y = 1 | x)`` (``kind="proba"``, read as the margin ``logit p``: then
    ``l(g, +1) = 1 - p`` and ``l(g, -1) = p``, a loss in [0, 1] whatever the model).
    With ``P`` the labeled rows and ``U`` the population rows (module docstring):

    * uPU: ``pi E_P[l(g, +1)] - pi E_P[l(g, -1)] + E_U[l(g, -1)]``;
    * nnPU: ``pi E_P[l(g, +1)] + max(0, E_U[l(g, -1)] - pi E_P[l(g, -1)])``,

    unbiased (uPU) or consistent (nnPU) estimates of the PN risk
    ``pi E_P[l(g, +1)] + (1 - pi) E_N[l(g, -1)]`` under SCAR with the true prior.
    """
    s = _s(s)
    out = as_1d(output, "output", s.shape[0], "s").astype(np.float64)
    if np.isnan(out).any():
        raise ValueError(f"output contains {int(np.isnan(out).sum())} NaN value(s)")
    if kind == "proba":
        if out.min() < 0.0 or out.max() > 1.0:
            raise ValueError("output must hold probabilities in [0, 1] with kind='proba'")
        loss_pos, loss_neg = 1.0 - out, out
    else:
        loss_pos, loss_neg = _sigmoid(-out), _sigmoid(out)
    return pu_risk_from_losses(loss_pos, loss_neg, s, prior, estimator, scenario)


# ------------------------------------------------------------------------- scorers


def _column1(proba) -> np.ndarray:
    proba = np.asarray(proba, dtype=np.float64)
    return proba[:, 1] if proba.ndim == 2 else proba


def _ranking(estimator, X) -> np.ndarray:
    """``decision_function`` when the estimator has one, else column 1 of
    ``predict_proba`` (scikit-learn's order for the AUC)."""
    if hasattr(estimator, "decision_function"):
        return np.asarray(estimator.decision_function(X), dtype=np.float64).ravel()
    return _column1(estimator.predict_proba(X))


class PUScorer:
    """A PU scorer: ``scorer(estimator, X, s)`` -> float, higher is better. Built by the
    factories of :data:`PU_SCORERS` (through :func:`make_pu_scorer`); ``name``, ``prior``
    and ``scenario`` are its settings, ``response`` what it reads from the estimator
    (``"predict"``, ``"ranking"``: ``decision_function`` else ``predict_proba``;
    ``"risk"``: ``predict_proba`` else ``decision_function``).

    ``y`` is the PU label ``s``. ``sample_weight`` is not supported (a ``ValueError``):
    every criterion weighs rows equally.
    """

    def __init__(self, name: str, prior, scenario: str):
        self.name = name
        self.prior = None if prior is None else float(prior)
        self.scenario = scenario
        self.response = _RESPONSE[name]

    def __repr__(self) -> str:
        prior = "" if self.prior is None else f", prior={self.prior!r}"
        return f"make_pu_scorer({self.name!r}{prior}, scenario={self.scenario!r})"

    def __call__(self, estimator, X, y, sample_weight=None) -> float:
        if sample_weight is not None:
            raise ValueError(f"the PU scorer {self.name!r} does not take sample_weight")
        s = _s(y)
        name, prior, scenario = self.name, self.prior, self.scenario
        if self.response == "predict":
            y_pred = np.asarray(estimator.predict(X)).ravel()
            if name == "lee_liu":
                return lee_liu_score(s, y_pred, scenario)
            if name == "pu_f1":
                return pu_f1_score(s, y_pred, prior, scenario)
            return pu_accuracy_score(s, y_pred, prior, scenario)
        if self.response == "ranking":
            score = _ranking(estimator, X)
            if name == "pu_auc":
                return pu_roc_auc_score(s, score)
            return pu_roc_auc_corrected(s, score, prior, scenario)
        if hasattr(estimator, "predict_proba"):
            output, kind = _column1(estimator.predict_proba(X)), "proba"
        else:
            output, kind = np.asarray(estimator.decision_function(X), dtype=np.float64).ravel(), "margin"
        return -pu_risk_sigmoid(s, output, prior, name.split("_")[0], kind, scenario)


def lee_liu_scorer(prior=None, scenario: str = SINGLE_TRAINING_SET) -> PUScorer:
    """Lee & Liu's ``r^2 / Pr(y_hat = 1)`` of ``predict`` (:func:`lee_liu_score`).

    Source: W. S. Lee and B. Liu, "Learning with positive and unlabeled examples using
    weighted logistic regression", ICML 2003; Bekker's thesis, section 2.3.1, eq. 2.8.
    Assumes SCAR (the recall on the labeled rows is the recall on all positives). Needs no
    prior (``prior`` is ignored). Not an estimate of a PN metric: it is
    ``precision * recall / pi``, which is high when F1 is high; compare it across models on
    the same data only.
    """
    return PUScorer("lee_liu", prior, scenario)


def pu_f1_scorer(prior=None, scenario: str = SINGLE_TRAINING_SET) -> PUScorer:
    """PU estimate of the F1 score of ``predict`` from the prior (:func:`pu_f1_score`:
    ``F1 = 2 pi r / (pi + Pr(y_hat = 1))``).

    Source: the contingency-table estimates of Bekker's thesis, section 2.3.3 (Claesen et
    al., "Assessing binary classifiers using only positive and unlabeled data",
    Neurocomputing 2015; Jain et al. 2017): under SCAR the recall is measured on the labeled
    rows and the prior fixes the expected number of positives. Assumes SCAR and a known class prior
    ``pi`` (required).
    """
    return PUScorer("pu_f1", prior, scenario)


def pu_accuracy_scorer(prior=None, scenario: str = SINGLE_TRAINING_SET) -> PUScorer:
    """PU estimate of the accuracy of ``predict`` from the prior
    (:func:`pu_accuracy_score`: ``1 - pi - Pr(y_hat = 1) + 2 pi r``).

    Source: as :func:`pu_f1_scorer` (Bekker's thesis, section 2.3.3). Assumes SCAR and a
    known class prior ``pi`` (required).
    """
    return PUScorer("pu_accuracy", prior, scenario)


def pu_auc_scorer(prior=None, scenario: str = SINGLE_TRAINING_SET) -> PUScorer:
    """AUC between the labeled and the unlabeled rows of ``decision_function`` (else
    ``predict_proba``) (:func:`pu_roc_auc_score`).

    Source: Menon et al., "Learning from corrupted binary labels via class-probability
    estimation", ICML 2015 (the AUC of corrupted labels is an increasing affine function of
    the clean AUC, so it ranks scorers alike); Jain, White & Radivojac, "Recovering true
    classifier performance in positive-unlabeled learning", AAAI 2017. Assumes SCAR.
    Needs no prior (``prior`` is ignored); its value is below the PN AUC
    (:func:`pu_auc_corrected_scorer` corrects it).
    """
    return PUScorer("pu_auc", prior, scenario)


def pu_auc_corrected_scorer(prior=None, scenario: str = SINGLE_TRAINING_SET) -> PUScorer:
    """The labeled-vs-unlabeled AUC corrected to the PN AUC,
    ``(AUC_PU - alpha / 2) / (1 - alpha)`` with ``alpha`` the positive share of the
    unlabeled rows (:func:`pu_roc_auc_corrected`).

    Source: Menon et al. 2015; Jain, White & Radivojac 2017 (see :func:`pu_auc_scorer`).
    Assumes SCAR and a known class prior ``pi`` (required). Ranks models as
    ``"pu_auc"`` on the same folds; use it when the value itself matters.
    """
    return PUScorer("pu_auc_corrected", prior, scenario)


def upu_risk_scorer(prior=None, scenario: str = SINGLE_TRAINING_SET) -> PUScorer:
    """Minus the unbiased PU (uPU) risk with the sigmoid loss on the scored rows
    (:func:`pu_risk_sigmoid`), from ``predict_proba`` (else ``decision_function``).

    Source: du Plessis, Niu & Sugiyama, "Analysis of learning from positive and unlabeled
    data", NIPS 2014 / "Convex formulation for learning from positive and unlabeled data",
    ICML 2015; Kiryo et al., "Positive-unlabeled learning with non-negative risk
    estimator", NIPS 2017. Assumes SCAR and a known class prior ``pi`` (required). An
    unbiased estimate of minus the PN sigmoid risk; it can exceed 0 (a negative risk).
    """
    return PUScorer("upu_risk", prior, scenario)


def nnpu_risk_scorer(prior=None, scenario: str = SINGLE_TRAINING_SET) -> PUScorer:
    """Minus the non-negative PU (nnPU) risk with the sigmoid loss on the scored rows
    (:func:`pu_risk_sigmoid`), from ``predict_proba`` (else ``decision_function``).

    Source: Kiryo, Niu, du Plessis & Sugiyama, "Positive-unlabeled learning with
    non-negative risk estimator", NIPS 2017, eq. 6. Assumes SCAR and a known class prior
    ``pi`` (required). The negative-class part is clipped at 0, so the risk is never
    negative (a biased but consistent estimate of the PN sigmoid risk).
    """
    return PUScorer("nnpu_risk", prior, scenario)


#: scorer name -> factory ``(prior=None, scenario="single_training_set") -> PUScorer``
PU_SCORERS = {
    "lee_liu": lee_liu_scorer,
    "pu_f1": pu_f1_scorer,
    "pu_accuracy": pu_accuracy_scorer,
    "pu_auc": pu_auc_scorer,
    "pu_auc_corrected": pu_auc_corrected_scorer,
    "upu_risk": upu_risk_scorer,
    "nnpu_risk": nnpu_risk_scorer,
}

#: the scorers that need the class prior (pu_lib.metrics.PRIOR_SCORER_NAMES, which the
#: command line's help lists without importing this module)
PRIOR_SCORERS = PRIOR_SCORER_NAMES

#: scorer name -> what it reads from the estimator (PUScorer)
_RESPONSE = {"lee_liu": "predict", "pu_f1": "predict", "pu_accuracy": "predict", "pu_auc": "ranking",
             "pu_auc_corrected": "ranking", "upu_risk": "risk", "nnpu_risk": "risk"}


@validate_params({"name": [StrOptions(set(PU_SCORERS))], "prior": [None, *_PRIOR],
                  "scenario": [StrOptions(SCENARIOS)]})
def make_pu_scorer(name: str, prior=None, scenario: str = SINGLE_TRAINING_SET) -> PUScorer:
    """The PU scorer ``name`` (a key of :data:`PU_SCORERS`) for ``scoring=`` in
    scikit-learn's model selection called with ``(X, s)``.

    ``prior``: the class prior ``pi`` in (0, 1) of the population (module docstring);
    required by the scorers in :data:`PRIOR_SCORERS`, ignored by ``"lee_liu"`` and
    ``"pu_auc"``. ``scenario``: ``"single_training_set"`` (default) or ``"case_control"``.
    Raises ``ValueError`` for an unknown name or scenario, a prior outside (0, 1), or a
    missing prior.
    """
    if name in PRIOR_SCORERS and prior is None:
        raise ValueError(f"the PU scorer {name!r} needs the class prior: make_pu_scorer({name!r}, prior=...) "
                         f"(for example from a pu_lib.prior estimator); 'lee_liu' and 'pu_auc' need none")
    return PU_SCORERS[name](prior=prior, scenario=scenario)


# ------------------------------------------------------------------------ splitter


class PUStratifiedKFold(StratifiedKFold):
    """K-fold cross-validation stratified on the PU labels ``s`` (pass ``s`` as ``y``).

    Each test fold gets the labeled and the unlabeled rows in the same shares as the whole
    data, within one row of each (scikit-learn's ``StratifiedKFold`` allocation): in the
    single-training-set scenario every fold is then a SCAR sample with the label frequency
    of the whole, and every fold has labeled rows for the recall the PU scorers measure.
    Shuffled by default (rows are often stored sorted by class).

    Parameters
    ----------
    n_splits : int >= 2, default 5.
    shuffle : bool, default True.
    random_state : None, int, ``numpy.random.Generator`` or ``RandomState``; with
        ``shuffle=True`` the seed of the shuffle (a Generator or RandomState is drawn from
        at each ``split``).

    ``split`` raises ``ValueError`` when ``s`` is not 0/1 or has fewer labeled or unlabeled
    rows than ``n_splits``.
    """

    def __init__(self, n_splits: int = 5, shuffle: bool = True, random_state=None):
        if not isinstance(n_splits, Integral) or isinstance(n_splits, bool) or n_splits < 2:
            raise ValueError(f"n_splits must be an integer >= 2, got {n_splits!r}")
        super().__init__(n_splits=n_splits, shuffle=shuffle, random_state=None)
        self.random_state = random_state
        if not shuffle and random_state is not None:
            raise ValueError("random_state only applies with shuffle=True; leave it None with shuffle=False")

    def split(self, X, y, groups=None):
        s = check_binary(y, "s (passed as y)")
        n_lab = int(s.sum())
        n_unl = int(s.shape[0] - n_lab)
        if n_lab < self.n_splits or n_unl < self.n_splits:
            raise ValueError(f"s has {n_lab} labeled and {n_unl} unlabeled rows; PUStratifiedKFold needs at least "
                             f"n_splits={self.n_splits} of each (one per test fold)")
        if X is not None:
            n_x = X.shape[0] if hasattr(X, "shape") else len(X)
            if n_x != s.shape[0]:
                raise ValueError(f"X has {n_x} rows but s has {s.shape[0]}")
        seed = seed_to_int(self.random_state) if self.shuffle else None
        inner = StratifiedKFold(n_splits=self.n_splits, shuffle=self.shuffle, random_state=seed)
        yield from inner.split(np.zeros((s.shape[0], 1)), s)


# ------------------------------------------------------------------------ degenerate models


def positive_rate_scorer(estimator, X, y=None, sample_weight=None) -> float:  # noqa: ARG001 - a scorer's signature
    """The share of the rows of ``X`` that ``estimator`` predicts positive (1): a
    scikit-learn scorer (``scoring={"positive_rate": positive_rate_scorer, ...}``) whose
    per-fold values :func:`degenerate_predictions` reads."""
    return float(np.mean(np.asarray(estimator.predict(X)).ravel() == 1))


def degenerate_predictions(positive_rates) -> str | None:
    """``"predicts only 0"`` / ``"predicts only 1"`` when the predicted-positive share
    (:func:`positive_rate_scorer`) is 0 / 1 on every fold, else None.

    The rule by which model selection (``pu-lib select``, the workflow's ``select:``,
    :func:`pu_lib.workflow.experiments.methods.select_params`) marks a model and never ranks it
    first: a model that predicts a single class everywhere separates nothing, yet a
    prior-based scorer can rank it high (PU accuracy of "all negative" is about
    ``1 - prior``, 0.95 at a prior of 0.05)."""
    r = np.asarray(positive_rates, dtype=float).ravel()
    if r.size and np.all(r == 0.0):
        return "predicts only 0"
    if r.size and np.all(r == 1.0):
        return "predicts only 1"
    return None
