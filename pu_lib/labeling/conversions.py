"""Class prior <-> label frequency by scenario (thesis section 2.1.5, eqs. 2.5-2.7).

The relations themselves live once, in :mod:`pu_lib.prior.base`
(:func:`~pu_lib.prior.base.c_from_alpha`, :func:`~pu_lib.prior.base.alpha_from_c`,
:func:`~pu_lib.prior.base.prior_from_alpha`, :func:`~pu_lib.prior.base.alpha_from_prior`);
these two functions only pick, by scenario, which prior the caller means:

* single-training-set: ``prior = Pr(y=1)``, the prior of the whole sample;
* case-control: ``prior = alpha = Pr(y=1 | s=0)``, the prior of the unlabeled sample.

:mod:`pu_lib.prior.base` is imported when a function is called (it loads scikit-learn),
so importing :mod:`pu_lib.labeling` stays cheap.
"""

from __future__ import annotations

from pu_lib._validation import CASE_CONTROL, SINGLE_TRAINING_SET, check_prior, check_scenario

__all__ = ["label_frequency_from_prior", "prior_from_label_frequency"]


def label_frequency_from_prior(prior, labeled_fraction, scenario=SINGLE_TRAINING_SET) -> float:
    """Label frequency ``c`` from the class prior and ``l = Pr(s=1)`` (thesis 2.1.5).

    * single-training-set, eq. 2.5: ``c = l / prior`` (``prior = Pr(y=1)``);
    * case-control, eq. 2.6: ``c = l / (alpha (1 - l) + l)``
      (``prior = alpha = Pr(y=1 | s=0)``, the prior of the unlabeled sample).

    ``prior`` in (0, 1); ``labeled_fraction`` in (0, 1). Raises ValueError when the inputs
    are inconsistent (single-training-set: ``l > prior``, more labeled rows than positives).
    """
    from pu_lib.prior.base import alpha_from_prior, c_from_alpha

    check_scenario(scenario)
    prior = check_prior(prior, "prior")
    if scenario == CASE_CONTROL:
        return c_from_alpha(prior, labeled_fraction)
    return c_from_alpha(alpha_from_prior(prior, labeled_fraction), labeled_fraction)


def prior_from_label_frequency(c, labeled_fraction, scenario=SINGLE_TRAINING_SET) -> float:
    """Class prior from the label frequency ``c`` and ``l = Pr(s=1)`` (thesis 2.1.5).

    * single-training-set, inverse of eq. 2.5: ``prior = l / c``;
    * case-control, eq. 2.7: ``alpha = (1 - c) / c * l / (1 - l)``.

    Raises ValueError when ``c`` lies outside ``[l, 1]`` or the implied prior is not in (0, 1).
    """
    from pu_lib.prior.base import alpha_from_c, prior_from_alpha

    check_scenario(scenario)
    alpha = alpha_from_c(c, labeled_fraction)
    prior = alpha if scenario == CASE_CONTROL else prior_from_alpha(alpha, labeled_fraction)
    if not 0.0 < prior < 1.0:
        raise ValueError(f"c={c} and labeled_fraction={labeled_fraction} imply a prior of {prior:.4g}, outside (0, 1)")
    return prior
