"""pu_lib.workflow.stats against Demšar (2006) Table 6, hand-checked cases, and (test-only)
cross-checks with scikit-posthocs and statsmodels."""

import json

import numpy as np
import pandas as pd
import pytest

from pu_lib.workflow.stats import (
    IncompleteBlockWarning,
    compare,
    compare_results,
    critical_difference,
    format_p_value,
    friedman_test,
    holm_adjust,
    rank_matrix,
    score_matrix,
)

# Demšar (2006), Table 6: ranks of C4.5 variants on 14 data sets (1 = best).
DEMSAR_METHODS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_RANKS = np.array([
    [4, 3, 2, 1], [1, 2, 3, 4], [4, 1, 2, 3], [4, 1, 3, 2], [4, 2, 3, 1],
    [1, 2.5, 4, 2.5], [3, 2, 4, 1], [2.5, 2.5, 4, 1], [4, 3, 2, 1],
    [2.5, 2.5, 2.5, 2.5], [4, 2.5, 1, 2.5], [3, 2, 4, 1], [4, 1, 2, 3], [3, 1, 4, 2],
])


@pytest.fixture
def demsar():
    # The ranks themselves serve as scores where lower is better.
    return compare(DEMSAR_RANKS, greater_is_better=False, methods=DEMSAR_METHODS, control="C4.5")


def test_demsar_average_ranks_match_table_6(demsar):
    assert np.round(demsar.average_ranks.to_numpy(), 3).tolist() == [3.143, 2.000, 2.893, 1.964]
    np.testing.assert_array_equal(demsar.ranks.to_numpy(), DEMSAR_RANKS)


def test_demsar_friedman_and_iman_davenport_match_the_paper(demsar):
    f = demsar.friedman
    assert round(f.chi2, 2) == 9.28
    assert round(f.f_stat, 2) == 3.69
    assert (f.f_df1, f.f_df2) == (3, 39)
    assert round(f.f_pvalue, 4) == 0.0198
    assert (f.n_blocks, f.n_methods, f.chi2_df) == (14, 4, 3)


def test_scipy_friedman_differs_by_tie_correction():
    from scipy.stats import friedmanchisquare

    assert round(friedmanchisquare(*DEMSAR_RANKS.T).statistic, 3) == 10.228
    assert round(friedman_test(DEMSAR_RANKS).chi2, 2) == 9.28


def test_demsar_critical_differences_match_table_5(demsar):
    assert round(demsar.cd_nemenyi, 3) == 1.254
    # Bonferroni-Dunn, k = 4: q_0.05 = 2.394 (Demšar Table 5b).
    assert round(demsar.cd_bonferroni_dunn, 3) == round(2.394 * np.sqrt(4 * 5 / (6 * 14)), 3)
    assert round(critical_difference(4, 14, 0.10, "nemenyi"), 3) == round(2.291 * np.sqrt(20 / 84), 3)


def test_demsar_holm_against_c45_rejects_two_of_three(demsar):
    ph = demsar.control
    assert ph.control == "C4.5"
    rows = ph.comparisons.set_index("method")
    assert round(rows.loc["C4.5+m+cf", "p"], 4) == 0.0157
    assert round(rows.loc["C4.5+m", "p"], 4) == 0.0192
    assert round(rows.loc["C4.5+cf", "p"], 3) == 0.608
    assert rows.loc["C4.5+m+cf", "reject"] and rows.loc["C4.5+m", "reject"]
    assert not rows.loc["C4.5+cf", "reject"]
    # Holm's order: increasing raw p.
    assert ph.comparisons["method"].tolist() == ["C4.5+m+cf", "C4.5+m", "C4.5+cf"]
    # Sequential thresholds alpha/3, alpha/2, alpha (Demšar's text): 0.0157 < 0.0167, 0.0192 < 0.025.
    assert rows.loc["C4.5+m+cf", "p"] < 0.05 / 3 and rows.loc["C4.5+m", "p"] < 0.05 / 2
    assert demsar.not_worse_than_control() == ["C4.5", "C4.5+cf"]


def test_default_control_is_the_best_ranked_method():
    c = compare(DEMSAR_RANKS, greater_is_better=False, methods=DEMSAR_METHODS)
    assert c.best == "C4.5+m+cf" and c.control.control == "C4.5+m+cf"
    # C4.5+m+cf vs C4.5 has z = 2.416, p = 0.0157: the only rejection at 5% after Holm (0.047).
    assert [m for m in DEMSAR_METHODS if c.control.rejected(m)] == ["C4.5"]


def test_holm_adjust_hand_checked_monotone_and_capped_at_1():
    adj, rej = holm_adjust([0.01, 0.04, 0.03], alpha=0.05)
    np.testing.assert_allclose(adj, [0.03, 0.06, 0.06])
    assert rej.tolist() == [True, False, False]
    adj, rej = holm_adjust([0.5, 0.9], alpha=0.05)
    np.testing.assert_allclose(adj, [1.0, 1.0])  # capped at 1
    with pytest.raises(ValueError):
        holm_adjust([0.1, np.nan])


