"""Paper-style tables: golden Markdown / LaTeX text for small hand-made results frames."""

import json

import numpy as np
import pandas as pd
import pytest

from pu_lib.workflow.reporting import (
    PaperTable,
    mean_sd_table,
    per_dataset_tables,
    render_tables,
    summary_table,
    write_stats_outputs,
    write_table_files,
)


def _results():
    """4 data sets x 2 flip ratios x 3 methods x 2 repetitions, hand-made values.

    Per-data-set means (f1):           flip-0.25          flip-0.5
        pu_shrf                     .90 .80 .70 .62    .80 .70 .60 .50
        nnpu                        .85 .75 .72 .60    .82 .65 .55 .40
        naive                       .50 .40 .30 .20    .30 .20 .10 .45
    """
    means = {
        "flip-0.25": {"pu_shrf": [.90, .80, .70, .62], "nnpu": [.85, .75, .72, .60], "naive": [.50, .40, .30, .20]},
        "flip-0.5": {"pu_shrf": [.80, .70, .60, .50], "nnpu": [.82, .65, .55, .40], "naive": [.30, .20, .10, .45]},
    }
    rows = []
    for setting, by_method in means.items():
        for method, vals in by_method.items():
            for ds, v in zip(["d1", "d2", "d3", "d4"], vals):
                for rep, delta in enumerate([-0.01, 0.01]):
                    rows.append({"experiment": "exp", "dataset": ds, "setting": setting, "method": method,
                                 "rep": rep, "f1": round(v + delta, 6), "brier": round(1 - v + delta, 6)})
    return pd.DataFrame(rows)


def test_summary_table_golden_markdown():
    table, comps = summary_table(_results(), "f1", "setting")
    expected = (
        "### F1: mean ± sd over data sets (per-data-set means over repetitions); Holm vs best at 0.05\n"
        "\n"
        "| method | flip-0.25 | flip-0.5 |\n"
        "|---|:---:|:---:|\n"
        "| pu_shrf | **<ins>0.755 ± 0.122</ins>** | **<ins>0.650 ± 0.129</ins>** |\n"
        "| nnpu | **0.730 ± 0.103** | **0.605 ± 0.176** |\n"
        "| naive | 0.350 ± 0.129 | **0.263 ± 0.149** |\n"
        "| Iman-Davenport p | 0.0066 | 0.0837 |\n"
        "\n"
        "Higher is better. Best value per column in bold and underlined.\n"
        "Bold: not significantly worse than the best-ranked method (Holm's post hoc test on average ranks, Demšar 2006).\n"
        "Few blocks (flip-0.25: N = 4; flip-0.5: N = 4): the p-values rest on chi-square / F approximations "
        "that are rough for fewer than 5 data sets.\n"
        "Test blocks (flip-0.25: N = 4; flip-0.5: N = 4): the data sets (per-data-set means over repetitions), "
        "as Demšar (2006) prescribes.\n"
    )
    assert table.to_markdown() == expected
    # The numbers behind the marks (hand-checked): chi2_F = 6.5 and 4.5, F_F = 13 and 27/7 with
    # (2, 6) df, whose p-values are (1 + F/3)^-3 in closed form.
    assert table.pvalues["flip-0.25"] == pytest.approx((1 + 13 / 3) ** -3)
    assert table.pvalues["flip-0.5"] == pytest.approx((1 + 9 / 7) ** -3)
    c = comps["flip-0.25"]
    assert c.average_ranks.to_dict() == {"pu_shrf": 1.25, "nnpu": 1.75, "naive": 3.0}
    assert round(c.friedman.chi2, 3) == 6.5
    assert c.control.control == "pu_shrf" and c.control.rejected("naive") and not c.control.rejected("nnpu")
    # flip-0.5: naive wins on d4, the omnibus test does not reject; Holm still compares.
    c = comps["flip-0.5"]
    assert c.average_ranks.to_dict() == {"pu_shrf": 1.25, "nnpu": 2.0, "naive": 2.75}
    # z = 1.5 / sqrt(1/2) = 2.12, p = 0.034, Holm-adjusted 0.068 > 0.05: naive is not rejected.
    assert not c.control.rejected("naive")


def test_summary_table_bolds_naive_where_holm_does_not_reject_it():
    table, _ = summary_table(_results(), "f1", "setting")
    assert table.not_worse.loc["naive"].tolist() == [False, True]
    assert table.to_markdown().count("**") == 2 * 5  # 5 bold cells: 2 best + nnpu x 2 + naive at flip-0.5


