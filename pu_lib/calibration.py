"""What ``predict_proba`` returns, per classifier, and a PU calibration of scores.

**Kinds.** Every registered classifier declares what column 1 of its ``predict_proba``
is, in a class attribute ``_proba_kind`` (a property where it depends on a parameter),
one of :data:`PROBA_KINDS`:

``"posterior"``  an estimate of ``P(y = 1 | x)``, the class probability (under the
                 method's assumptions -- SCAR unless the class says otherwise -- and,
                 for methods that take one, with the right class prior);
``"labeled"``    an estimate of ``P(s = 1 | x)``, the probability of being labeled (the
                 *non-traditional* classifier of Elkan & Noto 2008); under SCAR in the
                 single-training-set scenario ``P(s = 1 | x) = c P(y = 1 | x)``, so it
                 ranks rows as ``P(y = 1 | x)`` does but is too low by the label
                 frequency ``c``;
``"score"``      a number in [0, 1] that ranks rows (higher = more likely positive) and
                 that ``predict`` thresholds at 1/2, but that is not a probability.

:func:`proba_kind` reads it; ``docs/probabilities.md`` is the table of every registered
classifier, generated from these attributes by ``python -m pu_lib.workflow.registry --probabilities
docs/probabilities.md`` (a test checks that the file is current and that every
``"posterior"`` claim is calibrated on synthetic SCAR data).

**Calibration.** :class:`PUCalibratedClassifier` turns a ``"labeled"`` or ``"score"``
classifier into a ``"posterior"`` one with PU data and the class prior only (derivation
in its docstring). :mod:`pu_lib.prior.calibration` is another thing: PULSCAR / PULSNAR's
Algorithm 4, which calibrates out-of-fold probabilities by flipping unlabeled labels with
an estimated ``alpha``.
"""

from __future__ import annotations

import re
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import CASE_CONTROL, accepts_sparse, validate_pu_data
from pu_lib.base import RANDOM_STATE_CONSTRAINT, SCENARIO_CONSTRAINT, PUClassifierMixin, SparseWhen
from pu_lib.prior import PRIOR_CONSTRAINT

__all__ = ["PROBA_KINDS", "PUCalibratedClassifier", "markdown", "proba_doc", "proba_kind"]

#: ``_proba_kind`` value -> what column 1 of ``predict_proba`` is (module docstring)
PROBA_KINDS = {
    "posterior": "P(y = 1 | x), the class probability",
    "labeled": "P(s = 1 | x), the probability of being labeled (under SCAR c P(y = 1 | x): ranks as P(y = 1 | x), "
               "too low by the label frequency c)",
    "score": "a score in [0, 1] that ranks rows and is thresholded at 1/2 by predict; not a probability",
}


def proba_kind(estimator) -> str:
    """The kind of ``estimator.predict_proba`` (a key of :data:`PROBA_KINDS`), from its
    ``_proba_kind``; ``ValueError`` when the estimator declares none or an unknown one."""
    kind = getattr(estimator, "_proba_kind", None)
    if kind not in PROBA_KINDS:
        name = estimator.__name__ if isinstance(estimator, type) else type(estimator).__name__
        raise ValueError(f"{name} declares no known _proba_kind (got {kind!r}; known: {sorted(PROBA_KINDS)})")
    return kind


def proba_doc(cls) -> str:
    """The paragraph of ``cls``'s docstring that says what ``predict_proba`` returns (it
    starts with ``**predict_proba**``), without that heading; ``ValueError`` when missing."""
    match = re.search(r"\*\*predict_proba\*\*\s*\(.*?\):\s*(.*?)(?:\n\s*\n|\Z)", cls.__doc__ or "", re.S)
    if match is None:
        raise ValueError(f"the docstring of {cls.__name__} has no **predict_proba** paragraph")
    return " ".join(match.group(1).split())


def _score(estimator, X) -> np.ndarray:
    """The score the calibration map reads: ``decision_function`` when the estimator has
    one, else column 1 of ``predict_proba``."""
    if hasattr(estimator, "decision_function"):
        d = np.asarray(estimator.decision_function(X), dtype=np.float64)
        return d.ravel() if d.ndim == 2 and d.shape[1] == 1 else d
    return np.asarray(estimator.predict_proba(X), dtype=np.float64)[:, 1]


