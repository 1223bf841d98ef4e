"""SNAR labeling (thesis section 5.2): the propensity depends on the class itself -- on a
positive subclass (PULSNAR) or on the class probability ``Pr(y=1 | x)``."""

from __future__ import annotations

from numbers import Real

import numpy as np

from pu_lib._rounding import largest_remainder, round_half_up
from pu_lib._seeding import check_random_state
from pu_lib._validation import Interval, check_X, validate_params
from pu_lib.labeling._common import (
    LabelResult,
    bernoulli_labels,
    check_groups,
    check_p_range,
    check_y,
)
from pu_lib.labeling._params import validate_mechanism_params
from pu_lib.labeling.sar import sar_propensity

__all__ = ["pulsnar_alpha", "snar_probability", "snar_subclass"]


def _count_for_group(counts, g):
    if isinstance(counts, dict):
        if g in counts:
            return counts[g]
        if str(g) in counts:  # JSON/YAML configs turn keys into strings
            return counts[str(g)]
        raise ValueError(f"snar_subclass: n_labeled_per_group has no entry for positive subclass {g!r}")
    return counts


def snar_subclass(y, groups, n_labeled_per_group, random_state=None) -> LabelResult:
    """SNAR labeling by positive subclass (PULSNAR, ``pulsnar.md`` "SNAR data": labeled and
    unlabeled positives are drawn from the positive subclasses in different proportions).

    ``groups`` gives a subclass id per row (the value on negative rows is ignored).  From
    each positive subclass ``g`` exactly ``n_labeled_per_group[g]`` positives are labeled,
    uniformly within the subclass; an int applies to every subclass.  A dict must cover
    every positive subclass (keys may be the ids or their ``str``; 0 is allowed).
    The propensity of subclass ``g`` is ``n_labeled_g / n_g``; negative rows get the value
    of their group when it is a positive subclass, else NaN.
    Mechanism name ``"snar_subclass"``.
    """
    y = check_y(y)
    groups = check_groups(groups, y.shape[0])
    p = validate_mechanism_params("snar_subclass", {"n_labeled_per_group": n_labeled_per_group})
    counts = p["n_labeled_per_group"]
    rng = check_random_state(random_state)
    pos_groups = np.unique(groups[y == 1])
    if isinstance(counts, dict):
        known = {str(g) for g in pos_groups} | set(pos_groups.tolist())
        extra = [key for key in counts if key not in known]
        if extra:
            raise ValueError(f"snar_subclass: n_labeled_per_group names unknown positive subclass(es) {extra!r}")
    s = np.zeros(y.shape[0], dtype=np.int8)
    prop = np.full(y.shape[0], np.nan, dtype=np.float64)
    realised = {}
    by_group = {}
    for g in pos_groups.tolist():
        members = np.flatnonzero((groups == g) & (y == 1))
        m = _count_for_group(counts, g)
        if m > members.shape[0]:
            raise ValueError(
                f"snar_subclass: {m} labeled requested from subclass {g!r} which has only {members.shape[0]} positives"
            )
        if m:
            s[rng.choice(members, size=m, replace=False)] = 1
        e_g = m / members.shape[0]
        prop[groups == g] = e_g
        realised[str(g)] = int(m)
        by_group[str(g)] = e_g
    if s.sum() == 0:
        raise ValueError("snar_subclass: n_labeled_per_group labels no positive at all")
    params = {
        "n_labeled_per_group": realised,
        "propensity_by_group": by_group,
        "n_pos": int(y.sum()),
        "n_labeled": int(s.sum()),
    }
    return LabelResult(s=s, y=y, propensity=prop, mechanism="snar_subclass", params=params)


