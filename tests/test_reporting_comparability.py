"""Cells of data sets the registry marks ``paper_comparable: false`` are marked ‡ with the
reason under the table, and summary comparisons leave those data sets out."""

from __future__ import annotations

import pandas as pd

from pu_lib.datasets import get_spec
from pu_lib.workflow.reporting import (INCOMPLETE_MARK, NOT_COMPARABLE_MARK, not_comparable_datasets,
                              per_dataset_tables, summary_table, wide_table)

# (dataset id, registry name): the workflow's results carry both columns
DATASETS = [("unsw_nb15", "unsw_nb15_testing_set"), ("breast_cancer", "breast_cancer"), ("digits", "digits"),
            ("mushroom", "mushroom")]


def _results():
    rows = []
    for k, (d, name) in enumerate(DATASETS):
        for rep in range(2):
            for j, m in enumerate(["a", "b"]):
                rows.append({"dataset": d, "dataset_name": name, "setting": "s", "method": m, "rep": rep,
                             "accuracy": 0.5 + 0.1 * j + 0.01 * k + 0.001 * rep})
    return pd.DataFrame(rows)


def test_marks_are_distinct():
    assert NOT_COMPARABLE_MARK != INCOMPLETE_MARK


def test_not_comparable_datasets_from_the_registry():
    reasons = not_comparable_datasets(_results())
    assert set(reasons) == {"unsw_nb15"}
    assert reasons["unsw_nb15"] == get_spec("unsw_nb15_testing_set")["comparability_note"]
    # without a dataset_name column the dataset column is the registry name; unknown names are comparable
    plain = _results().drop(columns="dataset_name").replace({"unsw_nb15": "unsw_nb15_testing_set"})
    assert set(not_comparable_datasets(plain)) == {"unsw_nb15_testing_set"}
    assert not_comparable_datasets(plain.assign(dataset="my_table")) == {}


def test_wide_table_marks_the_cells_and_names_the_reason():
    md = wide_table(_results(), "accuracy").to_markdown()
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    header = lines[0].split("|")
    col = [c.strip() for c in header].index("unsw_nb15")
    for row in (lines[2], lines[3]):
        cells = [c.strip() for c in row.split("|")]
        assert NOT_COMPARABLE_MARK in cells[col]
        assert all(NOT_COMPARABLE_MARK not in c for i, c in enumerate(cells) if i != col)
    assert f"{NOT_COMPARABLE_MARK} unsw_nb15: one-partition split, not comparable with the paper" in md
    assert md.count("one-partition split") == 1  # one footnote, not one per cell


def test_per_dataset_tables_mark_only_that_table():
    tables = per_dataset_tables(_results(), "accuracy")
    assert NOT_COMPARABLE_MARK in tables["unsw_nb15"].to_markdown()
    assert NOT_COMPARABLE_MARK not in tables["digits"].to_markdown()


def test_summary_table_leaves_the_data_set_out():
    res = _results()
    table, comps = summary_table(res, "accuracy")
    without, _ = summary_table(res[res["dataset"] != "unsw_nb15"], "accuracy")
    pd.testing.assert_frame_equal(table.mean, without.mean)
    assert len(comps["s"].blocks) == 3
    assert any(n.startswith(f"{NOT_COMPARABLE_MARK} Not in this comparison: unsw_nb15") for n in table.notes)
