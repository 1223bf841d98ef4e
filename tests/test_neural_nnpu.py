"""uPU / nnPU / imbalanced nnPU with PyTorch (pu_lib.neural.nnpu): the risks on a
hand-computed batch, the corrected step against its closed form, uPU = nnPU while the
negative risk stays above -beta, imbalanced nnPU = nnPU at pi' = pi, integer weights =
repeated rows, seeding, threads, pickling, devices, staged predictions and early stopping.
Tiny data and networks; skipped without torch (failed with PU_LIB_REQUIRE_TORCH=1)."""

from __future__ import annotations

import pickle
import sys

import numpy as np
import pytest

from conftest import pickled_modules, torch_or_skip

torch = torch_or_skip()

from pu_lib.neural import NNPUClassifier  # noqa: E402
from pu_lib.neural.nnpu import nnpu_objective, pu_batch_risks  # noqa: E402


SMALL = {"hidden_sizes": (8,), "epochs": 5, "batch_size": 64, "learning_rate": 1e-2, "random_state": 0}


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)
    s = ((y == 1) & (rng.random(n) < 0.5)).astype(np.int64)
    return X, s, y


def _t(a, dtype=torch.float64):
    return torch.tensor(a, dtype=dtype)


def _sig(z):
    return 1.0 / (1.0 + np.exp(-np.asarray(z, dtype=float)))


def test_risks_on_a_hand_computed_batch():
    # all scores 0: every sigmoid loss is 1/2
    s = _t([True, True, False, False], torch.bool)
    w = _t([1.0, 1.0, 1.0, 1.0])
    pos, neg = pu_batch_risks(torch, _t([0.0] * 4), s, w, torch.ones_like(s), prior=0.4, pi_pos=0.4, k=1.0,
                              loss="sigmoid")
    assert float(pos) == pytest.approx(0.4 * 0.5) and float(neg) == pytest.approx(0.5 - 0.4 * 0.5)
    # scores (2, -1, 0.5, 0), labeled rows 0 and 1, weights (1, 2, 1, 3)
    z, w = np.array([2.0, -1.0, 0.5, 0.0]), np.array([1.0, 2.0, 1.0, 3.0])
    rp_plus = (1 * _sig(-2) + 2 * _sig(1)) / 3
    rp_minus = (1 * _sig(2) + 2 * _sig(-1)) / 3
    ru_all = (1 * _sig(2) + 2 * _sig(-1) + 1 * _sig(0.5) + 3 * _sig(0)) / 7  # single training set: U = all rows
    ru_cc = (1 * _sig(0.5) + 3 * _sig(0)) / 4  # case-control: U = the s = 0 rows
    for in_u, ru in ((torch.ones_like(s), ru_all), (~s, ru_cc)):
        pos, neg = pu_batch_risks(torch, _t(z), s, _t(w), in_u, prior=0.3, pi_pos=0.3, k=1.0, loss="sigmoid")
        assert float(pos) == pytest.approx(0.3 * rp_plus, rel=1e-12)
        assert float(neg) == pytest.approx(ru - 0.3 * rp_minus, rel=1e-12)
        upu, value, corrected = nnpu_objective(pos, neg, risk="upu", beta=0.0, gamma=1.0)
        assert not corrected and float(upu) == float(value) == pytest.approx(float(pos) + float(neg))
    # logistic loss: l(z, +1) = log(1 + exp(-z)), l(z, -1) = log(1 + exp(z)); imbalanced nnPU's pi' and k
    pos, neg = pu_batch_risks(torch, _t(z), s, _t(w), torch.ones_like(s), prior=0.3, pi_pos=0.5, k=0.5 / 0.7,
                              loss="logistic")
    lp, ln = np.log1p(np.exp(-z)), np.log1p(np.exp(z))
    assert float(pos) == pytest.approx(0.5 * (lp[0] + 2 * lp[1]) / 3, rel=1e-12)
    assert float(neg) == pytest.approx(0.5 / 0.7 * ((w * ln).sum() / 7 - 0.3 * (ln[0] + 2 * ln[1]) / 3), rel=1e-12)


def _overfit_batch():
    """Labeled rows scored high, unlabeled low: the negative risk is below 0."""
    z = _t([4.0, 3.0, 5.0, -3.0, -4.0, 2.0], torch.float64).requires_grad_(True)
    s = _t([True, True, True, False, False, False], torch.bool)
    w = _t([1.0, 2.0, 1.0, 1.0, 3.0, 1.0])
    return z, s, w


