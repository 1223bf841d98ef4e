"""Self-PU (pu_lib.neural.selfpu): each mechanism changes the fit the way the paper and the
authors' code say -- the self-paced selection (sizes, only unlabeled rows, confident rows
more often right than the average row), the mean teachers (the running mean of their
student's weights), the collaboration between the students (their predictions closer), the
self-calibration weights (the row rule, and only in the self-paced epochs) -- plus the
schedule, the batch order, seeding, pickling and the CNN. Tiny data and networks; skipped
without torch (failed with PU_LIB_REQUIRE_TORCH=1)."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from conftest import torch_or_skip

torch = torch_or_skip()

from pu_lib.neural import SelfPUClassifier  # noqa: E402
from pu_lib.neural.selfpu import (  # noqa: E402
    calibration_weights,
    consistency_weight,
    interleaved_order,
    self_paced_count,
)

#: a small schedule: selections after epochs 2, 4, 6; teachers from epoch 8
SMALL = {"hidden_sizes": (16,), "batch_norm": False, "epochs": 10, "batch_size": 64, "learning_rate": 1e-2,
         "self_paced_start": 2, "self_paced_stop": 8, "self_paced_frequency": 2, "self_paced_ramp": 8,
         "ema_start": 8, "consistency_start": 0, "consistency_rampup": 10, "prior": 0.5, "random_state": 0}


def _blobs(n=600, seed=0, shift=2.0):
    """Two overlapping Gaussian blobs (prior 0.5), 30% of the positives labeled."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.5).astype(np.int64)
    X = rng.normal(size=(n, 3))
    X[:, 0] += shift * y
    s = ((y == 1) & (rng.random(n) < 0.3)).astype(np.int64)
    return X, s, y


def test_self_paced_selection_takes_confident_unlabeled_rows_of_the_documented_size():
    X, s, y = _blobs()
    est = SelfPUClassifier(**SMALL).fit(X, s)
    n_u = int((s == 0).sum())
    for k, top in enumerate((0.4, 0.6)):
        labels = est.pseudo_labels_[k]
        # the last selection (after epoch 6) of int(n_u * 0.5 * 6/8 * top) rows each way
        n = self_paced_count(n_u, 6, ratio=0.5, ramp=8, top=top)
        assert (labels == 1).sum() == n and (labels == 0).sum() == n
        assert np.all(labels[s == 1] == -1)  # never a labeled row
        picked = labels >= 0
        # the selected rows are the ends of the score ranking: their pseudo-labels are right
        # more often than the final network's predictions on the unlabeled rows at large
        # (the self-paced premise; a margin of 0.03 on 300+ rows is ~2 standard errors)
        assert np.mean(labels[picked] == y[picked]) > np.mean(est.predict(X)[s == 0] == y[s == 0]) + 0.03
    assert est.history_["selected"][-1] == 2 * self_paced_count(n_u, 6, ratio=0.5, ramp=8, top=0.4)
    assert est.history_["selected"][1] == 0  # nothing selected before the first selection epoch


def test_without_self_paced_nothing_is_selected_and_the_fit_differs():
    X, s, _ = _blobs(n=300)
    on = SelfPUClassifier(**SMALL).fit(X, s)
    off = SelfPUClassifier(**{**SMALL, "self_paced": False}).fit(X, s)
    assert np.all(off.pseudo_labels_ == -1) and not np.any(off.history_["selected"])
    assert not np.allclose(on.decision_function(X), off.decision_function(X))


def test_teacher_is_the_running_mean_of_its_student_after_the_switch():
    """ema_decay caps a = 1 - 1/(t + 1) only after 1,000 updates, so teacher 1 after epoch
    e is the mean of student 1's weights after epochs ema_start .. e."""
    X, s, _ = _blobs(n=200)
    params = {**SMALL, "self_paced": False, "ema_start": 2, "epochs": 5, "consistency": 0.0, "collaboration": 0.0,
              "keep_epoch_states": True, "dtype": "float64"}
    est = SelfPUClassifier(**params).fit(X, s)
    states = est.epoch_states_
    for name in states[-1]:
        if not name.startswith("nets.2."):
            continue
        student = name.replace("nets.2.", "nets.0.", 1)
        mean = np.mean([states[e][student] for e in (2, 3, 4)], axis=0)
        np.testing.assert_allclose(states[-1][name], mean, rtol=1e-10, atol=1e-12)
    assert est.final_network_ == "teacher1"


def test_collaboration_pulls_the_two_students_together():
    X, s, _ = _blobs(n=300)
    base = {**SMALL, "self_paced": False, "ema_start": 0, "consistency": 0.0, "epochs": 8}
    apart = SelfPUClassifier(**{**base, "collaboration": 0.0}).fit(X, s)
    # a gate of 100 times the objective admits the term on every batch
    together = SelfPUClassifier(**{**base, "collaboration": 100.0}).fit(X, s)
    assert together.history_["collaboration_steps"].sum() > 0 and apart.history_["collaboration_steps"].sum() == 0

    def gap(est):
        Xt = torch.as_tensor(X, dtype=torch.float32)
        with torch.no_grad():
            p1, p2 = (torch.sigmoid(est.module_.nets[k](Xt)).numpy().ravel() for k in (0, 1))
        return float(np.mean((p1 - p2) ** 2))

    assert gap(together) < gap(apart)


