"""Benchmark: class-prior estimators on the PULSNAR paper's large synthetic SNAR sets.

One run, side by side, on ``make_pulsnar_snar`` with 5,000 labeled positives (1,000 per
subclass), 100 features and U in ``--sizes`` (default 10k / 50k / 100k; paper Table 2):

* **TIcE** (:class:`pu_lib.prior.TIcE`, numba) against the natural reference, a plain
  Python implementation of the same Algorithm 1 (``tests/tice_reference.py``,
  dict/list nodes as in the authors' code) on the same bins and folds -- ratio
  reference / ours; the two give identical estimates (checked here and in the tests);
* **PULSCAR** and **PULSNAR** (XGBoost 5-fold CV, beta kernels, GMM clusters), and the
  beta-kernel density against the reference scipy evaluation
  (``scipy.stats.beta.pdf`` per grid point);
* **KM1 / KM2** (:class:`pu_lib.prior.KMPriorEstimator`; one fit computes both, so
  their rows share the time; at most 2,000 rows enter the kernel, so it runs at every
  size) and, with ``--cvxopt-path DIR`` (a directory holding ``cvxopt``, e.g. ``pip
  install --target DIR cvxopt``), one distance-curve QP solved both by our solver (factor
  + NNLS, or the active-set method from a cold start) and by ``cvxopt.solvers.coneqp`` in
  the authors' formulation (their solver) on the same kernel -- ratio cvxopt / ours;
* **DEDPUL** (:class:`pu_lib.prior.DEDPUL`; ``--dedpul-boosters``: XGBoost predictions by
  default, ``catboost`` the PULSNAR paper's DEDPUL, whose Table 2 seconds go beside that row
  only) and, at the first size,
  its density-ratio step against the natural reference on the same predictions: exact
  ``scipy.stats.gaussian_kde`` sums and a plain-Python dict implementation of the
  monotonizing trends (the authors' data structure) -- ratio reference / ours;
* the paper's Table 2 times (seconds, 192-core AMD EPYC 9654) printed beside ours
  (2 cores here): PULSCAR 0.61 / 1.77 / 3.19, PULSNAR 2.04 / 7.91 / 14.07, TIcE
  83.78 / 349.28 / 706.50, DEDPUL 2.29 / 42.04 / 159.59 and KM 243.47 / failed / failed
  for U = 10k / 50k / 100k.

``--diabetes`` adds Table 2's last row: the CDC diabetes health indicators from the data
mirror (``--data-mirror``, default ``../shared/datasets``), the paper's positive class, SCAR
with 20% positives among the unlabeled (``pulsnar_alpha``, seed 0), as the
``pulsnar_times_diabetes`` experiment labels it.

Per-example times are fit seconds / (|P| + |U|). PULSCAR and PULSNAR are timed with each
``--boosters`` entry: ``xgboost`` (the default estimator) and ``hist_boost`` (rows marked
``+hb``: the same boosted trees grown by :mod:`pu_lib.hist_boost` on bins computed once
per estimate).

With ``--authors-python PY --authors-src DIR`` (a Python with the authors' dependencies and a
checkout of ``unmtransinfo/PULSNAR``; see ``benchmarks/authors_pulsnar.py``), the authors'
PULSCAR and PULSNAR run on the same data with the settings of their synthetic-data examples
(which are our defaults), with the same number of threads, and the ratio authors / ours is
printed; ``--example-alphas 0.1 0.3 0.5`` adds their example size (2,000 labeled in 5
subclasses, 6,000 unlabeled, 50 features; SCAR data for PULSCAR, SNAR for PULSNAR).
``--authors-draws N`` (with those options) runs only an accuracy comparison instead: their
generator's draws for seeds 0..N-1 at each ``--example-alphas`` value, their code and ours on
each, beside the values of their results spreadsheet for the same seeds.

Usage: ``python benchmarks/bench_priors.py [--sizes 10000 50000 100000] [--frac 0.2]
[--repeat 1] [--no-reference] [--n-jobs 2] [--authors-python PY --authors-src DIR]
[--example-alphas A ...] [--authors-draws N] [--cvxopt-path DIR] [--boosters xgboost hist_boost] [--quick]
[--estimators TIcE PULSCAR PULSNAR KM DEDPUL] [--dedpul-boosters xgboost catboost hist_boost] [--diabetes]``
(``--quick``: U = 10k only, no plain-Python TIcE;
``--estimators``: only these estimators' rows, e.g. ``--estimators TIcE`` after a change to TIcE)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

PAPER = {  # PULSNAR Table 2, seconds (KM: "Failed" at 50k and 100k)
    10_000: {"TIcE": 83.78, "PULSCAR": 0.61, "PULSNAR": 2.04, "DEDPUL": 2.29, "KM": 243.47},
    50_000: {"TIcE": 349.28, "PULSCAR": 1.77, "PULSNAR": 7.91, "DEDPUL": 42.04, "KM": "failed"},
    100_000: {"TIcE": 706.50, "PULSCAR": 3.19, "PULSNAR": 14.07, "DEDPUL": 159.59, "KM": "failed"},
}


#: Table 2's diabetes row (P 218,334 / U 35,346 as printed), seconds
PAPER_DIABETES = {"TIcE": 1100.73, "PULSCAR": 18.31, "PULSNAR": 27.85, "DEDPUL": 199.88, "KM": "failed"}


def paper_cells(p, t):
    """(paper seconds, ratio) columns: numbers, or the paper's word (e.g. 'failed')."""
    if isinstance(p, str):
        return f"{p:>8} {'-':>8}"
    p = p if p else float("nan")
    return f"{p:8.2f} {p / t:8.1f}"


