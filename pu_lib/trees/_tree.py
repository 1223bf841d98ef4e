"""A fitted tree as flat arrays (picklable, no numba objects)."""

from __future__ import annotations

import numpy as np

FIELDS = ("children_left", "children_right", "feature", "threshold", "value", "weight_p", "weight",
          "n_node_samples", "impurity", "improvement", "depth")


class Tree:
    """Node arrays of one tree, indexed by node id (0 = root; leaves have children -1).

    ``value`` is the node's v* = Wp / W (Wilton et al. 2022, Proposition 1), ``weight_p``
    and ``weight`` are Wp and W = Wp + Wn (sample weights included),
    ``n_node_samples`` the number of training rows in the node (unweighted; bootstrap
    repeats counted), ``impurity`` the node's impurity under the tree's criterion and
    ``improvement`` the improvement achieved by the node's split (0 for leaves). For the
    PU criteria the impurity is the paper's minimum partial risk R*(node) and the
    improvement its risk reduction RR; for Gini / entropy the weighted impurity and its
    decrease (see :mod:`pu_lib.trees._criteria`).
    """

    __slots__ = FIELDS

    def __init__(self, *arrays):
        if len(arrays) != len(FIELDS):
            raise ValueError(f"Tree needs {len(FIELDS)} arrays, got {len(arrays)}")
        for name, arr in zip(FIELDS, arrays):
            setattr(self, name, arr)

    def __getstate__(self):
        return {name: getattr(self, name) for name in FIELDS}

    def __setstate__(self, state):
        for name in FIELDS:
            setattr(self, name, state[name])

    @property
    def node_count(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def n_leaves(self) -> int:
        return int(np.sum(self.children_left == -1))

    @property
    def max_depth(self) -> int:
        return int(self.depth.max()) if self.node_count else 0

    def apply(self, X) -> np.ndarray:
        from pu_lib.trees._builder import apply_tree

        return apply_tree(X, self.children_left, self.children_right, self.feature, self.threshold)

    def leaf_values(self, X) -> np.ndarray:
        """v* of the leaf each row falls into (unclipped)."""
        return self.value[self.apply(X)]

    def importances(self, n_features: int, normalized: bool = False) -> np.ndarray:
        """Importance per feature: the sum of the improvements of the nodes splitting on it
        (for PU trees the paper's risk-reduction importance, Section 4); ``normalized``
        divides each improvement by the node's total weight W. Infinite improvements (a
        uPU child with R* = -inf) are left out."""
        internal = self.children_left != -1
        rr = self.improvement[internal]
        if normalized:
            w = self.weight[internal]
            rr = np.divide(rr, w, out=np.zeros_like(rr), where=w > 0)
        keep = np.isfinite(rr)
        return np.bincount(self.feature[internal][keep], weights=rr[keep], minlength=n_features).astype(np.float64)
