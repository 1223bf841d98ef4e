"""A method spec's ``select`` block: parameters chosen per repetition by PU cross-validation
on the training rows' ``(X, s)`` (pu_lib.workflow.experiments.methods.select_params, the runner's
select_for_repetition), its config checks and its result columns."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from estimator_doubles import LogisticOnS

from pu_lib.workflow import registry
from pu_lib.datasets import prepare_dataset
from pu_lib.workflow.experiments.config import ConfigError, Grid, validate_config
from pu_lib.workflow.experiments.methods import make_method, select_params
from pu_lib.workflow.experiments.runner import (RepetitionData, apply_dataset_selection, build_tasks, fit_eval,
                                               make_label_sets, run_repetition, select_for_repetition,
                                               write_label_sets)
from pu_lib.model_selection import PU_SCORERS, PUStratifiedKFold, make_pu_scorer


# --------------------------------------------------------------------------- helpers
def _pu_data(seed: int = 0, n: int = 200):
    """Two Gaussians in 3 dimensions (class means 0 and 1.5), half positive, 40% of the
    positives labeled (SCAR)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.5).astype(np.int8)
    X = rng.normal(size=(n, 3)) + 1.5 * y[:, None]
    s = ((y == 1) & (rng.random(n) < 0.4)).astype(np.int8)
    return X, y, s


TREES = {"method": "pu_extra_trees", "params": {"prior": 0.5, "n_estimators": 5},
         "select": {"grid": {"max_depth": [1, 2, None]}, "scorer": "nnpu_risk", "cv": 3}}


def _without_seconds(columns: dict) -> dict:
    return {k: v for k, v in columns.items() if k != "selection_seconds"}


class SpyLogReg(LogisticOnS):
    """Logistic regression on ``s`` that records every matrix it is fitted on (in the
    class-level list ``seen``: clones share it)."""

    seen: list = []

    def __init__(self, C=1.0, prior=None, random_state=None):
        self.C = C
        self.prior = prior
        self.random_state = random_state

    def fit(self, X, s):
        from sklearn.linear_model import LogisticRegression

        SpyLogReg.seen.append(np.asarray(X).copy())
        return self._fit_on_s(LogisticRegression(C=self.C, max_iter=500), X, s)


@pytest.fixture()
def spy(monkeypatch):
    monkeypatch.setitem(registry.METHODS, "test_spy_lr",
                        registry.Method(f"{__name__}:SpyLogReg", "classifier", "test estimator", "tests"))
    SpyLogReg.seen.clear()
    yield SpyLogReg
    SpyLogReg.seen.clear()


@pytest.fixture(scope="module")
def bc_path(tmp_path_factory):
    d = tmp_path_factory.mktemp("bc")
    return str(prepare_dataset("breast_cancer", d / "breast_cancer.parquet", cache_dir=d / "cache"))


def _config(methods: dict, split: dict | None = None, repetitions: int = 2) -> dict:
    return {
        "seed": 11,
        "methods": methods,
        "experiments": {"e": {
            "datasets": ["breast_cancer"],
            "settings": [{"mechanism": "case_control", "n_labeled": 60}],
            "split": split or {"test_size": 0.3},
            "methods": list(methods),
            "repetitions": repetitions,
            "metrics": ["f1"],
        }},
    }


