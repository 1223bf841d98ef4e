"""Elkan & Noto (2008) label-frequency estimators e1, e2, e3 as prior estimators.

C. Elkan and K. Noto, "Learning classifiers from only positive and unlabeled data",
KDD 2008, section 2. A non-traditional classifier ``g(x) ~ Pr(s = 1 | x)`` is trained on
part of the data (labeled vs unlabeled); on a held-out validation set ``V`` with
labeled subset ``P``:

* ``e1 = (1/|P|) sum_{x in P} g(x)``  (the paper's choice),
* ``e2 = sum_{x in P} g(x) / sum_{x in V} g(x)``,
* ``e3 = max_{x in V} g(x)``,

each an estimate of the label frequency ``c``; the class prior follows by thesis eq. 2.5
(see :mod:`pu_lib.prior.base`). The fitting (stratified hold-out, base classifier) is
that of :class:`pu_lib.baselines.ElkanNotoClassifier`, so the prior estimator and the
classifier give the same ``c`` for the same seed (tested).
"""

from __future__ import annotations

from sklearn.base import _fit_context

from pu_lib.baselines.elkan_noto import ElkanNotoClassifier
from pu_lib.prior.base import BasePriorEstimator

__all__ = ["ElkanNotoPrior"]


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
    random_state : None, int or Generator (hold-out split and base classifier seed).

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
    classifier_ : the fitted :class:`~pu_lib.baselines.ElkanNotoClassifier`.
    """

    # the parameters are those of the classifier it wraps
    _parameter_constraints: dict = dict(ElkanNotoClassifier._parameter_constraints)

    def __init__(self, estimator=None, hold_out_ratio=0.1, c_estimator="e1", random_state=None):
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
        clf = ElkanNotoClassifier(
            estimator=self.estimator,
            hold_out_ratio=self.hold_out_ratio,
            c_estimator=self.c_estimator,
            random_state=self.random_state,
        ).fit(X, s, sample_weight=sample_weight)
        self.classifier_ = clf
        self.c_estimates_ = dict(clf.c_estimates_)
        return "c", clf.c_estimates_[self.c_estimator]