@pytest.mark.parametrize("risk, prior, pi_pos", [("nnpu", 0.6, 0.6), ("imbalanced_nnpu", 0.6, 0.5)])
def test_the_corrected_step_is_minus_gamma_times_the_negative_risk_gradient(risk, prior, pi_pos):
    """Below -beta the step follows -gamma d(negative risk)/dz, in closed form
    -gamma k (w [U] / W_U - pi w [P] / W_P) sigmoid(z) (1 - sigmoid(z)) for the sigmoid loss;
    a small step along it raises the negative risk."""
    gamma, k = 0.3, (1 - pi_pos) / (1 - prior)
    z, s, w = _overfit_batch()
    in_u = torch.ones_like(s)
    pos, neg = pu_batch_risks(torch, z, s, w, in_u, prior=prior, pi_pos=pi_pos, k=k, loss="sigmoid")
    assert float(neg.detach()) < 0
    objective, value, corrected = nnpu_objective(pos, neg, risk=risk, beta=0.0, gamma=gamma)
    assert corrected and float(value.detach()) == pytest.approx(float(pos.detach()))
    objective.backward()
    zn, sn, wn = z.detach().numpy(), s.numpy(), w.numpy()
    p = _sig(zn)
    closed = -gamma * k * (wn / wn.sum() - prior * wn * sn / wn[sn].sum()) * p * (1 - p)
    np.testing.assert_allclose(z.grad.numpy(), closed, rtol=1e-12, atol=1e-15)
    stepped = (z - 0.1 * z.grad).detach()
    _, neg_after = pu_batch_risks(torch, stepped, s, w, in_u, prior=prior, pi_pos=pi_pos, k=k, loss="sigmoid")
    assert float(neg_after) > float(neg.detach())
    # above -beta (beta = 1 > pi) the same batch takes the uPU step
    _, _, corrected = nnpu_objective(pos, neg, risk=risk, beta=1.0, gamma=gamma)
    assert not corrected


def test_upu_and_nnpu_take_identical_steps_while_the_negative_risk_stays_above_minus_beta():
    """With the sigmoid loss the negative risk is >= -pi > -1, so beta = 1 never corrects."""
    X, s, _ = _data()
    upu = NNPUClassifier(risk="upu", prior=0.4, beta=1.0, **SMALL).fit(X, s)
    nnpu = NNPUClassifier(risk="nnpu", prior=0.4, beta=1.0, **SMALL).fit(X, s)
    assert nnpu.history_["corrected_steps"].sum() == 0
    np.testing.assert_array_equal(nnpu.decision_function(X), upu.decision_function(X))
    np.testing.assert_array_equal(nnpu.history_["negative_risk"], upu.history_["negative_risk"])


def test_nnpu_corrects_where_upu_lets_the_negative_risk_go_negative():
    """Few labeled rows and a wide network: uPU's negative risk falls well below 0 (-0.12
    here), nnPU's corrected steps hold it near 0."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 3))
    s = ((X[:, 0] + 0.5 * X[:, 1] > 0) & (rng.random(100) < 0.3)).astype(np.int64)
    params = {**SMALL, "hidden_sizes": (64,), "epochs": 40, "batch_size": 100, "learning_rate": 3e-2,
              "weight_decay": 0.0}
    upu = NNPUClassifier(risk="upu", prior=0.5, **params).fit(X, s)
    nnpu = NNPUClassifier(risk="nnpu", prior=0.5, **params).fit(X, s)
    assert upu.history_["negative_risk"][-1] < -0.06
    assert nnpu.history_["corrected_steps"].sum() > 0
    assert nnpu.history_["negative_risk"][-5:].min() > -0.03


def test_imbalanced_nnpu_at_pi_prime_equal_to_pi_is_nnpu():
    X, s, _ = _data()
    a = NNPUClassifier(risk="nnpu", prior=0.3, **SMALL).fit(X, s)
    b = NNPUClassifier(risk="imbalanced_nnpu", prior=0.3, oversampled_prior=0.3, **SMALL).fit(X, s)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


@pytest.mark.parametrize("scenario, risk", [("single_training_set", "nnpu"), ("case_control", "imbalanced_nnpu")])
def test_integer_weights_equal_repeated_rows(scenario, risk):
    """Whole-set batches (batch_size >= n), float64: the weighted means are the repeated
    rows' means."""
    X, s, _ = _data(n=80)
    w = np.random.default_rng(2).integers(1, 4, size=80)
    params = {**SMALL, "batch_size": 1000, "dtype": "float64", "epochs": 10}
    a = NNPUClassifier(risk=risk, prior=0.4, scenario=scenario, **params).fit(X, s, sample_weight=w)
    b = NNPUClassifier(risk=risk, prior=0.4, scenario=scenario, **params).fit(np.repeat(X, w, axis=0),
                                                                              np.repeat(s, w))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-9, atol=1e-12)


