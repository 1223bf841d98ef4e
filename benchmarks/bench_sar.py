"""Benchmark: SAR-EM (pu_lib.sar.SAREMClassifier, Bekker thesis section 5.4.2) against one
weighted logistic-regression fit on the same data, in one run.

SAR-EM refits a classifier and a propensity model every EM iteration, so its cost is
measured in units of one logistic-regression fit. For each size (``--sizes``, default
``20000x20`` and ``200000x50``) the data are built like the SAR-EM test
(tests/test_sar.py): ``X`` uniform(-1, 1); the class ``y ~ Bernoulli(sigmoid(X @ beta))``
with ``beta`` non-zero on the first ``d // 2`` attributes (magnitudes uniform in [1, 3]
divided by ``sqrt(d // 2 / 3)``, random signs, so the logit has standard deviation about
2.5 at every size); the true propensity ``e = sigmoid(1.5 x_a - 1.0 x_b)`` on the two
attributes ``a, b = d // 2, d // 2 + 1`` (not used by the class); ``s = y & Bernoulli(e)``.

Timed (best of ``--repeat`` for the single fits; SAR-EM once per ``--em-repeat``):

* SAR-EM with its defaults (WeightedLogisticRegression for both models, at most 500
  iterations, window 10, tolerances 1e-4, final propensity-weighted refit) and
  ``propensity_attributes=[a, b]``: total fit time, ``n_iter_``, ``converged_`` and the
  time per EM iteration (total / ``n_iter_``; it includes the initial fits and the final
  refit, spread over the iterations);
* one ``WeightedLogisticRegression()`` fit on ``(X, s)`` with all attributes (no weights);
* one scikit-learn ``LogisticRegression(C=1, max_iter=1000)`` fit on the same ``(X, s)``
  (its default lbfgs solver and tolerance).

Printed: the times, the ratios SAR-EM total / one fit and per-iteration / one fit (against
both), the propensity coefficients' largest absolute error against the true
``[1.5, -1.0]`` (and the intercept's against 0), and the MSE of SAR-EM's class probability
against the true ``sigmoid(X @ beta)`` on the training rows (a sanity check).
pu_lib's fits run on one BLAS thread (their own choice: small matrix-vector products);
scikit-learn uses its default threading.

Run: ``python benchmarks/bench_sar.py [--sizes 20000x20 200000x50] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _timing import timed
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

from pu_lib.sar import SAREMClassifier, WeightedLogisticRegression

E_COEF = np.array([1.5, -1.0])


def make_data(n: int, d: int, seed: int = 0):
    """``(X, y, s, f, e, propensity_attributes)`` (module docstring)."""
    if d < 4:
        raise ValueError("need at least 4 attributes")
    rng = np.random.default_rng(seed)
    k = d // 2
    beta = np.zeros(d)
    beta[:k] = rng.uniform(1.0, 3.0, k) * rng.choice([-1.0, 1.0], k) / np.sqrt(k / 3.0)
    X = rng.uniform(-1.0, 1.0, (n, d))
    f = expit(X @ beta)
    y = (rng.random(n) < f).astype(np.int64)
    attrs = [k, k + 1]
    e = expit(X[:, attrs] @ E_COEF)
    s = ((y == 1) & (rng.random(n) < e)).astype(np.int64)
    return X, y, s, f, e, attrs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", default=["20000x20", "200000x50"])
    ap.add_argument("--repeat", type=int, default=3, help="best of this many single fits")
    ap.add_argument("--em-repeat", type=int, default=1, help="best of this many SAR-EM fits")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    for size in args.sizes:
        n, d = (int(v) for v in size.lower().split("x"))
        t0 = time.perf_counter()
        X, y, s, f, e, attrs = make_data(n, d, args.seed)
        make_s = time.perf_counter() - t0
        print(f"\n{n} x {d}: {int(y.sum())} positives, {int(s.sum())} labeled "
              f"(label frequency {s.sum() / y.sum():.3f}), propensity attributes {attrs}; data {make_s:.1f} s")

        em_s, em = timed(lambda: SAREMClassifier(propensity_attributes=attrs, random_state=0).fit(X, s),
                         args.em_repeat)
        wlr_s, _ = timed(lambda: WeightedLogisticRegression().fit(X, s), args.repeat)
        sk_s, _ = timed(lambda: LogisticRegression(C=1.0, max_iter=1000).fit(X, s), args.repeat)
        per_it = em_s / max(em.n_iter_, 1)

        pe = em.propensity_estimator_
        coef_err = float(np.max(np.abs(pe.coef_[0] - E_COEF)))
        icpt_err = float(abs(pe.intercept_[0]))
        mse = float(np.mean((em.predict_proba(X)[:, 1] - f) ** 2))

        print(f"SAR-EM total {em_s:8.3f} s   n_iter_ {em.n_iter_}   converged_ {em.converged_}   "
              f"per iteration {per_it * 1e3:8.2f} ms")
        print(f"one WeightedLogisticRegression fit {wlr_s * 1e3:9.2f} ms")
        print(f"one sklearn LogisticRegression fit {sk_s * 1e3:9.2f} ms")
        print(f"ratio SAR-EM total / one fit:      {em_s / wlr_s:8.1f}x (weighted LR)   "
              f"{em_s / sk_s:8.1f}x (sklearn)")
        print(f"ratio per iteration / one fit:     {per_it / wlr_s:8.2f}x (weighted LR)   {per_it / sk_s:8.2f}x (sklearn)")
        print(f"propensity coef {np.round(pe.coef_[0], 3).tolist()} (true {E_COEF.tolist()}): "
              f"max abs error {coef_err:.3f}, intercept {pe.intercept_[0]:+.3f} (error {icpt_err:.3f}); "
              f"class-probability MSE {mse:.5f}")


if __name__ == "__main__":
    main()
