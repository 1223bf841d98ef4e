"""Tree learners on one compiled engine: PU decision trees and PU Extra Trees (Wilton,
Koay, Ko, Xu, Ye, NeurIPS 2022), PN trees on the same engine, and the paper's tree
baselines (SupervisedET, NaivePUET, PUBaggingET).

Modules: :mod:`._criteria` (node risks and split gains, Propositions 1-5, Theorem 1),
:mod:`._builder` (the numba tree builder and predictor), :mod:`._tree` (fitted trees as
flat arrays), :mod:`._parallel` (threads / Dask), :mod:`._classes` (the estimators).
"""

from pu_lib.trees._classes import (
    NaivePUExtraTreesClassifier,
    PNDecisionTreeClassifier,
    PNExtraTreesClassifier,
    PUBaggingExtraTreesClassifier,
    PUDecisionTreeClassifier,
    PUExtraTreesClassifier,
    SupervisedExtraTreesClassifier,
    pu_weights,
)
from pu_lib.trees._tree import Tree

__all__ = [
    "PUDecisionTreeClassifier",
    "PUExtraTreesClassifier",
    "PNDecisionTreeClassifier",
    "PNExtraTreesClassifier",
    "SupervisedExtraTreesClassifier",
    "NaivePUExtraTreesClassifier",
    "PUBaggingExtraTreesClassifier",
    "Tree",
    "pu_weights",
]