# --------------------------------------------------------------------------- select_params
def test_select_params_scores_every_point_on_pu_folds_and_returns_the_best_unfitted():
    X, _, s = _pu_data()
    est = make_method(TREES, random_state=7, n_jobs=1)
    chosen, cols = select_params(est, TREES["select"], X, s, prior=0.5, random_state=7)
    scores = json.loads(cols["selection_scores"])
    assert [p["params"] for p in scores] == [{"max_depth": 1}, {"max_depth": 2}, {"max_depth": None}]
    # each point's mean: the nnPU risk scorer on the held-out folds of PUStratifiedKFold(3, seed 7)
    scorer = make_pu_scorer("nnpu_risk", prior=0.5)
    folds = list(PUStratifiedKFold(3, random_state=7).split(X, s))
    for point in scores:
        by_hand = [scorer(clone(est).set_params(**point["params"]).fit(X[tr], s[tr]), X[te], s[te])
                   for tr, te in folds]
        assert point["mean"] == pytest.approx(np.mean(by_hand), abs=1e-12)
        assert point["std"] == pytest.approx(np.std(by_hand), abs=1e-12)
    best = max(scores, key=lambda p: p["mean"])["params"]
    assert json.loads(cols["selected_params"]) == best
    assert chosen.get_params()["max_depth"] == best["max_depth"]
    assert chosen.get_params()["n_estimators"] == 5 and chosen.get_params()["random_state"] == 7
    with pytest.raises(NotFittedError):
        check_is_fitted(chosen)
    assert cols["selection_scorer"] == "nnpu_risk" and cols["selection_prior"] == 0.5
    assert cols["selection_cv"] == 3 and cols["selection_seconds"] >= 0


def test_the_same_seed_gives_the_same_choice_and_another_seed_other_folds():
    X, _, s = _pu_data(1)
    runs = [select_params(make_method(TREES, random_state=seed, n_jobs=1), TREES["select"], X, s, prior=0.5,
                          random_state=seed)[1] for seed in (3, 3, 4)]
    assert _without_seconds(runs[0]) == _without_seconds(runs[1])
    assert runs[0]["selection_scores"] != runs[2]["selection_scores"]


def test_a_scorer_without_a_prior_gets_none():
    X, _, s = _pu_data(2)
    spec = {"method": "pu_weighted_lr", "select": {"grid": {"C": [0.01, 100.0]}, "scorer": "lee_liu"}}
    chosen, cols = select_params(make_method(spec, random_state=0), spec["select"], X, s, prior=0.4,
                                 random_state=0)
    assert math.isnan(cols["selection_prior"]) and cols["selection_cv"] == 3
    assert json.loads(cols["selected_params"])["C"] == chosen.get_params()["C"]


def test_too_few_labeled_rows_for_the_folds_is_a_value_error():
    X, _, s = _pu_data(3)
    s = np.zeros_like(s)
    s[:2] = 1
    with pytest.raises(ValueError, match="PUStratifiedKFold needs at least"):
        select_params(make_method(TREES, random_state=0), TREES["select"], X, s, prior=0.5, random_state=0)


# --------------------------------------------------------------------------- no true class
def _cell(X, y, s, seed=0):
    n = X.shape[0]
    rng = np.random.default_rng(seed)
    split = np.where(rng.random(n) < 0.25, "test", "train")
    return RepetitionData(X=X, rows=np.arange(n), split=split, s=s, y=y, propensity=None, tr=split == "train")


def test_the_selection_reads_no_true_class_and_no_test_row(spy):
    """The same (X, s) with the true classes, all zeros or random classes gives the same
    choice and scores; every fit of the selection sees training rows only."""
    X, y, s = _pu_data(4)
    spec = {"method": "test_spy_lr", "params": {"prior": 0.4},
            "select": {"grid": {"C": [0.001, 0.1, 10.0]}, "scorer": "nnpu_risk", "cv": 3}}
    results = []
    for fake in (y, np.zeros_like(y), np.random.default_rng(9).integers(0, 2, y.shape[0]).astype(np.int8)):
        cell = _cell(X, fake, s)
        est = make_method(spec, random_state=5)
        spy.seen.clear()
        chosen, cols = select_for_repetition(est, spec, cell, {}, prior_given=0.4, seed=5)
        results.append(_without_seconds(cols))
        train = {row.tobytes() for row in cell.X_tr}
        assert len(spy.seen) == 3 * 3  # points x folds, no refit inside
        assert all(row.tobytes() in train for fit_X in spy.seen for row in fit_X)
        assert all(fit_X.shape[0] < cell.X_tr.shape[0] for fit_X in spy.seen)
    assert results[0] == results[1] == results[2]


