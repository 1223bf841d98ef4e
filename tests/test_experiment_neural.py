"""The workflow's runner with the neural PU learners: a method spec's ``scale: min_max``
(features scaled by the training and validation rows only, for that method only), torch
on one thread inside a repetition whatever the process's own torch thread count (so Dask
worker processes never oversubscribe the cores and results do not depend on the worker
count), and the curves' x axis by round or epoch. scikit-learn's breast cancer, a linear
model trained for 3 epochs; the scaling test needs no torch, the rest is skipped without
it (failed with PU_LIB_REQUIRE_TORCH=1)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import torch_or_skip
from pu_lib.datasets import prepare_dataset
from pu_lib.workflow.experiments.config import Grid, validate_config
from pu_lib.workflow.experiments.curves import x_label
from pu_lib.workflow.experiments.runner import build_tasks, make_label_sets, run_repetition, scale_features


def test_min_max_scaling_takes_the_fit_rows_only_and_leaves_the_input_alone():
    X = np.array([[0.0, 5.0, 1.0], [2.0, 5.0, 3.0], [4.0, 5.0, 2.0], [100.0, 5.0, -7.0]], dtype=np.float32)
    before = X.copy()
    out = scale_features(X, np.array([0, 1, 2]), "min_max")
    np.testing.assert_array_equal(X, before)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out[:3], [[0, 0, 0], [0.5, 0, 1], [1, 0, 0.5]])
    # the held-out row does not move the scaling; it may fall outside [0, 1]
    np.testing.assert_allclose(out[3], [25, 0, -4])
    assert scale_features(X, np.array([0, 1]), None) is X
    with pytest.raises(ValueError, match="unknown scale 'z'"):
        scale_features(X, np.array([0]), "z")


def test_x_label_names_rounds_and_epochs():
    assert x_label(["ada_pu", "pn_boosting"]) == "boosting round"
    assert x_label(["nnpu", "vpu"]) == "training epoch"
    assert x_label(["ada_pu", "upu"]) == "boosting round / training epoch (networks)"


@pytest.fixture(scope="module")
def bc_path(tmp_path_factory):
    d = tmp_path_factory.mktemp("bc")
    return str(prepare_dataset("breast_cancer", d / "breast_cancer.parquet", cache_dir=d / "cache"))


def _task(schema_path, bc_path, method_spec):
    cfg = {
        "seed": 3,
        "methods": {"nn": method_spec},
        "experiments": {"e": {"datasets": ["breast_cancer"], "settings": [{"mechanism": "case_control", "n_labeled": 60}],
                              "split": {"test_size": 0.25}, "methods": ["nn"], "repetitions": 1,
                              "metrics": ["accuracy"], "staged_metrics": ["accuracy"]}},
    }
    grid = Grid(validate_config(cfg, schema_path))
    spec = grid.fit_spec(next(grid.cells()))
    return build_tasks(spec, bc_path, make_label_sets(spec, bc_path))[0]


NN = {"method": "nnpu", "scale": "min_max",
      "params": {"prior": True, "model": "linear", "epochs": 3, "keep_epoch_states": True}}


def test_a_repetition_trains_on_one_torch_thread_whatever_the_process_default(schema_path, bc_path, monkeypatch):
    torch = torch_or_skip()
    from pu_lib.neural import NNPUClassifier

    seen = []
    train_epoch = NNPUClassifier._train_epoch

    def recording(self, torch_, *args, **kwargs):
        seen.append(torch_.get_num_threads())
        return train_epoch(self, torch_, *args, **kwargs)

    monkeypatch.setattr(NNPUClassifier, "_train_epoch", recording)
    task = _task(schema_path, bc_path, NN)
    old = torch.get_num_threads()
    rows = []
    try:
        for n in (2, 1):  # a worker process's torch default may be any count
            torch.set_num_threads(n)
            rows.append(run_repetition(task))
            assert torch.get_num_threads() == n  # restored after the fit and the predictions
    finally:
        torch.set_num_threads(old)
    assert seen == [1] * 6
    a, b = rows
    assert a["accuracy"] == b["accuracy"] and a["staged_accuracy"] == b["staged_accuracy"]
    assert len(a["staged_accuracy"]) == 3 and a["staged_accuracy"][-1] == a["accuracy"]


def test_scale_changes_what_the_method_sees_only(schema_path, bc_path):
    torch_or_skip()
    raw = {**NN, "params": {**NN["params"]}}
    del raw["scale"]
    scaled_row = run_repetition(_task(schema_path, bc_path, NN))
    raw_row = run_repetition(_task(schema_path, bc_path, raw))
    assert scaled_row["method_spec"] != raw_row["method_spec"]
    # the label sets are the same (scale is not part of them) ...
    assert scaled_row["label_seed"] == raw_row["label_seed"] and scaled_row["n_labeled"] == raw_row["n_labeled"]
    # ... and the networks are not: breast cancer's raw columns span 0.001 to 4,254
    assert scaled_row["staged_accuracy"] != raw_row["staged_accuracy"]


def _merged(*names):
    """config/config.yaml with ``names`` (under config/papers/) merged over it as Snakemake
    merges --configfile files."""
    from pathlib import Path

    from pu_lib.workflow.experiments.config import merge_config_files

    root = Path(__file__).resolve().parents[1] / "config"
    return merge_config_files([root / "papers" / name for name in names], defaults=root / "config.yaml")


@pytest.mark.parametrize("paper, overlay, changed", [
    ("pu_extra_trees.yaml", "pu_extra_trees_neural_reduced.yaml", {}),
    ("ada_pu.yaml", "ada_pu_neural_reduced.yaml", {"upu_mlp6", "nnpu_mlp6", "vpu_mlp6"}),
])
def test_the_neural_overlays_validate_and_change_epochs_and_runs_only(schema_path, paper, overlay, changed):
    full = validate_config(_merged(paper), schema_path)
    reduced = validate_config(_merged(paper, overlay), schema_path)
    assert reduced["seed"] == full["seed"] and set(reduced["targets"]) == set(full["targets"])
    for name, spec in full["methods"].items():
        other = reduced["methods"][name]
        if name in changed:
            assert other["params"]["epochs"] < spec["params"]["epochs"]
            other = {**other, "params": {**other["params"], "epochs": spec["params"]["epochs"]}}
        assert other == spec, name
    for name, exp in reduced["experiments"].items():
        if name in full["experiments"]:
            assert exp["repetitions"] <= full["experiments"][name]["repetitions"]
            assert exp["settings"] == full["experiments"][name]["settings"]