def best_time(fn, repeat, cpu=False):
    """Best wall time of ``repeat`` calls (and the process CPU time of that call if ``cpu``)."""
    best, best_cpu, out = float("inf"), float("nan"), None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        t = time.perf_counter() - t0
        if t < best:
            best, best_cpu = t, time.process_time() - c0
    return (best, best_cpu, out) if cpu else (best, out)


def authors_json(args, *argv) -> dict:
    """The JSON line printed by ``authors_pulsnar.py *argv`` run with ``--authors-python``."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "authors_pulsnar.py")
    out = subprocess.run([args.authors_python, script, *argv, "--src", args.authors_src], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def authors_run(args, X, s, mode):
    """(seconds, alpha, n_clusters) of the authors' code on (X, s), or None without it."""
    if not args.authors_python:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data.npz")
        np.savez(path, X=np.asarray(X, dtype=float), s=np.asarray(s))
        r = authors_json(args, path, mode, "--n-jobs", str(args.n_jobs))
    return r["seconds"], r["alpha"], r.get("n_clusters"), r.get("cpu_seconds")


def authors_draws(args, alpha, mode, cls):
    """Accuracy on the authors' own draws: for seeds 0..``--authors-draws``-1, their generator's
    data set (``authors_pulsnar.py --make-data``), their estimator and ours (defaults,
    ``random_state=seed``) on it; one summary row per (mode, alpha) with their results
    spreadsheet's values for the same seeds."""
    sheet, theirs, ours = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "draw.npz")
        for seed in range(args.authors_draws):
            made = authors_json(args, path, mode, "--make-data", str(alpha), str(seed))
            ran = authors_json(args, path, mode, "--n-jobs", str(args.n_jobs), "--shuffle-seed", "-1")
            d = np.load(path)
            est = cls(random_state=seed, n_jobs=args.n_jobs).fit(d["X"], d["s"])
            sheet.append(np.nan if made["sheet"] is None else made["sheet"])
            theirs.append(ran["alpha"])
            ours.append(est.alpha_)

    def cell(v):
        v = np.asarray(v, dtype=float)
        if np.isnan(v).all():
            return f"{'-':>22}"
        sd = np.nanstd(v, ddof=1) if np.count_nonzero(~np.isnan(v)) > 1 else 0.0  # sample sd
        return f"{np.nanmean(v):6.3f} ({sd:5.3f}) |e| {np.nanmean(np.abs(v - alpha)):5.3f}"

    print(f"{cls.__name__:<8} {alpha:5.2f} {args.authors_draws:>5}  sheet {cell(sheet)}  authors' code "
          f"{cell(theirs)}  ours {cell(ours)}", flush=True)


