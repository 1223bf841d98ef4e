"""What the neural PU estimators share: parameters, the training loop around a method's
mini-batch step, seeding, threads, devices, early stopping, staged predictions and
pickling. Each method (:mod:`pu_lib.neural.nnpu`, :mod:`pu_lib.neural.vpu`) supplies its
epoch (``_train_epoch``) and its PU risk on held-out rows (``_validation_risk``).

**Training.** Adam (``torch.optim.Adam``: ``learning_rate``, ``weight_decay`` as an L2 term
added to the gradient, as the Chainer ``WeightDecay`` hook of the nnPU reference does, and
the method's betas) on mini-batches of ``batch_size`` rows taken by index tensors from
random permutations of the training rows (no ``DataLoader``), ``epochs`` passes. The data
live on the device as two tensors for the whole fit. How the permutations are cut into
batches (:class:`EpochBatches`; :class:`pu_lib.neural.NNPUClassifier`'s ``batch_iteration``):

* ``"epoch"``: one permutation per epoch cut into batches of ``batch_size`` rows, the last
  one shorter (``n = 61,000`` rows in batches of 30,000: 30,000 + 30,000 + 1,000); a last
  batch of one row joins the one before it (batch norm needs two rows). Epoch ``k`` is the
  ``k``-th permutation.
* ``"serial"``: the iteration of the nnPU reference (kiryor/nnPUlearning ``train.py``,
  ``main``: ``chainer.iterators.SerialIterator(XYtrain, args.batchsize)``, i.e.
  ``repeat=True`` and a shuffled order, driven by a ``Trainer`` with the stop trigger
  ``(args.epoch, 'epoch')``). Chainer's ``SerialIterator.__next__``
  (chainer/iterators/serial_iterator.py) takes its indices from
  ``iterator_statemachine`` (chainer/iterators/_statemachine.py): every batch has exactly
  ``batch_size`` rows; a batch that runs past the end of the current permutation takes
  the rest from the next permutation (a fresh one per pass), so a row can appear twice in
  such a batch. ``IntervalTrigger.__call__`` (chainer/training/triggers/interval_trigger.py)
  fires an epoch trigger after the step in which ``epoch_detail`` (rows taken / ``n``)
  crosses an integer, and the trainer stops after the step in which it reaches
  ``epochs``. Here likewise: epoch ``k`` is the steps after epoch ``k - 1``'s up to and
  including the one in which the ``k``-th pass over the rows is completed (61,000 rows in
  batches of 30,000: 3 steps, then 2 per epoch, 61 steps in 30 epochs), the fit takes
  ``ceil(epochs * n / batch_size)`` steps (``epochs * n`` rows when ``batch_size`` divides
  it, else up to ``batch_size - 1`` rows more, as Chainer), and everything done "after each epoch" --
  ``history_``, ``keep_epoch_states`` / staged predictions, the early-stopping check -- is
  done after the last step of that epoch (where the reference's ``LogReport`` and
  evaluators run). One difference: where ``batch_size`` exceeds ``n`` a batch here is the
  ``n`` rows once (one step per epoch, as ``"epoch"``), where Chainer would fill it with
  rows repeated from several permutations and take only ``ceil(epochs * n / batch_size)``
  steps in all.

The two give the same batches, hence the same model, whenever ``batch_size`` divides ``n``
or is at least ``n`` (tested); they differ when the last batch of ``"epoch"`` is short.
VPU has no ``batch_iteration``: it draws its own X and P batches from the fit's generator
(one pass over X per epoch, :mod:`pu_lib.neural.vpu`).

**Randomness.** ``random_state`` gives one integer seed (``None``: fresh entropy); from it
the network's initial weights (the global torch generator seeded inside
``torch.random.fork_rng``, so the caller's torch random state is untouched), the batch
permutations (a ``torch.Generator``) and any sampling inside a step (dropout, MixUp) are
seeded separately. The same seed, thread count and device give the identical model on the
CPU (tested); CUDA kernels may be non-deterministic.

**Threads and devices.** ``n_jobs`` is the number of torch threads (``None`` = 1, ``-1`` =
all cores), set with ``torch.set_num_threads`` for the fit or prediction and restored
afterwards. ``device`` is ``"cpu"``, ``"cuda"`` (``ValueError`` when PyTorch sees no CUDA
GPU) or ``"auto"`` (CUDA when available, else the CPU); ``device_`` records the one used.

**Early stopping** (``early_stopping=True``; off by default): a fraction
``validation_fraction`` of the labeled and of the unlabeled rows (stratified on ``s``) is
held out; after each epoch the method's PU risk on them (no true labels) is recorded in
``history_["validation_risk"]``; training stops after ``n_iter_no_change`` epochs without
a new lowest value and the network of the best epoch (``best_epoch_``) is kept.

**Staged predictions.** With ``keep_epoch_states=True`` the network's weights after every
epoch are kept (CPU copies, as numpy arrays) and ``staged_decision_function``,
``staged_predict_proba`` and ``staged_predict`` yield the predictions after epoch 1, 2,
... (learning curves by epoch). ``history_`` always holds the per-epoch training risk.

**Input arrays.** A read-only ``X`` (or ``sample_weight``), e.g. a memory-mapped array or
one with ``flags.writeable`` False, is copied before it becomes a tensor (once for the fit,
chunk by chunk when predicting), since ``torch.from_numpy`` would share its memory and
warn that it is not writable; writable float input in the network's dtype is used without
a copy, as before.

**Batch norm needs two rows per training batch.** ``batch_norm=True`` with
``batch_size=1`` (or ``model="cnn13"``, batch norm after every convolution, with
``batch_size=1``) is refused at ``fit`` (``ValueError`` naming both); otherwise no batch of
one row arises from the built-in iteration (``"serial"`` batches have
``min(batch_size, n) >= 2`` rows, and a one-row last batch of ``"epoch"`` or of VPU's pass
joins the one before it, :func:`batch_bounds`). A one-row batch that still reaches a batch
norm in training (a callable ``model`` with batch norm and ``batch_size=1``, VPU with one
row in X) raises a ``ValueError`` saying so, in place of torch's "Expected more than 1
value per channel".

**Pickling.** A fitted estimator pickles its network as architecture (its own parameters
and ``n_features_in_``) plus state dict as numpy arrays, never a pickled torch module; it
is rebuilt on the CPU when unpickled (``device_ = "cpu"``), which needs torch. An estimator
pickled before the ``init`` parameter existed is read as ``init="pytorch"``, the
initialisation (and batch-norm eps) it was built with.
"""

