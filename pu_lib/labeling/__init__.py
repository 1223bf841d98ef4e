"""Labeling mechanisms: turn fully labeled (PN) data into positive-unlabeled (PU) data.

Terminology follows Bekker's thesis (``bekker_thesis.md``):

* ``y`` is the true class (1 positive, 0 negative), ``s`` the observed label
  (1 = labeled positive, 0 = unlabeled).  Only positives can be labeled.
* The *propensity score* ``e(x) = Pr(s=1 | y=1, x)`` (thesis Definition 6, section 5.3)
  and the *label frequency* ``c = Pr(s=1 | y=1)`` (section 2.1.3, eq. 2.2).
* Labeling-mechanism classes SCAR / SAR / SNAR (section 5.2).
* The single-training-set and case-control scenarios (section 2.1.4), spelled
  :data:`pu_lib._validation.SINGLE_TRAINING_SET` and :data:`pu_lib._validation.CASE_CONTROL`
  as everywhere in the package, and the conversions between ``c`` and the class prior
  (section 2.1.5, eqs. 2.5-2.7).

Modules, by mechanism family:

* :mod:`~pu_lib.labeling.scar` -- :func:`scar_label_frequency`, :func:`scar_flip_ratio`,
  :func:`scar_count`, :func:`case_control`, :func:`expand_case_control`;
* :mod:`~pu_lib.labeling.sar` -- :func:`scale_minus1_1`, :func:`sar_propensity`,
  :func:`sar_bekker`, :func:`biased_propensity` (over- / underestimated propensity scores,
  thesis section 5.6.2), :func:`extend_attributes` (the thesis' "extended" datasets with
  class-correlated and noise attributes);
* :mod:`~pu_lib.labeling.snar` -- :func:`snar_subclass`, :func:`pulsnar_alpha`,
  :func:`snar_probability`;
* :mod:`~pu_lib.labeling.splits` -- :func:`stratified_holdout`, :func:`subsample`;
* :mod:`~pu_lib.labeling.conversions` -- :func:`label_frequency_from_prior`,
  :func:`prior_from_label_frequency` (by scenario, over :mod:`pu_lib.prior.base`);
* :mod:`~pu_lib.labeling.label_sets` -- :data:`MECHANISMS`, :func:`validate_mechanism_params`,
  :func:`apply_mechanism`, :func:`make_label_set`, :func:`label_set_metadata`.

Every mechanism returns a :class:`LabelResult`.  Its ``propensity`` array holds the true
``e(x)`` for *every* row: for a negative row it is the value that row would have if it
were positive (the mechanism's ``e`` evaluated at its ``x``), or ``NaN`` where the
mechanism does not define one (a negative whose subclass id is not a positive subclass
in :func:`snar_subclass`).

Randomness: every function takes ``random_state`` (None, int, ``numpy.random.Generator`` or
``numpy.random.RandomState``) and goes through :func:`pu_lib._seeding.check_random_state`;
the global NumPy random state is never used.  :func:`make_label_set` derives an independent child seed per step
with :func:`pu_lib._seeding.derive_seed`.

Counts: "round(v)" below is :func:`pu_lib._rounding.round_half_up` (so
``0.7 * 5 = 3.4999999999999996`` rounds to 4, as the user intends) and proportional
splits of a count use :func:`pu_lib._rounding.largest_remainder`.
"""

from pu_lib._validation import SCENARIOS
from pu_lib.labeling._common import LabelResult
from pu_lib.labeling.conversions import label_frequency_from_prior, prior_from_label_frequency
from pu_lib.labeling.label_sets import (
    MECHANISMS,
    apply_mechanism,
    label_set_metadata,
    make_label_set,
    validate_mechanism_params,
)
from pu_lib.labeling.sar import biased_propensity, extend_attributes, sar_bekker, sar_propensity, scale_minus1_1
from pu_lib.labeling.scar import case_control, expand_case_control, scar_count, scar_flip_ratio, scar_label_frequency
from pu_lib.labeling.snar import pulsnar_alpha, snar_probability, snar_subclass
from pu_lib.labeling.splits import SPLITS, stratified_holdout, subsample

__all__ = [
    "LabelResult",
    "MECHANISMS",
    "SCENARIOS",
    "SPLITS",
    "apply_mechanism",
    "biased_propensity",
    "case_control",
    "expand_case_control",
    "extend_attributes",
    "label_frequency_from_prior",
    "label_set_metadata",
    "make_label_set",
    "prior_from_label_frequency",
    "pulsnar_alpha",
    "sar_bekker",
    "sar_propensity",
    "scale_minus1_1",
    "scar_count",
    "scar_flip_ratio",
    "scar_label_frequency",
    "snar_probability",
    "snar_subclass",
    "stratified_holdout",
    "subsample",
    "validate_mechanism_params",
]