def test_calibration_weight_rule_row_by_row():
    """w = max(-grad, 0), w_0 += 1e-10; labeled rows (1, 0); unlabeled rows normalised
    while sum(w_1) < gamma * batch_size, then (1, 0)."""
    grad = -np.array([[0.2, 0.6], [0.1, 0.3], [0.0, 0.5], [0.3, 0.1]])
    labeled = np.array([False, True, False, False])
    w = calibration_weights(grad, labeled, gamma=1.0, batch_size=1)  # limit sum(w_1) >= 1
    # row 0: sum w_1 = 1.5 >= 1 -> (1, 0); row 1 labeled -> (1, 0); row 2: sum = 0.6 < 1 ->
    # normalised (1e-10, 0.5) / 0.5; row 3: sum = 0.1 + 1 - 1e-10*... >= 1 -> (1, 0)
    np.testing.assert_allclose(w[0], [1.0, 0.0])
    np.testing.assert_allclose(w[1], [1.0, 0.0])
    np.testing.assert_allclose(w[2], [2e-10 / (1 + 2e-10), 1.0 / (1 + 2e-10)], rtol=1e-9)
    np.testing.assert_allclose(w[3], [1.0, 0.0])
    # a large budget normalises every unlabeled row
    w = calibration_weights(grad, labeled, gamma=100.0, batch_size=1)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    np.testing.assert_allclose(w[1], [1.0, 0.0])


def test_self_calibration_reweights_only_the_self_paced_epochs():
    X, s, _ = _blobs(n=300)
    plain = SelfPUClassifier(**SMALL).fit(X, s)
    cal = SelfPUClassifier(**{**SMALL, "self_calibration": True}).fit(X, s)
    steps = cal.history_["calibrated_steps"]
    assert np.all(steps[2:8] > 0) and not np.any(steps[:2]) and not np.any(steps[8:])
    assert not np.any(plain.history_["calibrated_steps"])
    assert not np.allclose(cal.decision_function(X), plain.decision_function(X))


def test_consistency_weight_and_cosine_schedule():
    assert consistency_weight(30, 0.3, 30, 400) == pytest.approx(0.3 * math.exp(-5.0))
    assert consistency_weight(430, 0.3, 30, 400) == pytest.approx(0.3)
    assert consistency_weight(10, 0.3, 30, 0) == pytest.approx(0.3)
    X, s, _ = _blobs(n=200)
    est = SelfPUClassifier(**{**SMALL, "epochs": 4, "self_paced": False}).fit(X, s)
    expected = [1e-2 * (1 + math.cos(math.pi * (e + 1) / 4)) / 2 for e in range(4)]
    np.testing.assert_allclose(est.history_["learning_rate"], expected, atol=1e-15)
    assert est.history_["learning_rate"][-1] == pytest.approx(0.0, abs=1e-15)
    assert est.final_network_ == "student1"  # the teachers never ran (ema_start 8 > 3)


def test_interleaved_order_spreads_the_labeled_rows():
    p, u = np.arange(100, 110), np.arange(35)
    order = interleaved_order(p, u)
    r = 35 // 10 + 1
    assert order.shape[0] == 10 * r
    np.testing.assert_array_equal(order[::r], p)
    rest = np.delete(order, np.arange(0, order.shape[0], r))
    assert len(set(rest)) == rest.shape[0] and set(rest) <= set(u)
    # fewer unlabeled than labeled rows: every row once
    assert sorted(interleaved_order(np.arange(5), np.arange(5, 8))) == list(range(8))


def test_same_seed_same_model_pickle_and_cnn13_images():
    X, s, _ = _blobs(n=200)
    params = {**SMALL, "epochs": 3}
    a = SelfPUClassifier(**params).fit(X, s)
    b = SelfPUClassifier(**params).fit(X, s)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(c.decision_function(X), a.decision_function(X))
    # the 13-layer CNN on 2 x 4 x 4 images as flat channel-first rows
    rng = np.random.default_rng(0)
    imgs = rng.normal(size=(64, 32))
    s_img = (rng.random(64) < 0.3).astype(int)
    est = SelfPUClassifier(model="cnn13", input_shape=(2, 4, 4), epochs=1, batch_size=32, prior=0.5,
                           random_state=0).fit(imgs, s_img)
    assert est.predict_proba(imgs).shape == (64, 2)


def test_bad_parameters_are_refused():
    X, s, _ = _blobs(n=100)
    with pytest.raises(ValueError, match="self_paced_top"):
        SelfPUClassifier(**{**SMALL, "self_paced_top": (0.4,)}).fit(X, s)
    with pytest.raises(ValueError, match="final_network"):
        SelfPUClassifier(**{**SMALL, "final_network": "best"}).fit(X, s)
    with pytest.raises(TypeError):
        SelfPUClassifier(0.5)  # keyword-only