from __future__ import annotations

import contextlib
from abc import ABCMeta, abstractmethod
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from pu_lib._optional import require
from pu_lib._seeding import derive_seed, seed_to_int
from pu_lib._validation import is_sparse, validate_pu_data
from pu_lib.base import RANDOM_STATE_CONSTRAINT, PUClassifierMixin
from pu_lib.base_learners import check_predict_X
from pu_lib.distributed import effective_n_jobs
from pu_lib.neural._models import ACTIVATIONS, INITS, MODELS, build_model, cnn13_input_shape, scores

DEVICES = ("cpu", "cuda", "auto")
DTYPES = ("float32", "float64")
#: rows per forward pass when predicting
_PREDICT_CHUNK = 65536


def import_torch(purpose: str):
    """torch, or the ``ImportError`` naming the ``nn`` extra."""
    return require("torch", purpose=purpose)


def resolve_device(torch, device: str) -> str:
    """``"cpu"`` or ``"cuda"`` for ``device``; ``ValueError`` for ``"cuda"`` without a GPU."""
    cuda = bool(torch.cuda.is_available())
    if device == "auto":
        return "cuda" if cuda else "cpu"
    if device == "cuda" and not cuda:
        raise ValueError("device='cuda' but PyTorch sees no CUDA GPU (torch.cuda.is_available() is False; "
                         f"torch {torch.__version__}, CUDA build: {torch.version.cuda is not None}); "
                         "use device='cpu' or device='auto'")
    return device


