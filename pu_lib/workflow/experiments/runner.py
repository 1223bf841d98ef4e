"""One grid cell of the workflow: label sets, fit/evaluate repetitions, aggregation.

The runner knows estimators only through the registry and their declarations: the
registry kind (:mod:`pu_lib.workflow.registry`) says whether a method is scored as a classifier
(:mod:`pu_lib.workflow.experiments.classifier_eval`) or as a class-prior estimator
(:mod:`pu_lib.workflow.experiments.prior_eval`), and :func:`pu_lib.base.fit_inputs` says which of
the label file's hidden columns (``y_true``, ``propensity``) its ``fit`` receives
(:func:`fit_kwargs`). Nothing here inspects estimator classes.

Data flow (DESIGN.md): canonical dataset Parquet -> label set Parquet (row indices,
split, y, s, true propensity per repetition; never a copy of X) -> result rows (one per
repetition) -> aggregate Parquet -> tables.

Seeds. The label set of repetition ``r`` uses
``derive_seed(seed, dataset_id, setting_id, "labels", r)`` and the method of that
repetition ``derive_seed(seed, dataset_id, setting_id, method, "fit", r)``; both are
computed up front in the calling process, so results do not depend on how many Dask
workers run the repetitions nor on their completion order (rows are sorted by ``rep``).
Synthetic datasets are regenerated per repetition with ``seed = r`` (the PULSNAR paper's
seeds 0-39), so X is never stored for them either.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd

from pu_lib import __version__
from pu_lib._io import write_parquet_atomic
from pu_lib._logging import Progress
from pu_lib._seeding import derive_seed

log = logging.getLogger("pu_lib.workflow.experiments.runner")

LABEL_COLUMNS = ["rep", "row", "split", "y", "s", "propensity", "scenario", "propensity_attributes"]


# --------------------------------------------------------------------------- data
def _is_synthetic(entry: dict) -> bool:
    from pu_lib.datasets import get_spec

    return "user" not in entry and get_spec(entry["name"]).get("kind") == "synthetic"


def labels_given(entry: dict) -> bool:
    """True for a user dataset that is PU already (``user_datasets.*.s_column``): its
    canonical ``target`` is the labeled indicator ``s`` and the true classes are unknown."""
    return bool((entry.get("user") or {}).get("s_column"))


@functools.lru_cache(maxsize=4)
def _load_file_dataset(path: str, mtime_ns: int, dropna: bool = True):
    from pu_lib.datasets import load_canonical

    return load_canonical(path, dropna=dropna)


#: dataset-entry ``missing`` values: what happens to rows with a NaN feature value
MISSING_MODES = ("drop", "zero")


def _missing_mode(entry: dict) -> str:
    mode = entry.get("missing", "drop")
    if mode not in MISSING_MODES:
        raise ValueError(f"dataset {entry.get('id', entry['name'])!r}: unknown missing={mode!r}; "
                         f"expected one of {list(MISSING_MODES)}")
    return mode


def _load_cell(entry: dict, dataset_path: str | None, rep: int):
    """``(Dataset, y, keep)``: the loaded dataset, its binary target and the mask of the
    rows the positive definition keeps. For data that is PU already (:func:`labels_given`)
    ``y`` is -1 (unknown) on every row and every row is kept."""
    from pu_lib.datasets import load_dataset

    if _is_synthetic(entry):
        ds = load_dataset(entry["name"], params=entry["params"], seed=rep)
    else:
        p = Path(dataset_path)
        # a user dataset's canonical table already follows its own missing-value policy
        # (pu_lib.datasets.user.read_user_file): nothing is dropped here
        dropna = "user" not in entry and _missing_mode(entry) == "drop"
        ds = _load_file_dataset(str(p), p.stat().st_mtime_ns, dropna)
    if labels_given(entry):
        return ds, np.full(ds.n_samples, -1, dtype=np.int8), np.ones(ds.n_samples, dtype=bool)
    user = entry.get("user")
    # a user dataset's positive definition is its spec's (positive_value), not the registry's
    y = np.asarray(ds.binary_target(user["positive"]["default"] if user else entry["positive"]))
    return ds, y, y >= 0


def load_cell_dataset(entry: dict, dataset_path: str | None, rep: int):
    """Return ``(X, y, groups)`` for a dataset entry and repetition.

    ``groups`` is the dataset's subclass id per row (synthetic SNAR) or, for data sets
    without one, the original class value. ``y`` is the binary target under the entry's
    positive definition; rows that the
    definition excludes (``y == -1``, e.g. classes a paper drops) are removed here, so
    label-set row indices always refer to the filtered table (documented in the label
    file by ``row``).

    Then, on the kept rows, the entry's optional feature transforms (Bekker thesis
    5.6.1-5.6.2): ``scale: minus1_1`` min-max scales every column to [-1, 1]
    (:func:`pu_lib.labeling.scale_minus1_1`), and ``extend`` appends the class-correlated
    and noise attributes of :func:`pu_lib.labeling.extend_attributes`, drawn with the seed
    ``derive_seed(0, name, positive, "extend")`` (independent of ``rep`` and the method).
    ``X`` keeps the dataset's dtype (float32).

    Rows with a missing feature value are dropped when the data set is loaded (the
    default, ``missing: drop``); with ``missing: zero`` every row is kept and each NaN
    becomes 0 before anything else, as the PULSNAR authors prepare Mice Protein
    (``examples/pulscar_mouse_protein_alpha_estimation.py``: ``replace(np.nan, 0)``).
    A user dataset's missing values follow its ``user_datasets`` entry's ``missing``
    (refuse, drop or impute; :func:`pu_lib.datasets.user.read_user_file`), applied when
    its canonical table is written: nothing is dropped here.
    """
    ds, y, keep = _load_cell(entry, dataset_path, rep)
    # subclass of each row: the generator's groups (synthetic SNAR), else the original
    # class (used by SNAR mechanisms on benchmark data: positive subclasses = classes)
    groups = ds.groups if ds.groups is not None else np.asarray(ds.target)
    X = ds.X
    if _missing_mode(entry) == "zero":  # a new array: the cached data set stays as loaded
        X = np.where(np.isnan(X), X.dtype.type(0), X)
    if not keep.all():
        X = X[keep]
        y = y[keep]
        groups = groups[keep] if groups is not None else None
    if entry.get("scale") is not None or entry.get("extend") is not None:
        from pu_lib.labeling import extend_attributes, scale_minus1_1

        dtype = X.dtype
        try:
            if entry.get("scale") is not None:
                if entry["scale"] != "minus1_1":
                    raise ValueError(f"unknown scale {entry['scale']!r}; expected 'minus1_1'")
                X = scale_minus1_1(X)
            if entry.get("extend") is not None:
                # keys left out take extend_attributes' defaults, which are the config's
                # EXTEND_DEFAULTS (pu_lib.workflow.experiments.config; a test checks they agree)
                ext = {k: entry["extend"][k] for k in ("n_correlated", "n_noise", "flip") if k in entry["extend"]}
                X = extend_attributes(X, y, **ext,
                                      random_state=derive_seed(0, entry["name"], entry["positive"], "extend"))
        except ValueError as exc:
            raise ValueError(f"dataset {entry.get('id', entry['name'])!r}: {exc}") from None
        X = np.ascontiguousarray(X, dtype=dtype)
    return X, y.astype(np.int8), groups


def load_cell_split(entry: dict, dataset_path: str | None, rep: int) -> np.ndarray:
    """The dataset's own train/test split (its ``split`` meta column) for the rows that
    :func:`load_cell_dataset` returns, as a str array. Raises ``ValueError`` naming the
    dataset if it has no ``split`` column."""
    ds, _, keep = _load_cell(entry, dataset_path, rep)
    if ds.meta is None or "split" not in ds.meta.columns:
        have = [] if ds.meta is None else list(ds.meta.columns)
        raise ValueError(
            f"split.predefined: dataset {entry['name']!r} has no 'split' meta column (meta columns: {have}); "
            "use a random holdout (split.test_size) instead"
        )
    split = ds.meta["split"].astype(str).to_numpy()
    return split[keep] if not keep.all() else split


# --------------------------------------------------------------------------- labels
def make_label_sets(spec: dict, dataset_path: str | None) -> pd.DataFrame:
    """All repetitions' label sets for one (dataset, setting) as one small frame.

    With ``split.predefined`` (true, or "auto" for a dataset that has one) the dataset's
    ``split`` meta column decides train / test
    (:func:`load_cell_split`); ``split.val_size`` still carves a stratified, seeded
    validation part out of the training rows.
    """
    from pu_lib.labeling import label_set_metadata, make_label_set

    entry, setting, split = spec["dataset"], spec["setting"], spec["split"]
    if labels_given(entry) or setting["mechanism"] == "given":
        return _given_label_sets(spec, dataset_path)
    params = {k: v for k, v in setting.items() if k not in ("mechanism", "id")}
    frames = []
    for rep in range(spec["repetitions"]):
        X, y, groups = load_cell_dataset(entry, dataset_path, rep)
        mode = split.get("predefined", False)
        if mode == "auto":
            from pu_lib.datasets import get_spec

            mode = "user" not in entry and "split" in (get_spec(entry["name"]).get("meta_columns") or [])
        predefined = load_cell_split(entry, dataset_path, rep) if mode is True else None
        seed = derive_seed(spec["seed"], entry["id"], spec["setting_id"], "labels", rep)
        df = make_label_set(
            X, y,
            mechanism=setting["mechanism"], params=params,
            test_size=split["test_size"], val_size=split["val_size"],
            max_samples=split["max_samples"], groups=groups, random_state=seed,
            predefined_split=predefined,
        )
        df.insert(0, "rep", np.int32(rep))
        # the SAR labeling's propensity attributes (column indices of this rep's X), for
        # methods that request them (SAR-EM); JSON "null" for other mechanisms
        attrs = label_set_metadata(df)["params"].get("attributes") if setting["mechanism"] == "sar" else None
        df["propensity_attributes"] = json.dumps(attrs)
        frames.append(df)
    return _stack_label_frames(frames)


def _stack_label_frames(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The repetitions' label sets as one frame with the label-file columns."""
    out = pd.concat(frames, ignore_index=True)
    out["split"] = out["split"].astype(str)
    out["scenario"] = out["scenario"].astype(str)
    return out[LABEL_COLUMNS]


