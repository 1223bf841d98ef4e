"""Ada-PU: AdaBoost for positive-unlabeled data (Zhao, Zhang, Zhang, Chen, Ye, Xu, "A
Boosting Algorithm for Positive-Unlabeled Learning"; equation and algorithm numbers below
are the paper's).

**The method.** Ada-PU boosts decision stumps ``h(x) = +/-1`` on three weighted copies of
the data (Section 3.1, eq. 7): the labeled positives taken as positives (``P+``, initial
weight ``pi / n_p``), the unlabeled rows taken as negatives (``U-``, ``1 / n_u``) and the
labeled positives taken as negatives (``P-``, weight ``-pi / n_p``: subtracting them
turns the ``U-`` mass into an estimate of the negative class mass, as the uPU risk does).
In round ``t`` it

1. draws candidate stumps and keeps those whose estimated weighted error ``eps`` (eq. 8)
   is below 0.5 and whose negative-risk part ``eps_nn`` (the ``U-`` and ``P-`` terms of
   eq. 8) is not negative (Algorithm 1; Section 3.3, Definition 4.1);
2. picks among them the stump that maximises the estimated edge ``E`` of eq. 11
   (``E = Z - 2 E_mis`` with ``Z`` the total signed weight and ``E_mis`` the misclassified
   weight, so the smallest error wins);
3. gives it the weight ``alpha = beta * 1/2 ln((1 - eps) / eps)`` (eq. 9 scaled by the
   learning rate ``beta``, Algorithm 2; the scaled weight is used in the vote and in the
   update, as the authors' code does);
4. updates the weights by eq. 12: ``w(P+) *= exp(-alpha h)``, ``w(U-) *= exp(alpha h)``,
   ``w(P-) *= exp(alpha h)``.

The classifier is ``sign(F(x))`` with ``F = sum_t alpha_t h_t`` (``decision_function``).

**Choices where the paper is silent or ambiguous** (each is tested in
``tests/test_ada_pu.py``):

* *Error normalisation.* ``eps_t = E_mis / Z_t`` with ``Z_t`` the total signed weight of
  the round (P+ plus U- minus |P-|); the weights are renormalised to ``Z = 1`` after each
  update. This is the normalisation of the proof of Theorems 4.1-4.2, under which the
  skip rules keep ``Z_t > 0`` in every round (``Z_{t+1} = Z_t (e^-alpha (1 - eps) +
  e^alpha eps)``, both terms positive when ``0 <= eps < 1/2``) and, with ``beta = 1``, the
  estimated exponential loss ``sum_i w_0(i) exp(-y_i F(x_i))`` after ``T`` rounds equals
  ``prod_t 2 sqrt(eps_t (1 - eps_t))`` exactly (Theorem 4.2; ``train_exp_loss_``).
  The authors' code normalises each of the three groups by its own total instead, which
  breaks that identity and can drive ``Z`` to zero (their code then stops).
* *Skip rules.* A stump is skipped when ``eps >= 0.5`` or ``eps_nn < 0`` (Algorithm 1 and
  the authors' code; the text of Section 3.3 says "non-positive"): ``eps_nn = 0`` is
  allowed. ``eps_nn`` within ``1e-12`` of zero (float rounding of a sum that is zero)
  counts as zero.
* *Both orientations.* Every threshold gives two stumps, ``h = +1`` above it and ``h = +1``
  at or below it; each is checked against the skip rules. Their errors add up to ``Z``, so
  at most one is below 1/2: the same as the authors' code, which keeps the orientation of
  smaller error first.
* *Thresholds* (``splitter="random"``, the paper's default strategy, Section 5.6.1): in
  each round, for every feature, ``n_thresholds`` values drawn uniformly between the
  feature's minimum and maximum over the training rows (Algorithm 1's range ``R``;
  default 1 per feature and round, the authors' ``NUM_STEPS = 1``). The authors' code
  widens the range by one average gap ``(max - min) / (n_unique - 1)`` at each end, which
  also admits constant stumps; we draw inside the observed range only.
  ``splitter="best"`` (the brute-force ablation of Figure 3) tries every midpoint between
  consecutive distinct values of every feature. A row goes to the "below" side when
  ``x <= threshold``. Thresholds are float32 values, compared with the float32 copy of X.
* *Ties* go to the first candidate: features in column order, thresholds in increasing
  order, the orientation ``+1 above`` before ``+1 below``.
* *No qualifying stump.* With random thresholds the round is empty (``feature_ = -1``,
  weight 0; the data weights stay as they are) and the next round draws new thresholds.
  With ``splitter="best"`` every later round would be empty as well, so boosting stops
  (a ``UserWarning`` if not even the first round found a stump).
* *Perfect stump* (``eps <= 1e-12``, zero up to float rounding): its error is recorded as
  0 and its weight uses ``eps = 1e-10`` (``alpha = beta * 11.51``, where eq. 9 is
  infinite); boosting goes on, as in the authors' code (which adds machine epsilon to
  both sides of eq. 9). With PU data ``eps = 0`` does not mean a perfect classifier: any
  stump with every labeled row on its positive side and exactly ``pi n_u`` unlabeled
  rows there has a zero estimated error (small ``n_p``, e.g. Breast Cancer's 10), so
  stopping there, as scikit-learn's AdaBoost does at a perfect learner, would end with
  one stump. Its misclassified U- and P- weights cancel, so with exhaustive thresholds
  the same stump keeps a zero error and is chosen again in later rounds.
* *Learning rate default* ``0.0001``: the default of the authors' script (``train.py``),
  and their README's value for Breast Cancer (CIFAR-10 and UNSW-NB15: 0.1, epsilon: 0.2;
  Section 5.6.2 tunes it per data set). Measured (docs/ada_pu.md): with 0.1 the vote drifts
  to "all positive" on small data (Breast Cancer with 10 or 100 labeled positives,
  scikit-learn's digits even vs odd: 63-65% and 49% test accuracy; the uPU risk is
  overfitted, as the authors' code stops there when its weight total reaches zero),
  while 0.0001 gives 91-94% and 80%; on UNSW-NB15 (1,000 labeled) 0.1 is better (83%
  against 75% at 0.001). Tune it on larger data.

**Probabilities.** ``predict_proba`` maps the vote through the logistic link of the
exponential loss, ``P(y = 1 | x) = 1 / (1 + exp(-2 F(x)))`` (the population minimiser of
the exponential risk is ``F = 1/2 ln(p / (1 - p))``; Friedman, Hastie & Tibshirani 2000;
scikit-learn's binary AdaBoost uses the same map). With ``learning_rate < 1`` the vote is
shrunk and the probabilities pulled towards 1/2; the ranking and ``predict`` (``F > 0``)
are unaffected.

**Sample weights** multiply the initial weights, normalised within each group
(``pi w_i / sum_P w`` on P+ and P-, ``w_i / sum_U w`` on U-), as
:func:`pu_lib.trees.pu_weights`; an integer weight is the same as repeating the row.

**Scenarios.** ``scenario="single_training_set"`` (default): the unlabeled sample ``U``
is every training row, the labeled rows included -- the paper's protocol (``n_p = 1000``
labeled positives, ``U`` = the whole training set, after Kiryo et al. 2017);
``"case_control"``: ``U`` is the ``s = 0`` rows only. ``prior`` is the class prior of
``U``: a number, the name of a prior estimator or an estimator object (fitted on the
training data; :func:`pu_lib.prior.resolve_prior`).

**Speed.** Each round scans every feature once (random thresholds: one pass over the
column; exhaustive: one pass over the column in sorted order, the sort done once per
fit) in compiled code, features split over ``n_jobs`` threads (one pool per fit; a round
of fewer than ``MIN_CELLS_PER_THREAD`` cells per thread runs on one); the winner is chosen
in feature order, so results do not depend on ``n_jobs``. The sums use fixed partial
sums (``LANES`` of :mod:`pu_lib.ensemble._ada_pu_kernel`), never a CPU-dependent reordering. Measured against the authors' code
(same data and settings, ``benchmarks/bench_ada_pu.py --authors-path``, one run on a 2-core VM at
load 4-5): their fit takes 11.6x our time at 20,000 x 20 and 24.1x at 100,000 x 50 (docs/ada_pu.md).
"""