def side_by_side(args, label, X, s, alpha, mode, cls, paper_seconds=None):
    """Fit ours with every ``--boosters`` entry (best of --repeat), run the authors' code once
    if configured, print one row per booster with the ratio authors / ours."""
    a = authors_run(args, X, s, mode)
    out = None
    for booster in args.boosters:
        t, cpu, est = best_time(lambda: cls(random_state=0, n_jobs=args.n_jobs, booster=booster).fit(X, s),
                                args.repeat, cpu=True)
        extra = (f"{est.n_clusters_} clusters, " if mode == "pulsnar" else "") + f"CPU {cpu:.1f} s"
        if a is not None:
            extra += (f"  authors: {a[0]:.2f} s (CPU {a[3]:.1f} s), alpha {a[1]:.3f}"
                      + (f", {a[2]} clusters" if a[2] else "") + f"; authors / ours {a[0] / t:.1f}x")
        name = cls.__name__ + ("" if booster == "xgboost" else "+hb")
        print(f"{label:>8} {name:<11} {alpha:6.3f} {est.alpha_:6.3f} {abs(est.alpha_ - alpha):6.3f} {t:8.2f} "
              f"{1e3 * t / X.shape[0]:7.3f} {paper_cells(paper_seconds, t)}  {extra}", flush=True)
        out = out or (t, est)
    return out


def km_qp_reference(cvxopt_path, X, s, km):
    """One distance-curve QP (lambda = 2) on KM's subsample: our solver as the estimator
    chooses it (:func:`pu_lib.prior.km.distance_curve`: factor + NNLS on a low-rank kernel,
    else the active-set method from a cold start; in a fit most QPs are warm-started and
    faster) against cvxopt's coneqp in the authors' formulation (P = 2K, q = -2Ku, v >= 0,
    sum v = 1); returns a note with both times, the ratio and the two distances."""
    sys.path.insert(0, cvxopt_path)
    from cvxopt import matrix, solvers, spmatrix

    from pu_lib._seeding import check_random_state, derive_seed
    from pu_lib.prior.km import distance_curve, km_kernel

    # the estimator's own subsample (same seed derivation as KMPriorEstimator._estimate)
    rng = check_random_state(derive_seed("KM", 0, "subsample"))
    Xm, Xc = X[s == 0], X[s == 1]
    Xm = Xm[np.sort(rng.choice(Xm.shape[0], km.n_mixture_used_, replace=False))] \
        if Xm.shape[0] > km.n_mixture_used_ else Xm
    Xc = Xc[np.sort(rng.choice(Xc.shape[0], km.n_component_used_, replace=False))] \
        if Xc.shape[0] > km.n_component_used_ else Xc
    N, M = Xm.shape[0], Xc.shape[0]
    _, K, _ = km_kernel(Xm, Xc)
    lam = 2.0
    t0 = time.perf_counter()
    curve, rank = distance_curve(Xm, Xc, K)
    d_ours = curve(lam)
    t_ours = time.perf_counter() - t0
    solver = "active set, cold start" if rank is None else f"rank-{rank} factor + NNLS"
    u = np.r_[np.full(N, lam / N), np.full(M, (1 - lam) / M)]
    n = N + M
    solvers.options["show_progress"] = False
    t0 = time.perf_counter()
    sol = solvers.coneqp(matrix(2 * K), matrix(-2 * K @ u), spmatrix(-1.0, range(n), range(n)), matrix(np.zeros(n)),
                         {"l": n, "q": [], "s": []}, matrix(np.ones((1, n))), matrix(1.0))
    t_ref = time.perf_counter() - t0
    d_ref = float(np.sqrt(max(sol["primal objective"] + u @ K @ u, 0.0)))
    return (f"one QP (lambda 2, n = {n}): ours {t_ours:.2f} s ({solver}), cvxopt coneqp {t_ref:.2f} s, "
            f"ratio {t_ref / t_ours:.1f}x; d = {d_ours:.6f} vs {d_ref:.6f}")