def test_same_seed_same_model_other_seed_other_model_and_torch_state_untouched():
    X, s, _ = _data()
    threads, rng_state = torch.get_num_threads(), torch.random.get_rng_state()
    params = {**SMALL, "dropout": 0.2}
    a = NNPUClassifier(prior=0.4, n_jobs=2, **params).fit(X, s)
    assert torch.get_num_threads() == threads
    assert torch.equal(torch.random.get_rng_state(), rng_state)
    b = NNPUClassifier(prior=0.4, n_jobs=2, **params).fit(X, s)
    c = NNPUClassifier(prior=0.4, n_jobs=2, **{**params, "random_state": 1}).fit(X, s)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert not np.array_equal(a.decision_function(X), c.decision_function(X))


def _linear(n_features):
    return torch.nn.Linear(n_features, 1)


@pytest.mark.parametrize("params", [
    {"model": "linear"},
    {"model": _linear},
    {"hidden_sizes": (8, 8), "activation": "softsign", "batch_norm": True, "dropout": 0.1},
])
def test_models_fit_and_pickle_without_torch_objects(params):
    X, s, _ = _data()
    est = NNPUClassifier(prior=0.4, **{**SMALL, **params}).fit(X, s)
    data = pickle.dumps(est)
    assert not any(m == "torch" or m.startswith("torch.") for m in pickled_modules(data))
    loaded = pickle.loads(data)
    np.testing.assert_array_equal(loaded.predict_proba(X), est.predict_proba(X))
    np.testing.assert_array_equal(loaded.predict(X), (est.decision_function(X) >= 0).astype(int))


def test_a_model_callable_must_return_a_module_with_one_score_per_row():
    X, s, _ = _data()
    with pytest.raises(TypeError, match="torch.nn.Module"):
        NNPUClassifier(prior=0.4, model=lambda d: "not a module", **SMALL).fit(X, s)
    with pytest.raises(ValueError, match="one score per row"):
        NNPUClassifier(prior=0.4, model=lambda d: torch.nn.Linear(d, 2), **SMALL).fit(X, s)


def test_cuda_without_a_gpu_fails_clearly_and_auto_falls_back():
    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is present")
    X, s, _ = _data()
    with pytest.raises(ValueError, match="device='cuda'.*no CUDA GPU"):
        NNPUClassifier(prior=0.4, device="cuda", **SMALL).fit(X, s)
    assert NNPUClassifier(prior=0.4, device="auto", **SMALL).fit(X, s).device_ == "cpu"


def test_staged_predictions_end_at_the_final_model():
    X, s, _ = _data()
    est = NNPUClassifier(prior=0.4, keep_epoch_states=True, **SMALL).fit(X, s)
    staged = list(est.staged_predict_proba(X))
    assert len(staged) == est.n_epochs_ == SMALL["epochs"]
    np.testing.assert_array_equal(staged[-1], est.predict_proba(X))
    assert not np.array_equal(staged[0], staged[-1])
    np.testing.assert_array_equal(list(est.staged_predict(X))[-1], est.predict(X))
    with pytest.raises(ValueError, match="keep_epoch_states"):
        next(NNPUClassifier(prior=0.4, **SMALL).fit(X, s).staged_predict(X))


def test_early_stopping_keeps_the_epoch_of_lowest_held_out_risk():
    X, s, _ = _data()
    est = NNPUClassifier(prior=0.4, early_stopping=True, n_iter_no_change=2, keep_epoch_states=True,
                         **{**SMALL, "epochs": 30, "learning_rate": 5e-2}).fit(X, s)
    risk = est.history_["validation_risk"]
    assert len(risk) == est.n_epochs_ <= 30 and est.best_epoch_ == int(np.argmin(risk))
    staged = list(est.staged_decision_function(X))
    np.testing.assert_array_equal(staged[est.best_epoch_], est.decision_function(X))


def test_fit_without_torch_names_the_extra(monkeypatch):
    X, s, _ = _data()
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match=r'pip install "pu_lib\[nn\]"'):
        NNPUClassifier(prior=0.4, **SMALL).fit(X, s)


