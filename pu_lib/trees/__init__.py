"""Tree learners on one compiled engine: PU decision trees and PU Extra Trees (Wilton,
Koay, Ko, Xu, Ye, NeurIPS 2022), PN trees, and the PU Hellinger trees and forests. The paper's tree
baselines (SupervisedET, NaivePUET, PUBaggingET) are in :mod:`pu_lib.baselines`.

Modules: :mod:`._criteria` (the criterion table and the node formulas: impurity = the
paper's minimum partial risk R*, improvement = its risk reduction RR; Propositions 1-5,
Theorem 1; the Hellinger distance), :mod:`._builder` (the numba tree builder and predictor), :mod:`._tree`
(fitted trees as flat arrays), :mod:`._parallel` (threads / Dask, bootstrap samples),
:mod:`._classes` (the PU ET estimators), :mod:`.hellinger` (PU-HDT, HDT, PU-HRF / PU-SHRF of
Ortega Vazquez, vanden Broucke, De Weerdt).
"""

from pu_lib.trees._classes import (
    PNDecisionTreeClassifier,
    PNExtraTreesClassifier,
    PUDecisionTreeClassifier,
    PUExtraTreesClassifier,
    pu_weights,
)
from pu_lib.trees._criteria import CRITERIA
from pu_lib.trees._tree import Tree
from pu_lib.trees.hellinger import HellingerTreeClassifier, PUHellingerForestClassifier, PUHellingerTreeClassifier

__all__ = [
    "PUDecisionTreeClassifier",
    "PUExtraTreesClassifier",
    "PNDecisionTreeClassifier",
    "PNExtraTreesClassifier",
    "HellingerTreeClassifier",
    "PUHellingerTreeClassifier",
    "PUHellingerForestClassifier",
    "CRITERIA",
    "Tree",
    "pu_weights",
]