def test_an_oracles_true_classes_are_refused_at_run_time():
    X, y, s = _pu_data(5)
    spec = {"method": "pu_weighted_lr", "select": {"grid": {"C": [1.0]}, "scorer": "lee_liu"}}
    with pytest.raises(ValueError, match="true classes"):
        select_for_repetition(make_method(spec), spec, _cell(X, y, s), {"y_true": y}, None, 0)


# --------------------------------------------------------------------------- the workflow
def test_workflow_rows_carry_the_choice_and_fits_see_training_rows_only(spy, schema_path, bc_path):
    methods = {
        "spy": {"method": "test_spy_lr", "select": {"grid": {"C": [0.001, 1.0]}, "scorer": "pu_auc", "cv": 3}},
        "pet": {"method": "pu_extra_trees", "params": {"prior": True, "n_estimators": 5},
                "select": {"grid": {"max_depth": [1, 3]}, "scorer": "nnpu_risk"}},
        "plain": {"method": "pu_extra_trees", "params": {"prior": True, "n_estimators": 5}},
    }
    cfg = validate_config(_config(methods), schema_path)
    assert cfg["methods"]["pet"]["select"] == {"grid": {"max_depth": [1, 3]}, "scorer": "nnpu_risk", "cv": 3,
                                               "refit": True}
    assert "select" not in cfg["methods"]["plain"]
    grid = Grid(cfg)

    def run_all():
        rows = []
        for cell in grid.cells():
            spec = grid.fit_spec(cell)
            labels = make_label_sets(spec, bc_path)
            for task in build_tasks(spec, bc_path, labels):
                spy.seen.clear()
                rows.append(run_repetition(task))
                if cell.method == "spy":
                    n_train = int((task["labels"]["split"] == "train").sum())
                    sizes = sorted(fit_X.shape[0] for fit_X in spy.seen)
                    # 2 points x 3 folds on parts of the training rows, then the refit on all of them
                    assert len(sizes) == 2 * 3 + 1 and sizes[-1] == n_train and sizes[-2] < n_train
                    refit_rows = {row.tobytes() for row in spy.seen[-1]}
                    assert all(row.tobytes() in refit_rows for fit_X in spy.seen[:-1] for row in fit_X)
        return pd.DataFrame(rows)

    df = run_all()
    for method, values in (("spy", [0.001, 1.0]), ("pet", [1, 3])):
        part = df[df["method"] == method]
        assert len(part) == 2
        for _, row in part.iterrows():
            chosen = json.loads(row["selected_params"])
            assert list(chosen) == list(methods[method]["select"]["grid"]) and list(chosen.values())[0] in values
            scores = json.loads(row["selection_scores"])
            assert len(scores) == 2 and all(np.isfinite(p["mean"]) for p in scores)
            assert chosen == max(scores, key=lambda p: p["mean"])["params"]
            assert np.isfinite(row["f1"])
    pet = df[df["method"] == "pet"]
    # the scorer gets the prior the method gets: the true prior of the training rows
    assert np.allclose(pet["selection_prior"], pet["prior_given"])
    assert np.allclose(pet["prior_given"], pet["prior_true"])
    assert df[df["method"] == "plain"]["selected_params"].isna().all()
    # the same config and seed choose the same again
    again = run_all()
    cols = ["method", "rep", "selected_params", "selection_scores", "f1"]
    pd.testing.assert_frame_equal(df[cols], again[cols])


