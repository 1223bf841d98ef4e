"""What every pu_lib estimator shares: the PU classifier mixin (scikit-learn tags for
0/1 ``s``) and the declaration of what ``fit`` needs beyond ``(X, s)``.

**Fit inputs.** An estimator declares the extra inputs its ``fit`` needs with
scikit-learn's metadata-request mechanism: a class attribute
``__metadata_request__fit = {"propensity": True}`` (or an instance's
``set_fit_request``, with ``sklearn.set_config(enable_metadata_routing=True)``). The
experiment runner asks :func:`fit_inputs` and passes exactly those, read from the label
file (which stores ``y`` and ``propensity``), as keyword arguments of ``fit``:

=================  ==========================================================================
``y_true``         the true 0/1 classes of the training rows (oracle baselines such as the
                   PU Extra Trees paper's SupervisedET)
``propensity``     the true propensity scores ``e(x) = Pr(s = 1 | y = 1, x)`` of the training
                   rows (SAR learning with known propensities, Bekker thesis ch. 5)
``sample_weight``  per-row weights (only when requested; label files carry none today)
=================  ==========================================================================

The true class prior is not a fit input: it is a constructor parameter (``prior``), which
a config sets to the true training prior with ``params: {prior: true}``.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions

from pu_lib._validation import SCENARIOS, accepts_sparse

__all__ = ["FIT_INPUTS", "RANDOM_STATE_CONSTRAINT", "SCENARIO_CONSTRAINT", "PUClassifierMixin", "SparseWhen",
           "fit_inputs", "learner_accepts_sparse"]

#: the ``random_state`` values every pu_lib estimator accepts (scikit-learn constraint
#: list): None, a seed in [0, 2**32 - 1], a ``numpy.random.Generator`` or a legacy
#: ``numpy.random.RandomState`` as scikit-learn accepts (either consumed once for a seed,
#: :func:`pu_lib._seeding.seed_to_int`)
RANDOM_STATE_CONSTRAINT = [None, Interval(Integral, 0, 2**32 - 1, closed="both"), np.random.Generator,
                           np.random.RandomState]


#: how ``s`` is read (:data:`pu_lib._validation.SCENARIOS`)
SCENARIO_CONSTRAINT = [StrOptions(set(SCENARIOS))]

#: the extra fit inputs the experiment runner can supply, with their meaning
FIT_INPUTS = {
    "y_true": "true 0/1 classes of the training rows",
    "propensity": "true propensity scores e(x) of the training rows",
    "propensity_attributes": "column indices the SAR labeling's propensity score depends on",
    "sample_weight": "per-row weights",
}


def fit_inputs(estimator) -> frozenset[str]:
    """The names of :data:`FIT_INPUTS` that ``estimator.fit`` requests (declared with
    scikit-learn's metadata requests); empty for an estimator without any."""
    if not hasattr(estimator, "get_metadata_routing"):
        return frozenset()
    routing = estimator.get_metadata_routing()
    if not hasattr(routing, "consumes"):
        return frozenset()
    return frozenset(routing.consumes("fit", list(FIT_INPUTS)))


# --- sparse input: which estimators take scipy sparse X (pu_lib._validation.accepts_sparse
# reads an estimator's _accepts_sparse: True / False on the class, or a SparseWhen)


def learner_accepts_sparse(learner, default: bool = False) -> bool:
    """Whether a base learner given as a parameter takes sparse ``X``: its scikit-learn tag
    ``input_tags.sparse`` (False for ``StandardScaler`` + ``LogisticRegression``, which
    would centre the columns, True for ``LogisticRegression``, ``LinearSVC``, XGBoost,
    scikit-learn's trees and boosters); ``default`` when it is None (the method's own
    default learner)."""
    if learner is None:
        return default
    from sklearn.utils import get_tags

    try:
        return bool(get_tags(learner).input_tags.sparse)
    except Exception:  # an object without scikit-learn tags: not known to take sparse input
        return False


class SparseWhen:
    """``_accepts_sparse`` of an estimator whose sparse support depends on its parameters:
    ``condition(estimator) -> bool`` on an instance; on the class, this object, whose
    ``text`` ("with ...") the sparse-input error message shows."""

    def __init__(self, condition, text: str):
        self.condition, self.text = condition, text

    def __get__(self, obj, owner=None):
        return self if obj is None else bool(self.condition(obj))


#: SparseWhen of the methods that hand X unchanged to their base learner (``estimator``)
SPARSE_WITH_BASE = SparseWhen(lambda est: learner_accepts_sparse(est.estimator),
                              "with a base learner that takes sparse input, e.g. LogisticRegression()")


class PUClassifierMixin(ClassifierMixin):
    """Mixin for PU classifiers: ``fit(X, s)`` with ``s`` in {0, 1} (1 = labeled positive),
    ``predict`` in {0, 1} (1 = positive), ``predict_proba`` columns ``[P(y=0), P(y=1)]``.

    Tags: binary only (``s`` is an indicator, not a class label of many values); sparse
    input as the class's ``_accepts_sparse`` says (:func:`pu_lib._validation.accepts_sparse`).

    The scikit-learn checks a PU classifier cannot pass, with the reasons, are listed beside
    the checks (:data:`pu_lib.utils.estimator_checks.EXPECTED_FAILURES`)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = accepts_sparse(self)
        return tags
