"""The networks' initialisation (``init="chainer"`` / ``"pytorch"``, pu_lib.neural._models)
and three input checks of the neural estimators: a read-only ``X`` (no torch warning),
``batch_size=1`` with batch norm (a ``ValueError`` naming both) and ``gamma`` outside
[0, 1] (refused, as the nnPU reference's ``PULoss``). Tiny data and networks; skipped
without torch (failed with PU_LIB_REQUIRE_TORCH=1)."""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from conftest import torch_or_skip

torch = torch_or_skip()

from pu_lib.neural import NNPUClassifier, VPUClassifier  # noqa: E402
from pu_lib.neural._models import build_model  # noqa: E402

SMALL = {"hidden_sizes": (8,), "epochs": 3, "batch_size": 32, "learning_rate": 1e-2, "random_state": 0}


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)
    s = ((y == 1) & (rng.random(n) < 0.5)).astype(np.int64)
    return X, s


def _linears(module):
    return [m for m in module.modules() if isinstance(m, torch.nn.Linear)]


def _batch_norms(module):
    return [m for m in module.modules() if isinstance(m, torch.nn.BatchNorm1d)]


def _mlp(init, seed=0, batch_norm=True):
    torch.manual_seed(seed)
    return build_model(torch, "mlp", 50, hidden_sizes=(200, 200), batch_norm=batch_norm, init=init)


# ------------------------------------------------------------------ init
@pytest.mark.parametrize("batch_norm", [True, False])
def test_chainer_init_is_lecun_normal_weights_zero_biases_and_chainer_batch_norm(batch_norm):
    module = _mlp("chainer", batch_norm=batch_norm)
    layers = _linears(module)
    assert [(m.in_features, m.out_features) for m in layers] == [(50, 200), (200, 200), (200, 1)]
    for m in layers:
        w = m.weight.detach().double().numpy().ravel()
        n, target = w.size, math.sqrt(1.0 / m.in_features)
        # the sample std of n i.i.d. N(0, t^2) draws has relative standard error about
        # 1 / sqrt(2 n): 0.7% (50 x 200), 0.35% (200 x 200), 5% (the last layer's 200):
        # 6 standard errors, so a false failure is out of the question while PyTorch's
        # uniform (std t / sqrt(3), 42% lower) fails every layer
        assert abs(w.std() / target - 1.0) < 6.0 / math.sqrt(2 * n), (m, w.std(), target)
        assert abs(w.mean()) < 6.0 * target / math.sqrt(n)
        # normal, not uniform on (-t, t): about 32% of the draws lie beyond t
        assert np.mean(np.abs(w) > target) > 0.2
        if m.bias is not None:
            assert torch.count_nonzero(m.bias) == 0
    # with batch norm the hidden layers have no bias (the reference's nobias=True), the last one a zero bias
    assert [m.bias is None for m in layers] == ([True, True, False] if batch_norm else [False, False, False])
    bns = _batch_norms(module)
    assert len(bns) == (2 if batch_norm else 0)
    for bn in bns:
        assert bn.eps == 2e-5 and bn.momentum == pytest.approx(0.1)  # Chainer's eps, decay 0.9
        assert torch.all(bn.weight == 1) and torch.all(bn.bias == 0)
        assert torch.all(bn.running_mean == 0) and torch.all(bn.running_var == 1)


def test_pytorch_init_keeps_torchs_defaults():
    module = _mlp("pytorch")
    first, last = _linears(module)[0], _linears(module)[-1]
    w = first.weight.detach().double().numpy()
    bound = 1.0 / math.sqrt(first.in_features)
    assert np.abs(w).max() <= bound  # uniform on (-1/sqrt(fan_in), 1/sqrt(fan_in))
    assert abs(w.std() / (bound / math.sqrt(3.0)) - 1.0) < 6.0 / math.sqrt(2 * w.size)
    assert torch.count_nonzero(last.bias) == 1  # a random last-layer bias
    assert all(bn.eps == 1e-5 for bn in _batch_norms(module))


def test_chainer_init_of_the_linear_model():
    torch.manual_seed(0)
    (layer,) = _linears(build_model(torch, "linear", 400, init="chainer"))
    w = layer.weight.detach().double().numpy().ravel()
    assert abs(w.std() / math.sqrt(1 / 400) - 1.0) < 6.0 / math.sqrt(2 * w.size)  # 400 draws: tolerance 21%
    assert float(layer.bias.detach()) == 0.0


