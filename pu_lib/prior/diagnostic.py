"""Checking a class prior before trusting it: :func:`diagnose_prior`.

A class-prior estimate is a single number that every prior-taking classifier and every
prior-based scorer then believes. :func:`diagnose_prior` puts the evidence for and
against it side by side on the user's own ``(X, s)``:

1. **Several estimators** (:data:`DEFAULT_ESTIMATORS`: TIcE, KM2, PULSCAR, PULSNAR,
   DEDPUL, AlphaMax and Elkan-Noto's e1 -- four families: subset bounds, kernel embeddings,
   classifier-probability densities and mixtures, a held-out average; PE, pen-L1 and
   AlphaMax_N on request, the least accurate in docs/class_priors.md's measured table, or
   meant for labeled rows with negatives among them) each with its percentile
   interval over ``n_resamples`` stratified half-samples
   (:func:`pu_lib.prior.bootstrap.bootstrap_ci`). The reported quantity is the prior the
   classifiers of the scenario use (:func:`pu_lib.prior.population_prior`: ``prior_``
   for ``"single_training_set"``, ``alpha_`` for ``"case_control"``).
2. **Disagreement**: every pair of estimators whose intervals do not overlap is listed.
   The intervals cover each estimator's variance, not its bias; estimators whose
   intervals are disjoint cannot all be unbiased here, so at least one of them is wrong
   on this data (they rest on different assumptions: SCAR, a positive-only region, a
   well-calibrated classifier, clusters of the labeled rows).
3. **Too few labeled rows**: an estimator whose :meth:`~pu_lib.prior.BasePriorEstimator.min_labeled`
   exceeds the labeled rows is not run; one whose minimum exceeds the labeled rows of a
   half-sample (``n_labeled // 2``) is run once, without an interval. Both are listed.
4. **A SCAR check** (:func:`scar_check`), a permutation test of whether the labeling
   depends on ``x`` among the likeliest positives.
5. **A prior-sensitivity sweep** (:func:`prior_sweep`): a prior-taking classifier refitted
   at each prior of a grid, and the share of rows it then predicts positive -- how much the
   classifier's decisions move over the range the estimates leave open.

Default run time: with ``n_resamples=20`` the seven estimators make 147 fits; on 2,000 rows
of 10 features (2-core machine) PULSNAR and KM2 dominate (about 2-3 s per fit on all
rows); docs/cli.md gives measured times of ``pu-lib prior --all``.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import CASE_CONTROL, SINGLE_TRAINING_SET, check_scenario, labeled_share

__all__ = ["DEFAULT_ESTIMATORS", "PriorDiagnosis", "diagnose_prior", "prior_sweep", "scar_check"]

#: the estimators :func:`diagnose_prior` runs by default (names of
#: :data:`pu_lib.prior._names.PRIOR_ESTIMATORS`)
DEFAULT_ESTIMATORS = ("tice", "km2", "pulscar", "pulsnar", "dedpul", "alphamax", "elkan_noto_prior")
#: the classifier of the prior sweep by default (its registered name, as the label of the
#: sweep, and parameters): PU Extra Trees, 50 trees (a fit takes well under a second on a
#: few thousand rows)
DEFAULT_SWEEP_CLASSIFIER = ("pu_extra_trees", {"n_estimators": 50})
#: the SCAR check needs at least this many labeled and this many unlabeled rows in its
#: region (below it a 5-fold cross-validated AUC has folds with one or no row of a kind)
SCAR_MIN_ROWS = 10


@dataclass
class PriorDiagnosis:
    """What :func:`diagnose_prior` returns.

    ``table``: one row per estimator (``estimator``, ``estimate`` -- the scenario's prior
    -- with ``low`` / ``high`` of its interval (NaN without one), ``alpha``, ``prior``,
    ``c``, ``min_labeled``, ``seconds``, ``note``). ``disagreements``: pairs ``(a, b)``
    whose intervals do not overlap. ``too_few_labeled``: estimator -> its minimum, for
    those whose minimum the labeled rows (or a half-sample's) do not reach. ``scar``: the
    :func:`scar_check` result (a dict). ``sweep``: the :func:`prior_sweep` table (or None).
    """

    table: object
    scenario: str
    n_rows: int
    n_labeled: int
    confidence: float
    n_resamples: int
    disagreements: list = field(default_factory=list)
    too_few_labeled: dict = field(default_factory=dict)
    scar: dict | None = None
    sweep: object = None

    @property
    def labeled_share(self) -> float:
        return self.n_labeled / self.n_rows

    def to_dict(self) -> dict:
        """A JSON-ready dict of everything (tables as lists of records, NaN as None)."""
        def records(df):
            if df is None:
                return None
            return [{k: (None if isinstance(v, float) and not np.isfinite(v) else
                         (v.item() if isinstance(v, np.generic) else v)) for k, v in r.items()}
                    for r in df.to_dict(orient="records")]

        return {"scenario": self.scenario, "n_rows": self.n_rows, "n_labeled": self.n_labeled,
                "labeled_share": self.labeled_share, "confidence": self.confidence,
                "n_resamples": self.n_resamples, "estimates": records(self.table),
                "disagreements": [list(p) for p in self.disagreements], "too_few_labeled": self.too_few_labeled,
                "scar": self.scar, "sweep": records(self.sweep)}

    def summary(self) -> str:
        """The findings as text: estimates and intervals, disagreements, too few labeled
        rows, the SCAR check and the sweep."""
        lines = [f"{self.n_rows} rows, {self.n_labeled} labeled (labeled share {self.labeled_share:.4f}); "
                 f"scenario {self.scenario}: the prior is "
                 + ("P(y = 1) over all rows" if self.scenario == SINGLE_TRAINING_SET
                    else "P(y = 1) among the unlabeled rows (alpha)")]
        lines.append(_frame_text(self.table, ["estimator", "estimate", "low", "high", "c", "seconds", "note"]))
        if self.n_resamples >= 2:
            lines.append(f"interval: {self.confidence:g} percentile interval over {self.n_resamples} stratified "
                         "half-samples (the estimator's variance, not its bias)")
        est = self.table["estimate"].to_numpy(dtype=float)
        est = est[np.isfinite(est)]
        if est.size:
            lines.append(f"estimates from {est.min():.4f} to {est.max():.4f} (median {np.median(est):.4f}); the "
                         f"lowest possible prior is {self.labeled_share:.4f}"
                         if self.scenario == SINGLE_TRAINING_SET else
                         f"estimates from {est.min():.4f} to {est.max():.4f} (median {np.median(est):.4f})")
        if self.disagreements:
            lines.append("DISAGREE: intervals that do not overlap (at least one of each pair is biased here): "
                         + ", ".join(f"{a} / {b}" for a, b in self.disagreements))
        else:
            lines.append("agree: every pair of intervals overlaps")
        if self.too_few_labeled:
            lines.append("TOO FEW LABELED ROWS for: " + ", ".join(
                f"{k} (needs {v}{' per half-sample' if self.n_labeled >= v else ''})"
                for k, v in self.too_few_labeled.items()))
        if self.scar is not None:
            sc = self.scar
            if sc.get("p_value") is None:
                lines.append(f"SCAR check: not applicable ({sc['note']})")
            else:
                verdict = "REJECTED" if sc["p_value"] <= sc["level"] else "not rejected"
                lines.append(f"SCAR check: {verdict} at level {sc['level']:g} (p = {sc['p_value']:.4f}, "
                             f"AUC of s from x among the likeliest positives {sc['auc']:.3f}, "
                             f"{sc['n_region_labeled']} labeled + {sc['n_region_unlabeled']} unlabeled rows); "
                             f"{sc['note']}")
        if self.sweep is not None:
            lines.append(f"prior sweep ({self.sweep.attrs.get('classifier', '')} refitted at each prior):")
            lines.append(_frame_text(self.sweep, list(self.sweep.columns)))
        return "\n".join(lines)


def _cell(v) -> str:
    if isinstance(v, (float, np.floating)):
        return "" if not np.isfinite(v) else f"{v:.4f}"
    return "" if v is None else str(v)


def _frame_text(df, columns) -> str:
    header = list(columns)
    rows = [[_cell(r[c]) for c in columns] for _, r in df.iterrows()]
    widths = [max(len(x) for x in col) for col in zip(header, *rows)]
    out = ["  ".join(c.ljust(w) for c, w in zip(header, widths)).rstrip(), "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(out)


def _make(name, random_state):
    """``(label, unfitted estimator)``: a prior estimator's name made with ``random_state``, or a
    clone of an estimator object (never fitted in place)."""
    from sklearn.base import clone

    if isinstance(name, str):
        from pu_lib.prior._names import make_prior_estimator  # loads scikit-learn

        return name, make_prior_estimator(name, random_state=random_state, n_jobs=1)
    return type(name).__name__, clone(name)


def diagnose_prior(X, s, estimators=None, *, scenario: str = SINGLE_TRAINING_SET, n_resamples: int = 20,
                   confidence: float = 0.95, classifier=None, priors=None, sweep: bool = True,
                   scar: bool = True, scar_level: float = 0.05, n_permutations: int = 99,
                   random_state=0, n_jobs=1) -> PriorDiagnosis:
    """Run several class-prior estimators side by side on ``(X, s)`` and check them (the
    module docstring lists the checks).

    ``estimators``: prior estimators' names or estimator objects (default
    :data:`DEFAULT_ESTIMATORS`). ``n_resamples``: half-samples per estimator for its
    interval (0: estimates only; 20 by default, a modest number: the end points of a 95%
    interval from 20 values are their extremes, so read them as a rough spread).
    ``classifier``: the prior-taking classifier of the sweep (an estimator object with a
    ``prior`` parameter; default :data:`DEFAULT_SWEEP_CLASSIFIER`); ``priors``: the
    sweep's grid (default :func:`prior_sweep`'s). ``sweep`` / ``scar``: run those parts.
    ``scar_level``, ``n_permutations``: of :func:`scar_check`. ``random_state`` fixes
    every seed; ``n_jobs`` threads for each estimator's resamples.
    """
    import pandas as pd

    from pu_lib.prior.base import population_prior
    from pu_lib.prior.bootstrap import BootstrapShiftWarning, bootstrap_ci

    check_scenario(scenario)
    s = np.asarray(s).ravel().astype(np.int64)
    X = np.asarray(X, dtype=np.float64) if not hasattr(X, "iloc") else X
    seed = seed_to_int(random_state, "random_state", fresh_if_none=True)
    _, n_l, n = labeled_share(s)
    n_l, n = int(n_l), int(n)
    quantity = "alpha" if scenario == CASE_CONTROL else "prior"
    rows, too_few, used = [], {}, set()
    for spec in estimators if estimators is not None else DEFAULT_ESTIMATORS:
        # seeds follow from the estimator's name, not its place in the list, so that adding
        # or dropping another estimator leaves its numbers unchanged
        label = spec if isinstance(spec, str) else type(spec).__name__
        name, est = _make(spec, derive_seed("diagnose_prior", seed, label))
        base, k = name, 1
        while name in used:  # two objects of one class: _2, _3, ...
            k += 1
            name = f"{base}_{k}"
        used.add(name)
        need = int(est.min_labeled()) if hasattr(est, "min_labeled") else 1
        row = {"estimator": name, "estimate": np.nan, "low": np.nan, "high": np.nan, "alpha": np.nan,
               "prior": np.nan, "c": np.nan, "min_labeled": need, "seconds": np.nan, "note": ""}
        t0 = time.perf_counter()
        if n_l < need:
            too_few[name] = need
            row["note"] = f"not run: needs {need} labeled rows"
            rows.append(row)
            continue
        boot = n_resamples >= 2 and n_l // 2 >= need
        if n_resamples >= 2 and not boot:
            too_few[name] = need
        try:
            with warnings.catch_warnings():
                # the table shows an estimate outside its interval: no warning needed
                warnings.simplefilter("ignore", BootstrapShiftWarning)
                if boot:
                    res = bootstrap_ci(est, X, s, n_resamples=n_resamples, confidence=confidence,
                                       random_state=derive_seed("diagnose_prior", seed, name, "bootstrap"),
                                       n_jobs=n_jobs, resampling="half")
                    fitted = res.estimator
                    iv = getattr(res, quantity)
                    row.update(low=iv.low, high=iv.high)
                else:
                    fitted = est.fit(X, s)
                    if n_resamples >= 2:
                        row["note"] = f"no interval: a half-sample has {n_l // 2} labeled rows, needs {need}"
        except ValueError as exc:
            row["note"] = "failed: " + " ".join(str(exc).split())[:200]
            row["seconds"] = time.perf_counter() - t0
            rows.append(row)
            continue
        row.update(estimate=population_prior(fitted, scenario), alpha=float(fitted.alpha_),
                   prior=float(fitted.prior_), c=float(fitted.c_), seconds=time.perf_counter() - t0)
        rows.append(row)
    table = pd.DataFrame(rows)
    disagreements = _disjoint_pairs(table)
    out = PriorDiagnosis(table=table, scenario=scenario, n_rows=n, n_labeled=n_l, confidence=float(confidence),
                         n_resamples=int(n_resamples), disagreements=disagreements, too_few_labeled=too_few)
    if scar:
        out.scar = scar_check(X, s, level=scar_level, n_permutations=n_permutations,
                              random_state=derive_seed("diagnose_prior", seed, "scar"))
    if sweep:
        if priors is None:
            est_values = table["estimate"].to_numpy(dtype=float)
            his = table["high"].to_numpy(dtype=float)
            priors = default_sweep_grid(s, scenario, np.concatenate([est_values, his]))
        out.sweep = prior_sweep(X, s, priors, classifier=classifier, scenario=scenario,
                                random_state=derive_seed("diagnose_prior", seed, "sweep"))
    return out


def _disjoint_pairs(table) -> list[tuple[str, str]]:
    """Pairs of estimators (in table order) whose intervals ``[low, high]`` do not overlap
    (rows without an interval are left out)."""
    ok = table[np.isfinite(table["low"].to_numpy(dtype=float))]
    recs = list(ok[["estimator", "low", "high"]].itertuples(index=False))
    return [(a.estimator, b.estimator) for i, a in enumerate(recs) for b in recs[i + 1:]
            if a.high < b.low or b.high < a.low]


def default_sweep_grid(s, scenario: str, values=()) -> np.ndarray:
    """The default priors of the sweep: 9 evenly spaced values from just above the lowest
    feasible prior (the labeled share in the single-training-set scenario, 0 in the
    case-control one) to the largest of ``values`` (the estimates and their interval
    ends) plus 0.1, at most 0.95; rounded to 3 decimals."""
    share = labeled_share(np.asarray(s))[0] if scenario == SINGLE_TRAINING_SET else 0.0
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    top = min(0.95, (float(v.max()) if v.size else 0.5) + 0.1)
    lo = share + 0.02
    if top <= lo:
        top = min(0.99, lo + 0.2)
    return np.unique(np.round(np.linspace(lo, top, 9), 3))


def prior_sweep(X, s, priors, classifier=None, *, scenario: str = SINGLE_TRAINING_SET, n_folds: int = 3,
                random_state=0):
    """The prior-sensitivity sweep: ``classifier`` (a prior-taking classifier object; default
    :data:`DEFAULT_SWEEP_CLASSIFIER`) refitted on all of ``(X, s)`` with
    ``prior`` set to each value of ``priors`` (impossible priors -- below the labeled share
    in the single-training-set scenario -- are skipped), its predictions taken out of fold
    (``n_folds``-fold cross-validation stratified on ``s``, the same folds at every prior:
    a forest's predictions on its own training rows would call every labeled row
    positive), and per prior: the share of all rows predicted positive (``predicted_positive``), of the unlabeled rows
    (``unlabeled_predicted_positive``), of the labeled rows (``labeled_recall``: under
    SCAR an estimate of the recall), and ``changed`` -- the share of rows whose prediction
    differs from that at the middle prior of the grid. The refit (not a threshold moved
    over one model's scores) is what a user of that classifier gets with that prior; it
    shows how far the decisions move over the priors the estimates leave open.
    Returns a DataFrame (``attrs["classifier"]`` names the classifier)."""
    import pandas as pd
    from sklearn.base import clone

    from pu_lib._validation import check_prior_feasible

    s = np.asarray(s).ravel().astype(np.int64)
    if classifier is None:
        from pu_lib.trees import PUExtraTreesClassifier  # this module sits above the classifiers

        name, params = DEFAULT_SWEEP_CLASSIFIER
        classifier = PUExtraTreesClassifier(**params, random_state=random_state)
        label = f"{name}({', '.join(f'{k}={v}' for k, v in params.items())})"
    elif isinstance(classifier, str):
        raise ValueError(f"classifier={classifier!r}: give the sweep's classifier as an estimator object with a "
                         "prior parameter (e.g. PUExtraTreesClassifier()); the command line's --sweep-method "
                         "takes a registered name")
    else:
        label = type(classifier).__name__
    if "prior" not in classifier.get_params(deep=False):
        raise ValueError(f"the sweep's classifier {label} takes no prior parameter")
    params = classifier.get_params(deep=False)
    if "scenario" in params:
        classifier = clone(classifier).set_params(scenario=scenario)
    feasible = []
    for p in np.asarray(priors, dtype=float).ravel():
        try:
            feasible.append(check_prior_feasible(p, s, scenario))
        except ValueError:
            continue
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    folds = list(StratifiedKFold(n_folds, shuffle=True,
                                 random_state=derive_seed("prior_sweep", seed_to_int(random_state, fresh_if_none=True))
                                 % 2**31).split(np.zeros((s.size, 1)), s))
    preds = {}
    for p in feasible:
        est = clone(classifier).set_params(prior=p)
        try:
            preds[p] = np.asarray(cross_val_predict(est, X, s, cv=folds)).ravel() == 1
        except ValueError:  # feasible on all rows but not on a training part (a prior at the labeled share)
            continue
    feasible = list(preds)
    mid = feasible[len(feasible) // 2] if feasible else None
    rows = [{"prior": p, "predicted_positive": float(y.mean()), "unlabeled_predicted_positive": float(y[s == 0].mean()),
             "labeled_recall": float(y[s == 1].mean()), "changed": float(np.mean(y != preds[mid]))}
            for p, y in preds.items()]
    df = pd.DataFrame(rows, columns=["prior", "predicted_positive", "unlabeled_predicted_positive",
                                     "labeled_recall", "changed"])
    df.attrs["classifier"] = label
    return df


def scar_check(X, s, *, level: float = 0.05, n_permutations: int = 99, n_folds: int = 5, quantile: float = 0.1,
               random_state=0) -> dict:
    """A permutation test of the labeling's dependence on ``x`` among the likeliest positives.

    Under SCAR, ``P(s = 1 | x) = c * P(y = 1 | x)``; where only positives occur
    (``P(y = 1 | x) = 1``) it equals the constant ``c``. The test:

    1. ``g(x)``: out-of-fold ``P(s = 1 | x)`` of a random forest (100 trees, leaves of at
       least 5 rows; ``n_folds``-fold stratified cross-validation). A flexible model
       matters: on scikit-learn's digits (0-2 positive, SCAR labels) a logistic
       regression's region held 116 negatives among 602 rows and the test rejected (p
       0.02-0.05 on three of four seeds), the forest's held 4 among 494;
    2. the region ``R``: the rows (labeled or not) whose ``g`` is at least the ``quantile``
       (default 0.1) quantile of the labeled rows' ``g`` -- the likeliest positives: rows
       less likely labeled than 90% of the labeled rows are left out. A low quantile
       matters: under SAR ``g`` is the propensity itself among positives, so a high cut
       (the labeled rows' median, say) keeps only the rows whose propensity is near its
       top, where it hardly varies (on the two-Gaussian SAR sample of the tests the
       median cut left 11-17 unlabeled rows and p-values of 0.04-0.1; the 0.1 quantile
       rejects with p = 1/(B+1) on every seed tried);
    3. the statistic: the out-of-fold AUC with which a linear classifier (Fisher's
       discriminant on standardised features, pooled covariance plus a 1e-3 ridge),
       cross-validated within ``R`` (``n_folds`` folds stratified on ``s``), predicts ``s``
       from ``x`` there;
    4. the p-value: ``(1 + #{T_b >= T}) / (1 + B)`` over ``B = n_permutations``
       permutations of ``s`` within ``R`` (same folds).

    **Null hypothesis**: within ``R`` the labeling does not depend on ``x`` (``s`` is
    exchangeable across ``R``'s rows). The permutation test is exact for it, whatever the
    classifiers. SCAR implies it when ``R`` holds positives only (the classes have a
    positive-only region, the assumption TIcE and KM also need); a SAR labeling whose
    propensity varies with ``x`` among positives breaks it. **Where it does not apply**:
    fewer than :data:`SCAR_MIN_ROWS` labeled or unlabeled rows in ``R`` (then
    ``p_value`` is None); a SNAR labeling (propensity depending on ``y`` alone is SCAR
    within the positives, so it is not detected); a rejection when the classes overlap
    inside ``R`` (negatives among the likeliest positives) also says the null is false,
    but not that SCAR is: read a rejection as "the labeled share varies with ``x`` among
    the likeliest positives", and a non-rejection as "no evidence of it", not as proof of
    SCAR (SCAR cannot be verified from PU data alone).

    Returns a dict: ``p_value`` (None where it does not apply), ``auc``, ``level``,
    ``rejected``, ``n_permutations``, ``n_region_labeled``, ``n_region_unlabeled``,
    ``null``, ``note``.
    """
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    null = "within the likeliest positives, s does not depend on x (implied by SCAR where only positives occur)"
    s = np.asarray(s).ravel().astype(np.int64)
    X = np.nan_to_num(np.asarray(X, dtype=np.float64))
    seed = seed_to_int(random_state, "random_state", fresh_if_none=True)
    out = {"p_value": None, "auc": None, "level": float(level), "rejected": None,
           "n_permutations": int(n_permutations), "n_region_labeled": 0, "n_region_unlabeled": 0, "null": null}

    n_l = int(s.sum())
    if min(n_l, s.size - n_l) < n_folds:
        out["note"] = f"fewer than {n_folds} labeled or unlabeled rows"
        return out
    folds = StratifiedKFold(n_folds, shuffle=True, random_state=derive_seed("scar_check", seed, "g") % 2**31)
    forest = RandomForestClassifier(n_estimators=100, min_samples_leaf=5, n_jobs=1,
                                    random_state=derive_seed("scar_check", seed, "forest") % 2**31)
    g = cross_val_predict(forest, X, s, cv=folds, method="predict_proba")[:, 1]
    region = g >= np.quantile(g[s == 1], quantile)
    sr, Xr = s[region], X[region]
    out["n_region_labeled"], out["n_region_unlabeled"] = int(sr.sum()), int(sr.size - sr.sum())
    if min(out["n_region_labeled"], out["n_region_unlabeled"]) < SCAR_MIN_ROWS:
        out["note"] = (f"the likeliest positives hold {out['n_region_labeled']} labeled and "
                       f"{out['n_region_unlabeled']} unlabeled rows, fewer than {SCAR_MIN_ROWS} of a kind")
        return out
    inner = StratifiedKFold(n_folds, shuffle=True, random_state=derive_seed("scar_check", seed, "r") % 2**31)
    splits = list(inner.split(Xr, sr))
    sd = Xr.std(axis=0)
    Xr = (Xr - Xr.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    ridge = 1e-3 * np.eye(Xr.shape[1])

    def stat(labels):
        # Fisher's linear discriminant of the training part (pooled covariance, a small
        # ridge), scored on the held-out part: a linear classifier cheap enough to refit
        # for every permutation
        z = np.zeros(labels.size)
        for tr, te in splits:
            a, b = Xr[tr][labels[tr] == 1], Xr[tr][labels[tr] == 0]
            if len(a) < 2 or len(b) < 2:
                continue
            centred = np.vstack([a - a.mean(axis=0), b - b.mean(axis=0)])
            cov = centred.T @ centred / max(len(centred) - 2, 1)
            z[te] = Xr[te] @ np.linalg.solve(cov + ridge, a.mean(axis=0) - b.mean(axis=0))
        return float(roc_auc_score(labels, z))

    t = stat(sr)
    rng = np.random.default_rng(derive_seed("scar_check", seed, "permutations"))
    null_stats = np.array([stat(rng.permutation(sr)) for _ in range(int(n_permutations))])
    p = float((1 + np.sum(null_stats >= t)) / (1 + null_stats.size))
    out.update(p_value=p, auc=t, rejected=bool(p <= level),
               note=("the labeled share varies with x among the likeliest positives: SAR labeling, or classes "
                     "overlapping there" if p <= level else "no evidence against SCAR (which PU data cannot prove)"))
    return out