def _given_label_sets(spec: dict, dataset_path: str) -> pd.DataFrame:
    """Label sets of data that is PU already (setting ``{mechanism: given}``): the file's
    ``s`` on every row, ``y = -1`` (unknown), propensity NaN. Each repetition draws its
    split as :func:`pu_lib.labeling.make_label_set` does, stratified by ``s`` (it is run
    with ``y = s`` and ``scar_c`` at ``c = 1``, so the labels it returns are ``s``)."""
    from pu_lib.labeling import make_label_set

    entry, setting, split = spec["dataset"], spec["setting"], spec["split"]
    if not (labels_given(entry) and setting["mechanism"] == "given"):
        raise ValueError(f"dataset {entry['id']!r}: mechanism given is for user datasets with an s_column, and "
                         "such data takes no other mechanism")
    ds, _, _ = _load_cell(entry, dataset_path, 0)
    s = np.asarray(ds.target).astype(np.int8)
    frames = []
    for rep in range(spec["repetitions"]):
        seed = derive_seed(spec["seed"], entry["id"], spec["setting_id"], "labels", rep)
        df = make_label_set(None, s, mechanism="scar_c", params={"c": 1.0}, test_size=split["test_size"],
                            val_size=split["val_size"], max_samples=split["max_samples"], random_state=seed)
        df["s"] = s[df["row"].to_numpy()]  # the test rows' labels too: they are the file's
        df["y"] = np.int8(-1)
        df["propensity"] = np.nan
        df.insert(0, "rep", np.int32(rep))
        df["propensity_attributes"] = json.dumps(None)
        frames.append(df)
    return _stack_label_frames(frames)


