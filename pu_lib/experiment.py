"""One grid cell of the workflow: label sets, fit/evaluate repetitions, aggregation.

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

import functools
import json
import logging
import time
from pathlib import Path

import numpy as np
import pandas as pd

from pu_lib import __version__
from pu_lib._io import write_parquet_atomic
from pu_lib._seeding import derive_seed

log = logging.getLogger("pu_lib.experiment")

LABEL_COLUMNS = ["rep", "row", "split", "y", "s", "propensity", "scenario"]


# --------------------------------------------------------------------------- data
def _is_synthetic(name: str) -> bool:
    from pu_lib.datasets import get_spec

    return get_spec(name).get("kind") == "synthetic"


@functools.lru_cache(maxsize=4)
def _load_file_dataset(path: str, mtime_ns: int):
    from pu_lib.datasets import load_canonical

    return load_canonical(path)


def _load_cell(entry: dict, dataset_path: str | None, rep: int):
    """``(Dataset, y, keep)``: the loaded dataset, its binary target and the mask of the
    rows the positive definition keeps."""
    from pu_lib.datasets import load_dataset

    if _is_synthetic(entry["name"]):
        ds = load_dataset(entry["name"], params=entry["params"], seed=rep)
    else:
        p = Path(dataset_path)
        ds = _load_file_dataset(str(p), p.stat().st_mtime_ns)
    y = np.asarray(ds.binary_target(entry["positive"]))
    return ds, y, y >= 0


def load_cell_dataset(entry: dict, dataset_path: str | None, rep: int):
    """Return ``(X, y, groups)`` for a dataset entry and repetition.

    ``groups`` is the dataset's subclass id per row (synthetic SNAR) or, for data sets
    without one, the original class value. ``y`` is the binary target under the entry's
    positive definition; rows that the
    definition excludes (``y == -1``, e.g. classes a paper drops) are removed here, so
    label-set row indices always refer to the filtered table (documented in the label
    file by ``row``).
    """
    ds, y, keep = _load_cell(entry, dataset_path, rep)
    # subclass of each row: the generator's groups (synthetic SNAR), else the original
    # class (used by SNAR mechanisms on benchmark data: positive subclasses = classes)
    groups = ds.groups if ds.groups is not None else np.asarray(ds.target)
    X = ds.X
    if not keep.all():
        X = X[keep]
        y = y[keep]
        groups = groups[keep] if groups is not None else None
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
    from pu_lib.labeling import make_label_set

    entry, setting, split = spec["dataset"], spec["setting"], spec["split"]
    params = {k: v for k, v in setting.items() if k not in ("mechanism", "id")}
    frames = []
    for rep in range(spec["repetitions"]):
        X, y, groups = load_cell_dataset(entry, dataset_path, rep)
        mode = split.get("predefined", False)
        if mode == "auto":
            from pu_lib.datasets import get_spec

            mode = "split" in (get_spec(entry["name"]).get("meta_columns") or [])
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
        frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    out["split"] = out["split"].astype(str)
    out["scenario"] = out["scenario"].astype(str)
    return out[LABEL_COLUMNS]


def write_label_sets(spec: dict, dataset_path: str | None, out: str) -> pd.DataFrame:
    df = make_label_sets(spec, dataset_path)
    write_parquet_atomic(df, out)
    return df


# --------------------------------------------------------------------------- fit/eval
def _is_true_flag(v) -> bool:
    return v is True or (isinstance(v, str) and v.strip().lower() == "true")


def resolve_method_spec(spec: dict, y_train) -> tuple[dict, float | None]:
    """A copy of a method spec with ``params.prior: true`` replaced by the true class prior.

    ``prior: true`` (YAML boolean or the string ``"true"``) asks for the true positive
    fraction of the training rows, ``float(y_train.mean())``: in the PU Extra Trees
    protocol (case-control, U = the whole training set) that is the prior pi of U.
    Returns ``(spec, prior_given)`` where ``prior_given`` is the prior passed to the
    method (substituted or a number given in the config), or None. ``spec`` itself is
    never modified (it is a Snakemake param shared by all repetitions).
    """
    params = dict(spec.get("params") or {})
    prior = params.get("prior")
    if _is_true_flag(prior):
        y_train = np.asarray(y_train)
        if y_train.size == 0:
            raise ValueError("prior: true needs training rows")
        prior = float(y_train.mean())
        params["prior"] = prior
        spec = {**spec, "params": params}
        return spec, prior
    if isinstance(prior, (int, float, np.integer, np.floating)) and not isinstance(prior, bool):
        return spec, float(prior)
    return spec, None


def fit_target(est, s_tr, y_tr):
    """What the estimator is trained on: the PU labels ``s_tr``, or the true classes
    ``y_tr`` for oracle baselines whose class sets ``_pu_requires_true_labels = True``
    (e.g. the PU Extra Trees paper's SupervisedET, trained on the fully labeled data)."""
    return y_tr if getattr(est, "_pu_requires_true_labels", False) is True else s_tr


#: Label-set scenario (pu_lib.labeling) -> scenario of :func:`pu_lib.metrics.pu_risk_01`
#: for the training rows as the estimator sees them (X_tr, s_tr): the whole training part
#: is a sample of p(x), so U = all training rows and P = the rows with s = 1 (P is a subset
#: of U). That holds for case_control (PU ET: P drawn from the training positives, U =
#: the whole training set) and for single-training-set mechanisms (SCAR/SAR/SNAR: one
#: sample, some positives labeled); the prior is that of all training rows either way.
PU_RISK_SCENARIO = {
    "case-control": "single_training_set",
    "single-training-set": "single_training_set",
}


def pu_risk_scenario(est, label_scenario: str) -> str:
    """Scenario of the training PU risk: the estimator's ``scenario`` attribute when it is
    ``"single_training_set"`` or ``"case_control"`` (the PU trees of :mod:`pu_lib.trees`
    take one; it says how they read ``s``), else :data:`PU_RISK_SCENARIO` of the label
    set's scenario."""
    own = getattr(est, "scenario", None)
    if isinstance(own, str) and own in ("single_training_set", "case_control"):
        return own
    if label_scenario not in PU_RISK_SCENARIO:
        raise ValueError(f"unknown label-set scenario {label_scenario!r}")
    return PU_RISK_SCENARIO[label_scenario]


def pu_risk_estimator(est) -> str:
    """Risk estimator of the training PU risk: the estimator's ``risk`` attribute when it
    is ``"upu"`` or ``"nnpu"``, else ``"nnpu"``."""
    risk = getattr(est, "risk", None)
    return risk if isinstance(risk, str) and risk in ("upu", "nnpu") else "nnpu"


def run_repetition(task: dict) -> dict:
    """Fit one method on one repetition's training data and score it (a Dask task)."""
    from pu_lib import metrics
    from pu_lib.distributed import limit_threads
    from pu_lib.methods import make_method

    with limit_threads(1):
        entry = task["dataset"]
        X, y_all, _ = load_cell_dataset(entry, task["dataset_path"], task["rep"])
        lab = task["labels"]
        rows, split, s, y = lab["row"], lab["split"], lab["s"], lab["y"]
        if not np.array_equal(y_all[rows], y):
            raise ValueError(
                f"label set for dataset {entry['id']!r} rep {task['rep']} does not match the dataset's "
                "targets; the dataset file changed after the labels were made"
            )
        tr = split == "train"
        X_tr, s_tr, y_tr = X[rows[tr]], s[tr], y[tr]
        method_spec, prior_given = resolve_method_spec(task["method_spec"], y_tr)
        est = make_method(method_spec, random_state=task["seed"], n_jobs=1)
        from pu_lib.prior.base import BasePriorEstimator

        if isinstance(est, BasePriorEstimator):
            return prior_row(task, entry, lab, est, X_tr, s_tr, y_tr, tr)
        target = fit_target(est, s_tr, y_tr)
        t0 = time.perf_counter()
        est.fit(X_tr, target)
        fit_seconds = time.perf_counter() - t0

        if task["evaluate_on"] == "test":
            ev = split == "test"
            X_ev, y_ev = X[rows[ev]], y[ev]
        else:  # transductive: the unlabeled training rows
            X_ev, y_ev = X_tr[s_tr == 0], y_tr[s_tr == 0]
        t0 = time.perf_counter()
        proba = est.predict_proba(X_ev)[:, 1]
        pred = est.predict(X_ev)
        score = _score(est, X_ev, proba)
        predict_seconds = time.perf_counter() - t0

        va = split == "val"
        y_val = proba_val = score_val = None
        if va.any():
            y_val = y[va]
            proba_val = est.predict_proba(X[rows[va]])[:, 1]
            score_val = _score(est, X[rows[va]], proba_val)
        # In-sample predictions: the training PU risk (always computed) and Lee & Liu's
        # criterion when there is no validation part.
        pred_tr = est.predict(X_tr)
        # Lee & Liu needs PU labels: on the validation part if there is one, else in-sample.
        if va.any():
            lee_liu = metrics.lee_liu(s[va], est.predict(X[rows[va]]))
        else:
            lee_liu = metrics.lee_liu(s_tr, pred_tr)

        alpha_true = float(y_tr.mean())
        alpha_hat = getattr(est, "prior_", None)
        # Training PU risk (zero-one loss, PU ET Appendix K): the prior the method used.
        if alpha_hat is not None and np.isfinite(float(alpha_hat)):
            risk_prior = float(alpha_hat)
        elif prior_given is not None:
            risk_prior = prior_given
        else:
            risk_prior = alpha_true
        risk_scenario = pu_risk_scenario(est, str(lab["scenario"][0]))
        risk_kind = pu_risk_estimator(est)
        res = metrics.evaluate(
            y_ev, proba, pred, y_val=y_val, proba_val=proba_val, score_test=score, score_val=score_val,
            alpha_true=alpha_true if alpha_hat is not None else None,
            alpha_hat=float(alpha_hat) if alpha_hat is not None else None,
            s_train=s_tr, y_pred_train=pred_tr,
            # a prior estimate outside [0, 1] gives NaN instead of failing the repetition
            prior_train=risk_prior if 0.0 <= risk_prior <= 1.0 else None,
            pu_risk=risk_kind, pu_scenario=risk_scenario,
        )
        res["lee_liu"] = float(lee_liu)
        n_pos = int(y_tr.sum())
        row = _base_row(task, entry, lab, tr.sum(), s_tr.sum())
        row.update({
            "n_eval": int(len(y_ev)),
            "alpha_true": alpha_true,
            "alpha_hat": float(alpha_hat) if alpha_hat is not None else float("nan"),
            "prior_given": prior_given if prior_given is not None else float("nan"),
            "pu_risk_estimator": risk_kind,
            "pu_risk_prior": risk_prior,
            "pu_risk_scenario": risk_scenario,
            "fit_on": "y" if target is y_tr else "s",
            "c_true": float(s_tr.sum() / n_pos) if n_pos else float("nan"),
            "c_hat": float(getattr(est, "c_", float("nan"))),
            "fit_seconds": fit_seconds,
            "predict_seconds": predict_seconds,
        })
        row.update({k: float(v) for k, v in res.items()})
        return row


def _base_row(task: dict, entry: dict, lab: dict, n_train: int, n_labeled: int) -> dict:
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
        "evaluate_on": task["evaluate_on"],
        "n_train": int(n_train),
        "n_labeled": int(n_labeled),
    }


