"""Baseline PU classifiers.

* :class:`NaivePUClassifier` -- treats every unlabeled example as negative.
* :class:`ElkanNotoClassifier` -- Elkan & Noto (2008): non-traditional classifier
  ``g(x) = Pr(s = 1 | x)`` rescaled by an estimated label frequency ``c``.
* :class:`RankPruningClassifier` -- Rank Pruning (Northcutt et al. 2017) with rho0 = 0.
* :class:`SpyEMClassifier` -- S-EM (Liu et al. 2002): spies, reliable negatives, naive Bayes EM.
* :class:`PNBoostingClassifier` -- the Ada-PU paper's PN boosting baselines (AdaBoost,
  gradient boosting, XGBoost with stumps on a PN sample of the true classes).
* :class:`SupervisedClassifier` -- the oracle on the true classes, any base classifier.
* :class:`PUBaggingClassifier` -- PU bagging (Mordelet & Vert 2014) on any base classifier.
* :class:`PUWeightedLogisticRegression` -- Lee & Liu (2003) weighted logistic regression.
* :class:`ADASYNRandomForestClassifier` -- the PU Hellinger paper's ADASYN + random forest.
* :class:`PURiskXGBClassifier` -- uPU / nnPU / imbalanced nnPU risks as XGBoost objectives.
* The PU Extra Trees paper's tree baselines (SupervisedET, NaivePUET, PUBaggingET).
"""

from pu_lib.baselines.adasyn_rf import ADASYNRandomForestClassifier
from pu_lib.baselines.elkan_noto import ElkanNotoClassifier
from pu_lib.baselines.naive import NaivePUClassifier
from pu_lib.baselines.naive_pu_et import NaivePUExtraTreesClassifier
from pu_lib.baselines.nnpu_xgb import PURiskXGBClassifier
from pu_lib.baselines.pn_boosting import PNBoostingClassifier
from pu_lib.baselines.pu_bagging import PUBaggingClassifier, PUBaggingExtraTreesClassifier
from pu_lib.baselines.rank_pruning import RankPruningClassifier
from pu_lib.baselines.spy_em import SpyEMClassifier
from pu_lib.baselines.supervised import SupervisedClassifier
from pu_lib.baselines.supervised_et import SupervisedExtraTreesClassifier
from pu_lib.baselines.weighted_lr import PUWeightedLogisticRegression

__all__ = [
    "ADASYNRandomForestClassifier",
    "ElkanNotoClassifier",
    "NaivePUClassifier",
    "NaivePUExtraTreesClassifier",
    "PNBoostingClassifier",
    "PUBaggingClassifier",
    "PUBaggingExtraTreesClassifier",
    "PURiskXGBClassifier",
    "PUWeightedLogisticRegression",
    "RankPruningClassifier",
    "SpyEMClassifier",
    "SupervisedClassifier",
    "SupervisedExtraTreesClassifier",
]
