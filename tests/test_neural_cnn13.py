"""``model="cnn13"``: the nnPU reference's CIFAR-10 CNN (kiryor/nnPUlearning ``model.py``,
``CNN``), the PU Extra Trees paper's (32*32*3,1)-[C(3*3,96,1)]*2-C(3*3,96,2)-
[C(3*3,192,1)]*2-C(3*3,192,2)-C(3*3,192,1)-C(1*1,192,1)-C(1*1,10,1)-1000-1000-1
(pu_lib.neural._models). Tiny images (3 x 8 x 8) keep each test short; skipped without
torch (failed with PU_LIB_REQUIRE_TORCH=1)."""

from __future__ import annotations

import math
import pickle
import re

import numpy as np
import pytest

from conftest import torch_or_skip

torch = torch_or_skip()

from pu_lib.neural import NNPUClassifier, VPUClassifier  # noqa: E402
from pu_lib.neural._models import CNN13_CONVS, build_model  # noqa: E402

SHAPE = (3, 8, 8)
D = 3 * 8 * 8


def _images(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, D)).astype(np.float32)
    s = np.zeros(n, dtype=np.int64)
    s[: n // 4] = 1
    return X, s


def _layers(module, kind):
    return [m for m in module.modules() if isinstance(m, kind)]


def test_layers_match_the_paper():
    """(32*32*3,1)-[C(3*3,96,1)]*2-C(3*3,96,2)-[C(3*3,192,1)]*2-C(3*3,192,2)-C(3*3,192,1)-
    C(1*1,192,1)-C(1*1,10,1)-1000-1000-1, each convolution with batch norm and ReLU (the
    reference's b1..b9, F.relu), the 3x3 ones padded by 1."""
    paper = "[C(3*3,96,1)]*2-C(3*3,96,2)-[C(3*3,192,1)]*2-C(3*3,192,2)-C(3*3,192,1)-C(1*1,192,1)-C(1*1,10,1)"
    paper = re.sub(r"\[(C\([^)]*\))\]\*2", r"\1-\1", paper)
    expanded = [(int(k), int(c), int(st)) for k, c, st in re.findall(r"C\((\d)\*\d,(\d+),(\d)\)", paper)]
    assert tuple(expanded) == CNN13_CONVS
    m = build_model(torch, "cnn13", 3072)
    convs = _layers(m, torch.nn.Conv2d)
    assert len(convs) == 9
    assert [(c.kernel_size[0], c.out_channels, c.stride[0]) for c in convs] == list(CNN13_CONVS)
    assert [c.in_channels for c in convs] == [3, 96, 96, 96, 192, 192, 192, 192, 192]
    assert [c.padding[0] for c in convs] == [1] * 7 + [0, 0]
    assert all(c.bias is not None for c in convs)
    bns = _layers(m, torch.nn.BatchNorm2d)
    assert [b.num_features for b in bns] == [c.out_channels for c in convs]
    linears = _layers(m, torch.nn.Linear)
    # 32 -> 16 -> 8 after the two stride-2 convolutions: 10 * 8 * 8 inputs to fc1
    assert [(l.in_features, l.out_features) for l in linears] == [(640, 1000), (1000, 1000), (1000, 1)]
    assert len(_layers(m, torch.nn.ReLU)) == 9 + 2
    assert not _layers(m, torch.nn.Dropout)
    # order: conv, batch norm, ReLU, ... flatten, fc, ReLU, fc, ReLU, fc
    kinds = [type(x).__name__ for x in m]
    assert kinds[0] == "Unflatten" and kinds[1:28] == ["Conv2d", "BatchNorm2d", "ReLU"] * 9
    assert kinds[28:] == ["Flatten", "Linear", "ReLU", "Linear", "ReLU", "Linear"]


def test_forward_shape_and_chainer_init():
    torch.manual_seed(0)
    m = build_model(torch, "cnn13", 3072, init="chainer")
    assert m(torch.randn(5, 3072)).shape == (5, 1)
    for conv in _layers(m, torch.nn.Conv2d):
        fan_in = conv.in_channels * conv.kernel_size[0] * conv.kernel_size[1]
        assert float(conv.bias.detach().abs().max()) == 0.0
        assert abs(float(conv.weight.detach().std()) - math.sqrt(1.0 / fan_in)) < 0.25 * math.sqrt(1.0 / fan_in)
    assert all(b.eps == 2e-5 for b in _layers(m, torch.nn.BatchNorm2d))
    assert all(b.eps == 1e-5 for b in _layers(build_model(torch, "cnn13", D, init="pytorch", input_shape=SHAPE),
                                               torch.nn.BatchNorm2d))
    small = build_model(torch, "cnn13", D, input_shape=SHAPE)
    assert small(torch.randn(3, D)).shape == (3, 1)
    assert _layers(small, torch.nn.Linear)[0].in_features == 10 * 2 * 2


def test_flat_rows_are_channel_first_images():
    """A flat row is C*H*W values channel-first (the CIFAR-10 archive's R, G, B planes):
    the network on flat rows equals its convolutions on X.reshape(n, C, H, W)."""
    torch.manual_seed(1)
    m = build_model(torch, "cnn13", D, input_shape=SHAPE).eval()
    X4 = torch.randn(4, *SHAPE)
    with torch.no_grad():
        flat = m(X4.reshape(4, -1))
        direct = torch.nn.Sequential(*list(m)[1:])(X4)
    assert torch.equal(flat, direct)


def test_nnpu_fit_predict_one_epoch_and_pickle():
    X, s = _images()
    kw = dict(model="cnn13", input_shape=SHAPE, prior=0.4, epochs=1, batch_size=20, random_state=0)
    clf = NNPUClassifier(**kw).fit(X, s)
    assert clf.history_["steps"].tolist() == [2]
    d = clf.decision_function(X)
    assert d.shape == (40,) and np.all(np.isfinite(d))
    assert set(np.unique(clf.predict(X))) <= {0, 1}
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(clf)).decision_function(X), d)