def test_summary_table_all_grouping_uses_pairs_as_blocks_and_lower_is_better():
    table, comps = summary_table(_results(), "brier", "all", decimals=2)
    assert list(table.mean.columns) == ["all"]
    assert comps["all"].greater_is_better is False and len(comps["all"].blocks) == 8
    md = table.to_markdown()
    assert "Lower is better" in md
    assert "| pu_shrf | **<ins>0.30 ± 0.13</ins>** |" in md


def test_per_dataset_tables_golden_markdown():
    tables = per_dataset_tables(_results(), "f1", title_prefix="exp: ")
    assert list(tables) == ["d1", "d2", "d3", "d4"]
    expected = (
        "### exp: F1 on d4 (mean ± sd over repetitions)\n"
        "\n"
        "| method | flip-0.25 | flip-0.5 |\n"
        "|---|:---:|:---:|\n"
        "| pu_shrf | **<ins>0.620 ± 0.014</ins>** | **<ins>0.500 ± 0.014</ins>** |\n"
        "| nnpu | 0.600 ± 0.014 | 0.400 ± 0.014 |\n"
        "| naive | 0.200 ± 0.014 | 0.450 ± 0.014 |\n"
        "\n"
        "Higher is better. Best value per column in bold and underlined.\n"
    )
    assert tables["d4"].to_markdown() == expected


def test_latex_booktabs_golden():
    table, _ = summary_table(_results(), "f1", "setting", decimals=1, scale=100, style="paren")
    table.title = "F1 (%)"
    expected = (
        "\\begin{table}[ht]\n"
        "\\centering\n"
        "\\caption{F1 (\\%)}\n"
        "\\begin{tabular}{lcc}\n"
        "\\toprule\n"
        "Method & flip-0.25 & flip-0.5 \\\\\n"
        "\\midrule\n"
        "pu\\_shrf & \\textbf{\\underline{75.5 (12.2)}} & \\textbf{\\underline{65.0 (12.9)}} \\\\\n"
        "nnpu & \\textbf{73.0 (10.3)} & \\textbf{60.5 (17.6)} \\\\\n"
        "naive & 35.0 (12.9) & \\textbf{26.2 (14.9)} \\\\\n"
        "\\midrule\n"
        "Iman-Davenport $p$ & 0.0066 & 0.0837 \\\\\n"
        "\\bottomrule\n"
        "\\end{tabular}\n"
        "\\par\\smallskip{\\footnotesize Higher is better. Best value per column in bold and underlined. "
        "Bold: not significantly worse than the best-ranked method (Holm's post hoc test on average ranks, "
        "Demšar 2006). Few blocks (flip-0.25: N = 4; flip-0.5: N = 4): the p-values rest on chi-square / F "
        "approximations that are rough for fewer than 5 data sets. Test blocks (flip-0.25: N = 4; flip-0.5: "
        "N = 4): the data sets (per-data-set means over repetitions), as Demšar (2006) prescribes.}\n"
        "\\end{table}\n"
    )
    assert table.to_latex() == expected


def test_csv_and_html_carry_the_same_numbers_and_marks():
    table, _ = summary_table(_results(), "f1", "setting")
    df = pd.read_csv(__import__("io").StringIO(table.to_csv()))
    assert list(df.columns) == ["metric", "method", "column", "mean", "sd", "n", "best",
                                "not_worse_than_best", "iman_davenport_p"]
    row = df[(df["method"] == "nnpu") & (df["column"] == "flip-0.25")].iloc[0]
    assert row["mean"] == pytest.approx(0.73) and row["n"] == 4
    assert bool(row["not_worse_than_best"]) and not bool(row["best"])
    assert row["iman_davenport_p"] == pytest.approx(table.pvalues["flip-0.25"], rel=1e-5)
    html = table.to_html()
    assert "<b><u>0.755 ± 0.122</u></b>" in html and "<b>0.730 ± 0.103</b>" in html
    assert "Iman-Davenport p</th><td>0.0066</td>" in html


def test_cells_equal_in_print_are_all_best_and_missing_cells_are_dashes():
    mean = pd.DataFrame({"c": [0.8004, 0.7996, np.nan]}, index=["a", "b", "x"])
    sd = pd.DataFrame({"c": [0.1, 0.1, np.nan]}, index=mean.index)
    count = pd.DataFrame({"c": [3, 1, 0]}, index=mean.index)
    t = PaperTable("f1", mean, sd, count)
    md = t.to_markdown()
    assert "| a | **<ins>0.800 ± 0.100</ins>** |" in md
    assert "| b | **<ins>0.800</ins>** |" in md   # one repetition: mean only
    assert "| x | – |" in md