def test_a_callable_model_is_built_as_it_is_whatever_init():
    def net(d):
        return torch.nn.Sequential(torch.nn.Linear(d, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(),
                                   torch.nn.Linear(4, 1))

    states = []
    for init in ("chainer", "pytorch"):
        torch.manual_seed(3)
        module = build_model(torch, net, 5, init=init)
        states.append({k: v.clone() for k, v in module.state_dict().items()})
        assert _batch_norms(module)[0].eps == 1e-5
    assert all(torch.equal(states[0][k], states[1][k]) for k in states[0])


def test_the_estimators_defaults_and_the_fitted_networks():
    assert NNPUClassifier().init == "chainer" and VPUClassifier().init == "pytorch"
    X, s = _data()
    nn = NNPUClassifier(prior=0.4, batch_norm=True, **SMALL).fit(X, s)
    assert _batch_norms(nn.module_)[0].eps == 2e-5
    vpu = VPUClassifier(batch_norm=True, **SMALL).fit(X, s)
    assert _batch_norms(vpu.module_)[0].eps == 1e-5
    vpu_c = VPUClassifier(batch_norm=True, init="chainer", **SMALL).fit(X, s)
    assert _batch_norms(vpu_c.module_)[0].eps == 2e-5
    with pytest.raises(InvalidParameterError, match="init"):
        NNPUClassifier(prior=0.4, init="keras", **SMALL).fit(X, s)


@pytest.mark.parametrize("init", ["chainer", "pytorch"])
def test_the_same_seed_gives_the_same_model_and_init_changes_it(init):
    X, s = _data()
    kw = {"prior": 0.4, "batch_norm": True, "hidden_sizes": (16, 16), **{k: v for k, v in SMALL.items()
                                                                         if k != "hidden_sizes"}}
    a = NNPUClassifier(init=init, **kw).fit(X, s)
    b = NNPUClassifier(init=init, **kw).fit(X, s)
    other = NNPUClassifier(init="pytorch" if init == "chainer" else "chainer", **kw).fit(X, s)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert not np.array_equal(a.decision_function(X), other.decision_function(X))
    # the rebuilt network (unpickled) keeps the batch norm's eps, which is not in the state dict
    c = pickle.loads(pickle.dumps(a))
    assert _batch_norms(c.module_)[0].eps == _batch_norms(a.module_)[0].eps
    np.testing.assert_array_equal(c.decision_function(X), a.decision_function(X))


def test_an_estimator_pickled_before_init_existed_is_rebuilt_with_pytorchs_batch_norm():
    X, s = _data()
    est = NNPUClassifier(prior=0.4, batch_norm=True, init="pytorch", **SMALL).fit(X, s)
    state = est.__getstate__()
    del state["init"]  # as pickled before the option
    old = NNPUClassifier.__new__(NNPUClassifier)
    old.__setstate__(pickle.loads(pickle.dumps(state)))
    assert old.init == "pytorch" and _batch_norms(old.module_)[0].eps == 1e-5
    np.testing.assert_array_equal(old.decision_function(X), est.decision_function(X))


# ------------------------------------------------------------------ read-only input
@pytest.mark.parametrize("cls", [NNPUClassifier, VPUClassifier])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_read_only_X_gives_no_torch_warning_and_the_same_model(cls, dtype):
    X, s = _data()
    X = X.astype(dtype)
    w = np.ones(X.shape[0])
    Xr, wr = X.copy(), w.copy()
    Xr.flags.writeable = False
    wr.flags.writeable = False
    kw = {"prior": 0.4} if cls is NNPUClassifier else {}
    ref = cls(**kw, **SMALL).fit(X, s, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch's "The given NumPy array is not writable" is a UserWarning
        model = cls(**kw, **SMALL).fit(Xr, s, sample_weight=wr)
        d = model.decision_function(Xr)
        model.predict_proba(Xr)
    np.testing.assert_array_equal(d, ref.decision_function(X))
    assert not Xr.flags.writeable  # the caller's array is left as it was


# ------------------------------------------------------------------ batch norm and one-row batches
@pytest.mark.parametrize("cls", [NNPUClassifier, VPUClassifier])
def test_batch_size_1_with_batch_norm_is_refused_by_name(cls):
    X, s = _data(40)
    kw = {"prior": 0.4} if cls is NNPUClassifier else {}
    with pytest.raises(ValueError, match=r"batch_size=1 with batch_norm=True"):
        cls(**kw, hidden_sizes=(4,), batch_norm=True, batch_size=1, epochs=1, random_state=0).fit(X, s)
    # without batch norm (or without hidden layers, hence no batch norm) a batch of one row is fine
    cls(**kw, hidden_sizes=(4,), batch_norm=False, batch_size=1, epochs=1, random_state=0).fit(X, s)
    cls(**kw, hidden_sizes=(), batch_norm=True, batch_size=1, epochs=1, random_state=0).fit(X, s)


def _bn_net(d):
    return torch.nn.Sequential(torch.nn.Linear(d, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 1))


def test_a_one_row_batch_reaching_a_callables_batch_norm_names_batch_size():
    X, s = _data(40)
    with pytest.raises(ValueError, match=r"training batch of 1 row reached a batch norm layer \(batch_size=1"):
        NNPUClassifier(prior=0.4, model=_bn_net, batch_size=1, epochs=1, random_state=0).fit(X, s)


@pytest.mark.parametrize("iteration", ["epoch", "serial"])
def test_a_last_batch_of_one_row_never_reaches_batch_norm(iteration):
    X, s = _data(41)  # 41 = 2 * 20 + 1: "epoch" joins the 1-row last batch to the one before
    NNPUClassifier(prior=0.4, hidden_sizes=(4,), batch_norm=True, batch_size=20, batch_iteration=iteration,
                   epochs=2, random_state=0).fit(X, s)


# ------------------------------------------------------------------ gamma
def test_gamma_is_limited_to_the_references_range():
    X, s = _data(40)
    for gamma in (1.5, -0.1):
        with pytest.raises(InvalidParameterError, match="gamma"):
            NNPUClassifier(prior=0.4, gamma=gamma, epochs=1).fit(X, s)
    for gamma in (0.0, 1.0):
        NNPUClassifier(prior=0.4, gamma=gamma, hidden_sizes=(4,), epochs=1, random_state=0).fit(X, s)
