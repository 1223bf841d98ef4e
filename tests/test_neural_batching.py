"""How the neural PU estimators cut the training rows into mini-batches
(pu_lib.neural._training.EpochBatches; NNPUClassifier's ``batch_iteration``): ``"serial"``
is Chainer's ``SerialIterator(repeat=True, shuffle=True)`` under an epoch-triggered
``Trainer`` (the nnPU reference's iteration): every step sees exactly ``batch_size`` rows,
a batch that runs past the end of a permutation takes the rest from the next one, epoch
``k`` ends with the step that completes the ``k``-th pass, ``ceil(epochs * n /
batch_size)`` steps in all; ``"epoch"`` is one permutation per epoch with a short last
batch. Properties that hold on any machine; tiny data and networks, skipped without torch."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import torch_or_skip

torch = torch_or_skip()

from sklearn.utils._param_validation import InvalidParameterError  # noqa: E402

from pu_lib.neural import NNPUClassifier  # noqa: E402
from pu_lib.neural._training import EpochBatches, batch_bounds  # noqa: E402


def _schedule(n, batch_size, mode, epochs, seed=0):
    it = EpochBatches(torch, n, batch_size, mode, torch.Generator().manual_seed(seed), "cpu")
    return [[b.numpy() for b in it.next_epoch()] for _ in range(epochs)]


@pytest.mark.parametrize("n, batch_size, epochs", [(50, 20, 4), (61, 30, 30), (7, 3, 5), (10, 10, 3)])
def test_serial_batches_are_full_and_passes_are_back_to_back_permutations(n, batch_size, epochs):
    sched = _schedule(n, batch_size, "serial", epochs)
    steps = [b for epoch in sched for b in epoch]
    assert all(len(b) == batch_size for b in steps)
    assert len(steps) == math.ceil(epochs * n / batch_size)
    # epoch k ends with the first step whose running row count reaches k * n (Chainer's
    # IntervalTrigger on epoch_detail); no epoch is empty when batch_size <= n
    ends = np.cumsum([len(e) for e in sched])
    for k, end in enumerate(ends, start=1):
        assert end == math.ceil(k * n / batch_size) and len(sched[k - 1]) >= 1
    # the rows taken, in order, are whole permutations of range(n) one after the other
    rows = np.concatenate(steps)
    for p in range(len(rows) // n):
        np.testing.assert_array_equal(np.sort(rows[p * n:(p + 1) * n]), np.arange(n))


def test_serial_steps_of_the_reference_mnist_set():
    """61,000 rows (P stacked on U) in batches of 30,000 for 30 epochs: 61 full steps,
    3 in the first epoch and 2 in each later one, 1,830,000 = 30 * 61,000 rows (sizes only,
    scaled down by 1,000: 61 rows, batches of 30)."""
    sched = _schedule(61, 30, "serial", 30)
    assert [len(e) for e in sched] == [3] + [2] * 29
    assert sum(len(b) for e in sched for b in e) == 30 * 61


def test_epoch_batches_are_one_permutation_per_epoch_with_a_short_last_batch():
    sched = _schedule(50, 20, "epoch", 3)
    for epoch in sched:
        assert [len(b) for b in epoch] == [b - a for a, b in batch_bounds(50, 20)] == [20, 20, 10]
        np.testing.assert_array_equal(np.sort(np.concatenate(epoch)), np.arange(50))


@pytest.mark.parametrize("n, batch_size", [(60, 20), (60, 30), (60, 60), (60, 1000)])
def test_serial_and_epoch_take_the_same_batches_when_the_batch_size_divides_n_or_exceeds_it(n, batch_size):
    a, b = _schedule(n, batch_size, "serial", 4), _schedule(n, batch_size, "epoch", 4)
    assert len(a) == len(b)
    for ea, eb in zip(a, b):
        assert len(ea) == len(eb)
        for x, y in zip(ea, eb):
            np.testing.assert_array_equal(x, y)


# ----------------------------------------------------------------------------- fits
def _data(n=50, seed=0):
    """Column 0 is the row id (float64 holds it exactly), so a network can record the rows it sees."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.arange(n, dtype=np.float64), rng.normal(size=(n, 2))])
    s = ((X[:, 1] > 0) & (rng.random(n) < 0.6)).astype(np.int64)
    return X, s


