"""Synthetic data of the papers: the SCAR / SNAR pools of the PULSNAR paper (Section
"Synthetic data") and the imbalanced half-moons of the PU-HDT paper (Section 3.2,
:func:`make_imbalanced_moons`).

Both generators call :func:`sklearn.datasets.make_classification` once with
``flip_y=0``, ``class_sep`` (paper: 0.3), ``n_features`` (paper: 50), and the settings of
the authors' generator (``unmtransinfo/PULSNAR``, ``pudata/SimulatedData.py`` and
``SimulatedDataParams.py``), which the paper does not state: every feature informative
(``n_informative = n_features``), ``n_redundant=0``, ``n_repeated=0``,
``n_clusters_per_class=1``. (With ``n_informative=10`` and 40 noise columns the positive
subclasses are invisible to PULSNAR's clustering on all important features, and PULSNAR
underestimates alpha = 0.5 by about 0.15.) Unlike the authors, who
draw an oversized balanced pool and take the first rows of each class, we draw the
class sizes exactly, ``shuffle=True``.
Class sizes are forced exactly by passing ``weights[k] = (count_k + 0.5) / n``
(scikit-learn takes ``int(n * weights[k])`` samples per class), and checked.

The returned pool holds every example with its TRUE class in ``target``; the
paper's PU recipe (which positives are labeled) is in ``meta["recipe_s"]``.
"round" is round half up (:func:`pu_lib._rounding.round_half_up`).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd

from .._rounding import largest_remainder, round_half_up
from .._seeding import check_random_state, derive_seed
from .._validation import Interval, validate_params

__all__ = ["make_imbalanced_moons", "make_pulsnar_scar", "make_pulsnar_snar", "snar_unlabeled_counts"]



#: the parameters the PULSNAR recipes share (a seed, not a Generator: the recipes are
#: named by their seed, as the paper's seeds 0-39)
_RECIPE_CONSTRAINTS = {
    "frac": [Interval(Real, 0.0, 1.0, closed="left")],
    "n_unlabeled": [Interval(Integral, 1, None, closed="left")],
    "n_features": [Interval(Integral, 1, None, closed="left")],
    "class_sep": [Interval(Real, 0.0, None, closed="left")],
    "random_state": [Interval(Integral, 0, None, closed="left")],
    "n_informative": [None, Interval(Integral, 1, None, closed="left")],
}


def snar_unlabeled_counts(n_positive: int, n_subclasses: int = 5) -> list[int]:
    """Split ``n_positive`` unlabeled positives over subclasses with shares
    ``2**(i-1) / (2**n_subclasses - 1)`` (PULSNAR: 1/31, 2/31, 4/31, 8/31, 16/31),
    by largest remainders (:func:`pu_lib._rounding.largest_remainder`, ties: lower
    subclass first), so the counts sum exactly to ``n_positive``. For 1200 (20% of
    6000): ``[39, 77, 155, 310, 619]``.
    """
    return largest_remainder(n_positive, 2.0 ** np.arange(n_subclasses), ties="low").tolist()


def _generate(counts: list[int], n_features: int, class_sep: float, random_state: int, n_informative: int):
    from sklearn.datasets import make_classification

    n = int(sum(counts))
    weights = [(c + 0.5) / n for c in counts]
    X, y = make_classification(
        n_samples=n,
        n_features=n_features,
        n_informative=n_features if n_informative is None else min(int(n_informative), n_features),
        n_redundant=0,
        n_repeated=0,
        n_classes=len(counts),
        n_clusters_per_class=1,
        weights=weights,
        flip_y=0.0,
        class_sep=class_sep,
        shuffle=True,
        random_state=random_state,
    )
    got = np.bincount(y, minlength=len(counts)).tolist()
    if got != list(counts):
        raise RuntimeError(f"make_classification gave class counts {got}, expected {counts}")
    return np.ascontiguousarray(X, dtype=np.float32), y.astype(np.int64)


def _recipe(y: np.ndarray, per_class: dict[int, int], seed: int) -> np.ndarray:
    rng = check_random_state(seed)
    s = np.zeros(len(y), dtype=np.int8)
    for cls, k in per_class.items():
        idx = np.flatnonzero(y == cls)
        s[rng.choice(idx, size=k, replace=False)] = 1
    return s


def _pool(name: str, counts: list[int], per_class: dict[int, int], groups: bool, n_features: int,
          class_sep: float, random_state: int, n_informative: int):
    """The :class:`Dataset` of one generator: ``counts`` rows per class, the recipe's
    ``per_class`` labeled rows (seed ``derive_seed(name, random_state)``), ``groups`` =
    the class when ``groups`` is true."""
    from . import Dataset

    X, y = _generate(counts, n_features, class_sep, random_state, n_informative)
    s = _recipe(y, per_class, derive_seed(name, random_state))
    return Dataset(
        name=name,
        X=X,
        target=y,
        feature_names=[f"x{i}" for i in range(n_features)],
        groups=y.copy() if groups else None,
        meta=pd.DataFrame({"recipe_s": s}),
    )


def _n_unlabeled_positives(frac: float, n_unlabeled: int) -> int:
    """``round(frac * n_unlabeled)``, round half up (:func:`pu_lib._rounding.round_half_up`)."""
    return round_half_up(float(frac) * n_unlabeled)


@validate_params({**_RECIPE_CONSTRAINTS, "n_labeled": [Interval(Integral, 1, None, closed="left")]})
def make_pulsnar_scar(
    frac: float = 0.2,
    n_labeled: int = 2000,
    n_unlabeled: int = 6000,
    n_features: int = 50,
    class_sep: float = 0.3,
    random_state: int = 0,
    *,
    n_informative: int | None = None,
):
    """PULSNAR synthetic SCAR data (PULSNAR paper, Section "Synthetic data", SCAR).

    Pool: ``n_labeled + round(frac * n_unlabeled)`` positives (``target`` 1) and
    ``n_unlabeled - round(frac * n_unlabeled)`` negatives (``target`` 0), 50
    continuous features (float32). ``meta["recipe_s"] == 1`` marks ``n_labeled``
    positives chosen uniformly at random (seed ``derive_seed("pulsnar_scar",
    random_state)``): the paper's labeled set; all other rows form the unlabeled
    set, of which a fraction ``frac`` is positive. Deterministic in
    ``random_state`` (the paper uses seeds 0-39). Returns a :class:`Dataset`.
    """
    n_pos_u = _n_unlabeled_positives(frac, n_unlabeled)
    random_state = int(random_state)
    counts = [n_unlabeled - n_pos_u, n_labeled + n_pos_u]
    return _pool("pulsnar_scar", counts, {1: n_labeled}, False, n_features, class_sep, random_state, n_informative)


@validate_params({**_RECIPE_CONSTRAINTS, "n_labeled_per_subclass": [Interval(Integral, 1, None, closed="left")],
                  "n_subclasses": [Interval(Integral, 1, None, closed="left")]})
def make_pulsnar_snar(
    frac: float = 0.2,
    n_labeled_per_subclass: int = 400,
    n_subclasses: int = 5,
    n_unlabeled: int = 6000,
    n_features: int = 50,
    class_sep: float = 0.3,
    random_state: int = 0,
    *,
    n_informative: int | None = None,
):
    """PULSNAR synthetic SNAR data (PULSNAR paper, Section "Synthetic data", SNAR).

    ``target`` 0 = negative (``n_unlabeled - round(frac * n_unlabeled)`` rows),
    1..``n_subclasses`` = positive subclasses; subclass ``i`` has
    ``n_labeled_per_subclass`` + its share ``2**(i-1)/31`` of the
    ``round(frac * n_unlabeled)`` unlabeled positives
    (:func:`snar_unlabeled_counts`; 20%: 4800 negatives and 39, 77, 155, 310, 619
    unlabeled positives, the paper's example). ``groups`` = subclass (0 for
    negatives); ``meta["recipe_s"] == 1`` marks ``n_labeled_per_subclass`` random
    rows of every subclass (seed ``derive_seed("pulsnar_snar", random_state)``).
    Deterministic in ``random_state``. Returns a :class:`Dataset`.
    """
    n_pos_u = _n_unlabeled_positives(frac, n_unlabeled)
    random_state = int(random_state)
    shares = snar_unlabeled_counts(n_pos_u, n_subclasses)
    counts = [n_unlabeled - n_pos_u] + [n_labeled_per_subclass + k for k in shares]
    per_class = {c: n_labeled_per_subclass for c in range(1, n_subclasses + 1)}
    return _pool("pulsnar_snar", counts, per_class, True, n_features, class_sep, random_state, n_informative)


@validate_params({"n_samples": [Interval(Integral, 2, None, closed="left")],
                  "noise": [Interval(Real, 0.0, None, closed="left")],
                  "random_state": [Interval(Integral, 0, None, closed="left")]})
def make_imbalanced_moons(n_samples: int = 2000, prior: float = 0.05, noise: float = 0.1, random_state: int = 0):
    """The class-imbalanced half-moons of the PU-HDT paper (Section 3.2, Figure 2):
    ``(X, y)`` with ``round(prior * n_samples)`` positives on the lower half-moon and the
    rest negatives on the upper one (:func:`sklearn.datasets.make_moons`, whose outer /
    upper moon is its class 0; Gaussian ``noise``), rows shuffled. The paper states the
    prior (5%) but not the size or the noise: ``n_samples=2000`` and ``noise=0.1`` are
    our choices."""
    from sklearn.datasets import make_moons

    from .._validation import check_prior

    prior = check_prior(prior)
    n_pos = round_half_up(prior * int(n_samples))
    if not 0 < n_pos < n_samples:
        raise ValueError(f"prior * n_samples must leave both classes non-empty, got {n_pos} of {n_samples}")
    X, y = make_moons(n_samples=(int(n_samples) - n_pos, n_pos), noise=float(noise), shuffle=True,
                      random_state=int(random_state))
    return X, y.astype(np.int8)
