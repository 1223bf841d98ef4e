"""Out-of-fold and held-out classifier probabilities: the one module for every method that
needs them.

Users:

* PULSCAR / PULSNAR (:mod:`pu_lib.prior.pulscar`, :mod:`pu_lib.prior.pulsnar`,
  :mod:`pu_lib.prior.classification`; Kumar & Lambert, PeerJ CS 2024, "Problem
  formulation and algorithms": *"we execute a supervised probabilistic classifier (e.g.,
  XGBoost) with five-fold cross-validation (CV) by treating all labeled positives as
  class 1 and all unlabeled examples as class 0"*): :func:`cv_probabilities`,
  :func:`cv_probabilities_many`, :func:`xgb_gain_importances`;
* Rank Pruning (:mod:`pu_lib.baselines.rank_pruning`; Northcutt et al. 2017): the
  out-of-fold ``g(x) = P(s=1|x)`` of any base classifier and each row's fold
  (:func:`cv_probabilities` with ``return_folds=True``), for the per-fold confident counts;
* DEDPUL (:mod:`pu_lib.prior.dedpul`): :func:`cv_probabilities` with any estimator, or
  with CatBoost (``booster="catboost"``, :data:`CATBOOST_DEFAULTS`: the PULSNAR paper ran
  DEDPUL on CatBoost; CatBoost 1.2.10 gave bit-identical models for 1, 2 and 4 threads);
* Elkan-Noto (:func:`pu_lib.prior.elkan_noto.elkan_noto_fit`, behind the prior estimator
  and the classifier): the stratified hold-out split (:func:`stratified_hold_out`,
  :func:`split_rows`) on which the label frequency ``c`` is estimated from held-out
  probabilities.

Spy-EM (:mod:`pu_lib.baselines.spy_em`) needs no out-of-fold probabilities: S-EM scores
the training rows with the naive Bayes model fitted on them (Liu et al. 2002, Step 1).

:func:`cv_probabilities` returns the out-of-fold class-1 probability of every row in row
order; :func:`xgb_gain_importances` fits one XGBoost model on all rows and returns the
features the trees use with their gain importance (PULSNAR, Algorithm 3, line 1).

Class imbalance is handled as in the paper ("Experimental methods"): XGBoost's
``scale_pos_weight`` is set, in every fold, to ``#class 0 / #class 1`` of that fold's
training part (``|U| / |P|``).

Parallelism and determinism
---------------------------
Folds run in parallel -- on ``n_jobs`` local threads, or, with ``use_dask=True``, as tasks
of the current Dask client (:func:`pu_lib.distributed.resolve_client`; default False: local
threads even when a client is active; inside a Dask task the folds run on the task's
thread). Every fold's split and model seed are derived from
``random_state`` up front (:func:`pu_lib._seeding.derive_seed`), so the probabilities do
not depend on how the folds are scheduled. XGBoost's ``hist`` method with the default
``subsample = colsample_* = 1`` gives bit-identical models for any thread count (checked
for XGBoost 3.2: 1, 2 and 4 threads give identical probabilities), so the number of
threads per model (``n_jobs`` split among the concurrent folds; 1 in a Dask task) does
not change the result either.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from pu_lib._optional import require
from pu_lib._rounding import round_half_up
from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import Interval, StrOptions, SparseInputError, check_binary, check_X, is_sparse, validate_params
from pu_lib.base_learners import make_base_estimator
from pu_lib.distributed import effective_n_jobs, limit_threads, parallel_map, resolve_client

__all__ = [
    "BOOSTERS",
    "CATBOOST_DEFAULTS",
    "CV_BOOSTERS",
    "check_booster",
    "check_catboost_params",
    "check_extra_xgb_params",
    "check_xgb_estimator",
    "check_xgb_params",
    "cv_probabilities",
    "cv_probabilities_many",
    "fold_splits",
    "make_xgb",
    "split_rows",
    "stratified_hold_out",
    "xgb_gain_importances",
]


#: the parameters of the out-of-fold functions that a constraint expresses (the
#: functions below and the estimators that pass them on)
MAX_DEPTH_CONSTRAINT = [Interval(Integral, 1, None, closed="left")]
N_FOLDS_CONSTRAINT = [Interval(Integral, 2, None, closed="left")]
SCALE_POS_WEIGHT_CONSTRAINT = [None, StrOptions({"auto"}), Interval(Real, 0.0, None, closed="neither")]


def _scale_pos_weight(spw):
    """A validated ``scale_pos_weight`` as the fold code uses it ("auto", None or a float)."""
    return spw if spw is None or isinstance(spw, str) else float(spw)


def check_extra_xgb_params(xgb_params) -> dict:
    """The ``xgb_params`` argument of the XGBoost-based functions and estimators (None
    or a dict of further parameters of the default XGBoost): none of ``max_depth``,
    ``random_state``, ``n_jobs``, ``scale_pos_weight``, which have arguments of their own,
    and each entry checked by :func:`check_xgb_params`. Returns a copy (``{}`` for None)."""
    if xgb_params is None:
        return {}
    if not isinstance(xgb_params, dict):
        raise ValueError(f"xgb_params must be a dict or None, got {type(xgb_params).__name__}")
    bad = sorted(set(xgb_params) & {"max_depth", "random_state", "n_jobs", "scale_pos_weight"})
    if bad:
        raise ValueError(f"xgb_params must not set {bad}; they have their own arguments")
    return check_xgb_params(xgb_params)


#: (name, repr(value)) -> the problem XGBoost has with that parameter ("" if none)
_XGB_CHECKED: dict = {}


def _xgb_message(exc: BaseException) -> str:
    """The first line of an XGBoost error without its time stamp and source location."""
    import re

    line = (str(exc).strip().splitlines() or [""])[0]
    return re.sub(r"^\[[\d:]+\] \S+:\d+: ", "", line).strip()


def _xgb_problem(key: str, value) -> str:
    """What XGBoost says about ``key=value`` when it fits a one-tree model on six rows:
    "" if it accepts it, else its error, or that it ignores an unknown name."""
    cache_key = (key, repr(value))
    if cache_key not in _XGB_CHECKED:
        import warnings

        purpose = ('XGBoost (booster="xgboost", the default of PULSCAR and PULSNAR; booster="hist_boost" '
                   "runs without it)")
        XGBClassifier = require("xgboost", purpose=purpose).XGBClassifier

        kwargs = {"n_estimators": 1, "max_depth": 1, "n_jobs": 1, "tree_method": "hist", key: value}
        X = np.array([[0.0], [1.0], [0.0], [1.0], [0.5], [0.2]])
        y = np.array([0, 1, 0, 1, 1, 0])
        problem = ""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with limit_threads(1):
                    XGBClassifier(**kwargs).fit(X, y)
            except Exception as exc:  # XGBoostError, or the wrapper's ValueError / TypeError
                problem = f"XGBoost rejects it: {_xgb_message(exc)}"
        if not problem and any("are not used" in str(w.message) for w in caught):
            problem = "not an XGBoost parameter (XGBoost would ignore it)"
        _XGB_CHECKED[cache_key] = problem
    return _XGB_CHECKED[cache_key]


def check_xgb_params(params, name: str = "xgb_params") -> dict:
    """Check XGBoost parameters before any model is fitted; ``ValueError`` naming the
    parameter (``<name>['<key>']``) when XGBoost would reject it or ignore it (an unknown
    name), or when ``n_estimators`` is not an integer >= 1 (XGBoost accepts 0 and
    negative counts and then fits no tree, so every probability would be the same).
    Each name and value is tried once per process on a one-tree model of six rows.
    Returns a copy of ``params``."""
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise ValueError(f"{name} must be a dict or None, got {type(params).__name__}")
    for key in sorted(params, key=str):
        value = params[key]
        if key == "n_estimators" and (isinstance(value, bool) or not isinstance(value, (int, np.integer))
                                      or value < 1):
            raise ValueError(f"{name}['n_estimators'] must be an integer >= 1, got {value!r} (with no tree "
                             "XGBoost would give every row the same probability)")
        problem = _xgb_problem(str(key), value)
        if problem:
            raise ValueError(f"{name}[{key!r}] = {value!r}: {problem}")
    return dict(params)


def check_xgb_estimator(estimator, name: str = "estimator") -> None:
    """For an ``xgboost.XGBClassifier`` given as a classifier: :func:`check_xgb_params` on
    the parameters it sets away from XGBoost's defaults (not the seed, threads or
    ``scale_pos_weight``, which the caller sets). Other estimators are left alone."""
    cls = type(estimator)
    if cls.__name__ not in ("XGBClassifier", "XGBRFClassifier") or not cls.__module__.startswith("xgboost"):
        return
    defaults = cls().get_params()
    own = {"random_state", "n_jobs", "scale_pos_weight", "missing"}
    changed = {}
    for key, value in estimator.get_params().items():
        if key in own:
            continue
        default = defaults.get(key, object())
        same = value is default or (type(value) is type(default) and _equal(value, default))
        if not same:
            changed[key] = value
    check_xgb_params(changed, f"{name} (XGBoost) parameter")


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # arrays, objects without a boolean comparison
        return False


def _fit_model(model, X, y):
    """``model.fit(X, y)``; an XGBoost error becomes a ``ValueError`` naming XGBoost and
    the model's parameters that differ from XGBoost's defaults."""
    try:
        model.fit(X, y)
    except Exception as exc:
        if type(exc).__name__ != "XGBoostError":
            raise
        try:
            defaults = type(model)().get_params()
            changed = {k: v for k, v in model.get_params().items()
                       if not _equal(v, defaults.get(k, object())) and k not in ("random_state", "n_jobs")}
        except Exception:  # pragma: no cover - defensive
            changed = {}
        raise ValueError(f"XGBoost failed to fit with parameters {changed}: {_xgb_message(exc)}") from exc
    return model


@validate_params({"max_depth": MAX_DEPTH_CONSTRAINT})
def make_xgb(max_depth: int = 6, random_state=None, n_jobs: int = 1, xgb_params=None):
    """The default classifier: ``xgboost.XGBClassifier`` with its defaults except
    ``max_depth``, ``tree_method="hist"``, the seed, ``n_jobs`` threads and any
    ``xgb_params`` (e.g. ``{"learning_rate": 0.2}``, or ``{"tree_method": "exact"}`` for
    the exact greedy trees that XGBoost before 2.0 grew by default on data of this size;
    via :func:`pu_lib.base_learners.make_base_estimator`)."""
    params = {"max_depth": int(max_depth), **check_extra_xgb_params(xgb_params)}
    return make_base_estimator("xgboost", params, random_state=seed_to_int(random_state), n_jobs=n_jobs)


def _check_y(y, n):
    y = check_binary(y, "y", n=n)
    n1 = int(y.sum())
    if n1 == 0 or n1 == y.shape[0]:
        raise ValueError("y must contain both classes (labeled positives 1 and unlabeled 0)")
    return y


def _prepare_model(estimator, y_train, seed: int, n_threads: int, scale_pos_weight, max_depth: int, xgb_params=None):
    """A fresh model for one fold: the default XGBoost or a clone of ``estimator``."""
    if estimator is None:
        model = make_xgb(max_depth=max_depth, random_state=seed, n_jobs=n_threads, xgb_params=xgb_params)
    else:
        model = clone(estimator)
    params = model.get_params()
    update = {}
    if scale_pos_weight is not None and "scale_pos_weight" in params:
        update["scale_pos_weight"] = _fold_spw(y_train, scale_pos_weight)
    if estimator is not None:
        if "random_state" in params and params["random_state"] is None:
            update["random_state"] = seed
    return model.set_params(**update) if update else model


def _class1_proba(model, X):
    proba = np.asarray(model.predict_proba(X))
    classes = list(getattr(model, "classes_", [0, 1]))
    if 1 not in classes:  # pragma: no cover - both classes are in every training fold
        raise ValueError("the classifier was not fitted on class 1")
    return proba[:, classes.index(1)].astype(np.float64)


def _fit_predict_fold(X, y, train, test, estimator, seed, n_threads, scale_pos_weight, max_depth, xgb_params=None):
    model = _prepare_model(estimator, y[train], seed, n_threads, scale_pos_weight, max_depth, xgb_params)
    _fit_model(model, X[train], y[train])
    return _class1_proba(model, X[test])


def _dask_fold(X, y, train, test, estimator, seed, scale_pos_weight, max_depth, xgb_params=None):
    with limit_threads(1):
        return _fit_predict_fold(X, y, train, test, estimator, seed, 1, scale_pos_weight, max_depth, xgb_params)


#: The boosters of the out-of-fold models: XGBoost (the default, the PULSNAR paper's
#: classifier) or :class:`pu_lib.hist_boost.HistBoostClassifier`'s booster on bins computed
#: once for all folds (``"hist_boost"``; same model and parameters, see its module).
BOOSTERS = ("xgboost", "hist_boost")

#: XGBoost parameter names (and aliases) that the ``hist_boost`` booster takes.
_HIST_PARAMS = {"learning_rate": "learning_rate", "eta": "learning_rate", "n_estimators": "n_estimators",
                "reg_lambda": "reg_lambda", "lambda": "reg_lambda", "min_child_weight": "min_child_weight",
                "gamma": "gamma", "min_split_loss": "gamma", "max_bin": "max_bin"}


#: The boosters :func:`cv_probabilities` and :func:`cv_probabilities_many` take: those of
#: :data:`BOOSTERS` and CatBoost (``"catboost"``, the extra ``catboost``; DEDPUL's classifier
#: in the PULSNAR paper's comparison, see :data:`CATBOOST_DEFAULTS`).
CV_BOOSTERS = BOOSTERS + ("catboost",)

#: The CatBoost models of ``booster="catboost"``: the settings of the CatBoost variant in the
#: DEDPUL authors' code (dimonenka/DEDPUL, commit 04c0281, experiments_UCI_MNIST.ipynb,
#: ``estimate_preds_cv_options`` of the commented "### catboost" block: 500 iterations,
#: depth 8, learning rate 0.02, ``l2_leaf_reg`` 10, early stopping after 25 rounds), fitted as
#: their ``algorithms.py`` ``estimate_preds_cv_catboost`` does: the held-out fold is the
#: ``eval_set`` (its labels ``s`` choose the number of trees, ``use_best_model``) and the
#: class weights are ``(share of class 0, share of class 1)`` swapped, i.e. each class
#: weighted by the other's share of the problem's rows. ``catboost_params`` override them.
CATBOOST_DEFAULTS: dict = {"iterations": 500, "depth": 8, "learning_rate": 0.02, "l2_leaf_reg": 10,
                           "early_stopping_rounds": 25, "use_best_model": True}

#: CatBoost parameters that the fold code sets itself
_CATBOOST_OWN = ("random_seed", "random_state", "thread_count", "class_weights", "verbose", "logging_level",
                 "allow_writing_files", "train_dir")


def check_booster(booster, estimator=None, allowed=BOOSTERS) -> str:
    if not isinstance(booster, str) or booster not in allowed:
        raise ValueError(f"booster must be one of {tuple(allowed)}, got {booster!r}")
    if booster in ("hist_boost", "catboost") and estimator is not None:
        raise ValueError(f'booster="{booster}" builds its own models; leave estimator=None')
    return booster


def check_catboost_params(catboost_params) -> dict:
    """:data:`CATBOOST_DEFAULTS` updated by ``catboost_params`` (None or a dict of
    ``CatBoostClassifier`` parameters other than the seed, threads, class weights and
    logging, which the fold code sets); ``ValueError`` naming a parameter it sets."""
    if catboost_params is None:
        return dict(CATBOOST_DEFAULTS)
    if not isinstance(catboost_params, dict):
        raise ValueError(f"catboost_params must be a dict or None, got {type(catboost_params).__name__}")
    bad = sorted(set(catboost_params) & set(_CATBOOST_OWN))
    if bad:
        raise ValueError(f"catboost_params must not set {bad}: the seed comes from random_state, the threads "
                         "from n_jobs, the class weights from the class shares")
    return {**CATBOOST_DEFAULTS, **catboost_params}


def _catboost_fold(X, y, train, test, params, seed, n_threads, class_weights):
    """One fold's CatBoost model (:data:`CATBOOST_DEFAULTS`): fitted on ``train`` with the
    ``test`` rows as its evaluation set, class-1 probabilities of the ``test`` rows."""
    cb = require("catboost", purpose='booster="catboost" (DEDPUL on CatBoost, as in the PULSNAR paper)')
    model = cb.CatBoostClassifier(**params, class_weights=list(class_weights), random_seed=int(seed) % (2**31),
                                  thread_count=int(n_threads), verbose=False, allow_writing_files=False)
    with limit_threads(1):  # CatBoost's own threads only (no BLAS underneath)
        model.fit(X[train], y[train], eval_set=(X[test], y[test]))
    return _class1_proba(model, X[test])


def _dask_catboost_fold(X, y, train, test, params, seed, class_weights):
    return _catboost_fold(X, y, train, test, params, seed, 1, class_weights)


@validate_params({"max_depth": MAX_DEPTH_CONSTRAINT})
def hist_boost_params(max_depth, xgb_params) -> dict:
    """The ``hist_boost`` parameters for XGBoost-style ``max_depth`` and ``xgb_params``;
    ``ValueError`` naming a parameter it does not have."""
    out = {"max_depth": int(max_depth)}
    for key, value in (xgb_params or {}).items():
        if key not in _HIST_PARAMS:
            raise ValueError(f'xgb_params[{key!r}] is not a parameter of booster="hist_boost" '
                             f"(it takes {sorted(_HIST_PARAMS)})")
        out[_HIST_PARAMS[key]] = value
    return out


def _fold_spw(y_train, scale_pos_weight):
    """A fold's ``scale_pos_weight``: ``#class 0 / #class 1`` of its training part for
    ``"auto"``, the given number otherwise, 1 for None."""
    if scale_pos_weight == "auto":
        n1 = int(np.sum(y_train == 1))
        return (y_train.shape[0] - n1) / n1
    return 1.0 if scale_pos_weight is None else float(scale_pos_weight)


def _hist_fold(Xb, n_bins, y, train, test, params, scale_pos_weight):
    from pu_lib.hist_boost import hist_boost_fit, hist_boost_margin, sigmoid

    fit_params = {k: v for k, v in params.items() if k != "max_bin"}
    trees = hist_boost_fit(Xb, n_bins, y, train, scale_pos_weight=_fold_spw(y[train], scale_pos_weight),
                           **fit_params)
    return sigmoid(hist_boost_margin(trees, Xb, test))


def fold_splits(y, n_folds: int, seed: int):
    """Stratified, shuffled K-fold splits ``(train, test)`` of ``y`` (positions into ``y``),
    seeded by ``derive_seed("pulsnar_cv_split", seed)``."""
    skf = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=derive_seed("pulsnar_cv_split", seed) % (2**31))
    return list(skf.split(np.zeros((y.shape[0], 1)), y))


def xgb_float32(X):
    """``X`` as a C-ordered float32 array, as XGBoost stores dense input: XGBoost casts
    every value to float32 itself (to nearest), so its models and predictions are the
    same bit for bit (tested), and the cross-validation folds slice and hand over half the
    bytes without a cast each. ``X`` is returned unchanged when it is not a dense numeric
    array or when a finite value would overflow to infinity (XGBoost then gets what the
    caller gave). A sparse CSR matrix likewise becomes a float32 CSR matrix."""
    if is_sparse(X) and X.format == "csr" and X.dtype.kind in "fiub":
        with np.errstate(over="ignore"):
            Xf = X.astype(np.float32)
        if X.dtype.kind == "f" and X.dtype.itemsize > 4 and \
                np.count_nonzero(np.isinf(Xf.data)) != np.count_nonzero(np.isinf(X.data)):
            return X
        return Xf
    if not isinstance(X, np.ndarray) or X.dtype.kind not in "fiub" or X.ndim != 2:
        return X
    with np.errstate(over="ignore"):
        Xf = np.ascontiguousarray(X, dtype=np.float32)
    if X.dtype.kind == "f" and X.dtype.itemsize > 4:  # only wider floats can overflow float32
        if np.count_nonzero(np.isinf(Xf)) != np.count_nonzero(np.isinf(X)):
            return X
    return Xf


@validate_params({"n_folds": N_FOLDS_CONSTRAINT, "scale_pos_weight": SCALE_POS_WEIGHT_CONSTRAINT,
                  "max_depth": MAX_DEPTH_CONSTRAINT, "use_dask": ["boolean"]})
def cv_probabilities_many(X, y, problems, estimator=None, n_folds=5, n_jobs=1, scale_pos_weight="auto", *,
                          max_depth=6, xgb_params=None, booster="xgboost", binned=None, use_dask=False,
                          catboost_params=None) -> list:
    """Out-of-fold probabilities for several CV problems on row subsets of one ``(X, y)``.

    ``problems`` is a list of ``(rows, seed)``: ``rows`` the (row-ordered) indices of the
    problem's rows, ``seed`` an int fixing its folds and models (as ``random_state`` of
    :func:`cv_probabilities`). All folds of all problems are scheduled together (threads,
    or Dask tasks with ``use_dask=True``, see the module docstring). Returns one float64 array per problem, aligned
    with its ``rows``. Inputs are assumed validated (``X`` 2-D, ``y`` 0/1 int array).
    ``booster="hist_boost"``: ``X`` is binned once (cuts from all its rows) and every fold
    model is grown on those bins (:mod:`pu_lib.hist_boost`); ``binned=(Xb, n_bins)`` passes
    bins already computed (:func:`pu_lib.hist_boost.bin_features` of ``X``).
    ``booster="catboost"``: CatBoost models with :data:`CATBOOST_DEFAULTS` updated by
    ``catboost_params`` (``max_depth``, ``xgb_params`` and ``scale_pos_weight`` unused).
    """
    n_folds, max_depth = int(n_folds), int(max_depth)
    scale_pos_weight = _scale_pos_weight(scale_pos_weight)
    booster = check_booster(booster, estimator, CV_BOOSTERS)
    if booster == "catboost":
        cb_params = check_catboost_params(catboost_params)
        require("catboost", purpose='booster="catboost" (DEDPUL on CatBoost, as in the PULSNAR paper)')
        if is_sparse(X):
            raise SparseInputError("X is a sparse matrix; booster='catboost' takes dense input here: use "
                                   "booster='xgboost' (absent entries are missing values) or X.toarray()")
    elif booster == "hist_boost":
        hist_params = hist_boost_params(max_depth, xgb_params)
        if is_sparse(X) and binned is None:
            raise SparseInputError("X is a sparse matrix; booster='hist_boost' bins dense input only: use "
                                   "booster='xgboost' (absent entries are missing values) or X.toarray()")
    else:
        xgb_params = check_extra_xgb_params(xgb_params)
    if estimator is not None and not hasattr(estimator, "predict_proba"):
        raise ValueError(f"estimator must have predict_proba, got {type(estimator).__name__}")
    n_threads = effective_n_jobs(n_jobs)
    client = resolve_client(use_dask)
    tasks = []  # (problem index, global train rows, global test rows, model seed)
    for p, (rows, seed) in enumerate(problems):
        rows = np.asarray(rows, dtype=np.int64)
        ys = y[rows]
        n1 = int(ys.sum())
        n_min = min(n1, rows.shape[0] - n1)
        if n_min < n_folds:
            raise ValueError(
                f"n_folds={n_folds} needs at least {n_folds} rows of each class; the smaller class has {n_min}"
            )
        for k, (tr, te) in enumerate(fold_splits(ys, n_folds, int(seed))):
            tasks.append((p, rows[tr], rows[te], derive_seed("pulsnar_cv_model", int(seed), k)))

    if booster == "catboost":  # as the XGBoost models: concurrent folds, the threads left over per model
        weights = {}
        for p, (rows, _) in enumerate(problems):  # the authors' class_weights: each class by the other's share
            n1 = float(y[np.asarray(rows, dtype=np.int64)].sum())
            n = float(len(rows))
            weights[p] = ((n1 / n), ((n - n1) / n))
        if client is not None:
            parts = parallel_map(_dask_catboost_fold, [(tr, te, cb_params, sd, weights[p]) for p, tr, te, sd in tasks],
                                 client=client, shared=(X, y))
        else:
            concurrent = max(1, min(n_threads, len(tasks)))
            per_model = max(1, n_threads // concurrent)
            parts = parallel_map(_catboost_fold, [(tr, te, cb_params, sd, per_model, weights[p])
                                                  for p, tr, te, sd in tasks], n_jobs=concurrent, shared=(X, y))
    elif booster == "hist_boost":  # one thread per fold model (numba, GIL released)
        from pu_lib.hist_boost import bin_features

        Xb, n_bins = binned if binned is not None else bin_features(X, hist_params.get("max_bin", 255), n_threads)[::2]
        args = [(tr, te, hist_params, scale_pos_weight) for _, tr, te, _ in tasks]
        if client is not None:
            parts = parallel_map(_hist_fold, args, client=client, shared=(Xb, n_bins, y))
        else:  # the fold models round robin on the threads (hist_boost_fit_many), then their test rows
            from pu_lib.hist_boost import hist_boost_fit_many, hist_boost_margin, sigmoid

            fit_params = {k: v for k, v in hist_params.items() if k != "max_bin"}
            models = hist_boost_fit_many(
                Xb, n_bins, y,
                [dict(fit_params, train_rows=tr, scale_pos_weight=_fold_spw(y[tr], scale_pos_weight))
                 for _, tr, _, _ in tasks],
                n_jobs=n_threads)
            parts = parallel_map(lambda m, te: sigmoid(hist_boost_margin(m, Xb, te)),
                                 [(m, te) for m, (_, _, te, _) in zip(models, tasks)], n_jobs=n_threads)
    else:
        if estimator is None:  # XGBoost reads float32: convert once, not once per fold
            X = xgb_float32(X)
        if client is not None:  # one thread per task
            parts = parallel_map(_dask_fold, [(tr, te, estimator, sd, scale_pos_weight, max_depth, xgb_params)
                                              for _, tr, te, sd in tasks], client=client, shared=(X, y))
        else:  # concurrent folds, the threads left over shared by each fold's model
            concurrent = max(1, min(n_threads, len(tasks)))
            per_model = max(1, n_threads // concurrent)
            parts = parallel_map(_fit_predict_fold, [(tr, te, estimator, sd, per_model, scale_pos_weight,
                                                      max_depth, xgb_params) for _, tr, te, sd in tasks],
                                 n_jobs=concurrent, shared=(X, y))

    out = []
    for rows, _ in problems:
        rows = np.asarray(rows, dtype=np.int64)
        out.append((rows, np.full(rows.shape[0], np.nan)))
    for (p, _, te, _), prob in zip(tasks, parts):
        rows, arr = out[p]
        arr[np.searchsorted(rows, te)] = prob
    return [arr for _, arr in out]


def _check_Xy(X, y):
    # a sparse X goes to the classifier as CSR (XGBoost reads absent entries as missing)
    X = check_X(X, allow_nan=True, dtype=None, accept_sparse=True)
    if np.issubdtype(X.dtype, np.floating) and np.isinf(X.data if is_sparse(X) else X).any():
        raise ValueError("X contains infinite values; replace them (NaN is allowed here)")
    return X, _check_y(y, X.shape[0])


@validate_params({"n_folds": N_FOLDS_CONSTRAINT, "scale_pos_weight": SCALE_POS_WEIGHT_CONSTRAINT,
                  "max_depth": MAX_DEPTH_CONSTRAINT, "use_dask": ["boolean"]})
def cv_probabilities(X, y, estimator=None, n_folds=5, random_state=None, n_jobs=1, scale_pos_weight="auto",
                     *, max_depth=6, xgb_params=None, return_folds=False, booster="xgboost", use_dask=False,
                     catboost_params=None):
    """Out-of-fold class-1 probabilities of all rows (PULSCAR Algorithm 1, line 1).

    Parameters
    ----------
    X : 2-D array (NaN allowed when the classifier handles it, as XGBoost does).
    y : 0/1 labels (PU data: ``s``, 1 = labeled positive); both classes required, and
        at least ``n_folds`` rows of each.
    estimator : None for XGBoost (``XGBClassifier(tree_method="hist", max_depth=max_depth)``,
        other parameters at their defaults, seeded, ``n_jobs`` threads) or any
        scikit-learn classifier with ``predict_proba``; it is cloned for every fold, and
        its ``random_state`` is set (to the fold's seed) when it is None.
    n_folds : number of stratified folds (shuffled, seeded).
    random_state : None, int, ``numpy.random.Generator`` or ``numpy.random.RandomState``;
        None draws a fresh seed.
    n_jobs : threads. Folds run concurrently on ``min(n_jobs, n_folds)`` threads, each
        model gets ``n_jobs // concurrent folds`` threads.
    use_dask : False (default) runs the folds on ``n_jobs`` threads, even when a Dask client
        is active; True makes them tasks of the current Dask client (one thread each;
        docs/cluster.md, "Dask by explicit choice").
    scale_pos_weight : ``"auto"`` sets, for an estimator with a ``scale_pos_weight``
        parameter, ``#negatives / #positives`` of each fold's training part (the paper's
        ``|U| / |P|``); a positive number sets that value; None leaves it untouched.
    max_depth : ``max_depth`` of the default XGBoost (ignored for a given ``estimator``).
    xgb_params : further parameters of the default XGBoost (e.g. ``{"learning_rate":
        0.2}``, as in the authors' synthetic-data configs); ignored for a given ``estimator``.

    booster : ``"xgboost"`` or ``"hist_boost"`` (the same boosted trees grown by
        :mod:`pu_lib.hist_boost` on bins computed once for all folds; ``estimator`` must be
        None and ``xgb_params`` may set only the parameters it has) or ``"catboost"``
        (CatBoost, the extra ``catboost``: :data:`CATBOOST_DEFAULTS` updated by
        ``catboost_params``; ``estimator`` must be None).
    catboost_params : further CatBoost parameters for ``booster="catboost"`` (dict).
    return_folds : also return each row's fold: the index ``k`` of the fold whose model
        (fitted on the other folds) gave the row its probability (Rank Pruning estimates
        its noise rates fold by fold).

    Returns
    -------
    float64 array of shape ``(n_samples,)``, in row order; with ``return_folds`` the pair
    ``(probabilities, folds)`` (int64 fold indices). The result depends only on the
    data, ``random_state`` and the parameters -- not on ``n_jobs`` or ``use_dask``.
    """
    X, y = _check_Xy(X, y)
    seed = seed_to_int(random_state, fresh_if_none=True)
    rows = np.arange(X.shape[0], dtype=np.int64)
    proba = cv_probabilities_many(X, y, [(rows, seed)], estimator=estimator, n_folds=n_folds, n_jobs=n_jobs,
                                  scale_pos_weight=scale_pos_weight, max_depth=max_depth, xgb_params=xgb_params,
                                  booster=booster, use_dask=use_dask, catboost_params=catboost_params)[0]
    if not return_folds:
        return proba
    folds = np.empty(X.shape[0], dtype=np.int64)
    for k, (_, test) in enumerate(fold_splits(y, n_folds, seed)):  # the splits cv_probabilities_many used
        folds[test] = k
    return proba, folds


# ------------------------------------------------------------------ held-out split (Elkan & Noto)


def split_rows(s: np.ndarray, ratio: float, rng: np.random.Generator):
    """Row indices ``(train, hold_out)``, stratified on ``s``.

    From each stratum (labeled / unlabeled) of size ``n_k`` exactly
    ``round_half_up(ratio * n_k)`` randomly chosen examples are held out, clipped to
    ``[1, n_k - 1]`` when ``n_k >= 2`` so that both parts keep at least one example of
    each stratum (with few labeled positives, e.g. 3 at ratio 0.1, plain rounding would
    hold out none and c could not be estimated). The labeled stratum draws first from
    ``rng``, then the unlabeled one.
    """
    hold = []
    for value in (1, 0):
        idx = np.flatnonzero(s == value)
        k = round_half_up(ratio * idx.shape[0])
        if idx.shape[0] >= 2:
            k = min(max(k, 1), idx.shape[0] - 1)
        hold.append(rng.permutation(idx)[:k])
    hold_idx = np.sort(np.concatenate(hold))
    mask = np.ones(s.shape[0], dtype=bool)
    mask[hold_idx] = False
    return np.flatnonzero(mask), hold_idx


def stratified_hold_out(s: np.ndarray, ratio: float, rng: np.random.Generator, sample_weight=None):
    """The stratified hold-out of Elkan & Noto's classifier and prior estimator:
    ``(train_rows, train_weights, hold_rows, hold_weights)`` (weights None without
    ``sample_weight``).

    * no weights, or weights that are not all integers: the row split of
      :func:`split_rows` (strata sizes counted in rows), each row carrying its weight
      to the part it falls in;
    * integer weights: a row of weight ``w`` is ``w`` units, laid out as
      ``np.repeat(rows, w)`` would lay out duplicated rows, and the *units* are split by
      :func:`split_rows`; a row's train (hold-out) weight is the number of its units in
      the training (held-out) part, so a row may be in both parts. The same seed then
      holds out the same units as it would hold out duplicated rows, and integer weights
      give exactly the model of duplicated rows.
    """
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if w is None or not np.all(w == np.floor(w)):
        train, hold = split_rows(s, ratio, rng)
        return train, (None if w is None else w[train]), hold, (None if w is None else w[hold])
    counts = w.astype(np.int64)
    units = np.repeat(np.arange(s.shape[0]), counts)
    _, hold_units = split_rows(s[units], ratio, rng)
    n_hold = np.bincount(units[hold_units], minlength=s.shape[0])
    n_train = counts - n_hold
    train, hold = np.flatnonzero(n_train > 0), np.flatnonzero(n_hold > 0)
    return train, n_train[train].astype(np.float64), hold, n_hold[hold].astype(np.float64)


@validate_params({"scale_pos_weight": SCALE_POS_WEIGHT_CONSTRAINT, "max_depth": MAX_DEPTH_CONSTRAINT})
def xgb_gain_importances(X, y, max_depth=6, random_state=None, n_jobs=1, scale_pos_weight="auto", *, xgb_params=None,
                         booster="xgboost", binned=None):
    """Features used by an XGBoost model fitted on all ``(X, y)`` and their gain importance
    (PULSNAR, Algorithm 3, line 1: *"an XGBoost model on all positive and unlabeled
    examples to determine the important features and their gain scores"*).

    ``scale_pos_weight="auto"`` uses ``#negatives / #positives`` of all rows. Returns
    ``(indices, gains)``: int64 column indices of the features that appear in at least
    one split and their average gain (``Booster.get_score(importance_type="gain")``),
    sorted by decreasing gain (ties by index). Both are empty if no split was made.
    ``booster="hist_boost"`` grows the same model with :mod:`pu_lib.hist_boost` (on
    ``binned=(Xb, n_bins)`` when given).
    """
    X, y = _check_Xy(X, y)
    scale_pos_weight = _scale_pos_weight(scale_pos_weight)
    if check_booster(booster) == "hist_boost":
        from pu_lib.hist_boost import bin_features, hist_boost_fit, hist_boost_gain_importances

        params = hist_boost_params(max_depth, xgb_params)
        max_bin = params.pop("max_bin", 255)
        Xb, n_bins = binned if binned is not None else bin_features(X, max_bin, effective_n_jobs(n_jobs))[::2]
        trees = hist_boost_fit(Xb, n_bins, y, scale_pos_weight=_fold_spw(y, scale_pos_weight), **params)
        return hist_boost_gain_importances(trees, X.shape[1])
    seed = seed_to_int(random_state, fresh_if_none=True)
    model = make_xgb(max_depth=max_depth, random_state=derive_seed("pulsnar_importance", seed),
                     n_jobs=effective_n_jobs(n_jobs), xgb_params=xgb_params)
    if scale_pos_weight == "auto":
        n1 = int(y.sum())
        model.set_params(scale_pos_weight=(y.shape[0] - n1) / n1)
    elif scale_pos_weight is not None:
        model.set_params(scale_pos_weight=scale_pos_weight)
    _fit_model(model, X, y)
    score = model.get_booster().get_score(importance_type="gain")
    items = []
    for name, gain in score.items():
        if not name.startswith("f") or not name[1:].isdigit():  # pragma: no cover - numpy input names f0..f{d-1}
            raise ValueError(f"unexpected XGBoost feature name {name!r}")
        items.append((int(name[1:]), float(gain)))
    items.sort(key=lambda t: (-t[1], t[0]))
    idx = np.array([i for i, _ in items], dtype=np.int64)
    gains = np.array([g for _, g in items], dtype=np.float64)
    if not all(math.isfinite(g) for g in gains):  # pragma: no cover
        raise ValueError("XGBoost returned non-finite gain importances")
    return idx, gains
