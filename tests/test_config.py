import copy

import pytest
import yaml

from pu_lib.workflow.experiments.config import ConfigError, Grid, normalise_dataset_entry, setting_id, validate_config


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
    # 2 datasets x 3 settings x 3 methods + quick_hellinger 1 x 1 x 5 + quick_ada_pu 1 x 1 x 3
    # + quick_sar 1 x 1 x 4 + prior experiments 2 x 3 + 2 x 2
    assert len(cells) == 18 + 5 + 3 + 4 + 6 + 4
    # our flagship in every classifier experiment but the SAR one
    assert sum(c.method == "pu_et" for c in cells) == 6 + 1 + 1
    assert {c.method for c in grid.cells("quick_sar")} == {"sar_em", "sar_true_e", "scar_true_c", "sar_naive"}
    assert grid.staged_metrics("quick_ada_pu") == ["accuracy"]
    hell = cfg["experiments"]["quick_hellinger"]
    assert {"pu_shrf", "pu_hdt", "hdt"} <= set(hell["methods"]) and hell["split"]["refit"] is True
    assert grid.is_prior_experiment("quick_prior_snar") and not grid.is_prior_experiment("quick_uci")
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
         "experiments.quick_uci.methods[3]: unknown method 'svm_magic'"),
        (lambda c: c["methods"]["naive_lr"].update(method="nope"),
         "methods.naive_lr.method: 'nope' is not one of"),
        (lambda c: c["methods"]["naive_lr"].update(base="svm9000"),
         "methods.naive_lr.base: unknown base estimator"),
        (lambda c: c["methods"]["elkan_noto_lr"]["params"].update(bogus=1),
         "methods.elkan_noto_lr.params.bogus"),
        # parameter values are checked against the estimator's declared constraints
        (lambda c: c["methods"]["pu_et"]["params"].update(n_estimators=0),
         "methods.pu_et.params: The 'n_estimators' parameter of PUExtraTreesClassifier must be an int in the "
         "range [1, inf). Got 0 instead."),
        (lambda c: c["methods"]["elkan_noto_lr"]["params"].update(c_estimator="e4"),
         "methods.elkan_noto_lr.params: The 'c_estimator' parameter of ElkanNotoClassifier must be a str among"),
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
    assert a.experiment_hash("quick_sar") == b.experiment_hash("quick_sar")


# ----------------------------------------------------------------- split.predefined, metrics
def test_predefined_false_keeps_hashes_and_params(base_config, schema_path):
    a = Grid(validate_config(base_config, schema_path))
    cfg = copy.deepcopy(base_config)
    cfg["experiments"]["quick_uci"]["split"]["predefined"] = False
    b = Grid(validate_config(cfg, schema_path))
    assert a.config["experiments"]["quick_uci"]["split"]["predefined"] is False  # default filled in
    assert a.experiment_hash("quick_uci") == b.experiment_hash("quick_uci")
    spec = a.label_spec("quick_uci", "digits", "scar_c-c0.3")
    assert "predefined" not in spec["split"]


def test_predefined_split_config(base_config, schema_path):
    cfg = copy.deepcopy(base_config)
    exp = cfg["experiments"]["quick_uci"]
    exp["datasets"] = [{"name": "mnist", "positive": "pu_extra_trees"}, "newsgroups20_svd300"]
    exp["split"] = {"predefined": True, "val_size": 0.1, "test_size": 0.0}  # test_size is ignored
    cfg["download"] = True  # mnist and 20 newsgroups: the check needs no data mirror beside the checkout
    grid = Grid(validate_config(cfg, schema_path))
    spec = grid.label_spec("quick_uci", "mnist-pos_pu_extra_trees", "scar_c-c0.3")
    assert spec["split"]["predefined"] is True
    exp["datasets"].append("digits")
    err = _err(cfg, schema_path)
    assert "experiments.quick_uci.split.predefined: dataset 'digits' (datasets[2]) has no predefined" in err
    assert "mnist" in err and "newsgroups20_bydate" in err  # lists the datasets that have one