def test_holm_matches_statsmodels():
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    rng = np.random.default_rng(0)
    for m in (1, 2, 5, 17):
        p = rng.uniform(0, 0.2, m)
        p[0] = p[-1]  # a tie
        ours_adj, ours_rej = holm_adjust(p, 0.05)
        rej, adj, _, _ = multipletests(p, alpha=0.05, method="holm")
        np.testing.assert_allclose(ours_adj, adj)
        np.testing.assert_array_equal(ours_rej, rej)


def test_all_pairs_holm_matches_scikit_posthocs():
    sp = pytest.importorskip("scikit_posthocs")
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(20, 5)) + np.arange(5) * 0.4
    c = compare(scores, greater_is_better=True, methods=list("ABCDE"))
    # scikit-posthocs' Conover-free "siegel_friedman" test uses the same z statistic and
    # Holm over all pairs on the rank matrix.
    ref = sp.posthoc_siegel_friedman(scores, p_adjust="holm")
    for r in c.pairs.comparisons.itertuples(index=False):
        i, j = "ABCDE".index(r.method), "ABCDE".index(r.versus)
        assert r.p_holm == pytest.approx(ref.iloc[i, j], rel=1e-9)


def test_nemenyi_matches_scikit_posthocs_raw():
    sp = pytest.importorskip("scikit_posthocs")
    from scipy.stats import studentized_range

    rng = np.random.default_rng(5)
    scores = rng.normal(size=(12, 4)) + np.arange(4) * 0.5
    c = compare(scores, greater_is_better=True, methods=list("ABCD"))
    ref = sp.posthoc_nemenyi_friedman(scores)
    # Nemenyi p-value of a pair = P(q > |R_i - R_j| / sqrt(k(k+1)/(6N)) * sqrt(2)); consistent with our CD:
    n, k = scores.shape
    for i in range(k):
        for j in range(i + 1, k):
            diff = abs(c.average_ranks.iloc[i] - c.average_ranks.iloc[j])
            q = diff / np.sqrt(k * (k + 1) / (6 * n)) * np.sqrt(2)
            assert ref.iloc[i, j] == pytest.approx(studentized_range.sf(q, k, np.inf), abs=1e-6)
            assert (diff >= c.cd_nemenyi) == (ref.iloc[i, j] <= 0.05)


def test_rank_matrix_averages_ties_and_follows_the_direction():
    s = np.array([[0.9, 0.9, 0.1], [0.2, 0.5, 0.5]])
    np.testing.assert_array_equal(rank_matrix(s, True), [[1.5, 1.5, 3], [3, 1.5, 1.5]])
    np.testing.assert_array_equal(rank_matrix(s, False), [[2.5, 2.5, 1], [1, 2.5, 2.5]])
    with pytest.raises(ValueError, match="NaN"):
        rank_matrix([[1.0, np.nan]])


def test_all_tied_blocks_give_zero_statistics_p_one_and_one_clique():
    c = compare(np.ones((5, 3)), methods=["a", "b", "c"])
    assert c.friedman.chi2 == 0 and c.friedman.f_stat == 0
    assert c.friedman.chi2_pvalue == 1 and c.friedman.f_pvalue == 1
    assert not c.control.comparisons["reject"].any()
    assert c.average_ranks.tolist() == [2.0, 2.0, 2.0]
    assert c.best == "a"
    assert c.cliques() == [["a", "b", "c"]]


def test_perfect_agreement_gives_infinite_f_and_prints_p_below_the_floor():
    scores = np.tile([3.0, 2.0, 1.0], (6, 1))
    c = compare(scores, methods=["a", "b", "c"])
    assert c.friedman.chi2 == pytest.approx(6 * 2)
    assert c.friedman.f_stat == np.inf and c.friedman.f_pvalue == 0
    d = json.loads(c.to_json())
    assert d["friedman"]["f_stat"] == "inf"
    # chi2 = 12 with 2 df: p = exp(-6) = 0.0025; F_F = inf: p = 0 prints as "p < 0.0001"
    assert str(c.friedman) == ("Friedman chi2_F = 12.000 (df 2, p = 0.0025); Iman-Davenport F_F = inf "
                               "(df 2, 10, p < 0.0001); N = 6, k = 3")


def test_compare_rejects_too_few_methods_or_blocks_and_bad_arguments():
    with pytest.raises(ValueError, match="at least 2 methods"):
        compare(np.ones((4, 1)))
    with pytest.raises(ValueError, match="at least 2 complete blocks"):
        compare(np.ones((1, 3)))
    with pytest.raises(ValueError, match="alpha"):
        compare(np.ones((3, 3)), alpha=1.5)
    with pytest.raises(ValueError, match="control"):
        compare(np.ones((3, 2)), methods=["a", "b"], control="zzz")
    with pytest.raises(ValueError, match="inf"):
        compare(np.array([[1.0, np.inf], [1, 2]]))
    with pytest.raises(ValueError, match="nemenyi"):
        critical_difference(3, 5, test="tukey")