def prior_row(task, entry, lab, est, X_tr, s_tr, y_tr, tr) -> dict:
    """Result row of a class-prior estimator (:mod:`pu_lib.prior`) on one repetition.

    The estimator is fitted on the training rows ``(X_tr, s_tr)``; the truth comes from
    their hidden classes ``y_tr``:

    * ``alpha_true`` / ``alpha_hat``: class prior of the whole training sample
      (``prior_``; thesis eq. 2.5 ``alpha = L / (c T)``), error ``prior_abs_error`` -- the
      Bekker thesis's |alpha_hat - alpha| (Tables 3.2-3.4);
    * ``alpha_u_true`` / ``alpha_u_hat``: fraction of positives among the unlabeled
      training rows (``alpha_``; PULSNAR's alpha), error ``alpha_u_abs_error``
      (PULSNAR Figures 3-5);
    * ``c_true`` / ``c_hat``: label frequency, error ``c_abs_error``;
    * ``fit_seconds`` and ``ms_per_example`` (fit time per training row, thesis Table 3.3).
    """
    t0 = time.perf_counter()
    est.fit(X_tr, s_tr)
    fit_seconds = time.perf_counter() - t0
    n_pos = int(y_tr.sum())
    unl = s_tr == 0
    row = _base_row(task, entry, lab, tr.sum(), s_tr.sum())
    alpha_true = float(y_tr.mean())
    alpha_u_true = float(y_tr[unl].mean())
    c_true = float(s_tr.sum() / n_pos) if n_pos else float("nan")
    row.update({
        "n_eval": int(unl.sum()),
        "alpha_true": alpha_true,
        "alpha_hat": float(est.prior_),
        "alpha_u_true": alpha_u_true,
        "alpha_u_hat": float(est.alpha_),
        "c_true": c_true,
        "c_hat": float(est.c_),
        "raw_estimate": float(getattr(est, "raw_estimate_", float("nan"))),
        "n_clusters": float(getattr(est, "n_clusters_", float("nan"))),
        "fit_seconds": fit_seconds,
        "prior_abs_error": abs(float(est.prior_) - alpha_true),
        "alpha_u_abs_error": abs(float(est.alpha_) - alpha_u_true),
        "c_abs_error": abs(float(est.c_) - c_true),
        "ms_per_example": 1000.0 * fit_seconds / max(1, int(tr.sum())),
    })
    pe = task.get("prior_evaluation") or {}
    if pe.get("calibration") or pe.get("classification"):
        row.update(pulsnar_evaluation(est, X_tr, s_tr, y_tr, pe, derive_seed(task["seed"], "prior_evaluation")))
    return row