def test_fewer_than_two_blocks_gives_a_table_with_p_n_a_and_the_reason():
    df = _results()
    df = df[df["dataset"] == "d1"]
    table, comps = summary_table(df, "f1", "setting")
    assert isinstance(comps["flip-0.25"], str) and "at least 2 complete blocks" in comps["flip-0.25"]
    md = table.to_markdown()
    assert "| Iman-Davenport p | n/a | n/a |" in md
    assert "flip-0.25: no test (the Friedman test needs at least 2 complete blocks" in md


def test_incomplete_block_is_dropped_and_named_in_the_notes():
    df = _results()
    df = df[~((df["dataset"] == "d3") & (df["method"] == "naive") & (df["setting"] == "flip-0.5"))]
    with pytest.warns(UserWarning, match="d3"):
        table, comps = summary_table(df, "f1", "setting")
    assert comps["flip-0.5"].blocks == ["d1", "d2", "d4"]
    assert table.count.loc["naive", "flip-0.5"] == 3
    assert "flip-0.5: dropping 1 incomplete block(s): 'd3' (missing: naive)" in table.to_markdown()


def test_builders_reject_unknown_grouping_metric_style_and_format():
    with pytest.raises(ValueError, match="grouping"):
        summary_table(_results(), "f1", "dataset")
    with pytest.raises(ValueError, match="lack column"):
        summary_table(_results(), "mcc", "setting")
    with pytest.raises(ValueError, match="style"):
        per_dataset_tables(_results(), "f1", style="latex")
    with pytest.raises(ValueError, match="format"):
        render_tables([], "docx")


def test_write_table_files_writes_every_format_and_nothing_else(tmp_path):
    tables = per_dataset_tables(_results(), "f1")
    out = {fmt: tmp_path / f"t.{fmt}" for fmt in ("md", "tex", "csv", "html")}
    write_table_files(tables, out, html_title="t")
    assert out["md"].read_text().count("### ") == 4
    assert out["tex"].read_text().startswith("% requires \\usepackage{booktabs}")
    assert out["tex"].read_text().count("\\begin{table}") == 4
    assert out["html"].read_text().startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv", "t.html", "t.md", "t.tex"]


def test_write_stats_outputs_writes_json_tables_and_figures(tmp_path):
    names = ["json", "md", "tex", "csv", "html", "cd_png", "cd_pdf", "ranks_png", "ranks_pdf"]
    ext = {"cd_png": "png", "cd_pdf": "pdf", "ranks_png": "png", "ranks_pdf": "pdf"}
    for grouping in ("setting", "all"):
        out = {k: tmp_path / f"{grouping}_{k}.{ext.get(k, k)}" for k in names}
        msg = write_stats_outputs(_results(), experiment="exp", metric="f1", grouping=grouping,
                                  options={"alpha": 0.05, "control": "best", "cliques": "nemenyi",
                                           "decimals": 3, "scale": 1, "style": "pm"},
                                  outputs=out, provenance={"config_hash": "abc", "paper_table": "Table 3"})
        # "all": 8 blocks, rank sums 10 / 15 / 23, chi2_F = 10.75, F_F = 75.25 / 5.25 with (2, 14) df,
        # p = (1 + 2 F_F / 14) ** -7 = 0.0004
        p_text = {"setting": "flip-0.25: p = 0.0066, best pu_shrf, flip-0.5: p = 0.0837, best pu_shrf",
                  "all": "all: p = 0.0004, best pu_shrf"}[grouping]
        assert msg == f"exp f1 {grouping}: {2 if grouping == 'setting' else 1}/" \
                      f"{2 if grouping == 'setting' else 1} columns tested ({p_text})"
        doc = json.loads(out["json"].read_text())
        assert doc["config_hash"] == "abc" and doc["paper_table"] == "Table 3"
        assert doc["grouping"] == grouping
        for k in ("cd_png", "ranks_png"):
            assert out[k].read_bytes()[:4] == b"\x89PNG"
        for k in ("cd_pdf", "ranks_pdf"):
            assert out[k].read_bytes()[:4] == b"%PDF"
    doc = json.loads((tmp_path / "setting_json.json").read_text())
    assert set(doc["columns"]) == {"flip-0.25", "flip-0.5"}
    assert round(doc["columns"]["flip-0.25"]["friedman"]["chi2"], 3) == 6.5
    # Not enough blocks: JSON says why, figures are placeholders, nothing fails.
    out = {k: tmp_path / f"one_{k}.{ext.get(k, k)}" for k in names}
    one = _results()[lambda d: d["dataset"] == "d1"]
    write_stats_outputs(one, experiment="exp", metric="f1", grouping="setting",
                        options={"alpha": 0.05}, outputs=out)
    doc = json.loads(out["json"].read_text())
    assert "at least 2 complete blocks" in doc["columns"]["flip-0.25"]["error"]
    assert any("no test" in n for n in doc["notes"])
    assert out["cd_png"].read_bytes()[:4] == b"\x89PNG"


