"""Baseline PU classifiers.

* :class:`NaivePUClassifier` -- treats every unlabeled example as negative.
* :class:`ElkanNotoClassifier` -- Elkan & Noto (2008): non-traditional classifier
  ``g(x) = Pr(s = 1 | x)`` rescaled by an estimated label frequency ``c``.
* :class:`PNBoostingClassifier` -- the Ada-PU paper's PN boosting baselines (AdaBoost,
  gradient boosting, XGBoost with stumps on a PN sample of the true classes).
* :class:`SupervisedClassifier` -- the oracle on the true classes, any base classifier.
* The PU Extra Trees paper's tree baselines (SupervisedET, NaivePUET, PUBaggingET).
"""

from pu_lib.baselines.elkan_noto import ElkanNotoClassifier
from pu_lib.baselines.naive import NaivePUClassifier
from pu_lib.baselines.naive_pu_et import NaivePUExtraTreesClassifier
from pu_lib.baselines.pn_boosting import PNBoostingClassifier
from pu_lib.baselines.pu_bagging import PUBaggingExtraTreesClassifier
from pu_lib.baselines.supervised import SupervisedClassifier
from pu_lib.baselines.supervised_et import SupervisedExtraTreesClassifier

__all__ = [
    "ElkanNotoClassifier",
    "NaivePUClassifier",
    "NaivePUExtraTreesClassifier",
    "PNBoostingClassifier",
    "PUBaggingExtraTreesClassifier",
    "SupervisedClassifier",
    "SupervisedExtraTreesClassifier",
]
