"""Elkan & Noto (2008) PU classifier.

C. Elkan and K. Noto, "Learning classifiers from only positive and unlabeled
data", KDD 2008.

Under the *selected completely at random* (SCAR) assumption, a labeled example is
a positive selected with constant probability ``c = Pr(s = 1 | y = 1)`` (the label
frequency), independently of ``x``. Lemma 1 of the paper then gives

    Pr(y = 1 | x) = Pr(s = 1 | x) / c,

so a *non-traditional* classifier ``g(x) ~ Pr(s = 1 | x)`` trained to separate
labeled from unlabeled examples becomes a traditional one after dividing by ``c``.
The paper estimates ``c`` on a validation set ``V`` with labeled subset ``P``:

* ``e1 = (1/|P|) sum_{x in P} g(x)``              (the paper's preferred estimator),
* ``e2 = sum_{x in P} g(x) / sum_{x in V} g(x)``,
* ``e3 = max_{x in V} g(x)``.

All three equal ``c`` when ``g`` is perfect and the classes do not overlap
(``g = c`` on positives, 0 on negatives).

**Probabilities** (``proba``): ``"lemma1"`` (default) -- ``min(1, g(x) / c)``, Lemma 1.
``"pulearn_weighted"`` -- the rule of the ``WeightedElkanotoPuClassifier`` that the PU
Hellinger trees authors run (``pos_noisyneg/elkannoto.py`` of
CarlosOrtegaV/PU_Hellinger_Trees, from the pulearn package, on
``SVC(kernel="linear", probability=True)``, i.e. a linear SVM with Platt scaling, hold-out
ratio 0.2): with ``n`` the labeled training rows and the Section 4 weights
``w(x) = (1 - c) / c * g(x) / (1 - g(x))`` (``g = 1`` taken as 0.999),

    p(x) = g(x) c (n + sum_{x' in X} w(x')) / n,

where the sum runs over the rows ``X`` being predicted -- the same batch, not the
training rows, so a row's probability depends on the batch it is predicted with (the
threshold tuned on a validation batch then moves on the test batch; that is their code,
reproduced as it is). It is clipped to [0, 1] (their values can exceed 1; a threshold of
the F1 grid, at most 0.99, separates the same rows). ``predict`` is ``p(x) > 0.5`` and
``decision_function`` is the unclipped ``p(x) - 0.5`` (the same ranking as ``g`` within a
batch). See also the Bekker thesis, sec. 2.5.1
and 4.2 (probabilistic classifier modification). The split, ``g`` and the estimates are
computed once for the library, by :func:`pu_lib.prior.elkan_noto.elkan_noto_fit`.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import StrOptions

from pu_lib._validation import validate_pu_data
from pu_lib.base import SPARSE_WITH_BASE, PUClassifierMixin
from pu_lib.base_learners import check_predict_X, positive_proba
from pu_lib.prior.elkan_noto import PARAMETER_CONSTRAINTS, elkan_noto_fit

__all__ = ["ElkanNotoClassifier", "PROBA_RULES"]

#: ``proba`` of :class:`ElkanNotoClassifier` -> what it is (see the module docstring)
PROBA_RULES = {
    "lemma1": "min(1, g(x) / c) (Elkan & Noto 2008, Lemma 1)",
    "pulearn_weighted": "the PU Hellinger authors' WeightedElkanotoPuClassifier (pulearn): "
                        "g(x) c (n + sum of w over the predicted batch) / n, clipped to [0, 1]",
}


class ElkanNotoClassifier(PUClassifierMixin, BaseEstimator):
    """PU classifier of Elkan & Noto (2008): ``Pr(y=1|x) = g(x) / c``.

    ``fit`` (1) splits the training data, stratified on ``s``, into a part of
    relative size ``1 - hold_out_ratio`` and a held-out part
    (:func:`pu_lib.oof.stratified_hold_out`, the library's one module for held-out and
    out-of-fold probabilities); (2) fits the
    non-traditional classifier ``g(x) ~ Pr(s = 1 | x)`` (a clone of ``estimator``,
    unlabeled treated as negative) on the first part only -- as in the paper, the
    held-out examples are *not* used to train ``g``, so that ``c`` is estimated on
    data ``g`` has not seen; (3) estimates the label frequency ``c`` on the held-out
    part with the estimator ``c_estimator`` (``e1``, ``e2`` or ``e3``, see the
    module docstring); (4) predicts ``Pr(y = 1 | x) = min(1, g(x) / c)``
    (Lemma 1 of the paper: ``Pr(y=1|x) = Pr(s=1|x) / c`` under SCAR). Steps (1)-(3) are
    :func:`pu_lib.prior.elkan_noto.elkan_noto_fit`, shared with
    :class:`pu_lib.prior.ElkanNotoPrior` (same ``c`` for the same data and seed), and so
    are the parameters (``PARAMETER_CONSTRAINTS`` there). The classifier calls that core
    rather than wrapping the prior estimator, whose checks are those of class-prior
    estimation and not the classifier's: it refuses data whose features are all constant
    and clips ``c_`` below at the labeled fraction.

    **Sample weights.** ``fit(X, s, sample_weight)`` passes the weights of the training
    part to the base estimator's ``fit`` (``ValueError`` naming the base estimator when it
    takes none) and weights the estimates of ``c`` on the held-out part (weighted means
    and sums; ``e3``, a maximum, only needs the held-out rows). Rows of weight 0 are
    dropped first, so zero weights give exactly the model without those rows. For the
    split, a row of *integer* weight ``w`` counts as ``w`` rows: the hold-out is drawn
    over these units, laid out as ``np.repeat`` lays out duplicated rows, and a row's
    train and hold-out weights are its numbers of units in each part -- so integer
    weights give the model (and ``c_``) of the data with every row repeated ``w`` times,
    for the same ``random_state``. With non-integer weights the split is the row split
    of the unweighted case, each row keeping its weight in the part it falls in (strata
    sizes are then counted in rows, not in weight).

    Parameters
    ----------
    estimator : unfitted probabilistic classifier (``fit`` and ``predict_proba``) used
        for ``g``; default ``StandardScaler`` + ``LogisticRegression(max_iter=1000)``.
        Good calibration matters, because ``c`` is read off the predicted probabilities.
    hold_out_ratio : fraction in (0, 1) of the labeled and of the unlabeled
        examples held out to estimate ``c``.
    c_estimator : ``"e1"`` (default), ``"e2"`` or ``"e3"``.
    proba : ``"lemma1"`` (default) or ``"pulearn_weighted"`` (the PU Hellinger authors'
        weighted variant; module docstring).
    random_state : None, int, ``numpy.random.Generator`` or ``RandomState``. Drives the hold-out
        split (seed ``derive_seed(random_state, "ElkanNotoClassifier", "hold_out")``)
        and, when the base estimator has a ``random_state`` parameter, is set on
        the clone (an int unchanged). ``None`` gives a non-reproducible split.

    Attributes
    ----------
    estimator_ : the fitted non-traditional classifier ``g``.
    c_ : estimated label frequency ``c = Pr(s = 1 | y = 1)`` in (0, 1].
    c_estimates_ : dict with all three estimates ``{"e1", "e2", "e3"}``.
    prior_ : class-prior estimate ``Pr(s = 1) / c_`` over the whole training set
        (weighted with ``sample_weight``; Bekker thesis eq. 2.5, single-training-set
        scenario), clipped to [0, 1].
    hold_out_indices_ : row indices (into the training ``X``) of the held-out part (with
        integer weights: the rows with at least one held-out unit).
    classes_ : ``array([0, 1])``.
    n_features_in_ : number of features seen in ``fit``.
    feature_names_in_ : column names of a DataFrame ``X`` (only then).

    **predict_proba** (kind ``"score"``, docs/probabilities.md): Lemma 1 is exact with the true
    ``c`` and the true ``Pr(s = 1 | x)``, but here both are estimated: ``e1`` estimates
    ``c E[Pr(y = 1 | x) | y = 1]``, below ``c`` where the classes overlap (the paper assumes
    ``g = c`` on the positives), and the default logistic regression is not a correct model of
    ``c Pr(y = 1 | x)``. On the two-Gaussian data of tests/test_probabilities.py the expected
    calibration error is 0.08-0.10 over training seeds 0-5 (``e3``: 0.21 on seeds 0-1), where the
    ``"posterior"`` classifiers typically give 0.003-0.06; ``proba="pulearn_weighted"`` is
    batch-dependent. With a known prior, :class:`pu_lib.calibration.PUCalibratedClassifier`
    calibrates it.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "score"

    #: sparse X (as CSR) when the base learner takes it (pu_lib.base.SPARSE_WITH_BASE)
    _accepts_sparse = SPARSE_WITH_BASE

    # the parameters of the shared fit, pu_lib.prior.elkan_noto.elkan_noto_fit, and proba
    _parameter_constraints: dict = {**PARAMETER_CONSTRAINTS, "proba": [StrOptions(set(PROBA_RULES))]}

    def __init__(self, estimator=None, *, hold_out_ratio=0.1, c_estimator="e1", proba="lemma1", random_state=None):
        self.estimator = estimator
        self.hold_out_ratio = hold_out_ratio
        self.c_estimator = c_estimator
        self.proba = proba
        self.random_state = random_state

    # ------------------------------------------------------------------ fit

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labeled indicator ``s`` (1 labeled, 0 unlabeled),
        optionally weighted (see the class docstring, "Sample weights")."""
        X, s, w, rows = validate_pu_data(self, X, s, sample_weight=sample_weight)
        fit = elkan_noto_fit(X, s, w, estimator=self.estimator, hold_out_ratio=self.hold_out_ratio,
                             c_estimator=self.c_estimator, random_state=self.random_state)
        c = min(fit.c_estimates[self.c_estimator], 1.0)

        self.estimator_ = fit.estimator
        self.c_ = c
        self.c_estimates_ = fit.c_estimates
        self.prior_ = float(min(1.0, fit.labeled_fraction / c))
        self.hold_out_indices_ = rows[fit.hold_out]
        # labeled rows of the training data (weighted): n of the pulearn_weighted rule
        self.n_labeled_ = float(np.sum(w[s == 1])) if w is not None else float(np.sum(s == 1))
        self.classes_ = np.array([0, 1])
        return self

    # -------------------------------------------------------------- predict

    def _g(self, X) -> np.ndarray:
        X = check_predict_X(self, X)
        return positive_proba(self.estimator_, X)

    def _pulearn_weighted(self, g) -> np.ndarray:
        c = self.c_
        gg = np.where(g == 1.0, 0.999, g)
        w = (gg / (1.0 - gg)) * ((1.0 - c) / c)
        return g * c * (self.n_labeled_ + float(w.sum())) / self.n_labeled_

    def predict_proba(self, X) -> np.ndarray:
        """``(n, 2)`` array; column 1 is ``Pr(y = 1 | x) = g(x) / c_`` clipped to [0, 1]
        (``proba="pulearn_weighted"``: the authors' batch rule, module docstring)."""
        g = self._g(X)
        p = self._pulearn_weighted(g) if self.proba == "pulearn_weighted" else g / self.c_
        p = np.clip(p, 0.0, 1.0)
        return np.column_stack([1.0 - p, p])

    def predict(self, X) -> np.ndarray:
        """1 where ``Pr(y = 1 | x) >= 0.5``, i.e. where ``g(x) >= c_ / 2``
        (Elkan & Noto: the labeled-vs-unlabeled classifier thresholded at c/2);
        ``proba="pulearn_weighted"``: where its probability is above 0.5."""
        if self.proba == "pulearn_weighted":
            return (self.predict_proba(X)[:, 1] > 0.5).astype(np.int64)
        return (self._g(X) / self.c_ >= 0.5).astype(np.int64)

    def decision_function(self, X) -> np.ndarray:
        """``g(x) / c_ - 0.5`` (not clipped, so it keeps ranking examples whose
        ``g(x)`` exceeds ``c_``); positive exactly where :meth:`predict` is 1,
        except at 0 where ``predict`` gives 1. ``proba="pulearn_weighted"``: the
        unclipped batch probability minus 0.5."""
        if self.proba == "pulearn_weighted":
            return self._pulearn_weighted(self._g(X)) - 0.5
        return self._g(X) / self.c_ - 0.5

