"""Figures for comparisons of several methods over several data sets.

The figures draw a :class:`pu_lib.workflow.stats.Comparison` (see :func:`pu_lib.workflow.stats.compare`):

* :func:`cd_diagram` / :func:`cd_diagrams`: critical-difference diagrams as in Demšar
  (2006), "Statistical comparisons of classifiers over multiple data sets", JMLR 7:1-30,
  section 3.2.2 and Figures 1-2;
* :func:`rank_plot` / :func:`rank_plots`: the per-block ranks behind the average ranks
  (box plots and a heat map of the rank matrix);
* :func:`notice_figure`: a figure stating why no comparison could be computed;
* :func:`draw_points`: the repetitions' values where too few repetitions leave no interval;
* :func:`decision_regions`: 2-D decision regions of fitted classifiers over PU points
  (the PU-HDT paper's Figure 2);
* :func:`save_figure`: atomic output to one or more files (format from the suffix).

matplotlib (the ``plot`` extra) is imported inside the functions only, so importing this
module is cheap, works without it and never selects a GUI backend. Figures are built with :class:`matplotlib.figure.Figure`
directly (no pyplot state); they render with the Agg / PDF / SVG canvases on saving.

Each figure carries what it drew as attributes, for tests and callers:
``fig.pu_cliques`` (the clique bars, lists of method names in rank order), ``fig.pu_cd``
(the critical difference drawn) and ``fig.pu_clique_rule``. :func:`cd_diagrams` stores
dicts keyed like its input.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pu_lib._io import atomic_path
from pu_lib._optional import require
from pu_lib.workflow.stats import format_p_value

__all__ = [
    "cd_diagram",
    "cd_diagrams",
    "decision_regions",
    "draw_points",
    "rank_plot",
    "rank_plots",
    "save_figure",
    "notice_figure",
]

#: what needs matplotlib, for the error when it is missing (pu_lib._optional.require)
_PURPOSE = "pu_lib.workflow.figures (CD diagrams, rank plots)"

# ----------------------------------------------------------------- CD diagram geometry
# All lengths in inches unless noted; the diagram's data coordinates are rank units
# horizontally and inches (growing downwards) vertically.
_FS = 10.0            # method label font size (pt)
_TICK_FS = 9.0        # axis tick label font size (pt)
_TITLE_FS = 11.0      # title font size (pt)
_TITLE_H = 0.40       # space above the diagram for its title
_Y_CD_TEXT = 0.22     # baseline of the "CD = ..." label
_Y_CD = 0.30          # the CD bracket
_Y_AXIS = 0.64        # the rank axis
_MAJOR_TICK = 0.09
_MINOR_TICK = 0.045
_BAR_GAP0 = 0.20      # axis to first clique bar
_BAR_ROW = 0.12       # distance between clique-bar rows
_BAR_LW = 3.5         # clique bar line width (pt)
_BAR_EXT = 0.05       # a bar overhangs its outermost methods by this much
_BAR_SEP = 0.15       # minimal gap between two bars sharing a row
_LABEL_GAP0 = 0.22    # last clique bar (or axis) to the first label row
_ROW = 0.25           # distance between label rows
_BOTTOM = 0.14        # last label row to the bottom edge
_ELBOW = 0.22         # outermost rank position to the label column
_TEXT_PAD = 0.06      # label column to the label text
_SIDE = 0.10          # label text to the figure edge


def _text_width(texts, fontsize: float, weight: str = "normal") -> float:
    """Width in inches of the widest of ``texts`` at ``fontsize`` (no renderer needed)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    ttp = TextToPath()
    prop = FontProperties(size=fontsize, weight=weight)
    widths = [ttp.get_text_width_height_descent(str(t), prop, ismath=False)[0] for t in texts]
    return max(widths, default=0.0) / 72.0


def _default_title(comparison) -> str:
    head = f"{comparison.metric}: " if comparison.metric else ""
    return (f"{head}N = {len(comparison.blocks)} blocks, "
            f"Iman-Davenport {format_p_value(comparison.friedman.f_pvalue, 'p')}")


