"""Propensity-weighted PU learning (Bekker thesis, section 5.3, Definition 7; section
2.4.3, "Empirical-Risk-Minimization Based Methods").

Under SAR the chance that a positive is labeled depends on its attributes: the propensity
score ``e(x) = Pr(s = 1 | y = 1, x)`` (Definition 6). A labeled example with propensity
``e`` stands for ``1/e`` positives of which ``1/e - 1`` were not labeled and sit among the
unlabeled rows, so the data set is rewritten as (single-training-set scenario):

* every labeled row as a positive with weight ``1/e(x)`` and as a negative with weight
  ``1 - 1/e(x)`` (negative);
* every unlabeled row as a negative with weight 1.

With the true ``e`` the weighted risk ``1/n sum_i s_i (delta_1/e_i + (1 - 1/e_i) delta_0)
+ (1 - s_i) delta_0`` is an unbiased estimate of the fully labeled risk for any loss
``delta`` (Definition 7 and the line after it): :func:`propensity_weighted_risk` computes
it and the tests check its mean over many labelings. With an estimate ``e_hat`` the bias
is Proposition 3's ``1/n sum_i y_i (1 - e_i/e_hat_i)(delta_1 - delta_0)``.

Case-control scenario (section 2.4.3): P is a sample of the labeled positives and U a
sample of the population (in pu_lib's case-control label files U is *every* training row,
the labeled ones included). The risk is ``alpha E_P[c/e (L+ - L-)] + E_U[L-]`` with
``c = 1 / E_P[1/e]`` (the normaliser of ``f_P(x) = e(x) f_+(x) / c``). Scaled by ``n = |U|``:
every row as a negative with weight 1 and every labeled row in addition as a positive with
weight ``K = alpha c n / (e n_P)`` and a negative with weight ``-K``; it needs the class
prior ``alpha`` (``prior``).

SCAR is the special case ``e(x) = c`` (:class:`LabelFrequencyWeightedClassifier`, the
thesis' "SCAR" approach with the true or an estimated label frequency); ``c = 1`` gives the
naive classifier that takes every unlabeled row as a negative.

**Learners without negative weights.** Definition 7 needs a learner that minimises a
weighted risk with negative weights: pu_lib's :class:`~pu_lib.sar.WeightedLogisticRegression`
(the default, the thesis' logistic regression) or any scikit-learn classifier whose
``fit`` accepts negative ``sample_weight`` (scikit-learn's ``LogisticRegression`` does).
For the others ``weighting="symmetric"`` rewrites the risk without negative weights: a
labeled row's two terms ``K delta_1 + (1 - K) delta_0`` equal ``(2K - 1) delta_1`` plus a
constant when the loss is symmetric, ``delta_0 + delta_1 = 1`` (the 0-1 loss, the ramp and
sigmoid losses; du Plessis et al. 2014, quoted in section 2.4.3), so the row enters once,
as a positive with weight ``2K - 1`` (``2/e - 1`` in the single-training-set scenario), or
as a negative with weight ``1 - 2K`` when that is the positive one. For a non-symmetric
loss (log loss, impurity-based trees) this rewriting is an approximation, as the thesis
notes for du Plessis' estimator.

``propensity_bias`` multiplies the propensities before weighting (clipped to ``(0, 1]``):
the thesis' biased-propensity experiments (section 5.6.2, Question 1b, Figure 5.5) use
1.1, 1.3, 1.5 (overestimates) and their inverses (underestimates).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from pu_lib._propensity import MIN_PROPENSITY, biased_propensity
from pu_lib._validation import CASE_CONTROL, SINGLE_TRAINING_SET, check_input_kind, validate_pu_data
from pu_lib.base import RANDOM_STATE_CONSTRAINT, SCENARIO_CONSTRAINT, PUClassifierMixin
from pu_lib.base_learners import WeightedLogisticRegression, clone_base, fit_base, positive_proba
from pu_lib.prior import PRIOR_CONSTRAINT, resolve_prior
from pu_lib.prior._names import make_prior_estimator, prior_names

__all__ = [
    "LabelFrequencyWeightedClassifier",
    "PropensityWeightedClassifier",
    "fit_pair_weighted",
    "propensity_weighted_risk",
    "propensity_weights",
]

WEIGHTINGS = ("negative", "symmetric")
#: pointwise losses delta_1 (true class 1), delta_0 (true class 0) of a prediction in [0, 1]
LOSSES = {
    "mse": (lambda p: (1.0 - p) ** 2, lambda p: p ** 2),
    "mae": (lambda p: 1.0 - p, lambda p: p),
    "log_loss": (lambda p: -np.log(np.clip(p, 1e-15, 1.0)), lambda p: -np.log(np.clip(1.0 - p, 1e-15, 1.0))),
    "zero_one": (lambda p: (p < 0.5).astype(np.float64), lambda p: (p >= 0.5).astype(np.float64)),
}


def log_odds(p) -> np.ndarray:
    """``log(p / (1 - p))`` with ``p`` clipped to ``[1e-15, 1 - 1e-15]`` (the decision
    function of the SAR classifiers without one of their own)."""
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-15, 1 - 1e-15)
    return np.log(p) - np.log1p(-p)


def _check_propensity(e, s) -> np.ndarray:
    """The propensities as float64; those of labeled rows must be finite and in (0, 1]."""
    e = np.asarray(e, dtype=np.float64)
    if e.ndim != 1 or e.shape[0] != s.shape[0]:
        raise ValueError(f"propensity must be 1-D with one value per row ({s.shape[0]}), got shape {e.shape}")
    el = e[s == 1]
    if not np.all(np.isfinite(el)):
        raise ValueError("propensity: the labeled rows' propensity scores must be finite (found NaN or inf)")
    if np.any(el <= 0) or np.any(el > 1):
        raise ValueError(f"propensity: the labeled rows' propensity scores must lie in (0, 1], "
                         f"found values in [{el.min():.4g}, {el.max():.4g}]")
    return e


def propensity_weights(s, e, *, scenario: str = SINGLE_TRAINING_SET, prior=None,
                       weighting: str = "negative", sample_weight=None) -> tuple[np.ndarray, np.ndarray]:
    """``(weight_pos, weight_neg)`` per row: the weight of each row as a positive and as a
    negative in the propensity-weighted data set (module docstring). ``e`` is read only on
    labeled rows (``s = 1``); ``prior`` (the class prior alpha) only in the case-control
    scenario. ``sample_weight`` (non-negative, default 1) multiplies both weights of a
    row, and in the case-control scenario also enters ``n``, ``n_P`` and ``c`` as counts
    (so integer weights equal repeated rows)."""
    s = np.asarray(s)
    if s.ndim != 1 or not np.all((s == 0) | (s == 1)):
        raise ValueError("s must be a 1-D array of 0/1 labels")
    if not np.any(s == 1):
        raise ValueError("s has no labeled positives (s == 1)")
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {list(WEIGHTINGS)}, got {weighting!r}")
    lab = s == 1
    e = _check_propensity(e, s)
    el = np.maximum(e[lab], MIN_PROPENSITY)
    sw = np.ones(s.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if sw.shape != s.shape:
        raise ValueError(f"sample_weight must have one value per row ({s.shape[0]}), got shape {sw.shape}")
    if scenario == SINGLE_TRAINING_SET:
        K = 1.0 / el
    elif scenario == CASE_CONTROL:
        if prior is None or not (0.0 < float(prior) < 1.0):
            raise ValueError(f"the case-control scenario needs the class prior in (0, 1), got prior={prior!r}")
        wl = sw[lab]
        n, n_p = float(sw.sum()), float(wl.sum())
        c = n_p / float(np.sum(wl / el))
        K = float(prior) * c * n / (el * n_p)
    else:
        raise ValueError(f"scenario must be {SINGLE_TRAINING_SET!r} or {CASE_CONTROL!r}, got {scenario!r}")
    w_pos = np.zeros(s.shape[0])
    w_neg = np.ones(s.shape[0])
    if weighting == "negative":
        w_pos[lab] = K
        w_neg[lab] = 1.0 - K
    else:  # symmetric-loss rewriting: K d1 + (1-K) d0 = (2K-1) d1 + const = (1-2K) d0 + const
        w_pos[lab] = np.maximum(2.0 * K - 1.0, 0.0)
        w_neg[lab] = np.maximum(1.0 - 2.0 * K, 0.0)
    if sample_weight is not None:
        w_pos, w_neg = w_pos * sw, w_neg * sw
    return w_pos, w_neg


def propensity_weighted_risk(y_pred, s, e, *, loss: str = "mse", scenario: str = SINGLE_TRAINING_SET,
                             prior=None) -> float:
    """The propensity-weighted risk estimate of predictions ``y_pred`` in [0, 1]
    (Definition 7; case-control: section 2.4.3), ``1/n sum_i w_pos,i delta_1 + w_neg,i delta_0``
    with :func:`propensity_weights` and the pointwise loss ``loss`` in
    ``{"mse", "mae", "log_loss", "zero_one"}`` (``zero_one`` thresholds at 0.5)."""
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {sorted(LOSSES)}, got {loss!r}")
    y_pred = np.asarray(y_pred, dtype=np.float64)
    w_pos, w_neg = propensity_weights(s, e, scenario=scenario, prior=prior)
    if y_pred.shape != w_pos.shape:
        raise ValueError(f"y_pred must have one value per row ({w_pos.shape[0]}), got shape {y_pred.shape}")
    d1, d0 = LOSSES[loss]
    return float(np.mean(w_pos * d1(y_pred) + w_neg * d0(y_pred)))


def fit_pair_weighted(estimator, X, weight_pos, weight_neg, random_state=None):
    """Fit a clone of ``estimator`` (None: :class:`~pu_lib.sar.WeightedLogisticRegression`)
    with every row once as a positive (``weight_pos``) and once as a negative
    (``weight_neg``); returns the fitted clone. A scikit-learn classifier gets the rows
    of non-zero weight stacked, labels 1 then 0, and the weights as ``sample_weight``
    (negative ones included: ``ValueError`` naming the estimator and the remedy when its
    ``fit`` refuses them)."""
    if estimator is None:
        return WeightedLogisticRegression().fit_pairs(X, weight_pos, weight_neg)
    base = clone_base(estimator, random_state)
    if isinstance(base, WeightedLogisticRegression):
        return base.fit_pairs(X, weight_pos, weight_neg)
    pos, neg = weight_pos != 0, weight_neg != 0
    Xd = np.concatenate([X[pos], X[neg]])
    yd = np.concatenate([np.ones(int(pos.sum()), dtype=np.int64), np.zeros(int(neg.sum()), dtype=np.int64)])
    wd = np.concatenate([weight_pos[pos], weight_neg[neg]])
    try:
        return fit_base(base, Xd, yd, sample_weight=wd)
    except ValueError as exc:
        if np.any(wd < 0) and "negative" in str(exc).lower():
            raise ValueError(f"the base estimator {type(base).__name__} does not accept negative sample "
                             "weights; use weighting='symmetric' or a learner that does "
                             f"(pu_lib.sar.WeightedLogisticRegression): {exc}") from exc
        raise


class _BaseWeightedClassifier(PUClassifierMixin, BaseEstimator):
    """Shared fit / predict of the propensity- and label-frequency-weighted classifiers."""

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "propensity_bias": [Interval(Real, 0, None, closed="neither")],
        "weighting": [StrOptions(set(WEIGHTINGS))],
        "scenario": SCENARIO_CONSTRAINT,
        "prior": PRIOR_CONSTRAINT,
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def _fit_with_propensity(self, X, s, e, sample_weight):
        prior = None
        if self.scenario == CASE_CONTROL:
            prior, self.prior_estimator_ = resolve_prior(self.prior, X, s, scenario=CASE_CONTROL,
                                                         random_state=self.random_state)
        e = biased_propensity(np.where(s == 1, e, 1.0), self.propensity_bias)
        w_pos, w_neg = propensity_weights(s, e, scenario=self.scenario, prior=prior, weighting=self.weighting,
                                          sample_weight=sample_weight)
        self.estimator_ = fit_pair_weighted(self.estimator, X, w_pos, w_neg, self.random_state)
        self.classes_ = np.array([0, 1])
        return self

    def _proba1(self, X):
        check_is_fitted(self, "estimator_")
        check_input_kind(X)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return positive_proba(self.estimator_, X)

    def predict_proba(self, X):
        """``[P(y=0 | x), P(y=1 | x)]`` of the weighted classifier."""
        p = self._proba1(X)
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        return (self._proba1(X) > 0.5).astype(np.int64)

    def decision_function(self, X):
        """The base classifier's ``decision_function`` when it has one, else the log-odds
        of :meth:`predict_proba`."""
        check_is_fitted(self, "estimator_")
        if hasattr(self.estimator_, "decision_function"):
            check_input_kind(X)
            X = validate_data(self, X, dtype=np.float64, reset=False)
            return np.asarray(self.estimator_.decision_function(X), dtype=np.float64).ravel()
        return log_odds(self._proba1(X))


class PropensityWeightedClassifier(_BaseWeightedClassifier):
    """SAR learning with known propensity scores (Bekker thesis, section 5.3, Definition 7).

    ``fit(X, s, propensity=e)`` takes the propensity score ``e(x_i)`` of every training row
    (only the labeled rows' values are used); without it, ``propensity_function(X)`` gives
    them (a known labeling function, or the ``propensity`` method of a fitted
    :class:`~pu_lib.sar.SAREMClassifier`). The classifier is fitted the base classifier on the
    propensity-weighted data set (module docstring). The workflow passes the label file's
    true propensities (the estimator requests ``propensity`` through scikit-learn's
    metadata routing, :mod:`pu_lib.base`).

    Parameters
    ----------
    estimator : classifier with ``fit(X, y, sample_weight)`` and ``predict_proba``, or
        None for :class:`~pu_lib.sar.WeightedLogisticRegression` (``C = 1``; the thesis
        uses logistic regression for every approach, 5.6.2).
    propensity_function : callable ``X -> e(X)`` or None, default=None
        Used when ``fit`` gets no ``propensity`` (which wins when both are given).
    propensity_bias : float, default=1.0
        Multiply the propensities by this factor, clipped to ``(0, 1]`` (Figure 5.5).
    weighting : {"negative", "symmetric"}, default="negative"
        Definition 7 with negative weights, or the symmetric-loss rewriting for learners
        that cannot take them (module docstring).
    scenario : {"single_training_set", "case_control"}, default="single_training_set"
    prior : class prior for the case-control scenario (number, prior-estimator name or
        object); unused otherwise.
    random_state : seed of the base classifier (when it has one).

    Attributes
    ----------
    estimator_ : the fitted base classifier; classes_ : ``[0, 1]``; n_features_in_.

    **predict_proba** (kind ``"posterior"``, docs/probabilities.md): the weighted classifier's
    ``P(y = 1 | x)``.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "posterior"

    _parameter_constraints = {
        **_BaseWeightedClassifier._parameter_constraints,
        "propensity_function": [callable, None],
    }

    __metadata_request__fit = {"propensity": True}

    def __init__(self, estimator=None, *, propensity_function=None, propensity_bias=1.0, weighting="negative",
                 scenario=SINGLE_TRAINING_SET, prior=None, random_state=None):
        self.estimator = estimator
        self.propensity_function = propensity_function
        self.propensity_bias = propensity_bias
        self.weighting = weighting
        self.scenario = scenario
        self.prior = prior
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, propensity=None, sample_weight=None):
        """Fit on features ``X``, PU labels ``s`` and propensity scores ``propensity``."""
        if propensity is None and self.propensity_function is None:
            raise ValueError("PropensityWeightedClassifier.fit needs the propensity scores: "
                             "fit(X, s, propensity=e) with e(x) = Pr(s=1 | y=1, x) per row, "
                             "or the parameter propensity_function")
        check_input_kind(X)
        n_in = len(X) if hasattr(X, "__len__") else None
        X, s, w, rows = validate_pu_data(self, X, s, sample_weight=sample_weight)
        if propensity is None:
            e = np.asarray(self.propensity_function(X), dtype=np.float64)
            if e.shape != (X.shape[0],):
                raise ValueError(f"propensity_function must return one value per row ({X.shape[0]}), "
                                 f"got shape {e.shape}")
        else:
            e = np.asarray(propensity, dtype=np.float64)
            if e.shape != (n_in,):
                raise ValueError(f"propensity must be 1-D with one value per row of X ({n_in}), got shape {e.shape}")
            e = e[rows]
        e = _check_propensity(e, s)
        return self._fit_with_propensity(X, s, e, w)