class _Recorder(torch.nn.Module):
    """A linear score that records the row ids (column 0) of every training-mode batch."""

    def __init__(self, n_features, log):
        super().__init__()
        self.lin = torch.nn.Linear(n_features - 1, 1)
        self.log = log

    def forward(self, x):
        if self.training:
            self.log.append(x[:, 0].detach().numpy().astype(np.int64).copy())
        return self.lin(x[:, 1:])


def _fit(mode, X, s, log=None, **params):
    log = [] if log is None else log
    est = NNPUClassifier(prior=0.4, model=lambda d: _Recorder(d, log), epochs=4, batch_size=20,
                         batch_iteration=mode, learning_rate=1e-2, dtype="float64", random_state=0, **params)
    return est.fit(X, s), log


def test_a_serial_fit_steps_on_full_batches_epochs_times_n_rows_deterministically():
    X, s = _data()
    est, log = _fit("serial", X, s, keep_epoch_states=True)
    assert [len(b) for b in log] == [20] * 10  # 4 epochs * 50 rows = 10 steps of 20 rows
    assert est.history_["steps"].tolist() == [3, 2, 3, 2] and est.n_epochs_ == 4
    rows = np.concatenate(log)
    for p in range(4):
        np.testing.assert_array_equal(np.sort(rows[50 * p:50 * (p + 1)]), np.arange(50))
    assert len(list(est.staged_predict(X))) == 4  # staged predictions stay by epoch
    again, log2 = _fit("serial", X, s, keep_epoch_states=True)
    np.testing.assert_array_equal(np.concatenate(log2), rows)
    np.testing.assert_array_equal(again.decision_function(X), est.decision_function(X))


def test_an_epoch_fit_keeps_the_short_last_batch():
    X, s = _data()
    est, log = _fit("epoch", X, s)
    assert [len(b) for b in log] == [20, 20, 10] * 4 and est.history_["steps"].tolist() == [3] * 4
    serial, _ = _fit("serial", X, s)
    assert not np.array_equal(serial.decision_function(X), est.decision_function(X))


@pytest.mark.parametrize("batch_size", [25, 50, 1000])
def test_serial_and_epoch_fit_the_same_model_when_the_batch_size_divides_n_or_exceeds_it(batch_size):
    X, s = _data()
    a = NNPUClassifier(prior=0.4, hidden_sizes=(8,), batch_norm=True, epochs=3, batch_size=batch_size,
                       batch_iteration="serial", random_state=0).fit(X, s)
    b = NNPUClassifier(prior=0.4, hidden_sizes=(8,), batch_norm=True, epochs=3, batch_size=batch_size,
                       batch_iteration="epoch", random_state=0).fit(X, s)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_serial_early_stopping_counts_epochs_by_completed_passes():
    X, s = _data(n=100)
    est, log = _fit("serial", X, s, early_stopping=True, validation_fraction=0.1, n_iter_no_change=50)
    n_train = np.unique(np.concatenate(log)).size  # the held-out rows are never trained on
    assert 80 <= n_train < 100 and est.n_epochs_ == 4 and all(len(b) == 20 for b in log)
    assert len(log) == math.ceil(4 * n_train / 20) == est.history_["steps"].sum()


def test_batch_iteration_is_validated():
    X, s = _data()
    with pytest.raises(InvalidParameterError, match="batch_iteration"):
        NNPUClassifier(prior=0.4, batch_iteration="chainer").fit(X, s)
    assert NNPUClassifier().get_params()["batch_iteration"] == "serial"
