"""The PU-HDT paper's half-moons illustration (Section 3.2, Figure 2): data generator,
decision-region figure and the paper's reading of it, measured."""

import numpy as np
import pytest

from pu_lib.datasets import make_imbalanced_moons
from pu_lib.workflow.experiments.half_moons import half_moons
from pu_lib.workflow.figures import decision_regions, save_figure

OPTIONS = {"n_samples": 2000, "prior": 0.05, "flip_ratio": 0.5, "noise": 0.1, "max_depth": 5}


def test_imbalanced_moons_prior_and_geometry():
    X, y = make_imbalanced_moons(2000, 0.05, 0.1, random_state=3)
    assert X.shape == (2000, 2) and int(y.sum()) == 100
    # positives on the lower moon (scikit-learn's inner moon: centred lower, y in [-0.5, 0.5])
    assert X[y == 1, 1].mean() < X[y == 0, 1].mean()
    X2, y2 = make_imbalanced_moons(2000, 0.05, 0.1, random_state=3)
    np.testing.assert_array_equal(X, X2)
    with pytest.raises(ValueError, match="prior"):
        make_imbalanced_moons(100, 1.5)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pu_hdt_finds_the_hidden_positives_that_cart_misses(seed):
    # the paper: "only a few unlabeled positives fall into the blue regions" of CART, while
    # for PU-HDT "most of the unlabeled positives fall into the blue regions"
    fig, summary = half_moons(OPTIONS, seed)
    rec = summary.set_index("model")["hidden_positives_predicted_positive"]
    fp = summary.set_index("model")["negatives_predicted_positive"]
    assert list(summary["model"]) == ["CART", "HDT", "PU-HDT"]
    assert rec["PU-HDT"] > 0.5 > rec["CART"]
    assert rec["PU-HDT"] > rec["HDT"]
    assert fp["PU-HDT"] < 0.02          # ... without claiming the negatives


def test_decision_regions_figure(tmp_path):
    from pu_lib.trees import PNDecisionTreeClassifier

    X, y = make_imbalanced_moons(300, 0.1, random_state=0)
    m = PNDecisionTreeClassifier(max_depth=3).fit(X, y)
    fig = decision_regions({"a": m, "b": m}, X, y, y)
    assert len(fig.axes) == 2 and [ax.get_title() for ax in fig.axes] == ["a", "b"]
    (png,) = save_figure(fig, tmp_path / "f.png")
    assert png.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="2-D points"):
        decision_regions({"a": m}, np.c_[X, X], y, y)
