"""Checked aggregation of fit files (pu_lib.workflow.experiments.results): every file must hold the
cell it is named for with repetitions 0..R-1; otherwise a ValueError names the file and
nothing is written."""

import os

import pandas as pd
import pytest

from pu_lib.workflow.experiments.results import (
    aggregate,
    clear_failed,
    failed_marker,
    fit_file_cell,
    last_failure,
    mark_failed,
)


def _rows(experiment="e", dataset="d", setting="s", method="m", reps=(0, 1, 2)):
    return pd.DataFrame({"experiment": experiment, "dataset": dataset, "setting": setting, "method": method,
                         "rep": list(reps), "f1": [0.5 + 0.1 * r for r in reps]})


def _write(root, df, experiment="e", dataset="d", setting="s", method="m"):
    p = root / "results" / "fits" / experiment / dataset / setting / f"{method}.parquet"
    p.parent.mkdir(parents=True, exist_ok=True)
    df.to_parquet(p, index=False)
    return p


def test_fit_file_cell_reads_the_workflow_layout(tmp_path):
    assert fit_file_cell("results/fits/exp/ds-1/scar_c-c0.5/naive_lr.parquet") == {
        "experiment": "exp", "dataset": "ds-1", "setting": "scar_c-c0.5", "method": "naive_lr"}
    with pytest.raises(ValueError, match="is not named"):
        fit_file_cell("naive_lr.csv")


def test_valid_files_are_concatenated_and_sorted(tmp_path):
    a = _write(tmp_path, _rows(method="b", reps=(2, 0, 1)), method="b")
    b = _write(tmp_path, _rows(method="a"), method="a")
    out = tmp_path / "agg.parquet"
    df = aggregate([a, b], out, repetitions=3)
    assert list(df["method"]) == ["a"] * 3 + ["b"] * 3 and list(df["rep"]) == [0, 1, 2] * 2
    pd.testing.assert_frame_equal(pd.read_parquet(out), df)
    assert len(aggregate([a, b], repetitions={"e": 3})) == 6


@pytest.mark.parametrize("column, value", [("experiment", "other"), ("dataset", "other_ds"),
                                           ("setting", "scar_c-c0.9"), ("method", "naive_lr")])
def test_a_file_holding_another_cells_rows_is_named(tmp_path, column, value):
    good = _write(tmp_path, _rows(method="a"), method="a")
    bad = _write(tmp_path, _rows(**{column: value}))
    out = tmp_path / "agg.parquet"
    out.write_bytes(b"previous")
    with pytest.raises(ValueError) as exc:
        aggregate([good, bad], out, repetitions=3)
    msg = str(exc.value)
    assert str(bad) in msg and f"holds rows of {column} ['{value}']" in msg and "named for" in msg
    assert out.read_bytes() == b"previous"  # nothing written


@pytest.mark.parametrize("reps, expected", [((0, 1), "missing [2]"), ((0, 1, 1), "more than once"),
                                             ((0, 1, 2, 3), "unexpected [3]"), ((1, 2, 3), "missing [0]")])
def test_wrong_repetitions_are_named(tmp_path, reps, expected):
    bad = _write(tmp_path, _rows(reps=reps))
    with pytest.raises(ValueError, match="repetition") as exc:
        aggregate([bad], repetitions=3)
    assert str(bad) in str(exc.value) and expected in str(exc.value)


def test_without_repetitions_the_reps_must_still_be_0_to_n(tmp_path):
    assert len(aggregate([_write(tmp_path, _rows(reps=(0, 1)))])) == 2
    with pytest.raises(ValueError, match="expected 0..1"):
        aggregate([_write(tmp_path, _rows(reps=(0, 5)))])


def test_truncated_and_foreign_files_are_named(tmp_path):
    p = _write(tmp_path, _rows())
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="cannot read result file") as exc:
        aggregate([p], repetitions=3)
    assert str(p) in str(exc.value)
    p.write_bytes(b"")
    with pytest.raises(ValueError, match="truncated or not a Parquet file"):
        aggregate([p])
    pd.DataFrame({"x": [1]}).to_parquet(p)
    with pytest.raises(ValueError, match="has no column"):
        aggregate([p])
    with pytest.raises(ValueError, match="no result files"):
        aggregate([])


def test_failure_markers_change_last_failure_until_a_success(tmp_path):
    """Each failed aggregation gives a new identifier (the aggregate rule's last_failure
    parameter: a new value makes Snakemake rerun it); a success keeps the last one; the
    aggregate itself is never touched."""
    out = tmp_path / "results" / "aggregate" / "e.parquet"
    out.parent.mkdir(parents=True)
    out.write_bytes(b"old aggregate")
    mtime = os.stat(out).st_mtime_ns
    assert last_failure(out) == ""
    marker = mark_failed(out, "ValueError: bad file")
    assert marker == failed_marker(out) == out.parent / ".e.parquet.failed"
    first = last_failure(out)
    assert first and "ValueError: bad file" in marker.read_text()
    assert last_failure(out) == first  # reading changes nothing
    mark_failed(out, "ValueError: bad file")  # failed again: a new identifier
    second = last_failure(out)
    assert second not in ("", first)
    clear_failed(out)
    assert not marker.exists() and last_failure(out) == second
    clear_failed(out)  # no marker: nothing to do
    assert last_failure(out) == second
    mark_failed(out, "ValueError: again")
    assert last_failure(out) not in ("", second)
    assert os.stat(out).st_mtime_ns == mtime and out.read_bytes() == b"old aggregate"
    assert last_failure(tmp_path / "missing" / "e.parquet") == ""