def test_new_metric_names_validate(base_config, schema_path):
    cfg = copy.deepcopy(base_config)
    cfg["experiments"]["quick_uci"]["metrics"] = ["train_pu_risk_01", "test_pn_risk_01"]
    assert Grid(validate_config(cfg, schema_path)).metrics("quick_uci") == ["train_pu_risk_01", "test_pn_risk_01"]
    cfg["experiments"]["quick_uci"]["metrics"] = ["train_pu_risk"]
    assert "experiments.quick_uci.metrics[0]" in _err(cfg, schema_path)


# ----------------------------------------------------------------- optional datasets offline
def _optional_config(base_config, tmp_path, *, download=False, optional=True, mirror=None):
    cfg = copy.deepcopy(base_config)
    cfg["download"] = download
    cfg["data_mirror"] = str(mirror) if mirror is not None else None
    cfg["cache_dir"] = str(tmp_path / "cache")
    exp = cfg["experiments"]["quick_uci"]
    entry = {"name": "covtype_binary", "positive": "pu_extra_trees"}
    if optional:
        entry["optional"] = True
    exp["datasets"] = ["breast_cancer", entry]
    cfg["experiments"]["only_download"] = copy.deepcopy(exp)
    cfg["experiments"]["only_download"]["datasets"] = [{"name": "epsilon", "optional": True}]
    return cfg


def test_optional_dataset_is_skipped_offline(base_config, schema_path, tmp_path):
    cfg = validate_config(_optional_config(base_config, tmp_path), schema_path)
    grid = Grid(cfg, workdir=tmp_path)
    assert list(grid.experiments["quick_uci"]["datasets"]) == ["breast_cancer"]
    assert "only_download" not in grid.experiments  # nothing left: the experiment is dropped
    assert grid.skip_messages() == [
        "skipped offline: covtype_binary (no mirror copy; set download: true)",
        "skipped offline: epsilon (no mirror copy; set download: true)",
        "skipped offline: experiment only_download (none of its datasets is available offline)",
    ]
    assert all(c.dataset == "breast_cancer" for c in grid.cells("quick_uci"))
    assert grid.file_datasets() == ["breast_cancer", "digits"]   # digits: quick_hellinger
    # the config hash describes the config, not what was available
    online = Grid(validate_config(_optional_config(base_config, tmp_path, download=True), schema_path),
                  workdir=tmp_path)
    assert online.experiment_hash("quick_uci") == grid.experiment_hash("quick_uci")


def test_optional_dataset_kept_when_online_prepared_or_not_optional(base_config, schema_path, tmp_path):
    def grid_for(**kw):
        return Grid(validate_config(_optional_config(base_config, tmp_path, **kw), schema_path), workdir=tmp_path)

    g = grid_for(download=True)
    assert "covtype_binary-pos_pu_extra_trees" in g.experiments["quick_uci"]["datasets"] and not g.skipped
    # without optional: true it stays in (and fails in its dataset job, as before)
    g = grid_for(optional=False)
    assert "covtype_binary-pos_pu_extra_trees" in g.experiments["quick_uci"]["datasets"]
    # already prepared by an earlier online run (the workflow's results/data) ...
    prepared = tmp_path / "results" / "data" / "covtype_binary.parquet"
    prepared.parent.mkdir(parents=True)
    prepared.write_bytes(b"placeholder")
    assert "covtype_binary-pos_pu_extra_trees" in grid_for().experiments["quick_uci"]["datasets"]
    prepared.unlink()
    # ... or in the cache of canonical tables
    cached = tmp_path / "cache" / "canonical" / "epsilon.parquet"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"placeholder")
    g = grid_for()
    assert "only_download" in g.experiments
    assert g.skip_messages() == ["skipped offline: covtype_binary (no mirror copy; set download: true)"]


