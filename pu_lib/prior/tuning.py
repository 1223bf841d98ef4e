"""The classifier settings of PULSCAR, PULSNAR and DEDPUL chosen by cross-validated
log-loss on ``(X, s)`` (``tune="cv_logloss"``): the one implementation the three
estimators share.

Why this is possible without a true label: the classifier of these estimators learns
``s`` (labeled or not) from ``X``, an ordinary supervised problem, and its out-of-fold
probabilities are what the estimators use. Its settings can therefore be chosen the
usual supervised way, by the held-out loss of predicting ``s``; ``y`` is never used.

**Grid** (:data:`TUNE_GRID`, 18 settings), around the authors' settings for the PULSNAR
paper's data sets (``unmtransinfo/PULSNAR``, ``examples/testparams/*_alpha.yaml`` and the
``pulscar_<set>`` / ``pulsnar_<set>`` methods of ``config/papers/pulsnar.yaml``):

==================  ================  ===========================================================
parameter           values            source
==================  ================  ===========================================================
``max_depth``       3, 4, 5           the authors' per-set depths (3: mice protein; 4: the
                                      synthetic examples and most sets; 5: dry bean, occupancy)
``learning_rate``   0.1, 0.3          0.1: letter, shuttle; 0.3: XGBoost's default, which the
                                      authors' PULSCAR synthetic example and four sets keep
                                      (their other values, 0.2, 0.25 and 0.5, lie between or
                                      trade off against the number of rounds)
``n_estimators``    50, 100, 200      the authors never set it: XGBoost's default 100, halved
                                      and doubled
==================  ================  ===========================================================

**Criterion.** For every setting, the folds are the estimator's own cross-validation folds
(:func:`pu_lib.oof.fold_splits`, the same seeds as :func:`pu_lib.oof.cv_probabilities_many`),
and each fold model is the estimator's XGBoost (``tree_method="hist"``, the fold's
``scale_pos_weight = |U| / |P|``, the estimator's further ``xgb_params``). The loss of a
setting is the weighted log-loss of ``s`` over all held-out rows, a labeled row weighted by
its fold's ``scale_pos_weight`` and an unlabeled row by 1: the held-out value of the very
objective the fold models minimise. The setting with the smallest loss is chosen (ties:
the first in grid order, depth, then learning rate, then rounds, each increasing).

**Cost.** One model with the largest number of rounds is fitted per fold, depth and
learning rate (6 per fold); the smaller round counts are read off it
(``predict_proba(..., iteration_range=(0, n))``: the first ``n`` trees of a boosted model
are the trees an ``n``-round model grows). The chosen setting's out-of-fold probabilities
are returned, so PULSCAR and DEDPUL use them directly instead of cross-validating again
(they equal those of the estimator run with the chosen settings). PULSNAR tunes once on
all rows and uses the chosen settings for its importance model and every cluster's
classifier. The folds and models run on ``n_jobs`` local threads; the result does not
depend on ``n_jobs`` (XGBoost ``hist`` models are the same for any thread count).

Tuning applies to the default XGBoost only: with ``tune="cv_logloss"`` the estimator's
``max_depth`` (and PULSCAR / PULSNAR's ``learning_rate``) are replaced by the chosen
values, ``estimator`` must be None, ``booster`` ``"xgboost"``, and ``xgb_params`` may not
set ``max_depth``, ``learning_rate`` (``eta``) or ``n_estimators``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from sklearn.utils._param_validation import StrOptions

from pu_lib._seeding import derive_seed
from pu_lib.distributed import effective_n_jobs, parallel_map
from pu_lib.oof import _class1_proba, _fit_model, _fold_spw, _prepare_model, fold_splits, xgb_float32

__all__ = ["TUNE_CONSTRAINT", "TUNE_GRID", "TUNE_OPTIONS", "TuneResult", "check_tune", "cv_logloss_grid",
           "tune_classifier"]

#: values of the estimators' ``tune`` parameter besides None (no tuning)
TUNE_OPTIONS = ("cv_logloss",)

#: scikit-learn constraint of the ``tune`` parameter
TUNE_CONSTRAINT = [None, StrOptions(set(TUNE_OPTIONS))]

#: the grid of classifier settings (module docstring for the source of every value)
TUNE_GRID: dict = {
    "max_depth": (3, 4, 5),
    "learning_rate": (0.1, 0.3),
    "n_estimators": (50, 100, 200),
}

#: the XGBoost parameters the tuning chooses (``eta`` is XGBoost's alias of the learning rate)
_TUNED_KEYS = frozenset({"max_depth", "learning_rate", "eta", "n_estimators"})

_CLIP = 1e-15


@dataclass
class TuneResult:
    """What :func:`cv_logloss_grid` found.

    params : the chosen ``{"max_depth", "learning_rate", "n_estimators"}``.
    results : one dict per grid setting (grid order): its three values and ``log_loss``.
    oof : the chosen setting's out-of-fold class-1 probabilities, in row order.
    """

    params: dict
    results: list
    oof: np.ndarray


def check_tune(estimator) -> None:
    """The checks of an estimator's ``tune`` beyond its constraint (``_validate_params``):
    with ``tune="cv_logloss"``, ``estimator`` None, ``booster`` ``"xgboost"`` (where the
    estimator has one) and no tuned parameter in ``xgb_params``; ``ValueError`` naming the
    parameter."""
    if estimator.tune is None:
        return
    if estimator.estimator is not None:
        raise ValueError(f"tune={estimator.tune!r} chooses the settings of the default XGBoost classifier; "
                         "leave estimator=None (or tune=None to use a classifier of your own)")
    booster = getattr(estimator, "booster", "xgboost")
    if booster != "xgboost":
        raise ValueError(f"tune={estimator.tune!r} needs booster='xgboost', got booster={booster!r}")
    bad = sorted(_TUNED_KEYS & set(estimator.xgb_params or {}))
    if bad:
        raise ValueError(f"xgb_params must not set {bad} with tune={estimator.tune!r}: the tuning chooses them "
                         f"from the grid {TUNE_GRID}")


def _grid_settings(grid: dict) -> list:
    """The grid's settings in grid order: ``(max_depth, learning_rate, n_estimators)``."""
    return list(itertools.product(*(tuple(grid[k]) for k in ("max_depth", "learning_rate", "n_estimators"))))


