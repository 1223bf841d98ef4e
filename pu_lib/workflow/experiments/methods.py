"""Method specs of a workflow config -> estimators, on the one registry
(:mod:`pu_lib.workflow.registry`).

A method spec (one entry under ``methods:`` in a config) is::

    {"method": "elkan_noto", "base": "logistic_regression",
     "base_params": {"C": 1.0}, "params": {"hold_out_ratio": 0.1}}

``method`` is a registry name; ``base`` names a scikit-learn-style classifier from
:data:`pu_lib.base_learners.BASE_ESTIMATORS`, passed as the method's ``estimator``;
``params`` are constructor parameters, checked against the method's parameter schema
(names and scikit-learn parameter constraints) before any job runs. ``params.prior:
true`` asks the runner for the true class prior of the training rows and
``params.label_frequency: true`` for the true label frequency (mean true propensity of
the training positives; :func:`pu_lib.workflow.experiments.runner.resolve_method_spec`); both are
checked as a number here.

``select`` (optional) chooses some of the parameters on the PU data of each repetition's
training rows (:func:`check_select_spec`, :func:`select_params`)::

    {"method": "nnpu", "params": {"prior": True, ...},
     "select": {"grid": {"learning_rate": [1e-4, 1e-3], "weight_decay": [5e-4, 5e-3]},
                "scorer": "nnpu_risk", "cv": 3, "refit": True}}

Every point of ``grid`` (its values replace those of ``params``) is scored by
scikit-learn's ``GridSearchCV`` with the PU scorer ``scorer``
(:func:`pu_lib.model_selection.make_pu_scorer`) over ``cv`` folds of
:class:`pu_lib.model_selection.PUStratifiedKFold` on ``(X, s)`` of the training rows; the
method is then fitted on all training rows with the best point. ``scope`` (default
``"repetition"``) says where: in every repetition on its own training rows, or
(``"dataset"``) once per cell on its first repetition's training rows, the choice then
used by every repetition (:func:`pu_lib.workflow.experiments.runner.apply_dataset_selection`;
a paper that tuned per data set, at a fraction of the cost). No true class enters
(docs/neural.md, "Choosing the networks' settings on PU data").
"""

from __future__ import annotations

import json
import time

import numpy as np

from pu_lib.workflow import registry

__all__ = ["SELECT_DEFAULTS", "SELECT_SCOPES", "check_method_spec", "check_select_spec", "is_prior_method", "make_method",
           "select_params"]

#: stands in for ``prior: true`` / ``label_frequency: true`` when the parameters are
#: checked (the true value is a number in (0, 1))
_TRUE_PRIOR_PLACEHOLDER = 0.5


def is_prior_method(name: str) -> bool:
    """True when the registered method ``name`` is a class-prior estimator."""
    return registry.get(name).kind == "prior"


def _is_true_flag(v) -> bool:
    return v is True or (isinstance(v, str) and v.strip().lower() == "true")


def _params_for_check(params: dict) -> dict:
    params = dict(params or {})
    for key in ("prior", "label_frequency"):
        if _is_true_flag(params.get(key)):
            params[key] = _TRUE_PRIOR_PLACEHOLDER
    return params


def check_method_spec(spec: dict) -> None:
    """Raise ``ValueError`` naming the field if a method spec is invalid: unknown method
    or base estimator, a parameter the class does not take, or a value outside the
    parameter's allowed values."""
    from pu_lib.base_learners import BASE_ESTIMATORS

    name = spec.get("method")
    try:
        method = registry.get(name)
    except ValueError as exc:
        raise ValueError(f"method: {exc}") from None
    base = spec.get("base")
    if base is not None:
        if not method.takes_base:
            raise ValueError(f"base: method {name!r} takes no base estimator")
        if base not in BASE_ESTIMATORS:
            raise ValueError(f"base: unknown base estimator {base!r}; known: {list(BASE_ESTIMATORS)}")
        check_base_params(base, spec.get("base_params"))
    elif spec.get("base_params"):
        raise ValueError("base_params: given without a base estimator (base)")
    try:
        registry.check_params(name, _params_for_check(spec.get("params")))
    except ValueError as exc:
        msg = str(exc)
        raise ValueError(msg if msg.startswith("params.") else f"params: {msg}") from None
    check_select_spec(spec)


