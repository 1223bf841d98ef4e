"""The ``pu-lib`` command line (pu_lib/workflow/cli.py): every subcommand run as a subprocess on small
files, its errors, and the helpers in-process.

The files are 240 rows of two Gaussians with a text column; the methods are the cheap
ones (Elkan-Noto with logistic regression, the Elkan-Noto prior), so each subprocess costs
about the interpreter's start and pu_lib's imports (1-2 s).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from pu_lib.workflow import cli, registry

FEATURES = ["x1", "x2", "x3"]


def _frame(n=240, seed=0, text=True) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    X = rng.normal(size=(n, 3))
    X[y == 1] += 2.5
    df = pd.DataFrame(X, columns=FEATURES)
    if text:
        df["color"] = rng.choice(["red", "green", "blue"], n)
    df["s"] = ((y == 1) & (rng.random(n) < 0.5)).astype(int)
    return df


@pytest.fixture
def files(tmp_path):
    """``{"csv": path, "parquet": path}`` of one PU table with a text column."""
    df = _frame()
    out = {"csv": tmp_path / "pu.csv", "parquet": tmp_path / "pu.parquet"}
    df.to_csv(out["csv"], index=False)
    df.to_parquet(out["parquet"], index=False)
    return out


def pu_lib(*args, cwd=None) -> subprocess.CompletedProcess:
    """``python -m pu_lib.workflow.cli ARGS`` in a subprocess."""
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    return subprocess.run([sys.executable, "-m", "pu_lib.workflow.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


def _leftovers(directory) -> list[str]:
    """Temporary files of an atomic write (``.<name>.<random>``) left in ``directory``."""
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


# ----------------------------------------------------------------------------- subprocesses
def test_prior_prints_an_estimate_inside_its_interval(files):
    proc = pu_lib("prior", files["csv"], "--s", "s", "--method", "elkan_noto_prior", "--bootstrap", "8", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["n_rows"] == 240 and out["n_resamples"] == 8
    for q in ("alpha", "prior", "c"):
        iv = out[q]
        assert 0.0 <= iv["estimate"] <= 1.0 and iv["low"] <= iv["estimate"] <= iv["high"]
    # the interval is the library's: bootstrap_ci with the same seed and resamples
    from pu_lib.prior import bootstrap_ci

    X, s = cli.read_pu_file(str(files["csv"]), "s")[:2]
    res = bootstrap_ci(registry.make_estimator("elkan_noto_prior", random_state=0), X, s, n_resamples=8,
                       random_state=0)
    assert [out["alpha"][k] for k in ("estimate", "low", "high")] == pytest.approx(
        [res.alpha.estimate, res.alpha.low, res.alpha.high])
    assert "resamples done" in proc.stderr  # progress of the resamples


def test_prior_table_names_the_estimate_and_its_interval(files):
    proc = pu_lib("prior", files["parquet"], "--s", "s", "--method", "elkan_noto_prior", "--bootstrap", "4")
    assert proc.returncode == 0, proc.stderr
    row = next(line.split() for line in proc.stdout.splitlines() if line.startswith("alpha"))
    estimate, low, high = map(float, row[1:4])
    assert 0.0 <= estimate <= 1.0 and low <= estimate <= high
    assert "percentile interval over 4" in proc.stdout


@pytest.mark.slow  # ~6 s: a whole-package copy and refits; the fast tier stays under 3 minutes
def test_fit_then_predict_round_trip_matches_the_estimator_in_process(tmp_path):
    df = _frame(text=False)
    train, new = tmp_path / "train.parquet", tmp_path / "new.csv"
    df.to_parquet(train, index=False)
    df.drop(columns="s").assign(extra="ignored").to_csv(new, index=False)
    model, pred = tmp_path / "model.joblib", tmp_path / "pred.csv"
    proc = pu_lib("fit", train, "--s", "s", "--method", "elkan_noto", "--base", "logistic_regression",
                  "--param", "hold_out_ratio=0.2", "--random-state", "3", "--out", model)
    assert proc.returncode == 0, proc.stderr
    proc = pu_lib("predict", model, new, "--out", pred)
    assert proc.returncode == 0, proc.stderr
    got = pd.read_csv(pred)
    assert list(got.columns) == ["prediction", "proba"] and len(got) == len(df)

    from pu_lib.workflow.experiments.methods import make_method

    est = make_method({"method": "elkan_noto", "base": "logistic_regression", "params": {"hold_out_ratio": 0.2}},
                      random_state=3)
    X = df[FEATURES].to_numpy(dtype=np.float32)
    est.fit(X, df["s"].to_numpy())
    np.testing.assert_array_equal(got["prediction"].to_numpy(), est.predict(X))
    np.testing.assert_allclose(got["proba"].to_numpy(), est.predict_proba(X)[:, 1], rtol=1e-9, atol=1e-12)
    assert _leftovers(tmp_path) == []


def test_select_prints_a_row_per_method(files):
    methods = ["naive", "elkan_noto"]
    proc = pu_lib("select", files["parquet"], "--s", "s", "--methods", ",".join(methods), "--cv", "3",
                  "--prior", "0.4", "--scoring", "lee_liu,pu_f1,pu_auc")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["method", "lee_liu", "pu_f1", "pu_auc"]
    assert [line.split()[0] for line in lines[2:2 + len(methods)]] == methods
    assert "method 2/2" in proc.stderr


def test_bad_inputs_exit_non_zero_with_one_line_and_write_nothing(tmp_path, files):
    model = tmp_path / "model.joblib"
    proc = pu_lib("fit", files["csv"], "--s", "s", "--method", "no_such_method", "--out", model)
    assert proc.returncode == 1
    assert "unknown classifier method 'no_such_method'" in proc.stderr and "pu_extra_trees" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not model.exists()


@pytest.mark.slow  # Snakemake's start, config check and DAG: about 5 s of CPU
def test_run_dry_run_on_a_tiny_config_of_a_user_file(tmp_path, files):
    import yaml

    cfg = {
        "user_datasets": {"mine": {"file": files["csv"].name, "s_column": "s"}},
        "methods": {"naive_lr": {"method": "naive", "base": "logistic_regression"}},
        "experiments": {"mine": {"datasets": ["mine"], "settings": [{"mechanism": "given"}],
                                 "split": {"test_size": 0.3}, "methods": ["naive_lr"], "repetitions": 1,
                                 "metrics": ["lee_liu"]}},
    }
    (tmp_path / "my.yaml").write_text(yaml.safe_dump(cfg))
    proc = pu_lib("run", "my.yaml", "-n", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "rule user_dataset" in proc.stdout and "rule fit_eval" in proc.stdout
    assert not (tmp_path / "results").exists()  # a dry run makes nothing


# ----------------------------------------------------------------------------- in-process
def _main(capsys, *args):
    rc = cli.main(["-q", *map(str, args)])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("args,message", [
    (["prior", "{dir}/missing.csv", "--s", "s"], "missing.csv: no such file"),
    (["prior", "{dir}/pu.txt", "--s", "s"], "unknown file type '.txt'"),
    (["prior", "{dir}/broken.parquet", "--s", "s"], "cannot read"),
    (["prior", "{csv}", "--s", "label"], "no column 'label'"),
    (["prior", "{csv}", "--s", "x1"], "--s: column 'x1' must hold 0 (unlabeled) and 1"),
    (["prior", "{csv}", "--s", "s", "--method", "pu_extra_trees"], "unknown prior method 'pu_extra_trees'"),
    (["fit", "{csv}", "--s", "s", "--method", "naive", "--param", "depth=2", "--out", "{dir}/m.joblib"],
     "params.depth: not a parameter of NaivePUClassifier"),
    (["fit", "{csv}", "--s", "s", "--method", "pu_decision_tree", "--out", "{dir}/m.joblib"], "prior is required"),
    (["predict", "{dir}/m.joblib", "{csv}", "--out", "{dir}/p.csv"], "no such model file"),
    (["predict", "{csv}", "{csv}", "--out", "{dir}/p.csv"], "not a model file of pu-lib fit"),
    (["predict", "{csv}", "{csv}", "--out", "{dir}/p.txt"], "unknown output file type '.txt'"),
    (["select", "{csv}", "--s", "s", "--methods", "naive", "--scoring", "pu_f1"], "needs the class prior"),
    (["select", "{csv}", "--s", "s", "--methods", "naive", "--scoring", "f1"], "unknown scorer(s) f1"),
    (["select", "{csv}", "--s", "s", "--methods", "naive", "--prior", "maybe"], "--prior 'maybe'"),
    (["run", "{dir}/none.yaml"], "none.yaml: no such config file"),
])
def test_user_errors_name_the_problem(tmp_path, files, capsys, args, message):
    (tmp_path / "pu.txt").write_text("x\n")
    (tmp_path / "broken.parquet").write_text("not parquet")
    args = [a.format(dir=tmp_path, csv=files["csv"]) for a in args]
    before = set(os.listdir(tmp_path))
    rc, out, err = _main(capsys, *args)
    assert rc == 1 and out == ""
    assert message in err, err
    assert len(err.strip().splitlines()) == 1
    assert set(os.listdir(tmp_path)) == before  # nothing written, no temporary file left


def test_predict_checks_the_columns_and_writes_nothing_on_error(tmp_path, files, capsys):
    model = tmp_path / "m.joblib"
    rc, _, err = _main(capsys, "fit", files["csv"], "--s", "s", "--method", "naive", "--base",
                       "logistic_regression", "--out", model)
    assert rc == 0, err
    df = pd.read_csv(files["csv"])
    # a missing column, a numeric column that holds text, a text value never seen
    cases = {
        "missing.csv": (df.drop(columns=["x2", "color"]), "missing column(s) 'x2', 'color'"),
        "text.csv": (df.assign(x1="a"), "column 'x1' holds text"),
    }
    for name, (frame, message) in cases.items():
        frame.to_csv(tmp_path / name, index=False)
        out = tmp_path / f"pred_{name}"
        rc, _, err = _main(capsys, "predict", model, tmp_path / name, "--out", out)
        assert rc == 1 and message in err, err
        assert not out.exists()
    df.loc[0, "color"] = "purple"
    df.to_parquet(tmp_path / "purple.parquet", index=False)
    with pytest.warns(UserWarning, match="'purple' not seen in fitting"):
        rc = cli.main(["-q", "predict", str(model), str(tmp_path / "purple.parquet"), "--out",
                       str(tmp_path / "p.parquet")])
    assert rc == 0 and len(pd.read_parquet(tmp_path / "p.parquet")) == len(df)
    assert _leftovers(tmp_path) == []


def test_text_columns_are_encoded_as_the_workflow_encodes_them(files):
    from pu_lib.datasets.canonical import TARGET
    from pu_lib.datasets.user import canonical_user_table, user_dataset_spec

    X, s, info = cli.read_pu_file(str(files["parquet"]), "s")
    canon = canonical_user_table(user_dataset_spec("pu", {"file": str(files["parquet"]), "s_column": "s"}))
    assert info["feature_names"] == [c for c in canon.columns if c != TARGET]
    assert info["feature_names"][3:] == ["color=blue", "color=green", "color=red"]
    assert info["categories"] == {"color": ["blue", "green", "red"]}
    assert X.dtype == np.float32 and X.shape == (240, 6)
    np.testing.assert_array_equal(s, canon[TARGET].to_numpy())


def test_parameter_values_and_select_parameters():
    assert cli.parse_params(["a=1", "b=0.5", "c=true", "d=None", "e=tice", "f=[1, 2]", "g=null"]) == {
        "a": 1, "b": 0.5, "c": True, "d": None, "e": "tice", "f": [1, 2], "g": None}
    with pytest.raises(cli.UserError, match="expected NAME=VALUE"):
        cli.parse_params(["depth"])
    per = cli._method_params(["naive", "pu_decision_tree"], ["max_depth=3", "naive.random_state=1"])
    assert per == {"naive": {"random_state": 1}, "pu_decision_tree": {"max_depth": 3}}
    with pytest.raises(cli.UserError, match="no method of naive takes it"):
        cli._method_params(["naive"], ["max_depth=3"])


def test_run_builds_the_snakemake_command(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("{}\n")
    cmd = cli.snakemake_command(str(cfg), ["mine"])
    assert cmd[:3] == [sys.executable, "-m", "snakemake"]
    assert cmd[cmd.index("--snakefile") + 1] == str(cli.default_snakefile())
    assert cmd[cmd.index("--configfile") + 1] == str(cfg) and "--replace-workflow-config" in cmd
    assert cmd[-3:] == ["--cores", "1", "mine"]
    for extra in (["-n"], ["--cores", "4"], ["-c4"], ["--profile", "p"]):
        assert cli.snakemake_command(str(cfg), extra).count("--cores") == extra.count("--cores")


def test_help_lists_the_registered_methods(capsys):
    for args in (["--help"], ["fit", "--help"], ["select", "--help"]):
        with pytest.raises(SystemExit) as exc:
            cli.main(args)
        assert exc.value.code == 0
        out = capsys.readouterr().out
        assert all(name in out for name in registry.names("classifier"))
    with pytest.raises(SystemExit):
        cli.main(["prior", "--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in registry.names("prior"))


def test_a_boolean_s_column_and_the_estimate_alone(tmp_path, capsys):
    df = _frame(text=False)
    df["s"] = df["s"].astype(bool)
    path = tmp_path / "bool.csv"
    df.to_csv(path, index=False)  # written as False / True
    X, s, _ = cli.read_pu_file(str(path), "s")
    np.testing.assert_array_equal(s, df["s"].to_numpy().astype(np.int8))
    rc, out, err = _main(capsys, "prior", path, "--s", "s", "--method", "elkan_noto_prior", "--bootstrap", "0",
                         "--json")
    assert rc == 0, err
    res = json.loads(out)
    assert set(res["alpha"]) == {"estimate"} and 0.0 <= res["alpha"]["estimate"] <= 1.0