def write_label_sets(spec: dict, dataset_path: str | None, out: str) -> pd.DataFrame:
    df = make_label_sets(spec, dataset_path)
    write_parquet_atomic(df, out)
    return df


# --------------------------------------------------------------------------- fit/eval
def _is_true_flag(v) -> bool:
    return v is True or (isinstance(v, str) and v.strip().lower() == "true")


def resolve_method_spec(spec: dict, y_train, propensity_train=None) -> tuple[dict, float | None]:
    """A copy of a method spec with ``params.prior: true`` replaced by the true class prior
    and ``params.label_frequency: true`` by the true label frequency.

    ``prior: true`` (YAML boolean or the string ``"true"``) asks for the true positive
    fraction of the training rows, ``float(y_train.mean())``: in the PU Extra Trees
    protocol (case-control, U = the whole training set) that is the prior pi of U.
    ``label_frequency: true`` asks for the mean true propensity of the training positives,
    ``mean(propensity_train[y_train == 1])`` (the "SCAR with the true c" approach of
    Bekker's SAR experiments, as the authors compute it; under SCAR it is c itself).
    Returns ``(spec, prior_given)`` where ``prior_given`` is the prior passed to the
    method (substituted or a number given in the config), or None. ``spec`` itself is
    never modified (it is a Snakemake param shared by all repetitions).
    """
    params = dict(spec.get("params") or {})
    changed = False
    if _is_true_flag(params.get("label_frequency")):
        y_train = np.asarray(y_train)
        if propensity_train is None:
            raise ValueError("label_frequency: true needs the label file's true propensities")
        e_pos = np.asarray(propensity_train, dtype=np.float64)[y_train == 1]
        if e_pos.size == 0 or not np.all(np.isfinite(e_pos)):
            raise ValueError("label_frequency: true needs finite true propensities of the training positives")
        params["label_frequency"] = float(e_pos.mean())
        changed = True
    prior = params.get("prior")
    prior_given = None
    if _is_true_flag(prior):
        y_train = np.asarray(y_train)
        if y_train.size == 0:
            raise ValueError("prior: true needs training rows")
        prior_given = params["prior"] = float(y_train.mean())
        changed = True
    elif isinstance(prior, (int, float, np.integer, np.floating)) and not isinstance(prior, bool):
        prior_given = float(prior)
    return ({**spec, "params": params} if changed else spec), prior_given


