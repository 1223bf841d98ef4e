"""A user's own tables in the workflow (config ``user_datasets``, docs/own_data.md).

One tiny run covers the four kinds of file: CSV and Parquet, each with a class column (PU
labels drawn with ``scar_c``) and with an ``s`` column (data that is PU already, setting
``given``). Then one file's content changes, its modification time set back to the old
one: its jobs rerun (its canonical file is named by its content hash), the others' do not.
The config errors (missing file, missing column, class column without positive value,
both or neither of class and s column, true-label metrics on PU data) need no run.
"""

import copy
import os

import numpy as np
import pandas as pd
import pytest

from conftest import LR_METHODS, run_snakemake, write_config

pytestmark = pytest.mark.workflow

N = 150


def _tables(wd):
    """The four user files in ``wd``: breast-cancer rows with a categorical column."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer(as_frame=True)
    df = data.frame.iloc[:N, :4].copy()
    df["size"] = np.where(df["mean radius"] > 14, "large", "small")
    df["diagnosis"] = np.where(data.target[:N] == 0, "malignant", "benign")
    df.to_csv(wd / "cls.csv", index=False)
    df.to_parquet(wd / "cls.parquet", index=False)
    rng = np.random.default_rng(0)
    pu = df.drop(columns=["diagnosis"])
    pu["s"] = ((df["diagnosis"] == "malignant") & (rng.random(N) < 0.5)).astype(int)
    pu.to_csv(wd / "pu.csv", index=False)
    pu.to_parquet(wd / "pu.parquet", index=False)


CONFIG = {
    "seed": 1,
    "cache_dir": ".cache/pu_lib",
    "dask": {"threads": 1, "mem_mb": 1000},
    "methods": {"naive_lr": LR_METHODS["naive_lr"]},
    "user_datasets": {
        "cls_csv": {"file": "cls.csv", "class_column": "diagnosis", "positive_value": "malignant"},
        "cls_pq": {"file": "cls.parquet", "class_column": "diagnosis", "positive_value": "malignant"},
        "pu_csv": {"file": "pu.csv", "s_column": "s"},
        "pu_pq": {"file": "pu.parquet", "s_column": "s"},
    },
    "experiments": {
        "own": {"datasets": ["cls_csv", "cls_pq"], "settings": [{"mechanism": "scar_c", "c": 0.5}],
                "methods": ["naive_lr"], "repetitions": 1, "metrics": ["auc_roc"], "report": {"groupings": []}},
        "own_pu": {"datasets": ["pu_csv", "pu_pq"], "settings": [{"mechanism": "given"}],
                   "methods": ["naive_lr"], "repetitions": 1, "metrics": ["lee_liu", "pu_auc", "pu_f1"],
                   "report": {"groupings": []}},
    },
}
FITS = {"cls_csv": "own/cls_csv/scar_c-c0.5", "cls_pq": "own/cls_pq/scar_c-c0.5",
        "pu_csv": "own_pu/pu_csv/given", "pu_pq": "own_pu/pu_pq/given"}


def _fit(wd, name):
    return wd / "results" / "fits" / FITS[name] / "naive_lr.parquet"


@pytest.fixture(scope="module")
def own_run(tmp_path_factory):
    """The tiny run on the four user files (module-scoped: the last test changes a file
    and reruns in the same directory)."""
    wd = tmp_path_factory.mktemp("own_data")
    _tables(wd)
    write_config(wd, CONFIG)
    run_snakemake(wd, "--cores", "2")
    return wd


@pytest.mark.slow  # one workflow run of 4 data sets (~30 s on 2 cores)
def test_class_column_data_get_drawn_labels_and_every_metric(own_run):
    for name in ("cls_csv", "cls_pq"):
        row = pd.read_parquet(_fit(own_run, name)).iloc[0]
        assert 0 <= row["auc_roc"] <= 1 and 0 <= row["prior_true"] <= 1
    table = pd.read_csv(own_run / "results" / "tables" / "own.auc_roc.per_dataset.csv")
    assert set(table["column"]) == {"cls_csv", "cls_pq"}


@pytest.mark.slow  # reads the run of test_class_column_data_get_drawn_labels_and_every_metric
def test_csv_and_parquet_give_one_canonical_table_encoded_as_the_mirrors(own_run):
    from pu_lib.datasets import canonicalize, fingerprint
    from pu_lib.datasets.canonical import TARGET

    files = sorted((own_run / "results" / "data" / "user").glob("*.parquet"))
    tables = {f.name.rsplit("-", 1)[0]: pd.read_parquet(f) for f in files}
    assert set(tables) == set(FITS)
    assert fingerprint(tables["cls_csv"]) == fingerprint(tables["cls_pq"])
    assert fingerprint(tables["pu_csv"]) == fingerprint(tables["pu_pq"])
    # the categorical column as canonicalize encodes the mirror's data (two values: one 0/1 column)
    raw = pd.read_csv(own_run / "cls.csv").rename(columns={"diagnosis": TARGET})
    assert fingerprint(tables["cls_csv"]) == fingerprint(canonicalize(raw, {}))
    assert "size=small" in tables["cls_csv"].columns and "size" not in tables["cls_csv"].columns


@pytest.mark.slow  # reads the run of test_class_column_data_get_drawn_labels_and_every_metric
def test_pu_data_keep_the_files_labels_and_report_only_pu_metrics(own_run):
    s = pd.read_csv(own_run / "pu.csv")["s"].to_numpy()
    for name in ("pu_csv", "pu_pq"):
        labels = pd.read_parquet(own_run / "results" / "labels" / f"{FITS[name]}.parquet")
        assert (labels["y"] == -1).all()
        assert np.array_equal(labels["s"].to_numpy(), s[labels["row"].to_numpy()])
        assert sorted(labels["row"]) == list(range(N))
        row = pd.read_parquet(_fit(own_run, name)).iloc[0]
        assert np.isfinite(row["lee_liu"]) and 0.0 <= row["pu_auc"] <= 1.0
        # scored on the held-out test part (the default split), not on the training rows
        n_test = int((labels["split"] == "test").sum())
        assert row["evaluate_on"] == "test" and row["n_eval"] == n_test > 0
        assert row["n_eval"] != row["n_train"] and row["n_eval"] + row["n_train"] == N
        # naive_lr has no class prior and the config gives none: no PU estimate that needs one
        for metric in ("auc_roc", "accuracy", "f1", "prior_true", "pu_f1"):
            assert np.isnan(row[metric]), metric
    table = pd.read_csv(own_run / "results" / "tables" / "own_pu.lee_liu.per_dataset.csv")
    assert set(table["column"]) == {"pu_csv", "pu_pq"} and np.isfinite(table["mean"]).all()


@pytest.mark.slow  # a second workflow invocation (~20 s); last in the file: it changes a file
def test_a_changed_file_reruns_its_jobs_only(own_run):
    before = {name: _fit(own_run, name).stat().st_mtime_ns for name in FITS}
    path = own_run / "pu.parquet"
    st = path.stat()
    df = pd.read_parquet(path)
    df.loc[0, "mean texture"] += 1.0
    df.to_parquet(path, index=False)
    # the old modification time: the content hash alone must rerun the jobs
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    proc = run_snakemake(own_run, "--cores", "2")
    after = {name: _fit(own_run, name).stat().st_mtime_ns for name in FITS}
    assert after["pu_pq"] != before["pu_pq"], proc.stdout + proc.stderr
    assert {n: after[n] for n in FITS if n != "pu_pq"} == {n: before[n] for n in FITS if n != "pu_pq"}, \
        proc.stdout + proc.stderr
    assert len(list((own_run / "results" / "data" / "user").glob("pu_pq-*.parquet"))) == 2


def _error(mod, tmp_path):
    from pu_lib.workflow.experiments.config import DEFAULT_SCHEMA, ConfigError, validate_config

    _tables(tmp_path)
    cfg = copy.deepcopy(CONFIG)
    mod(cfg)
    cwd = os.getcwd()
    os.chdir(tmp_path)  # user files are read relative to the working directory
    try:
        with pytest.raises(ConfigError) as exc:
            validate_config(cfg, DEFAULT_SCHEMA)
    finally:
        os.chdir(cwd)
    return str(exc.value)


@pytest.mark.parametrize("mod, expected", [
    (lambda c: c["user_datasets"]["cls_csv"].update(file="missing.csv"),
     r"user_datasets.cls_csv.file: no such file 'missing.csv'"),
    (lambda c: c["user_datasets"]["cls_csv"].update(class_column="label"),
     r"user_datasets.cls_csv.class_column: no column 'label'"),
    (lambda c: c["user_datasets"]["cls_csv"].pop("positive_value"),
     r"user_datasets.cls_csv: 'positive_value' is a dependency of 'class_column'"),
    (lambda c: c["user_datasets"]["cls_csv"].update(positive_value="M"),
     r"user_datasets.cls_csv.positive_value: class column 'diagnosis' never holds 'M'"),
    (lambda c: c["user_datasets"]["cls_csv"].update(s_column="s"),
     r"user_datasets.cls_csv: give either class_column .* not both"),
    (lambda c: c["user_datasets"]["pu_csv"].pop("s_column"),
     r"user_datasets.pu_csv: give either class_column .* neither"),
    (lambda c: c["user_datasets"]["pu_csv"].update(s_column="mean radius"),
     r"user_datasets.pu_csv.s_column: column 'mean radius' must hold 0 .* and 1"),
    (lambda c: c["experiments"]["own_pu"].update(metrics=["auc_roc"]),
     r"experiments.own_pu.metrics\[0\]: 'auc_roc' needs the true classes"),
    (lambda c: c["experiments"]["own_pu"].update(settings=[{"mechanism": "scar_c", "c": 0.5}]),
     r"experiments.own_pu.settings: .* exactly \[\{mechanism: given\}\]"),
    (lambda c: c["experiments"]["own"].update(datasets=["cls_csv", "pu_csv"]),
     r"experiments.own.datasets: mixes data that is PU already"),
    # no held-out rows: the scores would be those of the training rows
    (lambda c: c["experiments"]["own_pu"].update(split={"test_size": 0.0, "evaluate_on": "unlabeled"}),
     r"experiments.own_pu.split: data that is PU already \(pu_csv, pu_pq\) is scored on held-out rows, the "
     r"test part, and this split has none \(evaluate_on: unlabeled, test_size: 0\)"),
    (lambda c: c["experiments"]["own_pu"].update(split={"val_size": 0.25, "evaluate_on": "unlabeled"}),
     r"experiments.own_pu.split: .* use evaluate_on: test \(the default\) with test_size > 0"),
])
def test_config_errors_name_the_problem(mod, expected, tmp_path):
    import re

    assert re.search(expected, _error(mod, tmp_path)), _error(mod, tmp_path)


def test_a_prior_experiment_on_pu_data_needs_no_test_part(tmp_path, monkeypatch):
    """Class-prior estimates are not scores of a fitted model: they may use every row."""
    from pu_lib.workflow.experiments.config import DEFAULT_SCHEMA, validate_config

    _tables(tmp_path)
    monkeypatch.chdir(tmp_path)
    cfg = copy.deepcopy(CONFIG)
    cfg["methods"]["tice"] = {"method": "tice"}
    cfg["experiments"]["own_pu"].update(methods=["tice"], metrics=["fit_seconds"],
                                        split={"test_size": 0.0, "evaluate_on": "unlabeled"})
    validate_config(cfg, DEFAULT_SCHEMA)
