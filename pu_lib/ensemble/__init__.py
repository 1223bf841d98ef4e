"""Boosting ensembles for PU data.

* :class:`AdaPUClassifier` -- Ada-PU, AdaBoost with decision stumps on positive and
  unlabeled data (Zhao et al.), in :mod:`pu_lib.ensemble.ada_pu`.
"""

from pu_lib.ensemble.ada_pu import AdaPUClassifier

__all__ = ["AdaPUClassifier"]