def fit_kwargs(est, supplied: dict) -> dict:
    """The keyword arguments of ``est.fit`` beyond ``(X, s)``: exactly the inputs the
    estimator requests (:func:`pu_lib.base.fit_inputs`), taken from ``supplied`` (the
    label file's ``y_true``, ``propensity`` and ``propensity_attributes`` of the training
    rows, :meth:`RepetitionData.supplied`). An input the label file does not hold is left
    out when the estimator has a constructor parameter of the same name that is set (e.g.
    SAR-EM's ``propensity_attributes`` given in the config); otherwise ``ValueError``."""
    from pu_lib.base import fit_inputs

    out = {}
    for name in sorted(fit_inputs(est)):
        if supplied.get(name) is None:
            if est.get_params(deep=False).get(name) is not None:
                continue
            raise ValueError(
                f"{type(est).__name__}.fit requests {name!r}, which the label file does not provide "
                f"(it provides {sorted(k for k, v in supplied.items() if v is not None)})"
            )
        out[name] = supplied[name]
    return out


def _repetition_cell(task: dict):
    """One repetition's data as the method sees it: ``(cell, method_spec, prior_given, est,
    kwargs)`` -- the loaded and checked rows (:class:`RepetitionData`, features scaled as the
    method spec says), the spec with ``prior: true`` resolved, the unfitted estimator with
    the task's fit seed and its fit inputs (:func:`fit_kwargs`)."""
    from pu_lib.workflow.experiments.methods import make_method

    entry = task["dataset"]
    X, y_all, _ = load_cell_dataset(entry, task["dataset_path"], task["rep"])
    lab = task["labels"]
    rows, split, y = lab["row"], lab["split"], lab["y"]
    if not np.array_equal(y_all[rows], y):
        raise ValueError(
            f"label set for dataset {entry['id']!r} rep {task['rep']} does not match the dataset's "
            "targets; the dataset file changed after the labels were made"
        )
    tr = split == "train"
    X = scale_features(X, rows[split != "test"], task["method_spec"].get("scale"))
    cell = RepetitionData(X=X, rows=rows, split=split, s=lab["s"], y=y, propensity=lab["propensity"], tr=tr,
                          propensity_attributes=lab.get("propensity_attributes"))
    method_spec, prior_given = resolve_method_spec(task["method_spec"], cell.y_tr, cell.propensity_tr)
    est = make_method(method_spec, random_state=task["seed"], n_jobs=1)
    return cell, method_spec, prior_given, est, fit_kwargs(est, cell.supplied())


