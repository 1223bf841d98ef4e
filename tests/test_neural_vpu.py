"""VPU (pu_lib.neural.vpu): the variational loss on a hand-computed batch, learning on a
separable toy set without any prior, the score's normalisation, seeding, pickling and
staged predictions. Tiny data and networks; skipped without torch (failed with
PU_LIB_REQUIRE_TORCH=1)."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from conftest import pickled_modules, torch_or_skip

torch = torch_or_skip()

from pu_lib.neural import VPUClassifier  # noqa: E402
from pu_lib.neural.vpu import vpu_variational_loss  # noqa: E402


SMALL = {"hidden_sizes": (16,), "epochs": 20, "batch_size": 64, "learning_rate": 1e-2, "random_state": 0}


def _separable(n=300, seed=0):
    """Two well separated blobs (prior 0.4), half of the positives labeled."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(np.int64)
    X = rng.normal(size=(n, 2)) + 4.0 * y[:, None]
    s = ((y == 1) & (rng.random(n) < 0.5)).astype(np.int64)
    return X, s, y


def test_variational_loss_on_a_hand_computed_batch():
    """log E_X[phi] - E_P[log phi] with weights: phi_X = (0.5, 0.25) with weights (1, 3),
    phi_P = (0.8, 0.4) with weights (1, 1)."""
    t = lambda a: torch.tensor(a, dtype=torch.float64)  # noqa: E731
    got = vpu_variational_loss(torch, t(np.log([0.5, 0.25])), t([1.0, 3.0]), t(np.log([0.8, 0.4])), t([1.0, 1.0]))
    expected = math.log((0.5 + 3 * 0.25) / 4) - (math.log(0.8) + math.log(0.4)) / 2
    assert float(got) == pytest.approx(expected, rel=1e-12)


def test_vpu_learns_a_separable_set_without_a_prior():
    X, s, y = _separable()
    est = VPUClassifier(**SMALL).fit(X, s)
    assert "prior" not in est.get_params()
    assert np.mean(est.predict(X) == y) > 0.9
    proba = est.predict_proba(X)
    assert proba.min() >= 0.0 and proba.max() <= 1.0
    # phi is normalised by its maximum over the training sample X (all rows here)
    assert proba[:, 1].max() == pytest.approx(1.0)
    np.testing.assert_array_equal(est.predict(X), (proba[:, 1] >= 0.5).astype(int))


def test_same_seed_same_model_and_pickle_round_trip():
    X, s, _ = _separable(n=150)
    params = {**SMALL, "epochs": 3}
    a = VPUClassifier(**params).fit(X, s)
    b = VPUClassifier(**params).fit(X, s)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    data = pickle.dumps(a)
    assert not any(m == "torch" or m.startswith("torch.") for m in pickled_modules(data))
    np.testing.assert_array_equal(pickle.loads(data).predict_proba(X), a.predict_proba(X))


def test_staged_predictions_and_case_control():
    X, s, _ = _separable(n=150)
    est = VPUClassifier(scenario="case_control", keep_epoch_states=True, **{**SMALL, "epochs": 3}).fit(X, s)
    staged = list(est.staged_predict_proba(X))
    assert len(staged) == 3
    np.testing.assert_array_equal(staged[-1], est.predict_proba(X))
    # case-control: X is the s = 0 sample, over which phi / max phi reaches 1
    assert est.predict_proba(X[s == 0])[:, 1].max() == pytest.approx(1.0)


def test_learning_rate_halves_every_lr_halving_epochs():
    X, s, _ = _separable(n=100)
    est = VPUClassifier(**{**SMALL, "epochs": 3}, lr_halving_epochs=2)
    seen = []
    original = est._schedule

    def spy(torch_, module, optimizer, epoch):
        opt = original(torch_, module, optimizer, epoch)
        seen.append(opt.param_groups[0]["lr"])
        return opt

    est._schedule = spy
    est.fit(X, s)
    assert seen == pytest.approx([1e-2, 5e-3, 5e-3])