#: bins of the calibration curves of :func:`pulsnar_evaluation`
CALIBRATION_CURVE_BINS = 10


def pulsnar_evaluation(est, X, s, y, options: dict, seed: int) -> dict:
    """Calibration (PULSNAR Algorithm 4, Figures 6-11) and classification with and without
    the estimate (Algorithm 5, Figures 12-13) for a fitted PULSCAR or PULSNAR; other
    estimators get no extra columns.

    * calibration: for ``data`` in 'PU' and 'U' (isotonic by default, ``options.method``),
      the calibration curve (10 equal bins) of the uncalibrated and calibrated
      probabilities against the true classes -- on all rows for 'PU', on the unlabeled
      for 'U' -- as JSON in column ``calibration_curves``, plus the Brier scores
      ``calib_brier_{uncal,PU,U}`` of the unlabeled rows. The uncalibrated probabilities
      are PULSCAR's out-of-fold ``probs_``; for PULSNAR the per-cluster out-of-fold
      probabilities combined by eq. 6 without rescaling (one probability per unlabeled
      row, as the paper plots), and the labeled rows' own-cluster probabilities.
    * classification: ``clf_with_<metric>`` from
      :func:`pu_lib.prior.calibration.improve_classification` (top alpha |U| unlabeled by
      'U'-calibrated probability relabeled, XGBoost with 5-fold CV) and
      ``clf_without_<metric>`` from ``baseline_classification`` (XGBoost on the PU
      labels), both on all rows against the true classes.
    """
    from pu_lib.prior import calibration as cal
    from pu_lib.prior.pulsnar import PULSCAR, PULSNAR

    if not isinstance(est, (PULSCAR, PULSNAR)):
        return {}
    n_bins = int(options.get("n_bins", 100))
    method = options.get("method", "isotonic")
    is_snar = isinstance(est, PULSNAR)
    calibrate = cal.calibrate_pulsnar if is_snar else cal.calibrate_pulscar
    unl = np.flatnonzero(s == 0)
    lab = np.flatnonzero(s == 1)
    out: dict = {}
    results = {}
    for data in ("PU", "U"):
        results[data] = calibrate(est, s, n_bins=n_bins, method=method, data=data,
                                  random_state=derive_seed(seed, "calibrate", data))
    if options.get("calibration"):
        if is_snar:
            raw_u = cal.combine_cluster_probabilities(np.asarray(est.cluster_probs_unlabeled_))
            raw = np.empty(s.shape[0])
            raw[unl] = raw_u
            for j in range(est.n_clusters_):
                raw[lab[np.asarray(est.cluster_labels_) == j]] = est.cluster_probs_labeled_[j]
        else:
            raw = np.asarray(est.probs_, dtype=float)
        curves = {}
        for data, rows in (("PU", np.arange(s.shape[0])), ("U", unl)):
            res = results[data]
            calibrated = res.probs  # rows of res.rows: all rows for PU, unlabeled for U
            curves[data] = {
                "uncalibrated": {k: np.asarray(v).tolist() for k, v in cal.calibration_curve_data(
                    raw[rows], y[rows], n_bins=CALIBRATION_CURVE_BINS).items()},
                "calibrated": {k: np.asarray(v).tolist() for k, v in cal.calibration_curve_data(
                    np.clip(calibrated, 0, 1), y[rows], n_bins=CALIBRATION_CURVE_BINS).items()},
            }
        out["calibration_curves"] = json.dumps(curves)
        yu = y[unl].astype(float)
        out["calib_brier_uncal"] = float(np.mean((raw[unl] - yu) ** 2))
        out["calib_brier_PU"] = float(np.mean((results["PU"].unlabeled_probs - yu) ** 2))
        out["calib_brier_U"] = float(np.mean((results["U"].unlabeled_probs - yu) ** 2))
        out["calib_sum_U"] = float(np.sum(results["U"].unlabeled_probs))
    if options.get("classification"):
        with_ = cal.improve_classification(X, s, y, est.alpha_, results["U"].unlabeled_probs,
                                           random_state=derive_seed(seed, "with"))
        without = cal.baseline_classification(X, s, y, random_state=derive_seed(seed, "without"))
        out.update({f"clf_with_{k}": float(v) for k, v in with_.items()})
        out.update({f"clf_without_{k}": float(v) for k, v in without.items()})
    return out