def test_optional_mirror_dataset_without_mirror(base_config, schema_path, tmp_path):
    cfg = copy.deepcopy(base_config)
    cfg["experiments"]["quick_uci"]["datasets"] = ["digits", {"name": "mushrooms_libsvm", "optional": True}]
    grid = Grid(validate_config(cfg, schema_path), workdir=tmp_path)  # the default ../shared/datasets: not here
    assert grid.skip_messages() == [f"skipped offline: mushrooms_libsvm (the data_mirror directory "
                                    f"{tmp_path / '../shared/datasets'} does not exist; set download: true)"]
    cfg["data_mirror"] = None
    grid = Grid(validate_config(cfg, schema_path), workdir=tmp_path)
    assert grid.skip_messages() == ["skipped offline: mushrooms_libsvm (no data_mirror configured; set download: true)"]
    cfg["data_mirror"] = str(tmp_path)  # a mirror directory without the file
    grid = Grid(validate_config(cfg, schema_path), workdir=tmp_path)
    assert grid.skip_messages() == [
        f"skipped offline: mushrooms_libsvm (not in the mirror {tmp_path}; set download: true)"
    ]
    (tmp_path / "mushroom.parquet").write_bytes(b"x")  # present (content is checked by its job)
    assert Grid(validate_config(cfg, schema_path), workdir=tmp_path).skipped == []


def test_prior_experiments_are_checked(base_config, schema_path):
    import copy

    cfg = copy.deepcopy(base_config)
    cfg["experiments"]["quick_prior_scar"]["methods"] = ["pulscar", "naive_lr"]
    with pytest.raises(ConfigError, match="mixes prior estimators"):
        validate_config(cfg, schema_path)
    cfg = copy.deepcopy(base_config)
    cfg["experiments"]["quick_prior_scar"]["metrics"] = ["f1"]
    with pytest.raises(ConfigError, match=r"metrics\[0\]: 'f1' is not a class-prior metric"):
        validate_config(cfg, schema_path)
    cfg = copy.deepcopy(base_config)
    cfg["methods"]["naive_lr"] = {"method": "pu_decision_tree", "params": {"prior": "tice"}}
    validate_config(cfg, schema_path)  # a prior-estimator name is a valid prior
    cfg["methods"]["naive_lr"]["params"]["prior"] = "ticee"
    with pytest.raises(ConfigError, match="params.prior: must be true"):
        validate_config(cfg, schema_path)
    cfg = copy.deepcopy(base_config)
    cfg["experiments"]["quick_prior_scar"]["settings"] = [{"mechanism": "pulsnar_alpha", "alpha": 1.0}]
    with pytest.raises(ConfigError, match="alpha"):
        validate_config(cfg, schema_path)