def check_base_params(base: str, params) -> None:
    """``ValueError`` starting with ``base_params:`` and naming the parameter when the base
    classifier ``base`` does not take ``params`` or one of their values is invalid: the
    classifier is built (unknown names), then scikit-learn's parameter constraints are
    checked (every step of a pipeline), and XGBoost parameters are tried on a one-tree
    model (:func:`pu_lib.oof.check_xgb_params`; ``n_estimators`` >= 1)."""
    from pu_lib.base_learners import make_base_estimator

    try:
        est = make_base_estimator(base, params or {})
        if base == "xgboost":
            from pu_lib.oof import check_xgb_params

            check_xgb_params(dict(params or {}), "base_params")
            return
        steps = [s for _, s in est.steps] if hasattr(est, "steps") else [est]
        for step in steps:
            validate = getattr(step, "_validate_params", None)
            if validate is not None and getattr(type(step), "_parameter_constraints", None):
                validate()
    except ValueError as exc:
        msg = str(exc)
        raise ValueError(msg if msg.startswith("base_params") else f"base_params: {msg}") from None


def make_method(spec: dict, random_state=None, n_jobs: int = 1):
    """Build an unfitted estimator from a method spec with the given seed."""
    from pu_lib.base_learners import make_base_estimator

    check_method_spec(spec)
    params = dict(spec.get("params") or {})
    if spec.get("base"):
        params["estimator"] = make_base_estimator(
            spec["base"], spec.get("base_params") or {}, random_state=random_state, n_jobs=n_jobs
        )
    return registry.make_estimator(spec["method"], params, random_state=random_state, n_jobs=n_jobs)


# --------------------------------------------------------------------------- select
#: the keys of a method spec's ``select`` block besides ``grid`` and ``scorer`` (both
#: required), with their defaults (the config schema fills in ``cv`` and ``refit``;
#: ``scope`` stays absent when not given, so the specs written before it keep their hash)
SELECT_DEFAULTS = {"cv": 3, "refit": True, "scope": "repetition"}
#: ``select.scope`` values: choose in every repetition, or once per cell on its first repetition
SELECT_SCOPES = ("repetition", "dataset")

#: parameters a ``select.grid`` may not vary: resolved per repetition from the true
#: classes (``prior``, ``label_frequency``), set by the runner (``random_state``,
#: ``n_jobs``: one thread inside, the workflow runs jobs side by side) or filled from
#: ``base`` (``estimator``)
NOT_SELECTABLE = ("prior", "label_frequency", "random_state", "n_jobs", "estimator")


