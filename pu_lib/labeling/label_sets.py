"""Mechanisms by config name, and the per-repetition label set of an experiment."""

from __future__ import annotations

import json
from numbers import Real
from typing import Callable

import numpy as np
import pandas as pd

from pu_lib._seeding import check_random_state, derive_seed, seed_to_int
from pu_lib._validation import SINGLE_TRAINING_SET, Interval, check_X, validate_params
from pu_lib.labeling._common import (
    LabelResult,
    bernoulli_labels,
    check_groups,
    check_y,
    jsonable,
)
from pu_lib.labeling._params import (
    COUNT_MECHANISMS,
    FRACTION_MECHANISMS,
    FUNCTION_MECHANISMS,
    validate_mechanism_params,
)
from pu_lib.labeling.sar import sar_bekker, sar_setup
from pu_lib.labeling.scar import case_control, scar_count, scar_flip_ratio, scar_label_frequency
from pu_lib.labeling.snar import pulsnar_alpha, snar_prob_setup, snar_probability, snar_subclass
from pu_lib.labeling.splits import SPLITS, stratified_holdout, subsample

__all__ = ["MECHANISMS", "apply_mechanism", "label_set_metadata", "make_label_set", "validate_mechanism_params"]

#: config name -> mechanism function
MECHANISMS: dict[str, Callable[..., LabelResult]] = {
    "scar_c": scar_label_frequency,
    "scar_flip": scar_flip_ratio,
    "scar_count": scar_count,
    "case_control": case_control,
    "sar": sar_bekker,
    "snar_subclass": snar_subclass,
    "snar_prob": snar_probability,
    "pulsnar_alpha": pulsnar_alpha,
}


def apply_mechanism(mechanism, params, *, X, y, groups=None, random_state=None) -> LabelResult:
    """Run the mechanism ``mechanism`` (a key of :data:`MECHANISMS`) with config ``params``.

    ``X`` is needed only by ``"sar"`` and ``"snar_prob"`` (may be None otherwise, else
    its row count is checked against ``y``); ``groups`` only by ``"snar_subclass"``.
    """
    p = validate_mechanism_params(mechanism, params)
    if X is not None:
        X = check_X(X)
        y = check_y(y, n=X.shape[0], need_pos=False)
    if mechanism in FUNCTION_MECHANISMS and X is None:
        raise ValueError(f"{mechanism}: X is required")
    if mechanism == "scar_c":
        return scar_label_frequency(y, p["c"], random_state)
    if mechanism == "scar_flip":
        return scar_flip_ratio(y, p["flip_ratio"], random_state)
    if mechanism == "scar_count":
        return scar_count(y, p["n_labeled"], random_state)
    if mechanism == "case_control":
        return case_control(y, p["n_labeled"], random_state)
    if mechanism == "sar":
        return sar_bekker(X, y, p["k"], p["selection"], p["p_minus"], p["p_plus"], p["min_std"],
                          p["attributes"], random_state)
    if mechanism == "snar_subclass":
        if groups is None:
            raise ValueError("snar_subclass: groups (subclass id per row) is required")
        return snar_subclass(y, groups, p["n_labeled_per_group"], random_state)
    if mechanism == "pulsnar_alpha":
        return pulsnar_alpha(y, p["alpha"], p["snar"], groups, random_state)
    return snar_probability(X, y, p["p_minus"], p["p_plus"], None, random_state)


def _check_predefined_split(predefined_split, n: int) -> np.ndarray:
    predefined_split = np.asarray(predefined_split)
    if predefined_split.ndim != 1 or predefined_split.shape[0] != n:
        raise ValueError(
            f"predefined_split must be 1-D with one entry per row ({n}), got shape {predefined_split.shape}"
        )
    predefined_split = predefined_split.astype(str)
    bad = sorted(set(np.unique(predefined_split).tolist()) - {"train", "test"})
    if bad:
        raise ValueError(f"predefined_split may only hold 'train' and 'test', found {bad}")
    return predefined_split


def _label_function_mechanism(mechanism, p, Xs, ys, tr, va, seed):
    """``(s, propensity, scenario, params)`` of ``sar`` / ``snar_prob``: ``e(x)`` set up
    once on all rows, ``s ~ Bernoulli(e)`` on train and val."""
    setup_rng = check_random_state(seed("setup"))
    if mechanism == "sar":
        e, info = sar_setup(Xs, ys, p["k"], p["selection"], p["p_minus"], p["p_plus"], p["min_std"],
                             p["attributes"], setup_rng)
    else:
        e, info = snar_prob_setup(Xs, ys, p["p_minus"], p["p_plus"], None, setup_rng)
    s = np.zeros(ys.shape[0], dtype=np.int8)
    s[tr] = bernoulli_labels(ys[tr], e[tr], check_random_state(seed("train")))
    if va.shape[0]:
        s[va] = bernoulli_labels(ys[va], e[va], check_random_state(seed("val_labels")))
    return s, e.copy(), SINGLE_TRAINING_SET, {"mechanism_params": jsonable(p), **info}


