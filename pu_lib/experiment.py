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


def load_cell_dataset(entry: dict, dataset_path: str | None, rep: int):
    """Return ``(X, y, groups)`` for a dataset entry and repetition.

    ``y`` is the binary target under the entry's positive definition; rows that the
    definition excludes (``y == -1``, e.g. classes a paper drops) are removed here, so
    label-set row indices always refer to the filtered table (documented in the label
    file by ``row``).
    """
    from pu_lib.datasets import load_dataset

    if _is_synthetic(entry["name"]):
        ds = load_dataset(entry["name"], params=entry["params"], seed=rep)
    else:
        p = Path(dataset_path)
        ds = _load_file_dataset(str(p), p.stat().st_mtime_ns)
    y = np.asarray(ds.binary_target(entry["positive"]))
    groups = ds.groups
    keep = y >= 0
    X = ds.X
    if not keep.all():
        X = X[keep]
        y = y[keep]
        groups = groups[keep] if groups is not None else None
    return X, y.astype(np.int8), groups


# --------------------------------------------------------------------------- labels
def make_label_sets(spec: dict, dataset_path: str | None) -> pd.DataFrame:
    """All repetitions' label sets for one (dataset, setting) as one small frame."""
    from pu_lib.labeling import make_label_set

    entry, setting, split = spec["dataset"], spec["setting"], spec["split"]
    params = {k: v for k, v in setting.items() if k not in ("mechanism", "id")}
    frames = []
    for rep in range(spec["repetitions"]):
        X, y, groups = load_cell_dataset(entry, dataset_path, rep)
        seed = derive_seed(spec["seed"], entry["id"], spec["setting_id"], "labels", rep)
        df = make_label_set(
            X, y,
            mechanism=setting["mechanism"], params=params,
            test_size=split["test_size"], val_size=split["val_size"],
            max_samples=split["max_samples"], groups=groups, random_state=seed,
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
        est = make_method(task["method_spec"], random_state=task["seed"], n_jobs=1)
        t0 = time.perf_counter()
        est.fit(X_tr, s_tr)
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
        # Lee & Liu needs PU labels: on the validation part if there is one, else in-sample.
        if va.any():
            lee_liu = metrics.lee_liu(s[va], est.predict(X[rows[va]]))
        else:
            lee_liu = metrics.lee_liu(s_tr, est.predict(X_tr))

        alpha_true = float(y_tr.mean())
        alpha_hat = getattr(est, "prior_", None)
        res = metrics.evaluate(
            y_ev, proba, pred, y_val=y_val, proba_val=proba_val, score_test=score, score_val=score_val,
            alpha_true=alpha_true if alpha_hat is not None else None,
            alpha_hat=float(alpha_hat) if alpha_hat is not None else None,
        )
        res["lee_liu"] = float(lee_liu)
        n_pos = int(y_tr.sum())
        row = {
            "experiment": task["experiment"],
            "dataset": entry["id"],
            "dataset_name": entry["name"],
            "positive": entry["positive"],
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
            "n_train": int(tr.sum()),
            "n_labeled": int(s_tr.sum()),
            "n_eval": int(len(y_ev)),
            "alpha_true": alpha_true,
            "alpha_hat": float(alpha_hat) if alpha_hat is not None else float("nan"),
            "c_true": float(s_tr.sum() / n_pos) if n_pos else float("nan"),
            "c_hat": float(getattr(est, "c_", float("nan"))),
            "fit_seconds": fit_seconds,
            "predict_seconds": predict_seconds,
        }
        row.update({k: float(v) for k, v in res.items()})
        return row


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