def _stats_note(comparison) -> str:
    return (f"N = {len(comparison.blocks)}, k = {len(comparison.methods)}, "
            f"Iman-Davenport {format_p_value(comparison.friedman.f_pvalue, 'p')}")


def _rank_strings(ranks) -> list[str]:
    """Average ranks with 2 decimals, or 3 when 2 would merge distinct values."""
    r = np.asarray(ranks, float)
    n_distinct = len(np.unique(np.round(r, 9)))
    for d in (2, 3):
        s = [f"{v:.{d}f}" for v in r]
        if len(set(s)) == n_distinct:
            return s
    return [f"{v:.3f}" for v in r]


def _sorted_methods(comparison):
    avg = comparison.average_ranks
    names = [str(m) for m in comparison.methods]
    r = np.array([float(avg[m]) for m in comparison.methods])
    order = np.argsort(r, kind="stable")   # same tie order as pu_lib.workflow.stats.cliques_from_cd
    return [names[i] for i in order], r[order]


@dataclass
class _CDLayout:
    names: list            # methods in rank order
    ranks: np.ndarray      # their average ranks
    labels: list           # label texts, in rank order
    n_left: int            # the first n_left methods are labelled on the left
    cliques: list          # lists of names, rank order
    rule: str
    cd: float
    control: str | None    # Bonferroni-Dunn control (interval centre), else None
    left_w: float          # label text widths (in)
    right_w: float
    k: int

    @property
    def margin_left(self) -> float:
        return _SIDE + self.left_w + _TEXT_PAD + _ELBOW

    @property
    def margin_right(self) -> float:
        return _SIDE + self.right_w + _TEXT_PAD + _ELBOW

    def natural_width(self, title: str | None) -> float:
        axis = min(max(3.2, 0.65 * (self.k - 1)), 8.0)
        width = self.margin_left + axis + self.margin_right
        if title:
            width = max(width, _text_width([title], _TITLE_FS) + 0.4)
        return width

    def units_per_inch(self, width: float) -> float:
        axis = max(width - self.margin_left - self.margin_right, 1.0)
        return (self.k - 1) / axis

    def bar_rows(self, upi: float) -> list[int]:
        """Row of each clique bar: greedy packing, bars in a row are >= _BAR_SEP apart."""
        pos = {m: r for m, r in zip(self.names, self.ranks)}
        ends: list[float] = []
        rows = []
        for c in self.cliques:
            lo = min(pos[m] for m in c) - _BAR_EXT * upi
            hi = max(pos[m] for m in c) + _BAR_EXT * upi
            for i, end in enumerate(ends):
                if lo > end + _BAR_SEP * upi:
                    ends[i] = hi
                    rows.append(i)
                    break
            else:
                ends.append(hi)
                rows.append(len(ends) - 1)
        return rows

    def height(self, upi: float) -> float:
        n_bar_rows = max(self.bar_rows(upi), default=-1) + 1
        y_lab0 = self._y_labels0(n_bar_rows)
        n_rows = max(self.n_left, self.k - self.n_left)
        return y_lab0 + (n_rows - 1) * _ROW + _BOTTOM

    @staticmethod
    def _y_labels0(n_bar_rows: int) -> float:
        if n_bar_rows == 0:
            return _Y_AXIS + _LABEL_GAP0 + 0.05
        return _Y_AXIS + _BAR_GAP0 + (n_bar_rows - 1) * _BAR_ROW + _LABEL_GAP0