def _score(est, X, proba):
    """Continuous ranking score: ``decision_function`` when the estimator has one (it is
    monotone in the probability but not clipped), else the probability."""
    if hasattr(est, "decision_function"):
        return np.asarray(est.decision_function(X), dtype=np.float64).ravel()
    return proba


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
            "evaluate_on": spec["split"]["evaluate_on"],
            "prior_evaluation": spec.get("prior_evaluation") or {},
            "rep": rep,
            "seed": derive_seed(spec["seed"], entry["id"], spec["setting_id"], spec["method"], "fit", rep),
            "label_seed": derive_seed(spec["seed"], entry["id"], spec["setting_id"], "labels", rep),
            "labels": {
                "row": part["row"].to_numpy(np.int64),
                "split": part["split"].astype(str).to_numpy(),
                "y": part["y"].to_numpy(np.int8),
                "s": part["s"].to_numpy(np.int8),
                "scenario": part["scenario"].astype(str).to_numpy()[:1],
            },
        })
    return tasks


def fit_eval(spec: dict, dataset_path: str | None, labels_path: str, client=None, progress: bool = True) -> pd.DataFrame:
    """Run all repetitions of one cell, on ``client`` (Dask) if given, else in-process.

    Returns the result rows sorted by repetition (identical whatever the worker count).
    """
    labels = pd.read_parquet(labels_path)
    tasks = build_tasks(spec, dataset_path, labels)
    if client is None:
        rows = [run_repetition(t) for t in tasks]
    else:
        from distributed import as_completed

        futures = client.map(run_repetition, tasks, pure=False)
        done = as_completed(futures)
        if progress:
            from tqdm import tqdm

            done = tqdm(done, total=len(futures), desc=f"{spec['dataset']['id']}/{spec['setting_id']}/{spec['method']}",
                        mininterval=1.0)
        for fut in done:
            if fut.status == "error":
                fut.result()  # re-raise the task's exception here
        rows = client.gather(futures)
    df = pd.DataFrame(rows).sort_values("rep", kind="stable").reset_index(drop=True)
    return df


# --------------------------------------------------------------------------- aggregate
def aggregate(paths, out: str | None = None) -> pd.DataFrame:
    """Concatenate result files (in sorted path order) into one frame."""
    frames = [pd.read_parquet(p) for p in sorted(map(str, paths))]
    if not frames:
        raise ValueError("aggregate: no result files given")
    df = pd.concat(frames, ignore_index=True)
    df = df.sort_values(["experiment", "dataset", "setting", "method", "rep"], kind="stable").reset_index(drop=True)
    if out is not None:
        write_parquet_atomic(df, out)
    return df
