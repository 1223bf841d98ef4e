import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from pu_lib.workflow.figures import (
    cd_diagram,
    cd_diagrams,
    notice_figure,
    rank_plot,
    rank_plots,
    save_figure,
)
from pu_lib.workflow.stats import compare

# Demšar (2006), JMLR 7, Table 6: ranks of four C4.5 variants on 14 data sets.
METHODS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
TABLE6 = [
    [4, 3, 2, 1], [1, 2, 3, 4], [4, 1, 2, 3], [4, 1, 3, 2], [4, 2, 3, 1],
    [1, 2.5, 4, 2.5], [3, 2, 4, 1], [2.5, 2.5, 4, 1], [4, 3, 2, 1],
    [2.5, 2.5, 2.5, 2.5], [4, 2.5, 1, 2.5], [3, 2, 4, 1], [4, 1, 2, 3], [3, 1, 4, 2],
]


@pytest.fixture(scope="module")
def demsar():
    scores = pd.DataFrame(TABLE6, columns=METHODS, index=[f"ds{i + 1}" for i in range(14)])
    return compare(scores, greater_is_better=False, metric="rank")


def _texts(fig):
    from matplotlib.text import Text

    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def _label_of(texts, name):
    pat = re.compile(r"^(\(\d+\.\d+\) )?" + re.escape(name) + r"( \(\d+\.\d+\))?$")
    return [t for t in texts if pat.match(t)]