class LabelFrequencyWeightedClassifier(_BaseWeightedClassifier):
    """SCAR learning with the label frequency: propensity weighting with ``e(x) = c``
    (thesis section 2.4.3 and the "SCAR" approach of section 5.6.2).

    ``label_frequency`` (default ``"tice"``, the thesis' estimator) is the label frequency
    ``c = Pr(s = 1 | y = 1)``: a number in ``(0, 1]`` (``1`` gives the naive classifier: every unlabeled row a negative, as the
    thesis' "Naive" approach), or a prior estimator -- the name of a registered one
    (``"tice"``, ...) or an object with ``fit(X, s)`` and ``c_`` -- fitted on the
    training data (the thesis' "SCAR with TIcE's c"). In the workflow,
    ``params: {label_frequency: true}`` gives the true ``c`` of the labeling mechanism
    (the mean true propensity of the training positives, as the authors' experiments).

    The propensity model is the constant ``c_``: :meth:`propensity` (Table 5.3's SCAR
    propensity models). Other parameters as :class:`PropensityWeightedClassifier`.

    **predict_proba** (kind ``"posterior"``, docs/probabilities.md): the weighted classifier's
    ``P(y = 1 | x)``.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "posterior"

    _parameter_constraints = {
        **_BaseWeightedClassifier._parameter_constraints,
        "label_frequency": [Interval(Real, 0, 1, closed="right"), StrOptions(set(prior_names())),
                            HasMethods(["fit"]), None],
    }

    def __init__(self, estimator=None, *, label_frequency="tice", propensity_bias=1.0, weighting="negative",
                 scenario=SINGLE_TRAINING_SET, prior=None, random_state=None):
        self.estimator = estimator
        self.label_frequency = label_frequency
        self.propensity_bias = propensity_bias
        self.weighting = weighting
        self.scenario = scenario
        self.prior = prior
        self.random_state = random_state

    def _resolve_c(self, X, s):
        lf = self.label_frequency
        if lf is None:
            raise ValueError("label_frequency is required: a number in (0, 1] or a prior estimator "
                             f"({', '.join(prior_names())}) whose fit sets c_")
        if isinstance(lf, str):
            est = make_prior_estimator(lf, random_state=self.random_state)
        elif hasattr(lf, "fit"):
            est = clone(lf)
        else:
            return float(lf), None
        est.fit(X, s)
        c = float(est.c_)
        if not (np.isfinite(c) and 0.0 < c <= 1.0):
            raise ValueError(f"label frequency estimated by {type(est).__name__} is {c!r}, not in (0, 1]")
        return c, est

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and PU labels ``s`` with ``e(x) = c``."""
        X, s, w, _ = validate_pu_data(self, X, s, sample_weight=sample_weight)
        self.c_, self.label_frequency_estimator_ = self._resolve_c(X, s)
        return self._fit_with_propensity(X, s, np.full(s.shape[0], self.c_), w)

    def propensity(self, X):
        """The propensity model: the constant ``c_`` times ``propensity_bias`` (clipped)."""
        check_is_fitted(self, "c_")
        check_input_kind(X)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return np.full(X.shape[0], float(biased_propensity(self.c_, self.propensity_bias)))