# ----------------------------------------------------------------- dataset scale / extend, sar k = 0
def test_dataset_entry_scale_and_extend_ids():
    plain = normalise_dataset_entry({"name": "breast_cancer"})
    assert "scale" not in plain and "extend" not in plain  # absent keys stay absent (specs, hashes)
    e = normalise_dataset_entry({"name": "breast_cancer", "scale": "minus1_1"})
    assert e["id"] == "breast_cancer-scaled" and e["scale"] == "minus1_1" and "extend" not in e
    e = normalise_dataset_entry({"name": "breast_cancer", "extend": {}})
    assert e["id"] == "breast_cancer-ext5c5n" and e["extend"] == {"n_correlated": 5, "n_noise": 5, "flip": 0.3}
    e = normalise_dataset_entry({"name": "digits", "positive": "pu_extra_trees", "scale": "minus1_1",
                                 "extend": {"n_correlated": 2, "n_noise": 0, "flip": 0.1}})
    assert e["id"] == "digits-pos_pu_extra_trees-scaled-ext2c0nf0p1"
    assert e["extend"] == {"n_correlated": 2, "n_noise": 0, "flip": 0.1}
    e = normalise_dataset_entry({"name": "pulsnar_snar", "params": {"frac": 0.2}, "extend": {"flip": 0.25}})
    assert e["id"] == "pulsnar_snar-frac0.2-ext5c5nf0p25"
    e = normalise_dataset_entry({"name": "breast_cancer", "id": "bc_thesis", "scale": "minus1_1", "extend": {}})
    assert e["id"] == "bc_thesis" and e["scale"] == "minus1_1"  # an explicit id is kept
    e = normalise_dataset_entry({"name": "mice_protein", "positive": "pulsnar", "missing": "zero"})
    assert e["id"] == "mice_protein-pos_pulsnar-na_zero" and e["missing"] == "zero"
    e = normalise_dataset_entry({"name": "mice_protein", "missing": "drop"})
    assert e["id"] == "mice_protein" and e["missing"] == "drop"  # the default adds nothing to the id
    assert "missing" not in normalise_dataset_entry({"name": "mice_protein"})
    ids = [normalise_dataset_entry({"name": "breast_cancer", "scale": "minus1_1", "extend": {"flip": f}})["id"]
           for f in (0.0, 0.3, 0.5)]
    assert len(set(ids)) == 3 and all("." not in i for i in ids)


def test_dataset_scale_and_extend_config(base_config, schema_path):
    a = Grid(validate_config(base_config, schema_path))
    cfg = copy.deepcopy(base_config)
    exp = cfg["experiments"]["quick_uci"]
    exp["datasets"] += [{"name": "breast_cancer", "scale": "minus1_1"},
                        {"name": "breast_cancer", "scale": "minus1_1", "extend": {"n_noise": 3}}]
    grid = Grid(validate_config(cfg, schema_path))
    assert list(grid.experiments["quick_uci"]["datasets"]) == [
        "breast_cancer", "digits", "breast_cancer-scaled", "breast_cancer-scaled-ext5c3n"]
    spec = grid.label_spec("quick_uci", "breast_cancer-scaled-ext5c3n", "scar_c-c0.3")
    assert spec["dataset"]["extend"] == {"n_correlated": 5, "n_noise": 3, "flip": 0.3}
    assert spec["dataset"]["scale"] == "minus1_1"
    # entries without the keys keep their specs; other experiments keep their hashes
    assert grid.label_spec("quick_uci", "breast_cancer", "scar_c-c0.3") == \
        a.label_spec("quick_uci", "breast_cancer", "scar_c-c0.3")
    assert grid.experiment_hash("quick_sar") == a.experiment_hash("quick_sar")
    assert grid.experiment_hash("quick_uci") != a.experiment_hash("quick_uci")
    for entry, expected in (
        ({"name": "breast_cancer", "scale": "zscore"}, "datasets[2].scale"),
        ({"name": "breast_cancer", "extend": {"flip": 0.7}}, "datasets[2].extend.flip"),
        ({"name": "breast_cancer", "extend": {"n_noise": -1}}, "datasets[2].extend.n_noise"),
        ({"name": "breast_cancer", "extend": {"noise": 1}}, "datasets[2].extend: Additional properties"),
        ({"name": "breast_cancer", "missing": "mean"}, "datasets[2].missing"),
    ):
        bad = copy.deepcopy(base_config)
        bad["experiments"]["quick_uci"]["datasets"].append(entry)
        assert f"experiments.quick_uci.{expected}" in _err(bad, schema_path)


def test_sar_settings_k0_and_anticorrelated_validate(base_config, schema_path):
    cfg = copy.deepcopy(base_config)
    cfg["experiments"]["quick_uci"]["settings"] += [{"mechanism": "sar", "k": 0},
                                                    {"mechanism": "sar", "k": 2, "selection": "anticorrelated"}]
    grid = Grid(validate_config(cfg, schema_path))
    assert {"sar-k0", "sar-k2-selectionanticorrelated"} <= set(grid.experiments["quick_uci"]["settings"])
    cfg["experiments"]["quick_uci"]["settings"].append({"mechanism": "sar", "k": -1})
    assert "experiments.quick_uci.settings[5].k" in _err(cfg, schema_path)


