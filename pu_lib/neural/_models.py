"""The networks of the neural PU family: ``model="linear"``, ``model="mlp"`` or a callable.

Every model maps a ``(batch, d)`` float tensor to one real score per row, ``g(x)``
(shape ``(batch,)`` or ``(batch, 1)``; :func:`scores` flattens it).

* ``"linear"``: ``g(x) = w . x + b`` (Kiryo et al.'s ``LinearClassifier``; the Ada-PU
  paper's nnPU-Linear).
* ``"mlp"``: ``d - h_1 - ... - h_k - 1`` with ``hidden_sizes = (h_1, ..., h_k)``, each hidden
  layer ``Linear -> [BatchNorm1d] -> activation -> [Dropout]``; with ``batch_norm`` the
  hidden ``Linear`` layers have no bias (the batch norm's shift replaces it), as in the
  nnPU reference's ``MultiLayerPerceptron`` (kiryor/nnPUlearning, ``model.py``:
  ``d-300-300-300-300-1``, ``L.Linear(..., nobias=True)`` then ``BatchNormalization``
  then ReLU). ``activation`` is ``"relu"`` or ``"softsign"`` (the PU Extra Trees paper's
  20News / epsilon networks).
* a callable ``model(n_features) -> torch.nn.Module``: any network (it must be picklable,
  e.g. a module-level function or class, for the fitted estimator to pickle; the network
  is rebuilt from it and its state dict when unpickled).

**Initialisation** (``init``, for ``"linear"`` and ``"mlp"``; a callable's module keeps
whatever it builds):

* ``"chainer"``: Chainer's defaults, which the nnPU reference (Chainer) trains from:
  ``chainer.links.Linear`` with ``initialW=None`` takes ``initializers.LeCunNormal()``
  (``chainer/initializers/__init__.py``, ``_get_initializer``), i.e. weights drawn from
  N(0, 1 / fan_in) (std ``sqrt(1 / fan_in)``, ``fan_in`` the layer's inputs; the
  ``Linear`` docstring: "zero mean and deviation sqrt(1/in_size)"), and ``initial_bias=None``
  gives zero biases; ``chainer.links.BatchNormalization(size)`` has ``decay=0.9, eps=2e-5``
  (``chainer/links/normalization/batch_normalization.py``), scale 1, shift 0, running mean
  0 and running variance 1 (Chainer >= 5; earlier versions started the running variance at
  0, which only changes eval-mode outputs in the first steps and is not emulated). Here:
  ``torch.nn.init.normal_(weight, 0, sqrt(1 / fan_in))``, ``zeros_(bias)`` and
  ``BatchNorm1d(h, eps=2e-5, momentum=0.1)`` (PyTorch's momentum is Chainer's ``1 - decay``;
  both update the running variance with the unbiased batch variance). The draws come from
  torch's generator, so the distribution is Chainer's, not its numbers.
* ``"pytorch"``: PyTorch's own defaults: ``nn.Linear`` weights and biases uniform on
  ``(-1/sqrt(fan_in), 1/sqrt(fan_in))`` (weight std ``1 / sqrt(3 fan_in)``, a random bias),
  ``BatchNorm1d`` with ``eps=1e-5, momentum=0.1``. The VPU reference (HC-Feynman/vpu) is
  PyTorch code with these defaults.

On MNIST with the nnPU reference's network the two differ in the first epochs
(docs/neural.md, "Initialisation").

torch is imported by the caller (through :func:`pu_lib._optional.require`) and passed in.
"""

from __future__ import annotations

import math

MODELS = ("linear", "mlp")
ACTIVATIONS = ("relu", "softsign")
#: initialisations of the built-in networks (module docstring)
INITS = ("chainer", "pytorch")
#: Chainer's BatchNormalization defaults: eps, and decay 0.9 as PyTorch's momentum 1 - 0.9
CHAINER_BN_EPS = 2e-5
CHAINER_BN_MOMENTUM = 0.1


def _linear(torch, fan_in: int, out: int, bias: bool, init: str):
    layer = torch.nn.Linear(fan_in, out, bias=bias)
    if init == "chainer":
        with torch.no_grad():
            torch.nn.init.normal_(layer.weight, mean=0.0, std=math.sqrt(1.0 / fan_in))
            if layer.bias is not None:
                torch.nn.init.zeros_(layer.bias)
    return layer


def _batch_norm(torch, size: int, init: str):
    if init == "chainer":
        return torch.nn.BatchNorm1d(size, eps=CHAINER_BN_EPS, momentum=CHAINER_BN_MOMENTUM)
    return torch.nn.BatchNorm1d(size)


def build_model(torch, spec, n_features: int, *, hidden_sizes=(100,), activation="relu", batch_norm=False,
                dropout=0.0, init="pytorch"):
    """The ``torch.nn.Module`` for ``spec`` (``"linear"``, ``"mlp"`` or a callable) on
    ``n_features`` inputs, the built-in ones initialised by ``init`` (``"chainer"`` or
    ``"pytorch"``; module docstring); a callable's result must be a ``torch.nn.Module``
    (``TypeError`` otherwise)."""
    nn = torch.nn
    if callable(spec) and not isinstance(spec, str):
        module = spec(int(n_features))
        if not isinstance(module, nn.Module):
            raise TypeError(f"model={spec!r} returned {type(module).__name__}; it must return a torch.nn.Module "
                            "mapping (batch, n_features) to one score per row")
        return module
    if init not in INITS:
        raise ValueError(f"init must be one of {INITS}, got {init!r}")
    if spec == "linear":
        return nn.Sequential(_linear(torch, int(n_features), 1, True, init))
    if spec != "mlp":
        raise ValueError(f"model must be one of {MODELS} or a callable returning a torch.nn.Module, got {spec!r}")
    act = {"relu": nn.ReLU, "softsign": nn.Softsign}[activation]
    layers = []
    width = int(n_features)
    for h in hidden_sizes:
        layers.append(_linear(torch, width, int(h), not batch_norm, init))
        if batch_norm:
            layers.append(_batch_norm(torch, int(h), init))
        layers.append(act())
        if dropout > 0:
            layers.append(nn.Dropout(float(dropout)))
        width = int(h)
    layers.append(_linear(torch, width, 1, True, init))
    return nn.Sequential(*layers)


def scores(module, X):
    """``module(X)`` as one score per row, shape ``(batch,)``; ``ValueError`` for any
    other output shape. ``X`` may be the sparse training rows
    (:class:`pu_lib.neural._training.SparseRows`), scored in chunks of dense rows."""
    map_chunks = getattr(X, "map_chunks", None)
    if map_chunks is not None:
        return map_chunks(lambda chunk: scores(module, chunk))
    out = module(X)
    if out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    if out.ndim != 1 or out.shape[0] != X.shape[0]:
        raise ValueError(f"the model must give one score per row, shape ({X.shape[0]},) or ({X.shape[0]}, 1); "
                         f"got {tuple(out.shape)}")
    return out