def _label_by_parts(mechanism, p, ys, gs, tr, va, te, seed):
    """``(s, propensity, scenario, params)`` of the SCAR / count / subclass mechanisms:
    applied to train, val labeled by fraction or by train's label frequency, test rows
    get train's propensity."""
    s = np.zeros(ys.shape[0], dtype=np.int8)
    prop = np.full(ys.shape[0], np.nan, dtype=np.float64)
    g_tr = gs[tr] if gs is not None else None
    r_tr = apply_mechanism(mechanism, p, X=None, y=ys[tr], groups=g_tr, random_state=seed("train"))
    s[tr], prop[tr] = r_tr.s, r_tr.propensity
    params = {"train": r_tr.params}
    if va.shape[0]:
        if mechanism in FRACTION_MECHANISMS:
            r_va = apply_mechanism(mechanism, p, X=None, y=ys[va], groups=gs[va] if gs is not None else None,
                                   random_state=seed("val_labels"))
        else:  # COUNT_MECHANISMS: SCAR with train's empirical label frequency
            assert mechanism in COUNT_MECHANISMS
            r_va = scar_label_frequency(ys[va], r_tr.label_frequency, seed("val_labels"))
            params["val_mechanism"] = "scar_c"
        s[va], prop[va] = r_va.s, r_va.propensity
        params["val"] = r_va.params
    if te.shape[0]:
        if mechanism == "snar_subclass":
            by_group = r_tr.params["propensity_by_group"]
            prop[te] = [by_group.get(str(g), np.nan) for g in gs[te].tolist()]
        elif mechanism == "pulsnar_alpha" and p["snar"]:
            prop[te] = np.nan  # subclass propensities are those of the training draw only
        else:
            prop[te] = r_tr.propensity[0]
    return s, prop, r_tr.scenario, {"mechanism_params": jsonable(p), **params}


@validate_params({"test_size": [Interval(Real, 0.0, 1.0, closed="left")],
                  "val_size": [Interval(Real, 0.0, 1.0, closed="left")]},
                 prefer_skip_nested_validation=False)  # the mechanisms check their own parameters