def _cd_layout(comparison, cliques: str) -> _CDLayout:
    if cliques not in ("nemenyi", "bonferroni_dunn", "holm"):
        raise ValueError(f"unknown clique rule {cliques!r}; use 'nemenyi', 'bonferroni_dunn' or 'holm'")
    names, ranks = _sorted_methods(comparison)
    k = len(names)
    rs = _rank_strings(ranks)
    n_left = (k + 1) // 2
    labels = [f"{n} ({s})" if i < n_left else f"({s}) {n}" for i, (n, s) in enumerate(zip(names, rs))]
    if cliques == "bonferroni_dunn":
        cd, control = float(comparison.cd_bonferroni_dunn), str(comparison.control.control)
    else:
        cd, control = float(comparison.cd_nemenyi), None
    # bold control label (Bonferroni-Dunn): measure bold to be safe
    weight = "bold" if control is not None else "normal"
    return _CDLayout(
        names=names, ranks=ranks, labels=labels, n_left=n_left,
        cliques=[list(map(str, c)) for c in comparison.cliques(cliques)],
        rule=cliques, cd=cd, control=control,
        left_w=_text_width(labels[:n_left], _FS, weight),
        right_w=_text_width(labels[n_left:], _FS, weight), k=k,
    )


def _draw_cd(ax, lay: _CDLayout, width: float, height: float) -> None:
    """Draw the diagram into ``ax`` of ``width`` x ``height`` inches."""
    k = lay.k
    upi = lay.units_per_inch(width)
    x0 = 1.0 - lay.margin_left * upi
    x1 = k + lay.margin_right * upi
    ax.set_xlim(x0, x1)
    spare = max(height - lay.height(upi), 0.0) / 2   # centre vertically in a roomy axes
    ax.set_ylim(height - spare, -spare)               # inches, growing downwards
    ax.set_axis_off()
    line = dict(color="black", lw=1.0, solid_capstyle="butt", clip_on=False)

    # rank axis with integer ticks (labelled) and half-rank minor ticks, rank 1 on the left
    ax.plot([1, k], [_Y_AXIS, _Y_AXIS], **line)
    for t in np.arange(1.0, k + 0.25, 0.5):
        major = float(t).is_integer()
        ax.plot([t, t], [_Y_AXIS, _Y_AXIS - (_MAJOR_TICK if major else _MINOR_TICK)], **line)
        if major:
            ax.text(t, _Y_AXIS - _MAJOR_TICK - 0.04, f"{int(t)}", ha="center", va="bottom",
                    fontsize=_TICK_FS)

    # the critical difference above the axis
    tick = 0.05
    lo_lim, hi_lim = x0 + 0.3 * _SIDE * upi, x1 - 0.3 * _SIDE * upi
    if lay.control is None:          # Demšar Fig. 1: a bracket of length CD from rank 1
        a, b = 1.0, 1.0 + lay.cd
        centre = None
    else:                            # Demšar Fig. 2: CD on both sides of the control
        centre = float(lay.ranks[lay.names.index(lay.control)])
        a, b = centre - lay.cd, centre + lay.cd
    a_c, b_c = max(a, lo_lim), min(b, hi_lim)
    ax.plot([a_c, b_c], [_Y_CD, _Y_CD], **{**line, "lw": 1.4})
    for end, clipped in ((a_c, a_c > a), (b_c, b_c < b)):
        if not clipped:
            ax.plot([end, end], [_Y_CD - tick, _Y_CD + tick], **{**line, "lw": 1.4})
    if centre is not None:
        ax.plot([centre, centre], [_Y_CD - tick, _Y_CD + tick], **{**line, "lw": 1.0})
    text_x = centre if centre is not None else (a_c + b_c) / 2
    ax.text(text_x, _Y_CD_TEXT, f"CD = {lay.cd:.3f}", ha="center", va="bottom",
            fontsize=_TICK_FS)

    # clique bars between the axis and the labels
    pos = dict(zip(lay.names, lay.ranks))
    rows = lay.bar_rows(upi)
    for c, row in zip(lay.cliques, rows):
        y = _Y_AXIS + _BAR_GAP0 + row * _BAR_ROW
        lo = min(pos[m] for m in c) - _BAR_EXT * upi
        hi = max(pos[m] for m in c) + _BAR_EXT * upi
        ax.plot([lo, hi], [y, y], color="black", lw=_BAR_LW, solid_capstyle="butt", zorder=3)

    # methods: a line down from the average rank, then an elbow out to the label
    n_bar_rows = max(rows, default=-1) + 1
    y_lab0 = lay._y_labels0(n_bar_rows)
    col_left = 1.0 - _ELBOW * upi
    col_right = k + _ELBOW * upi
    for i, (name, r, label) in enumerate(zip(lay.names, lay.ranks, lay.labels)):
        left = i < lay.n_left
        y = y_lab0 + (i if left else (k - 1 - i)) * _ROW
        col = col_left if left else col_right
        ax.plot([r, r, col], [_Y_AXIS, y, y], color="black", lw=0.9, solid_joinstyle="miter",
                clip_on=False, zorder=2)
        ax.text(col + (-1 if left else 1) * _TEXT_PAD * upi, y, label,
                ha="right" if left else "left", va="center", fontsize=_FS,
                fontweight="bold" if name == lay.control else "normal")