def run_repetition(task: dict) -> dict:
    """Fit one method on one repetition's training data and score it (a Dask task).

    The method's registry kind decides what is recorded: a classifier is scored on the
    evaluation rows (:func:`pu_lib.workflow.experiments.classifier_eval.classifier_row`), a
    class-prior estimator by its estimates (:func:`pu_lib.workflow.experiments.prior_eval.prior_row`).
    A task of :func:`apply_dataset_selection` carries its cell's choice (``selection``: the
    result columns; its ``method_spec`` holds the chosen parameters and no ``select``).
    """
    from pu_lib.workflow import registry
    from pu_lib.distributed import limit_threads

    with limit_threads(1):
        entry = task["dataset"]
        lab = task["labels"]
        cell, method_spec, prior_given, est, kwargs = _repetition_cell(task)
        X, rows, split, y, tr = cell.X, cell.rows, cell.split, cell.y, cell.tr
        if registry.get(method_spec["method"]).kind == "prior":
            from pu_lib.workflow.experiments.prior_eval import prior_row

            row = base_row(task, entry, lab, int(tr.sum()), int(cell.s_tr.sum()))
            row.update(prior_row(est, cell, kwargs, task))
        elif task.get("refit"):
            from pu_lib.workflow.experiments.classifier_eval import refit_classifier_row

            # tune on (train, val), then refit a clone on train + val (split.refit)
            full = RepetitionData(X=X, rows=rows, split=split, s=lab["s"], y=y, propensity=lab["propensity"],
                                  tr=split != "test", propensity_attributes=cell.propensity_attributes)
            est_full, prior_full = refit_clone(est, task["method_spec"], full.y_tr, full.propensity_tr)
            kwargs_full = fit_kwargs(est_full, full.supplied())
            row = base_row(task, entry, lab, int(full.tr.sum()), int(full.s_tr.sum()))
            with _recorded_fit_errors(task, row):
                row.update(refit_classifier_row(est, cell, kwargs, est_full, full, kwargs_full, task,
                                                prior_full if prior_full is not None else prior_given))
        else:
            from pu_lib.workflow.experiments.classifier_eval import classifier_row

            row = base_row(task, entry, lab, int(tr.sum()), int(cell.s_tr.sum()))
            with _recorded_fit_errors(task, row):
                if task.get("selection"):  # chosen once for the cell (apply_dataset_selection)
                    row.update(task["selection"])
                elif method_spec.get("select"):  # choose parameters on the training rows' (X, s)
                    est, selection = select_for_repetition(est, method_spec, cell, kwargs, prior_given,
                                                           task["seed"])
                    row.update(selection, selection_scope="repetition", selection_rep=task["rep"])
                row.update(classifier_row(est, cell, kwargs, task, prior_given))
        return row


def apply_dataset_selection(tasks: list[dict]) -> list[dict]:
    """``tasks`` with a ``select`` block of ``scope: dataset`` resolved once for the cell.

    The choice is made as :func:`select_for_repetition` makes it, on the first repetition's
    training rows ``(X, s)`` with that repetition's fit seed (folds and network seeds), in
    this process before any task is dispatched -- so it is the same for any worker count.
    Every task then gets a method spec with the chosen point written into ``params`` and no
    ``select``, and the choice's result columns (``selection``, with ``selection_scope``
    ``"dataset"`` and ``selection_rep``, the repetition it was made on; its
    ``selection_seconds`` is that one selection's time, in every row). Tasks without such a
    block are returned unchanged. A selection that fails raises (the cell has no choice to
    record), also under ``fit_errors: record``."""
    from pu_lib.workflow.experiments.methods import SELECT_DEFAULTS

    select = (tasks[0]["method_spec"].get("select") or {}) if tasks else {}
    if select.get("scope", SELECT_DEFAULTS["scope"]) != "dataset":
        return tasks
    from pu_lib.distributed import limit_threads

    first = min(tasks, key=lambda t: t["rep"])
    with limit_threads(1):
        cell, method_spec, prior_given, est, kwargs = _repetition_cell(first)
        best, columns = select_for_repetition(est, method_spec, cell, kwargs, prior_given, first["seed"])
    # the chosen values as the estimator holds them (not read back from the JSON column)
    params = best.get_params()
    chosen = {k: params[k] for k in select["grid"]}
    columns = {**columns, "selection_scope": "dataset", "selection_rep": int(first["rep"])}
    out = []
    for task in tasks:
        spec = {k: v for k, v in task["method_spec"].items() if k != "select"}
        spec["params"] = {**(spec.get("params") or {}), **chosen}
        out.append({**task, "method_spec": spec, "selection": columns})
    return out