def test_a_last_batch_of_one_row_joins_the_one_before_so_batch_norm_trains():
    from pu_lib.neural._training import batch_bounds

    assert batch_bounds(9, 4) == [(0, 4), (4, 9)] and batch_bounds(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert batch_bounds(1, 4) == [(0, 1)]
    X, s, _ = _data(n=65)
    # batch_iteration="epoch": 65 = 64 + 1 rows ("serial" takes 64 rows every step)
    NNPUClassifier(prior=0.4, batch_norm=True, batch_iteration="epoch", **SMALL).fit(X, s)


# --------------------------------------------------------------- batch_size / epochs "auto"
@pytest.mark.parametrize("n, n_labeled, expected", [
    (200, 40, (200, 100)),        # fewer rows than AUTO_MIN_BATCH: the whole table, the reference's 100 epochs
    (426, 48, (426, 100)),        # Breast Cancer's training rows: as the old defaults (one step per epoch)
    (2381, 371, (512, 100)),      # 5 steps per epoch, 500 steps
    (6093, 947, (512, 85)),       # about 1,000 steps
    (14265, 2775, (512, 36)),
    (61000, 1000, (1952, 32)),    # the nnPU reference's MNIST set: about 32 labeled rows per batch
    (100, 0, (100, 100)),
])
def test_auto_batch_size_and_epochs_follow_the_documented_rule(n, n_labeled, expected):
    from pu_lib.neural.nnpu import auto_batching

    assert auto_batching("auto", "auto", n, n_labeled) == expected


@pytest.mark.parametrize("n", [2, 37, 511, 512, 513, 1000, 5120, 5121, 30000, 61000, 250000])
@pytest.mark.parametrize("share", [0.001, 0.02, 0.3, 1.0])
def test_auto_rule_properties(n, share):
    """Batches of min(n, >= AUTO_MIN_BATCH) rows with about AUTO_LABELED_PER_BATCH labeled
    ones, at most AUTO_MAX_EPOCHS epochs, about AUTO_STEPS Adam steps ("serial"), and an
    integer given for one of the two kept as it is."""
    from pu_lib.neural.nnpu import (AUTO_LABELED_PER_BATCH, AUTO_MAX_EPOCHS, AUTO_MIN_BATCH, AUTO_STEPS,
                                    auto_batching)

    n_labeled = max(1, int(share * n))
    b, e = auto_batching("auto", "auto", n, n_labeled)
    assert min(n, AUTO_MIN_BATCH) <= b <= n and 1 <= e <= AUTO_MAX_EPOCHS
    assert b == n or b * n_labeled / n >= min(AUTO_LABELED_PER_BATCH, n_labeled) - 1e-9
    steps = int(np.ceil(e * n / b))
    assert steps <= AUTO_STEPS + int(np.ceil(n / b))
    assert steps >= min(AUTO_STEPS, AUTO_MAX_EPOCHS * n / b) - 1
    assert auto_batching(64, "auto", n, n_labeled) == (64, min(AUTO_MAX_EPOCHS,
                                                              int(np.ceil(AUTO_STEPS * min(64, n) / n))))
    assert auto_batching("auto", 7, n, n_labeled) == (b, 7)
    assert auto_batching(30000, 100, n, n_labeled) == (30000, 100)


def test_defaults_resolve_at_fit_and_are_recorded():
    X, s, _ = _data(n=200)
    est = NNPUClassifier(prior=0.4, random_state=0, n_jobs=1)
    assert est.get_params()["batch_size"] == "auto" and est.get_params()["epochs"] == "auto"
    est.fit(X, s)
    assert (est.batch_size_, est.epochs_) == (200, 100) and est.n_epochs_ == 100
    assert est.history_["steps"].tolist() == [1] * 100
    assert est.get_params()["batch_size"] == "auto"  # the parameter itself is untouched
    # early stopping: the rule sees the training rows left after the held-out ones
    es = NNPUClassifier(prior=0.4, hidden_sizes=(4,), early_stopping=True, validation_fraction=0.1,
                        n_iter_no_change=1, random_state=0).fit(X, s)
    assert es.batch_size_ == 180 and es.epochs_ == 100 and es.n_epochs_ <= 100


def test_integer_batch_size_and_epochs_are_honoured_unchanged():
    X, s, _ = _data(n=200)
    est = NNPUClassifier(prior=0.4, **SMALL).fit(X, s)  # batch_size 64, 5 epochs, "serial"
    assert (est.batch_size_, est.epochs_, est.n_epochs_) == (64, 5, 5)
    assert int(est.history_["steps"].sum()) == int(np.ceil(5 * 200 / 64))
    # the old defaults passed explicitly: whole-table steps, one per epoch
    old = NNPUClassifier(prior=0.4, hidden_sizes=(8,), batch_size=30000, epochs=3, random_state=0).fit(X, s)
    assert (old.batch_size_, old.epochs_) == (30000, 3) and old.history_["steps"].tolist() == [1, 1, 1]
    # "auto" that resolves to the same numbers gives the identical model
    a = NNPUClassifier(prior=0.4, hidden_sizes=(8,), batch_size="auto", epochs=3, random_state=0).fit(X, s)
    np.testing.assert_array_equal(a.decision_function(X), old.decision_function(X))


@pytest.mark.parametrize("param", ["batch_size", "epochs"])
@pytest.mark.parametrize("value", ["fast", 0, -1, 2.5, None])
def test_bad_batch_size_or_epochs_raise_invalid_parameter_error(param, value):
    from sklearn.utils._param_validation import InvalidParameterError

    X, s, _ = _data(n=40)
    with pytest.raises(InvalidParameterError, match=param):
        NNPUClassifier(prior=0.4, **{param: value}).fit(X, s)