def test_cd_diagram_of_demsar_table_6_draws_cd_ranks_title_and_one_clique(demsar):
    from matplotlib.figure import Figure

    assert demsar.cd_nemenyi == pytest.approx(1.254, abs=5e-4)
    fig = cd_diagram(demsar)
    assert isinstance(fig, Figure)
    texts = _texts(fig)
    assert "CD = 1.254" in texts
    # Demšar's average ranks, two decimals, best half labelled on the left
    assert {m: _label_of(texts, m)[0] for m in METHODS} == {
        "C4.5+m+cf": "C4.5+m+cf (1.96)", "C4.5+m": "C4.5+m (2.00)",
        "C4.5+cf": "(2.89) C4.5+cf", "C4.5": "(3.14) C4.5",
    }
    assert "rank: N = 14 blocks, Iman-Davenport p = 0.0198" in texts
    # 3.143 - 1.964 = 1.179 < CD: one bar joins all four methods
    assert fig.pu_cliques == [["C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]]
    assert fig.pu_cd == pytest.approx(1.254, abs=5e-4)
    assert fig.pu_clique_rule == "nemenyi"


# Holm over all 6 pairs: the smallest p, 0.0157, times 6 exceeds 0.05, so no pair differs.
# Bonferroni-Dunn: CD = 2.394 sqrt(20 / 84) = 1.168 < 3.143 - 1.964, so two bars.
@pytest.mark.parametrize("rule,cd_text,cliques", [
    ("holm", "CD = 1.254", [["C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]]),
    ("bonferroni_dunn", "CD = 1.168", [["C4.5+m+cf", "C4.5+m", "C4.5+cf"], ["C4.5+m", "C4.5+cf", "C4.5"]]),
])
def test_cd_diagram_other_rules_draw_their_cliques_and_cd(demsar, rule, cd_text, cliques):
    fig = cd_diagram(demsar, cliques=rule, title="custom")
    assert fig.pu_cliques == cliques
    texts = _texts(fig)
    assert cd_text in texts
    assert "custom" in texts


def test_cd_diagram_rejects_an_unknown_clique_rule(demsar):
    with pytest.raises(ValueError, match="clique rule"):
        cd_diagram(demsar, cliques="tukey")


def test_cd_diagram_into_given_axes_returns_their_figure(demsar):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 3))
    ax = fig.add_subplot()
    assert cd_diagram(demsar, ax=ax) is fig
    assert ax.pu_cliques == demsar.cliques()


def test_height_grows_with_methods():
    rng = np.random.default_rng(0)
    heights = []
    for k in (2, 6, 20):
        c = compare(pd.DataFrame(rng.random((8, k)), columns=[f"m{j}" for j in range(k)]))
        fig = cd_diagram(c)
        assert len(_label_of(_texts(fig), "m0")) == 1
        heights.append(fig.get_figheight())
    assert heights[0] < heights[1] < heights[2]


def test_small_tied_and_perfect_comparisons_render(tmp_path):
    two = compare(pd.DataFrame(TABLE6, columns=METHODS).iloc[:, :2], greater_is_better=False)
    tied = compare(pd.DataFrame(np.ones((5, 5)), columns=list("abcde")))
    assert tied.cliques() == [list("abcde")]
    for i, c in enumerate((two, tied)):
        fig = cd_diagram(c)
        assert fig.pu_cliques == c.cliques()
        save_figure(fig, tmp_path / f"cd{i}.png")
        save_figure(rank_plot(c), tmp_path / f"rank{i}.png")
    assert len(list(tmp_path.iterdir())) == 4
    perfect = compare(pd.DataFrame(np.tile([3.0, 2.0, 1.0], (6, 1)), columns=list("abc")), metric="f1")
    assert "f1: N = 6 blocks, Iman-Davenport p < 0.0001" in _texts(cd_diagram(perfect))


def test_multi_panel_figures_title_each_comparison(demsar, tmp_path):
    rng = np.random.default_rng(1)
    other = compare(pd.DataFrame(rng.random((6, 3)), columns=["x", "y", "z"]))
    comps = {"setting A": demsar, "setting B": other}
    fig = cd_diagrams(comps, suptitle="two settings")
    assert fig.pu_cliques == {"setting A": demsar.cliques(), "setting B": other.cliques()}
    texts = _texts(fig)
    assert {"setting A", "setting B", "two settings", "CD = 1.254"} <= set(texts)
    assert "N = 14, k = 4, Iman-Davenport p = 0.0198" in texts
    fig2 = rank_plots(comps, suptitle="two settings")
    assert any(t.startswith("setting B") for t in _texts(fig2))
    save_figure(fig, tmp_path / "cds.png")
    save_figure(fig2, tmp_path / "ranks.png")


def test_rank_plot_labels_methods_blocks_and_annotates_ranks(demsar):
    fig = rank_plot(demsar)
    texts = _texts(fig)
    assert "rank (1 = best)" in texts
    for m in METHODS:
        assert m in texts                      # box plot tick labels
    assert "ds14" in texts                     # block labels
    assert texts.count("2.5") >= 5             # annotated cells (ties of Table 6)


def test_save_figure_writes_each_format_atomically(demsar, tmp_path):
    out = tmp_path / "sub" / "dir"
    fig = cd_diagram(demsar)
    written = save_figure(fig, [out / "cd.png", out / "cd.pdf"])
    assert written == [out / "cd.png", out / "cd.pdf"]
    assert (out / "cd.png").read_bytes().startswith(b"\x89PNG")
    assert (out / "cd.pdf").read_bytes().startswith(b"%PDF")
    assert sorted(p.name for p in out.iterdir()) == ["cd.pdf", "cd.png"]   # no temp files
    with pytest.raises(ValueError, match="format"):
        save_figure(fig, out / "cd.nope")
    assert sorted(p.name for p in out.iterdir()) == ["cd.pdf", "cd.png"]


def test_notice_figure_shows_its_message(tmp_path):
    fig = notice_figure("fewer than 2 blocks")
    assert "fewer than 2 blocks" in _texts(fig)
    save_figure(fig, tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 0


def test_import_does_not_load_matplotlib():
    out = subprocess.run(
        [sys.executable, "-c", "import sys, pu_lib.workflow.figures; print('matplotlib' in sys.modules)"],
        capture_output=True, text=True, check=True,
    )
    assert out.stdout.strip() == "False"