@contextlib.contextmanager
def torch_threads(torch, n_jobs):
    """``torch.set_num_threads(effective_n_jobs(n_jobs))`` inside, the old count restored after."""
    old = torch.get_num_threads()
    torch.set_num_threads(effective_n_jobs(n_jobs))
    try:
        yield
    finally:
        torch.set_num_threads(old)


def state_to_numpy(module) -> dict:
    """The module's state dict as CPU numpy arrays (copies)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in module.state_dict().items()}


def tensor_from_numpy(torch, a: np.ndarray):
    """``torch.from_numpy(a)``, copying ``a`` first when it is read-only (torch warns that a
    non-writable array is not writable; the module docstring)."""
    if not a.flags.writeable:
        a = np.array(a)
    return torch.from_numpy(a)


def load_numpy_state(torch, module, state: dict) -> None:
    module.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in state.items()})


def batch_bounds(n: int, batch_size: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of the mini-batches of ``n`` rows: ``batch_size`` rows each, the
    last one shorter; a last batch of one row joins the one before it (batch norm needs
    two rows in training mode)."""
    bounds = [(start, min(start + batch_size, n)) for start in range(0, n, batch_size)]
    if len(bounds) > 1 and bounds[-1][1] - bounds[-1][0] == 1:
        bounds[-2:] = [(bounds[-2][0], n)]
    return bounds


#: how the training rows are cut into mini-batches (module docstring)
BATCH_ITERATIONS = ("epoch", "serial")


class EpochBatches:
    """The mini-batches of ``n`` training rows, epoch by epoch: :meth:`next_epoch` gives the
    index tensors (on ``device``) of the next epoch's steps, by ``mode`` ``"epoch"`` or
    ``"serial"`` (module docstring). The permutations are ``torch.randperm(n,
    generator=generator)``, drawn when the first row of a pass is needed, so both modes
    draw the same permutations in the same order. ``generator`` is also the method's own
    generator for any other draws (VPU's)."""

    def __init__(self, torch, n: int, batch_size: int, mode: str, generator, device):
        if mode not in BATCH_ITERATIONS:
            raise ValueError(f"batch iteration must be one of {BATCH_ITERATIONS}, got {mode!r}")
        self._torch, self.n, self.batch_size, self.mode = torch, int(n), int(batch_size), mode
        self.generator, self.device = generator, device
        self._order, self._pos = None, 0  # serial: current permutation and position in it
        self.epochs_done = 0
        #: rows taken so far (serial: steps * min(batch_size, n))
        self.rows_taken = 0

    def _permutation(self):
        return self._torch.randperm(self.n, generator=self.generator).to(self.device)

    def _take(self, m: int):
        """The next ``m <= n`` rows of the serial order, continuing into a fresh permutation."""
        parts = []
        while m > 0:
            if self._order is None or self._pos == self.n:
                self._order, self._pos = self._permutation(), 0
            k = min(m, self.n - self._pos)
            parts.append(self._order[self._pos:self._pos + k])
            self._pos += k
            m -= k
        return parts[0] if len(parts) == 1 else self._torch.cat(parts)

    def next_epoch(self) -> list:
        """The index tensors of the next epoch's mini-batches (one per optimizer step)."""
        self.epochs_done += 1
        if self.mode == "epoch":
            perm = self._permutation()
            batches = [perm[start:stop] for start, stop in batch_bounds(self.n, self.batch_size)]
            self.rows_taken += self.n
            return batches
        size, end = min(self.batch_size, self.n), self.epochs_done * self.n
        batches = []
        while self.rows_taken < end:
            batches.append(self._take(size))
            self.rows_taken += size
        return batches


