"""``random_state`` takes what scikit-learn takes, plus a ``numpy.random.Generator``: None,
an int, a legacy ``numpy.random.RandomState`` (drawn from once for a seed, so a fresh
``RandomState(0)`` gives the same fit every time) or a Generator."""

import numpy as np
import pytest

from conftest import two_gaussians
from pu_lib.workflow import registry
from pu_lib._seeding import check_random_state, seed_to_int


def test_a_random_state_object_is_drawn_from_once_per_seed():
    assert seed_to_int(np.random.RandomState(0)) == seed_to_int(np.random.RandomState(0))
    rs = np.random.RandomState(0)
    first, second = seed_to_int(rs), seed_to_int(rs)
    assert first != second and 0 <= first < 2**32 and 0 <= second < 2**32
    a = check_random_state(np.random.RandomState(3)).random(4)
    np.testing.assert_array_equal(a, check_random_state(np.random.RandomState(3)).random(4))
    with pytest.raises(ValueError, match="RandomState"):
        seed_to_int("seed")


@pytest.mark.parametrize("name", registry.names())
def test_every_registered_method_accepts_a_random_state_object(name):
    est = registry.make_estimator(name, random_state=np.random.RandomState(0))
    if "random_state" in est.get_params():
        est._validate_params()


@pytest.mark.parametrize("name", ["pu_extra_trees", "elkan_noto", "sar_em"])
def test_two_fresh_random_states_with_one_seed_give_the_same_model(name):
    X, s, _ = two_gaussians(n=300, seed=1)
    params = {"n_estimators": 3, "prior": 0.4} if name == "pu_extra_trees" else {}
    if name == "sar_em":
        params = {"propensity_attributes": [0], "max_iter": 5}
    fits = [registry.make_estimator(name, params, random_state=np.random.RandomState(7)).fit(X, s)
            for _ in range(2)]
    np.testing.assert_array_equal(fits[0].predict_proba(X), fits[1].predict_proba(X))