def cd_diagram(comparison, *, cliques: str = "nemenyi", title: str | None = None, ax=None):
    """Critical-difference diagram of a comparison (Demšar 2006, JMLR 7, section 3.2.2,
    Figures 1-2).

    The horizontal axis shows average ranks from 1 (best, on the left) to k. Each method
    hangs from its average rank by a line with an elbow out to its label, ``name (rank)``:
    the better half of the methods on the left, the rest on the right. Thick bars join
    the methods of each clique, i.e. groups whose average ranks are not significantly
    different, stacked below the axis so that they never overlap:

    * ``cliques="nemenyi"``: ranks within the Nemenyi critical difference (Fig. 1);
    * ``cliques="holm"``: runs of methods with no pair rejected by Holm's all-pairs test;
    * ``cliques="bonferroni_dunn"``: ranks within the Bonferroni-Dunn CD (Fig. 2).

    Above the axis, a bracket of length CD labelled ``CD = 1.254``: the Nemenyi CD
    starting at rank 1 for ``"nemenyi"`` and ``"holm"``; for ``"bonferroni_dunn"`` the
    Bonferroni-Dunn CD on both sides of the control method (label in bold), as in Demšar's
    Fig. 2: methods outside the interval differ significantly from the control.

    ``title`` defaults to ``"<metric>: N = <blocks> blocks, Iman-Davenport p = <p>"``.
    Without ``ax`` a new figure is made whose height grows with the number of methods;
    with ``ax``, the diagram fills that axes (its size should then suit the diagram).
    Returns the figure, with ``pu_cliques``, ``pu_cd`` and ``pu_clique_rule`` attributes
    (also set on the axes). P-values print as :func:`pu_lib.workflow.stats.format_p_value` (e.g.
    ``p = 0.0198``, ``p < 0.0001``).
    """
    lay = _cd_layout(comparison, cliques)
    if title is None:
        title = _default_title(comparison)
    if ax is None:
        Figure = require("matplotlib.figure", purpose=_PURPOSE).Figure

        width = lay.natural_width(title)
        height = lay.height(lay.units_per_inch(width))
        top = _TITLE_H if title else 0.0
        fig = Figure(figsize=(width, height + top))
        ax = fig.add_axes((0.0, 0.0, 1.0, height / (height + top)))
    else:
        fig = ax.get_figure(root=True) if _has_root_kw(ax) else ax.get_figure()
        width = ax.bbox.width / fig.dpi
        height = ax.bbox.height / fig.dpi
    _draw_cd(ax, lay, width, height)
    if title:
        ax.set_title(title, fontsize=_TITLE_FS, pad=4)
    _tag(ax, lay)
    _tag(fig, lay)
    return fig