class SparseRows:
    """The training rows of a sparse ``X`` (CSR) for the network: indexing rows gives them
    as a dense tensor (the mini-batches are densified one at a time, so the whole matrix
    is never dense); a selection of more than ``_PREDICT_CHUNK`` rows stays a
    ``SparseRows``, which :func:`pu_lib.neural._models.scores` runs in chunks of that
    many rows. The tensors are the rows of the dense array, so the network sees the same
    numbers as from dense input."""

    def __init__(self, torch, X, dtype, device):
        self._torch, self._X, self.dtype, self.device = torch, X, dtype, device
        self.shape = torch.Size(X.shape)

    def _dense(self, rows) -> object:
        sub = self._X if rows is None else self._X[rows]
        return self._torch.from_numpy(sub.toarray()).to(self.device)

    def __getitem__(self, idx):
        if hasattr(idx, "cpu"):
            idx = idx.cpu().numpy()
        rows = np.arange(self.shape[0])[idx]
        if rows.shape[0] > _PREDICT_CHUNK:
            return SparseRows(self._torch, self._X[rows], self.dtype, self.device)
        return self._dense(rows)

    def map_chunks(self, func):
        """``func`` of every chunk of ``_PREDICT_CHUNK`` rows (dense), concatenated."""
        n = self.shape[0]
        return self._torch.cat([func(self._dense(np.arange(a, min(a + _PREDICT_CHUNK, n))))
                                for a in range(0, n, _PREDICT_CHUNK)])


def stratified_holdout(s: np.ndarray, fraction: float, seed: int) -> np.ndarray:
    """Boolean mask of held-out rows: ``round(fraction * n_c)`` rows (at least 1, at most
    ``n_c - 1``) of each value ``c`` of ``s``; ``ValueError`` when a value has one row."""
    rng = np.random.default_rng(seed)
    held = np.zeros(s.shape[0], dtype=bool)
    for c in (0, 1):
        rows = np.flatnonzero(s == c)
        if rows.size < 2:
            raise ValueError(f"early_stopping needs at least 2 rows with s = {c} to hold some out; got {rows.size}")
        k = int(min(max(1, round(fraction * rows.size)), rows.size - 1))
        held[rng.choice(rows, size=k, replace=False)] = True
    return held


