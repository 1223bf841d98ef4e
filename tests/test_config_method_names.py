"""Method names must fit the workflow's ``method`` wildcard (letters, digits, _ + -):
the schema rejects others when the config is validated, instead of Snakemake failing
while building the DAG (``tice_tr_1.25`` in config/papers/tice.yaml did)."""

import copy
import re

import pytest
import yaml

from pu_lib.workflow.experiments.config import ConfigError, validate_config


def _wildcard(repo, name):
    text = (repo / "workflow" / "rules" / "common.smk").read_text(encoding="utf-8")
    m = re.search(rf'^\s*{name}=r"([^"]+)"', text, re.M)
    assert m, f"no {name} wildcard constraint in common.smk"
    return m.group(1)


def test_dotted_method_name_is_a_config_error_naming_the_method(repo, schema_path):
    with open(repo / "config" / "config.yaml") as fh:
        cfg = yaml.safe_load(fh)
    cfg = copy.deepcopy(cfg)
    cfg["methods"]["tice_tr_1.25"] = {"method": "tice", "params": {"tr_factor": 1.25}}
    with pytest.raises(ConfigError, match=r"methods: 'tice_tr_1\.25' does not match"):
        validate_config(cfg, schema_path)


def test_shipped_configs_use_method_names_the_wildcard_accepts(repo):
    pattern = re.compile(rf"^{_wildcard(repo, 'method')}$")
    files = sorted((repo / "config").rglob("*.yaml"))
    assert files
    for path in files:
        with open(path) as fh:
            cfg = yaml.safe_load(fh) or {}
        for name in (cfg.get("methods") or {}):
            assert pattern.match(name), f"{path.name}: method name {name!r} does not match the method wildcard"