def cd_diagrams(comparisons: dict, *, cliques: str = "nemenyi", suptitle: str | None = None):
    """Critical-difference diagrams of several comparisons, stacked vertically.

    One panel per entry of ``comparisons`` (e.g. one per label setting, i.e. per column
    of a results table), titled by its key, with N, k and the Iman-Davenport p-value in
    small print on the right. See :func:`cd_diagram` and Demšar (2006), JMLR 7, section
    3.2.2, Figures 1-2. ``fig.pu_cliques`` / ``pu_cd`` are dicts keyed like
    ``comparisons``.
    """
    Figure = require("matplotlib.figure", purpose=_PURPOSE).Figure

    if not comparisons:
        raise ValueError("cd_diagrams needs at least one comparison")
    keys = list(comparisons)
    layouts = [_cd_layout(comparisons[key], cliques) for key in keys]
    head_w = [_text_width([str(key)], _TITLE_FS, "bold") + _text_width([_stats_note(comparisons[key])], 8)
              for key in keys]
    width = max(max(lay.natural_width(None), hw + 0.6) for lay, hw in zip(layouts, head_w))
    if suptitle:
        width = max(width, _text_width([suptitle], 12) + 0.4)
    heights = [lay.height(lay.units_per_inch(width)) for lay in layouts]
    sup_h = 0.35 if suptitle else 0.0
    gap = 0.15
    total = sup_h + sum(h + _TITLE_H for h in heights) + gap * (len(keys) - 1)
    fig = Figure(figsize=(width, total))
    if suptitle:
        fig.suptitle(suptitle, fontsize=12, y=1 - 0.08 / total, va="top")
    y_top = total - sup_h
    fig.pu_cliques, fig.pu_cd, fig.pu_clique_rule = {}, {}, cliques
    for key, lay, h in zip(keys, layouts, heights):
        y_top -= _TITLE_H
        ax = fig.add_axes((0.0, (y_top - h) / total, 1.0, h / total))
        _draw_cd(ax, lay, width, h)
        ax.set_title(str(key), fontsize=_TITLE_FS, fontweight="bold", loc="left", pad=4)
        ax.set_title(_stats_note(comparisons[key]), fontsize=8, loc="right", pad=4, color="0.3")
        _tag(ax, lay)
        fig.pu_cliques[key] = [list(c) for c in lay.cliques]
        fig.pu_cd[key] = lay.cd
        y_top -= h + gap
    return fig


def _tag(obj, lay: _CDLayout) -> None:
    obj.pu_cliques = [list(c) for c in lay.cliques]
    obj.pu_cd = lay.cd
    obj.pu_clique_rule = lay.rule


def _has_root_kw(ax) -> bool:
    import inspect

    try:
        return "root" in inspect.signature(ax.get_figure).parameters
    except (TypeError, ValueError):
        return False


# --------------------------------------------------------------------------- rank plots

_CMAP = "viridis_r"
_CBAR_W = 0.14        # colour bar width (in), a third grid column


def _rank_geometry(comparison):
    names, _ = _sorted_methods(comparison)
    k, n = len(names), len(comparison.blocks)
    annotate = n <= 30
    cell = 0.34 if annotate else float(np.clip(9.0 / n, 0.05, 0.3))
    blocks = [str(b) for b in comparison.blocks]
    label_len = _text_width(blocks, 8) if n <= 80 else 0.0
    method_w = _text_width(names, 9)
    return names, k, n, annotate, cell, blocks, label_len, method_w


