"""The PU Extra Trees paper's SupervisedET baseline (Wilton et al. 2022): PN Extra Trees
trained on the *true* classes of the training rows, an upper bound for tree-based PU
methods."""

from __future__ import annotations

from sklearn.base import _fit_context

from pu_lib.trees import PNExtraTreesClassifier

__all__ = ["SupervisedExtraTreesClassifier"]


class SupervisedExtraTreesClassifier(PNExtraTreesClassifier):
    """SupervisedET: :class:`pu_lib.trees.PNExtraTreesClassifier` fitted on the true
    classes.

    ``fit(X, y, y_true=None, sample_weight=None)`` trains on ``y_true`` when it is given
    and otherwise on the second argument, taken as the classes (so ``fit(X, y)`` works as
    for any classifier; in a PU run the second argument is ``s``, ignored when ``y_true``
    is given). The second argument is named ``y``, as scikit-learn expects of a
    classifier's ``fit``. The oracle input is declared with scikit-learn's metadata
    requests (``__metadata_request__fit = {"y_true": True}``), so the experiment runner
    (:func:`pu_lib.base.fit_inputs`) passes the true classes of the training rows as
    ``y_true``. Parameters and fitted attributes are those of
    :class:`~pu_lib.trees.PNExtraTreesClassifier`.

    **predict_proba** (kind ``"posterior"``, docs/probabilities.md): ``P(y = 1 | x)``, the forest
    having seen the true classes.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "posterior"

    __metadata_request__fit = {"y_true": True}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, y_true=None, sample_weight=None):
        """Fit on ``X`` and the true classes ``y_true`` (default: ``y``)."""
        return self._fit_forest(X, y if y_true is None else y_true, sample_weight)