def test_deterministic_given_random_state_and_4d_reshape():
    """(n, C, H, W) images reshaped to flat rows, refitted with the same random_state: the
    same network and scores; another random_state: other scores."""
    X, s = _images(n=20)
    kw = dict(model="cnn13", input_shape=SHAPE, prior=0.4, epochs=1, batch_size=10, random_state=0)
    d = NNPUClassifier(**kw).fit(X, s).decision_function(X)
    X4 = X.reshape(20, *SHAPE)
    np.testing.assert_array_equal(NNPUClassifier(**kw).fit(X4.reshape(20, -1), s).decision_function(X), d)
    other = NNPUClassifier(**{**kw, "random_state": 1}).fit(X, s).decision_function(X)
    assert not np.array_equal(other, d)


def test_vpu_accepts_cnn13():
    X, s = _images(n=24)
    clf = VPUClassifier(model="cnn13", input_shape=SHAPE, epochs=1, batch_size=12, random_state=0).fit(X, s)
    assert clf.predict_proba(X).shape == (24, 2)


def test_width_must_match_input_shape():
    X, s = _images(n=10)
    with pytest.raises(ValueError, match=r"input_shape=\(3, 32, 32\) needs rows of 3072 values"):
        NNPUClassifier(model="cnn13", prior=0.4, epochs=1).fit(X, s)
    with pytest.raises(ValueError, match="needs rows of 48 values"):
        NNPUClassifier(model="cnn13", input_shape=(3, 4, 4), prior=0.4, epochs=1).fit(X, s)
    with pytest.raises(ValueError, match="three positive integers"):
        NNPUClassifier(model="cnn13", input_shape=(3, 64), prior=0.4, epochs=1).fit(X, s)
    with pytest.raises(ValueError, match="batch norm"):
        NNPUClassifier(model="cnn13", input_shape=SHAPE, prior=0.4, epochs=1, batch_size=1).fit(X, s)
    # 4-D arrays are not accepted: flat rows only
    with pytest.raises(ValueError):
        NNPUClassifier(model="cnn13", input_shape=SHAPE, prior=0.4, epochs=1).fit(X.reshape(10, *SHAPE), s)