def _draw_rank_panels(fig, ax_box, ax_heat, cax, comparison) -> None:
    import matplotlib
    from matplotlib.colors import Normalize

    names, k, n, annotate, _, blocks, _, _ = _rank_geometry(comparison)
    R = comparison.ranks[names].to_numpy(dtype=float)          # blocks x methods
    avg = np.array([float(comparison.average_ranks[m]) for m in names])
    y = np.arange(k)

    # left: per-block ranks of each method, best (lowest average rank) on top
    kw = dict(positions=y, widths=0.55, patch_artist=True, showfliers=True,
              boxprops=dict(facecolor="0.88", edgecolor="0.25", lw=0.9),
              medianprops=dict(color="black", lw=1.4),
              whiskerprops=dict(color="0.25", lw=0.9), capprops=dict(color="0.25", lw=0.9),
              flierprops=dict(marker="x", markersize=4, markeredgecolor="0.35", lw=0))
    try:
        ax_box.boxplot([R[:, j] for j in range(k)], orientation="horizontal", **kw)
    except TypeError:                                        # matplotlib < 3.10
        ax_box.boxplot([R[:, j] for j in range(k)], vert=False, **kw)
    ax_box.plot(avg, y, "o", color="C3", markersize=5, zorder=4)
    ax_box.set_yticks(y, labels=names)
    ax_box.set_ylim(k - 0.5, -0.5)
    ax_box.set_xlim(0.5, k + 0.5)
    ax_box.set_xticks(np.arange(1, k + 1))
    ax_box.set_xlabel("rank per block (1 = best)")
    ax_box.grid(axis="x", color="0.9", lw=0.8)
    ax_box.set_axisbelow(True)
    ax_box.tick_params(axis="y", labelsize=9)
    ax_box.set_title("ranks per block (dot = average rank)", fontsize=8, color="0.3")

    # right: the rank matrix, methods as rows in the same order, blocks as columns
    norm = Normalize(vmin=1, vmax=max(k, 2))
    cmap = matplotlib.colormaps[_CMAP]
    im = ax_heat.imshow(R.T, aspect="auto", cmap=cmap, norm=norm, interpolation="nearest")
    ax_heat.set_yticks(y, labels=[])
    ax_heat.set_ylim(k - 0.5, -0.5)
    if n <= 80:
        rot = 90 if max((len(b) for b in blocks), default=0) > 12 or n > 30 else 45
        ax_heat.set_xticks(np.arange(n), labels=blocks, rotation=rot, ha="right",
                           rotation_mode="anchor", fontsize=8)
    else:
        ax_heat.set_xticks([])
        ax_heat.set_xlabel(f"{n} blocks")
    ax_heat.tick_params(length=2)
    ax_heat.set_title("rank matrix", fontsize=8, color="0.3")
    if annotate:
        for i in range(k):
            for j in range(n):
                v = R[j, i]
                rgb = cmap(norm(v))[:3]
                lum = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
                ax_heat.text(j, i, f"{v:g}", ha="center", va="center", fontsize=7,
                             color="black" if lum > 0.45 else "white")
    cbar = fig.colorbar(im, cax=cax)
    cbar.set_label("rank (1 = best)")
    cbar.set_ticks(np.arange(1, k + 1))
    cbar.ax.invert_yaxis()
    cbar.ax.tick_params(labelsize=8)


def _rank_size(comparison):
    _, k, n, _, cell, _, label_len, method_w = _rank_geometry(comparison)
    box_w = min(max(2.6, 0.32 * k + 1.2), 5.5)
    heat_w = max(n * cell, 2.0)
    width = method_w + box_w + heat_w + 1.2
    height = max(2.0, 0.3 * k) + label_len + 0.9
    return width, height, box_w, heat_w


def rank_plot(comparison, *, title: str | None = None):
    """Per-block ranks behind a comparison's average ranks (Demšar 2006, JMLR 7, section
    3.2.2: the Friedman test and the CD diagrams of Figures 1-2 use these ranks).

    Left, a box plot of each method's ranks over the blocks (1 = best), methods sorted by
    average rank with the best on top, the average rank marked by a red dot. Right, a
    heat map of the rank matrix: methods as rows in the same order, blocks as columns,
    colour = rank, the rank annotated in each cell when there are at most 30 blocks.
    """
    Figure = require("matplotlib.figure", purpose=_PURPOSE).Figure

    width, height, box_w, heat_w = _rank_size(comparison)
    if title is None:
        title = _default_title(comparison)
    fig = Figure(figsize=(width, height + (0.35 if title else 0.0)), layout="constrained")
    ax_box, ax_heat, cax = fig.subplots(1, 3, width_ratios=[box_w, heat_w, _CBAR_W])
    _draw_rank_panels(fig, ax_box, ax_heat, cax, comparison)
    if title:
        fig.suptitle(title, fontsize=_TITLE_FS)
    return fig