from __future__ import annotations

import math
import warnings
from concurrent.futures import ThreadPoolExecutor
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import check_input_kind, check_X, validate_pu_data
from pu_lib.base import RANDOM_STATE_CONSTRAINT, SCENARIO_CONSTRAINT, PUClassifierMixin
from pu_lib.distributed import effective_n_jobs, parallel_map
from pu_lib.ensemble._ada_pu_kernel import NN_TOL, reweight, scan_best, scan_random, vote
from pu_lib.prior import PRIOR_CONSTRAINT, resolve_prior
from pu_lib.trees import pu_weights

__all__ = ["AdaPUClassifier", "SPLITTERS"]

#: threshold strategies: random draws per feature (the paper's default) or every midpoint
SPLITTERS = ("random", "best")
#: at least this many (row, feature) cells per thread, else a round runs on one thread
MIN_CELLS_PER_THREAD = 250_000
#: the error used for the weight of a perfect stump (``eps = 0``)
EPS_FLOOR = 1e-10


class AdaPUClassifier(PUClassifierMixin, BaseEstimator):
    """Ada-PU: AdaBoost with decision stumps on PU data (Zhao et al., Algorithms 1-2).

    See the module docstring for the method and every choice the paper leaves open.

    Parameters
    ----------
    n_estimators : int, default 100
        Boosting rounds (the paper's 100 stumps).
    learning_rate : float in (0, inf), default 0.0001
        ``beta`` of Algorithm 2: each round's weight ``alpha_t`` is scaled by it (in the
        vote and in the weight update).
    splitter : {"random", "best"}, default "random"
        ``"random"``: ``n_thresholds`` random thresholds per feature and round (the
        paper's strategy); ``"best"``: every midpoint (the paper's brute-force ablation).
    n_thresholds : int, default 1
        Random thresholds per feature and round (``S`` of Algorithm 1).
    prior : float in (0, 1), str or estimator
        The class prior ``pi`` of the unlabeled sample (required).
    scenario : {"single_training_set", "case_control"}, default "single_training_set"
    n_jobs : int or None, default None
        Threads that scan the features of a round.
    random_state : None, int, numpy Generator or RandomState
        Seeds the random thresholds (and a prior estimator).

    Attributes
    ----------
    feature_, threshold_, polarity_ : arrays, one entry per round
        The stumps: ``h_t(x) = polarity_[t]`` if ``x[feature_[t]] > threshold_[t]`` else
        ``-polarity_[t]``; an empty round has ``feature_ = -1``, ``polarity_ = 0``.
    estimator_weights_ : array
        ``alpha_t`` (learning rate included; 0 for an empty round).
    estimator_errors_ : array
        ``eps_t`` of eq. 8 (NaN for an empty round).
    train_exp_loss_ : array
        The estimated exponential loss ``sum_i w_0(i) exp(-y_i F_t(x_i))`` of the training
        data after each round (1 before the first).
    n_rounds_ : int
        Rounds run (``n_estimators`` unless boosting stopped early).
    feature_importances_ : array
        Each feature's share of ``sum_t alpha_t`` (scikit-learn's AdaBoost importance
        for stumps).
    prior_, prior_estimator_, classes_, n_features_in_, feature_names_in_

    **predict_proba** (kind ``"score"``, docs/probabilities.md): the logistic link of the shrunk
    vote (module docstring), pulled towards 1/2 by ``learning_rate``; not calibrated.
    :class:`pu_lib.calibration.PUCalibratedClassifier` calibrates it.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "score"

    _parameter_constraints: dict = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0.0, None, closed="neither")],
        "splitter": [StrOptions(set(SPLITTERS))],
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
        "prior": PRIOR_CONSTRAINT,
        "scenario": SCENARIO_CONSTRAINT,
        "n_jobs": [Integral, None],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(self, *, n_estimators=100, learning_rate=0.0001, splitter="random", n_thresholds=1, prior=None,
                 scenario="single_training_set", n_jobs=None, random_state=None):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.splitter = splitter
        self.n_thresholds = n_thresholds
        self.prior = prior
        self.scenario = scenario
        self.n_jobs = n_jobs
        self.random_state = random_state

    # ------------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, sample_weight=None):
        """Boost ``n_estimators`` rounds on ``(X, s)`` (``s = 1``: labeled positive)."""
        X, s, sw, _ = validate_pu_data(self, X, s, dtype=np.float32, sample_weight=sample_weight)
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        prior, prior_est = resolve_prior(self.prior, X, s, self.scenario,
                                         random_state=None if self.random_state is None
                                         else derive_seed(seed, "prior_estimator"),
                                         n_jobs=self.n_jobs, sample_weight=sw)
        # eq. 7: P+ weights a (sum pi), U- weights u (sum 1), P- weights -a; per row the
        # U- and P- weights move together (eq. 12), so b = u - a carries both; Z_0 = 1
        a, u = pu_weights(s, prior, self.scenario, sw)
        b = u - a
        Xc = np.ascontiguousarray(X.T)
        n, d = X.shape

        T = self.n_estimators
        feature = np.full(T, -1, dtype=np.int64)
        threshold = np.full(T, np.nan, dtype=np.float32)
        polarity = np.zeros(T, dtype=np.int8)
        alpha = np.zeros(T)
        errors = np.full(T, np.nan)
        exp_loss = np.ones(T)

        # threads only pay off on large rounds (a round of 20,000 x 20 takes ~1 ms)
        n_threads = max(1, min(effective_n_jobs(self.n_jobs), d, (n * d) // MIN_CELLS_PER_THREAD))
        bounds = np.linspace(0, d, n_threads + 1).astype(np.int64)
        chunks = [(int(bounds[k]), int(bounds[k + 1])) for k in range(n_threads)]
        best_E = np.empty(d)
        best_thr = np.empty(d, dtype=np.float32)
        best_pol = np.zeros(d, dtype=np.int8)
        best = self.splitter == "best"
        thr = Xs = order = None
        if best:
            order = np.argsort(Xc, axis=1, kind="stable")
            Xs = np.take_along_axis(Xc, order, axis=1)
        else:
            rng = np.random.default_rng(seed)
            lo = X.min(axis=0).astype(np.float64)
            span = X.max(axis=0).astype(np.float64) - lo

        def run(f0, f1, a_tot, b_tot, Z):
            if best:
                scan_best(Xs, order, f0, f1, a, b, a_tot, b_tot, Z, best_E, best_thr, best_pol)
            else:
                scan_random(Xc, f0, f1, thr, a, b, a_tot, b_tot, Z, best_E, best_thr, best_pol)

        loss = 1.0
        rounds = T
        executor = ThreadPoolExecutor(n_threads) if n_threads > 1 else None  # one pool for all rounds
        try:
            for t in range(T):
                if not best:
                    draws = rng.random((d, self.n_thresholds))
                    thr = np.sort((lo[:, None] + draws * span[:, None]).astype(np.float32), axis=1)
                a_tot, b_tot = float(a.sum()), float(b.sum())
                Z = a_tot + b_tot
                parallel_map(run, [(f0, f1, a_tot, b_tot, Z) for f0, f1 in chunks], n_jobs=n_threads,
                             executor=executor)
                f = int(np.argmin(best_E))  # first feature of the smallest error
                if not np.isfinite(best_E[f]):
                    if best:
                        rounds = t
                        break
                    exp_loss[t] = loss
                    continue
                eps = max(best_E[f] / Z, 0.0)
                # a zero error up to float rounding (the U- and P- weights of a labeled row
                # cancel only up to ~1e-16): a perfect stump
                if eps <= NN_TOL:
                    eps = 0.0
                e = max(eps, EPS_FLOOR)
                alpha_t = self.learning_rate * 0.5 * math.log((1.0 - e) / e)
                z_new = reweight(Xc[f], best_thr[f], int(best_pol[f]), alpha_t, a, b)
                feature[t], threshold[t], polarity[t] = f, best_thr[f], best_pol[f]
                alpha[t], errors[t] = alpha_t, eps
                loss *= z_new / Z
                exp_loss[t] = loss
                if not z_new > 0.0:  # pragma: no cover - excluded by the skip rules (module docstring)
                    warnings.warn(f"Ada-PU: total weight {z_new!r} after round {t}; boosting stopped", stacklevel=2)
                    rounds = t + 1
                    break
                a /= z_new
                b /= z_new
        finally:
            if executor is not None:
                executor.shutdown()
        if rounds == 0:
            warnings.warn("Ada-PU: no stump qualified in the first round (every candidate has error >= 0.5 or a "
                          "negative PU negative risk); the model predicts 0 everywhere", UserWarning, stacklevel=2)
        self.feature_ = feature[:rounds]
        self.threshold_ = threshold[:rounds]
        self.polarity_ = polarity[:rounds]
        self.estimator_weights_ = alpha[:rounds]
        self.estimator_errors_ = errors[:rounds]
        self.train_exp_loss_ = exp_loss[:rounds]
        self.n_rounds_ = rounds
        self.prior_ = prior
        self.prior_estimator_ = prior_est
        self.classes_ = np.array([0, 1])
        return self

    # ------------------------------------------------------------------ prediction
    def _X(self, X) -> np.ndarray:
        check_is_fitted(self)
        check_input_kind(X)  # sparse input and non-numeric DataFrame columns, named
        X = validate_data(self, X, reset=False, dtype=np.float32, ensure_all_finite=False)
        return check_X(X, dtype=np.float32)

    def decision_function(self, X) -> np.ndarray:
        """The weighted vote ``F(x) = sum_t alpha_t h_t(x)``; positive means class 1."""
        X = self._X(X)
        out = np.empty(X.shape[0])
        vote(np.ascontiguousarray(X), self.feature_, self.threshold_, self.polarity_.astype(np.float64),
              self.estimator_weights_, out)
        return out

    def predict(self, X) -> np.ndarray:
        """1 where the vote is positive, else 0."""
        return (self.decision_function(X) > 0).astype(np.int64)

    def predict_proba(self, X) -> np.ndarray:
        """``[1 - p, p]`` with ``p = 1 / (1 + exp(-2 F(x)))`` (module docstring)."""
        return _proba(self.decision_function(X))

    def staged_decision_function(self, X):
        """The vote after each round (a generator of ``n_rounds_`` arrays)."""
        X = self._X(X)
        F = np.zeros(X.shape[0])
        for f, thr, pol, al in zip(self.feature_, self.threshold_, self.polarity_, self.estimator_weights_):
            if f >= 0:
                F = F + np.where(X[:, f] > thr, al * pol, -al * pol)
            yield F.copy()

    def staged_predict(self, X):
        """``predict`` after each round."""
        for F in self.staged_decision_function(X):
            yield (F > 0).astype(np.int64)

    def staged_predict_proba(self, X):
        """``predict_proba`` after each round."""
        for F in self.staged_decision_function(X):
            yield _proba(F)

    @property
    def feature_importances_(self) -> np.ndarray:
        check_is_fitted(self)
        imp = np.zeros(self.n_features_in_)
        used = self.feature_ >= 0
        np.add.at(imp, self.feature_[used], self.estimator_weights_[used])
        total = imp.sum()
        return imp / total if total > 0 else imp


def _proba(F: np.ndarray) -> np.ndarray:
    p = 1.0 / (1.0 + np.exp(-2.0 * F))
    return np.column_stack([1.0 - p, p])