def make_label_set(
    X,
    y,
    *,
    mechanism,
    params,
    test_size=0.3,
    val_size=0.0,
    max_samples=None,
    groups=None,
    random_state=None,
    predefined_split=None,
) -> pd.DataFrame:
    """Build the per-repetition label set (indices and labels only, never ``X``).

    Steps, each driven by its own child seed ``derive_seed(base, "make_label_set", step)``
    (``base`` = the int ``random_state``, or one draw from a Generator / fresh entropy):

    1. ``"subsample"``: if ``max_samples`` is set and smaller than ``n``, a subsample of
       ``max_samples`` rows without replacement, stratified by ``y`` (PU Hellinger-trees
       protocol, ``pu_hellinger_trees.md`` 4.1);
    2. ``"holdout"``: exact stratified holdout into train / test (``test_size`` may be 0);
       or, with ``predefined_split`` (one ``"train"`` / ``"test"`` entry per row, e.g. the
       ``split`` meta column of MNIST or 20 Newsgroups bydate), the dataset's own split:
       ``test_size`` is then ignored and no random holdout is drawn;
    3. ``"val"``: if ``val_size > 0``, a stratified validation part of ``val_size`` of the
       train rows (for threshold tuning), removed from train;
    4. ``"setup"``, ``"train"``, ``"val_labels"``: labeling.
       * ``scar_c`` / ``scar_flip`` are applied independently to train and val, so each
         part has exactly the requested ``c`` / flip ratio.
       * Count-based mechanisms (``scar_count``, ``case_control``, ``snar_subclass``) apply
         the count(s) to train only; val rows are labeled SCAR
         (:func:`scar_label_frequency`) with train's empirical label frequency
         ``n_labeled_train / n_pos_train``.
       * ``sar`` / ``snar_prob``: the propensity function is set up **once** on all
         (subsampled) rows -- SAR attribute choice, [-1, 1] scaling and the min/max of the
         ``sc`` map; the class-probability model of SNAR -- so train, val and test share the
         same ``e(x)``; then ``s ~ Bernoulli(e)`` independently on train and val positives.
       Test rows get ``s = 0`` and the propensity of the mechanism applied to train
       (constant label frequency for SCAR / case-control, per-subclass value for
       ``snar_subclass`` -- NaN if undefined -- and ``e(x)`` for SAR / SNAR-prob).

    Returns a DataFrame with columns ``row`` (int64 index into the original data),
    ``split`` (categorical ``train`` < ``val`` < ``test``), ``y`` (int8), ``s`` (int8),
    ``propensity`` (float64) and ``scenario`` (constant str:
    :data:`pu_lib._validation.CASE_CONTROL` for ``case_control``, else
    :data:`pu_lib._validation.SINGLE_TRAINING_SET`), sorted by split then row.
    For ``case_control`` the train rows with ``s = 1`` form P and *all* train rows form U.
    ``df.attrs`` holds ``mechanism``, ``scenario`` and ``params`` (a JSON string of the
    resolved parameters and realised quantities, e.g. the chosen SAR attributes); attrs
    are not kept by Parquet, see :func:`label_set_metadata`.
    """
    p = validate_mechanism_params(mechanism, params)
    y = check_y(y)
    n = y.shape[0]
    if X is not None:
        X = check_X(X)
        if X.shape[0] != n:
            raise ValueError(f"y has {n} entries but X has {X.shape[0]} rows")
    elif mechanism in FUNCTION_MECHANISMS:
        raise ValueError(f"{mechanism}: X is required")
    if groups is not None:
        groups = check_groups(groups, n)
    elif mechanism == "snar_subclass":
        raise ValueError("snar_subclass: groups (subclass id per row) is required")
    test_size, val_size = float(test_size), float(val_size)
    if predefined_split is not None:
        predefined_split = _check_predefined_split(predefined_split, n)

    base = seed_to_int(random_state, fresh_if_none=True)

    def seed(step):
        return derive_seed(base, "make_label_set", step)

    # (1) subsample
    sub = subsample(n, max_samples, seed("subsample"), stratify=y)
    ys = y[sub]
    gs = groups[sub] if groups is not None else None
    # (2) holdout, (3) validation split -- positions into the subsample
    if predefined_split is not None:
        ps = predefined_split[sub]
        tr = np.flatnonzero(ps == "train").astype(np.int64)
        te = np.flatnonzero(ps == "test").astype(np.int64)
    else:
        tr, te = stratified_holdout(ys, test_size, seed("holdout"))
    va = np.empty(0, dtype=np.int64)
    if val_size > 0:
        tr_pos, va_pos = stratified_holdout(ys[tr], val_size, seed("val"))
        tr, va = tr[tr_pos], tr[va_pos]
    for name, part in (("train", tr), ("val", va)):
        if part.shape[0] and not np.any(ys[part] == 1):
            raise ValueError(f"the {name} split has no positive examples; lower test_size/val_size or max_samples")
    if tr.shape[0] == 0:
        raise ValueError("the train split is empty; lower test_size/val_size")

    # (4) labeling
    if mechanism in FUNCTION_MECHANISMS:
        Xs = X if sub.shape[0] == n else X[sub]
        s, prop, scenario, result_params = _label_function_mechanism(mechanism, p, Xs, ys, tr, va, seed)
    else:
        s, prop, scenario, result_params = _label_by_parts(mechanism, p, ys, gs, tr, va, te, seed)

    order = np.concatenate([tr, va, te])
    split_codes = np.concatenate([
        np.zeros(tr.shape[0], dtype=np.int8),
        np.ones(va.shape[0], dtype=np.int8),
        np.full(te.shape[0], 2, dtype=np.int8),
    ])
    df = pd.DataFrame({
        "row": sub[order].astype(np.int64),
        "split": pd.Categorical.from_codes(split_codes, categories=list(SPLITS), ordered=True),
        "y": ys[order].astype(np.int8),
        "s": s[order].astype(np.int8),
        "propensity": prop[order].astype(np.float64),
        "scenario": pd.Series([scenario] * order.shape[0], dtype=str),
    })
    df.attrs["mechanism"] = mechanism
    df.attrs["scenario"] = scenario
    df.attrs["params"] = json.dumps(jsonable({
        **result_params,
        "test_size": None if predefined_split is not None else test_size,
        "predefined_split": predefined_split is not None,
        "val_size": val_size,
        "max_samples": max_samples,
        "base_seed": base,
    }), sort_keys=True)
    return df


def label_set_metadata(df: pd.DataFrame) -> dict:
    """``{"mechanism", "scenario", "params"}`` of a :func:`make_label_set` frame.

    ``mechanism`` and ``params`` come from ``df.attrs`` (None / {} when lost, e.g. after a
    Parquet round trip); ``scenario`` falls back to the constant ``scenario`` column.
    """
    scenario = df.attrs.get("scenario")
    if scenario is None and "scenario" in df.columns and len(df):
        scenario = str(df["scenario"].iloc[0])
    params = df.attrs.get("params")
    return {
        "mechanism": df.attrs.get("mechanism"),
        "scenario": scenario,
        "params": json.loads(params) if isinstance(params, str) else (params or {}),
    }
