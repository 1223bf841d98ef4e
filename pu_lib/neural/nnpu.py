r"""uPU, nnPU and imbalanced nnPU with neural networks (PyTorch): :class:`NNPUClassifier`.

**Risks** on a mini-batch, for a network ``g`` with raw score ``z = g(x)`` and a loss
``l(z, y)`` (``y = +1`` / ``-1``). With row weights ``w_i`` (1 without ``sample_weight``),
the batch's labeled rows P (``s = 1``) and its unlabeled sample U (all rows of the batch
in the single-training-set scenario, where the labeled rows are part of U; the ``s = 0``
rows in the case-control scenario)::

    R_p^+ = sum_{i in P} w_i l(z_i, +1) / sum_{i in P} w_i
    R_p^- = sum_{i in P} w_i l(z_i, -1) / sum_{i in P} w_i
    R_u^- = sum_{i in U} w_i l(z_i, -1) / sum_{i in U} w_i

(a batch without labeled, or without unlabeled, rows has those means 0, as the reference's
``max(1, n)`` denominators give).

* **uPU** (du Plessis, Niu & Sugiyama, NIPS 2014 / ICML 2015)::

      R_upu = pi R_p^+ + (R_u^- - pi R_p^-)

* **nnPU** (Kiryo, Niu, du Plessis & Sugiyama, NeurIPS 2017, eq. 6)::

      R_nnpu = pi R_p^+ + max(0, R_u^- - pi R_p^-)

* **imbalanced nnPU** (Su, Chen & Xu, IJCAI 2021, "Positive-unlabeled learning from
  imbalanced data", eq. 7; ``oversampled_prior`` = pi')::

      R_imb = pi' R_p^+ + (1 - pi') / (1 - pi) max(0, R_u^- - pi R_p^-)

  which is the nnPU risk at ``pi' = pi`` (tested: identical models).

Below, the *positive risk* is ``pi_+ R_p^+`` and the *negative risk* is
``k (R_u^- - pi R_p^-)`` with ``pi_+ = pi, k = 1`` (uPU, nnPU) or ``pi_+ = pi'``,
``k = (1 - pi') / (1 - pi)`` (imbalanced nnPU); it estimates the negatives' share of the
risk, ``(1 - pi) R_n^-`` (scaled by ``k``), which cannot be negative but goes negative when
a flexible model overfits the labeled rows (what uPU does).

**The corrected step** (Kiryo et al., Algorithm 1; kiryor/nnPUlearning ``pu_loss.py``,
``PULoss.forward``, read for this module: ``if negative_risk.data < -self.beta:
objective = positive_risk - self.beta; self.x_out = -self.gamma * negative_risk``, and
``backward`` differentiates ``x_out``). For each mini-batch:

* if ``negative risk >= -beta``: a step on the gradient of ``positive risk + negative
  risk`` (the uPU objective; nnPU and uPU take identical steps there, tested);
* else: a step on the gradient of ``-gamma * negative risk`` -- gradient *ascent* on the
  negative risk, scaled by ``gamma``, which pushes it back up towards ``-beta``; the
  positive risk takes no part in that step. Its gradient with respect to ``z_i`` is
  ``-gamma k (w_i [i in U] / W_U - pi w_i [i in P] / W_P) l'(z_i, -1)`` (tested against
  this closed form). The sign matters: a step on ``+gamma *`` the negative risk, or on the
  clipped risk ``max(0, .)`` (whose gradient there is that of the positive risk alone),
  does not push the negative risk back up.

The value reported for such a batch is ``positive risk - beta`` (the reference's
``objective``); ``history_["risk"]`` is the mean over the epoch's batches (which batches
make an epoch: ``batch_iteration``) of the reported values, ``history_["negative_risk"]``
of the negative risks, ``history_["corrected_steps"]`` the number of corrected batches and
``history_["steps"]`` the number of batches. Weight decay (Adam's
``weight_decay``, the L2 term the reference adds with Chainer's ``WeightDecay`` hook)
applies to both kinds of step.

**Losses** (``loss``): ``"sigmoid"``, ``l(z, y) = sigmoid(-y z)`` (Kiryo et al.'s default,
``F.sigmoid(-x)``) and ``"logistic"``, ``l(z, y) = log(1 + exp(-y z))`` (``F.softplus(-x)``).

**Defaults** (the nnPU reference, kiryor/nnPUlearning ``train.py``, except the batches and
epochs): ``loss="sigmoid"`` (``--loss``), ``beta=0`` (``--beta``), ``gamma=1`` (``--gamma``),
``batch_size="auto"`` and ``epochs="auto"`` (below; the reference's ``train.py`` defaults
are ``epochs=100``, ``--epoch``, and ``batch_size=30000``, ``--batchsize``, which pu_lib used
before and which the paper configs give explicitly), ``learning_rate=1e-3``
(``--stepsize``, Adam's ``alpha``), ``weight_decay=0.005`` (``make_optimizer``:
``WeightDecay(0.005)``), Adam's betas (0.9, 0.999) (Chainer's defaults, which
``make_optimizer`` keeps), ``batch_iteration="serial"`` (``main``: the training rows go
through ``chainer.iterators.SerialIterator(XYtrain, args.batchsize)``, whose batches all
have ``batch_size`` rows and run on from one shuffled pass into the next;
:mod:`pu_lib.neural._training` gives Chainer's code and what an epoch then is),
``model="mlp"`` with ``hidden_sizes=(100,)``, ReLU and no batch
norm (``--model 3lp``, ``ThreeLayerPerceptron``: ``d-100-1``), ``init="chainer"`` (the reference
is Chainer code and its links keep Chainer's default initialisers: LeCun-normal weights,
zero biases, batch-norm eps 2e-5; :mod:`pu_lib.neural._models`; ``init="pytorch"`` gives
PyTorch's, with which the reference's MNIST network predicted every test image positive
after epoch 1 in three of four seeds and fell back to 55-71% for several epochs in three,
docs/neural.md, "Initialisation"). The reference's MNIST
experiment network (``--preset exp-mnist``, ``MultiLayerPerceptron``) is
``model="mlp", hidden_sizes=(300, 300, 300, 300), batch_norm=True``;
``oversampled_prior=0.5`` is Su et al.'s pi' (the ``oversampling=0.50`` of the PU
Hellinger authors' experiments, as :class:`pu_lib.baselines.PURiskXGBClassifier`).

**Batches and epochs scaled to the data** (``batch_size="auto"``, ``epochs="auto"``,
:func:`auto_batching`; resolved at ``fit`` from the training rows' count ``n`` and the
labeled count ``n_l`` among them -- after the early-stopping hold-out and the rows of weight
0 -- and recorded as ``batch_size_`` and ``epochs_``; an integer is used as given)::

    batch_size_ = min(n, max(512, ceil(32 n / n_l)))      # n_l = 0 counts as 1
    epochs_     = min(100, ceil(1000 min(batch_size_, n) / n))

i.e. the whole table below 512 rows, else batches of at least 512 rows holding about 32
labeled rows each, and the reference's 100 epochs but no more than about 1,000 Adam steps
(``batch_iteration="serial"`` takes ``ceil(epochs_ n / batch_size_)``). Why: with the fixed
30,000 rows a table below 30,000 rows gets one Adam step per epoch, 100 steps in all, too
few for most tables (magic gamma, 14,265 training rows: 78.1% test accuracy after those 100
steps, 81.7% after the rule's 1,004; MNIST, 10,000 training rows: 88.4% and 92.9%), while the
reference's MNIST set of 61,000 rows gets 2 steps per epoch; the rule gives every table of
more than about 5,000 rows about 1,000 steps at a cost that no longer grows with ``n``,
keeps the old training exactly up to 512 rows (a one-batch table, 100 epochs), and keeps
enough labeled rows in a batch for its risk estimate (the reference's CIFAR-10 preset has
about 10 labeled rows in each batch of 500; 61,000 rows with 1,000 labeled give batches of
1,952 rows). The constants are :data:`AUTO_MIN_BATCH`, :data:`AUTO_LABELED_PER_BATCH`,
:data:`AUTO_STEPS` and :data:`AUTO_MAX_EPOCHS`; they use only the training rows' shape and
labels. Measured on seven data sets from 426 to 36,631 training rows (docs/neural.md,
"Defaults on your own data", ``benchmarks/bench_neural_defaults.py``): accuracy and F1 at
least those of the old defaults on every one, mean over three seeds. The default network
stays the reference's default ``d-100-1`` (``--model 3lp``): with these batches its MNIST
network (``hidden_sizes=(300, 300, 300, 300), batch_norm=True``) was more accurate on two of
the seven sets (satellite, magic gamma), less on four (splice by 6.5 points, MNIST, mushroom,
adult) and level on one, at 5 to 17 times the fit time.

**Scenarios and the reference's data.** The reference's MNIST set (``dataset.py``,
``make_dataset``'s ``make_pu_dataset_from_binary_dataset`` with ``unlabeled == len(x)``,
``--preset exp-mnist``: ``--labeled 1000 --unlabeled 60000``) is 61,000 rows: 1,000
labeled positives (label +1) stacked on the whole training set as U (label -1; the
labeled images appear again in U), shuffled, even digits positive, pixels divided by 255,
and the prior ``n_up / n_u``, the positives' share of the 60,000 rows. That is the
case-control scenario here with P stacked on U (``s = 1`` for the 1,000 rows of P, ``s = 0``
for the 60,000 of U; ``prior`` the positive share of the ``s = 0`` rows), and the
reference's batches of 30,000 are drawn from those 61,000 rows (about 492 of P each). The
single-training-set scenario (the 60,000 rows, the 1,000 labeled among them with ``s = 1``;
rows with ``s = 1`` count in P and in U, ``prior`` is Pr(y = 1) over all rows) has the same
risk in expectation, with about 500 labeled rows in each batch of 30,000; 60,000 rows are
two whole batches, so there both ``batch_iteration`` values take the reference's batch
sizes.

**Sample weights** enter the weighted means above; integer weights equal repeated rows
when a batch is the whole training set (``batch_size >= n``, no batch norm, no dropout:
tested); with mini-batches the batches differ, and batch norm's statistics are unweighted.

**Scores.** ``decision_function`` is ``g(x)``, ``predict_proba`` is ``sigmoid(g(x))`` and
``predict`` is 1 where ``g(x) >= 0`` (the reference's error counts ``sign(g(x))``).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from pu_lib._seeding import derive_seed
from pu_lib._validation import SCENARIOS
from pu_lib.base import SCENARIO_CONSTRAINT
from pu_lib.neural._models import scores
from pu_lib.neural._training import BATCH_ITERATIONS, NeuralPUBase
from pu_lib.prior import PRIOR_CONSTRAINT, resolve_prior

__all__ = ["AUTO_MAX_EPOCHS", "AUTO_MIN_BATCH", "AUTO_LABELED_PER_BATCH", "AUTO_STEPS", "LOSSES", "RISKS",
           "NNPUClassifier", "auto_batching", "loss_pair", "nnpu_objective", "pu_batch_risks"]

RISKS = ("upu", "nnpu", "imbalanced_nnpu")
LOSSES = ("sigmoid", "logistic")

#: ``batch_size="auto"``: at least this many rows per batch (all ``n`` when fewer)
AUTO_MIN_BATCH = 512
#: ``batch_size="auto"``: about this many labeled rows expected in each batch
AUTO_LABELED_PER_BATCH = 32
#: ``epochs="auto"``: about this many Adam steps in the fit at most ...
AUTO_STEPS = 1000
#: ... and at most this many epochs (the nnPU reference's ``--epoch``)
AUTO_MAX_EPOCHS = 100


def auto_batching(batch_size, epochs, n: int, n_labeled: int) -> tuple[int, int]:
    """``(batch size, epochs)`` of a fit on ``n`` training rows, ``n_labeled`` of them labeled,
    for ``batch_size`` and ``epochs`` each an integer (kept as given) or ``"auto"``:

    * ``batch_size="auto"``: ``min(n, max(AUTO_MIN_BATCH, ceil(AUTO_LABELED_PER_BATCH * n /
      n_labeled)))`` -- the whole table below ``AUTO_MIN_BATCH`` rows, else enough rows for
      about ``AUTO_LABELED_PER_BATCH`` labeled ones per batch (``n_labeled = 0`` counts as 1);
    * ``epochs="auto"``: ``min(AUTO_MAX_EPOCHS, ceil(AUTO_STEPS * b / n))`` with ``b =
      min(batch size, n)``: about ``AUTO_STEPS`` Adam steps (``ceil(epochs * n / b)`` with
      ``batch_iteration="serial"``) but no more than ``AUTO_MAX_EPOCHS`` epochs, i.e. fewer
      steps where an epoch has fewer than ``AUTO_STEPS / AUTO_MAX_EPOCHS`` batches (the
      whole table in one batch: ``AUTO_MAX_EPOCHS`` steps, as ``epochs=100`` always gave).

    Only the training rows' count and labels enter (module docstring: the reasons and the
    measurements).
    """
    n = max(int(n), 1)
    if isinstance(batch_size, str):
        need = math.ceil(AUTO_LABELED_PER_BATCH * n / max(int(n_labeled), 1))
        batch_size = min(n, max(AUTO_MIN_BATCH, need))
    batch_size = int(batch_size)
    if isinstance(epochs, str):
        epochs = min(AUTO_MAX_EPOCHS, math.ceil(AUTO_STEPS * min(batch_size, n) / n))
    return batch_size, int(epochs)


def loss_pair(torch, z, loss: str):
    """``(l(z, +1), l(z, -1))`` for ``loss`` (``"sigmoid"`` or ``"logistic"``)."""
    if loss == "sigmoid":
        return torch.sigmoid(-z), torch.sigmoid(z)
    return torch.nn.functional.softplus(-z), torch.nn.functional.softplus(z)


def pu_batch_risks(torch, z, s, w, in_u, *, prior, pi_pos, k, loss, mult=None):
    """``(positive risk, negative risk)`` of one batch: ``pi_+ R_p^+`` and
    ``k (R_u^- - pi R_p^-)`` (module docstring) as 0-d tensors. ``z`` scores, ``s`` bool
    (labeled), ``w`` weights, ``in_u`` bool (row in U). ``mult``: per-row factors of the
    losses that leave the means' denominators (the weight sums) alone -- Self-PU's
    calibration weights (:mod:`pu_lib.neural.selfpu`)."""
    lp, ln = loss_pair(torch, z, loss)
    if mult is not None:
        lp, ln = lp * mult, ln * mult
    wp = torch.where(s, w, torch.zeros_like(w))
    wu = torch.where(in_u, w, torch.zeros_like(w))
    W_p, W_u = wp.sum(), wu.sum()
    W_p = torch.where(W_p > 0, W_p, torch.ones_like(W_p))
    W_u = torch.where(W_u > 0, W_u, torch.ones_like(W_u))
    positive = pi_pos * (wp * lp).sum() / W_p
    negative = k * ((wu * ln).sum() / W_u - prior * (wp * ln).sum() / W_p)
    return positive, negative


def nnpu_objective(positive, negative, *, risk, beta, gamma):
    """``(objective to differentiate, reported value, corrected)`` of one batch: uPU
    always ``positive + negative``; the nnPU risks ``-gamma * negative`` (reported
    ``positive - beta``) when ``negative < -beta``, else ``positive + negative``."""
    if risk != "upu" and float(negative.detach()) < -beta:
        return -gamma * negative, positive - beta, True
    total = positive + negative
    return total, total, False


class NNPUClassifier(NeuralPUBase):
    """uPU / nnPU / imbalanced nnPU with a linear model, an MLP or any PyTorch module;
    the module docstring gives the risks, the corrected step and every default's source.

    Registered as ``nnpu`` (and ``upu``, ``imbalanced_nnpu`` with ``risk`` pinned).

    Parameters
    ----------
    risk : ``"nnpu"`` (default), ``"upu"`` or ``"imbalanced_nnpu"``.
    loss : ``"sigmoid"`` (default) or ``"logistic"``.
    prior : class prior pi: a number in (0, 1), a registered prior estimator's name or an
        estimator object (:func:`pu_lib.prior.resolve_prior`); required.
    scenario : ``"single_training_set"`` (default; U = all rows) or ``"case_control"``
        (U = the ``s = 0`` rows).
    oversampled_prior : pi' of imbalanced nnPU (0.5); ignored by the other risks.
    beta, gamma : the corrected step's threshold (``>= 0``) and factor (``0 <= gamma <= 1``,
        the reference's ``PULoss`` range) (0, 1).
    model : ``"mlp"`` (default), ``"linear"``, ``"cnn13"`` (the nnPU reference's CIFAR-10 CNN,
        images as flat channel-first rows; docs/neural.md) or a callable
        ``n_features -> torch.nn.Module`` giving one score per row (:mod:`pu_lib.neural._models`).
    input_shape : ``(C, H, W)`` of ``"cnn13"``'s flat rows (None: (3, 32, 32), a CIFAR-10
        image); ``C * H * W`` must equal ``X``'s width (``ValueError`` otherwise); ignored by
        the other models.
    hidden_sizes, activation, batch_norm, dropout : the ``"mlp"``'s hidden widths
        (``(100,)``, the reference's ``3lp``; its MNIST network is ``(300, 300, 300, 300)``
        with ``batch_norm=True``), ``"relu"`` / ``"softsign"``, batch norm (False) and dropout
        rate (0); ``batch_norm=True`` needs ``batch_size >= 2`` (``ValueError`` otherwise).
    init : ``"chainer"`` (default: the reference's, Chainer's initialisation: weights
        N(0, 1/fan_in), zero biases, batch norm eps 2e-5) or ``"pytorch"`` (PyTorch's
        defaults); for ``"linear"``, ``"mlp"`` and ``"cnn13"`` (:mod:`pu_lib.neural._models`).
    epochs, batch_size : ``"auto"`` (default; the module docstring's rule from the training
        rows: ``batch_size_ = min(n, max(512, ceil(32 n / n_labeled)))``, ``epochs_ = min(100,
        ceil(1000 min(batch_size_, n) / n))``, about 1,000 Adam steps and at most 100 epochs;
        :func:`auto_batching`) or a positive integer, used as
        given (the reference's ``train.py`` defaults, used here before, are ``epochs=100,
        batch_size=30000``).
    learning_rate, weight_decay : Adam training (1e-3, 0.005).
    batch_iteration : ``"serial"`` (default; the reference's Chainer ``SerialIterator``: every
        step on exactly ``min(batch_size, n)`` rows, a batch running on from one shuffled
        pass into the next, epoch ``k`` ending with the step that completes the ``k``-th
        pass) or ``"epoch"`` (one shuffled pass per epoch, the last batch shorter); the
        same model when ``batch_size`` divides ``n`` or is at least ``n``
        (:mod:`pu_lib.neural._training`).
    early_stopping, validation_fraction, n_iter_no_change : early stopping on held-out PU
        rows by the PU risk (False, 0.1, 10; :mod:`pu_lib.neural._training`).
    keep_epoch_states : keep each epoch's weights for ``staged_*`` predictions (False).
    dtype : ``"float32"`` (default) or ``"float64"`` network and data.
    device : ``"cpu"`` (default), ``"cuda"`` or ``"auto"``.
    random_state : seed of the initial weights, batches and dropout.
    n_jobs : torch threads (None = 1).

    Attributes
    ----------
    module_ : the fitted ``torch.nn.Module`` (eval mode). device_ : ``"cpu"`` / ``"cuda"``.
    history_ : dict of per-epoch arrays: ``"risk"``, ``"negative_risk"``,
        ``"corrected_steps"``, ``"steps"`` (Adam steps in the epoch) (and
        ``"validation_risk"`` with early stopping).
    batch_size_, epochs_ : the batch size and number of epochs the fit used (``"auto"``
        resolved, integers as given). n_epochs_ : epochs run (``epochs_``, or fewer with early
        stopping). best_epoch_ : index of the epoch whose network is kept.
    epoch_states_ : per-epoch state dicts (numpy) with ``keep_epoch_states``, else None.
    prior_, prior_estimator_, classes_, n_features_in_.

    **predict_proba** (docs/probabilities.md): ``sigmoid(g(x))`` is an estimate of ``P(y = 1 | x)``
    (kind ``"posterior"``) only for the uPU risk with the logistic loss (a proper loss); with the
    sigmoid loss (default) the minimiser is only a classifier, the non-negative correction biases
    the estimate and imbalanced nnPU targets the prior ``pi'``, so those are kind ``"score"``
    (:class:`pu_lib.calibration.PUCalibratedClassifier` calibrates them).
    """

    @property
    def _proba_kind(self):
        """What column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)."""
        return "posterior" if self.risk == "upu" and self.loss == "logistic" else "score"

    _purpose = "uPU / nnPU with PyTorch"

    _parameter_constraints: dict = {
        "risk": [StrOptions(set(RISKS))],
        "loss": [StrOptions(set(LOSSES))],
        "prior": PRIOR_CONSTRAINT,
        "scenario": SCENARIO_CONSTRAINT,
        "oversampled_prior": [Interval(Real, 0.0, 1.0, closed="neither")],
        "beta": [Interval(Real, 0.0, None, closed="left")],
        # as the reference's PULoss, which accepts 0 <= gamma <= 1 only
        "gamma": [Interval(Real, 0.0, 1.0, closed="both")],
        "batch_iteration": [StrOptions(set(BATCH_ITERATIONS))],
        **NeuralPUBase._common_constraints,
        # "auto": resolved from the training rows at fit (auto_batching); integers as given
        "epochs": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "batch_size": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, *, risk="nnpu", loss="sigmoid", prior=None, scenario="single_training_set",
                 oversampled_prior=0.5, beta=0.0, gamma=1.0, model="mlp", hidden_sizes=(100,), activation="relu",
                 batch_norm=False, dropout=0.0, init="chainer", input_shape=None, epochs="auto", batch_size="auto",
                 batch_iteration="serial",
                 learning_rate=1e-3, weight_decay=0.005, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, keep_epoch_states=False, dtype="float32", device="cpu", random_state=None,
                 n_jobs=None):
        self.risk = risk
        self.loss = loss
        self.prior = prior
        self.scenario = scenario
        self.oversampled_prior = oversampled_prior
        self.beta = beta
        self.gamma = gamma
        self.model = model
        self.hidden_sizes = hidden_sizes
        self.activation = activation
        self.batch_norm = batch_norm
        self.dropout = dropout
        self.init = init
        self.input_shape = input_shape
        self.epochs = epochs
        self.batch_size = batch_size
        self.batch_iteration = batch_iteration
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.keep_epoch_states = keep_epoch_states
        self.dtype = dtype
        self.device = device
        self.random_state = random_state
        self.n_jobs = n_jobs

    # prior may be an estimator object: validate its parameters too (nested validation)
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled),
        with optional non-negative ``sample_weight`` (rows of weight 0 are dropped)."""
        return self._fit(X, s, sample_weight)

    def _batching(self, n, n_labeled):
        return auto_batching(self.batch_size, self.epochs, n, n_labeled)

    def _prepare(self, X, s, w, seed):
        prior, prior_est = resolve_prior(self.prior, X, s, self.scenario,
                                         random_state=derive_seed(seed, "prior_estimator"), n_jobs=self.n_jobs,
                                         sample_weight=w)
        self.prior_ = float(prior)
        self.prior_estimator_ = prior_est
        if self.risk == "imbalanced_nnpu":
            pi_pos, k = float(self.oversampled_prior), (1.0 - self.oversampled_prior) / (1.0 - self.prior_)
        else:
            pi_pos, k = self.prior_, 1.0
        return {"prior": self.prior_, "pi_pos": pi_pos, "k": k}

    def _tensors(self, torch, X, s, w, device, dtype):
        T = super()._tensors(torch, X, s, w, device, dtype)
        T["in_u"] = torch.ones_like(T["s"]) if self.scenario == SCENARIOS[0] else ~T["s"]
        return T

    def _risks(self, torch, module, T, idx, consts):
        z = scores(module, T["X"] if idx is None else T["X"][idx])
        pick = (lambda t: t) if idx is None else (lambda t: t[idx])
        return pu_batch_risks(torch, z, pick(T["s"]), pick(T["w"]), pick(T["in_u"]), prior=consts["prior"],
                              pi_pos=consts["pi_pos"], k=consts["k"], loss=self.loss)

    def _train_epoch(self, torch, module, optimizer, T, batches, epoch, consts):
        reported, negatives, corrected = [], [], 0
        steps = batches.next_epoch()
        for idx in steps:
            positive, negative = self._risks(torch, module, T, idx, consts)
            objective, value, was_corrected = nnpu_objective(positive, negative, risk=self.risk,
                                                             beta=float(self.beta), gamma=float(self.gamma))
            optimizer.zero_grad()
            objective.backward()
            optimizer.step()
            reported.append(float(value.detach()))
            negatives.append(float(negative.detach()))
            corrected += int(was_corrected)
        return {"risk": float(np.mean(reported)), "negative_risk": float(np.mean(negatives)),
                "corrected_steps": corrected, "steps": len(steps)}

    def _validation_risk(self, torch, module, T, consts):
        positive, negative = self._risks(torch, module, T, None, consts)
        if self.risk == "upu":
            return float(positive + negative)
        return float(positive + torch.clamp(negative, min=0.0))

    def _proba_from_decision(self, d):
        return 1.0 / (1.0 + np.exp(-np.clip(d, -700.0, 700.0)))