def test_target_sweeps_must_name_sweeps_of_its_experiments(repo, schema_path):
    """The per-figure targets of the SAR config validate; a target naming an unknown sweep
    is a config error naming it."""
    import yaml

    base = yaml.safe_load((repo / "config" / "config.yaml").read_text())
    paper = yaml.safe_load((repo / "config" / "papers" / "bekker_sar.yaml").read_text())
    cfg = {**base, **paper, "methods": {**base["methods"], **paper["methods"]},
           "experiments": {**base["experiments"], **paper["experiments"]}}
    out = validate_config(cfg, schema_path)
    assert out["targets"]["bekker_sar_figure_5_8"]["sweeps"] == ["figure_5_7_5_8"]
    cfg["targets"] = {"bad": {"experiments": ["bekker_sar"], "sweeps": ["figure_9_9"]}}
    assert "targets.bad.sweeps[0]" in _err(cfg, schema_path)


def test_prior_evaluation_outputs_need_a_pulscar_or_pulsnar_method(base_config, schema_path):
    """Calibration figures and classification tables come from PULSCAR / PULSNAR rows only;
    an experiment narrowed to other estimators (a paper config's methods overridden to the
    comparators) asks for none, instead of failing in the report rule."""
    grid = Grid(validate_config(base_config, schema_path))
    assert grid.prior_evaluation_kinds("quick_prior_scar") == ["calibration", "classification"]
    assert grid.prior_evaluation_kinds("quick_prior_snar") == ["calibration"]
    assert grid.prior_evaluation_kinds("quick_uci") == []
    cfg = copy.deepcopy(base_config)
    cfg["experiments"]["quick_prior_scar"]["methods"] = ["tice", "elkan_noto_prior"]
    grid = Grid(validate_config(cfg, schema_path))
    assert grid.prior_evaluation_kinds("quick_prior_scar") == []
    cfg["methods"]["pulscar_rice"] = {"method": "pulscar", "params": {"bin_rule": "rice"}}
    cfg["experiments"]["quick_prior_scar"]["methods"] = ["tice", "pulscar_rice"]
    grid = Grid(validate_config(cfg, schema_path))
    assert grid.prior_evaluation_kinds("quick_prior_scar") == ["calibration", "classification"]


def test_pulsnar_overrides_merge_like_snakemake(repo, schema_path):
    """config/papers/pulsnar.yaml + pulsnar_reduced.yaml (+ pulsnar_no_km.yaml), merged as
    Snakemake merges --configfile files: without KM every experiment keeps its other
    methods in their order and their method hashes (the two runs share result files),
    and Figure 4's Mice Protein keeps every row (missing: zero)."""
    from pu_lib.workflow.experiments.config import merge_config_files

    def merged(*names):
        cfg = merge_config_files([repo / "config" / "papers" / name for name in names],
                                 defaults=repo / "config" / "config.yaml")
        cfg["download"] = True  # the mirror's data sets: the check needs no mirror beside the checkout
        return Grid(validate_config(cfg, schema_path))

    reduced = merged("pulsnar.yaml", "pulsnar_reduced.yaml")
    no_km = merged("pulsnar.yaml", "pulsnar_reduced.yaml", "pulsnar_no_km.yaml")
    changed = 0
    for name, exp in reduced.experiments.items():
        methods = no_km.experiments[name]["exp"]["methods"]
        assert methods == [m for m in exp["exp"]["methods"] if m not in ("km1", "km2")], name
        changed += methods != exp["exp"]["methods"]
        assert all(no_km.method_hash(name, m) == reduced.method_hash(name, m) for m in methods), name
    assert changed == 16  # 14 + the download-only KDD Cup and smartphone experiments
    assert list(no_km.experiments["pulsnar_scar_mice"]["datasets"]) == ["mice_protein-pos_pulsnar-na_zero"]
    assert no_km.experiments["pulsnar_snar_dry_bean"]["exp"]["repetitions"] == 5