@validate_params({"y": ["array-like"], "alpha": [Interval(Real, 0.0, 1.0, closed="left")]})
def pulsnar_alpha(y, alpha, snar=False, groups=None, random_state=None) -> LabelResult:
    """PU data with an exact fraction ``alpha`` of positives among the unlabeled, as in the
    PULSNAR paper's benchmark protocol (``pulsnar.md``, "ML benchmark datasets"): all
    negatives are unlabeled, and ``k = round(n_neg * alpha / (1 - alpha))`` positives
    (round half up) are moved into the unlabeled set, so that ``k / (k + n_neg) = alpha``
    (to rounding); the other positives are labeled.

    * SCAR (``snar=False``): the ``k`` positives are chosen uniformly.
    * SNAR (``snar=True``): "positive examples were selected from every positive subclass
      for label flipping while ensuring a distinct ratio of positive examples in the
      positive and unlabeled sets". The paper does not give the shares; we use those of
      its synthetic SNAR recipe: the positive subclasses (``groups`` of the positive rows,
      e.g. the original class) sorted by size (ties by id) get shares proportional to
      1, 2, 4, ..., 2**(m-1) of ``k`` (the largest subclass the largest share), each
      subclass keeping at least one labeled row: :func:`pu_lib._rounding.largest_remainder`
      with those caps (ties to the lower index), which redistributes a share above its cap
      over the other subclasses (a one-row subclass gives nothing and takes no part in
      the rounding). The true propensity of subclass ``g`` is its labeled fraction.

    ``alpha`` in [0, 1). Raises ``ValueError`` when the positives cannot supply ``k``
    unlabeled positives and still keep one labeled positive (per subclass for SNAR).
    Mechanism name ``"pulsnar_alpha"``.
    """
    alpha = float(alpha)
    y = check_y(y)
    rng = check_random_state(random_state)
    pos = np.flatnonzero(y == 1)
    n_neg = int(y.shape[0] - pos.shape[0])
    k = round_half_up(n_neg * alpha / (1.0 - alpha))
    s = np.zeros(y.shape[0], dtype=np.int8)
    prop = np.zeros(y.shape[0], dtype=np.float64)
    params = {"alpha": alpha, "snar": bool(snar), "n_neg": n_neg, "n_unlabeled_pos": k,
              "alpha_realised": k / (k + n_neg) if k + n_neg else float("nan")}
    if not snar:
        if k > pos.shape[0] - 1:
            raise ValueError(
                f"pulsnar_alpha: alpha={alpha} needs {k} unlabeled positives ({n_neg} negatives) but there "
                f"are only {pos.shape[0]} positives (one must stay labeled)"
            )
        s[pos] = 1
        if k:
            s[rng.choice(pos, size=k, replace=False)] = 0
        prop[:] = (pos.shape[0] - k) / pos.shape[0]
        params["label_frequency"] = (pos.shape[0] - k) / pos.shape[0]
        return LabelResult(s=s, y=y, propensity=prop, mechanism="pulsnar_alpha", params=params)
    if groups is None:
        raise ValueError("pulsnar_alpha: snar=True needs groups (the subclass of every row)")
    groups = check_groups(groups, y.shape[0], "pulsnar_alpha: groups")
    gids, inverse, sizes = np.unique(groups[pos], return_inverse=True, return_counts=True)
    if gids.shape[0] < 2:
        raise ValueError(f"pulsnar_alpha: snar=True needs at least 2 positive subclasses, found {gids.shape[0]}")
    order = np.lexsort((np.arange(gids.shape[0]), sizes))  # ascending size
    weights = np.empty(gids.shape[0])
    weights[order] = 2.0 ** np.arange(gids.shape[0])
    caps = sizes - 1
    if k > int(caps.sum()):
        raise ValueError(
            f"pulsnar_alpha: alpha={alpha} needs {k} unlabeled positives but the {gids.shape[0]} positive "
            f"subclasses can give at most {int(caps.sum())} (one labeled row each)"
        )
    alloc = largest_remainder(k, weights, caps=caps, ties="low")
    s[pos] = 1
    for j in range(gids.shape[0]):
        members = pos[inverse == j]
        if alloc[j]:
            s[rng.choice(members, size=int(alloc[j]), replace=False)] = 0
        prop[members] = (sizes[j] - alloc[j]) / sizes[j]
    # negatives: the propensity of their subclass if it is a positive subclass, else NaN
    neg = np.flatnonzero(y == 0)
    look = {g: (sizes[j] - alloc[j]) / sizes[j] for j, g in enumerate(gids.tolist())}
    prop[neg] = [look.get(g, np.nan) for g in groups[neg].tolist()]
    params["unlabeled_per_subclass"] = {str(g): int(a) for g, a in zip(gids.tolist(), alloc.tolist())}
    return LabelResult(s=s, y=y, propensity=prop, mechanism="pulsnar_alpha", params=params)


def _class_probability(X, y, estimator, rng) -> tuple[np.ndarray, str]:
    from sklearn.base import clone

    if y.min() == y.max():
        raise ValueError("snar_prob: y must contain both classes to fit the class-probability model")
    if estimator is None:
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        est = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    else:
        if not hasattr(estimator, "predict_proba"):
            raise ValueError("snar_prob: estimator must implement predict_proba")
        est = clone(estimator)
        if "random_state" in est.get_params() and est.get_params()["random_state"] is None:
            est.set_params(random_state=int(rng.integers(2**31 - 1)))
    est.fit(X, y)
    classes = list(est.classes_)
    prob = est.predict_proba(X)[:, classes.index(1)]
    return np.asarray(prob, dtype=np.float64), type(est).__name__ if estimator is not None else "StandardScaler+LogisticRegression"


def snar_prob_setup(X, y, p_minus, p_plus, estimator, rng):
    prob, name = _class_probability(X, y, estimator, rng)
    e = sar_propensity(prob, p_minus, p_plus)
    return e, {"p_minus": p_minus, "p_plus": p_plus, "estimator": name, "fit": "in-sample"}


def snar_probability(X, y, p_minus=0.2, p_plus=0.8, estimator=None, random_state=None) -> LabelResult:
    """SNAR labeling: the propensity depends on the class probability ``Pr(y=1|x)``
    (thesis section 5.2: "the labeling mechanism depends on the real probability of this
    example being positive").

    ``Pr(y=1|x)`` is modelled by ``estimator`` (default: standardisation + logistic
    regression) fitted on the fully labeled ``(X, y)`` and evaluated **in-sample** on the
    same rows.  In-sample fitting is deliberate: the mechanism must be one fixed function
    ``e(x)`` of ``x`` shared by every row (cross-fitting would give rows from different
    folds different functions); the estimator only simulates the labeler and is not a
    learner under evaluation.  The probability is then mapped linearly to
    ``[p-, p+]`` with its min/max over the data (the ``sc`` map of thesis section 5.6.2)::

        e = p- + (prob - min prob) / (max prob - min prob) * (p+ - p-)

    and positives are labeled with ``s ~ Bernoulli(e)``.  Mechanism name ``"snar_prob"``.
    """
    p_minus, p_plus = check_p_range(p_minus, p_plus)
    X = check_X(X)
    y = check_y(y, n=X.shape[0])
    rng = check_random_state(random_state)
    e, info = snar_prob_setup(X, y, p_minus, p_plus, estimator, rng)
    s = bernoulli_labels(y, e, rng)
    info["n_pos"] = int(y.sum())
    return LabelResult(s=s, y=y, propensity=e, mechanism="snar_prob", params=info)