def test_scope_dataset_chooses_once_on_the_first_repetition_and_every_repetition_uses_it(spy, schema_path,
                                                                                         bc_path, tmp_path):
    """scope: dataset makes the choice that scope repetition makes in repetition 0 (same
    folds, same seed), before any repetition runs, on repetition 0's training rows only;
    every repetition is then fitted once, with that point, and records it."""
    select = {"grid": {"C": [0.001, 1.0]}, "scorer": "pu_auc", "cv": 3}
    per_rep = Grid(validate_config(_config({"spy": {"method": "test_spy_lr", "select": select}}), schema_path))
    once = Grid(validate_config(_config({"spy": {"method": "test_spy_lr", "select": {**select, "scope": "dataset"}}}),
                                schema_path))
    assert per_rep.method_hash("e", "spy") != once.method_hash("e", "spy")
    cell = next(once.cells())
    spec = once.fit_spec(cell)
    labels = write_label_sets(spec, bc_path, str(tmp_path / "labels.parquet"))
    train0 = {row.tobytes() for row in _training_rows(spec, bc_path, labels, 0)}
    spy.seen.clear()
    df = fit_eval(spec, bc_path, str(tmp_path / "labels.parquet"), progress=False)
    sizes = [fit_X.shape[0] for fit_X in spy.seen]
    # 2 points x 3 folds on parts of repetition 0's training rows, then one fit per repetition
    assert len(sizes) == 2 * 3 + 2 and max(sizes[:6]) < len(train0)
    assert all(row.tobytes() in train0 for fit_X in spy.seen[:6] for row in fit_X)
    assert list(df["rep"]) == [0, 1]
    assert (df["selection_scope"] == "dataset").all() and (df["selection_rep"] == 0).all()
    assert df["selected_params"].nunique() == 1 and df["selection_scores"].nunique() == 1
    # the choice is scope repetition's choice in repetition 0
    ref = run_repetition(build_tasks(per_rep.fit_spec(next(per_rep.cells())), bc_path, labels)[0])
    assert ref["selection_scope"] == "repetition" and ref["selection_rep"] == 0
    assert (ref["selected_params"], ref["selection_scores"]) == (df["selected_params"][0], df["selection_scores"][0])
    assert df["f1"][0] == ref["f1"]
    # each repetition's task carries the chosen point in params and no select block
    tasks = apply_dataset_selection(build_tasks(spec, bc_path, labels))
    assert all("select" not in t["method_spec"] and t["method_spec"]["params"]["C"] == json.loads(
        df["selected_params"][0])["C"] for t in tasks)


def _training_rows(spec, path, labels, rep):
    from pu_lib.workflow.experiments.runner import _repetition_cell

    task = build_tasks(spec, path, labels)[rep]
    return _repetition_cell(task)[0].X_tr


