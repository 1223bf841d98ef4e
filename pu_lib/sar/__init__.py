"""Learning from SAR PU data (Bekker's thesis, chapter 5): propensity-weighted learning
with known propensity scores (section 5.3, Definition 7), its SCAR special case with the
label frequency, SAR-EM with unknown propensities (section 5.4.2), and the weighted
logistic regression both rest on.

* :class:`PropensityWeightedClassifier` -- ``fit(X, s, propensity=e)``;
* :class:`LabelFrequencyWeightedClassifier` -- ``e(x) = c`` (true, given or estimated c);
* :class:`SAREMClassifier` -- ``fit(X, s, propensity_attributes=[...])``, ``propensity(X)``;
* :class:`WeightedLogisticRegression` -- L2 logistic regression with negative weights (defined in
  :mod:`pu_lib.base_learners`, where the baselines' base-estimator factory finds it too);
* :func:`propensity_weights`, :func:`propensity_weighted_risk` -- Definition 7's weights
  and risk estimate.

The SAR *labeling* mechanism (how SAR data are generated) lives in
:mod:`pu_lib.labeling.sar`.
"""

from pu_lib.base_learners import WeightedLogisticRegression
from pu_lib.sar.propensity_weighting import (
    LabelFrequencyWeightedClassifier,
    PropensityWeightedClassifier,
    fit_pair_weighted,
    propensity_weighted_risk,
    propensity_weights,
)
from pu_lib.sar.sar_em import SAREMClassifier, expected_positive, least_squares_slope, observed_log_likelihood

__all__ = [
    "LabelFrequencyWeightedClassifier",
    "PropensityWeightedClassifier",
    "SAREMClassifier",
    "WeightedLogisticRegression",
    "expected_positive",
    "fit_pair_weighted",
    "least_squares_slope",
    "observed_log_likelihood",
    "propensity_weighted_risk",
    "propensity_weights",
]