def rank_plots(comparisons: dict, suptitle: str | None = None):
    """:func:`rank_plot` for several comparisons: one row (box plot, heat map) per entry
    of ``comparisons``, titled by its key."""
    Figure = require("matplotlib.figure", purpose=_PURPOSE).Figure

    if not comparisons:
        raise ValueError("rank_plots needs at least one comparison")
    keys = list(comparisons)
    sizes = [_rank_size(comparisons[key]) for key in keys]
    width = max(s[0] for s in sizes)
    heights = [s[1] + 0.35 for s in sizes]
    total = sum(heights) + (0.45 if suptitle else 0.0)
    fig = Figure(figsize=(width, total), layout="constrained")
    subs = fig.subfigures(len(keys), 1, height_ratios=heights, squeeze=False)[:, 0]
    for key, sub, (_, _, box_w, heat_w) in zip(keys, subs, sizes):
        ax_box, ax_heat, cax = sub.subplots(1, 3, width_ratios=[box_w, heat_w, _CBAR_W])
        _draw_rank_panels(sub, ax_box, ax_heat, cax, comparisons[key])
        sub.suptitle(f"{key}  ({_stats_note(comparisons[key])})", fontsize=_TITLE_FS)
    if suptitle:
        fig.suptitle(suptitle, fontsize=12, fontweight="bold")
    return fig


# --------------------------------------------------------------------------- decision regions

def decision_regions(models: dict, X, y, s, *, resolution: int = 200, suptitle: str | None = None):
    """One panel per fitted 2-D classifier (``models``: title -> estimator): the predicted
    probability of the positive class as background (blue = positive, red = negative,
    light = uncertain), over the training points -- negatives red, unlabeled positives
    orange, labeled positives blue (the PU-HDT paper's Figure 2)."""
    Figure = require("matplotlib.figure", purpose=_PURPOSE).Figure
    from matplotlib.colors import LinearSegmentedColormap

    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"decision_regions needs 2-D points, got X of shape {X.shape}")
    y, s = np.asarray(y), np.asarray(s)
    pad = 0.1 * (X.max(axis=0) - X.min(axis=0))
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    cmap = LinearSegmentedColormap.from_list("pu_regions", ["#c0392b", "#ffffff", "#1f5fbf"])
    n = len(models)
    fig = Figure(figsize=(4.2 * n, 3.9))
    axes = fig.subplots(1, n, squeeze=False)[0]
    groups = (((y == 0), "#d62728", "negative"), ((y == 1) & (s == 0), "#ff9f1c", "unlabeled positive"),
              ((s == 1), "#1f3fbf", "labeled positive"))
    for ax, (title, model) in zip(axes, models.items()):
        p = model.predict_proba(grid)[:, 1].reshape(gx.shape)
        ax.contourf(gx, gy, p, levels=np.linspace(0, 1, 11), cmap=cmap, vmin=0, vmax=1, alpha=0.8)
        for mask, color, label in groups:
            ax.scatter(X[mask, 0], X[mask, 1], s=6 if label == "negative" else 12, c=color, label=label,
                       edgecolors="none")
        ax.set_title(title)
        ax.set_xticks([])
        ax.set_yticks([])
    axes[0].legend(loc="lower left", fontsize=7, framealpha=0.8)
    if suptitle:
        fig.suptitle(suptitle)
    return fig


# --------------------------------------------------------------------------- misc

def notice_figure(message: str):
    """A small figure showing ``message`` centred, in place of a diagram that cannot be
    drawn (e.g. a comparison with fewer than 2 complete blocks)."""
    Figure = require("matplotlib.figure", purpose=_PURPOSE).Figure

    lines = str(message).splitlines() or [""]
    width = min(max(4.0, _text_width(lines, 11) + 0.8), 10.0)
    fig = Figure(figsize=(width, 0.6 + 0.25 * len(lines)))
    from matplotlib.patches import Rectangle

    fig.text(0.5, 0.5, str(message), ha="center", va="center", fontsize=11, wrap=True,
             color="0.25")
    # a light frame keeps the figure's size under bbox_inches="tight"
    fig.patches.append(Rectangle((0.005, 0.01), 0.99, 0.98, transform=fig.transFigure,
                                 fill=False, edgecolor="0.8", lw=0.8))
    fig.pu_cliques, fig.pu_cd, fig.pu_clique_rule = [], math.nan, None
    return fig


_RASTER = {"png", "jpg", "jpeg", "tif", "tiff", "webp"}