def select_for_repetition(est, method_spec: dict, cell, kwargs: dict, prior_given, seed):
    """``(estimator, columns)``: the method spec's ``select`` block run on one repetition
    (:func:`pu_lib.workflow.experiments.methods.select_params`) -- on the training rows' features and
    PU labels ``(cell.X_tr, cell.s_tr)`` only, never the test or validation rows nor the
    true classes -- and the unfitted estimator with the chosen parameters, which
    :func:`~pu_lib.workflow.experiments.classifier_eval.classifier_row` then fits on all training
    rows.

    The scorer gets the prior the method gets (``prior_given``: the true prior of the
    training rows for ``params.prior: true``, else the number given) and the scenario in
    which the method reads ``s`` (:func:`~pu_lib.workflow.experiments.classifier_eval.pu_risk_scenario`:
    its ``scenario`` parameter, else single-training-set -- the runner's training rows are
    one sample with the labeled rows part of U, for the case-control label sets too); the
    folds are ``PUStratifiedKFold(cv, shuffle=True, random_state=seed)`` with the
    repetition's fit seed, so the choice is the same in every run of the cell. ``kwargs``
    are the method's fit inputs (:func:`fit_kwargs`); an oracle's ``y_true`` is refused."""
    from pu_lib.workflow.experiments.classifier_eval import pu_risk_scenario
    from pu_lib.workflow.experiments.methods import select_params

    if "y_true" in kwargs:
        raise ValueError("select: the method is fitted on the true classes; selecting its parameters would read them")
    return select_params(est, method_spec["select"], cell.X_tr, cell.s_tr, prior=prior_given,
                         scenario=pu_risk_scenario(est), random_state=seed, fit_kwargs=kwargs)


#: method-spec ``scale`` values (:func:`scale_features`)
METHOD_SCALES = ("min_max",)


def scale_features(X: np.ndarray, fit_rows: np.ndarray, scale: str | None) -> np.ndarray:
    """``X`` as a method with ``scale`` in its spec sees it (``None``: unchanged).

    ``scale: min_max`` maps every column to [0, 1] by the minimum and maximum of the rows
    ``fit_rows`` -- the repetition's training and validation rows, never its test rows, so
    no test value enters the scaling (test values outside the training range fall outside
    [0, 1]); a constant column becomes 0. It is a per-method transform (the PU Extra Trees
    paper scales UNSW-NB15 and Covtype to [0, 1] for its neural networks only), applied
    to a new array: the cached data set and the other methods' features stay as loaded.
    """
    if scale is None:
        return X
    if scale not in METHOD_SCALES:
        raise ValueError(f"method spec: unknown scale {scale!r}; expected one of {list(METHOD_SCALES)}")
    if len(fit_rows) == 0:
        raise ValueError("scale: min_max needs training rows to take the minimum and maximum from")
    part = X[fit_rows]
    mn, mx = part.min(axis=0), part.max(axis=0)
    rng = mx - mn
    out = (X - mn) / np.where(rng > 0, rng, 1).astype(X.dtype)
    out[:, rng == 0] = 0
    return np.ascontiguousarray(out, dtype=X.dtype)