def check_select_spec(spec: dict) -> None:
    """Raise ``ValueError`` starting with ``select`` and naming the field when a method
    spec's ``select`` block is invalid (nothing to check without one): keys other than
    ``grid``, ``scorer``, ``cv``, ``refit`` and ``scope``; a ``scope`` not in
    :data:`SELECT_SCOPES`; a class-prior estimator (only classifiers
    are scored); an unknown scorer (:data:`pu_lib.model_selection.PU_SCORERS`); ``cv``
    not an integer >= 2; ``refit`` other than true; an empty grid, a grid key that is not a
    parameter of the method (:func:`pu_lib.workflow.registry.parameter_schema`) or is one of
    :data:`NOT_SELECTABLE`, a grid value the parameter's constraints reject (each value
    checked with the spec's other ``params``, :func:`pu_lib.workflow.registry.check_params`); a
    scorer that needs the class prior (:data:`pu_lib.model_selection.PRIOR_SCORERS`) for a
    method whose ``params.prior`` is neither ``true`` nor a number; a method whose ``fit``
    requests the true classes (an oracle: the selection would read them)."""
    select = spec.get("select")
    if select is None:
        return
    from pu_lib.model_selection import PRIOR_SCORERS, PU_SCORERS

    name = spec["method"]
    if not isinstance(select, dict):
        raise ValueError(f"select: must be a mapping with grid and scorer (and cv, refit), got {select!r}")
    unknown = sorted(set(select) - {"grid", "scorer", *SELECT_DEFAULTS})
    if unknown:
        raise ValueError(f"select: unknown key(s) {unknown}; expected grid, scorer, cv, refit, scope")
    if registry.get(name).kind != "classifier":
        raise ValueError(f"select: method {name!r} is a class-prior estimator; select chooses a classifier's "
                         "parameters by a PU scorer of its predictions")
    scorer = select.get("scorer")
    if scorer not in PU_SCORERS:
        raise ValueError(f"select.scorer: unknown PU scorer {scorer!r}; known: {', '.join(PU_SCORERS)} "
                         "(pu_lib.model_selection.PU_SCORERS)")
    cv = select.get("cv", SELECT_DEFAULTS["cv"])
    if isinstance(cv, bool) or not isinstance(cv, (int, np.integer)) or cv < 2:
        raise ValueError(f"select.cv: must be an integer >= 2 (the folds of PUStratifiedKFold), got {cv!r}")
    if select.get("scope", SELECT_DEFAULTS["scope"]) not in SELECT_SCOPES:
        raise ValueError(f"select.scope: must be one of {list(SELECT_SCOPES)}, got {select.get('scope')!r}")
    if select.get("refit", True) is not True:
        raise ValueError(f"select.refit: must be true (the method is refitted on all training rows with the "
                         f"chosen parameters, and that model is scored), got {select.get('refit')!r}")
    grid = select.get("grid")
    if not isinstance(grid, dict) or not grid:
        raise ValueError(f"select.grid: must be a non-empty mapping of parameter -> list of values, got {grid!r}")
    accepted = registry.parameter_schema(name)
    params = _params_for_check(spec.get("params"))
    for key, values in grid.items():
        if key not in accepted:
            raise ValueError(f"select.grid.{key}: not a parameter of method {name!r} "
                             f"(parameters: {', '.join(sorted(accepted))})")
        if key in NOT_SELECTABLE:
            raise ValueError(f"select.grid.{key}: cannot be selected ({', '.join(NOT_SELECTABLE)} are set per "
                             "repetition or by the runner)")
        if not isinstance(values, list) or not values:
            raise ValueError(f"select.grid.{key}: must be a non-empty list of values, got {values!r}")
        for i, value in enumerate(values):
            try:
                registry.check_params(name, {**params, key: value})
            except ValueError as exc:
                raise ValueError(f"select.grid.{key}[{i}]: {exc}") from None
    if scorer in PRIOR_SCORERS:
        prior = (spec.get("params") or {}).get("prior")
        number = isinstance(prior, (int, float)) and not isinstance(prior, bool)
        if not (_is_true_flag(prior) or number):
            raise ValueError(f"select.scorer: {scorer!r} needs the class prior, and method {name!r} is given none "
                             f"it could use (params.prior: {prior!r}); give params.prior true or a number, or "
                             "choose a scorer without a prior (lee_liu, pu_auc)")
    from pu_lib.base import fit_inputs

    if "y_true" in fit_inputs(registry.make_estimator(name, params)):
        raise ValueError(f"select: method {name!r} is fitted on the true classes (an oracle); selecting its "
                         "parameters on the folds would read them")