def dedpul_ratio_reference(est, s):
    """DEDPUL's density step on the fitted predictions: binned FFT sums vs exact
    gaussian_kde, and the compiled monotonizing trends vs the dict implementation."""
    from scipy.stats import gaussian_kde

    from pu_lib.prior.dedpul import _binned_kde, monotonize_trends, monotonize_trends_reference

    y = 1.0 - est.probs_
    z = np.log(np.clip(y, 1e-12, 1) / (1 - np.clip(y, 1e-12, 1) + 1e-5))
    zp, zu = z[s == 1], z[s == 0]
    t0 = time.perf_counter()
    ours = _binned_kde(zp, 0.1 * zp.std(ddof=1), zu), _binned_kde(zu, 0.05 * zu.std(ddof=1), zu)
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = gaussian_kde(zp, 0.1)(zu), gaussian_kde(zu, 0.05)(zu)
    t_ref = time.perf_counter() - t0
    err = max(float(np.max(np.abs(o - r)) / r.max()) for o, r in zip(ours, ref))  # relative to the peak
    a = est.ratio_[np.argsort(y[s == 0])][::-1].copy()  # a monotone-ish sequence like the one MT sees
    a = a + np.random.default_rng(0).normal(0, 0.05, a.shape[0])
    t0 = time.perf_counter()
    m_ours = monotonize_trends(a, 0.2)
    t_mo = time.perf_counter() - t0
    t0 = time.perf_counter()
    m_ref = monotonize_trends_reference(a, 0.2)
    t_mr = time.perf_counter() - t0
    return (f"densities: binned {t_ours:.3f} s vs gaussian_kde {t_ref:.2f} s ({t_ref / t_ours:.0f}x, max diff "
            f"{err:.1e} of the peak); trends: ours {t_mo:.3f} s vs dict {t_mr:.2f} s ({t_mr / t_mo:.0f}x, same: "
            f"{np.array_equal(m_ours, m_ref)})")


def snar_case(n_u, frac):
    """Table 2's synthetic SNAR set: P 5,000 (1,000 per subclass), U ``n_u``, 100 features, seed 0."""
    from pu_lib.datasets.synthetic import make_pulsnar_snar

    d = make_pulsnar_snar(frac, n_labeled_per_subclass=1000, n_unlabeled=n_u, n_features=100, random_state=0)
    return np.asarray(d.X, dtype=float), d.meta["recipe_s"].to_numpy(), (d.target > 0).astype(int)


def diabetes_case(data_mirror):
    """Table 2's diabetes row as the ``pulsnar_times_diabetes`` experiment builds it: the CDC
    diabetes health indicators (the PULSNAR paper's positive class), SCAR with 20% positives
    among the unlabeled (``pulsnar_alpha``, label seed 0)."""
    from pu_lib.datasets import load_dataset
    from pu_lib.labeling import pulsnar_alpha

    mirror = (data_mirror or os.environ.get("PU_LIB_DATA_MIRROR")
              or Path(__file__).resolve().parents[2] / "shared" / "datasets")
    d = load_dataset("cdc_diabetes_health_indicators", data_mirror=mirror, download=False)
    y = d.binary_target("pulsnar")
    s = np.asarray(pulsnar_alpha(y, 0.2, random_state=0).s)
    return np.asarray(d.X, dtype=float), s, y