class PUCalibratedClassifier(PUClassifierMixin, BaseEstimator):
    """``P(y = 1 | x)`` from any PU classifier's scores, with PU data and the class prior.

    **Derivation** (Elkan & Noto, KDD 2008, Lemma 1; single-training-set scenario).
    Under SCAR a positive is labeled with probability ``c = P(s = 1 | y = 1)``
    independently of ``x``, and negatives are never labeled, so

        P(s = 1 | x) = P(s = 1 | y = 1, x) P(y = 1 | x) = c P(y = 1 | x),

    and ``P(s = 1) = c pi`` gives ``c = P(s = 1) / pi`` from the labeled fraction of the
    training rows and the class prior ``pi``. ``P(s = 1 | x)`` is learned from PU data
    alone: a monotone map ``m`` from the wrapped classifier's score to ``s`` (a
    regression of the 0/1 labels ``s`` on the score) estimates ``P(s = 1 | score(x))``,
    which is ``c P(y = 1 | x)`` when the score is a monotone function of ``P(y = 1 | x)``
    (what a ranking classifier aims at). Hence

        P(y = 1 | x) = min(1, m(score(x)) / c).

    **Case-control scenario** (``scenario="case_control"``: ``n_l`` labeled positives and
    ``n_u`` unlabeled rows drawn from the population of prior ``pi``, pooled): in the
    pooled rows ``P(s = 1 | x) / P(s = 0 | x) = n_l f_+(x) / (n_u f(x))`` with
    ``f_+(x) / f(x) = P(y = 1 | x) / pi``, so

        P(y = 1 | x) = min(1, pi (n_u / n_l) m / (1 - m)).

    **Fit.** The map is fitted on held-out scores, so that it sees scores of rows the
    classifier was not trained on: ``cv`` stratified folds of ``s`` (shuffled, seeded from
    ``random_state``); on each, a clone of ``estimator`` is fitted on the other folds and
    scores the fold. ``m`` is fitted on these out-of-fold scores: ``"isotonic"`` --
    ``IsotonicRegression(increasing=True, out_of_bounds="clip")`` of ``s`` on the score
    (no assumption on the score's shape; a step function, so it needs enough labeled rows
    per step); ``"sigmoid"`` -- Platt scaling, an unpenalized logistic regression of ``s``
    on the (standardized) score; it assumes that the logit of ``P(s = 1 | x) =
    c P(y = 1 | x)`` is linear in the score, which the cap ``c`` breaks where
    ``P(y = 1 | x)`` nears 1 (on the two-Gaussian data of tests/test_probabilities.py the
    naive classifier's calibration error is 0.11 with ``"sigmoid"``, 0.017 with
    ``"isotonic"``). Then ``estimator`` is refitted on all rows (``estimator_``) and new rows
    get ``m`` of its score (as scikit-learn's ``CalibratedClassifierCV`` with
    ``ensemble=False``). The score is the estimator's ``decision_function`` when it has
    one, else column 1 of its ``predict_proba``. ``sample_weight`` is passed to every fit
    of ``estimator`` (``ValueError`` naming it when its ``fit`` takes none), to the
    prior estimator and to ``m``, and weights the labeled fraction.

    The result is only as good as the prior and the SCAR assumption: with a wrong ``pi``
    every probability is off by the factor ``pi_true / pi``.

    Parameters
    ----------
    estimator : unfitted PU classifier with ``fit(X, s)`` and ``predict_proba`` or
        ``decision_function`` (e.g. :class:`pu_lib.ensemble.AdaPUClassifier`); cloned.
        A classifier that needs the prior takes it itself (pass the same value).
    prior : the class prior ``pi`` (``pu_lib.base.PRIOR_CONSTRAINT``: a number in (0, 1),
        a registered prior estimator's name or an estimator object, fitted on the training
        rows); required. In the single-training-set scenario it must be at least the
        labeled fraction (``ValueError`` otherwise).
    method : ``"isotonic"`` (default) or ``"sigmoid"``.
    cv : number of folds (default 5), at least 2 and at most the number of labeled rows.
    scenario : ``"single_training_set"`` (default) or ``"case_control"``.
    random_state : None, int, ``numpy.random.Generator`` or ``RandomState``: the folds, the
        clones' seeds (set on a clone with a ``random_state`` parameter) and a prior
        estimator's.

    Attributes
    ----------
    estimator_ : ``estimator`` refitted on all training rows.
    calibrator_ : the fitted map ``m`` (``IsotonicRegression`` or ``LogisticRegression``).
    prior_ : the class prior used; prior_estimator_ : the fitted prior estimator or None.
    c_ : the label frequency: ``P(s = 1) / pi`` (single training set) or
        ``n_l / (n_l + pi n_u)`` (case-control; the map then uses the odds formula).
    oof_scores_ : out-of-fold scores of the training rows (after dropping zero weights).
    classes_ : ``array([0, 1])``; n_features_in_ ; feature_names_in_ (DataFrame ``X`` only).
    """

    #: P(y = 1 | x) by construction (the derivation above)
    _proba_kind = "posterior"
    #: sparse X when the wrapped classifier takes it
    _accepts_sparse = SparseWhen(lambda est: est.estimator is not None and accepts_sparse(est.estimator),
                                 "with a wrapped classifier that takes sparse input")

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba"]), HasMethods(["fit", "decision_function"])],
        "prior": PRIOR_CONSTRAINT,
        "method": [StrOptions({"isotonic", "sigmoid"})],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "scenario": SCENARIO_CONSTRAINT,
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(self, estimator, *, prior=None, method="isotonic", cv=5, scenario="single_training_set",
                 random_state=None):
        self.estimator = estimator
        self.prior = prior
        self.method = method
        self.cv = cv
        self.scenario = scenario
        self.random_state = random_state

    def _clone(self, seed):
        est = clone(self.estimator)
        if seed is not None and "random_state" in est.get_params(deep=False):
            est.set_params(random_state=seed)
        return est

    def _fit_one(self, est, X, s, w):
        if w is None:
            return est.fit(X, s)
        return est.fit(X, s, sample_weight=w)

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labeled indicator ``s`` (1 labeled, 0 unlabeled)."""
        from pu_lib.prior import resolve_prior

        X, s, w, _ = validate_pu_data(self, X, s, sample_weight=sample_weight)
        if w is not None and not has_fit_parameter(self.estimator, "sample_weight"):
            raise ValueError(f"{type(self.estimator).__name__} does not accept sample_weight in fit; "
                             "fit PUCalibratedClassifier without sample_weight or wrap a classifier that takes it")
        n_labeled = int(s.sum())
        if n_labeled < self.cv or s.shape[0] - n_labeled < self.cv:
            raise ValueError(f"cv={self.cv} folds need at least {self.cv} labeled and {self.cv} unlabeled rows; "
                             f"got {n_labeled} labeled and {s.shape[0] - n_labeled} unlabeled")
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        prior, prior_est = resolve_prior(self.prior, X, s, self.scenario, random_state=seed, sample_weight=w)
        ww = np.ones(s.shape[0]) if w is None else w
        w_l, w_u = float(ww[s == 1].sum()), float(ww[s == 0].sum())
        if self.scenario == CASE_CONTROL:
            c = w_l / (w_l + prior * w_u)
        else:
            # resolve_prior refused a prior below the labeled fraction (check_prior_feasible)
            c = w_l / (w_l + w_u) / prior

        folds = StratifiedKFold(n_splits=self.cv, shuffle=True,
                                random_state=derive_seed(seed, "PUCalibratedClassifier", "cv") % (2**31))
        oof = np.empty(s.shape[0])
        for k, (train, test) in enumerate(folds.split(np.zeros((s.shape[0], 1)), s)):
            est = self._clone(derive_seed(seed, "PUCalibratedClassifier", "fold", k) % (2**31))
            self._fit_one(est, X[train], s[train], None if w is None else w[train])
            oof[test] = _score(est, X[test])
        if not np.all(np.isfinite(oof)):
            raise ValueError(f"{type(self.estimator).__name__} gave non-finite scores; cannot calibrate them")
        self.calibrator_ = self._fit_map(oof, s, w)
        self.estimator_ = self._fit_one(self._clone(seed), X, s, w)
        self.oof_scores_ = oof
        self.prior_ = float(prior)
        self.prior_estimator_ = prior_est
        self.c_ = float(c)
        self._odds_scale = prior * w_u / w_l  # case-control: pi n_u / n_l
        self.classes_ = np.array([0, 1])
        return self

    def _fit_map(self, score, s, w):
        if self.method == "isotonic":
            from sklearn.isotonic import IsotonicRegression

            return IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip").fit(
                score, s.astype(np.float64), sample_weight=w)
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        model = make_pipeline(StandardScaler(), LogisticRegression(C=np.inf, max_iter=10_000))
        kw = {} if w is None else {"standardscaler__sample_weight": w, "logisticregression__sample_weight": w}
        return model.fit(score.reshape(-1, 1), s, **kw)

    def _labeled_proba(self, X) -> np.ndarray:
        """``m(score(x))``, the calibrated ``P(s = 1 | x)``."""
        check_is_fitted(self)
        from pu_lib.base_learners import check_predict_X

        score = _score(self.estimator_, check_predict_X(self, X))
        if self.method == "isotonic":
            return np.clip(self.calibrator_.predict(score), 0.0, 1.0)
        return self.calibrator_.predict_proba(score.reshape(-1, 1))[:, 1]

    def predict_proba(self, X) -> np.ndarray:
        """``(n, 2)``; column 1 is ``P(y = 1 | x) = min(1, m(score(x)) / c_)`` (single
        training set) or ``min(1, pi (n_u / n_l) m / (1 - m))`` (case-control)."""
        m = self._labeled_proba(X)
        if self.scenario == CASE_CONTROL:
            with np.errstate(divide="ignore"):
                p = np.where(m >= 1.0, 1.0, self._odds_scale * m / np.maximum(1.0 - m, 1e-300))
        else:
            p = m / self.c_
        p = np.clip(p, 0.0, 1.0)
        return np.column_stack([1.0 - p, p])

    def predict(self, X) -> np.ndarray:
        """1 where ``P(y = 1 | x) >= 1/2``, else 0."""
        return (self.predict_proba(X)[:, 1] >= 0.5).astype(np.int64)

    def decision_function(self, X) -> np.ndarray:
        """``P(y = 1 | x) - 1/2`` (positive exactly where :meth:`predict` is 1, but at 0)."""
        return self.predict_proba(X)[:, 1] - 0.5
