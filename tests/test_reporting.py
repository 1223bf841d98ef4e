import pandas as pd

from pu_lib.reporting import mean_sd_table


def _frame():
    rows = []
    for method, vals in [("naive", [0.5, 0.7]), ("elkan_noto", [0.8, 0.9])]:
        for rep, v in enumerate(vals):
            rows.append({"method": method, "dataset": "d1", "setting": "scar_c-c0.5", "rep": rep, "f1": v})
    rows.append({"method": "naive", "dataset": "d2", "setting": "scar_c-c0.5", "rep": 0, "f1": 0.25})
    return pd.DataFrame(rows)


def test_markdown_table_golden():
    table = mean_sd_table(_frame(), "f1")
    expected = (
        "### F1\n"
        "\n"
        "| method | d1 / scar_c-c0.5 | d2 / scar_c-c0.5 |\n"
        "|---|:---:|:---:|\n"
        "| naive | 0.600 ± 0.141 | 0.250 |\n"
        "| elkan_noto | 0.850 ± 0.071 | – |\n"
    )
    assert table.to_markdown("F1") == expected


def test_csv_has_numbers():
    table = mean_sd_table(_frame(), "f1")
    csv = table.to_csv().splitlines()
    assert csv[0] == "metric,method,column,mean,sd,n"
    assert csv[1].startswith("f1,naive,d1 / scar_c-c0.5,0.6,0.141421")
