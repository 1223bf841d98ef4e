"""Statistical comparison of several methods over several data sets.

Everything here follows Demšar (2006), "Statistical comparisons of classifiers over
multiple data sets", JMLR 7:1-30 (section 3.2.2 and the worked example of its Table 6):

* **Ranks** per block (a data set, or a data set x label setting) with ties averaged;
  rank 1 is the best method (the highest score when ``greater_is_better``, else the
  lowest).
* **Friedman**: ``chi2_F = 12 N / (k (k+1)) * [sum_j R_j^2 - k (k+1)^2 / 4]`` with
  ``k - 1`` degrees of freedom, where ``R_j`` is the average rank of method ``j`` over
  the ``N`` blocks. This is Demšar's form *without* the tie correction, so it differs
  from ``scipy.stats.friedmanchisquare`` whenever a block has ties (Demšar's example:
  9.28 here, 10.23 in scipy).
* **Iman-Davenport**: ``F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F)`` against the F
  distribution with ``(k - 1, (k - 1)(N - 1))`` degrees of freedom. If every block ranks
  the methods identically, ``chi2_F = N (k - 1)``; then ``F_F = inf`` and p = 0.
* **Post hoc**: ``z = (R_i - R_j) / sqrt(k (k+1) / (6 N))`` with a two-sided normal
  p-value; Holm's step-down procedure against a control method (the best-ranked by
  default, as in the PU Hellinger trees paper) and over all ``k (k-1) / 2`` pairs, with
  adjusted p-values (monotone, capped at 1) and reject decisions.
* **Critical differences**: ``CD = q_alpha sqrt(k (k+1) / (6 N))`` with ``q_alpha`` the
  studentized range quantile (infinite degrees of freedom) divided by sqrt(2) for
  Nemenyi, and the two-sided normal quantile at ``alpha / (k - 1)`` for Bonferroni-Dunn.

P-values print one way everywhere (statistics text, tables, figures): see
:func:`format_p_value`.

Missing values: a block in which any method has no score (absent or NaN) is **dropped**
with a :class:`IncompleteBlockWarning` naming it; the tests need complete blocks. Fewer
than two methods or two (complete) blocks raise :class:`ValueError`. When all methods tie
in every block, ``chi2_F = F_F = 0`` and both p-values are 1; no post hoc hypothesis is
rejected.
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = [
    "IncompleteBlockWarning",
    "rank_matrix",
    "friedman_test",
    "FriedmanResult",
    "holm_adjust",
    "holm_control",
    "holm_all_pairs",
    "PostHocResult",
    "critical_difference",
    "cliques_from_cd",
    "cliques_from_pairs",
    "Comparison",
    "compare",
    "score_matrix",
    "compare_results",
    "format_p_value",
]


class IncompleteBlockWarning(UserWarning):
    """A block (data set) was dropped because some method has no score on it."""


# --------------------------------------------------------------------------- p-values

#: p-values below this print as ``"< 0.0001"`` (four decimals cannot show them)
P_FLOOR = 1e-4


def format_p_value(p, name: str | None = None) -> str:
    """The one printed form of a p-value, for the statistics text, tables and figures.

    Four decimals; below :data:`P_FLOOR` (including ``p = 0``, the limit of an infinite
    F statistic) ``"< 0.0001"``; ``None`` or NaN (no test) ``"n/a"``. With ``name`` the
    whole statement is returned, with ``=`` or ``<`` as fits::

        format_p_value(0.019765)          -> "0.0198"
        format_p_value(3e-7)              -> "< 0.0001"
        format_p_value(None)              -> "n/a"
        format_p_value(0.019765, "p")     -> "p = 0.0198"
        format_p_value(3e-7, "p_holm")    -> "p_holm < 0.0001"
    """
    if p is None or (isinstance(p, (float, np.floating)) and math.isnan(p)):
        text = "n/a"
    elif p < P_FLOOR:
        text = f"< {P_FLOOR:.4f}"
    else:
        text = f"{p:.4f}"
    if name is None:
        return text
    return f"{name} {text}" if text.startswith("<") else f"{name} = {text}"


# --------------------------------------------------------------------------- ranks

def rank_matrix(scores, greater_is_better: bool = True) -> np.ndarray:
    """Ranks of the methods (columns) within each block (row); 1 = best, ties averaged.

    ``scores`` must be finite (drop incomplete blocks first, see :func:`compare`).
    """
    a = np.asarray(scores, dtype=float)
    if a.ndim != 2:
        raise ValueError(f"scores must be a 2-D array (blocks x methods), got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("scores contain NaN or inf; drop or fill incomplete blocks first")
    from scipy.stats import rankdata

    # Average ranks of ties within each row (block).
    return rankdata(-a if greater_is_better else a, method="average", axis=1).astype(float)


# --------------------------------------------------------------------------- Friedman

@dataclass
class FriedmanResult:
    """Friedman chi^2_F and Iman-Davenport F_F (Demšar 2006, section 3.2.2)."""

    n_blocks: int
    n_methods: int
    chi2: float
    chi2_df: int
    chi2_pvalue: float
    f_stat: float
    f_df1: int
    f_df2: int
    f_pvalue: float

    def to_dict(self) -> dict:
        return {k: _jsonable(v) for k, v in self.__dict__.items()}

    def __str__(self) -> str:
        return (
            f"Friedman chi2_F = {self.chi2:.3f} (df {self.chi2_df}, {format_p_value(self.chi2_pvalue, 'p')}); "
            f"Iman-Davenport F_F = {self.f_stat:.3f} (df {self.f_df1}, {self.f_df2}, "
            f"{format_p_value(self.f_pvalue, 'p')}); N = {self.n_blocks}, k = {self.n_methods}"
        )


def friedman_test(ranks) -> FriedmanResult:
    """Friedman and Iman-Davenport tests from a rank matrix (blocks x methods).

    ``ranks`` are within-block ranks as returned by :func:`rank_matrix`. No tie
    correction is applied (Demšar's eq. for chi^2_F).
    """
    from scipy import stats

    r = np.asarray(ranks, dtype=float)
    n, k = _check_shape(r)
    avg = r.mean(axis=0)
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(avg**2) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(float(chi2), 0.0)  # rounding can give -1e-15 for all-tied blocks
    if abs(chi2) < 1e-12:
        chi2 = 0.0
    chi2_p = float(stats.chi2.sf(chi2, k - 1))
    df1, df2 = k - 1, (k - 1) * (n - 1)
    denom = n * (k - 1) - chi2
    if denom <= 1e-12 * n * (k - 1):
        f_stat, f_p = math.inf, 0.0
    else:
        f_stat = (n - 1) * chi2 / denom
        f_p = float(stats.f.sf(f_stat, df1, df2))
    return FriedmanResult(n, k, chi2, k - 1, chi2_p, float(f_stat), df1, df2, f_p)


# --------------------------------------------------------------------------- post hoc

def holm_adjust(pvalues, alpha: float = 0.05):
    """Holm's step-down adjusted p-values and reject decisions.

    With the raw p-values sorted ascending, ``p_adj(i) = max_{j <= i} min(1, (m - j + 1) p(j))``
    (1-based); hypothesis ``i`` is rejected iff ``p_adj(i) <= alpha``, which is the same
    as Holm's sequential rule "reject while ``p(i) <= alpha / (m - i + 1)``".
    Returns ``(adjusted, reject)`` in the input order.
    """
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        raise ValueError("pvalues must be 1-D")
    if np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("pvalues must be finite and in [0, 1]")
    m = p.size
    if m == 0:
        return p.copy(), np.zeros(0, dtype=bool)
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adj_sorted = np.maximum.accumulate(scaled)
    adjusted = np.empty(m)
    adjusted[order] = adj_sorted
    return adjusted, adjusted <= alpha


def _z_p(avg_ranks, i, j, n, k):
    from scipy import stats

    se = math.sqrt(k * (k + 1) / (6.0 * n))
    z = (avg_ranks[i] - avg_ranks[j]) / se
    return float(z), float(2.0 * stats.norm.sf(abs(z)))


@dataclass
class PostHocResult:
    """Pairwise z tests on average ranks with Holm's correction.

    ``comparisons`` is a frame with one row per hypothesis: ``method``, ``versus``,
    ``rank_diff`` (rank of ``method`` minus rank of ``versus``; positive = ``method``
    ranks worse), ``z``, ``p`` (raw, two-sided), ``p_holm`` (adjusted), ``reject``.
    Rows are in order of increasing raw p-value (Holm's order).
    """

    kind: str          # "control" or "all_pairs"
    alpha: float
    control: str | None
    comparisons: pd.DataFrame

    def to_dict(self) -> dict:
        rows = [{k: _jsonable(v) for k, v in r.items()} for r in self.comparisons.to_dict("records")]
        return {"kind": self.kind, "alpha": self.alpha, "control": self.control, "comparisons": rows}

    def rejected(self, method: str) -> bool:
        """For a control comparison: is ``method`` significantly different from the control?"""
        if method == self.control:
            return False
        rows = self.comparisons[self.comparisons["method"] == method]
        if rows.empty:
            raise KeyError(method)
        return bool(rows["reject"].iloc[0])

    def __str__(self) -> str:
        head = (f"Holm post hoc vs control {self.control!r}" if self.kind == "control"
                else "Holm post hoc over all pairs") + f" (alpha = {self.alpha:g})"
        lines = [head]
        for r in self.comparisons.itertuples(index=False):
            lines.append(
                f"  {r.method} vs {r.versus}: z = {r.z:+.3f}, {format_p_value(r.p, 'p')}, "
                f"{format_p_value(r.p_holm, 'p_holm')} -> {'reject' if r.reject else 'retain'}"
            )
        return "\n".join(lines)


def _posthoc(pairs, avg_ranks, methods, n, alpha, kind, control):
    k = len(methods)
    rows = []
    for i, j in pairs:
        z, p = _z_p(avg_ranks, i, j, n, k)
        rows.append({"method": methods[i], "versus": methods[j],
                     "rank_diff": float(avg_ranks[i] - avg_ranks[j]), "z": z, "p": p})
    df = pd.DataFrame(rows, columns=["method", "versus", "rank_diff", "z", "p"])
    adj, rej = holm_adjust(df["p"].to_numpy(), alpha)
    df["p_holm"] = adj
    df["reject"] = rej
    df = df.sort_values("p", kind="stable").reset_index(drop=True)
    return PostHocResult(kind=kind, alpha=alpha, control=control, comparisons=df)


def holm_control(avg_ranks, n_blocks: int, methods, control: str, alpha: float = 0.05) -> PostHocResult:
    """Holm's procedure for the k - 1 comparisons of ``control`` with every other method."""
    methods = list(methods)
    if control not in methods:
        raise ValueError(f"control method {control!r} is not one of {methods}")
    c = methods.index(control)
    pairs = [(i, c) for i in range(len(methods)) if i != c]
    return _posthoc(pairs, np.asarray(avg_ranks, float), methods, n_blocks, alpha, "control", control)


def holm_all_pairs(avg_ranks, n_blocks: int, methods, alpha: float = 0.05) -> PostHocResult:
    """Holm's procedure over all k (k - 1) / 2 pairs."""
    methods = list(methods)
    k = len(methods)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    return _posthoc(pairs, np.asarray(avg_ranks, float), methods, n_blocks, alpha, "all_pairs", None)


def critical_difference(n_methods: int, n_blocks: int, alpha: float = 0.05, test: str = "nemenyi") -> float:
    """Critical difference of average ranks (Demšar 2006, section 3.2.2, Table 5).

    ``test="nemenyi"``: q_alpha = studentized range quantile (k groups, infinite df) /
    sqrt(2), e.g. 2.569 for k = 4 at alpha = 0.05. ``test="bonferroni_dunn"``: q_alpha =
    normal quantile 1 - alpha / (2 (k - 1)), e.g. 2.394 for k = 4.
    """
    from scipy import stats

    k, n = int(n_methods), int(n_blocks)
    if k < 2 or n < 1:
        raise ValueError(f"critical difference needs k >= 2 methods and N >= 1 blocks, got k={k}, N={n}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if test == "nemenyi":
        q = float(stats.studentized_range.ppf(1 - alpha, k, np.inf)) / math.sqrt(2)
    elif test == "bonferroni_dunn":
        q = float(stats.norm.ppf(1 - alpha / (2 * (k - 1))))
    else:
        raise ValueError(f"unknown critical-difference test {test!r}; use 'nemenyi' or 'bonferroni_dunn'")
    return q * math.sqrt(k * (k + 1) / (6.0 * n))


def cliques_from_cd(avg_ranks, methods, cd: float) -> list[list[str]]:
    """Maximal groups of methods whose average ranks all lie within less than ``cd``.

    These are the bars of a critical-difference diagram: methods joined by a bar are not
    significantly different (Nemenyi: different iff the ranks differ by at least CD).
    Groups are in order of rank; single methods are not listed.
    """
    r = np.asarray(avg_ranks, float)
    order = np.argsort(r, kind="stable")
    rs = r[order]
    spans = []
    for i in range(len(rs)):
        j = i
        while j + 1 < len(rs) and rs[j + 1] - rs[i] < cd:
            j += 1
        if j > i and not (spans and spans[-1][1] >= j):
            spans.append((i, j))
    return [[methods[order[t]] for t in range(i, j + 1)] for i, j in spans]


def cliques_from_pairs(avg_ranks, methods, pairs: PostHocResult) -> list[list[str]]:
    """Like :func:`cliques_from_cd`, but with "not different" taken from an all-pairs post
    hoc test: maximal runs of rank-consecutive methods in which no pair is rejected."""
    r = np.asarray(avg_ranks, float)
    order = np.argsort(r, kind="stable")
    names = [methods[t] for t in order]
    rejected = set()
    for row in pairs.comparisons.itertuples(index=False):
        if row.reject:
            rejected.add(frozenset((row.method, row.versus)))
    spans = []
    for i in range(len(names)):
        j = i
        while j + 1 < len(names) and all(frozenset((names[t], names[j + 1])) not in rejected
                                         for t in range(i, j + 1)):
            j += 1
        if j > i and not (spans and spans[-1][1] >= j):
            spans.append((i, j))
    return [names[i:j + 1] for i, j in spans]


# --------------------------------------------------------------------------- all together

@dataclass
class Comparison:
    """The complete Demšar analysis of one scores matrix (blocks x methods)."""

    methods: list
    blocks: list
    scores: pd.DataFrame           # complete blocks only
    ranks: pd.DataFrame
    average_ranks: pd.Series       # indexed by method, in the input method order
    greater_is_better: bool
    alpha: float
    friedman: FriedmanResult
    control: PostHocResult
    pairs: PostHocResult
    cd_nemenyi: float
    cd_bonferroni_dunn: float
    dropped_blocks: list = field(default_factory=list)
    metric: str | None = None

    @property
    def best(self) -> str:
        """Method with the lowest average rank (first in method order on a tie)."""
        return str(self.average_ranks.idxmin())

    def not_worse_than_control(self) -> list[str]:
        """The control and every method Holm's test does not separate from it."""
        return [m for m in self.methods if not self.control.rejected(m)]

    def cliques(self, how: str = "nemenyi") -> list[list[str]]:
        if how == "nemenyi":
            return cliques_from_cd(self.average_ranks.to_numpy(), self.methods, self.cd_nemenyi)
        if how == "bonferroni_dunn":
            return cliques_from_cd(self.average_ranks.to_numpy(), self.methods, self.cd_bonferroni_dunn)
        if how == "holm":
            return cliques_from_pairs(self.average_ranks.to_numpy(), self.methods, self.pairs)
        raise ValueError(f"unknown clique rule {how!r}; use 'nemenyi', 'bonferroni_dunn' or 'holm'")

    def to_dict(self) -> dict:
        return {
            "metric": self.metric,
            "greater_is_better": self.greater_is_better,
            "alpha": self.alpha,
            "n_blocks": len(self.blocks),
            "n_methods": len(self.methods),
            "methods": list(self.methods),
            "blocks": [str(b) for b in self.blocks],
            "dropped_blocks": [str(b) for b in self.dropped_blocks],
            "average_ranks": {m: float(v) for m, v in self.average_ranks.items()},
            "best": self.best,
            "friedman": self.friedman.to_dict(),
            "holm_control": self.control.to_dict(),
            "holm_all_pairs": self.pairs.to_dict(),
            "cd_nemenyi": self.cd_nemenyi,
            "cd_bonferroni_dunn": self.cd_bonferroni_dunn,
            "cliques_nemenyi": self.cliques("nemenyi"),
            "scores": {str(b): {m: _jsonable(v) for m, v in row.items()}
                       for b, row in self.scores.iterrows()},
        }

    def to_json(self, **kw) -> str:
        kw.setdefault("indent", 2)
        return json.dumps(self.to_dict(), allow_nan=False, **kw)

    def __str__(self) -> str:
        lines = [
            f"Comparison of {len(self.methods)} methods over {len(self.blocks)} blocks"
            + (f" on {self.metric}" if self.metric else "")
            + f" ({'higher' if self.greater_is_better else 'lower'} is better; alpha = {self.alpha:g})",
            "Average ranks: " + ", ".join(f"{m} {v:.3f}" for m, v in self.average_ranks.items()),
            str(self.friedman),
            f"Critical difference: Nemenyi {self.cd_nemenyi:.3f}, Bonferroni-Dunn {self.cd_bonferroni_dunn:.3f}",
            str(self.control),
        ]
        if self.dropped_blocks:
            lines.append("Dropped incomplete blocks: " + ", ".join(map(str, self.dropped_blocks)))
        return "\n".join(lines)


def compare(scores, *, greater_is_better: bool = True, alpha: float = 0.05, control: str = "best",
            methods=None, blocks=None, metric: str | None = None) -> Comparison:
    """Ranks, Friedman / Iman-Davenport, Holm (control and all pairs) and CDs.

    ``scores`` is a blocks x methods DataFrame (or array, with ``methods`` / ``blocks``
    naming its columns / rows). Blocks with a missing (NaN) score are dropped with an
    :class:`IncompleteBlockWarning`. ``control`` is a method name or ``"best"`` (lowest
    average rank).
    """
    if isinstance(scores, pd.DataFrame):
        frame = scores.copy()
        if methods is not None:
            frame = frame[list(methods)]
    else:
        a = np.asarray(scores, dtype=float)
        if a.ndim != 2:
            raise ValueError(f"scores must be 2-D (blocks x methods), got shape {a.shape}")
        frame = pd.DataFrame(
            a,
            index=list(blocks) if blocks is not None else range(a.shape[0]),
            columns=list(methods) if methods is not None else [f"m{j}" for j in range(a.shape[1])],
        )
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    frame = frame.apply(pd.to_numeric, errors="raise").astype(float)
    method_names = [str(m) for m in frame.columns]
    frame.columns = method_names
    if len(method_names) < 2:
        raise ValueError(f"a comparison needs at least 2 methods, got {len(method_names)}: {method_names}")
    if len(set(method_names)) != len(method_names):
        raise ValueError(f"duplicate method names: {method_names}")
    values = frame.to_numpy()
    if np.isinf(values).any():
        raise ValueError("scores contain inf; a score must be finite or missing (NaN)")
    bad = np.isnan(values).any(axis=1)
    dropped = [frame.index[i] for i in np.flatnonzero(bad)]
    if dropped:
        # blocks missing the same methods are named together (first ... last and a count
        # when there are more than three, e.g. the 20 repetitions of one data set)
        groups: dict[tuple, list] = {}
        for b in dropped:
            groups.setdefault(tuple(m for m, v in frame.loc[b].items() if pd.isna(v)), []).append(b)
        detail = "; ".join(
            (", ".join(repr(b) for b in blocks_) if len(blocks_) <= 3
             else f"{len(blocks_)} blocks {blocks_[0]!r} ... {blocks_[-1]!r}")
            + f" (missing: {', '.join(missing)})"
            for missing, blocks_ in groups.items()
        )
        warnings.warn(f"dropping {len(dropped)} incomplete block(s): {detail}",
                      IncompleteBlockWarning, stacklevel=2)
    frame = frame.loc[~bad]
    if len(frame) < 2:
        raise ValueError(
            f"the Friedman test needs at least 2 complete blocks (data sets), got {len(frame)}"
            + (f" after dropping {len(dropped)} incomplete" if dropped else "")
        )
    ranks = pd.DataFrame(rank_matrix(frame.to_numpy(), greater_is_better),
                         index=frame.index, columns=method_names)
    avg = ranks.mean(axis=0)
    n, k = ranks.shape
    fr = friedman_test(ranks.to_numpy())
    ctrl = str(avg.idxmin()) if control in (None, "best") else str(control)
    if ctrl not in method_names:
        raise ValueError(f"control method {control!r} is not one of {method_names}")
    return Comparison(
        methods=method_names,
        blocks=list(frame.index),
        scores=frame,
        ranks=ranks,
        average_ranks=avg,
        greater_is_better=bool(greater_is_better),
        alpha=float(alpha),
        friedman=fr,
        control=holm_control(avg.to_numpy(), n, method_names, ctrl, alpha),
        pairs=holm_all_pairs(avg.to_numpy(), n, method_names, alpha),
        cd_nemenyi=critical_difference(k, n, alpha, "nemenyi"),
        cd_bonferroni_dunn=critical_difference(k, n, alpha, "bonferroni_dunn"),
        dropped_blocks=dropped,
        metric=metric,
    )


def score_matrix(results: pd.DataFrame, metric: str, block_cols=("dataset",), method_col: str = "method",
                 methods=None) -> pd.DataFrame:
    """Blocks x methods matrix of ``metric`` averaged over repetitions.

    ``results`` holds one row per (block, method, repetition). A block label joins the
    ``block_cols`` values with `` / ``. Methods and blocks keep their order of first
    appearance (or ``methods``' order). Cells with no finite value are NaN, so that
    :func:`compare` drops the block and names it.
    """
    if metric not in results.columns:
        raise ValueError(f"metric {metric!r} is not a column of the results; have {sorted(results.columns)}")
    block_cols = list(block_cols)
    for c in block_cols + [method_col]:
        if c not in results.columns:
            raise ValueError(f"column {c!r} is not in the results")
    df = results[block_cols + [method_col, metric]].copy()
    df[metric] = pd.to_numeric(df[metric], errors="coerce").astype(float)
    df["_block"] = df[block_cols].astype(str).agg(" / ".join, axis=1)
    block_order = list(dict.fromkeys(df["_block"]))
    method_order = list(methods) if methods is not None else list(dict.fromkeys(df[method_col]))
    m = df.groupby(["_block", method_col], sort=False)[metric].mean().unstack(method_col)
    m = m.reindex(index=block_order, columns=method_order)
    m.index.name = "block"
    m.columns.name = None
    return m


def compare_results(results: pd.DataFrame, metric: str, block_cols=("dataset",), *,
                    greater_is_better: bool | None = None, alpha: float = 0.05, control: str = "best",
                    methods=None) -> Comparison:
    """:func:`compare` on :func:`score_matrix` of a results frame. ``greater_is_better``
    defaults to the metric's direction in :data:`pu_lib.metrics.METRICS`."""
    if greater_is_better is None:
        from pu_lib.metrics import METRICS

        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}: pass greater_is_better explicitly")
        greater_is_better = METRICS[metric]["greater_is_better"]
    mat = score_matrix(results, metric, block_cols, methods=methods)
    return compare(mat, greater_is_better=greater_is_better, alpha=alpha, control=control, metric=metric)


# --------------------------------------------------------------------------- helpers

def _check_shape(r: np.ndarray):
    if r.ndim != 2:
        raise ValueError(f"ranks must be 2-D (blocks x methods), got shape {r.shape}")
    n, k = r.shape
    if k < 2:
        raise ValueError(f"the Friedman test needs at least 2 methods, got {k}")
    if n < 2:
        raise ValueError(f"the Friedman test needs at least 2 blocks (data sets), got {n}")
    return n, k


def _jsonable(v):
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        v = float(v)
        if math.isnan(v):
            return None
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    return v