#: the estimators of the table (``--estimators``)
ESTIMATORS = ["TIcE", "PULSCAR", "PULSNAR", "KM", "DEDPUL"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000, 50_000, 100_000])
    ap.add_argument("--frac", type=float, default=0.2)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--authors-python", default=None, help="a Python that can run the authors' code")
    ap.add_argument("--authors-src", default=None, help="a checkout of unmtransinfo/PULSNAR")
    ap.add_argument("--example-alphas", type=float, nargs="*", default=[],
                    help="also run the authors' example size at these alphas")
    ap.add_argument("--authors-draws", type=int, default=0, metavar="N",
                    help="with --authors-python / --authors-src and --example-alphas: accuracy of their code and "
                         "ours on their generator's draws, seeds 0..N-1, beside their results spreadsheet; "
                         "nothing else is run")
    ap.add_argument("--no-reference", action="store_true", help="skip the slow plain-Python TIcE")
    ap.add_argument("--reference-max-u", type=int, default=50_000,
                    help="run the plain-Python TIcE only up to this U (it takes ~0.4 ms per example)")
    ap.add_argument("--cvxopt-path", default=None, help="a directory holding cvxopt (KM's QP reference)")
    ap.add_argument("--quick", action="store_true", help="U = 10,000 only, without the plain-Python TIcE")
    ap.add_argument("--boosters", nargs="+", default=["xgboost", "hist_boost"], choices=["xgboost", "hist_boost"],
                    help="PULSCAR/PULSNAR boosters to time (rows '+hb': booster='hist_boost')")
    ap.add_argument("--dedpul-boosters", nargs="+", default=["xgboost"], choices=["xgboost", "catboost", "hist_boost"],
                    help="DEDPUL boosters to time (rows '+cb': booster='catboost', the paper's; '+hb': hist_boost)")
    ap.add_argument("--diabetes", action="store_true",
                    help="also time the estimators on the CDC diabetes set (Table 2's last row; needs the mirror)")
    ap.add_argument("--data-mirror", default=None,
                    help="the data mirror (default: $PU_LIB_DATA_MIRROR, else ../shared/datasets)")
    ap.add_argument("--estimators", nargs="+", default=ESTIMATORS, choices=ESTIMATORS,
                    help="only these estimators' rows at --sizes (the beta-density check goes with PULSCAR)")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.no_reference = [10_000], True
    if bool(args.authors_python) != bool(args.authors_src):
        ap.error("--authors-python and --authors-src go together")

    from scipy import stats as st

    from pu_lib.datasets.synthetic import make_pulsnar_scar, make_pulsnar_snar
    from pu_lib.prior import DEDPUL, PULSCAR, PULSNAR, KMPriorEstimator, TIcE
    from pu_lib.prior._beta_density import beta_kernel_density
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test suite's reference TIcE
    from tice_reference import tice_reference
    from pu_lib.prior.tice import bin_features, make_folds

    # warm up numba (compilation is cached on disk after the first ever run)
    d0 = make_pulsnar_snar(0.2, n_labeled_per_subclass=50, n_unlabeled=500, random_state=0)
    TIcE(random_state=0).fit(d0.X, d0.meta["recipe_s"].to_numpy())
    if "hist_boost" in args.boosters:
        PULSNAR(random_state=0, booster="hist_boost", n_jobs=args.n_jobs).fit(d0.X, d0.meta["recipe_s"].to_numpy())

    if args.authors_draws:
        if not (args.authors_python and args.example_alphas):
            ap.error("--authors-draws needs --authors-python, --authors-src and --example-alphas")
        print(f"{'method':<8} {'alpha':>5} {'draws':>5}  mean (sd) and mean |alpha_hat - alpha| over the draws")
        for mode, cls in (("pulscar", PULSCAR), ("pulsnar", PULSNAR)):
            for a in args.example_alphas:
                authors_draws(args, a, mode, cls)
        return

    from pu_lib._logging import Progress

    # progress (cases done / total, time left) on stderr, the table on stdout
    progress = Progress(2 * len(args.example_alphas) + 5 * (len(args.sizes) + args.diabetes), "bench_priors",
                        unit="cases",
                        terminal=sys.stderr)
    print(f"{'U':>8} {'method':<11} {'alpha':>6} {'est.':>6} {'|err|':>6} {'seconds':>8} {'ms/ex':>7} "
          f"{'paper s':>8} {'ratio':>8}  note")
    for a in args.example_alphas:  # the authors' example size: P 2,000 (5 subclasses), U 6,000, 50 features
        for mode, gen, cls in (("pulscar", make_pulsnar_scar, PULSCAR), ("pulsnar", make_pulsnar_snar, PULSNAR)):
            d = gen(a, random_state=0)
            s = d.meta["recipe_s"].to_numpy()
            side_by_side(args, "6000", np.asarray(d.X, dtype=float), s, float((d.target[s == 0] > 0).mean()),
                         mode, cls)
            progress.update()
    cases = [(str(n_u), lambda n_u=n_u: snar_case(n_u, args.frac), PAPER.get(n_u, {})) for n_u in args.sizes]
    if args.diabetes:
        cases.append(("diabetes", lambda: diabetes_case(args.data_mirror), PAPER_DIABETES))
    for i, (label, make, paper) in enumerate(cases):
        X, s, y = make()
        n = X.shape[0]
        alpha = y[s == 0].mean()
        first = i == 0

        if "TIcE" in args.estimators:
            t_ours, est = best_time(lambda: TIcE(random_state=0).fit(X, s), args.repeat)
            note = ""
            if not args.no_reference and label != "diabetes" and n - int(s.sum()) <= args.reference_max_u:
                bins, nv, _ = bin_features(X)
                folds = make_folds(n, 5, 0)
                ours_folds = TIcE(folds=folds).fit(X, s)
                t0 = time.perf_counter()
                ref = tice_reference(bins, s, nv, folds, bound_data=ours_folds.bound_data)
                t_ref = time.perf_counter() - t0
                same = np.allclose(ref["c_folds"], ours_folds.c_folds_)
                note = f"plain-Python reference {t_ref:.1f} s: ours {t_ref / t_ours:.0f}x faster, same c: {same}"
            print(f"{label:>8} {'TIcE':<11} {alpha:6.3f} {est.alpha_:6.3f} {abs(est.alpha_ - alpha):6.3f} "
                  f"{t_ours:8.2f} {1e3 * t_ours / n:7.3f} {paper_cells(paper.get('TIcE'), t_ours)}  {note}",
                  flush=True)
        progress.update()

        for mode, cls in (("pulscar", PULSCAR), ("pulsnar", PULSNAR)):
            if cls.__name__ in args.estimators:
                side_by_side(args, label, X, s, alpha, mode, cls, paper.get(cls.__name__))
            progress.update()

        # KM1 / KM2: one fit computes both thresholds' estimates
        if "KM" in args.estimators:
            t_km, km = best_time(lambda: KMPriorEstimator(random_state=0).fit(X, s), args.repeat)
            note = (f"one fit for both; {km.n_mixture_used_} + {km.n_component_used_} rows used (cap 2,000), "
                    f"QP solver: {km.solver_}" + (f" (kernel rank {km.rank_})" if km.rank_ else ""))
            if first and args.cvxopt_path:
                note += "; " + km_qp_reference(args.cvxopt_path, X, s, km)
            for v in ("km1", "km2"):
                a_hat = km.kappa_[v]
                print(f"{label:>8} {v.upper():<11} {alpha:6.3f} {a_hat:6.3f} {abs(a_hat - alpha):6.3f} "
                      f"{t_km:8.2f} {1e3 * t_km / n:7.3f} {paper_cells(paper.get('KM'), t_km)}  "
                      f"{note if v == 'km1' else ''}", flush=True)
        progress.update()

        if "DEDPUL" in args.estimators:
            for booster in args.dedpul_boosters:
                t_d, cpu, dd = best_time(lambda: DEDPUL(random_state=0, n_jobs=args.n_jobs, booster=booster).fit(X, s),
                                         args.repeat, cpu=True)
                note = f"EM branch: {dd.details_['chosen']}; CPU {cpu:.1f} s"
                if first and booster == args.dedpul_boosters[0] and not args.no_reference:
                    note += "; " + dedpul_ratio_reference(dd, s)
                # the paper's DEDPUL ran on CatBoost (its Discussion): its seconds go beside that row
                p = paper.get("DEDPUL") if booster == "catboost" else None
                name = "DEDPUL" + {"xgboost": "", "catboost": "+cb", "hist_boost": "+hb"}[booster]
                print(f"{label:>8} {name:<11} {alpha:6.3f} {dd.alpha_:6.3f} {abs(dd.alpha_ - alpha):6.3f} "
                      f"{t_d:8.2f} {1e3 * t_d / n:7.3f} {paper_cells(p, t_d)}  {note}", flush=True)
        progress.update()

    if "PULSCAR" in args.estimators:
        # beta kernel density: ours vs scipy.stats.beta.pdf evaluated per grid point
        rng = np.random.default_rng(0)
        vals = rng.beta(2, 5, size=100_000)
        grid = np.linspace(0, 1, 512)
        bw = 0.05
        t_ours, dens = best_time(lambda: beta_kernel_density(vals, bw, 512), max(1, args.repeat))

        def ref():
            return np.array([st.beta.pdf(vals, x / bw + 1, (1 - x) / bw + 1).mean() for x in grid])

        t_ref, dref = best_time(ref, 1)
        scale = dref.mean() / dens.mean() if dens.mean() else float("nan")
        close = np.allclose(dens * scale, dref, rtol=1e-6, atol=1e-9)
        print(f"\nbeta kernel density, 100,000 values x 512 grid points: ours {t_ours:.3f} s, "
              f"scipy.stats.beta.pdf loop {t_ref:.3f} s, ratio {t_ref / t_ours:.1f}x; same shape: {close}")
    print("ratio column: paper seconds / ours (paper: 192 cores; here: 2 cores)")


if __name__ == "__main__":
    main()
