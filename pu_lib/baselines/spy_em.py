"""Spy-EM (S-EM) for PU data (Liu, Lee, Yu & Li, ICML 2002).

B. Liu, W. S. Lee, P. S. Yu and X. Li, "Partially supervised classification of text
documents", ICML 2002. A two-step method with naive Bayes and EM; for tabular features
the naive Bayes model is Gaussian (class prior, per-class per-feature means and
variances), as in the PU Hellinger authors' ``SpyEM`` (``pos_noisyneg/spyEM.py`` in
GitHub ``CarlosOrtegaV/PU_Hellinger_Trees``, ``GaussianNB`` and pomegranate's
``NaiveBayes`` of ``NormalDistribution``).

**Step 1 (spies, reliable negatives).** A share ``spy_ratio`` of the labeled positives
``P`` (the spies ``S``) is moved into the unlabeled set: ``Ps = P - S`` (class 1, fixed),
``Us = U + S`` (class 0 initially). I-EM (naive Bayes with EM; ``Ps`` keeps class 1, the
rows of ``Us`` get probabilistic labels, iterated at most ``step1_max_iter`` times)
classifies ``Us``; the threshold ``t`` is set so that at most the share ``noise_level``
of the spies have a posterior below ``t``; the reliable negatives ``RN`` are the rows of
``U`` (not spies) with posterior ``< t``.

**Step 2 (EM, classifier selection).** ``P`` (spies back, class 1) and ``RN`` (class 0)
start naive Bayes; the other unlabeled rows ``Q = U - RN`` get no label initially and,
from the first E-step on, probabilistic labels; EM iterates at most ``max_iter`` times.
S-EM then selects one classifier among the iterates by an estimate of the change of the
error ``Pr[f(X) != Y] = Pr[f(X)=1] - Pr[Y=1] + 2 Pr[f(X)=0|Y=1] Pr[Y=1]`` between
iterations, ``Delta_i = Pr[f_i=1] - Pr[f_{i-1}=1] + 2 Pr[Y=1] (Pr[f_i=0|Y=1] - Pr[f_{i-1}=0|Y=1])``:
the classifier before the first estimated increase (``Delta_{i+1} > 0``) is kept, the
last iterate if the error never increases.

Defaults, parameter by parameter:

* ``spy_ratio = 0.15``: the spy share s% = 15% of S-EM's Step 1 (Liu et al. 2002; that
  paper's text is not among this project's copies, so the value is not checked against
  it). The PU Hellinger authors' ``SpyEM`` uses ``spy_ratio=0.10`` with
  at least one spy (``max(round(n_P * 0.10), 1)``): set ``spy_ratio=0.1`` to match it;
* ``noise_level = 0.15``: the noise level l = 15% of the spies allowed below ``t`` (Liu et
  al. 2002, Step 1); the PU Hellinger authors use the same ``threshold = 0.15`` (their
  docstring: "0.05, 0.10 and 0.20 also recommended by authors"), as ``np.quantile`` of
  the spies' posteriors;
* ``max_iter = 8``: the S-EM program's default maximum number of EM iterations
  (``-i``, "The default value is 8", www.cs.uic.edu/~liub/S-EM/readme.html); the same
  cap for ``step1_max_iter``. The PU Hellinger authors fit step 1 with one
  ``GaussianNB`` (``step1_max_iter=0`` here) and step 2 with pomegranate's
  semi-supervised EM (its own defaults);
* ``var_smoothing = 1e-9``: scikit-learn's ``GaussianNB`` default (variance floor
  ``var_smoothing * max feature variance``).

Choices where the paper is silent for Gaussian features or ambiguous (tested):

* the variance floor is ``max(var, eps)`` (the maximum-likelihood variance under the
  constraint ``var >= eps``) rather than GaussianNB's ``var + eps``, so every EM step is
  an exact constrained M-step and the observed-data log-likelihood
  (``step1_loglik_``, ``loglik_``) never decreases;
* the spy count is ``round_half_up(spy_ratio * |P|)`` clipped to ``[1, |P| - 1]``;
* ``t`` is the ``floor(noise_level * |S|)``-th smallest spy posterior (0-based), so at
  most ``floor(noise_level * |S|)`` spies lie strictly below ``t`` (``np.quantile``'s
  interpolation, as in the PU Hellinger code, can put more than the share ``l`` below);
* if no unlabeled row falls below ``t``, the unlabeled row with the smallest posterior
  is the one reliable negative (``reliable_negative_fallback_``; the PU Hellinger code
  draws random ones);
* ``RN`` keeps class 0 during step 2 (``fix_reliable_negatives=True``: Step 2 assigns
  ``RN`` class ``c2`` and gives probabilistic labels to ``Q``; the PU Hellinger code
  likewise passes ``RN`` as labeled and only ``Q`` as unlabeled to pomegranate);
  ``False`` lets ``RN`` be relabeled from the first E-step on;
* in the selection, ``Pr[f=1]`` is the share of ``U`` classified positive,
  ``Pr[f=0|Y=1]`` the share of ``P`` classified negative (posterior < 0.5) and
  ``Pr[Y=1]`` one constant: the mean posterior over ``U`` of the last EM iterate;
  the candidates are the iterates ``0..n_iter_`` (0: naive Bayes on ``P`` and ``RN``).

No ``sample_weight`` (the spy draw is over rows).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval

from pu_lib._rounding import round_half_up
from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import validate_pu_data
from pu_lib.base import RANDOM_STATE_CONSTRAINT, PUClassifierMixin
from pu_lib.base_learners import check_predict_X

__all__ = ["SpyEMClassifier", "gaussian_nb_em"]

_LOG_2PI = float(np.log(2.0 * np.pi))


def _m_step(X, X2, r, a, eps):
    """Weighted Gaussian naive Bayes: row weights ``a * r`` (class 1) and ``a * (1 - r)``
    (class 0); ``X2 = X ** 2``. Returns ``(log_prior (2,), means (2, d), variances (2, d))``.
    Variances as ``E[x^2] - mean^2`` (``X`` is centred by the caller, which keeps the
    difference well conditioned), floored at ``eps``."""
    w = np.stack([a * (1.0 - r), a * r])  # (2, n)
    n = w.sum(axis=1)
    means = (w @ X) / n[:, None]
    var = (w @ X2) / n[:, None] - means**2
    return np.log(n / n.sum()), means, np.maximum(var, eps)


def _log_joint(X, theta, X2=None):
    """``(n, 2)``: ``log p(x, y=c)`` under Gaussian naive Bayes ``theta``; with ``X2 = X ** 2``
    the quadratic form is two matrix products."""
    log_prior, means, var = theta
    const = log_prior - 0.5 * (X.shape[1] * _LOG_2PI + np.log(var).sum(axis=1))
    if X2 is None:
        quad = np.stack([(((X - means[c]) ** 2) / var[c]).sum(axis=1) for c in (0, 1)], axis=1)
    else:
        inv = 1.0 / var
        # (2, d) @ (d, n): BLAS reads X once per product, faster than X @ (d, 2)
        quad = (inv @ X2.T - 2.0 * ((means * inv) @ X.T)).T + (means**2 * inv).sum(axis=1)
    return const - 0.5 * quad


def _posterior(lj):
    return expit(lj[:, 1] - lj[:, 0])


def gaussian_nb_em(X, r0, free, eps, max_iter, tol=1e-6, active0=None):
    """EM for Gaussian naive Bayes on partially labeled rows.

    ``r0``: initial class-1 responsibilities (the fixed labels of the rows where ``free``
    is False, the initial labels of the free rows); ``active0``: rows used by the first
    M-step (default all; S-EM's step 2 leaves ``Q`` out). Iteration ``i >= 1``: E-step
    (posteriors of the free rows under ``theta_{i-1}``), M-step on all rows. Stops after
    ``max_iter`` iterations or when no free responsibility moves by ``tol`` or more.

    Returns ``(thetas, logliks, posteriors)``: the parameters ``theta_0..theta_T``, the
    observed-data log-likelihood of each (fixed rows ``log p(x, y)``, free rows
    ``log p(x)``), never decreasing, and each iterate's class-1 posterior of every row.
    """
    n = X.shape[0]
    shift = X.mean(axis=0)
    X = X - shift  # naive Bayes is translation-equivariant: fit on centred X, shift the means back
    X2 = X**2
    a = np.ones(n) if active0 is None else active0.astype(np.float64)
    theta = _m_step(X, X2, r0, a, eps)
    thetas, logliks, posts = [], [], []
    r_prev = r0.astype(np.float64)
    fixed_label = r0.astype(np.int64)
    ones = np.ones(n)
    for it in range(max_iter + 1):
        lj = _log_joint(X, theta, X2)
        ll = np.where(free, np.logaddexp(lj[:, 0], lj[:, 1]), lj[np.arange(n), fixed_label])
        post = _posterior(lj)
        thetas.append((theta[0], theta[1] + shift, theta[2]))
        logliks.append(float(ll.sum()))
        posts.append(post)
        if it == max_iter:
            break
        r = np.where(free, post, r0)
        if it > 0 and np.max(np.abs(r - r_prev)[free], initial=0.0) < tol:
            break
        theta = _m_step(X, X2, r, ones, eps)
        r_prev = r
    return thetas, np.array(logliks), posts


class SpyEMClassifier(PUClassifierMixin, BaseEstimator):
    """S-EM / Spy-EM (Liu et al., ICML 2002) with Gaussian naive Bayes.

    See the module docstring for the two steps, the classifier selection and the source
    of every default.

    Parameters
    ----------
    spy_ratio : share in (0, 1) of the labeled positives used as spies (S-EM: 15%).
    noise_level : share in [0, 1) of the spies allowed below the threshold ``t`` (S-EM: 15%).
    max_iter : maximum EM iterations of step 2 (S-EM program default 8).
    step1_max_iter : maximum I-EM iterations of step 1 (0: one naive Bayes fit on ``Ps``
        vs ``Us``, the PU Hellinger authors' variant).
    fix_reliable_negatives : keep the reliable negatives at class 0 during step 2.
    select_classifier : S-EM's error-based choice among the EM iterates; False keeps the
        last iterate.
    tol : EM stops when no unlabeled responsibility moves by ``tol`` or more.
    var_smoothing : variance floor as a share of the largest feature variance.
    random_state : None, int, ``numpy.random.Generator`` or ``RandomState`` (the spy draw).

    Attributes
    ----------
    spy_indices_ : training rows used as spies (sorted).
    step1_posterior_ : step-1 posterior ``P(y=1|x)`` of every training row.
    threshold_ : ``t``.
    reliable_negative_indices_ : the reliable negatives ``RN`` (sorted training rows).
    reliable_negative_fallback_ : True when no unlabeled row fell below ``t``.
    step1_loglik_, loglik_ : log-likelihood of each EM iterate of step 1 / step 2.
    n_iter_ : EM iterations of step 2.
    error_deltas_ : ``Delta_i`` for ``i = 1..n_iter_``.
    selected_iteration_ : index of the selected iterate (0..n_iter_).
    class_prior_, theta_, var_ : the selected Gaussian naive Bayes (``[P(y=0), P(y=1)]``,
        per-class means and variances, shape ``(2, n_features)``).
    prior_ : mean posterior over the unlabeled training rows of the last EM iterate
        (the ``Pr[Y=1]`` of the selection).
    classes_ : ``array([0, 1])``; ``n_features_in_``; ``feature_names_in_`` for a DataFrame.

    **predict_proba** (kind ``"posterior"``, docs/probabilities.md): the selected naive Bayes
    posterior ``P(y = 1 | x)``.
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "posterior"

    _parameter_constraints: dict = {
        "spy_ratio": [Interval(Real, 0.0, 1.0, closed="neither")],
        "noise_level": [Interval(Real, 0.0, 1.0, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "step1_max_iter": [Interval(Integral, 0, None, closed="left")],
        "fix_reliable_negatives": ["boolean"],
        "select_classifier": ["boolean"],
        "tol": [Interval(Real, 0.0, None, closed="left")],
        "var_smoothing": [Interval(Real, 0.0, None, closed="left")],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(self, *, spy_ratio=0.15, noise_level=0.15, max_iter=8, step1_max_iter=8, fix_reliable_negatives=True,
                 select_classifier=True, tol=1e-6, var_smoothing=1e-9, random_state=None):
        self.spy_ratio = spy_ratio
        self.noise_level = noise_level
        self.max_iter = max_iter
        self.step1_max_iter = step1_max_iter
        self.fix_reliable_negatives = fix_reliable_negatives
        self.select_classifier = select_classifier
        self.tol = tol
        self.var_smoothing = var_smoothing
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, s):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled)."""
        X, s, _, _ = validate_pu_data(self, X, s)
        P = np.flatnonzero(s == 1)
        U = np.flatnonzero(s == 0)
        if P.size < 2:
            raise ValueError(f"Spy-EM needs at least 2 labeled positives (one spy and one kept), got {P.size}")
        eps = float(self.var_smoothing) * float(np.var(X, axis=0).max())
        if eps == 0.0:
            eps = float(np.finfo(np.float64).tiny)
        seed = seed_to_int(self.random_state, fresh_if_none=True)

        # ---- step 1: spies, I-EM, threshold, reliable negatives
        k = min(max(round_half_up(float(self.spy_ratio) * P.size), 1), P.size - 1)
        rng = np.random.default_rng(derive_seed(seed, "SpyEMClassifier", "spies"))
        spies = np.sort(rng.choice(P, size=k, replace=False))
        r1 = s.astype(np.float64)
        r1[spies] = 0.0
        free1 = r1 == 0.0  # Us = U + spies
        _, ll1, posts1 = gaussian_nb_em(X, r1, free1, eps, int(self.step1_max_iter), float(self.tol))
        post1 = posts1[-1]
        spy_post = np.sort(post1[spies])
        t = float(spy_post[min(int(np.floor(float(self.noise_level) * k + 1e-9)), k - 1)])
        rn_mask = post1[U] < t
        fallback = not rn_mask.any()
        RN = U[rn_mask] if not fallback else U[[int(np.argmin(post1[U]))]]

        # ---- step 2: EM from P and RN, Q unlabeled
        r2 = s.astype(np.float64)  # P -> 1, U -> 0
        is_rn = np.zeros(s.shape[0], dtype=bool)
        is_rn[RN] = True
        active0 = (s == 1) | is_rn
        free2 = (s == 0) & (~is_rn if self.fix_reliable_negatives else True)
        thetas, ll2, posts2 = gaussian_nb_em(X, r2, free2, eps, int(self.max_iter), float(self.tol), active0=active0)

        # ---- S-EM's classifier selection
        prior_u = float(posts2[-1][U].mean())
        f1_u = np.array([np.mean(p[U] >= 0.5) for p in posts2])  # Pr[f_i(X) = 1], on U
        f0_p = np.array([np.mean(p[P] < 0.5) for p in posts2])  # Pr[f_i(X) = 0 | Y = 1], on P
        deltas = np.diff(f1_u) + 2.0 * prior_u * np.diff(f0_p)
        selected = len(thetas) - 1
        if self.select_classifier:
            up = np.flatnonzero(deltas > 0)
            if up.size:
                selected = int(up[0])  # Delta_{i+1} > 0 first at i = up[0]
        log_prior, means, var = thetas[selected]

        self.spy_indices_ = spies
        self.step1_posterior_ = post1
        self.threshold_ = t
        self.reliable_negative_indices_ = RN
        self.reliable_negative_fallback_ = bool(fallback)
        self.step1_loglik_ = ll1
        self.loglik_ = ll2
        self.n_iter_ = len(thetas) - 1
        self.error_deltas_ = deltas
        self.selected_iteration_ = selected
        self.class_prior_ = np.exp(log_prior)
        self.theta_ = means
        self.var_ = var
        self.prior_ = prior_u
        self.classes_ = np.array([0, 1])
        return self

    def _log_odds(self, X) -> np.ndarray:
        X = check_predict_X(self, X)
        lj = _log_joint(X, (np.log(self.class_prior_), self.theta_, self.var_))
        return lj[:, 1] - lj[:, 0]

    def predict_proba(self, X) -> np.ndarray:
        """``(n, 2)``: the selected naive Bayes posterior ``[P(y=0|x), P(y=1|x)]``."""
        p = expit(self._log_odds(X))
        return np.column_stack([1.0 - p, p])

    def predict(self, X) -> np.ndarray:
        """1 where the posterior ``P(y=1|x) >= 0.5``."""
        return (self._log_odds(X) >= 0.0).astype(np.int64)

    def decision_function(self, X) -> np.ndarray:
        """The posterior log-odds ``log P(y=1|x) - log P(y=0|x)``."""
        return self._log_odds(X)
