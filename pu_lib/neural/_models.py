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

torch is imported by the caller (through :func:`pu_lib._optional.require`) and passed in.
"""

from __future__ import annotations

MODELS = ("linear", "mlp")
ACTIVATIONS = ("relu", "softsign")


def build_model(torch, spec, n_features: int, *, hidden_sizes=(100,), activation="relu", batch_norm=False,
                dropout=0.0):
    """The ``torch.nn.Module`` for ``spec`` (``"linear"``, ``"mlp"`` or a callable) on
    ``n_features`` inputs; a callable's result must be a ``torch.nn.Module``
    (``TypeError`` otherwise)."""
    nn = torch.nn
    if callable(spec) and not isinstance(spec, str):
        module = spec(int(n_features))
        if not isinstance(module, nn.Module):
            raise TypeError(f"model={spec!r} returned {type(module).__name__}; it must return a torch.nn.Module "
                            "mapping (batch, n_features) to one score per row")
        return module
    if spec == "linear":
        return nn.Sequential(nn.Linear(n_features, 1))
    if spec != "mlp":
        raise ValueError(f"model must be one of {MODELS} or a callable returning a torch.nn.Module, got {spec!r}")
    act = {"relu": nn.ReLU, "softsign": nn.Softsign}[activation]
    layers = []
    width = int(n_features)
    for h in hidden_sizes:
        layers.append(nn.Linear(width, int(h), bias=not batch_norm))
        if batch_norm:
            layers.append(nn.BatchNorm1d(int(h)))
        layers.append(act())
        if dropout > 0:
            layers.append(nn.Dropout(float(dropout)))
        width = int(h)
    layers.append(nn.Linear(width, 1))
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