def draw_points(ax, xs, points, *, color, marker: str = "o", ms: float = 3.5, zorder: int = 3) -> None:
    """The repetitions' values where a summary has no interval (fewer than
    :data:`pu_lib.workflow.reporting.MIN_INTERVAL_N` repetitions): hollow markers at each x, one per
    value. ``points`` holds a list of values (or None: nothing drawn) per x."""
    px, py = [], []
    for x, values in zip(xs, points):
        if values is None or (isinstance(values, float) and math.isnan(values)):
            continue
        px += [x] * len(values)
        py += list(values)
    if px:
        ax.plot(px, py, ls="none", marker=marker, ms=ms, mfc="none", mec=color, mew=0.9, zorder=zorder)


def panel_grid(n_panels: int, panel_size=(4.2, 3.6), max_columns: int = 3):
    """The common start of a grid of panels: ``(fig, axes)`` from ``plt.subplots(...,
    squeeze=False)`` with at most ``max_columns`` columns and enough rows for ``n_panels``
    (at least one), each panel ``panel_size`` inches; :func:`finish_panel_grid` ends it."""
    import matplotlib.pyplot as plt

    n = max(1, n_panels)
    ncol = min(max_columns, n)
    nrow = -(-n // ncol)
    return plt.subplots(nrow, ncol, figsize=(panel_size[0] * ncol, panel_size[1] * nrow), squeeze=False)


def finish_panel_grid(fig, axes, n_used: int, *, title: str = "", legend_cols: int = 6, bottom: float = 0.06,
                      notes=()):
    """The common ending of a grid of panels (``axes`` from ``plt.subplots(..., squeeze=False)``):
    hide the unused panels after the first ``n_used``, one legend below the grid (from the
    first panel's lines), the title, a tight layout leaving ``bottom`` of the height to
    the legend, and ``notes`` (e.g. why a data set is marked ‡,
    :func:`pu_lib.workflow.reporting.comparability_notes`) as small text under the legend, wrapped
    to the figure's width. Returns ``fig``."""
    ncol = len(axes[0])
    for k in range(n_used, len(axes) * ncol):
        axes[k // ncol][k % ncol].axis("off")
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), legend_cols), frameon=False,
                   bbox_to_anchor=(0.5, -0.02))
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    figure_notes(fig, notes)
    return fig


def figure_notes(fig, notes, y: float = -0.05) -> None:
    """``notes`` (e.g. why a data set is marked ‡, :func:`pu_lib.workflow.reporting.comparability_notes`)
    as small grey text under the figure at height ``y`` (figure coordinates), wrapped to the
    figure's width; nothing when there are none."""
    if not notes:
        return
    import textwrap

    width = max(40, int(fig.get_figwidth() * 14))  # about 14 characters of 7-pt text per inch
    text = "\n".join(textwrap.fill(n, width) for n in notes)
    fig.text(0.01, y, text, fontsize=7, ha="left", va="top", color="0.25")


def save_figure(fig, paths, *, dpi: int = 150) -> list[Path]:
    """Save ``fig`` to each of ``paths`` (one path or several, e.g. ``["x.png", "x.pdf"]``).

    The format comes from each path's suffix (raster formats at ``dpi``), with
    ``bbox_inches="tight"``. Each file is written to a temporary name beside it and
    renamed into place (:func:`pu_lib._io.atomic_path`); parent directories are created.
    Returns the paths written.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [Path(p) for p in paths]
    supported = fig.canvas.get_supported_filetypes()
    for p in paths:
        fmt = p.suffix.lower().lstrip(".")
        if fmt not in supported:
            raise ValueError(f"cannot save a figure as {p}: unknown format {fmt!r}; "
                             f"use one of {sorted(supported)}")
    for p in paths:
        fmt = p.suffix.lower().lstrip(".")
        kwargs = {"format": fmt, "bbox_inches": "tight"}
        if fmt in _RASTER:
            kwargs["dpi"] = dpi
        with atomic_path(p) as tmp:
            fig.savefig(tmp, **kwargs)
    return paths