def _fold_task(X, s, train, test, seed, n_threads, max_depth, learning_rate, rounds, xgb_params):
    """One fold, depth and learning rate: a ``max(rounds)``-round model and the held-out
    class-1 probabilities of its first ``n`` trees for every ``n`` in ``rounds``."""
    params = {**xgb_params, "learning_rate": float(learning_rate), "n_estimators": int(max(rounds))}
    model = _prepare_model(None, s[train], seed, n_threads, "auto", int(max_depth), params)
    _fit_model(model, X[train], s[train])
    Xt = X[test]
    out = []
    for n in rounds:
        if n == max(rounds):
            out.append(_class1_proba(model, Xt))
        else:
            out.append(np.asarray(model.predict_proba(Xt, iteration_range=(0, int(n))))[:, 1].astype(np.float64))
    return out


def cv_logloss_grid(X, s, *, n_folds: int, seed: int, n_jobs=1, xgb_params=None, grid=None) -> TuneResult:
    """The grid's cross-validated weighted log-loss of ``s`` and the chosen setting (module
    docstring). ``X`` a validated 2-D array or sparse matrix, ``s`` a 0/1 int array with at
    least ``n_folds`` rows of each class, ``seed`` an int: the folds and fold models are
    those of :func:`pu_lib.oof.cv_probabilities_many` for a problem with that seed."""
    grid = TUNE_GRID if grid is None else grid
    xgb_params = {k: v for k, v in dict(xgb_params or {}).items() if k not in _TUNED_KEYS}
    s = np.asarray(s)
    n1 = int(s.sum())
    if min(n1, s.shape[0] - n1) < n_folds:
        raise ValueError(f"n_folds={n_folds} needs at least {n_folds} rows of each class; the smaller class has "
                         f"{min(n1, s.shape[0] - n1)}")
    X = xgb_float32(X)
    rounds = tuple(sorted(int(r) for r in grid["n_estimators"]))
    pairs = list(itertools.product(tuple(grid["max_depth"]), tuple(grid["learning_rate"])))
    folds = fold_splits(s, n_folds, int(seed))
    tasks = [(tr, te, derive_seed("pulsnar_cv_model", int(seed), k), md, lr)
             for k, (tr, te) in enumerate(folds) for md, lr in pairs]
    n_threads = effective_n_jobs(n_jobs)
    concurrent = max(1, min(n_threads, len(tasks)))
    per_model = max(1, n_threads // concurrent)
    parts = parallel_map(_fold_task, [(tr, te, sd, per_model, md, lr, rounds, xgb_params)
                                      for tr, te, sd, md, lr in tasks], n_jobs=concurrent, shared=(X, s))
    # out-of-fold probabilities of every (depth, learning rate, rounds) and the fold weights
    oof = {(md, lr, n): np.full(s.shape[0], np.nan) for md, lr in pairs for n in rounds}
    weight = np.ones(s.shape[0])
    for (tr, te, _, md, lr), probs in zip(tasks, parts):
        weight[te[s[te] == 1]] = _fold_spw(s[tr], "auto")
        for n, p in zip(rounds, probs):
            oof[(md, lr, n)][te] = p
    results = []
    for md, lr, n in _grid_settings(grid):
        p = np.clip(oof[(md, lr, n)], _CLIP, 1.0 - _CLIP)
        ll = -(s * np.log(p) + (1 - s) * np.log1p(-p))
        results.append({"max_depth": int(md), "learning_rate": float(lr), "n_estimators": int(n),
                        "log_loss": float(np.sum(weight * ll) / np.sum(weight))})
    best = int(np.argmin([r["log_loss"] for r in results]))
    params = {k: results[best][k] for k in ("max_depth", "learning_rate", "n_estimators")}
    return TuneResult(params=params, results=results,
                      oof=oof[(params["max_depth"], params["learning_rate"], params["n_estimators"])])


def tune_classifier(estimator, X, s, seed: int):
    """Tune ``estimator``'s classifier on ``(X, s)`` with the folds of seed ``seed``; set
    its ``tuned_params_`` and ``tuning_results_``. Returns ``(max_depth, xgb_params, oof)``:
    the chosen depth, the further XGBoost parameters to fit with (``xgb_params`` with the
    chosen learning rate and rounds) and the chosen setting's out-of-fold probabilities."""
    res = cv_logloss_grid(X, s, n_folds=int(estimator.n_folds), seed=int(seed), n_jobs=estimator.n_jobs,
                          xgb_params=estimator.xgb_params)
    estimator.tuned_params_ = dict(res.params)
    estimator.tuning_results_ = res.results
    xgb_params = {**dict(estimator.xgb_params or {}), "learning_rate": res.params["learning_rate"],
                  "n_estimators": res.params["n_estimators"]}
    return res.params["max_depth"], xgb_params, res.oof
