"""Risk-reduction importance maps of the PU Extra Trees paper (Wilton et al. 2022,
Section 5.2, Figure 2 and Appendix L, Figures 3-4).

For every MNIST digit k, the positive class is "digit k" and the negative class the nine
other digits. Two forests are fitted on the training images:

* PU ET (nnPU risk, quadratic loss, the paper's defaults): ``n_labeled`` labeled positives
  drawn from the digit-k images, the whole training set as the unlabeled sample
  (single-training-set scenario), prior = the fraction of digit k in the training set;
* PN ET (Gini) on the true labels.

Each forest gives a 28 x 28 map of its risk-reduction importance, raw
(``feature_importances_``) and normalised (``feature_importances_normalized_``: each
node's reduction divided by its total weight). The paper does not say how the PU data
were made for these figures; we use its classification protocol (1,000 labeled
positives, U = all training images) for each one-vs-rest task.
"""

from __future__ import annotations

import numpy as np

from pu_lib._optional import require


def digit_importances(X, digits, *, positive_digits=range(10), n_labeled: int = 1000, n_estimators: int = 100,
                      random_state: int = 0, n_jobs=None) -> dict:
    """Importance vectors per digit: ``{k: {"pu_raw", "pu_normalized", "pn_raw",
    "pn_normalized"}}`` (each of length ``X.shape[1]``)."""
    from pu_lib._seeding import derive_seed
    from pu_lib.trees import PNExtraTreesClassifier, PUExtraTreesClassifier

    X = np.asarray(X, dtype=np.float32)
    digits = np.asarray(digits)
    out = {}
    for k in positive_digits:
        y = (digits == k).astype(np.int8)
        pos = np.flatnonzero(y == 1)
        if pos.size < n_labeled:
            raise ValueError(f"digit {k}: only {pos.size} images, cannot label {n_labeled}")
        rng = np.random.default_rng(derive_seed(random_state, "importance_maps", int(k)))
        s = np.zeros_like(y)
        s[rng.choice(pos, n_labeled, replace=False)] = 1
        pu = PUExtraTreesClassifier(n_estimators=n_estimators, prior=float(y.mean()),
                                    random_state=derive_seed(random_state, "pu_et", int(k)), n_jobs=n_jobs).fit(X, s)
        pn = PNExtraTreesClassifier(n_estimators=n_estimators,
                                    random_state=derive_seed(random_state, "pn_et", int(k)), n_jobs=n_jobs).fit(X, y)
        out[int(k)] = {
            "pu_raw": pu.feature_importances_,
            "pu_normalized": pu.feature_importances_normalized_,
            "pn_raw": pn.feature_importances_,
            "pn_normalized": pn.feature_importances_normalized_,
        }
    return out


def importance_figure(importances: dict, kind: str = "raw", shape=(28, 28), title: str | None = None):
    """Two rows of maps (top: PU ET, bottom: PN ET), one column per digit, as the paper's
    Figure 2 (``kind="raw"``) and Figure 4 (``kind="normalized"``). Each map is scaled to
    its own maximum; lighter = more important (the paper's colouring)."""
    Figure = require("matplotlib.figure", purpose="importance_figure").Figure

    if kind not in ("raw", "normalized"):
        raise ValueError(f"kind must be 'raw' or 'normalized', got {kind!r}")
    keys = sorted(importances)
    fig = Figure(figsize=(1.3 * len(keys) + 0.8, 3.2))
    axes = fig.subplots(2, len(keys), squeeze=False)
    for j, k in enumerate(keys):
        for i, (model, label) in enumerate((("pu", "PU ET (nnPU, quadratic)"), ("pn", "PN ET (Gini)"))):
            ax = axes[i, j]
            m = np.asarray(importances[k][f"{model}_{kind}"], dtype=float).reshape(shape)
            top = m.max()
            ax.imshow(m / top if top > 0 else m, cmap="gray", vmin=0, vmax=1, interpolation="nearest")
            ax.set_xticks([])
            ax.set_yticks([])
            if i == 0:
                ax.set_title(str(k), fontsize=10)
            if j == 0:
                ax.set_ylabel(label.split(" (")[0], fontsize=9)
    fig.suptitle(title or f"Risk-reduction importance ({kind}) per MNIST digit: top PU ET, bottom PN ET",
                 fontsize=10)
    fig.tight_layout()
    return fig
