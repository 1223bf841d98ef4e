import copy

import pytest
import yaml

from pu_lib.config import ConfigError, Grid, normalise_dataset_entry, setting_id, validate_config


@pytest.fixture()
def base_config(repo):
    with open(repo / "config" / "config.yaml") as fh:
        return yaml.safe_load(fh)


def test_default_config_validates_and_fills_defaults(base_config, schema_path):
    cfg = validate_config(base_config, schema_path)
    assert cfg["download"] is False
    assert cfg["methods"]["naive_lr"]["params"] == {}
    exp = cfg["experiments"]["quick_uci"]
    assert exp["split"]["max_samples"] is None
    assert exp["split"]["evaluate_on"] == "test"
    grid = Grid(cfg)
    cells = list(grid.cells())
    # 2 datasets x 3 settings x 2 methods + 2 x (1 x 1 x 2)
    assert len(cells) == 12 + 2 + 2
    assert grid.file_datasets() == ["breast_cancer", "digits"]


def _err(cfg, schema_path):
    with pytest.raises(ConfigError) as exc:
        validate_config(cfg, schema_path)
    return str(exc.value)


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda c: c["experiments"]["quick_uci"]["settings"][0].update(c=1.5),
         "experiments.quick_uci.settings[0].c"),
        (lambda c: c["experiments"]["quick_uci"]["settings"][0].update(c=0.0),
         "experiments.quick_uci.settings[0].c"),
        (lambda c: c["experiments"]["quick_uci"]["settings"].append({"mechanism": "scar_flip", "flip_ratio": 1.0}),
         "experiments.quick_uci.settings[3].flip_ratio"),
        (lambda c: c["experiments"]["quick_uci"]["datasets"].append("no_such_set"),
         "experiments.quick_uci.datasets[2]: unknown dataset 'no_such_set'"),
        (lambda c: c["experiments"]["quick_uci"]["methods"].append("svm_magic"),
         "experiments.quick_uci.methods[2]: unknown method 'svm_magic'"),
        (lambda c: c["methods"]["naive_lr"].update(method="nope"),
         "methods.naive_lr: method: unknown method 'nope'"),
        (lambda c: c["methods"]["naive_lr"].update(base="svm9000"),
         "methods.naive_lr: base: unknown base estimator"),
        (lambda c: c["methods"]["elkan_noto_lr"]["params"].update(bogus=1),
         "methods.elkan_noto_lr: params.bogus"),
        (lambda c: c["experiments"]["quick_uci"]["settings"].append({"mechanism": "teleport"}),
         "experiments.quick_uci.settings[3].mechanism"),
        (lambda c: c.update(sed=1), "<root>: Additional properties are not allowed ('sed'"),
        (lambda c: c["experiments"]["quick_uci"].update(repetitions=0),
         "experiments.quick_uci.repetitions"),
        (lambda c: c["experiments"]["quick_uci"]["datasets"].append({"name": "pulsnar_scar", "params": {"frac": 1.2}}),
         "experiments.quick_uci.datasets[2].params.frac"),
        (lambda c: c["experiments"]["quick_uci"]["datasets"].append({"name": "digits", "positive": "nonsense"}),
         "experiments.quick_uci.datasets[2].positive"),
        (lambda c: c["experiments"]["quick_uci"]["split"].update(test_size=0.0),
         "experiments.quick_uci.split.test_size"),
    ],
)
def test_bad_config_names_the_field(base_config, schema_path, mutate, expected):
    cfg = copy.deepcopy(base_config)
    mutate(cfg)
    assert expected in _err(cfg, schema_path)


def test_setting_and_dataset_ids():
    assert setting_id({"mechanism": "scar_c", "c": 0.5}) == "scar_c-c0.5"
    assert setting_id({"mechanism": "sar", "k": 2, "selection": "random"}) == "sar-k2-selectionrandom"
    assert setting_id({"mechanism": "scar_c", "c": 0.5, "id": "half"}) == "half"
    assert normalise_dataset_entry("digits")["id"] == "digits"
    e = normalise_dataset_entry({"name": "pulsnar_snar", "params": {"frac": 0.2}})
    assert e["id"] == "pulsnar_snar-frac0.2" and e["positive"] == "default"


def test_config_hash_changes_with_experiment_only(base_config, schema_path):
    a = Grid(validate_config(base_config, schema_path))
    cfg = copy.deepcopy(base_config)
    cfg["experiments"]["quick_uci"]["repetitions"] = 7
    b = Grid(validate_config(cfg, schema_path))
    assert a.experiment_hash("quick_uci") != b.experiment_hash("quick_uci")
    assert a.experiment_hash("quick_pulsnar_scar") == b.experiment_hash("quick_pulsnar_scar")
