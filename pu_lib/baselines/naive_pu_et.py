"""The PU Extra Trees paper's NaivePUET baseline (Wilton et al. 2022): PN Extra Trees
trained on ``(X, s)``, i.e. with the unlabeled examples taken as negatives."""

from __future__ import annotations

from sklearn.base import _fit_context

from pu_lib.base import PUClassifierMixin
from pu_lib.trees import PNExtraTreesClassifier

__all__ = ["NaivePUExtraTreesClassifier"]


class NaivePUExtraTreesClassifier(PUClassifierMixin, PNExtraTreesClassifier):
    """NaivePUET: :class:`pu_lib.trees.PNExtraTreesClassifier` fitted on the labels ``s``
    (1 = labeled positive, 0 = unlabeled, taken as negative). Parameters and fitted
    attributes are those of :class:`~pu_lib.trees.PNExtraTreesClassifier`;
    ``classes_`` is ``[0, 1]``.

    **predict_proba** (kind ``"labeled"``, docs/probabilities.md): ``P(s = 1 | x)`` (unlabeled rows
    taken as negatives).
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "labeled"

    _labels_are_s = True

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled)."""
        return self._fit_forest(X, s, sample_weight)