@contextlib.contextmanager
def _recorded_fit_errors(task: dict, row: dict):
    """With ``fit_errors: record`` in the method spec, a ``ValueError`` raised while a
    classifier is fitted and scored (a method that cannot be fitted on this repetition's
    data, e.g. Elkan-Noto with a single labeled positive) leaves the row without metrics
    (NaN in the aggregate) and its message in ``fit_error``; otherwise it propagates and
    fails the job."""
    try:
        yield
    except ValueError as exc:
        if task["method_spec"].get("fit_errors") != "record":
            raise
        row["fit_error"] = f"{type(exc).__name__}: {exc}"
        log.warning("%s / %s / %s rep %d: no scores (%s)", task["dataset"]["id"], task["setting_id"],
                    task["method"], task["rep"], row["fit_error"])


def refit_clone(est, method_spec: dict, y_refit, propensity_refit=None):
    """``(clone, prior)``: an unfitted clone of ``est`` (same parameters and seed) for the
    refit on training + validation rows. ``params.prior: true`` and
    ``params.label_frequency: true`` are resolved again on the refit rows
    (:func:`resolve_method_spec`); the returned prior is the substituted true prior, else None."""
    from sklearn.base import clone

    out = clone(est)
    params = method_spec.get("params") or {}
    if not (_is_true_flag(params.get("prior")) or _is_true_flag(params.get("label_frequency"))):
        return out, None
    resolved, prior = resolve_method_spec(method_spec, y_refit, propensity_refit)
    for key in ("prior", "label_frequency"):
        if _is_true_flag(params.get(key)):
            out.set_params(**{key: resolved["params"][key]})
    return out, prior if _is_true_flag(params.get("prior")) else None


class RepetitionData:
    """One repetition's data as the estimators see it: the dataset's feature matrix ``X``,
    the label file's ``rows`` (into ``X``), ``split``, ``s``, ``y`` and ``propensity``, the
    training mask ``tr`` and the SAR labeling's ``propensity_attributes`` (column indices,
    or None); ``*_tr`` are the training rows' values."""

    def __init__(self, X, rows, split, s, y, propensity, tr, propensity_attributes=None):
        self.X, self.rows, self.split, self.s, self.y, self.tr = X, rows, split, s, y, tr
        #: False for data that is PU already (``y`` is -1: unknown)
        self.y_known = bool(np.all(np.asarray(y) >= 0))
        self.propensity = propensity
        self.propensity_attributes = propensity_attributes
        self.X_tr = X[rows[tr]]
        self.s_tr = s[tr]
        self.y_tr = y[tr]
        self.propensity_tr = None if propensity is None else propensity[tr]

    def supplied(self) -> dict:
        """The hidden inputs a method may request at fit (:data:`pu_lib.base.FIT_INPUTS`)."""
        known = self.y_known  # data that is PU already has neither
        return {"y_true": self.y_tr if known else None, "propensity": self.propensity_tr if known else None,
                "propensity_attributes": self.propensity_attributes}

    def part(self, name: str):
        """``(X, y, s)`` of the rows of split part ``name`` ("train", "val" or "test")."""
        m = self.split == name
        return self.X[self.rows[m]], self.y[m], self.s[m]


def base_row(task: dict, entry: dict, lab: dict, n_train: int, n_labeled: int) -> dict:
    """The columns every result row has: where it comes from (experiment, data set,
    setting, method and their parameters), seeds, config hash (per method,
    :meth:`pu_lib.workflow.experiments.config.Grid.method_hash`), package version and code hash
    (:mod:`pu_lib.workflow.experiments.code_hash`; None when the caller gives none)."""
    return {
        "experiment": task["experiment"],
        "dataset": entry["id"],
        "dataset_name": entry["name"],
        "positive": entry["positive"],
        "dataset_params": json.dumps(entry.get("params") or {}, sort_keys=True),
        "setting": task["setting_id"],
        "mechanism": task["setting"]["mechanism"],
        "setting_params": json.dumps(
            {k: v for k, v in task["setting"].items() if k not in ("mechanism", "id")}, sort_keys=True
        ),
        "scenario": str(lab["scenario"][0]),
        "method": task["method"],
        "method_spec": json.dumps(task["method_spec"], sort_keys=True),
        "rep": int(task["rep"]),
        "seed": int(task["seed"]),
        "label_seed": int(task["label_seed"]),
        "config_hash": task["config_hash"],
        "pu_lib_version": __version__,
        "code_hash": task.get("code_hash"),
        "evaluate_on": task["evaluate_on"],
        "n_train": int(n_train),
        "n_labeled": int(n_labeled),
    }


