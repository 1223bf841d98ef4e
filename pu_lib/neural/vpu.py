r"""VPU: variational PU learning (Chen, Liu, Wang, Wang, Ma, Luo, Li & Chen, NeurIPS 2020,
"A variational approach for learning from positive and unlabeled data"):
:class:`VPUClassifier`. No class prior is needed.

A network ``g`` gives ``log phi(x) = log sigmoid(g(x))``, ``phi`` approximating
``Pr(y = 1 | x)`` up to scale. With X the sample from the marginal (all rows in the
single-training-set scenario, the ``s = 0`` rows in the case-control scenario) and P the
labeled rows, each mini-batch step minimises

    L = log E_X[phi(x)] - E_P[log phi(x)]  +  mix_weight * E_X[(log mu~ - log phi(x~))^2]

(the variational upper bound of the KL divergence, paper eq. 5, plus the MixUp
consistency term, eq. 7), with weighted means (``sample_weight``), ``E_X[phi]`` computed
as ``logsumexp(log phi + log w) - log sum w``, and MixUp pairs ``x~ = lam x + (1 - lam) p``,
``mu~ = lam phi(x) + (1 - lam) * 1`` for every X row of the batch and a labeled row of the
P batch taken in random order (``lam ~ Beta(mix_alpha, mix_alpha)``, one draw per batch).
As in the reference code, ``phi(x)`` inside ``mu~`` is not detached.

Facts from the reference code (HC-Feynman/vpu, ``vpu.py`` and ``run.py``, read for this
module; no code taken): the variational term
``torch.logsumexp(log_phi_x) - log(len) - mean(log_phi_p)``; the regulariser
``((log(target) - log_phi(mix)) ** 2).mean()`` with ``target = lam * phi_x + (1 - lam)``;
the network's output is a two-class log-softmax whose column 1 is ``log phi`` (here a
single score ``g`` with ``log phi = log sigmoid(g)``, the same family); prediction divides
``phi`` by its maximum over the training sample X and thresholds at 1/2
(``log_phi - log_max_phi > log(0.5)``); model selection by the variational loss on held-out
PU data (here ``early_stopping``). Defaults from ``run.py``: ``learning_rate=3e-5``
(``--learning-rate``), ``batch_size=500`` (``--batch-size``, for the X and the P batches),
``epochs=50`` (``--epochs``), ``mix_alpha=0.3`` (``--mix-alpha``), ``mix_weight=0.03``
(``--lam``); Adam betas (0.5, 0.99), no weight decay, and the learning rate halved with a
fresh Adam every 20 epochs (``if epoch % 20 == 19``; ``lr_halving_epochs``) from
``vpu.py``; the network for vector data (``model_vec.py``: ``d-300-300-300-300-300-300-2``,
ReLU, no batch norm) is ``hidden_sizes=(300,) * 6``, with PyTorch's default initialisation
(``init="pytorch"``). One difference: the reference's epoch
is 30 iterations (``--val-iterations``); here an epoch is one pass over X in batches of
``batch_size`` (P batches cycle through a fresh permutation of P).

**Scores.** ``decision_function`` is ``log phi(x) - max_X log phi - log(1/2)`` (the max
over the training sample X, ``log_max_phi_``), ``predict_proba`` is
``min(1, phi(x) / max_X phi)`` and ``predict`` is 1 where the decision function is >= 0.

**Sample weights** weight the means above; integer weights are not the same as repeated
rows, because MixUp pairs rows at random and repeated rows change the draws (declared
as an expected failure of the PU weight check).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval

from pu_lib._validation import SCENARIOS
from pu_lib.base import SCENARIO_CONSTRAINT
from pu_lib.neural._models import scores
from pu_lib.neural._training import NeuralPUBase, batch_bounds

__all__ = ["VPUClassifier", "vpu_variational_loss"]

_LOG_HALF = math.log(0.5)


def vpu_variational_loss(torch, log_phi_x, w_x, log_phi_p, w_p):
    """``log E_X[phi] - E_P[log phi]`` with weights (0-d tensor)."""
    log_mean_x = torch.logsumexp(log_phi_x + torch.log(w_x), dim=0) - torch.log(w_x.sum())
    return log_mean_x - (w_p * log_phi_p).sum() / w_p.sum()


class VPUClassifier(NeuralPUBase):
    """VPU (variational PU learning with MixUp consistency), prior-free; the module
    docstring gives the loss, the scores and every default's source.

    Registered as ``vpu``.

    Parameters
    ----------
    scenario : ``"single_training_set"`` (default; X = all rows) or ``"case_control"``
        (X = the ``s = 0`` rows).
    mix_alpha : Beta(alpha, alpha) parameter of the MixUp coefficient (0.3).
    mix_weight : weight of the MixUp regulariser, the paper's lambda (0.03).
    lr_halving_epochs : halve the learning rate (fresh Adam) every this many epochs (20);
        None keeps it constant.
    model, hidden_sizes, activation, batch_norm, dropout : the network (``"mlp"``,
        ``(300,) * 6``, ``"relu"``, False, 0; ``model="cnn13"`` is the nnPU reference's CIFAR-10
        CNN; :mod:`pu_lib.neural._models`).
    input_shape : ``"cnn13"``'s ``(C, H, W)``, as :class:`pu_lib.neural.NNPUClassifier`.
    init : ``"pytorch"`` (default: PyTorch's initialisation, the VPU reference's, which is
        PyTorch code) or ``"chainer"`` (LeCun-normal weights, zero biases, batch norm eps
        2e-5, the nnPU reference's; :mod:`pu_lib.neural._models`).
    epochs, batch_size, learning_rate, weight_decay : Adam training (50, 500, 3e-5, 0).
    early_stopping, validation_fraction, n_iter_no_change, keep_epoch_states, dtype,
    device, random_state, n_jobs : as :class:`pu_lib.neural.NNPUClassifier`.

    Attributes
    ----------
    module_, device_, n_epochs_, best_epoch_, epoch_states_, classes_, n_features_in_ :
        as :class:`pu_lib.neural.NNPUClassifier`.
    history_ : per-epoch ``"risk"`` (mean batch loss), ``"variational_loss"``,
        ``"mix_loss"`` (and ``"validation_risk"``, the variational loss on held-out rows).
    log_max_phi_ : ``max log phi`` over the training sample X (the score's scale).

    **predict_proba** (kind ``"posterior"``, docs/probabilities.md): ``min(1, phi(x) / max_X phi)``,
    Chen et al.'s estimate of ``P(y = 1 | x)`` (exact when some rows are certainly positive).
    """

    #: what column 1 of predict_proba is (pu_lib.calibration.PROBA_KINDS; docs/probabilities.md)
    _proba_kind = "posterior"

    _purpose = "VPU with PyTorch"
    _adam_betas = (0.5, 0.99)

    _parameter_constraints: dict = {
        "scenario": SCENARIO_CONSTRAINT,
        "mix_alpha": [Interval(Real, 0.0, None, closed="neither")],
        "mix_weight": [Interval(Real, 0.0, None, closed="left")],
        "lr_halving_epochs": [None, Interval(Integral, 1, None, closed="left")],
        **NeuralPUBase._common_constraints,
    }

    def __init__(self, *, scenario="single_training_set", mix_alpha=0.3, mix_weight=0.03, lr_halving_epochs=20,
                 model="mlp", hidden_sizes=(300, 300, 300, 300, 300, 300), activation="relu", batch_norm=False,
                 dropout=0.0, init="pytorch", input_shape=None, epochs=50, batch_size=500, learning_rate=3e-5,
                 weight_decay=0.0, early_stopping=False, validation_fraction=0.1, n_iter_no_change=10,
                 keep_epoch_states=False, dtype="float32", device="cpu", random_state=None, n_jobs=None):
        self.scenario = scenario
        self.mix_alpha = mix_alpha
        self.mix_weight = mix_weight
        self.lr_halving_epochs = lr_halving_epochs
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

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, s, sample_weight=None):
        """Fit on features ``X`` and labels ``s`` (1 = labeled positive, 0 = unlabeled),
        with optional non-negative ``sample_weight`` (rows of weight 0 are dropped)."""
        return self._fit(X, s, sample_weight)

    def _tensors(self, torch, X, s, w, device, dtype):
        T = super()._tensors(torch, X, s, w, device, dtype)
        in_x = torch.ones_like(T["s"]) if self.scenario == SCENARIOS[0] else ~T["s"]
        T["x_rows"] = torch.nonzero(in_x).flatten()
        T["p_rows"] = torch.nonzero(T["s"]).flatten()
        return T

    def _schedule(self, torch, module, optimizer, epoch):
        h = self.lr_halving_epochs
        if h is not None and epoch % h == h - 1:
            lr = optimizer.param_groups[0]["lr"] / 2.0
            return self._optimizer(torch, module, lr)
        return optimizer

    def _log_phi(self, torch, module, X):
        return torch.nn.functional.logsigmoid(scores(module, X))

    def _train_epoch(self, torch, module, optimizer, T, batches, epoch, consts):
        generator = batches.generator  # VPU draws its own X and P batches (module docstring)
        X, w = T["X"], T["w"]
        x_rows, p_rows = T["x_rows"], T["p_rows"]
        dev = X.device
        x_order = x_rows[torch.randperm(x_rows.shape[0], generator=generator).to(dev)]
        p_order = p_rows[torch.randperm(p_rows.shape[0], generator=generator).to(dev)]
        p_pos = 0
        beta = torch.distributions.Beta(torch.tensor(float(self.mix_alpha)), torch.tensor(float(self.mix_alpha)))
        losses, var_losses, mix_losses = [], [], []
        B = self.batch_size
        for start, stop in batch_bounds(x_order.shape[0], B):
            xi = x_order[start:stop]
            nb = min(B, p_order.shape[0])
            if p_pos + nb > p_order.shape[0]:
                p_order = p_rows[torch.randperm(p_rows.shape[0], generator=generator).to(dev)]
                p_pos = 0
            pi = p_order[p_pos:p_pos + nb]
            p_pos += nb
            both = torch.cat([pi, xi])
            log_phi = self._log_phi(torch, module, X[both])
            log_phi_p, log_phi_x = log_phi[:nb], log_phi[nb:]
            var = vpu_variational_loss(torch, log_phi_x, w[xi], log_phi_p, w[pi])
            # MixUp: every X row of the batch with a labeled row of the batch, in random order
            order = torch.randperm(nb, generator=generator).to(dev)
            partner = pi[order[torch.arange(xi.shape[0], device=dev) % nb]]
            lam = beta.sample().to(device=dev, dtype=X.dtype)
            mixed = lam * X[xi] + (1.0 - lam) * X[partner]
            target = lam * log_phi_x.exp() + (1.0 - lam)
            mix = (w[xi] * (torch.log(target) - self._log_phi(torch, module, mixed)) ** 2).sum() / w[xi].sum()
            loss = var + float(self.mix_weight) * mix
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(float(loss.detach()))
            var_losses.append(float(var.detach()))
            mix_losses.append(float(mix.detach()))
        return {"risk": float(np.mean(losses)), "variational_loss": float(np.mean(var_losses)),
                "mix_loss": float(np.mean(mix_losses))}

    def _validation_risk(self, torch, module, T, consts):
        log_phi = self._log_phi(torch, module, T["X"])
        xi, pi = T["x_rows"], T["p_rows"]
        return float(vpu_variational_loss(torch, log_phi[xi], T["w"][xi], log_phi[pi], T["w"][pi]))

    def _log_max_phi(self, torch, module, T):
        return float(self._log_phi(torch, module, T["X"][T["x_rows"]]).max())

    def _after_fit(self, torch, module, T, consts):
        self.log_max_phi_ = self._log_max_phi(torch, module, T)

    def _epoch_extra(self, torch, module, T, consts):
        return {"log_max_phi": self._log_max_phi(torch, module, T)}

    def _final_extra(self):
        return {"log_max_phi": self.log_max_phi_}

    def _decision_from_scores(self, g, extra):
        log_phi = -np.logaddexp(0.0, -g)
        return log_phi - extra["log_max_phi"] - _LOG_HALF

    def _proba_from_decision(self, d):
        return np.minimum(1.0, np.exp(np.minimum(d + _LOG_HALF, 0.0)))
