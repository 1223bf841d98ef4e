"""Base learners: the supervised classifiers that PU methods are built on, and the helpers
for using one inside a PU method.

* :func:`make_base_estimator`, :data:`BASE_ESTIMATORS` -- an unfitted classifier from the
  short name a config's ``base:`` gives; :func:`default_logistic_regression` -- the
  default base classifier of the baselines (``StandardScaler`` + ``LogisticRegression``);
* :class:`WeightedLogisticRegression` -- L2 logistic regression with pair weights of any
  sign (the learner of Bekker's SAR methods; also re-exported by :mod:`pu_lib.sar`);
* :func:`clone_base`, :func:`fit_base`, :func:`positive_proba`, :func:`check_predict_X`
  -- clone a user-given base classifier with the method's seed, fit it with sample
  weights (also through a pipeline), read its class-1 probability, check prediction input.

This subpackage sits on the floor below the prior estimators and the method families
(docs/developers.md, "Layout and layers"): it imports only the shared modules and
:mod:`pu_lib.hist_boost`, never a PU method.
"""

from pu_lib.base_learners._factory import BASE_ESTIMATORS, default_logistic_regression, make_base_estimator
from pu_lib.base_learners._fitting import check_predict_X, clone_base, fit_base, positive_proba
from pu_lib.base_learners._logistic import WeightedLogisticRegression

__all__ = [
    "BASE_ESTIMATORS",
    "WeightedLogisticRegression",
    "check_predict_X",
    "clone_base",
    "default_logistic_regression",
    "fit_base",
    "make_base_estimator",
    "positive_proba",
]
