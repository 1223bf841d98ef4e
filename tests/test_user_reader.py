"""How a user's file is read (pu_lib.datasets.user.read_user_file; docs/own_data.md, "How a
file is read"): the one reader of the workflow's user datasets, the command line and the API.

Each case is a small file in ``tmp_path`` that once went wrong silently: numbers with a few
text cells, a repeated label column, a saved row index / identifier / date column, missing
values, numbers beyond float32. The command-line tests run ``pu_lib.workflow.cli.main`` in-process.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from pu_lib.workflow import cli
from pu_lib.datasets.canonical import TARGET
from pu_lib.datasets.user import (MAX_CATEGORIES, ReadPolicy, canonical_key, canonical_user_table, read_user_file,
                                  user_dataset_spec)


def _frame(n=60, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = np.zeros(n, dtype=int)
    s[: n // 4] = 1
    rng.shuffle(s)
    return pd.DataFrame({"x": rng.normal(size=n).round(3), "age": rng.integers(20, 80, n),
                         "color": rng.choice(["red", "green", "blue"], n), "s": s})


def _read(path, **policy):
    return read_user_file(path, None, "s", ReadPolicy(**policy))


# ----------------------------------------------------------------------------- 1. numbers with text cells
def test_a_numeric_column_with_a_few_text_cells_is_an_error_naming_column_rows_and_values(tmp_path):
    df = _frame()
    df["age"] = df["age"].astype(object)
    df.loc[[3, 17, 40], "age"] = ["unknown", "?", "n.a."]
    path = tmp_path / "f.csv"
    df.to_csv(path, index=False)
    with pytest.raises(ValueError) as exc:
        _read(path)
    msg = str(exc.value)
    # rows as in the file: the header is line 1, so data row 3 is line 5
    assert "column 'age'" in msg and "3 of its 60 values are not numbers" in msg
    assert "line 5 ('unknown'), line 19 ('?'), line 42 ('n.a.')" in msg and "coerce_numeric" in msg
    # asked for: the text cells become missing values, then the missing-value policy applies
    got = _read(path, coerce_numeric=True, missing="drop")
    assert "age" in got.info["numeric"] and len(got.table) == 57
    assert not any(c.startswith("age=") for c in got.table.columns)
    assert any("3 text cell(s) read as missing" in m for m in got.messages)
    with pytest.raises(ValueError, match=r"missing values in column\(s\) 'age' \(3 cell"):
        _read(path, coerce_numeric=True)


def test_a_text_column_of_numbers_and_a_real_text_column_are_not_numeric_errors(tmp_path):
    df = _frame()
    df["code"] = df["age"].astype(str)  # Parquet: a string column that holds only numbers
    path = tmp_path / "f.parquet"
    df.to_parquet(path, index=False)
    got = _read(path)
    assert "code" in got.info["numeric"] and got.info["categories"] == {"color": ["blue", "green", "red"]}


# ----------------------------------------------------------------------------- 2. repeated column names
def test_a_repeated_label_column_is_an_error_not_a_feature(tmp_path):
    df = _frame()
    path = tmp_path / "f.csv"
    text = df.to_csv(index=False).splitlines()
    lines = [text[0] + ",s"] + [row + "," + row.rsplit(",", 1)[1] for row in text[1:]]
    path.write_text("\n".join(lines) + "\n")
    assert list(pd.read_csv(path).columns)[-1] == "s.1"  # what pandas alone would make of it
    with pytest.raises(ValueError, match=r"column names must be unique .*'s' at positions 4, 5"):
        _read(path)
    with pytest.raises(ValueError, match=r"^file: column names must be unique"):
        user_dataset_spec("f", {"file": str(path), "s_column": "s"})


# ----------------------------------------------------------------------------- 3. indices, identifiers, dates
def test_row_indices_identifiers_and_many_valued_text_are_left_out_with_a_warning(tmp_path):
    df = _frame(n=200)
    df["id"] = np.arange(1000, 1200)
    df["date"] = pd.date_range("2020-01-01", periods=200).astype(str)
    path = tmp_path / "f.csv"
    df.to_csv(path)  # the index too: a column without a name, "Unnamed: 0"
    with pytest.warns(UserWarning) as rec:
        got = _read(path)
    msg = " ".join(str(w.message) for w in rec)
    assert "'Unnamed: 0'" in msg and "'id'" in msg and "'date' (text with 200 distinct values" in msg
    assert "keep_columns" in msg
    assert set(got.left_out) == {"Unnamed: 0", "id", "date"}
    assert got.info["input_columns"] == ["x", "age", "color"]
    # a column with more than MAX_CATEGORIES values, even if they repeat
    df2 = _frame(n=2 * (MAX_CATEGORIES + 1))
    df2["day"] = [f"d{i % (MAX_CATEGORIES + 1)}" for i in range(len(df2))]
    df2.to_parquet(tmp_path / "g.parquet", index=False)
    with pytest.warns(UserWarning, match=rf"'day' \(text with {MAX_CATEGORIES + 1} distinct values, more than"):
        _read(tmp_path / "g.parquet")
    # asked for: kept
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _read(path, keep_columns=("Unnamed: 0", "id", "date"))
    assert {"Unnamed: 0", "id"} <= set(got.info["numeric"]) and len(got.info["categories"]["date"]) == 200
    with pytest.raises(ValueError, match="keep_columns: no column 'nope'"):
        _read(path, keep_columns=("nope",))


def test_a_parquet_date_column_is_read_as_its_text(tmp_path):
    df = _frame(n=200).assign(when=pd.date_range("2021-01-01", periods=200, freq="D"))
    df.to_parquet(tmp_path / "d.parquet", index=False)
    with pytest.warns(UserWarning, match=r"'when' \(text with 200 distinct values"):
        got = _read(tmp_path / "d.parquet")
    assert got.info["input_columns"] == ["x", "age", "color"]


# ----------------------------------------------------------------------------- 4. missing values
def test_missing_values_refuse_by_default_drop_or_impute_when_asked(tmp_path):
    df = _frame()
    df.loc[[2, 5], "x"] = np.nan
    df.loc[[5, 9], "color"] = None
    path = tmp_path / "f.parquet"
    df.to_parquet(path, index=False)
    with pytest.raises(ValueError) as exc:
        _read(path)
    msg = str(exc.value)
    assert "'x' (2 cell(s), at row 3, row 6)" in msg and "'color' (2 cell(s), at row 6, row 10)" in msg
    assert "refuse" in msg
    dropped = _read(path, missing="drop")
    assert len(dropped.table) == 57 and dropped.rows.sum() == 57 and not dropped.rows[[2, 5, 9]].any()
    assert dropped.messages == ["missing values: 3 of 60 rows dropped (missing cells per column: x: 2, color: 2)"]
    imputed = _read(path, missing="impute")
    med = float(np.nanmedian(df["x"]))
    assert len(imputed.table) == 60 and imputed.table.loc[2, "x"] == pytest.approx(med)
    assert imputed.info["medians"]["x"] == pytest.approx(med)
    assert imputed.table.loc[9, ["color=blue", "color=green", "color=red"]].tolist() == [0, 0, 0]
    assert "4 cell(s) imputed (x: 2 with the median" in imputed.messages[0]
    assert "color: 2 as all zeros" in imputed.messages[0]
    # the workflow's canonical table follows the same policy
    spec = user_dataset_spec("f", {"file": str(path), "s_column": "s", "missing": "drop"})
    assert spec["read"] == {"missing": "drop"} and canonical_key(spec) != spec["sha256"][:16]
    pd.testing.assert_frame_equal(canonical_user_table(spec), dropped.table.assign(
        **{TARGET: dropped.table[TARGET].astype(np.int8)}))
    with pytest.raises(ValueError, match="missing values in column"):
        canonical_user_table(user_dataset_spec("f", {"file": str(path), "s_column": "s"}))


def test_the_workflow_writes_and_logs_what_the_policy_did(tmp_path, caplog):
    import logging

    from pu_lib.datasets import load_canonical
    from pu_lib.datasets.user import prepare_user_dataset

    df = _frame()
    df.loc[[2, 5], "x"] = np.nan
    path = tmp_path / "f.csv"
    df.to_csv(path, index=False)
    spec = user_dataset_spec("f", {"file": str(path), "s_column": "s", "missing": "drop"})
    with caplog.at_level(logging.INFO, logger="pu_lib.datasets.user"):
        out = prepare_user_dataset(spec, tmp_path / "f.parquet")
    assert "2 of 60 rows dropped (missing cells per column: x: 2)" in caplog.text
    ds = load_canonical(out, dropna=False)
    assert ds.n_samples == 58 and not np.isnan(ds.X).any()
    with pytest.raises(ValueError, match="missing: must be one of refuse, drop, impute"):
        user_dataset_spec("f", {"file": str(path), "s_column": "s", "missing": "zero"})


def test_a_new_file_is_read_as_the_fitted_one_was(tmp_path):
    df = _frame()
    df.loc[2, "x"] = np.nan
    df.to_parquet(tmp_path / "train.parquet", index=False)
    fitted = _read(tmp_path / "train.parquet", missing="impute").info
    new = df.drop(columns="s").head(4).assign(color=None)  # a text column with no value at all
    new.loc[1, "x"] = np.nan
    new.to_csv(tmp_path / "new.csv", index=False)
    got = read_user_file(tmp_path / "new.csv", fitted=fitted)
    assert list(got.table.columns) == fitted["feature_names"] and len(got.table) == 4
    assert got.table.loc[1, "x"] == pytest.approx(fitted["medians"]["x"])
    assert (got.table[["color=blue", "color=green", "color=red"]] == 0).all().all()
    assert "x: 2 with the median" in got.messages[0] and "color: 4 as all zeros" in got.messages[0]


# ----------------------------------------------------------------------------- 5. numbers beyond float32
@pytest.mark.parametrize("value, message", [(1e300, "beyond float32's range"), (np.inf, "infinite value")])
def test_numbers_float32_cannot_hold_are_errors_naming_the_column(tmp_path, value, message):
    df = _frame()
    df["x"] = df["x"].astype(np.float64)
    df.loc[7, "x"] = value
    path = tmp_path / "f.parquet"
    df.to_parquet(path, index=False)
    with pytest.raises(ValueError, match=rf"column 'x': .*{message}.* at row 8 \("):
        _read(path)


# ----------------------------------------------------------------------------- the command line
def _main(capsys, *args):
    rc = cli.main(["-q", *map(str, args)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_options_reach_the_reader_and_predict_reads_as_fit_did(tmp_path, capsys):
    df = _frame(n=80)
    df.loc[[1, 4], "x"] = np.nan
    df["id"] = np.arange(len(df))
    train = tmp_path / "train.csv"
    df.to_csv(train, index=False)
    model = tmp_path / "m.joblib"
    fit = ["fit", train, "--s", "s", "--method", "naive", "--base", "logistic_regression", "--out", model]
    with pytest.warns(UserWarning, match=r"left out: 'id' \(distinct increasing"):
        rc, _, err = _main(capsys, *fit)
    assert rc == 1 and "missing values in column(s) 'x'" in err and "--missing" in err
    assert len(err.strip().splitlines()) == 1
    rc = cli.main([*map(str, fit), "--missing", "impute", "--keep-column", "id"])
    _, err = capsys.readouterr()
    assert rc == 0, err
    assert "2 cell(s) imputed (x: 2 with the median" in err  # the progress line
    new = df.drop(columns="s")
    new.loc[0, "x"] = np.nan
    new.to_csv(tmp_path / "new.csv", index=False)
    rc, _, err = _main(capsys, "predict", model, tmp_path / "new.csv", "--out", tmp_path / "p.csv")
    assert rc == 0, err
    assert len(pd.read_csv(tmp_path / "p.csv")) == len(new)
    with pytest.warns(UserWarning, match="'id'"):
        X, _, info = cli.read_pu_file(str(train), "s", policy=ReadPolicy(missing="drop"))
    assert X.shape == (78, 5) and info["read_policy"] == {"missing": "drop"}
    # prior and select take the same options
    rc, out, err = _main(capsys, "prior", train, "--s", "s", "--method", "elkan_noto_prior", "--bootstrap", "0",
                         "--missing", "drop", "--keep-column", "id", "--json")
    assert rc == 0, err
    assert json.loads(out)["n_rows"] == 78


def test_cli_coerce_numeric_and_predict_of_a_model_fitted_with_drop(tmp_path, capsys):
    df = _frame(n=80)
    df["age"] = df["age"].astype(object)
    df.loc[5, "age"] = "old"
    train = tmp_path / "train.csv"
    df.to_csv(train, index=False)
    model = tmp_path / "m.joblib"
    fit = ["fit", train, "--s", "s", "--method", "naive", "--base", "logistic_regression", "--out", model]
    rc, _, err = _main(capsys, *fit)
    assert rc == 1 and "column 'age': 1 of its 80 values are not numbers, at line 7 ('old')" in err
    rc, _, err = _main(capsys, *fit, "--coerce-numeric", "--missing", "drop")
    assert rc == 0, err
    df.drop(columns="s").assign(x=lambda d: d["x"].where(d.index != 3)).to_csv(tmp_path / "new.csv", index=False)
    # the model was fitted with missing: drop and coerce_numeric: the text cell and the
    # missing x are rows without a prediction
    rc, _, err = _main(capsys, "predict", model, tmp_path / "new.csv", "--out", tmp_path / "p.csv")
    assert rc == 0, err
    got = pd.read_csv(tmp_path / "p.csv")
    assert len(got) == 80 and got["prediction"].isna().tolist() == [i in (3, 5) for i in range(80)]


# ----------------------------------------------------------------------------- the workflow's config
def test_workflow_config_takes_the_reading_options_of_a_user_dataset(tmp_path, monkeypatch):
    from pu_lib.workflow.experiments.config import DEFAULT_SCHEMA, ConfigError, Grid, validate_config

    df = _frame()
    df.loc[2, "x"] = np.nan
    df.to_csv(tmp_path / "f.csv", index=False)
    monkeypatch.chdir(tmp_path)  # user files are read relative to the working directory

    def config(**options):
        return {"user_datasets": {"mine": {"file": "f.csv", "s_column": "s", **options}},
                "methods": {"naive_lr": {"method": "naive", "base": "logistic_regression"}},
                "experiments": {"e": {"datasets": ["mine"], "settings": [{"mechanism": "given"}],
                                      "methods": ["naive_lr"], "repetitions": 1, "metrics": ["lee_liu"]}}}

    cfg = validate_config(config(missing="drop", coerce_numeric=True, keep_columns=["age"]), DEFAULT_SCHEMA)
    grid = Grid(cfg)
    spec = grid.user_specs["mine"]
    assert spec["read"] == {"missing": "drop", "coerce_numeric": True, "keep_columns": ["age"]}
    assert grid.user_canonical("mine").endswith(f"mine-{canonical_key(spec)}.parquet")
    default = Grid(validate_config(config(), DEFAULT_SCHEMA)).user_specs["mine"]
    assert "read" not in default and canonical_key(default) == default["sha256"][:16]  # named as before
    for options, message in [({"missing": "zero"}, r"user_datasets.mine.missing"),
                             ({"keep_columns": ["nope"]}, r"user_datasets.mine.keep_columns: no column 'nope'")]:
        with pytest.raises(ConfigError, match=message):
            validate_config(config(**options), DEFAULT_SCHEMA)
    bad = config()
    bad["experiments"]["e"]["datasets"] = [{"name": "mine", "missing": "zero"}]
    with pytest.raises(ConfigError, match=r"datasets\[0\].missing: a user dataset's missing values follow"):
        validate_config(bad, DEFAULT_SCHEMA)