def select_params(est, select: dict, X, s, *, prior=None, scenario: str = "single_training_set",
                  random_state=None, fit_kwargs: dict | None = None):
    """Choose ``est``'s parameters on PU data: ``(unfitted estimator, columns)``.

    ``est`` is an unfitted estimator (:func:`make_method`); ``select`` a method spec's
    ``select`` block (:func:`check_select_spec`). scikit-learn's ``GridSearchCV`` fits a
    clone of ``est`` for every point of ``select["grid"]`` on each training part of
    ``PUStratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)`` over
    ``(X, s)`` and scores the held-out part with
    ``make_pu_scorer(scorer, prior=prior, scenario=scenario)`` (``prior`` is passed only
    to the scorers that need one); one thread (``n_jobs=1``). A fit or score that fails
    gives that fold NaN (scikit-learn's ``error_score``), a point with a NaN fold has a NaN
    mean and is not chosen; ``ValueError`` when every point is NaN. A point whose models
    predict a single class on every fold
    (:func:`pu_lib.model_selection.degenerate_predictions`) is not chosen either, unless
    every point with a score does (its entry in ``selection_scores`` gets
    ``"degenerate": "predicts only 0"`` or ``"... 1"``). The chosen point is the
    highest mean score over the folds, the first in the grid's order
    (``sklearn.model_selection.ParameterGrid``) among equals; deterministic for an integer
    ``random_state`` and a deterministic estimator. ``fit_kwargs`` go to every fit (row-wise
    arrays are split with the rows, as ``GridSearchCV`` does).

    Nothing but ``X``, ``s``, ``prior`` and ``fit_kwargs`` is read: the true classes never
    enter (the runner passes the training rows only, and refuses an oracle's ``y_true``).

    Returns a clone of ``est`` with the chosen parameters (unfitted: the caller fits it on
    all of ``(X, s)``) and the result-row columns ``selected_params`` (JSON of the chosen
    point), ``selection_scores`` (JSON list, in grid order, of ``{"params", "mean",
    "std"}``: each point's mean and standard deviation of the score over the folds, higher
    is better, NaN as null), ``selection_scorer``, ``selection_prior`` (the prior given to
    the scorer, NaN without one), ``selection_cv`` and ``selection_seconds``.
    """
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    from pu_lib.labeling._common import jsonable
    from pu_lib.model_selection import (PRIOR_SCORERS, PUStratifiedKFold, degenerate_predictions, make_pu_scorer,
                                        positive_rate_scorer)

    scorer_name = select["scorer"]
    cv = int(select.get("cv", SELECT_DEFAULTS["cv"]))
    prior = float(prior) if prior is not None and scorer_name in PRIOR_SCORERS else None
    scorer = make_pu_scorer(scorer_name, prior=prior, scenario=scenario)
    search = GridSearchCV(clone(est), {k: list(v) for k, v in select["grid"].items()},
                          scoring={"score": scorer, "positive_rate": positive_rate_scorer},
                          cv=PUStratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state),
                          n_jobs=1, refit=False, error_score=np.nan, return_train_score=False)
    t0 = time.perf_counter()
    search.fit(X, s, **(fit_kwargs or {}))
    seconds = time.perf_counter() - t0
    res = search.cv_results_
    means = np.asarray(res["mean_test_score"], dtype=np.float64)
    if not np.isfinite(means).any():
        raise ValueError(f"select: every grid point failed or scored NaN on the {cv} folds "
                         f"(scorer {scorer_name!r}); see the warnings for the errors")
    rates = np.column_stack([res[f"split{k}_test_positive_rate"] for k in range(cv)])
    degenerate = [degenerate_predictions(r) for r in rates]
    # a point that predicts one class on every fold is chosen only when every finite point does
    usable = np.isfinite(means) & np.array([d is None for d in degenerate])
    if not usable.any():
        usable = np.isfinite(means)
    best = int(np.argmax(np.where(usable, means, -np.inf)))
    chosen = dict(res["params"][best])

    def finite(v):  # NaN (a failed point) as null
        return float(v) if np.isfinite(v) else None

    scores = [{"params": jsonable(p), "mean": finite(m), "std": finite(sd), **({"degenerate": d} if d else {})}
              for p, m, sd, d in zip(res["params"], means, res["std_test_score"], degenerate)]
    columns = {
        "selected_params": json.dumps(jsonable(chosen), sort_keys=True),
        "selection_scores": json.dumps(scores, sort_keys=True),
        "selection_scorer": scorer_name,
        "selection_prior": prior if prior is not None else float("nan"),
        "selection_cv": cv,
        "selection_seconds": seconds,
    }
    return clone(est).set_params(**chosen), columns
