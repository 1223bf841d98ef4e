"""The networks of the neural PU family: ``model="linear"``, ``"mlp"``, ``"cnn13"`` or a callable.

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
* ``"cnn13"``: the 13-layer CNN of the nnPU reference's CIFAR-10 experiment (kiryor/nnPUlearning
  ``model.py``, class ``CNN``, read at commit 3d9769e60dd275e8e4dcf91e1853f3b76c69f39f), the PU
  Extra Trees paper's (Section 5) ``(32*32*3,1)-[C(3*3,96,1)]*2-C(3*3,96,2)-[C(3*3,192,1)]*2-
  C(3*3,192,2)-C(3*3,192,1)-C(1*1,192,1)-C(1*1,10,1)-1000-1000-1``: nine convolutions
  (:data:`CNN13_CONVS`: kernel, channels, stride; the 3x3 ones with padding 1, the 1x1 ones
  without, all with a bias, as Chainer's ``Convolution2D`` default), each followed by batch
  norm (``b1`` .. ``b9``, the last on the 10 channels) and ReLU, then the flattened maps into
  ``Linear -> ReLU -> Linear -> ReLU -> Linear`` (``fc1`` 1000, ``fc2`` 1000, ``fc3`` 1; with
  biases, no batch norm, no dropout). Rows are flat images: ``input_shape = (C, H, W)``
  (default (3, 32, 32)) and each row is ``C * H * W`` values channel-first (the CIFAR-10
  python archive's layout: the red, green and blue planes, each row-major), so
  ``X4.reshape(len(X4), -1)`` of a ``(n, C, H, W)`` array; the network's first layer
  unflattens them. Any ``H, W >= 1`` work (the two stride-2 convolutions give
  ``ceil(H / 4) x ceil(W / 4)`` maps, ``10 * ceil(H / 4) * ceil(W / 4)`` inputs to ``fc1``).
  ``hidden_sizes``, ``activation``, ``batch_norm`` and ``dropout`` do not apply to it.
* a callable ``model(n_features) -> torch.nn.Module``: any network (it must be picklable,
  e.g. a module-level function or class, for the fitted estimator to pickle; the network
  is rebuilt from it and its state dict when unpickled).

**Initialisation** (``init``, for ``"linear"``, ``"mlp"`` and ``"cnn13"``; a callable's module
keeps whatever it builds):

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
  both update the running variance with the unbiased batch variance). Convolutions likewise
  (``chainer.links.Convolution2D``, ``initialW=None``: LeCun normal, ``fan_in`` = input
  channels x kernel height x kernel width; zero biases): ``normal_(weight, 0, sqrt(1 /
  fan_in))``, ``zeros_(bias)`` and ``BatchNorm2d(c, eps=2e-5, momentum=0.1)``. The draws come from
  torch's generator, so the distribution is Chainer's, not its numbers.
* ``"pytorch"``: PyTorch's own defaults: ``nn.Linear`` weights and biases uniform on
  ``(-1/sqrt(fan_in), 1/sqrt(fan_in))`` (weight std ``1 / sqrt(3 fan_in)``, a random bias),
  ``BatchNorm1d`` with ``eps=1e-5, momentum=0.1`` (``nn.Conv2d`` and ``BatchNorm2d`` likewise:
  Kaiming-uniform weights, uniform biases, eps 1e-5). The VPU reference (HC-Feynman/vpu) is
  PyTorch code with these defaults.
* ``"kaiming"``: the Self-PU reference's (VITA-Group/Self-PU ``models.py``, ``weights_init``:
  ``nn.init.kaiming_normal_(m.weight)`` and zero biases for every ``Linear`` and ``Conv2d``),
  i.e. weights drawn from N(0, 2 / fan_in) (``kaiming_normal_``'s defaults: mode
  ``fan_in``, gain sqrt(2)), zero biases, PyTorch's batch norm (eps 1e-5, momentum 0.1).

On MNIST with the nnPU reference's network the two differ in the first epochs
(docs/neural.md, "Initialisation").

torch is imported by the caller (through :func:`pu_lib._optional.require`) and passed in.
"""

from __future__ import annotations

import math
from numbers import Integral

MODELS = ("linear", "mlp", "cnn13")
#: ``"cnn13"``'s convolutions, (kernel, out channels, stride), in order (module docstring)
CNN13_CONVS = ((3, 96, 1), (3, 96, 1), (3, 96, 2), (3, 192, 1), (3, 192, 1), (3, 192, 2), (3, 192, 1),
               (1, 192, 1), (1, 10, 1))
#: ``"cnn13"``'s fully connected hidden layers (then one output)
CNN13_FC = (1000, 1000)
#: ``"cnn13"``'s default input shape (C, H, W): a CIFAR-10 image
CNN13_INPUT_SHAPE = (3, 32, 32)
ACTIVATIONS = ("relu", "softsign")
#: initialisations of the built-in networks (module docstring)
INITS = ("chainer", "pytorch", "kaiming")
#: Chainer's BatchNormalization defaults: eps, and decay 0.9 as PyTorch's momentum 1 - 0.9
CHAINER_BN_EPS = 2e-5
CHAINER_BN_MOMENTUM = 0.1