def _merged(repo, *names, download=None):
    """config/config.yaml with ``names`` (under config/) merged over it as Snakemake merges
    --configfile files (mappings key by key, lists replaced); ``download=True`` for a check
    of a config's shape that needs no data mirror beside the checkout (no data are read)."""
    from pu_lib.workflow.experiments.config import merge_config_files

    cfg = merge_config_files([repo / "config" / name for name in names], defaults=repo / "config" / "config.yaml")
    if download is not None:
        cfg["download"] = download
    return cfg


def test_bekker_sar_reduced_is_an_overlay_on_the_full_config(repo, schema_path):
    """bekker_sar_reduced.yaml holds only what differs: after bekker_sar.yaml, the full
    config's targets, seed, methods' specs and protocol (split, metrics, report layout)
    hold, with 3 repetitions and fewer data sets, settings and methods."""
    overlay = yaml.safe_load((repo / "config" / "papers" / "bekker_sar_reduced.yaml").read_text())
    assert set(overlay) == {"experiments", "scorecard_reduced"}  # its cells marked reduced in the scorecard
    full = Grid(validate_config(_merged(repo, "papers/bekker_sar.yaml", download=True), schema_path))
    reduced_cfg = validate_config(
        _merged(repo, "papers/bekker_sar.yaml", "papers/bekker_sar_reduced.yaml", download=True), schema_path)
    reduced = Grid(reduced_cfg)
    assert reduced_cfg["targets"] == full.config["targets"] and reduced_cfg["seed"] == full.config["seed"]
    for name in ("bekker_sar", "bekker_sar_bias"):
        f, r = full.experiments[name], reduced.experiments[name]
        assert r["exp"]["repetitions"] == 3
        assert set(r["datasets"]) < set(f["datasets"]) and set(r["settings"]) <= set(f["settings"])
        assert set(r["exp"]["methods"]) <= set(f["exp"]["methods"])
        for key in ("split", "metrics", "paper", "paper_table"):
            assert r["exp"][key] == f["exp"][key], (name, key)
        assert reduced.groupings(name) == full.groupings(name)
        assert all(reduced_cfg["methods"][m] == full.config["methods"][m] for m in r["exp"]["methods"])
        assert r["exp"]["report"]["sweeps"].keys() == f["exp"]["report"]["sweeps"].keys()


def test_data_mirror_is_set_once_in_the_default_config(repo, schema_path, tmp_path):
    """data_mirror has one default, in config/config.yaml; no other shipped config repeats
    it. The default experiments need no mirror: in a working directory where the default
    path does not exist, the config validates and its grid builds without a warning."""
    files = sorted((repo / "config").rglob("*.yaml"))
    setters = [p.relative_to(repo).as_posix() for p in files
               if "data_mirror" in (yaml.safe_load(p.read_text()) or {})]
    assert setters == ["config/config.yaml"]
    cfg = validate_config(_merged(repo), schema_path)
    assert cfg["data_mirror"] == "../shared/datasets"
    assert not (tmp_path / cfg["data_mirror"]).exists()
    grid = Grid(cfg, workdir=tmp_path)
    assert grid.skip_messages() == [] and set(grid.experiments) == set(cfg["experiments"])


def test_the_default_threshold_rule_leaves_the_split_hash_as_before():
    from pu_lib.workflow.experiments.config import _split_spec

    base = {"test_size": 0.3, "val_size": 0.2, "evaluate_on": "test"}
    assert _split_spec({**base, "threshold_rule": "midpoint"}) == base
    assert _split_spec({**base, "threshold_rule": "grid"}) == {**base, "threshold_rule": "grid"}