def test_mean_sd_table_joins_dataset_and_setting_into_columns():
    t = mean_sd_table(_results(), "f1")
    assert list(t.mean.columns)[:2] == ["d1 / flip-0.25", "d2 / flip-0.25"]
    assert t.count.loc["naive", "d1 / flip-0.25"] == 2


def test_wide_table_orders_columns_and_dataset_tables_picks_the_layout():
    from pu_lib.workflow.reporting import dataset_tables, wide_table

    df = _results()
    one = df[df["setting"] == "flip-0.5"]
    t = wide_table(one, "f1", datasets=["d4", "d3", "d2", "d1"])
    assert list(t.mean.columns) == ["d4", "d3", "d2", "d1"]
    md = t.to_markdown()
    assert md.startswith("### F1 per data set (flip-0.5) (mean ± sd over repetitions)")
    assert "| naive | 0.300 ± 0.014 | 0.100 ± 0.014 | 0.200 ± 0.014 | 0.300 ± 0.014 |" not in md
    assert "| naive | 0.450 ± 0.014 | 0.100 ± 0.014 | 0.200 ± 0.014 | 0.300 ± 0.014 |" in md
    assert "| nnpu | 0.400 ± 0.014 | 0.550 ± 0.014 | 0.650 ± 0.014 | **<ins>0.820 ± 0.014</ins>** |" in md
    assert [len(x.mean.columns) for x in dataset_tables(one, "f1")] == [4]          # auto -> wide
    assert len(dataset_tables(df, "f1")) == 4                                        # auto -> tables
    assert list(dataset_tables(df, "f1", "wide")[0].mean.columns)[:2] == ["d1 / flip-0.25", "d1 / flip-0.5"]
    per = dataset_tables(df, "f1", "per_setting", settings=["flip-0.5", "flip-0.25"])
    assert [list(x.mean.columns) for x in per] == [["d1", "d2", "d3", "d4"]] * 2
    assert per[0].title.endswith("(flip-0.5) (mean ± sd over repetitions)")
    assert per[0].to_markdown() == dataset_tables(one, "f1", "wide")[0].to_markdown()
    with pytest.raises(ValueError, match="layout"):
        dataset_tables(df, "f1", "long")


def test_perfect_agreement_prints_p_below_the_floor_and_is_noted():
    df = _results()
    df = df[df["method"] != "naive"]
    df = df[~((df["dataset"] == "d3") | ((df["dataset"] == "d1") & (df["setting"] == "flip-0.5")))]
    table, comps = summary_table(df, "f1", "setting")
    assert comps["flip-0.25"].friedman.f_stat == float("inf")
    assert table.pvalues["flip-0.25"] == 0.0
    md = table.to_markdown()
    assert "| Iman-Davenport p | < 0.0001 | < 0.0001 |" in md
    assert "Every block ranks the methods identically in flip-0.25, flip-0.5: F_F is infinite" in md


def test_scale_applies_to_rates_but_not_to_fit_seconds():
    from pu_lib.workflow.reporting import dataset_tables, effective_scale

    assert effective_scale("accuracy", 100) == 100 and effective_scale("fit_seconds", 100) == 1.0
    df = _results().assign(fit_seconds=2.5)
    t = dataset_tables(df[df["setting"] == "flip-0.5"], "fit_seconds", scale=100, decimals=2)[0]
    assert "| pu_shrf | **<ins>2.50 ± 0.00</ins>** |" in t.to_markdown()