def _chainer_init(torch, layer, fan_in: int, init: str):
    """The weights of ``init``: ``"chainer"`` LeCun-normal (std sqrt(1 / fan_in)),
    ``"kaiming"`` He-normal (std sqrt(2 / fan_in)), both with zero biases; ``"pytorch"``
    keeps PyTorch's."""
    if init in ("chainer", "kaiming"):
        with torch.no_grad():
            gain = 1.0 if init == "chainer" else 2.0
            torch.nn.init.normal_(layer.weight, mean=0.0, std=math.sqrt(gain / fan_in))
            if layer.bias is not None:
                torch.nn.init.zeros_(layer.bias)
    return layer


def _linear(torch, fan_in: int, out: int, bias: bool, init: str):
    return _chainer_init(torch, torch.nn.Linear(fan_in, out, bias=bias), fan_in, init)


def _batch_norm(torch, size: int, init: str, dims: int = 1):
    """Batch norm over features (``dims=1``) or channels (``dims=2``); Chainer's eps and
    momentum for ``init="chainer"``."""
    cls = torch.nn.BatchNorm1d if dims == 1 else torch.nn.BatchNorm2d
    if init == "chainer":
        return cls(size, eps=CHAINER_BN_EPS, momentum=CHAINER_BN_MOMENTUM)
    return cls(size)


def _conv(torch, in_ch: int, out_ch: int, kernel: int, stride: int, init: str):
    # 3x3 convolutions keep the size (padding 1) at stride 1, as the reference's pad=1
    layer = torch.nn.Conv2d(in_ch, out_ch, kernel, stride=stride, padding=(kernel - 1) // 2, bias=True)
    return _chainer_init(torch, layer, in_ch * kernel * kernel, init)


def cnn13_input_shape(n_features: int, input_shape=None) -> tuple:
    """``(C, H, W)`` of ``"cnn13"``'s flat rows (``input_shape``, default
    :data:`CNN13_INPUT_SHAPE`); ``ValueError`` unless it is three positive integers whose
    product is ``n_features``."""
    try:
        raw = tuple(CNN13_INPUT_SHAPE if input_shape is None else input_shape)
    except TypeError:
        raw = ()
    if len(raw) != 3 or not all(isinstance(v, Integral) and not isinstance(v, bool) and v >= 1 for v in raw):
        raise ValueError(f"input_shape must be (channels, height, width), three positive integers; got {input_shape!r}")
    shape = tuple(int(v) for v in raw)
    if shape[0] * shape[1] * shape[2] != int(n_features):
        raise ValueError(f"model='cnn13' with input_shape={shape} needs rows of {shape[0] * shape[1] * shape[2]} "
                         f"values (C * H * W, channel-first flat images), but X has {int(n_features)} features; "
                         "pass input_shape=(C, H, W) matching X, and give (n, C, H, W) images as "
                         "X.reshape(len(X), -1)")
    return shape


def _cnn13(torch, n_features: int, input_shape, init: str):
    nn = torch.nn
    c, h, w = cnn13_input_shape(n_features, input_shape)
    layers = [nn.Unflatten(1, (c, h, w))]
    for kernel, out_ch, stride in CNN13_CONVS:
        layers += [_conv(torch, c, out_ch, kernel, stride, init), _batch_norm(torch, out_ch, init, dims=2), nn.ReLU()]
        c = out_ch
        if stride > 1:  # padding 1, kernel 3: floor((h - 1) / stride) + 1
            h, w = (h - 1) // stride + 1, (w - 1) // stride + 1
    layers.append(nn.Flatten())
    width = c * h * w
    for units in CNN13_FC:
        layers += [_linear(torch, width, units, True, init), nn.ReLU()]
        width = units
    layers.append(_linear(torch, width, 1, True, init))
    return nn.Sequential(*layers)


def build_model(torch, spec, n_features: int, *, hidden_sizes=(100,), activation="relu", batch_norm=False,
                dropout=0.0, init="pytorch", input_shape=None):
    """The ``torch.nn.Module`` for ``spec`` (``"linear"``, ``"mlp"``, ``"cnn13"`` or a
    callable) on ``n_features`` inputs, the built-in ones initialised by ``init``
    (``"chainer"`` or ``"pytorch"``; module docstring); ``input_shape`` (C, H, W) is
    ``"cnn13"``'s (None: (3, 32, 32)) and ignored by the others; a callable's result must be
    a ``torch.nn.Module`` (``TypeError`` otherwise)."""
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
    if spec == "cnn13":
        return _cnn13(torch, int(n_features), input_shape, init)
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