def test_scope_dataset_gives_the_same_rows_for_any_worker_count(schema_path, bc_path, tmp_path):
    distributed = pytest.importorskip("distributed")
    methods = {"pet": {"method": "pu_extra_trees", "params": {"prior": True, "n_estimators": 5},
                       "select": {"grid": {"max_depth": [1, 3]}, "scorer": "nnpu_risk", "scope": "dataset"}}}
    grid = Grid(validate_config(_config(methods, repetitions=3), schema_path))
    spec = grid.fit_spec(next(grid.cells()))
    write_label_sets(spec, bc_path, str(tmp_path / "labels.parquet"))
    local = fit_eval(spec, bc_path, str(tmp_path / "labels.parquet"), progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        spread = fit_eval(spec, bc_path, str(tmp_path / "labels.parquet"), client=client, progress=False)
    cols = ["rep", "selected_params", "selection_scores", "selection_rep", "f1", "auc_roc"]
    pd.testing.assert_frame_equal(local[cols], spread[cols])


def test_the_method_hash_changes_with_select_only_for_that_method(schema_path):
    base = {"a": {"method": "pu_weighted_lr"}, "b": {"method": "pu_weighted_lr", "params": {"C": 1.0}}}
    sel = {**base, "a": {**base["a"], "select": {"grid": {"C": [0.1, 1.0]}, "scorer": "lee_liu"}}}
    other = {**base, "a": {**base["a"], "select": {"grid": {"C": [0.1, 10.0]}, "scorer": "lee_liu"}}}
    grids = [Grid(validate_config(_config(m), schema_path)) for m in (base, sel, other)]
    hashes_a = [g.method_hash("e", "a") for g in grids]
    assert len(set(hashes_a)) == 3
    assert len({g.method_hash("e", "b") for g in grids}) == 1
    assert "select" not in grids[0].config["methods"]["a"]


# --------------------------------------------------------------------------- config checks
@pytest.mark.parametrize("select, where", [
    ({"grid": {"C": [1.0]}, "scorer": "accuracy"}, "methods.m.select.scorer"),
    ({"grid": {"C": [1.0]}, "scorer": "lee_liu", "cv": 1}, "methods.m.select.cv"),
    ({"grid": {"C": [1.0]}, "scorer": "lee_liu", "cv": 2.5}, "methods.m.select.cv"),
    ({"grid": {"depth": [1, 2]}, "scorer": "lee_liu"}, "methods.m.select.grid.depth: not a parameter"),
    ({"grid": {"C": [1.0, -1.0]}, "scorer": "lee_liu"}, r"methods.m.select.grid.C\[1\]: The 'C' parameter"),
    ({"grid": {"random_state": [1, 2]}, "scorer": "lee_liu"}, "methods.m.select.grid.random_state: cannot"),
    ({"grid": {"C": []}, "scorer": "lee_liu"}, "methods.m.select.grid.C"),
    ({"grid": {}, "scorer": "lee_liu"}, "methods.m.select.grid"),
    ({"grid": {"C": 1.0}, "scorer": "lee_liu"}, "methods.m.select.grid.C"),
    ({"scorer": "lee_liu"}, "methods.m.select: 'grid' is a required property"),
    ({"grid": {"C": [1.0]}}, "methods.m.select: 'scorer' is a required property"),
    ({"grid": {"C": [1.0]}, "scorer": "lee_liu", "refit": False}, "methods.m.select.refit"),
    ({"grid": {"C": [1.0]}, "scorer": "lee_liu", "folds": 3}, "methods.m.select: Additional properties"),
    ({"grid": {"C": [1.0]}, "scorer": "lee_liu", "scope": "run"}, "methods.m.select.scope"),
    ({"grid": {"C": [1.0]}, "scorer": "nnpu_risk"}, "methods.m.select.scorer: 'nnpu_risk' needs the class prior"),
])
def test_a_bad_select_block_is_a_config_error_naming_its_path(schema_path, select, where):
    with pytest.raises(ConfigError, match=where):
        validate_config(_config({"m": {"method": "pu_weighted_lr", "select": select}}), schema_path)


@pytest.mark.parametrize("spec, where", [
    ({"method": "pu_extra_trees", "params": {"prior": True},
      "select": {"grid": {"prior": [0.2, 0.4]}, "scorer": "nnpu_risk"}}, "methods.m.select.grid.prior: cannot"),
    ({"method": "pu_extra_trees", "params": {"prior": "tice"},
      "select": {"grid": {"max_depth": [2]}, "scorer": "pu_f1"}}, "methods.m.select.scorer: 'pu_f1' needs the class"),
    ({"method": "supervised_et", "select": {"grid": {"n_estimators": [5]}, "scorer": "lee_liu"}},
     "methods.m.select: method 'supervised_et' is fitted on the true classes"),
])
def test_priors_and_oracles_in_a_select_block_are_config_errors(schema_path, spec, where):
    with pytest.raises(ConfigError, match=where):
        validate_config(_config({"m": spec}), schema_path)


def test_select_on_a_prior_estimator_or_with_refit_is_a_config_error(schema_path):
    cfg = _config({"m": {"method": "tice", "select": {"grid": {"max_bepp": [5, 10]}, "scorer": "lee_liu"}}})
    cfg["experiments"]["e"]["metrics"] = ["prior_abs_error"]
    with pytest.raises(ConfigError, match="methods.m.select: method 'tice' is a class-prior estimator"):
        validate_config(cfg, schema_path)
    spec = {"method": "pu_weighted_lr", "select": {"grid": {"C": [1.0]}, "scorer": "lee_liu"}}
    cfg = _config({"m": spec}, split={"test_size": 0.3, "val_size": 0.3, "refit": True})
    with pytest.raises(ConfigError, match=r"methods.m.select: not with experiments.e.split.refit"):
        validate_config(cfg, schema_path)


def test_the_schema_lists_exactly_the_pu_scorers(schema_path):
    schema = yaml.safe_load(schema_path.read_text())
    spec = schema["properties"]["methods"]["additionalProperties"]["properties"]["select"]
    assert spec["properties"]["scorer"]["enum"] == list(PU_SCORERS)


# --------------------------------------------------------------------------- the overlays
def _merged(repo, *names):
    from pu_lib.workflow.experiments.config import merge_config_files

    return merge_config_files([repo / "config" / "papers" / name for name in names],
                              defaults=repo / "config" / "config.yaml")


PU_ET_SELECTED = {"upu_mlp6", "nnpu_mlp6", "upu_mlp5_softsign", "nnpu_mlp5_softsign"}
ADA_PU_SELECTED = {"upu_mlp3", "nnpu_mlp3", "upu_mlp6", "nnpu_mlp6", "nnpu_linear"}


@pytest.mark.parametrize("papers, overlay, selected, per_dataset", [
    (["pu_extra_trees.yaml"], "pu_extra_trees_neural_selected.yaml", PU_ET_SELECTED, set()),
    (["ada_pu.yaml"], "ada_pu_neural_selected.yaml", ADA_PU_SELECTED, set()),
    (["pu_extra_trees.yaml", "pu_extra_trees_neural_reduced.yaml"], "pu_extra_trees_neural_selected_reduced.yaml",
     PU_ET_SELECTED | {"upu_mlp6_e30", "nnpu_mlp6_e30"}, {"upu_mlp6_e30", "nnpu_mlp6_e30"}),
    (["ada_pu.yaml", "ada_pu_neural_reduced.yaml"], "ada_pu_neural_selected_reduced.yaml", ADA_PU_SELECTED,
     {"upu_mlp6", "nnpu_mlp6"}),
])
def test_the_selection_overlays_add_select_to_the_upu_nnpu_networks_only(repo, schema_path, papers, overlay,
                                                                         selected, per_dataset):
    """Each overlay adds a select block to the uPU / nnPU networks and changes nothing else;
    the reduced-protocol overlays choose once per data set exactly where they say, and
    elsewhere keep the per-repetition blocks of the full overlays (same method hashes)."""
    pytest.importorskip("snakemake")
    full = validate_config(_merged(repo, *papers), schema_path)
    ours = validate_config(_merged(repo, *papers, overlay), schema_path)
    assert set(yaml.safe_load((repo / "config" / "papers" / overlay).read_text())) == {"methods"}
    for name, spec in full["methods"].items():
        other = dict(ours["methods"][name])
        select = other.pop("select", None)
        assert other == spec, name
        assert (select is not None) == (name in selected), name
        if select is not None:
            assert select["scorer"] == "nnpu_risk" and select["refit"] is True and select["cv"] >= 2
            assert set(select["grid"]) <= {"learning_rate", "weight_decay", "batch_size"}
            assert math.prod(len(v) for v in select["grid"].values()) <= 8
            assert select.get("scope", "repetition") == ("dataset" if name in per_dataset else "repetition"), name
    assert ours["experiments"] == full["experiments"]
    if len(papers) > 1:  # the per-repetition blocks are those of the full overlay
        base = overlay.replace("_reduced", "")
        whole = validate_config(_merged(repo, papers[0], base), schema_path)
        for name in selected - per_dataset:
            assert ours["methods"][name]["select"] == whole["methods"][name]["select"], name


# --------------------------------------------------------------------------- neural
@pytest.mark.slow
def test_a_tiny_nnpu_network_is_selected_deterministically():
    pytest.importorskip("torch")
    X, _, s = _pu_data(6)
    spec = {"method": "nnpu", "params": {"prior": 0.5, "hidden_sizes": [4], "epochs": 3, "batch_size": 64},
            "select": {"grid": {"learning_rate": [1e-4, 1e-2], "weight_decay": [0.0, 0.005]},
                       "scorer": "nnpu_risk", "cv": 2}}
    runs = [select_params(make_method(spec, random_state=1, n_jobs=1), spec["select"], X, s, prior=0.5,
                          random_state=1) for _ in range(2)]
    assert _without_seconds(runs[0][1]) == _without_seconds(runs[1][1])
    assert len(json.loads(runs[0][1]["selection_scores"])) == 4
    chosen = json.loads(runs[0][1]["selected_params"])
    assert runs[0][0].get_params()["learning_rate"] == chosen["learning_rate"]