def build_tasks(spec: dict, dataset_path: str | None, labels: pd.DataFrame) -> list[dict]:
    """One task per repetition; seeds derived here, up front."""
    tasks = []
    entry = spec["dataset"]
    for rep in range(spec["repetitions"]):
        part = labels[labels["rep"] == rep]
        if part.empty:
            raise ValueError(f"label file has no rows for repetition {rep} of dataset {entry['id']!r}")
        tasks.append({
            "experiment": spec["experiment"],
            "dataset": entry,
            "dataset_path": dataset_path,
            "setting": spec["setting"],
            "setting_id": spec["setting_id"],
            "method": spec["method"],
            "method_spec": spec["method_spec"],
            "config_hash": spec["config_hash"],
            "code_hash": spec.get("code_hash"),
            "evaluate_on": spec["split"]["evaluate_on"],
            "refit": bool(spec["split"].get("refit", False)),
            "threshold_rule": spec["split"].get("threshold_rule", "midpoint"),
            "prior_evaluation": spec.get("prior_evaluation") or {},
            "staged_metrics": list(spec.get("staged_metrics") or []),
            "rep": rep,
            "seed": derive_seed(spec["seed"], entry["id"], spec["setting_id"], spec["method"], "fit", rep),
            "label_seed": derive_seed(spec["seed"], entry["id"], spec["setting_id"], "labels", rep),
            "labels": {
                "row": part["row"].to_numpy(np.int64),
                "split": part["split"].astype(str).to_numpy(),
                "y": part["y"].to_numpy(np.int8),
                "s": part["s"].to_numpy(np.int8),
                "propensity": part["propensity"].to_numpy(np.float64),
                "scenario": part["scenario"].astype(str).to_numpy()[:1],
                # label files written before this column existed hold no attributes
                "propensity_attributes": (json.loads(part["propensity_attributes"].iloc[0])
                                          if "propensity_attributes" in part.columns else None),
            },
        })
    return tasks


def fit_eval(spec: dict, dataset_path: str | None, labels_path: str, client=None, progress: bool = True) -> pd.DataFrame:
    """Run all repetitions of one cell, on ``client`` (Dask) if given, else in-process.

    The client is passed explicitly (``workflow/scripts/fit_eval.py`` makes it with
    :func:`pu_lib.distributed.dask_client`); each repetition is one task, and inside it the
    estimator runs locally on the ``n_jobs`` threads of its config (``use_dask`` stays
    False; docs/cluster.md, "Dask by explicit choice").

    ``progress``: log ``done / total`` repetitions with an estimate of the time left
    (:class:`pu_lib._logging.Progress`; also on the terminal of an interactive run).
    Returns the result rows sorted by repetition (identical whatever the worker count).
    Paths are made absolute before they go into the tasks: the workers of an external
    scheduler (``dask.scheduler_address``) run in their own working directory; they need
    the same file system (a cluster's shared one).
    """
    labels = pd.read_parquet(labels_path)
    if dataset_path is not None:  # workers of an external scheduler have their own working directory
        dataset_path = str(Path(dataset_path).resolve())
    tasks = apply_dataset_selection(build_tasks(spec, dataset_path, labels))
    cell = f"{spec['experiment']}/{spec['dataset']['id']}/{spec['setting_id']}/{spec['method']}"
    report = Progress(len(tasks), cell) if progress else None
    if client is None:
        rows = []
        for t in tasks:
            rows.append(run_repetition(t))
            if report is not None:
                report.update()
    else:
        from distributed import as_completed

        futures = client.map(run_repetition, tasks, pure=False)
        for fut in as_completed(futures):
            if fut.status == "error":
                fut.result()  # re-raise the task's exception here
            if report is not None:
                report.update()
        rows = client.gather(futures)
    df = pd.DataFrame(rows).sort_values("rep", kind="stable").reset_index(drop=True)
    return df
