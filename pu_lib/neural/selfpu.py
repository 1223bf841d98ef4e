r"""Self-PU (Chen, Chen, Chen, Yuan, Gong, Chen & Wang, ICML 2020, "Self-PU: Self Boosted and
Calibrated Positive-Unlabeled Training"): :class:`SelfPUClassifier`.

Self-PU trains the nnPU risk (:mod:`pu_lib.neural.nnpu`) with three "self" mechanisms. What
follows is the authors' released code, VITA-Group/Self-PU (read at commit a0e332a):
``train_2s2t.py`` (Self-PU without self-calibration, the form the PU Extra Trees paper ran,
Tables 6-7: "Self-PU was run without self-calibration"), ``train_2s2t_mix.py`` (with it),
``datasets.py`` (``MNIST_Dataset_FixSample``: the selection and the batches),
``utils/util.py`` (``PULoss``) and ``mean_teacher/`` (ramps, EMA); every default below is
that code's (its ``argparse`` defaults, and ``--soft-label``, which both of the README's
Self-PU commands pass).

**Two students, two teachers.** Two networks of the same architecture (student 1 and 2,
initialised apart) are trained side by side with one Adam each (learning rate
``learning_rate``, L2 ``weight_decay``), and each has a teacher, an exponential moving
average of its weights (below). Each epoch runs, in this order: student 1 on its selected
("clean") rows, student 2 on its selected rows, [teacher update], student 1 on its
remaining ("noisy") rows, student 2 on its remaining rows, [teacher update]. The learning
rate follows a cosine schedule over the epochs, stepped at the start of each epoch as the
authors' ``scheduler.step()`` (PyTorch 0.4): epoch ``e`` (from 0) uses
``learning_rate * (1 + cos(pi (e + 1) / epochs)) / 2``, so the last epoch's rate is 0.

**Noisy rows: the nnPU risk.** The remaining rows are the labeled rows P and the
unlabeled rows not selected, in batches of ``batch_size`` with P spread evenly through the
epoch as the authors' ``__getitem__`` ("1901 keep the ratio"): with ``r = |U| // |P| + 1``
position ``k`` of the epoch's order is the next labeled row when ``k % r == 0`` and the next
unlabeled row otherwise, ``|P| r`` positions (both lists shuffled each epoch; where
``|U| < |P|`` the ``r = 1`` of that rule would leave U out, and a plain shuffle of both is
used). Each batch takes the nnPU step of Kiryo et al. with the sigmoid loss, ``beta`` and
``gamma`` (``PULoss``: ``R_p + R_n``, or ``-gamma R_n`` when ``R_n < -beta``;
:func:`pu_lib.neural.nnpu.nnpu_objective`), U being all rows of the batch in the
single-training-set scenario and its ``s = 0`` rows in the case-control one (the authors'
MNIST data are P stacked on U, the case-control form). The prior stays as given while
selected rows leave U (the authors' MNIST prior is fixed at 0.49).

**Self-paced selection** (``self_paced``). At the end of epochs ``self_paced_start``,
``+ self_paced_frequency``, ... before ``self_paced_stop`` (10, 20, 30, 40), each student
(its teacher once the teachers run) scores every training row; of the unlabeled rows sorted
by ``sigmoid(g(x))``, the ``n`` lowest become pseudo-negatives and the ``n`` highest
pseudo-positives for that student, with ``n = int(N_u (1 - self_paced_ratio) * min(e /
self_paced_ramp, 1) * top_k)`` (``update_ids``: ``N_u`` the unlabeled rows, ``e`` the epoch,
``self_paced_ratio`` 0.5 as ``update_dataset(ratio=0.5)``, ``top_k`` 0.4 for student 1 and
0.6 for student 2, ``--top1`` / ``--top2``; ``n`` at most ``N_u // 2``; ``n = 0`` selects
nothing, where the authors' ``al[-0:]`` would take every row). A selection replaces the
previous one (``--replacement True``) and holds until the next; the rows it selects leave
that student's noisy rows. On its selected rows a student minimises, batch by batch
(shuffled), the mean binary entropy of its predictions (``soft_label=True``, the authors'
``--soft-label``: ``-sum p log p`` over the two classes) or, with ``soft_label=False``, the
cross-entropy to the pseudo-labels.

**Self-distillation** (``mean_teacher``). From epoch ``ema_start`` (50) each teacher starts as
a copy of its student and after each pass above becomes ``a * teacher + (1 - a) * student``
with ``a = min(1 - 1 / (t + 1), ema_decay)``, ``t`` the teacher updates so far
(``update_ema_variables``: the running mean of the student's weights until ``t`` reaches
``1 / (1 - ema_decay)``); weights only, each teacher's batch-norm averages coming from its
own training-mode forward passes, as the authors' teachers in ``train()`` mode. While the
teachers run, every batch of a student adds

* the collaboration term (``--type mu``): ``mean((p_1 - p_2)^2)`` between the two students'
  predicted probabilities (the other one's detached), added when it is below
  ``collaboration`` (``--alpha``, 0.1) times the batch's nnPU objective;
* the consistency term with its own teacher, ``w(e) mean((p - p_teacher)^2)`` with ``w(e) =
  consistency * exp(-5 (1 - c / consistency_rampup)^2)``, ``c = clip(e - consistency_start,
  0, consistency_rampup)`` (``get_current_consistency_weight(epoch - 30)``, the mean
  teacher's ``sigmoid_rampup``). **Deviation**: the authors apply ``softmax_mse_loss`` (a
  softmax over classes) to the networks' one-column score, where the softmax of one column is
  1 and the term is 0 with no gradient; here it is taken on the two-class probabilities
  ``(1 - p, p)``, which is ``(p - p_teacher)^2``. ``consistency=0`` reproduces the authors'
  code.

**Self-calibration** (``self_calibration``, off by default as in the PU Extra Trees paper's
runs; ``train_2s2t_mix.py``, ``train_with_meta``). In the self-paced epochs each noisy batch
of a student is re-weighted first (the learning-to-reweight step): per-row weights ``eps =
(eps_0, eps_1)`` at 0; a copy of the student takes one SGD step (rate ``calibration_lr``,
0.001) on ``mean(eps_1 * sum_c p_c log p_c) + nnPU objective with each row's losses
multiplied by eps_0``; the gradient of twice the mean entropy of the stepped copy on a meta
batch with respect to ``eps`` gives ``w = max(-grad, 0)`` (``w_0 += 1e-10``); labeled rows get
``(1, 0)``, and the unlabeled rows in order get ``(1, 0)`` while ``sum w_1 >=
calibration_gamma * batch_size`` (``--gamma`` 1/16) and are otherwise normalised to sum 1.
The student's step is then on the nnPU objective with row losses times ``w_0`` plus
``mean(w_1 * entropy)``. **Deviation**: the authors' meta batches are batches of the test
set's images (labels unused); here they are ``batch_size`` training rows drawn at random,
as a fit has no test set. Their CIFAR-10 run also changes the prior as rows are selected
(not done here).

**The returned network** (``final_network``): the authors' code keeps, of the four networks,
the one with the highest test accuracy, which needs true labels. Here it is a parameter:
``"teacher1"`` (default; the mean teacher's own convention of predicting with the teacher;
student 1 if the teachers never ran), ``"teacher2"``, ``"student1"`` or ``"student2"``.

**Network** (defaults): the authors' MNIST network, ``d-300-300-300-300-1`` with batch norm
and ReLU (``models.py``, ``MultiLayerPerceptron``; ``model="mlp", hidden_sizes=(300, 300, 300,
300), batch_norm=True``), initialised as their ``weights_init`` (``init="kaiming"``,
:mod:`pu_lib.neural._models`); their CIFAR-10 ``CNN`` is the 13-layer network of
``model="cnn13"``. Any model of :class:`pu_lib.neural.NNPUClassifier` works.

**Forward passes.** The authors' loops also run the other student (and the teacher) forward
in training mode on every batch whether or not its output is used, which moves only those
networks' batch-norm running averages; here a network runs forward only where its output
enters a loss, and a selection scores with the network in evaluation mode.

**Sample weights** enter every weighted mean (the nnPU means as in nnPU, the entropy and
cross-entropy means, the consistency and collaboration means); the selection counts rows.
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
from pu_lib.neural._training import NeuralPUBase, batch_bounds
from pu_lib.neural.nnpu import LOSSES, nnpu_objective, pu_batch_risks
from pu_lib.prior import PRIOR_CONSTRAINT, resolve_prior

__all__ = ["FINAL_NETWORKS", "SelfPUClassifier", "calibration_weights", "consistency_weight",
           "interleaved_order", "self_paced_count"]

#: the networks a fit can return (module docstring)
FINAL_NETWORKS = ("teacher1", "teacher2", "student1", "student2")
#: index of each network in the fitted container (students 0, 1; teachers 2, 3)
_NET_INDEX = {"student1": 0, "student2": 1, "teacher1": 2, "teacher2": 3}


def consistency_weight(epoch: int, consistency: float, start: int, rampup: int) -> float:
    """``consistency * exp(-5 (1 - c / rampup)^2)``, ``c = clip(epoch - start, 0, rampup)``
    (the mean teacher's ``sigmoid_rampup``; ``rampup = 0`` gives ``consistency``)."""
    if rampup == 0:
        return float(consistency)
    c = float(np.clip(epoch - start, 0.0, rampup))
    phase = 1.0 - c / rampup
    return float(consistency) * math.exp(-5.0 * phase * phase)


def self_paced_count(n_unlabeled: int, epoch: int, *, ratio: float, ramp: int, top: float) -> int:
    """Pseudo-negatives (and as many pseudo-positives) a selection takes: ``int(n_unlabeled
    (1 - ratio) min(epoch / ramp, 1) top)``, at most ``n_unlabeled // 2``."""
    percent = min(epoch / ramp, 1.0)
    return min(int(n_unlabeled * (1.0 - ratio) * percent * top), n_unlabeled // 2)


def interleaved_order(p_rows: np.ndarray, u_rows: np.ndarray) -> np.ndarray:
    """The epoch's order of labeled rows ``p_rows`` and unlabeled rows ``u_rows`` (both
    already shuffled): with ``r = len(u) // len(p) + 1``, position ``k`` is ``p[k // r]``
    when ``k % r == 0`` and ``u[k - k // r - 1]`` otherwise, ``len(p) * r`` positions (the
    authors' ``__getitem__``); where ``len(u) < len(p)`` both lists one after the other (the
    caller shuffles them)."""
    n_p, n_u = len(p_rows), len(u_rows)
    if n_p == 0:
        return np.asarray(u_rows)
    if n_u < n_p:
        return np.concatenate([p_rows, u_rows])
    r = n_u // n_p + 1
    k = np.arange(n_p * r)
    is_p = k % r == 0
    out = np.empty(k.shape[0], dtype=np.int64)
    out[is_p] = p_rows[k[is_p] // r]
    ku = k[~is_p]
    out[~is_p] = u_rows[ku - ku // r - 1]
    return out


def calibration_weights(grad_eps: np.ndarray, labeled: np.ndarray, *, gamma: float, batch_size: int) -> np.ndarray:
    """The self-calibration weights ``(n, 2)`` from the gradient of the meta loss with
    respect to ``eps`` (``train_2s2t_mix.py``): ``w = max(-grad, 0)``, ``w_0 += 1e-10``; row
    by row, a labeled row gets ``(1, 0)``; an unlabeled one ``(1, 0)`` when the current
    ``sum(w_1)`` is at least ``gamma * batch_size``, else its two weights divided by their
    sum."""
    w = np.maximum(-np.asarray(grad_eps, dtype=np.float64), 0.0)
    w[:, 0] += 1e-10
    limit = gamma * batch_size
    total = float(w[:, 1].sum())  # sum(w_1), kept current as rows change (their loop re-sums)
    for j in range(w.shape[0]):
        old = w[j, 1]
        if labeled[j] or total >= limit:
            w[j, 0], w[j, 1] = 1.0, 0.0
        else:
            w[j] /= w[j].sum()
        total += w[j, 1] - old
    return w


def _weighted_pu_risks(torch, z, s, w, in_u, mult=None, *, prior, loss):
    """``(R_p, R_n)`` of nnPU with each row's losses multiplied by ``mult`` and the means
    normalised by the sample weights ``w`` alone (the authors' ``sigmoid_eps`` risks:
    ``mult`` scales the losses, the denominators stay the batch's P and U sizes)."""
    return pu_batch_risks(torch, z, s, w, in_u, prior=prior, pi_pos=prior, k=1.0, loss=loss, mult=mult)


def _entropy(torch, p):
    """Binary entropy ``-sum_c p_c log(p_c + 1e-10)`` per row (the authors' ``aux``)."""
    return -(p * torch.log(p + 1e-10) + (1.0 - p) * torch.log(1.0 - p + 1e-10))


def _wmean(v, w):
    return (w * v).sum() / w.sum()


class SelfPUClassifier(NeuralPUBase):
    """Self-PU: nnPU with self-paced selection, optional self-calibration and
    self-distillation between two students and their mean teachers; the module docstring
    gives every mechanism, default and its source in the authors' code.

    Registered as ``selfpu``.

    Parameters
    ----------
    prior : class prior pi: a number in (0, 1), a registered prior estimator's name or an
        estimator object (:func:`pu_lib.prior.resolve_prior`); required.
    scenario : ``"single_training_set"`` (default; U = all rows) or ``"case_control"``.
    loss, beta, gamma : the nnPU step's loss (``"sigmoid"``), threshold (0) and factor (1).
    self_paced : run the self-paced selection (True).
    self_paced_start, self_paced_stop, self_paced_frequency : selections after epochs
        ``start, start + frequency, ...`` below ``stop`` (10, 50, 10; epochs from 0).
    self_paced_ramp : epochs over which the selected share grows to its full size (100).
    self_paced_ratio : the ``ratio`` of the selection size (0.5).
    self_paced_top : the two students' ``top`` shares (0.4, 0.6).
    soft_label : entropy (True) or pseudo-label cross-entropy (False) on selected rows.
    mean_teacher : run the teachers, collaboration and consistency (True).
    ema_start, ema_decay : first teacher epoch (50) and the EMA's decay cap (0.999).
    consistency, consistency_start, consistency_rampup : the consistency weight's maximum
        (0.3), start (30) and ramp length (400) in epochs.
    collaboration : the collaboration term's gate ``alpha`` (0.1; 0 turns it off).
    self_calibration : re-weight the noisy batches in the self-paced epochs (False).
    calibration_gamma, calibration_lr : the re-weighting's budget (1/16) and inner SGD rate
        (0.001).
    final_network : the network ``predict`` uses: ``"teacher1"`` (default), ``"teacher2"``,
        ``"student1"`` or ``"student2"``.
    model, hidden_sizes, activation, batch_norm, dropout, init, input_shape : the network, as
        :class:`pu_lib.neural.NNPUClassifier` (defaults: the authors' MNIST MLP
        ``d-300-300-300-300-1`` with batch norm, ``init="kaiming"``).
    epochs, batch_size, learning_rate, weight_decay : Adam training (200, 256, 5e-4, 5e-3).
    early_stopping, validation_fraction, n_iter_no_change, keep_epoch_states, dtype, device,
    random_state, n_jobs : as :class:`pu_lib.neural.NNPUClassifier`; early stopping and
        staged predictions use the network ``final_network`` names at that epoch.

    Attributes
    ----------
    module_ : the fitted networks (``torch.nn.Module``; its forward is the returned network).
    final_network_ : the network returned (``"student1"`` where ``"teacher1"`` was asked and
        the teachers never ran). pseudo_labels_ : ``(2, n)`` int8, each student's last
        selection over the training rows (1 pseudo-positive, 0 pseudo-negative, -1 not
        selected; rows held out for early stopping -1).
    history_ : per-epoch ``"risk"`` / ``"risk_student2"`` (mean nnPU value of each student's
        noisy batches), ``"negative_risk"``, ``"corrected_steps"``, ``"steps"`` (optimizer
        steps of both students), ``"selected"`` / ``"selected_student2"`` (rows selected),
        ``"collaboration_steps"``, ``"calibrated_steps"``, ``"learning_rate"``.
    n_epochs_, best_epoch_, epoch_states_, device_, prior_, prior_estimator_, classes_,
    n_features_in_ : as :class:`pu_lib.neural.NNPUClassifier`.

    **predict_proba** (kind ``"score"``, docs/probabilities.md): ``sigmoid(g(x))`` of the returned
    network; the nnPU risk with the sigmoid loss, the pseudo-label entropy and the teachers'
    averaging make it a classifier's score, not an estimate of ``P(y = 1 | x)``
    (:class:`pu_lib.calibration.PUCalibratedClassifier` calibrates it).
    """

    _proba_kind = "score"
    _purpose = "Self-PU with PyTorch"

    _parameter_constraints: dict = {
        "prior": PRIOR_CONSTRAINT,
        "scenario": SCENARIO_CONSTRAINT,
        "loss": [StrOptions(set(LOSSES))],
        "beta": [Interval(Real, 0.0, None, closed="left")],
        "gamma": [Interval(Real, 0.0, 1.0, closed="both")],
        "self_paced": ["boolean"],
        "self_paced_start": [Interval(Integral, 0, None, closed="left")],
        "self_paced_stop": [Interval(Integral, 0, None, closed="left")],
        "self_paced_frequency": [Interval(Integral, 1, None, closed="left")],
        "self_paced_ramp": [Interval(Integral, 1, None, closed="left")],
        "self_paced_ratio": [Interval(Real, 0.0, 1.0, closed="left")],
        "self_paced_top": ["array-like"],
        "soft_label": ["boolean"],
        "mean_teacher": ["boolean"],
        "ema_start": [Interval(Integral, 0, None, closed="left")],
        "ema_decay": [Interval(Real, 0.0, 1.0, closed="both")],
        "consistency": [Interval(Real, 0.0, None, closed="left")],
        "consistency_start": [Interval(Integral, 0, None, closed="left")],
        "consistency_rampup": [Interval(Integral, 0, None, closed="left")],
        "collaboration": [Interval(Real, 0.0, None, closed="left")],
        "self_calibration": ["boolean"],
        "calibration_gamma": [Interval(Real, 0.0, None, closed="left")],
        "calibration_lr": [Interval(Real, 0.0, None, closed="neither")],
        "final_network": [StrOptions(set(FINAL_NETWORKS))],
        **NeuralPUBase._common_constraints,
    }

    def __init__(self, *, prior=None, scenario="single_training_set", loss="sigmoid", beta=0.0, gamma=1.0,
                 self_paced=True, self_paced_start=10, self_paced_stop=50, self_paced_frequency=10,
                 self_paced_ramp=100, self_paced_ratio=0.5, self_paced_top=(0.4, 0.6), soft_label=True,
                 mean_teacher=True, ema_start=50, ema_decay=0.999, consistency=0.3, consistency_start=30,
                 consistency_rampup=400, collaboration=0.1, self_calibration=False, calibration_gamma=0.0625,
                 calibration_lr=1e-3, final_network="teacher1", model="mlp", hidden_sizes=(300, 300, 300, 300),
                 activation="relu", batch_norm=True, dropout=0.0, init="kaiming", input_shape=None, epochs=200,
                 batch_size=256, learning_rate=5e-4, weight_decay=5e-3, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=10, keep_epoch_states=False, dtype="float32",
                 device="cpu", random_state=None, n_jobs=None):
        self.prior = prior
        self.scenario = scenario
        self.loss = loss
        self.beta = beta
        self.gamma = gamma
        self.self_paced = self_paced
        self.self_paced_start = self_paced_start
        self.self_paced_stop = self_paced_stop
        self.self_paced_frequency = self_paced_frequency
        self.self_paced_ramp = self_paced_ramp
        self.self_paced_ratio = self_paced_ratio
        self.self_paced_top = self_paced_top
        self.soft_label = soft_label
        self.mean_teacher = mean_teacher
        self.ema_start = ema_start
        self.ema_decay = ema_decay
        self.consistency = consistency
        self.consistency_start = consistency_start
        self.consistency_rampup = consistency_rampup
        self.collaboration = collaboration
        self.self_calibration = self_calibration
        self.calibration_gamma = calibration_gamma
        self.calibration_lr = calibration_lr
        self.final_network = final_network
        self.model = model
        self.hidden_sizes = hidden_sizes
        self.activation = activation
        self.batch_norm = batch_norm
        self.dropout = dropout
        self.init = init
        self.input_shape = input_shape
        self.epochs = epochs
        self.batch_size = batch_size
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
        top = np.asarray(self.self_paced_top, dtype=float)
        if top.shape != (2,) or not np.all((top > 0) & (top <= 1)):
            raise ValueError(f"self_paced_top must be two shares in (0, 1], one per student; got "
                             f"{self.self_paced_top!r}")
        return self._fit(X, s, sample_weight)

    # ------------------------------------------------------------------ fit hooks
    def _build(self, torch, n_features):
        nets = [super(SelfPUClassifier, self)._build(torch, n_features) for _ in range(4)]
        return _networks_class(torch)(nets)

    def _prepare(self, X, s, w, seed):
        prior, prior_est = resolve_prior(self.prior, X, s, self.scenario,
                                         random_state=derive_seed(seed, "prior_estimator"), n_jobs=self.n_jobs,
                                         sample_weight=w)
        self.prior_ = float(prior)
        self.prior_estimator_ = prior_est
        # the fit's mutable state: selections, teacher updates
        return {"prior": self.prior_, "fit": {"switched": False, "ema_steps": 0, "selected": [None, None],
                                              "rng": np.random.default_rng(derive_seed(seed, "selfpu"))}}

    def _tensors(self, torch, X, s, w, device, dtype):
        T = super()._tensors(torch, X, s, w, device, dtype)
        T["in_u"] = torch.ones_like(T["s"]) if self.scenario == SCENARIOS[0] else ~T["s"]
        T["s_np"] = np.asarray(s, dtype=bool)
        return T

    def _schedule(self, torch, module, optimizer, epoch):
        lr = float(self.learning_rate) * (1.0 + math.cos(math.pi * (epoch + 1) / int(self.epochs))) / 2.0
        for group in optimizer.param_groups:
            group["lr"] = lr
        return optimizer

    def _teachers_on(self, epoch: int) -> bool:
        return bool(self.mean_teacher) and epoch >= int(self.ema_start)

    def _selection_epoch(self, epoch: int) -> bool:
        return (bool(self.self_paced) and int(self.self_paced_start) <= epoch < int(self.self_paced_stop)
                and (epoch - int(self.self_paced_start)) % int(self.self_paced_frequency) == 0)

    def _current_index(self, fit) -> int:
        name = self.final_network
        if name.startswith("teacher") and not fit["switched"]:
            name = "student" + name[-1]
        return _NET_INDEX[name]

    def _ema_update(self, torch, nets, fit):
        a = min(1.0 - 1.0 / (fit["ema_steps"] + 1), float(self.ema_decay))
        with torch.no_grad():
            for student, teacher in ((nets[0], nets[2]), (nets[1], nets[3])):
                for pt, ps in zip(teacher.parameters(), student.parameters()):
                    pt.mul_(a).add_(ps, alpha=1.0 - a)
        fit["ema_steps"] += 1

    def _train_epoch(self, torch, module, optimizer, T, batches, epoch, consts):
        fit = consts["fit"]
        nets = module.nets
        teachers_on = self._teachers_on(epoch)
        if teachers_on and not fit["switched"]:
            nets[2].load_state_dict(nets[0].state_dict())
            nets[3].load_state_dict(nets[1].state_dict())
            fit["switched"] = True
        cw = consistency_weight(epoch, float(self.consistency), int(self.consistency_start),
                                int(self.consistency_rampup)) if teachers_on else 0.0
        rng = fit["rng"]
        X, s, w, in_u = T["X"], T["s"], T["w"], T["in_u"]
        dev = s.device
        steps = 0

        def step(loss):
            nonlocal steps
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            steps += 1

        def probs(net, idx, grad=True):
            if grad:
                return torch.sigmoid(scores(net, X[idx]))
            with torch.no_grad():
                return torch.sigmoid(scores(net, X[idx]))

        # ---- selected ("clean") rows
        any_clean = False
        for k in (0, 1):
            sel = fit["selected"][k]
            if sel is None:
                continue
            rows, pseudo = sel
            any_clean = True
            order = rng.permutation(rows.shape[0])
            for a, b in batch_bounds(rows.shape[0], int(self.batch_size)):
                pick = order[a:b]
                idx = torch.as_tensor(rows[pick], device=dev)
                p = probs(nets[k], idx)
                wb = w[idx]
                if self.soft_label:
                    loss = _wmean(_entropy(torch, p), wb)
                else:
                    y = torch.as_tensor(pseudo[pick], device=dev, dtype=p.dtype)
                    ce = -(y * torch.log(p + 1e-10) + (1.0 - y) * torch.log(1.0 - p + 1e-10))
                    loss = _wmean(ce, wb)
                if teachers_on:
                    pt = probs(nets[k + 2], idx, grad=False)
                    loss = loss + cw * _wmean((p - pt) ** 2, wb)
                step(loss)
        if teachers_on and any_clean:
            self._ema_update(torch, nets, fit)

        # ---- remaining ("noisy") rows: the nnPU step (+ collaboration, consistency, calibration)
        calibrate = bool(self.self_calibration) and bool(self.self_paced) and \
            int(self.self_paced_start) <= epoch < int(self.self_paced_stop)
        s_np = T["s_np"]
        p_rows_all = np.flatnonzero(s_np)
        out = {"risk": [], "risk_student2": [], "negative_risk": [], "corrected_steps": 0,
               "collaboration_steps": 0, "calibrated_steps": 0}
        prior = consts["prior"]
        for k in (0, 1):
            sel = fit["selected"][k]
            u_rows = np.flatnonzero(~s_np)
            if sel is not None:
                u_rows = np.setdiff1d(u_rows, sel[0], assume_unique=True)
            p_perm = rng.permutation(p_rows_all)
            u_perm = rng.permutation(u_rows)
            order = interleaved_order(p_perm, u_perm)
            if u_perm.shape[0] < p_perm.shape[0]:
                order = rng.permutation(order)
            for a, b in batch_bounds(order.shape[0], int(self.batch_size)):
                idx = torch.as_tensor(order[a:b], device=dev)
                sb, wb, ub = s[idx], w[idx], in_u[idx]
                mult = None
                if calibrate:
                    mult = self._calibration(torch, nets[k], X, idx, sb, wb, ub, prior, batches.generator)
                    out["calibrated_steps"] += 1
                z = scores(nets[k], X[idx])
                positive, negative = _weighted_pu_risks(torch, z, sb, wb, ub, None if mult is None else mult[:, 0],
                                                        prior=prior, loss=self.loss)
                objective, value, corrected = nnpu_objective(positive, negative, risk="nnpu", beta=float(self.beta),
                                                             gamma=float(self.gamma))
                p = torch.sigmoid(z)
                if teachers_on:
                    if float(self.collaboration) > 0:
                        p_other = probs(nets[1 - k], idx, grad=False)
                        aux = _wmean((p - p_other) ** 2, wb)
                        if float(aux.detach()) < float(objective.detach()) * float(self.collaboration):
                            objective = objective + aux
                            out["collaboration_steps"] += 1
                    pt = probs(nets[k + 2], idx, grad=False)
                    objective = objective + cw * _wmean((p - pt) ** 2, wb)
                if mult is not None:  # after the collaboration gate, as train_with_meta adds it
                    objective = objective + (_entropy(torch, p) * mult[:, 1]).mean()
                step(objective)
                out["risk" if k == 0 else "risk_student2"].append(float(value.detach()))
                if k == 0:
                    out["negative_risk"].append(float(negative.detach()))
                out["corrected_steps"] += int(corrected)
        if teachers_on:
            self._ema_update(torch, nets, fit)

        # ---- self-paced selection at the end of the epoch
        if self._selection_epoch(epoch):
            self._select(torch, nets, X, s_np, epoch, teachers_on, fit)
        module.final.fill_(self._current_index(fit))
        sel = fit["selected"]
        return {"risk": float(np.mean(out["risk"])) if out["risk"] else float("nan"),
                "risk_student2": float(np.mean(out["risk_student2"])) if out["risk_student2"] else float("nan"),
                "negative_risk": float(np.mean(out["negative_risk"])) if out["negative_risk"] else float("nan"),
                "corrected_steps": out["corrected_steps"], "steps": steps,
                "selected": 0 if sel[0] is None else int(sel[0][0].shape[0]),
                "selected_student2": 0 if sel[1] is None else int(sel[1][0].shape[0]),
                "collaboration_steps": out["collaboration_steps"], "calibrated_steps": out["calibrated_steps"],
                "learning_rate": float(optimizer.param_groups[0]["lr"])}

    def _select(self, torch, nets, X, s_np, epoch, teachers_on, fit):
        """Each student's pseudo-labeled rows (module docstring, "Self-paced selection")."""
        unlabeled = np.flatnonzero(~s_np)
        tops = np.asarray(self.self_paced_top, dtype=float)
        for k in (0, 1):
            net = nets[k + 2] if teachers_on else nets[k]
            was_training = net.training
            net.eval()
            with torch.no_grad():
                prob = torch.sigmoid(scores(net, X)).cpu().numpy()
            net.train(was_training)
            n = self_paced_count(unlabeled.shape[0], epoch, ratio=float(self.self_paced_ratio),
                                 ramp=int(self.self_paced_ramp), top=float(tops[k]))
            if n == 0:
                fit["selected"][k] = None
                continue
            ranked = unlabeled[np.argsort(prob[unlabeled], kind="stable")]
            neg, pos = ranked[:n], ranked[-n:]
            rows = np.concatenate([pos, neg])
            pseudo = np.concatenate([np.ones(n, dtype=np.int8), np.zeros(n, dtype=np.int8)])
            fit["selected"][k] = (rows, pseudo)

    def _calibration(self, torch, net, X, idx, sb, wb, ub, prior, generator):
        """The self-calibration weights of one noisy batch (module docstring), ``(n, 2)``."""
        from torch.func import functional_call

        params = dict(net.named_parameters())
        buffers = {name: b.clone() for name, b in net.named_buffers()}
        Xb = X[idx]
        z = functional_call(net, (params, buffers), (Xb,)).reshape(-1)
        p = torch.sigmoid(z)
        neg_entropy = -_entropy(torch, p)
        eps = torch.zeros((Xb.shape[0], 2), dtype=z.dtype, device=z.device, requires_grad=True)
        positive, negative = _weighted_pu_risks(torch, z, sb, wb, ub, eps[:, 0], prior=prior, loss=self.loss)
        cost, _, _ = nnpu_objective(positive, negative, risk="nnpu", beta=float(self.beta), gamma=float(self.gamma))
        inner = (neg_entropy * eps[:, 1]).mean() + cost
        names = list(params)
        grads = torch.autograd.grad(inner, [params[n] for n in names], create_graph=True, allow_unused=True)
        lr = float(self.calibration_lr)
        stepped = {n: params[n] if g is None else params[n] - lr * g for n, g in zip(names, grads)}
        n_rows = X.shape[0]
        meta = torch.randint(0, n_rows, (min(int(self.batch_size), n_rows),), generator=generator).to(idx.device)
        buffers2 = {name: b.clone() for name, b in net.named_buffers()}
        zm = functional_call(net, (stepped, buffers2), (X[meta],)).reshape(-1)
        outer = 2.0 * _entropy(torch, torch.sigmoid(zm)).mean()
        grad_eps = torch.autograd.grad(outer, eps)[0]
        w = calibration_weights(grad_eps.detach().cpu().numpy(), sb.cpu().numpy(),
                                gamma=float(self.calibration_gamma), batch_size=int(self.batch_size))
        return torch.as_tensor(w, dtype=z.dtype, device=z.device)

    def _validation_risk(self, torch, module, T, consts):
        z = scores(module, T["X"])
        positive, negative = _weighted_pu_risks(torch, z, T["s"], T["w"], T["in_u"], prior=consts["prior"],
                                                loss=self.loss)
        return float(positive + torch.clamp(negative, min=0.0))

    def _after_fit(self, torch, module, T, consts):
        fit = consts["fit"]
        index = self._current_index(fit)
        module.final.fill_(index)
        self.final_network_ = {v: k for k, v in _NET_INDEX.items()}[index]
        n = T["s_np"].shape[0]
        labels = -np.ones((2, n), dtype=np.int8)
        for k, sel in enumerate(fit["selected"]):
            if sel is not None:
                labels[k, sel[0]] = sel[1]
        self.pseudo_labels_ = labels

    def _proba_from_decision(self, d):
        return 1.0 / (1.0 + np.exp(-np.clip(d, -700.0, 700.0)))


_NETWORKS_CLASS = {}


def _networks_class(torch):
    """The container of Self-PU's four networks (defined once torch is imported): students
    1, 2 and teachers 1, 2 in ``nets``, the returned one's index in the buffer ``final``
    (saved with the state dict), ``forward`` that network's."""
    cls = _NETWORKS_CLASS.get("cls")
    if cls is None:
        class SelfPUNetworks(torch.nn.Module):
            def __init__(self, nets):
                super().__init__()
                self.nets = torch.nn.ModuleList(nets)
                self.register_buffer("final", torch.zeros((), dtype=torch.long))

            def forward(self, x):
                return self.nets[int(self.final)](x)

        cls = _NETWORKS_CLASS["cls"] = SelfPUNetworks
    return cls
