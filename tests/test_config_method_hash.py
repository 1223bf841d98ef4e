"""Per-method config hashes: a fit's params depend on its own method's spec, never on the
other methods of the experiment (changing one method's parameters reruns that method only)."""

import copy

import pytest
import yaml

from pu_lib.workflow.experiments.config import Cell, Grid, validate_config


@pytest.fixture()
def cfg(repo):
    with open(repo / "config" / "config.yaml") as fh:
        return yaml.safe_load(fh)


def _grid(cfg, schema_path):
    return Grid(validate_config(copy.deepcopy(cfg), schema_path))


def _fit_params(grid, experiment):
    return {c: (grid.fit_spec(c), grid.fit_code_hash(c)) for c in grid.cells(experiment)}


def test_changing_one_methods_params_changes_only_its_cells(cfg, schema_path):
    a = _grid(cfg, schema_path)
    exp = a.experiments["quick_uci"]["exp"]
    target = exp["methods"][0]
    changed = copy.deepcopy(cfg)
    # a spec field every method has (its parameters differ by method)
    assert a.config["methods"][target].get("fit_errors", "raise") == "raise"
    changed["methods"][target]["fit_errors"] = "record"
    b = _grid(changed, schema_path)
    pa, pb = _fit_params(a, "quick_uci"), _fit_params(b, "quick_uci")
    assert pa.keys() == pb.keys()
    differ = {c for c in pa if pa[c] != pb[c]}
    assert differ and {c.method for c in differ} == {target}
    assert all(pa[c][1] == pb[c][1] for c in pa)  # same code
    assert a.method_hash("quick_uci", target) != b.method_hash("quick_uci", target)
    others = [m for m in exp["methods"] if m != target]
    assert all(a.method_hash("quick_uci", m) == b.method_hash("quick_uci", m) for m in others)
    assert a.experiment_hash("quick_uci") != b.experiment_hash("quick_uci")  # the reports' hash


def test_method_list_datasets_and_metrics_do_not_enter_the_method_hash(cfg, schema_path):
    a = _grid(cfg, schema_path)
    changed = copy.deepcopy(cfg)
    exp = changed["experiments"]["quick_uci"]
    dropped = exp["methods"].pop()
    exp["metrics"] = list(reversed(exp.get("metrics") or ["f1"]))[:1]
    exp["datasets"] = exp["datasets"][:1]
    exp["description"] = "another text"
    b = _grid(changed, schema_path)
    kept = [c for c in b.cells("quick_uci")]
    assert kept and all(c.method != dropped for c in kept)
    for c in kept:
        assert a.fit_spec(c) == b.fit_spec(c)
    # what changes a fit does change the hash
    for key, value in (("repetitions", 9), ("split", {"test_size": 0.4})):
        other = copy.deepcopy(cfg)
        other["experiments"]["quick_uci"][key] = value
        g = _grid(other, schema_path)
        m = kept[0].method
        assert g.method_hash("quick_uci", m) != a.method_hash("quick_uci", m), key
    seed = copy.deepcopy(cfg)
    seed["seed"] = cfg.get("seed", 0) + 1
    assert _grid(seed, schema_path).method_hash("quick_uci", kept[0].method) != \
        a.method_hash("quick_uci", kept[0].method)


def test_fit_spec_carries_the_method_hash(cfg, schema_path):
    g = _grid(cfg, schema_path)
    c = next(iter(g.cells("quick_uci")))
    spec = g.fit_spec(c)
    assert spec["config_hash"] == g.method_hash(c.experiment, c.method) and len(spec["config_hash"]) == 16
    assert len(g.fit_code_hash(Cell(c.experiment, c.dataset, c.setting, c.method))) == 16