def test_incomplete_blocks_are_dropped_with_a_named_warning():
    scores = pd.DataFrame({"a": [0.9, 0.8, np.nan, 0.7], "b": [0.5, 0.6, 0.4, 0.1]},
                          index=["iris", "wine", "yeast6", "pen"])
    with pytest.warns(IncompleteBlockWarning, match=r"'yeast6' \(missing: a\)"):
        c = compare(scores)
    assert c.blocks == ["iris", "wine", "pen"] and c.dropped_blocks == ["yeast6"]
    assert json.loads(c.to_json())["dropped_blocks"] == ["yeast6"]
    # blocks missing the same methods are named together: first ... last and their count
    reps = pd.DataFrame({"a": [np.nan] * 5 + [0.9, 0.8, 0.7], "b": [0.5] * 5 + [0.1, 0.2, 0.3]},
                        index=[f"POK / {r}" for r in range(5)] + ["iris", "wine", "pen"])
    with pytest.warns(IncompleteBlockWarning,
                      match=r"dropping 5 incomplete block\(s\): 5 blocks 'POK / 0' \.\.\. 'POK / 4' \(missing: a\)$"):
        assert compare(reps).blocks == ["iris", "wine", "pen"]
    with pytest.warns(IncompleteBlockWarning), pytest.raises(ValueError, match="got 0 after dropping 4"):
        compare(pd.DataFrame({"a": [1.0, np.nan, np.nan, np.nan], "b": [np.nan, 1.0, 2.0, np.nan]}))


def test_result_objects_print_and_serialise(demsar):
    text = str(demsar)
    assert "Iman-Davenport F_F = 3.686 (df 3, 39, p = 0.0198)" in text
    # Holm: 0.0157 * 3 = 0.0472, then max(0.0192 * 2, 0.0472) (monotone), then 0.6084 * 1
    assert "  C4.5+m+cf vs C4.5: z = -2.415, p = 0.0157, p_holm = 0.0472 -> reject" in text.splitlines()
    assert "  C4.5+m vs C4.5: z = -2.342, p = 0.0192, p_holm = 0.0472 -> reject" in text.splitlines()
    assert "  C4.5+cf vs C4.5: z = -0.512, p = 0.6084, p_holm = 0.6084 -> retain" in text.splitlines()
    assert "Nemenyi 1.254" in text and "C4.5+m+cf vs C4.5" in text
    d = json.loads(demsar.to_json())
    assert d["n_blocks"] == 14 and d["best"] == "C4.5+m+cf"
    assert round(d["friedman"]["chi2"], 2) == 9.28
    assert [r["reject"] for r in d["holm_control"]["comparisons"]] == [True, True, False]
    assert d["cliques_nemenyi"] == [["C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]]


def test_score_matrix_averages_repetitions_and_compare_results_takes_the_direction_from_metrics():
    rows = []
    for ds, base in [("d1", 0.9), ("d2", 0.7), ("d3", 0.5)]:
        for method, off in [("good", 0.0), ("bad", -0.2)]:
            for rep in range(3):
                rows.append({"dataset": ds, "setting": "s", "method": method, "rep": rep,
                             "f1": base + off + 0.01 * rep, "brier": 0.1 - off})
    df = pd.DataFrame(rows)
    mat = score_matrix(df, "f1", ["dataset", "setting"])
    assert mat.index.tolist() == ["d1 / s", "d2 / s", "d3 / s"]
    assert mat.columns.tolist() == ["good", "bad"]
    assert mat.loc["d1 / s", "good"] == pytest.approx(0.91)
    c = compare_results(df, "f1", ["dataset"])
    assert c.best == "good" and c.average_ranks["bad"] == 2
    c = compare_results(df, "brier", ["dataset"])   # lower is better, from METRICS
    assert c.greater_is_better is False and c.best == "good"
    with pytest.raises(ValueError, match="not a column"):
        score_matrix(df, "mcc")


def test_cliques_from_cd_are_maximal_runs_within_the_cd():
    from pu_lib.workflow.stats import cliques_from_cd

    r = [1.0, 1.5, 2.6, 3.0, 4.9]
    assert cliques_from_cd(r, list("abcde"), 1.2) == [["a", "b"], ["b", "c"], ["c", "d"]]
    assert cliques_from_cd(r, list("abcde"), 1.6) == [["a", "b"], ["b", "c", "d"]]
    assert cliques_from_cd(r, list("abcde"), 0.1) == []


def test_format_p_value_has_one_style_for_text_tables_and_figures():
    assert format_p_value(0.019765) == "0.0198"
    assert format_p_value(0.5) == "0.5000"
    assert format_p_value(1e-4) == "0.0001"
    assert format_p_value(0.99999) == "1.0000"
    assert format_p_value(9.99e-5) == "< 0.0001"
    assert format_p_value(0.0) == "< 0.0001"
    assert format_p_value(None) == "n/a"
    assert format_p_value(float("nan")) == "n/a"
    assert format_p_value(np.float64(0.0198)) == "0.0198"
    assert format_p_value(0.019765, "p") == "p = 0.0198"
    assert format_p_value(3e-7, "p_holm") == "p_holm < 0.0001"
    assert format_p_value(None, "p") == "p = n/a"
