"""Figures name a data set the registry marks ``paper_comparable: false`` with ‡ (panel
titles, legend entries) and give the reason under the figure, as the tables do."""

from __future__ import annotations

import pandas as pd
import pytest

from pu_lib.datasets import get_spec
from pu_lib.workflow.reporting import NOT_COMPARABLE_MARK, not_comparable_labels

pytest.importorskip("matplotlib")

UNSW = "unsw_nb15_testing_set"
REASON = get_spec(UNSW)["comparability_note"]


def _texts(fig):
    titles = [ax.get_title() for ax in fig.axes]
    legends = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    return titles, legends, [t.get_text() for t in fig.texts]


def _close(fig):
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_labels_cover_the_dataset_id_and_the_registry_name():
    res = pd.DataFrame({"dataset": ["unsw", "bc"], "dataset_name": [UNSW, "breast_cancer"]})
    assert not_comparable_labels(res) == {"unsw": REASON, UNSW: REASON}
    assert not_comparable_labels(res.drop(columns="dataset")) == {}


def test_curve_figure_marks_the_panel_and_gives_the_reason():
    from pu_lib.workflow.experiments.curves import curve_figure

    summary = pd.DataFrame([{"dataset": d, "setting": "s", "method": "m", "round": r, "mean": 0.5, "sd": 0.1}
                            for d in ("unsw", "breast_cancer") for r in (1, 2)])
    fig = curve_figure(summary, not_comparable={"unsw": REASON})
    titles, _, notes = _texts(fig)
    assert titles[:2] == [f"unsw {NOT_COMPARABLE_MARK}", "breast_cancer"]
    assert len(notes) == 1 and notes[0].startswith(f"{NOT_COMPARABLE_MARK} unsw: one-partition split")
    assert " ".join(notes[0].split()) == f"{NOT_COMPARABLE_MARK} unsw: {REASON}."  # wrapped, not cut
    _close(fig)
    fig = curve_figure(summary)  # nothing marked without reasons
    assert _texts(fig)[0][:2] == ["unsw", "breast_cancer"] and not _texts(fig)[2]
    _close(fig)


def test_estimate_and_sweep_figures_mark_panels_and_legend_entries():
    from pu_lib.workflow.experiments.prior_report import estimate_figure
    from pu_lib.workflow.experiments.sweep import sweep_figure

    nc = {UNSW: REASON}
    est = pd.DataFrame([{"panel": p, "method": "tice", "x": x, "mean": x, "lo": x, "hi": x}
                        for p in (UNSW, "digits") for x in (0.1, 0.2)])
    fig = estimate_figure(est, "alpha_u_true", "alpha_u_hat", not_comparable=nc)
    titles, _, notes = _texts(fig)
    assert titles[:2] == [f"{UNSW} {NOT_COMPARABLE_MARK}", "digits"] and len(notes) == 1 and UNSW in notes[0]
    _close(fig)
    # a sweep whose series are data sets: the legend entry is marked
    sw = pd.DataFrame([{"panel": "all", "series": s, "x": x, "mean": 0.5, "lo": 0.4, "hi": 0.6, "points": []}
                       for s in (UNSW, "digits") for x in (1, 2)])
    fig = sweep_figure(sw, "k", "accuracy", not_comparable=nc)
    titles, legends, notes = _texts(fig)
    assert titles[0] == "all" and f"{UNSW} {NOT_COMPARABLE_MARK}" in legends and "digits" in legends
    assert len(notes) == 1
    _close(fig)