# ----------------------------------------------------------------- pooled layout (Bekker Tables 5.2-5.3)
def _sar_results():
    rows = []
    for k, sel, value in ((1, "random", 0.10), (2, "random", 0.20), (2, "correlated", 0.90)):
        for rep in range(2):
            for method, shift in (("sar_em", 0.0), ("naive", 0.05)):
                rows.append({"dataset": "d1", "setting": f"sar-k{k}-{sel}", "mechanism": "sar",
                             "setting_params": json.dumps({"k": k, "selection": sel}), "method": method,
                             "rep": rep, "brier": value + shift + 0.01 * rep})
    return pd.DataFrame(rows)


def test_select_settings_matches_values_and_lists():
    from pu_lib.workflow.reporting import select_settings

    df = _sar_results()
    assert set(select_settings(df, {"selection": "random"})["setting"]) == {"sar-k1-random", "sar-k2-random"}
    assert set(select_settings(df, {"k": [2]})["setting"]) == {"sar-k2-random", "sar-k2-correlated"}
    assert select_settings(df, None) is df
    with pytest.raises(ValueError, match="no result rows"):
        select_settings(df, {"k": 7})


def test_pooled_layout_averages_the_matching_settings_only():
    from pu_lib.workflow.reporting import dataset_tables

    (table,) = dataset_tables(_sar_results(), "brier", "pooled", pool_where={"selection": "random"}, decimals=3)
    # sar_em over k1 and k2 random, 2 repetitions each: (0.10 + 0.11 + 0.20 + 0.21) / 4
    assert table.mean.loc["sar_em"].iloc[0] == pytest.approx(0.155)
    assert table.count.loc["naive"].iloc[0] == 4
    assert "pooled: selection random" in table.title
    with pytest.raises(ValueError, match="pooled"):
        dataset_tables(_sar_results(), "brier", "nonsense")


def test_test_blocks_dataset_repetitions_tests_every_pair_and_keeps_the_cells():
    # the PU Hellinger authors' convention: (data set, repetition) pairs as blocks
    df = _results()
    demsar, c1 = summary_table(df, "f1", "setting")
    authors, c2 = summary_table(df, "f1", "setting", test_blocks="dataset_repetitions")
    pd.testing.assert_frame_equal(demsar.mean, authors.mean)
    assert len(c1["flip-0.25"].blocks) == 4 and len(c2["flip-0.25"].blocks) == 8  # 4 data sets x 2 reps
    assert c2["flip-0.25"].blocks[0] == "d1 / 0"
    md = authors.to_markdown()
    assert "Test blocks (flip-0.25: N = 8; flip-0.5: N = 8): data set x repetition pairs" in md
    assert "Few blocks" not in md
    with pytest.raises(ValueError, match="test_blocks"):
        summary_table(df, "f1", "setting", test_blocks="repetitions")
    with pytest.raises(ValueError, match="rep"):
        summary_table(df.drop(columns="rep"), "f1", "setting", test_blocks="dataset_repetitions")


def test_a_mean_over_fewer_data_sets_is_marked_and_the_missing_ones_named():
    df = _results()
    df = df[~((df["dataset"] == "d3") & (df["method"] == "naive") & (df["setting"] == "flip-0.5"))]
    with pytest.warns(UserWarning):
        table, _ = summary_table(df, "f1", "setting")
    md = table.to_markdown()
    assert table.incomplete.loc["naive", "flip-0.5"] and not table.incomplete.loc["naive", "flip-0.25"]
    assert "| naive | 0.350 ± 0.129 | **0.317 ± 0.126 †** |" in md  # (0.30 + 0.20 + 0.45) / 3
    assert "† flip-0.5: naive is averaged over 3 of 4 data sets (no score on d3)." in md
    assert "\\textdagger{}" in table.to_latex()


def test_write_stats_outputs_writes_one_table_per_test_convention(tmp_path):
    import json

    outputs = {k: tmp_path / f"t.{k}" for k in ("json", "md")}
    outputs.update({k: tmp_path / f"f_{k}.png" for k in ("cd_png", "ranks_png")})
    write_stats_outputs(_results(), experiment="exp", metric="f1", grouping="setting",
                        options={"test_blocks": ["datasets", "dataset_repetitions"]}, outputs=outputs)
    md = outputs["md"].read_text()
    assert "[test blocks: datasets]" in md and "[test blocks: dataset_repetitions]" in md
    doc = json.loads(outputs["json"].read_text())
    assert doc["test_blocks"] == "datasets"
    assert doc["by_test_blocks"]["dataset_repetitions"]["columns"]["flip-0.25"]["n_blocks"] == 8