class NeuralPUBase(PUClassifierMixin, BaseEstimator, metaclass=ABCMeta):
    """Base of the neural PU estimators (not registered itself); see the module docstring."""

    #: Adam's (beta1, beta2) for the method
    _adam_betas = (0.9, 0.999)
    #: name of the method in error messages
    _purpose = "a neural PU learner"

    _common_constraints: dict = {
        "model": [StrOptions(set(MODELS)), HasMethods(["__call__"])],
        "hidden_sizes": ["array-like"],
        "activation": [StrOptions(set(ACTIVATIONS))],
        "batch_norm": ["boolean"],
        "init": [StrOptions(set(INITS))],
        # model="cnn13"'s (C, H, W) (None: (3, 32, 32)); checked when the network is built
        "input_shape": [None, "array-like"],
        "dropout": [Interval(Real, 0.0, 1.0, closed="left")],
        "epochs": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0.0, None, closed="neither")],
        "weight_decay": [Interval(Real, 0.0, None, closed="left")],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0.0, 1.0, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "keep_epoch_states": ["boolean"],
        "dtype": [StrOptions(set(DTYPES))],
        "device": [StrOptions(set(DEVICES))],
        "random_state": RANDOM_STATE_CONSTRAINT,
        "n_jobs": [None, Integral],
    }

    #: sparse X (as CSR): the mini-batches are densified one at a time (:class:`SparseRows`)
    _accepts_sparse = True

    # ------------------------------------------------------------------ hooks
    def _prepare(self, X, s, w, seed):
        """Method constants from the training rows (e.g. the prior); a dict."""
        return {}

    def _tensors(self, torch, X, s, w, device, dtype) -> dict:
        """The training tensors a method's epoch reads (rows of ``X``, ``s``, ``w``)."""
        if is_sparse(X):
            Xt = SparseRows(torch, X.astype(np.dtype(self.dtype)), dtype, device)
        else:
            Xt = tensor_from_numpy(torch, np.ascontiguousarray(X, dtype=np.dtype(self.dtype))).to(device)
        t = {"X": Xt, "s": tensor_from_numpy(torch, s.astype(np.bool_)).to(device)}
        t["w"] = torch.ones(X.shape[0], dtype=dtype, device=device) if w is None else \
            tensor_from_numpy(torch, np.asarray(w, dtype=np.dtype(self.dtype))).to(device)
        return t

    @abstractmethod
    def _train_epoch(self, torch, module, optimizer, T, batches, epoch, consts) -> dict:
        """One epoch of the method's mini-batch steps; ``batches`` is the fit's
        :class:`EpochBatches` (its ``next_epoch()`` gives the epoch's index batches, its
        ``generator`` seeds any other draw); returns the epoch's ``history_`` entries (nnPU:
        :mod:`pu_lib.neural.nnpu`, VPU: :mod:`pu_lib.neural.vpu`)."""

    @abstractmethod
    def _validation_risk(self, torch, module, T, consts) -> float:
        """The method's PU risk on held-out rows (no true labels), for early stopping."""

    def _batching(self, n: int, n_labeled: int) -> tuple[int, int]:
        """``(batch size, epochs)`` of a fit on ``n`` training rows, ``n_labeled`` of them
        labeled (a method may resolve ``"auto"`` values from them); recorded as
        ``batch_size_`` and ``epochs_``."""
        return int(self.batch_size), int(self.epochs)

    def _after_fit(self, torch, module, T, consts) -> None:
        """Fitted attributes a method derives from the final network."""

    def _epoch_extra(self, torch, module, T, consts) -> dict:
        """Per-epoch values kept beside a staged state (``keep_epoch_states``)."""
        return {}

    # ------------------------------------------------------------------ fit
    def _build(self, torch, n_features):
        return build_model(torch, self.model, n_features, hidden_sizes=tuple(self.hidden_sizes),
                           activation=self.activation, batch_norm=self.batch_norm, dropout=self.dropout,
                           init=self.init, input_shape=getattr(self, "input_shape", None))

    def _check_hidden_sizes(self):
        sizes = np.asarray(self.hidden_sizes)
        if sizes.ndim != 1 or (sizes.size and (not np.issubdtype(sizes.dtype, np.integer) or sizes.min() < 1)):
            raise ValueError(f"hidden_sizes must be a sequence of positive integers, got {self.hidden_sizes!r}")

    def _check_batch_norm_rows(self):
        """``ValueError`` for ``batch_norm=True`` with ``batch_size=1`` (module docstring)."""
        has_bn = isinstance(self.model, str) and self.model == "mlp" and len(self.hidden_sizes) > 0
        if not isinstance(self.batch_size, Integral):  # e.g. "auto": resolved at fit (_batching)
            return
        if self.batch_norm and has_bn and int(self.batch_size) < 2:
            raise ValueError(f"batch_size={self.batch_size} with batch_norm=True: batch norm needs at least 2 rows "
                             "in every training batch; use batch_size >= 2 or batch_norm=False")
        if isinstance(self.model, str) and self.model == "cnn13" and int(self.batch_size) < 2:
            raise ValueError(f"batch_size={self.batch_size} with model='cnn13', whose convolutions are followed by "
                             "batch norm: batch norm needs at least 2 rows in every training batch; use "
                             "batch_size >= 2")

    def _fit(self, X, s, sample_weight):
        torch = import_torch(f"{type(self).__name__} ({self._purpose})")
        self._check_hidden_sizes()
        self._check_batch_norm_rows()
        # X in the network's dtype (no copy of float32 input), float64 where a prior
        # estimator is fitted on it
        prior = getattr(self, "prior", None)
        data_dtype = np.float64 if prior is not None and not isinstance(prior, Real) else np.dtype(self.dtype)
        X, s, w, _ = validate_pu_data(self, X, s, sample_weight=sample_weight, dtype=data_dtype)
        if isinstance(self.model, str) and self.model == "cnn13":
            # before any prior estimation: X's width against input_shape (ValueError)
            cnn13_input_shape(X.shape[1], getattr(self, "input_shape", None))
        seed = seed_to_int(self.random_state, fresh_if_none=True)
        consts = self._prepare(X, s, w, seed)
        device = resolve_device(torch, self.device)
        tdtype = getattr(torch, self.dtype)

        held = None
        if self.early_stopping:
            held = stratified_holdout(s, float(self.validation_fraction), derive_seed(seed, "validation"))
        if held is None:
            T = self._tensors(torch, X, s, w, device, tdtype)
        else:
            rows = np.flatnonzero(~held)
            T = self._tensors(torch, X[rows], s[rows], None if w is None else w[rows], device, tdtype)
        V = None if held is None else self._tensors(torch, X[held], s[held], None if w is None else w[held],
                                                       device, tdtype)
        batch_size, epochs = self._batching(int(T["X"].shape[0]), int(T["s"].sum()))
        fork_devices = [torch.cuda.current_device()] if device == "cuda" else []
        history: dict[str, list] = {}
        states, extras = [], []
        best, best_epoch, best_state, waited = np.inf, None, None, 0
        with torch_threads(torch, self.n_jobs), torch.random.fork_rng(devices=fork_devices):
            torch.manual_seed(derive_seed(seed, "init"))
            module = self._build(torch, X.shape[1]).to(device=device, dtype=tdtype)
            torch.manual_seed(derive_seed(seed, "train"))
            generator = torch.Generator().manual_seed(derive_seed(seed, "batches"))
            batches = EpochBatches(torch, T["X"].shape[0], batch_size,
                                   getattr(self, "batch_iteration", "epoch"), generator, T["s"].device)
            optimizer = self._optimizer(torch, module, float(self.learning_rate))
            for epoch in range(epochs):
                module.train()
                optimizer = self._schedule(torch, module, optimizer, epoch)
                try:
                    epoch_history = self._train_epoch(torch, module, optimizer, T, batches, epoch, consts)
                except ValueError as exc:
                    if "Expected more than 1 value per channel" not in str(exc):
                        raise
                    raise ValueError(f"a training batch of 1 row reached a batch norm layer (batch_size="
                                     f"{self.batch_size}, batch_norm={self.batch_norm}, model={self.model!r}): "
                                     "batch norm needs at least 2 rows per batch in training; use a larger "
                                     "batch_size (or, for VPU, at least 2 rows in X)") from exc
                for key, value in epoch_history.items():
                    history.setdefault(key, []).append(value)
                module.eval()
                if self.keep_epoch_states:
                    states.append(state_to_numpy(module))
                    with torch.no_grad():
                        extras.append(self._epoch_extra(torch, module, T, consts))
                if V is not None:
                    with torch.no_grad():
                        risk = float(self._validation_risk(torch, module, V, consts))
                    history.setdefault("validation_risk", []).append(risk)
                    if risk < best:
                        best, best_epoch, best_state, waited = risk, epoch, state_to_numpy(module), 0
                    else:
                        waited += 1
                        if waited >= self.n_iter_no_change:
                            break
            if best_state is not None:
                load_numpy_state(torch, module, best_state)
                module.to(device=device, dtype=tdtype)
            module.eval()
            with torch.no_grad():
                self._after_fit(torch, module, T, consts)

        self.module_ = module
        self.device_ = device
        self.batch_size_, self.epochs_ = batch_size, epochs
        self.history_ = {k: np.asarray(v) for k, v in history.items()}
        self.n_epochs_ = len(next(iter(history.values()))) if history else 0
        self.best_epoch_ = self.n_epochs_ - 1 if best_epoch is None else int(best_epoch)
        self.epoch_states_ = states if self.keep_epoch_states else None
        self._epoch_extras = extras if self.keep_epoch_states else None
        self.classes_ = np.array([0, 1])
        return self

    def _optimizer(self, torch, module, lr):
        return torch.optim.Adam(module.parameters(), lr=lr, betas=self._adam_betas,
                                weight_decay=float(self.weight_decay))

    def _schedule(self, torch, module, optimizer, epoch):
        """The optimizer for ``epoch`` (a method may change the learning rate)."""
        return optimizer

    # ------------------------------------------------------------------ predict
    def _scores(self, module, X):
        """Raw scores ``g(x)`` of ``module`` on validated ``X`` (float64 numpy)."""
        torch = import_torch(f"{type(self).__name__} ({self._purpose})")
        sparse = is_sparse(X)
        Xt = X.astype(np.dtype(self.dtype)) if sparse else np.ascontiguousarray(X, dtype=np.dtype(self.dtype))
        out = []
        with torch_threads(torch, self.n_jobs), torch.no_grad():
            for start in range(0, Xt.shape[0], _PREDICT_CHUNK):
                rows = Xt[start:start + _PREDICT_CHUNK]
                chunk = tensor_from_numpy(torch, rows.toarray() if sparse else rows).to(self.device_)
                out.append(scores(module, chunk).detach().cpu().numpy().astype(np.float64))
        return np.concatenate(out) if out else np.empty(0)

    def _decision_from_scores(self, g, extra) -> np.ndarray:
        """The decision function from raw scores (0 = the decision threshold)."""
        return g

    @abstractmethod
    def _proba_from_decision(self, d) -> np.ndarray:
        """P(y = 1 | x) from the decision values (each method's own link)."""

    def decision_function(self, X):
        """The decision value of every row of ``X``; positive where ``predict`` gives 1."""
        check_is_fitted(self)
        X = check_predict_X(self, X)
        return self._decision_from_scores(self._scores(self.module_, X), self._final_extra())

    def _final_extra(self) -> dict:
        return {}

    def predict_proba(self, X):
        """``(n, 2)``: columns ``[P(y = 0 | x), P(y = 1 | x)]`` (see the class docstring)."""
        p = self._proba_from_decision(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        """1 where the decision function is at least 0, else 0."""
        return (self.decision_function(X) >= 0.0).astype(np.int64)

    def staged_decision_function(self, X):
        """The decision function after each epoch (a generator, epoch 1 first); needs
        ``keep_epoch_states=True``."""
        check_is_fitted(self)
        if self.epoch_states_ is None:
            raise ValueError(f"{type(self).__name__} was fitted with keep_epoch_states=False; set it to True "
                             "to get staged predictions by epoch")
        X = check_predict_X(self, X)
        torch = import_torch(f"{type(self).__name__} ({self._purpose})")
        with torch.random.fork_rng(devices=[]):
            module = self._build(torch, self.n_features_in_)
        module.to(dtype=getattr(torch, self.dtype))
        module.eval()
        for state, extra in zip(self.epoch_states_, self._epoch_extras):
            load_numpy_state(torch, module, state)
            module.to(device=self.device_)
            yield self._decision_from_scores(self._scores(module, X), extra)

    def staged_predict_proba(self, X):
        """``predict_proba`` after each epoch (a generator); needs ``keep_epoch_states=True``."""
        for d in self.staged_decision_function(X):
            p = self._proba_from_decision(d)
            yield np.column_stack([1.0 - p, p])

    def staged_predict(self, X):
        """``predict`` after each epoch (a generator); needs ``keep_epoch_states=True``."""
        for d in self.staged_decision_function(X):
            yield (d >= 0.0).astype(np.int64)

    # ------------------------------------------------------------------ pickling
    def __getstate__(self):
        state = dict(super().__getstate__())  # object.__getstate__ gives __dict__ itself: copy
        module = state.get("module_")
        if module is not None:
            state["module_"] = None
            state["_module_state"] = state_to_numpy(module)
        return state

    def __setstate__(self, state):
        module_state = state.pop("_module_state", None)
        # pickled before the ``init`` option: built with PyTorch's initialisation (batch
        # norm eps 1e-5, which the rebuilt network must keep)
        state.setdefault("init", "pytorch")
        state.setdefault("input_shape", None)
        super().__setstate__(state)
        if module_state is not None:
            torch = import_torch(f"{type(self).__name__} ({self._purpose})")
            with torch.random.fork_rng(devices=[]):
                module = self._build(torch, self.n_features_in_)
            module.to(dtype=getattr(torch, self.dtype))
            load_numpy_state(torch, module, module_state)
            module.eval()
            self.module_ = module
            self.device_ = "cpu"
