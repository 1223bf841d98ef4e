"""PU weighted logistic regression (Lee and Liu 2003).

W. S. Lee and B. Liu, "Learning with positive and unlabeled examples using weighted
logistic regression", ICML 2003. Every unlabeled example is labeled negative, which
turns PU learning into learning with one-sided label noise; to cope with noise rates
above one half, the examples are weighted so that the labeled positives carry more
weight per row than the unlabeled rows, and a (regularised, hence convex) logistic
regression is fitted to the weighted data. The regularisation is chosen on a validation
set by a criterion computable from PU data alone,

    r^2 / Pr(f(X) = 1),

where ``r`` is the recall of ``f`` on the labeled positives and ``Pr(f(X) = 1)`` the
fraction of all examples that ``f`` calls positive; it equals ``p r / Pr(Y = 1)``
(precision times recall over the class prior, a constant), so it ranks classifiers as
``p r`` does.

The PU Hellinger authors run this baseline (their ``expsetup.py``) as
``LogisticRegression(class_weight={0: mean(s), 1: 1 - mean(s)}, penalty=None)``: the
balanced weights below, no regularisation, no selection.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Integral, Interval, StrOptions

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import CASE_CONTROL, is_sparse, validate_pu_data
from pu_lib.base import RANDOM_STATE_CONSTRAINT, SCENARIO_CONSTRAINT, PUClassifierMixin
from pu_lib.base_learners import check_predict_X, fit_base, positive_proba
from pu_lib.metrics import lee_liu
from pu_lib.oof import stratified_hold_out

__all__ = ["DEFAULT_C_GRID", "PUWeightedLogisticRegression"]

#: candidate inverse regularisation strengths (ascending: ties go to the strongest
#: regularisation); ``inf`` is the unpenalised fit of the PU Hellinger authors' code
DEFAULT_C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0, float("inf"))


class PUWeightedLogisticRegression(PUClassifierMixin, BaseEstimator):
    """Lee and Liu's (2003) weighted logistic regression for PU data.

    Fits ``sklearn.linear_model.LogisticRegression`` on ``(X, s)`` (unlabeled rows as
    negatives) with per-row weights ``pos_weight`` for labeled rows and
    ``1 - pos_weight`` for unlabeled rows (times ``sample_weight``). scikit-learn's
    solver is used as is: with ``standardize=False`` the fitted model is exactly
    ``LogisticRegression(C=C_, max_iter=max_iter).fit(X, s, sample_weight=weights_)``.

    **Weights** (``pos_weight="balanced"``, default): labeled rows get the unlabeled
    fraction ``1 - mean(s)``, unlabeled rows the labeled fraction ``mean(s)`` (weighted
    means with ``sample_weight``), so both sides carry the same total weight -- the PU
    Hellinger authors' ``class_weight={0: mean(s), 1: 1 - mean(s)}``, and Lee and Liu's
    remedy for noise rates above one half (the unlabeled side is mostly but not wholly
    negative, the positive side is clean).

    **Regularisation** (``C="select"``, default, Lee and Liu's procedure): a stratified
    hold-out of ``hold_out_ratio`` of the labeled and of the unlabeled rows
    (:func:`pu_lib.oof.stratified_hold_out`, seeded from ``random_state``) is set aside,
    a model is fitted on the rest for every ``C`` in ``C_grid``, each is scored on the
    hold-out by :func:`pu_lib.metrics.lee_liu` (predictions: probability > 0.5), the best ``C``
    is kept (the first of the grid on ties) and the model is refitted on all rows with
    it. Choices of ours, where the paper leaves them open or we could not check its
    values: the grid (:data:`DEFAULT_C_GRID`, a decade grid plus the unpenalised fit),
    the hold-out fraction (0.3), the refit on all rows, the weights kept fixed at the
    balanced value (only ``C`` is selected). ``C`` as a number skips the selection;
    ``C=float("inf")`` with the balanced weights is the PU Hellinger authors' setting
    (``penalty=None``).

    **Standardisation** (``standardize=True``, default): a ``StandardScaler`` (fitted
    with the same weights) before the regression, as the package's default logistic
    regression; without a penalty it changes nothing but the solver's convergence.

    Parameters
    ----------
    C : ``"select"`` (default), or an inverse regularisation strength in ``(0, inf]``.
    C_grid : candidates for ``C="select"``; default :data:`DEFAULT_C_GRID`.
    pos_weight : ``"balanced"`` (default) or the weight in (0, 1) of a labeled row (an
        unlabeled row gets ``1 - pos_weight``).
    hold_out_ratio : fraction in (0, 1) held out for the selection; default 0.3.
    scenario : ``"single_training_set"`` (default; ``Pr(f(X) = 1)`` over all held-out
        rows) or ``"case_control"`` (over the held-out unlabeled rows).
    standardize : bool, default True.
    max_iter : lbfgs iterations, default 1000.
    random_state : None, int, ``numpy.random.Generator`` or ``RandomState`` (the hold-out split only; the
        fit itself is deterministic).

    Attributes
    ----------
    estimator_ : the fitted ``LogisticRegression`` (or scaler + regression pipeline).
    C_ : the ``C`` used. ``pos_weight_`` : the labeled rows' class weight.
    criterion_ : ``{C: criterion}`` over ``C_grid`` (empty when ``C`` is a number).
    hold_out_indices_ : rows of ``X`` held out for the selection (empty without it).
    classes_ (``[0, 1]``), ``n_features_in_``, ``coef_``, ``intercept_``.

    **predict_proba** (kind ``"score"``, docs/probabilities.md): the probability of ``s = 1`` under
    the re-weighted (balanced) classes, not ``P(y = 1 | x)``;
    :class:`pu_lib.calibration.PUCalibratedClassifier` calibrates it.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "score"

    #: sparse X (as CSR): with ``standardize`` the scaler then divides by the standard
    #: deviation without centring (centring would fill the matrix); the intercept is not
    #: penalised, so centring only moves it and the probabilities are the dense ones up to
    #: the solver's tolerance (tests/test_sparse_input.py)
    _accepts_sparse = True

    _parameter_constraints: dict = {
        "C": [StrOptions({"select"}), Interval(Real, 0.0, None, closed="right")],
        "C_grid": ["array-like"],
        "pos_weight": [StrOptions({"balanced"}), Interval(Real, 0.0, 1.0, closed="neither")],
        "hold_out_ratio": [Interval(Real, 0.0, 1.0, closed="neither")],
        "scenario": SCENARIO_CONSTRAINT,
        "standardize": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(self, *, C="select", C_grid=DEFAULT_C_GRID, pos_weight="balanced", hold_out_ratio=0.3,
                 scenario="single_training_set", standardize=True, max_iter=1000, random_state=None):
        self.C = C
        self.C_grid = C_grid
        self.pos_weight = pos_weight
        self.hold_out_ratio = hold_out_ratio
        self.scenario = scenario
        self.standardize = standardize
        self.max_iter = max_iter
        self.random_state = random_state

    def _model(self, C, center=True):
        from sklearn.linear_model import LogisticRegression

        lr = LogisticRegression(C=C, max_iter=self.max_iter)
        if not self.standardize:
            return lr
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(with_mean=center), lr)

    def class_weights(self, s, sample_weight=None) -> tuple[np.ndarray, float]:
        """Per-row weights: ``pos_weight`` (labeled) or ``1 - pos_weight`` (unlabeled),
        times ``sample_weight``, and the labeled rows' class weight; ``"balanced"`` resolves on these
        ``s`` and weights."""
        s = np.asarray(s)
        sw = np.ones(s.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if self.pos_weight == "balanced":
            pw = float(sw[s == 0].sum() / sw.sum())
        else:
            pw = float(self.pos_weight)
        return sw * np.where(s == 1, pw, 1.0 - pw), pw

    def _grid(self):
        grid = np.asarray(self.C_grid, dtype=np.float64).ravel()
        if grid.size == 0 or not np.all(grid > 0) or np.isnan(grid).any():
            raise ValueError(f"C_grid must hold positive numbers (inf allowed), got {self.C_grid!r}")
        return [float(c) for c in grid]

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled).
        ``sample_weight`` multiplies the class weights (rows of weight 0 are dropped);
        the balanced weights and the criterion are weighted means, and integer weights
        split as repeated rows (:func:`pu_lib.oof.stratified_hold_out`)."""
        X, s, sw, _ = validate_pu_data(self, X, s, sample_weight=sample_weight)
        self.criterion_ = {}
        self.hold_out_indices_ = np.empty(0, dtype=np.intp)
        C = self.C
        if C == "select":
            grid = self._grid()
            seed = seed_to_int(self.random_state)
            rng = np.random.default_rng(None if seed is None else derive_seed(seed, "PUWeightedLR", "hold_out"))
            train, w_train, hold, w_hold = stratified_hold_out(s, float(self.hold_out_ratio), rng, sw)
            if not s[hold].any() or not s[train].any() or s[train].all():
                raise ValueError(
                    f"the hold-out split (hold_out_ratio={self.hold_out_ratio}) leaves no labeled rows on one side "
                    "or no unlabeled rows for training; give more labeled positives or a numeric C")
            cw_train, _ = self.class_weights(s[train], w_train)
            for c in grid:
                model = fit_base(self._model(c, not is_sparse(X)), X[train], s[train], cw_train)
                pred = (positive_proba(model, X[hold]) > 0.5).astype(np.int8)
                self.criterion_[c] = lee_liu(s[hold], pred, w_hold, self.scenario)
            C = max(grid, key=lambda c: self.criterion_[c])  # first maximum in grid order
            self.hold_out_indices_ = hold
        weights, self.pos_weight_ = self.class_weights(s, sw)
        self.weights_ = weights
        self.C_ = float(C)
        self.estimator_ = fit_base(self._model(self.C_, not is_sparse(X)), X, s, weights)
        self.classes_ = np.array([0, 1])
        return self

    @property
    def _lr(self):
        return self.estimator_[-1] if hasattr(self.estimator_, "steps") else self.estimator_

    @property
    def coef_(self):
        """Coefficients of the (standardised, with ``standardize``) features."""
        return self._lr.coef_

    @property
    def intercept_(self):
        return self._lr.intercept_

    @property
    def n_iter_(self):
        """The final fit's lbfgs iterations."""
        return self._lr.n_iter_

    def predict_proba(self, X):
        """``(n, 2)``; column 1 is the weighted regression's probability of class 1."""
        X = check_predict_X(self, X)
        p = positive_proba(self.estimator_, X)
        return np.column_stack([1.0 - p, p])

    def decision_function(self, X):
        """The regression's linear score (log-odds); positive iff ``predict`` is 1."""
        X = check_predict_X(self, X)
        return np.asarray(self.estimator_.decision_function(X), dtype=np.float64)

    def predict(self, X):
        """1 iff the decision function is positive (probability > 0.5)."""
        return (self.decision_function(X) > 0).astype(np.int64)
