"""Risk-based PU learning with gradient boosting: uPU, nnPU and imbalanced nnPU as
XGBoost custom objectives (the PU Hellinger paper's XGBoost baselines).

* **uPU** -- unbiased PU risk (du Plessis, Niu & Sugiyama, NIPS 2014, "Analysis of
  learning from positive and unlabeled data", eq. 3 with a non-convex loss; ICML 2015,
  "Convex formulation for learning from positive and unlabeled data", eq. 4 with a
  convex loss such as the logistic loss)::

      R_pu(g) = pi R_p^+(g) + R_u^-(g) - pi R_p^-(g),

  ``R_p^+ = E_P[l(g(x), +1)]``, ``R_p^- = E_P[l(g(x), -1)]``, ``R_u^- = E_U[l(g(x), -1)]``.
* **nnPU** -- non-negative risk (Kiryo, Niu, du Plessis & Sugiyama, NeurIPS 2017, eq. 6)::

      R~_pu(g) = pi R_p^+(g) + max(0, R_u^-(g) - pi R_p^-(g)),

  the second term being the estimate of the negatives' risk ``(1 - pi) R_n^-``, which
  cannot be negative but goes negative when a flexible model overfits (uPU).
* **imbalanced nnPU** -- Su, Chen & Xu, IJCAI 2021, "Positive-unlabeled learning from
  imbalanced data", eq. 7: the nnPU risk re-weighted to an oversampled positive prior
  ``pi'`` (``oversampled_prior``)::

      R_imb(g) = pi' R_p^+(g) + (1 - pi') / (1 - pi) max(0, R_u^-(g) - pi R_p^-(g)).

  With ``pi' = pi`` it is the nnPU risk (tested to give the identical model).

**Sum form, per row.** With row weights ``w_i`` (1 without ``sample_weight``), ``W`` the
total weight, ``W_p`` the labeled rows' weight and ``W_u`` the weight of the unlabeled
sample U (all rows in the single-training-set scenario, where the labeled rows are part
of U -- the PU Hellinger and Kiryo et al. protocol; the ``s = 0`` rows in the
case-control scenario, as :mod:`pu_lib.trees`), the objective handed to XGBoost is
``W`` times the risk, a sum over rows of ``A_i l(z_i, +1) + B_i l(z_i, -1)`` with the
raw margin ``z_i`` and

    A_i = W pi_+ w_i s_i / W_p,     B_i = W k (w_i [i in U] / W_u - pi w_i s_i / W_p),

``pi_+ = pi`` and ``k = 1`` (uPU, nnPU) or ``pi_+ = pi'`` and ``k = (1 - pi') / (1 - pi)``
(imbalanced nnPU). ``sum_i B_i l(z_i, -1) / W`` is the negative-risk term
``k (R_u^- - pi R_p^-)``. Without weights, in the single-training-set scenario, this is
the scale of the PU Hellinger authors' objectives (their uPU row losses are
``c^-1 l(z, +1) + (1 - c^-1) l(z, -1)`` on labeled rows and ``l(z, -1)`` on unlabeled
rows, ``c^-1 = pi / Pr(s = 1)``), so XGBoost's ``min_child_weight`` and ``reg_lambda``
act on the same hessian sums as theirs; integer weights act as repeated rows.

**Losses** (``loss``): ``"logistic"``, ``l(z, y) = log(1 + exp(-y z))`` (the authors':
cross-entropy of ``sigmoid(z)``; du Plessis et al. 2015's convex choice) and
``"sigmoid"``, ``l(z, y) = sigmoid(-y z)`` (Kiryo et al.'s choice; du Plessis et al.
2014's non-convex symmetric loss).

**The non-negative correction per boosting round.** Kiryo et al.'s Algorithm 1 works per
minibatch: when the minibatch's ``R_u^- - pi R_p^-`` is below ``-beta`` it steps along
``-gamma`` times the gradient of ``R_u^- - pi R_p^-`` (pushing the negative part back
up), otherwise along the gradient of the whole risk (defaults ``beta = 0``,
``gamma = 1``). Here the whole training set is the one batch. ``correction="kiryo"``
(the rule as written): at the start of every round the negative-risk term ``k (R_u^- - pi R_p^-)`` is
evaluated at the current margins (XGBoost's training predictions); if it is below
``-beta`` the round's tree is fitted to the per-row gradient of ``-gamma`` times that
term (a *defensive* round, per-row gradient ``-gamma B_i l'(z_i, -1)``), else to that of
the uPU sum ``A_i l(z_i, +1) + B_i l(z_i, -1)`` (on the side ``>= -beta`` the nnPU and
uPU risks coincide). As with minibatches, an ordinary round's tree can overshoot: the
term after it may be below ``-beta`` (the next round then pushes it back), so the term
oscillates around ``-beta`` instead of staying above it. ``correction="lookahead"``
(the default; our tree analogue of the constraint, not in the papers): an ordinary round whose tree would take the term
below ``-beta`` is undone and replaced by the defensive round, so the term after every
round stays ``>= -beta`` (tested; it starts at ``k (1 - pi) l(base_margin, -1) > 0``
in the single-training-set scenario); it costs up to one more tree per round.
``negative_risk_[t]`` records the term after ``t`` rounds (index 0: the initial
margins) and ``defensive_rounds_[t]`` whether round ``t`` was defensive; uPU records the
term and never corrects (on an overfitting-prone sample it falls far below zero:
tested).
With the logistic loss, which is unbounded (the uPU term ``-pi R_p^-`` rewards ever larger
margins on labeled rows), ordinary and defensive rounds alternate about every other round
under ``"kiryo"``, and nnPU can rank worse than uPU: held-out AUC 0.84 against uPU's 0.98
on the two-Gaussian problem of ``tests/test_nnpu_xgb.py`` (0.94 with ``"lookahead"``,
0.99 with the sigmoid loss, Kiryo et al.'s choice for nnPU).

**What the PU Hellinger authors' code does instead** (``CSBoost`` in
``ecsmodels/methodologies/cs_boost.py`` of CarlosOrtegaV/PU_Hellinger_Trees, objectives
``'puwce'`` = uPU, ``'nnpu'``, ``'imbnnpu'``; facts only, no code taken): uPU as above
with the logistic loss; for ``'nnpu'`` and ``'imbnnpu'`` the ``max(0, .)`` is taken *per
row* on the coefficient of ``l(z, -1)``, which drops that term of every labeled row
(its coefficient ``1 - c^-1`` is negative) -- so their "nnPU" is the weighted classifier
"labeled rows positive with weight ``c^-1``, unlabeled rows negative with weight 1", and
their "imbalanced nnPU" gives labeled rows weight ``pi'`` (no ``1 / Pr(s = 1)`` factor)
and unlabeled rows ``(1 - pi') / (1 - pi)``; no step ever looks at the batch's negative
risk. This class implements the papers' risks with Kiryo's batch rule, and the authors'
objective as the option ``correction="per_row"`` (registered as ``nnpu_xgb_csboost`` and
``imbalanced_nnpu_xgb_csboost``, with ``loss="logistic"``): the coefficients ``B_i`` of
``l(z, -1)`` clipped at 0 row by row, ``A_i`` as above for nnPU (``c^-1`` per labeled row
without weights) and ``pi' w_i`` for imbalanced nnPU (their labeled weight ``pi'``), every
round an ordinary one (``defensive_rounds_`` all False; ``negative_risk_`` still records
the papers' term with the unclipped ``B``).

**Hessians.** XGBoost's leaf value is ``-G / (H + reg_lambda)``, so every row's hessian
must be non-negative. The same hessian is used in ordinary and defensive rounds (the
ordinary objective's curvature as the metric of both steps): ``gamma`` then scales the
defensive step as in Kiryo et al., where it multiplies the gradient under an unchanged
optimiser (with the defensive objective's own curvature, ``-gamma`` times a hessian,
``gamma`` would cancel from ``-G / H``; its exact hessian is moreover negative on U rows).
Logistic loss: ``l''(z, +-1) = sigmoid(z) (1 - sigmoid(z))`` and the row hessian is the
exact ``(A_i + B_i) sigmoid(z_i) (1 - sigmoid(z_i))`` of the ordinary objective, which is
non-negative for uPU / nnPU (``A_i + B_i`` is ``w_i W / W_u > 0`` on U rows and ``0`` on
case-control labeled rows, whose ``l(z, +1) - l(z, -1) = -z`` is linear); the absolute
value ``|A_i + B_i|`` guards imbalanced nnPU with extreme ``pi'``. The authors' logistic
hessians are likewise the exact ones of their (non-negative) coefficients, so they never
met a negative hessian. Sigmoid loss: ``l''(z, -1) = s (1 - s) (1 - 2 s)``
(``s = sigmoid(z)``, ``l''(z, +1) = -l''(z, -1)``) changes sign and vanishes at
``z = 0``, so the hessian is the curvature bound ``(|A_i| + |B_i|) L``,
``L = max |l''| = sqrt(3) / 18``: each leaf value of an ordinary round then minimises a
quadratic *upper bound* of the objective along that leaf (a majorisation step, which
cannot increase it before the learning rate). Gradients are always exact (tested against
finite differences of the risk).

**Defaults** are the PU Hellinger authors' (``CSBoost`` with ``validation=False``, as
``expsetup.py`` runs it; Table 2 of the paper: "base learner = XGBoost, alpha = ground
truth", other hyperparameters at their defaults): ``n_estimators=100``
(``num_boost_round=100``, no early stopping without validation), ``tree_method="exact"``,
``reg_lambda=0`` and ``reg_alpha=0`` (CSBoost's ``lambda2=0``, ``lambda1=0``),
``learning_rate=0.3``, ``max_depth=6``, ``min_child_weight=1`` (XGBoost's defaults, not
set by CSBoost), ``base_margin=0.5`` (CSBoost sets no objective for the PU losses, so
XGBoost's default ``reg:squarederror`` with ``base_score=0.5`` and the identity link
starts every margin at 0.5; the same in XGBoost 3), ``oversampled_prior=0.5``
(``oversampling=0.50`` in ``expsetup.py``), ``loss="logistic"`` (the authors' loss for
all three; the registry names ``nnpu_xgb`` and ``imbalanced_nnpu_xgb`` default to
``loss="sigmoid"`` instead, the loss of Kiryo et al.'s experiments, which Su et al. keep,
because nnPU with the logistic loss ranks badly, as measured above), ``beta=0``, ``gamma=1`` (Kiryo et al.'s defaults). ``predict_proba`` is the
sigmoid of the margin, as the authors score (``expit(inplace_predict(X))``), and
``predict`` is 1 where it is at least 0.5 (their ``>= 0.50``). The authors pass
``prior_y`` = the class prior of the whole data set and ``prob_lab`` = its labeled
fraction; here ``prior`` is the training rows' prior (``params: {prior: true}``) and the
labeled fraction is the training rows' (weighted) ``Pr(s = 1)``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from pu_lib._optional import require
from pu_lib._seeding import derive_seed
from pu_lib._seeding import seed_to_int as _seed_to_int
from pu_lib._validation import SCENARIOS, validate_pu_data
from pu_lib.base import RANDOM_STATE_CONSTRAINT, SCENARIO_CONSTRAINT, PUClassifierMixin
from pu_lib.base_learners import check_predict_X
from pu_lib.distributed import effective_n_jobs
from pu_lib.prior import PRIOR_CONSTRAINT, resolve_prior

__all__ = ["RISKS", "LOSSES", "PURiskXGBClassifier", "pu_risk_coefficients", "pu_risk_grad_hess",
           "negative_risk"]

RISKS = ("upu", "nnpu", "imbalanced_nnpu")
LOSSES = ("logistic", "sigmoid")
#: max over z of |d^2/dz^2 sigmoid(z)| = sqrt(3) / 18, at sigmoid(z) = 1/2 -+ 1/(2 sqrt 3)
SIGMOID_CURVATURE_BOUND = float(np.sqrt(3.0) / 18.0)


def _sigmoid(z):
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    ez = np.exp(z[~pos])
    out[~pos] = ez / (1.0 + ez)
    return out


def _loss_terms(z, loss):
    """``(l(z,+1), l(z,-1), l'(z,+1), l'(z,-1), l''(z,-1))`` per row (``l''(z,+1)`` is
    ``l''(z,-1)`` for the logistic loss and ``-l''(z,-1)`` for the sigmoid loss)."""
    p = _sigmoid(z)
    q = 1.0 - p
    pq = p * q
    if loss == "logistic":
        lp = np.logaddexp(0.0, -z)
        ln = np.logaddexp(0.0, z)
        return lp, ln, -q, p, pq
    return q, p, -pq, pq, pq * (q - p)


def pu_risk_coefficients(s, prior, risk="nnpu", scenario=SCENARIOS[0], sample_weight=None,
                         oversampled_prior=0.5):
    """Per-row coefficients ``(A, B)`` of the sum-form risk ``sum_i A_i l(z_i, +1) +
    B_i l(z_i, -1)`` (``W`` times the risk; see the module docstring) and the multiplier
    ``k`` of the negative-risk term. ``s`` 0/1, ``prior`` in (0, 1)."""
    s = np.asarray(s)
    lab = s == 1
    w = np.ones(s.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    W = float(w.sum())
    W_p = float(w[lab].sum())
    in_u = np.ones_like(lab) if scenario == SCENARIOS[0] else ~lab
    W_u = float(w[in_u].sum())
    if risk == "imbalanced_nnpu":
        pi_pos, k = float(oversampled_prior), (1.0 - oversampled_prior) / (1.0 - prior)
    else:
        pi_pos, k = float(prior), 1.0
    A = np.where(lab, W * pi_pos * w / W_p, 0.0)
    B = W * k * (np.where(in_u, w / W_u, 0.0) - np.where(lab, prior * w / W_p, 0.0))
    return A, B, k


def negative_risk(z, B, W, loss):
    """The negative-risk term ``k (R_u^- - pi R_p^-) = sum_i B_i l(z_i, -1) / W``."""
    return float(np.dot(B, _loss_terms(np.asarray(z, dtype=np.float64), loss)[1]) / W)


def pu_risk_grad_hess(z, A, B, loss, defensive=False, gamma=1.0):
    """Per-row gradient with respect to the raw margin ``z`` of ``A_i l(z_i, +1) +
    B_i l(z_i, -1)`` (ordinary round) or of ``-gamma B_i l(z_i, -1)`` (defensive round),
    and the non-negative hessian of the module docstring ("Hessians"; the same in both)."""
    z = np.asarray(z, dtype=np.float64)
    _, _, dlp, dln, d2 = _loss_terms(z, loss)
    grad = -gamma * B * dln if defensive else A * dlp + B * dln
    if loss == "logistic":
        hess = np.abs(A + B) * d2
    else:
        hess = (np.abs(A) + np.abs(B)) * SIGMOID_CURVATURE_BOUND
    return grad, hess


class PURiskXGBClassifier(PUClassifierMixin, BaseEstimator):
    """uPU / nnPU / imbalanced nnPU risk minimised by XGBoost (custom objective, one tree
    per round); see the module docstring for the risks, the per-round non-negative
    correction, the hessians and where every default comes from.

    Registered as ``upu_xgb``, ``nnpu_xgb`` and ``imbalanced_nnpu_xgb`` (``risk`` pinned).

    Parameters
    ----------
    risk : ``"nnpu"`` (default), ``"upu"`` or ``"imbalanced_nnpu"``.
    loss : ``"logistic"`` (default, the PU Hellinger authors') or ``"sigmoid"``.
    prior : class prior pi (``pu_lib.base.PRIOR_CONSTRAINT``: a number, a registered prior
        estimator's name or an estimator object); required (``ValueError`` otherwise).
    scenario : ``"single_training_set"`` (default; U = all rows, ``prior`` = Pr(y = 1) of
        the rows) or ``"case_control"`` (U = the ``s = 0`` rows, ``prior`` = their prior).
    oversampled_prior : pi' of imbalanced nnPU, default 0.5 (authors' ``oversampling``);
        ignored by the other risks.
    correction : ``"lookahead"`` (default: the term never ends a round below ``-beta``, the
        non-negativity the nnPU risk asks for), ``"kiryo"`` (Algorithm 1 as written, the
        training set as one batch; the term oscillates around ``-beta``) or ``"per_row"``
        (the PU Hellinger authors' CSBoost objective: each row's coefficient of
        ``l(z, -1)`` clipped at 0; module docstring); nnPU risks only.
    beta, gamma : Kiryo et al.'s threshold and defensive step factor (0 and 1).
    n_estimators, learning_rate, max_depth, min_child_weight, reg_lambda, reg_alpha,
    tree_method : XGBoost's ``num_boost_round``, ``eta``, ``max_depth``,
        ``min_child_weight``, ``lambda``, ``alpha``, ``tree_method``.
    base_margin : the initial raw margin of every row (0.5, see the module docstring).
    random_state : XGBoost's ``seed`` (derived from it; the default trees use no
        randomness). ``n_jobs`` : XGBoost threads (None = 1).

    Attributes
    ----------
    booster_ : the fitted ``xgboost.Booster`` (margins without ``base_margin``).
    negative_risk_ : ``(n_estimators + 1,)`` the term ``k (R_u^- - pi R_p^-)`` on the
        training rows after ``t`` rounds (weighted; index 0 = initial margins).
    defensive_rounds_ : ``(n_estimators,)`` bool, rounds fitted to the defensive gradient.
    prior_, prior_estimator_, labeled_fraction_ (weighted Pr(s = 1) of the training
    rows), classes_, n_features_in_.

    **predict_proba** (docs/probabilities.md): ``sigmoid(g(x))`` is an estimate of ``P(y = 1 | x)``
    (kind ``"posterior"``) only for the uPU risk with the logistic loss (a proper loss,
    ``upu_xgb``); the sigmoid loss's minimiser is only a classifier, the non-negative correction
    biases the estimate and imbalanced nnPU targets the prior ``pi'``, so those are kind ``"score"``
    (:class:`pu_lib.calibration.PUCalibratedClassifier` calibrates them).
    """

    @property
    def _proba_kind(self):
        """What column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)."""
        return "posterior" if self.risk == "upu" and self.loss == "logistic" else "score"

    #: sparse X as CSR: XGBoost reads the absent entries as missing values, so the model of
    #: a CSR matrix is the one of the dense array with NaN in place of the absent entries
    #: (pu_lib.prior.pulscar.SPARSE_WITH_XGBOOST; a prior given by name must take sparse X too)
    _accepts_sparse = True

    _parameter_constraints: dict = {
        "risk": [StrOptions(set(RISKS))],
        "loss": [StrOptions(set(LOSSES))],
        "prior": PRIOR_CONSTRAINT,
        "scenario": SCENARIO_CONSTRAINT,
        "oversampled_prior": [Interval(Real, 0.0, 1.0, closed="neither")],
        "correction": [StrOptions({"kiryo", "lookahead", "per_row"})],
        "beta": [Interval(Real, 0.0, None, closed="left")],
        "gamma": [Interval(Real, 0.0, None, closed="right")],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0.0, None, closed="neither")],
        "max_depth": [Interval(Integral, 0, None, closed="left")],
        "min_child_weight": [Interval(Real, 0.0, None, closed="left")],
        "reg_lambda": [Interval(Real, 0.0, None, closed="left")],
        "reg_alpha": [Interval(Real, 0.0, None, closed="left")],
        "tree_method": [StrOptions({"exact", "approx", "hist"})],
        "base_margin": [Interval(Real, None, None, closed="neither")],
        "random_state": RANDOM_STATE_CONSTRAINT,
        "n_jobs": [None, Integral],
    }

    def __init__(self, *, risk="nnpu", loss="logistic", prior=None, scenario="single_training_set",
                 oversampled_prior=0.5, correction="lookahead", beta=0.0, gamma=1.0, n_estimators=100,
                 learning_rate=0.3, max_depth=6, min_child_weight=1.0, reg_lambda=0.0, reg_alpha=0.0,
                 tree_method="exact", base_margin=0.5, random_state=None, n_jobs=None):
        self.risk = risk
        self.loss = loss
        self.prior = prior
        self.scenario = scenario
        self.oversampled_prior = oversampled_prior
        self.correction = correction
        self.beta = beta
        self.gamma = gamma
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.min_child_weight = min_child_weight
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.tree_method = tree_method
        self.base_margin = base_margin
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _xgb_params(self, seed):
        return {
            "objective": "reg:squarederror",  # identity link: XGBoost's margin is our raw margin
            "base_score": float(self.base_margin),
            "tree_method": self.tree_method,
            "eta": float(self.learning_rate),
            "max_depth": int(self.max_depth),
            "min_child_weight": float(self.min_child_weight),
            "lambda": float(self.reg_lambda),
            "alpha": float(self.reg_alpha),
            "nthread": effective_n_jobs(self.n_jobs),
            "seed": 0 if seed is None else int(seed),
            "disable_default_eval_metric": True,
        }

    # prior may be an estimator object: validate its parameters too (nested validation)
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled),
        with optional non-negative ``sample_weight`` (rows of weight 0 are dropped)."""
        xgb = require("xgboost", purpose=f"{type(self).__name__} (uPU / nnPU risks minimised by XGBoost)")

        X, s, w, _ = validate_pu_data(self, X, s, sample_weight=sample_weight)
        seed = _seed_to_int(self.random_state)
        est_seed = None if seed is None else derive_seed(seed, "prior_estimator")
        prior, prior_est = resolve_prior(self.prior, X, s, self.scenario, random_state=est_seed,
                                         n_jobs=self.n_jobs, sample_weight=w)
        A, B, _ = pu_risk_coefficients(s, prior, self.risk, self.scenario, w, self.oversampled_prior)
        W = float(s.shape[0] if w is None else w.sum())
        loss, gamma, beta = self.loss, float(self.gamma), float(self.beta)
        correct = self.risk != "upu"
        B_term = B  # the papers' negative-risk term, recorded in negative_risk_
        if correct and self.correction == "per_row":
            # the authors' CSBoost objectives: max(0, .) per row on the coefficient of l(z, -1)
            B = np.maximum(B, 0.0)
            if self.risk == "imbalanced_nnpu":
                A = np.where(s == 1, float(self.oversampled_prior) * (1.0 if w is None else w), 0.0)
            correct = False  # no batch rule: every round is an ordinary one

        dtrain = xgb.DMatrix(X, nthread=effective_n_jobs(self.n_jobs))
        params = self._xgb_params(None if seed is None else derive_seed(seed, "xgboost"))
        booster = xgb.Booster(params, [dtrain])
        neg = np.empty(self.n_estimators + 1)
        defensive = np.zeros(self.n_estimators, dtype=bool)
        z = np.full(X.shape[0], float(self.base_margin))
        for t in range(self.n_estimators):
            neg[t] = negative_risk(z, B_term, W, loss)
            defensive[t] = correct and neg[t] < -beta
            grad, hess = pu_risk_grad_hess(z, A, B, loss, defensive=bool(defensive[t]), gamma=gamma)
            booster.boost(dtrain, t, grad=grad, hess=hess)
            z_new = booster.predict(dtrain, output_margin=True).astype(np.float64)
            if (self.correction == "lookahead" and correct and not defensive[t]
                    and negative_risk(z_new, B_term, W, loss) < -beta):
                # the ordinary tree would take the term below -beta: replace it by the defensive tree
                booster = booster[:t] if t > 0 else xgb.Booster(params, [dtrain])
                defensive[t] = True
                grad, hess = pu_risk_grad_hess(z, A, B, loss, defensive=True, gamma=gamma)
                booster.boost(dtrain, t, grad=grad, hess=hess)
                z_new = booster.predict(dtrain, output_margin=True).astype(np.float64)
            z = z_new
        neg[-1] = negative_risk(z, B_term, W, loss)

        self.booster_ = booster
        self.negative_risk_ = neg
        self.defensive_rounds_ = defensive
        self.prior_ = float(prior)
        self.prior_estimator_ = prior_est
        self.labeled_fraction_ = float(s.mean() if w is None else w[s == 1].sum() / W)
        self.classes_ = np.array([0, 1])
        return self

    def decision_function(self, X):
        """The raw margin ``g(x)`` (``base_margin`` plus the trees)."""
        check_is_fitted(self)
        X = check_predict_X(self, X)
        return self.booster_.inplace_predict(X, predict_type="margin").astype(np.float64)

    def predict_proba(self, X):
        """``(n, 2)``; column 1 is ``sigmoid(g(x))`` (the PU Hellinger authors' scores)."""
        p = _sigmoid(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        """1 where ``sigmoid(g(x)) >= 0.5``, i.e. ``g(x) >= 0``."""
        return (self.decision_function(X) >= 0.0).astype(np.int64)
