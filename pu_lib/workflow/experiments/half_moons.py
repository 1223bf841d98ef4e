"""The PU-HDT paper's half-moons illustration (Section 3.2, Figure 2): class-imbalanced
half-moons (prior 5%), half of the positives unlabeled (SCAR), and the decision regions of
CART, HDT and PU-HDT fitted on the PU labels.

Models (all depth 5, the paper's setting for its single trees; "CART" is our PN tree with
the Gini criterion, the same splitter as the other two): CART and HDT are fitted on ``s``
(labeled = positive), PU-HDT on ``s`` with the true prior. Besides the figure,
:func:`half_moons` returns a summary per model on the training points: the share of the
unlabeled positives and of the negatives predicted positive (class probability > 0.5),
and the AUC-PR of the hidden positives among the unlabeled rows (ranked by the leaf's
labeled fraction, which the paper's experiments score: PU-HDT's class probability is
capped at 1 in many leaves, which ties their rows), so that the paper's
reading of the figure ("most of the unlabeled positives fall into the blue regions" for
PU-HDT, few for CART) can be checked in numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["half_moons"]


def half_moons(options: dict, seed: int):
    """``(figure, summary frame)`` for the options of the config's ``half_moons`` section:
    ``n_samples``, ``prior``, ``flip_ratio`` (share of positives left unlabeled), ``noise``,
    ``max_depth``."""
    from sklearn.base import clone

    from pu_lib._seeding import derive_seed
    from pu_lib.datasets import make_imbalanced_moons
    from pu_lib.workflow.figures import decision_regions
    from pu_lib.labeling import scar_flip_ratio
    from pu_lib.metrics import auc_pr
    from pu_lib.trees import HellingerTreeClassifier, PNDecisionTreeClassifier, PUHellingerTreeClassifier

    X, y = make_imbalanced_moons(options["n_samples"], options["prior"], options["noise"],
                                 random_state=derive_seed(seed, "half_moons", "data"))
    s = scar_flip_ratio(y, options["flip_ratio"], derive_seed(seed, "half_moons", "labels")).s
    depth = options["max_depth"]
    fit_seed = derive_seed(seed, "half_moons", "fit")
    models = {
        "CART": PNDecisionTreeClassifier(criterion="gini", max_depth=depth, random_state=fit_seed).fit(X, s),
        "HDT": HellingerTreeClassifier(max_depth=depth, random_state=fit_seed).fit(X, s),
        "PU-HDT": PUHellingerTreeClassifier(prior=float(y.mean()), max_depth=depth,
                                            random_state=fit_seed).fit(X, s),
    }
    # the ranking the paper's experiments score: the leaf's labeled fraction (the same tree)
    ranking = dict(models, **{"PU-HDT": clone(models["PU-HDT"]).set_params(proba="labeled_fraction").fit(X, s)})
    rows = []
    hidden, neg, unl = (y == 1) & (s == 0), y == 0, s == 0
    for name, m in models.items():
        p = m.predict_proba(X)[:, 1]
        r = ranking[name].predict_proba(X)[:, 1]
        rows.append({
            "model": name,
            "hidden_positives_predicted_positive": float(np.mean(p[hidden] > 0.5)),
            "negatives_predicted_positive": float(np.mean(p[neg] > 0.5)),
            "auc_pr_unlabeled": float(auc_pr(y[unl], r[unl])),
        })
    title = (f"imbalanced half-moons: prior {y.mean():.0%}, {int(s.sum())} labeled of {int(y.sum())} positives, "
             f"{len(y)} points")
    return decision_regions(models, X, y, s, suptitle=title), pd.DataFrame(rows)
