"""Bad input at the edges, when the config is read: method and base
classifier parameters checked against the estimators' constraints (XGBoost parameters
tried) before any job runs, and a data_mirror directory that does not exist."""

import copy

import pytest
import yaml

from pu_lib.workflow.experiments.config import ConfigError, Grid, validate_config


@pytest.fixture()
def cfg(repo):
    with open(repo / "config" / "config.yaml") as fh:
        return yaml.safe_load(fh)


@pytest.mark.parametrize("method, field, expected", [
    ({"method": "pulscar", "params": {"n_folds": 1}}, None, r"methods\.m\.params: The 'n_folds' parameter"),
    ({"method": "pulscar", "params": {"folds": 5}}, None, r"methods\.m\.params\.folds: not a parameter of PULSCAR"),
    ({"method": "pulscar", "params": {"xgb_params": {"subsample": 2}}}, None,
     r"methods\.m\.params: xgb_params\['subsample'\] = 2: XGBoost rejects it"),
    ({"method": "pulsnar", "params": {"xgb_params": {"nthreads": 2}}}, None,
     r"methods\.m\.params: xgb_params\['nthreads'\] = 2: not an XGBoost parameter"),
    ({"method": "pulsnar", "params": {"gmm_params": {"reg_cov": 1e-4}}}, None,
     r"methods\.m\.params: gmm_params has unknown GaussianMixture parameters \['reg_cov'\]"),
    ({"method": "pulsnar", "params": {"bandwidth_range": [0.5, 0.1]}}, None, r"methods\.m\.params: bandwidth_range"),
    ({"method": "pulscar", "base": "xgboost", "base_params": {"n_estimators": 0}}, None,
     r"methods\.m\.base_params\['n_estimators'\] must be an integer >= 1"),
    ({"method": "pulscar", "base": "xgboost", "base_params": {"subsample": 5}}, None,
     r"methods\.m\.base_params\['subsample'\] = 5: XGBoost rejects it"),
    ({"method": "naive", "base": "random_forest", "base_params": {"n_estimators": 0}}, None,
     r"methods\.m\.base_params: The 'n_estimators' parameter of RandomForestClassifier"),
    ({"method": "naive", "base": "logistic_regression", "base_params": {"C": -1}}, None,
     r"methods\.m\.base_params: The 'C' parameter of LogisticRegression"),
    ({"method": "naive", "base": "logistic_regression", "base_params": {"Cee": 1}}, None,
     r"methods\.m\.base_params: params for 'logistic_regression' contain unknown parameter\(s\) \['Cee'\]"),
    ({"method": "tice", "base_params": {"C": 1}}, None, r"methods\.m\.base_params: given without a base"),
])
def test_method_parameters_are_checked_when_the_config_is_read(cfg, schema_path, method, field, expected):
    cfg = copy.deepcopy(cfg)
    cfg["methods"]["m"] = method
    with pytest.raises(ConfigError, match=expected):
        validate_config(cfg, schema_path)


# --------------------------------------------------------------------------- data_mirror
def _mirror_cfg(cfg, tmp_path, mirror, download=False):
    cfg = copy.deepcopy(cfg)
    cfg["data_mirror"] = mirror
    cfg["download"] = download
    cfg["cache_dir"] = str(tmp_path / "cache")
    cfg["experiments"] = {"e": {"datasets": ["breast_cancer", {"name": "yeast6", "positive": "pu_hellinger"}],
                                "settings": [{"mechanism": "scar_c", "c": 0.5}], "methods": ["naive_lr"],
                                "repetitions": 1}}
    cfg["targets"] = {}
    return cfg


def test_a_missing_mirror_directory_is_a_config_error_when_a_dataset_needs_it(cfg, schema_path, tmp_path):
    c = validate_config(_mirror_cfg(cfg, tmp_path, "no/such/mirror"), schema_path)
    with pytest.raises(ConfigError) as exc:
        Grid(c, workdir=tmp_path)
    msg = str(exc.value)
    assert msg.startswith("data_mirror: the directory 'no/such/mirror'")
    assert str(tmp_path / "no/such/mirror") in msg and "yeast6 (experiments.e)" in msg and "download" in msg
    assert "breast_cancer" not in msg  # built in: needs no mirror
    # an existing mirror directory (the file's absence is the dataset job's error, as before)
    (tmp_path / "no/such/mirror").mkdir(parents=True)
    Grid(c, workdir=tmp_path)


def test_a_missing_mirror_is_fine_when_nothing_needs_it_and_a_warning_online(cfg, schema_path, tmp_path):
    # the dataset already prepared by an earlier run
    c = validate_config(_mirror_cfg(cfg, tmp_path, str(tmp_path / "gone")), schema_path)
    prepared = tmp_path / "results" / "data" / "yeast6.parquet"
    prepared.parent.mkdir(parents=True)
    prepared.write_bytes(b"placeholder")
    assert Grid(c, workdir=tmp_path).skip_messages() == []
    prepared.unlink()
    # only built-in datasets
    c2 = _mirror_cfg(cfg, tmp_path, str(tmp_path / "gone"))
    c2["experiments"]["e"]["datasets"] = ["breast_cancer"]
    Grid(validate_config(c2, schema_path), workdir=tmp_path)
    # online: a warning, the dataset will be downloaded
    g = Grid(validate_config(_mirror_cfg(cfg, tmp_path, str(tmp_path / "gone"), download=True), schema_path),
             workdir=tmp_path)
    assert g.skip_messages() == [f"data_mirror: the directory '{tmp_path / 'gone'}' does not exist; dataset(s) "
                                 "yeast6 (experiments.e) will be downloaded"]


def test_optional_datasets_name_the_missing_mirror_directory(cfg, schema_path, tmp_path):
    c = _mirror_cfg(cfg, tmp_path, str(tmp_path / "gone"))
    c["experiments"]["e"]["datasets"][1]["optional"] = True
    g = Grid(validate_config(c, schema_path), workdir=tmp_path)
    assert g.skip_messages() == [f"skipped offline: yeast6 (the data_mirror directory {tmp_path / 'gone'} does not "
                                 "exist; set download: true)"]
