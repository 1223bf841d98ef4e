"""Mechanisms by name, their parameter checks, determinism, and make_label_set frames."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from labeling_data import binary_data, make_y, two_subclasses

from pu_lib._rounding import round_half_up
from pu_lib._validation import CASE_CONTROL, SINGLE_TRAINING_SET
from pu_lib.labeling import (
    MECHANISMS,
    SCENARIOS,
    apply_mechanism,
    case_control,
    label_set_metadata,
    make_label_set,
    pulsnar_alpha,
    sar_bekker,
    sar_propensity,
    scale_minus1_1,
    scar_count,
    scar_flip_ratio,
    scar_label_frequency,
    snar_probability,
    snar_subclass,
    subsample,
    validate_mechanism_params,
)


def test_public_api_reexports_every_mechanism_and_the_package_scenarios():
    import pu_lib.labeling as labeling

    assert SCENARIOS == ("single_training_set", "case_control")
    assert set(MECHANISMS) == {"scar_c", "scar_flip", "scar_count", "case_control", "sar", "snar_subclass",
                               "snar_prob", "pulsnar_alpha"}
    missing = [name for name in labeling.__all__ if not hasattr(labeling, name)]
    assert missing == []


def test_importing_labeling_does_not_load_scikit_learn():
    code = "import sys, pu_lib.labeling; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------------------- determinism


def _all_mechanism_calls(X, y, groups):
    return {
        "scar_c": lambda rs: scar_label_frequency(y, 0.3, rs),
        "scar_flip": lambda rs: scar_flip_ratio(y, 0.5, rs),
        "scar_count": lambda rs: scar_count(y, 100, rs),
        "case_control": lambda rs: case_control(y, 100, rs),
        "sar": lambda rs: sar_bekker(X, y, 2, random_state=rs),
        "snar_subclass": lambda rs: snar_subclass(y, groups, 40, rs),
        "snar_prob": lambda rs: snar_probability(X, y, random_state=rs),
        "pulsnar_alpha": lambda rs: pulsnar_alpha(y, 0.2, snar=True, groups=groups, random_state=rs),
    }


def test_every_mechanism_repeats_its_draw_for_a_seed_and_changes_it_for_another():
    X, y = binary_data()
    groups = two_subclasses(X, y)
    calls = _all_mechanism_calls(X, y, groups)
    assert set(calls) == set(MECHANISMS)
    for name, call in calls.items():
        a, b, c = call(7), call(7), call(8)
        np.testing.assert_array_equal(a.s, b.s, err_msg=name)
        np.testing.assert_array_equal(a.propensity, b.propensity, err_msg=name)
        assert not np.array_equal(a.s, c.s), name
        g1, g2 = call(np.random.default_rng(3)), call(np.random.default_rng(3))
        np.testing.assert_array_equal(g1.s, g2.s, err_msg=name)


def test_mechanisms_leave_the_global_numpy_state_untouched():
    X, y = binary_data(n=500)
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    make_label_set(X, y, mechanism="sar", params={"k": 2}, val_size=0.2, random_state=0)
    scar_label_frequency(y, 0.5, random_state=0)
    np.testing.assert_array_equal(np.random.get_state()[1], before)


# ----------------------------------------------------------------------------- label sets


@pytest.mark.parametrize(
    "mechanism,params",
    [
        ("scar_c", {"c": 0.3}),
        ("scar_flip", {"flip_ratio": 0.5}),
        ("scar_count", {"n_labeled": 80}),
        ("case_control", {"n_labeled": 80}),
        ("sar", {"k": 2}),
        ("snar_subclass", {"n_labeled_per_group": {1: 30, 2: 50}}),
        ("snar_prob", {}),
    ],
)
def test_make_label_set_frame_layout_and_determinism_for_every_mechanism(mechanism, params):
    X, y = binary_data(n=3000)
    groups = two_subclasses(X, y)
    kw = dict(mechanism=mechanism, params=params, test_size=0.3, val_size=0.25, groups=groups)
    a = make_label_set(X, y, random_state=5, **kw)
    b = make_label_set(X, y, random_state=5, **kw)
    c = make_label_set(X, y, random_state=6, **kw)
    pd.testing.assert_frame_equal(a, b)
    assert not a["s"].equals(c["s"]) or not a["row"].equals(c["row"])
    assert list(a.columns) == ["row", "split", "y", "s", "propensity", "scenario"]
    assert a["row"].dtype == np.int64 and a["y"].dtype == np.int8 and a["s"].dtype == np.int8
    assert a["propensity"].dtype == np.float64
    assert list(a["split"].cat.categories) == ["train", "val", "test"]
    assert np.all(a.loc[a["y"] == 0, "s"] == 0)
    assert np.all(a.loc[a["split"] == "test", "s"] == 0)
    np.testing.assert_array_equal(a["y"].to_numpy(), y[a["row"].to_numpy()])
    assert sorted(a["row"]) == list(range(3000))
    # sorted by split (train, val, test) then row
    codes = a["split"].cat.codes.to_numpy()
    assert np.all(np.diff(codes) >= 0)
    for name in ("train", "val", "test"):
        assert a.loc[a["split"] == name, "row"].is_monotonic_increasing
    assert a["s"][a["split"] == "train"].sum() > 0 and a["s"][a["split"] == "val"].sum() > 0
    meta = label_set_metadata(a)
    assert meta["mechanism"] == mechanism and meta["scenario"] == a["scenario"].iloc[0]
    assert meta["params"]["mechanism_params"] == json.loads(json.dumps(validate_mechanism_params(mechanism, params)))
    # label files store the package's one spelling of the scenario (underscores)
    if mechanism == "case_control":
        assert set(a["scenario"]) == {"case_control"} == {CASE_CONTROL}
    else:
        assert set(a["scenario"]) == {"single_training_set"} == {SINGLE_TRAINING_SET}


def test_make_label_set_splits_exactly_and_subsamples_by_class():
    rng = np.random.default_rng(0)
    n = 30000
    X = (rng.random((n, 5)) < 0.5).astype(float)
    y = (rng.random(n) < 0.2).astype(int)
    df = make_label_set(X, y, mechanism="scar_c", params={"c": 0.4}, test_size=0.3, val_size=0.2,
                        max_samples=10000, random_state=1)
    assert len(df) == 10000 and df["row"].is_unique
    sub = subsample(n, 10000, stratify=y, random_state=0)  # same class allocation as the label set
    assert df["y"].sum() == y[sub].sum()
    n_pos, n_neg = int(df["y"].sum()), int((df["y"] == 0).sum())
    parts = {k: g for k, g in df.groupby("split", observed=False)}
    te, va, tr = parts["test"], parts["val"], parts["train"]
    # exact stratification of the holdout and of the validation split
    assert te["y"].sum() == round_half_up(0.3 * n_pos) and (te["y"] == 0).sum() == round_half_up(0.3 * n_neg)
    tr_pos, tr_neg = n_pos - te["y"].sum(), n_neg - (te["y"] == 0).sum()
    assert va["y"].sum() == round_half_up(0.2 * tr_pos) and (va["y"] == 0).sum() == round_half_up(0.2 * tr_neg)
    assert len(tr) + len(va) + len(te) == 10000
    assert set(tr["row"]).isdisjoint(va["row"]) and set(tr["row"]).isdisjoint(te["row"])
    assert set(va["row"]).isdisjoint(te["row"])
    assert abs(len(te) / 10000 - 0.3) < 0.001 and abs(len(va) / 7000 - 0.2) < 0.001
    # exact c in train and in val
    for part in (tr, va):
        assert part["s"].sum() == round_half_up(0.4 * part["y"].sum())
    # the union is the stratified subsample of the original rows: it follows the data
    assert df["row"].max() < n and np.all(df["y"].to_numpy() == y[df["row"].to_numpy()])
    # no subsampling when max_samples >= n; test_size=0 gives no test rows
    df2 = make_label_set(X[:500], y[:500], mechanism="scar_flip", params={"flip_ratio": 0.25},
                         test_size=0.0, max_samples=10000, random_state=0)
    assert len(df2) == 500 and set(df2["split"]) == {"train"}
    assert df2["s"].sum() == df2["y"].sum() - round_half_up(0.25 * df2["y"].sum())


def test_make_label_set_predefined_split_replaces_the_random_holdout():
    X, y = binary_data(n=1000)
    split = np.where(np.arange(1000) < 700, "train", "test")
    df = make_label_set(X, y, mechanism="scar_c", params={"c": 0.5}, predefined_split=split, random_state=0)
    assert sorted(df.loc[df["split"] == "test", "row"]) == list(range(700, 1000))
    assert json.loads(df.attrs["params"])["test_size"] is None
    with pytest.raises(ValueError, match="only hold 'train' and 'test'"):
        make_label_set(X, y, mechanism="scar_c", params={"c": 0.5}, predefined_split=np.full(1000, "val"))


def test_make_label_set_count_mechanisms_label_val_with_train_frequency():
    X, y = binary_data(n=4000)
    df = make_label_set(X, y, mechanism="scar_count", params={"n_labeled": 150}, val_size=0.25, random_state=2)
    tr, va, te = (df[df["split"] == k] for k in ("train", "val", "test"))
    assert tr["s"].sum() == 150
    c_tr = 150 / tr["y"].sum()
    assert va["s"].sum() == max(1, round_half_up(c_tr * va["y"].sum()))
    np.testing.assert_allclose(te["propensity"], c_tr)
    assert json.loads(df.attrs["params"])["val_mechanism"] == "scar_c"


def test_make_label_set_sar_shares_one_propensity_function_over_all_splits():
    X, y = binary_data(n=3000)
    df = make_label_set(X, y, mechanism="sar", params={"k": 2}, val_size=0.2, max_samples=2000, random_state=4)
    params = label_set_metadata(df)["params"]
    attrs, signs = params["attributes"], params["signs"]
    rows = np.sort(df["row"].to_numpy())
    e = sar_propensity(scale_minus1_1(X[rows][:, attrs]) * np.array(signs))
    got = df.set_index("row").loc[rows, "propensity"].to_numpy()
    np.testing.assert_allclose(got, e)
    assert not df["propensity"].isna().any()


def test_make_label_set_sar_k0_is_scar_with_the_midpoint_label_frequency():
    X, y = binary_data(n=3000)
    df = make_label_set(X, y, mechanism="sar", params={"k": 0, "p_minus": 0.1, "p_plus": 0.7},
                        val_size=0.2, random_state=4)
    params = label_set_metadata(df)["params"]
    assert params["attributes"] == [] and params["signs"] == [] and params["k"] == 0
    np.testing.assert_array_equal(df["propensity"].to_numpy(), (0.1 + 0.7) / 2)  # on every split
    tr = df[(df["split"] == "train") & (df["y"] == 1)]
    se = (0.4 * 0.6 / len(tr)) ** 0.5
    assert abs(tr["s"].mean() - 0.4) < 4 * se


@pytest.mark.parametrize("selection", ["correlated", "anticorrelated"])
def test_make_label_set_sar_correlated_selections(selection):
    X, y = binary_data(n=3000)
    df = make_label_set(X, y, mechanism="sar", params={"k": 2, "selection": selection}, random_state=1)
    params = label_set_metadata(df)["params"]
    assert params["selection"] == selection and 0 in params["attributes"]  # y depends on column 0
    e = df["propensity"].to_numpy()
    pos, neg = df["y"].to_numpy() == 1, df["y"].to_numpy() == 0
    if selection == "correlated":
        assert e[pos].mean() > e[neg].mean() + 0.1
    else:
        assert e[pos].mean() < e[neg].mean() - 0.1


def test_make_label_set_snar_subclass_gives_test_rows_their_subclass_propensity():
    X, y = binary_data(n=3000)
    groups = two_subclasses(X, y)
    df = make_label_set(X, y, mechanism="snar_subclass", params={"n_labeled_per_group": {1: 20, 2: 60}},
                        groups=groups, random_state=0)
    tr = df[df["split"] == "train"]
    g_tr = groups[tr["row"].to_numpy()]
    assert tr["s"][g_tr == 1].sum() == 20 and tr["s"][g_tr == 2].sum() == 60
    te = df[df["split"] == "test"]
    g_te = groups[te["row"].to_numpy()]
    assert te["propensity"][g_te == 0].isna().all()
    e2 = tr["propensity"][g_tr == 2].iloc[0]
    assert e2 == pytest.approx(60 / (g_tr == 2).sum())
    np.testing.assert_allclose(te["propensity"][g_te == 2], e2)


def test_make_label_set_scenario_survives_parquet_through_its_column(tmp_path):
    pytest.importorskip("pyarrow")
    y = make_y(600, 200)
    df = make_label_set(None, y, mechanism="case_control", params={"n_labeled": 50}, random_state=0)
    path = tmp_path / "ls.parquet"
    df.to_parquet(path, index=False)
    back = pd.read_parquet(path)
    assert label_set_metadata(back)["scenario"] == "case_control"
    np.testing.assert_array_equal(back["s"].to_numpy(), df["s"].to_numpy())


def test_make_label_set_equal_generators_give_equal_frames():
    y = make_y(500, 100)
    a = make_label_set(None, y, mechanism="scar_c", params={"c": 0.5}, random_state=np.random.default_rng(1))
    b = make_label_set(None, y, mechanism="scar_c", params={"c": 0.5}, random_state=np.random.default_rng(1))
    c = make_label_set(None, y, mechanism="scar_c", params={"c": 0.5}, random_state=np.random.default_rng(2))
    pd.testing.assert_frame_equal(a, b)
    assert not a["row"].equals(c["row"]) or not a["s"].equals(c["s"])


# ----------------------------------------------------------------------------- validation


def test_validate_mechanism_params_fills_defaults_and_coerces_numbers():
    assert validate_mechanism_params("sar", {"k": 3}) == {
        "k": 3, "selection": "random", "p_minus": 0.2, "p_plus": 0.8, "min_std": 0.6, "attributes": None,
    }
    assert validate_mechanism_params("snar_prob", {}) == {"p_minus": 0.2, "p_plus": 0.8}
    assert validate_mechanism_params("scar_c", {"c": 1}) == {"c": 1.0}
    assert validate_mechanism_params("scar_count", {"n_labeled": 1000.0}) == {"n_labeled": 1000}
    assert validate_mechanism_params("pulsnar_alpha", {"alpha": 0.1}) == {"alpha": 0.1, "snar": False}
    assert validate_mechanism_params("sar", {"k": 2, "attributes": [3.0, 1]})["attributes"] == [3, 1]
    # k = 0 (no propensity attribute) and the anticorrelated selection are valid sar params
    assert validate_mechanism_params("sar", {"k": 0})["k"] == 0
    assert validate_mechanism_params("sar", {"k": 0, "attributes": []})["attributes"] == []
    assert validate_mechanism_params("sar", {"k": 1, "selection": "anticorrelated"})["selection"] == "anticorrelated"


@pytest.mark.parametrize(
    "mechanism,params,field",
    [
        ("nope", {}, "unknown mechanism"),
        ("scar_c", {"c": 0.0}, "c"),
        ("scar_c", {"c": 1.5}, "c"),
        ("scar_c", {}, "c"),
        ("scar_c", {"c": 0.5, "k": 1}, "k"),
        ("scar_flip", {"flip_ratio": 1.0}, "flip_ratio"),
        ("scar_flip", {"flip_ratio": -0.1}, "flip_ratio"),
        ("scar_count", {"n_labeled": 0}, "n_labeled"),
        ("case_control", {"n_labeled": 2.5}, "n_labeled"),
        ("sar", {"k": -1}, "k"),
        ("sar", {"k": 1.5}, "k"),
        ("sar", {"k": 0, "attributes": [1]}, "attributes"),
        ("sar", {"k": 1, "p_minus": 0.8, "p_plus": 0.2}, "p_minus"),
        ("sar", {"k": 1, "p_plus": 1.5}, "p_plus"),
        ("sar", {"k": 1, "selection": "best"}, "selection"),
        ("sar", {"k": 1, "min_std": 2.5}, "min_std"),
        ("sar", {"k": 2, "attributes": [1]}, "attributes"),
        ("snar_prob", {"p_minus": -0.1}, "p_minus"),
        ("snar_prob", {"p_minus": 0.5, "p_plus": 0.5}, "p_plus"),
        ("snar_subclass", {"n_labeled_per_group": 0}, "n_labeled_per_group"),
        ("snar_subclass", {"n_labeled_per_group": {1: -1}}, "n_labeled_per_group"),
        ("snar_subclass", {"n_labeled_per_group": {1: 0}}, "n_labeled_per_group"),
    ],
)
def test_validate_mechanism_params_errors_name_the_mechanism_and_field(mechanism, params, field):
    with pytest.raises(ValueError) as info:
        validate_mechanism_params(mechanism, params)
    msg = str(info.value)
    assert field in msg
    if mechanism != "nope":
        assert msg.startswith(mechanism + ":")


def test_apply_mechanism_dispatches_to_the_named_function():
    X, y = binary_data(n=1000)
    groups = np.where(y == 1, 1, 0)
    r = apply_mechanism("scar_c", {"c": 0.5}, X=None, y=y, random_state=0)
    np.testing.assert_array_equal(r.s, scar_label_frequency(y, 0.5, 0).s)
    r = apply_mechanism("sar", {"k": 1, "attributes": [2]}, X=X, y=y, random_state=0)
    np.testing.assert_array_equal(r.s, sar_bekker(X, y, 1, attributes=[2], random_state=0).s)
    r = apply_mechanism("snar_subclass", {"n_labeled_per_group": 7}, X=X, y=y, groups=groups, random_state=0)
    assert r.n_labeled == 7 and r.mechanism == "snar_subclass"
    with pytest.raises(ValueError, match="X is required"):
        apply_mechanism("sar", {"k": 1}, X=None, y=y)
    with pytest.raises(ValueError, match="groups"):
        apply_mechanism("snar_subclass", {"n_labeled_per_group": 7}, X=X, y=y)
    with pytest.raises(ValueError, match="X has"):
        apply_mechanism("scar_c", {"c": 0.5}, X=X[:10], y=y)


def test_mechanisms_reject_invalid_inputs_with_named_errors():
    y = make_y(100, 10)
    with pytest.raises(ValueError, match="only 0 and 1"):
        scar_label_frequency(np.array([0, 1, 2]), 0.5)
    with pytest.raises(ValueError, match="only 0 and 1"):
        scar_count(np.array([-1, 1, 1]), 1)
    with pytest.raises(ValueError, match="no positive"):
        scar_label_frequency(np.zeros(10), 0.5)
    with pytest.raises(ValueError, match="no positive"):
        make_label_set(None, np.zeros(10), mechanism="scar_c", params={"c": 0.5})
    with pytest.raises(ValueError, match="1-D"):
        scar_flip_ratio(np.ones((3, 2)), 0.5)
    with pytest.raises(ValueError, match="exceeds the number of positives"):
        scar_count(y, 11)
    with pytest.raises(ValueError, match="'c' parameter"):
        scar_label_frequency(y, 0.0)
    with pytest.raises(ValueError, match="flip_ratio"):
        scar_flip_ratio(y, 1.0)
    X = np.ones((100, 3))
    with pytest.raises(ValueError, match="X has 50 rows"):
        sar_bekker(X[:50], y, 1)
    with pytest.raises(ValueError, match="2-D"):
        sar_bekker(np.ones(100), y, 1)
    with pytest.raises(ValueError, match="NaN"):
        Xn = np.random.default_rng(0).random((100, 3))
        Xn[0, 0] = np.nan
        snar_probability(Xn, y)
    with pytest.raises(ValueError, match="X has"):
        make_label_set(np.ones((99, 2)), y, mechanism="scar_c", params={"c": 0.5})
    with pytest.raises(ValueError, match="groups"):
        make_label_set(None, y, mechanism="snar_subclass", params={"n_labeled_per_group": 1}, groups=np.ones(5))
    with pytest.raises(ValueError, match="val split has no positive"):
        make_label_set(None, make_y(100, 2), mechanism="scar_c", params={"c": 0.5}, test_size=0.0, val_size=0.2,
                       random_state=0)
    with pytest.raises(ValueError, match="both classes"):
        snar_probability(np.random.default_rng(0).random((10, 2)), np.ones(10))
