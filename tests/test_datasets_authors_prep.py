"""Registry ``preparation`` steps (pu_lib.datasets.preparation) and the PU Hellinger trees
authors' preparation of their 15 data sets (the ``*_puhdt`` registry entries).

Fast tests use small frames; the ones marked ``needs_mirror`` read small mirror files
(Satellite 157 KB, Pizza Cutter 46 KB, Car Good 2 KB); Forest Cover (3 MB) only in the
``slow`` tier. test_datasets_mirror.py checks every entry's fingerprint against the mirror.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from pu_lib.datasets import canonicalize, fingerprint, get_spec, list_datasets, load_canonical, load_dataset, prepare_dataset
from pu_lib.datasets.download import PARQUET_META_KEY, is_valid_canonical
from pu_lib.datasets.preparation import apply_preparation, preparation_digest, validate_preparation

from conftest import REPO, SHARED_DATASETS, needs_mirror

POS = {"default": {"values": [1]}}


def _frame(n=20, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "a": rng.normal(5.0, 2.0, n),
        "b": rng.integers(0, 10, n).astype(np.int64),
        "c": pd.array(rng.choice(["x", "y", "z"], n), dtype="str"),
        "target": (np.arange(n) < n // 4).astype(np.int64),
    })


def _prep(df, steps, **spec):
    return apply_preparation(df, {"name": "t", "positive": POS, "preparation": steps, **spec})


# ----------------------------------------------------------------------------- the steps
def test_standardize_matches_standard_scaler_on_all_rows():
    from sklearn.preprocessing import StandardScaler

    df = _frame(200)
    out = _prep(df, [{"step": "standardize"}])
    # default: every numeric feature column, fitted on all rows (transductive); strings kept
    ref = StandardScaler().fit_transform(df[["a", "b"]].to_numpy(dtype=float))
    np.testing.assert_allclose(out[["a", "b"]].to_numpy(), ref, rtol=0, atol=1e-14)
    assert out["c"].tolist() == df["c"].tolist() and out["target"].tolist() == df["target"].tolist()
    assert out["a"].dtype == np.float64 and abs(out["a"].mean()) < 1e-15 and out["a"].std(ddof=0) == pytest.approx(1)
    # only the named columns; a constant column becomes 0 (scikit-learn: scale 1)
    df["k"] = 3.0
    out = _prep(df, [{"step": "standardize", "columns": ["b", "k"]}])
    assert out["a"].tolist() == df["a"].tolist() and (out["k"] == 0).all() and out["k"].dtype == np.float64
    with pytest.raises(ValueError, match="not numeric"):
        _prep(df, [{"step": "standardize", "columns": ["c"]}])
    df.loc[3, "a"] = np.nan
    with pytest.raises(ValueError, match="missing"):
        _prep(df, [{"step": "standardize"}])


def test_standardize_uses_exact_sums():
    # math.fsum: the mean of 1e16, 1, -1e16 is exactly 1/3, whatever the summation order
    x = pd.DataFrame({"v": [1e16, 1.0, -1e16], "target": [1, 0, 0]})
    out = _prep(x, [{"step": "standardize"}])
    mean, sd = 1 / 3, math.sqrt(((1e16 - 1 / 3) ** 2 + (1 - 1 / 3) ** 2 + (1e16 + 1 / 3) ** 2) / 3)
    np.testing.assert_allclose(out["v"], (x["v"] - mean) / sd, rtol=1e-15)


def test_stratified_sample_is_sklearns_split_in_its_order():
    from sklearn.model_selection import StratifiedShuffleSplit

    n, pos = 5100, 75  # the Satellite table: 5,100 rows, 75 anomalies
    df = pd.DataFrame({"f": np.arange(n, dtype=np.float64),
                       "target": np.where(np.arange(n) % 68 == 0, "Anomaly", "Normal")[:n]})
    df.loc[df.index[df.target == "Anomaly"][pos:], "target"] = "Normal"
    assert (df.target == "Anomaly").sum() == pos
    steps = [{"step": "stratified_sample", "n": 5000, "random_state": 123}]
    out = _prep(df, steps, positive={"default": {"values": ["Anomaly"]}})
    assert len(out) == 5000 and (out.target == "Anomaly").sum() == 74  # 1.48%, as PU-HDT Table 1
    y = (df.target == "Anomaly").to_numpy().astype(int)
    idx, _ = next(StratifiedShuffleSplit(n_splits=1, train_size=5000, random_state=123).split(np.zeros((n, 1)), y))
    assert out["f"].tolist() == df["f"].to_numpy()[idx].tolist()  # rows in the splitter's order
    assert out.index.tolist() == list(range(5000))
    # a named definition of the entry; a table of at most n rows is kept as it is
    named = _prep(df, [dict(steps[0], positive="sat")], positive={"sat": {"values": ["Anomaly"]}, "default": {"values": ["x"]}})
    assert named["f"].tolist() == out["f"].tolist()
    small = df.iloc[:4000]
    assert _prep(small, steps, positive={"default": {"values": ["Anomaly"]}})["f"].tolist() == small["f"].tolist()
    other = _prep(df, [dict(steps[0], random_state=124)], positive={"default": {"values": ["Anomaly"]}})
    assert other["f"].tolist() != out["f"].tolist()


def test_drop_rows_log_and_drop_columns():
    df = pd.DataFrame({"Time": [0.0, 1.0, 2.0, 3.0], "V1": [0.5, -0.5, 1.5, 2.5],
                       "Amount": [10.0, 0.0, 1.0, np.e], "target": [0, 1, 0, 0]})
    out = _prep(df, [{"step": "drop_rows", "column": "Amount", "equals": 0},
                     {"step": "drop_columns", "columns": ["Time"]},
                     {"step": "log", "columns": ["Amount"], "prefix": "L_"}])
    assert list(out.columns) == ["V1", "L_Amount", "target"]
    assert out["V1"].tolist() == [0.5, 1.5, 2.5] and out["target"].tolist() == [0, 0, 0]
    assert out["L_Amount"].tolist() == [math.log(10.0), 0.0, 1.0]
    assert _prep(df, [{"step": "drop_rows", "column": "V1", "equals": [0.5, 2.5]}])["V1"].tolist() == [-0.5, 1.5]
    with pytest.raises(ValueError, match="values <= 0"):
        _prep(df, [{"step": "log", "columns": ["Amount"]}])
    with pytest.raises(ValueError, match="no feature column"):
        _prep(df, [{"step": "drop_columns", "columns": ["target"]}])


def test_woe_encode_is_category_encoders_formula():
    # category x: 3 positives, 1 negative; y: 0 / 4; z: seen once -> 0; missing -> 0
    df = pd.DataFrame({"c": ["x", "x", "x", "x", "y", "y", "y", "y", "z", None],
                       "n": [1, 1, 2, 2, 2, 2, 2, 2, 3, 3],
                       "target": [1, 1, 1, 0, 0, 0, 0, 0, 1, 0]})
    out = _prep(df, [{"step": "woe_encode", "columns": ["c", "n"], "decimals": None}])
    P, N, r = 4, 6, 1.0

    def woe(n1, n0):
        return math.log(((n1 + r) / (P + 2 * r)) / ((n0 + r) / (N + 2 * r)))

    assert out["c"].tolist() == [woe(3, 1)] * 4 + [woe(0, 4)] * 4 + [0.0, 0.0]
    # numeric codes are categories too (the authors' DriverRating, Deductible, ...)
    assert out["n"].tolist() == [woe(2, 0)] * 2 + [woe(1, 5)] * 6 + [woe(1, 1)] * 2
    rounded = _prep(df, [{"step": "woe_encode", "columns": ["c"]}])  # default: 10 decimals
    assert rounded["c"].iloc[0] == round(woe(3, 1), 10)
    assert _prep(df, [{"step": "woe_encode", "columns": ["c"], "regularization": 0.5}])["c"].iloc[0] != rounded["c"].iloc[0]
    with pytest.raises(ValueError, match="both classes"):
        _prep(df.assign(target=1), [{"step": "woe_encode", "columns": ["c"]}])


def test_validate_preparation_names_the_problem():
    assert validate_preparation(None) == [] and preparation_digest(None) is None and preparation_digest([]) is None
    with pytest.raises(ValueError, match="unknown step 'scale'"):
        validate_preparation([{"step": "scale"}])
    with pytest.raises(ValueError, match=r"missing \['random_state'\]"):
        validate_preparation([{"step": "stratified_sample", "n": 5}])
    with pytest.raises(ValueError, match=r"unknown \['cols'\]"):
        validate_preparation([{"step": "standardize", "cols": ["a"]}])
    with pytest.raises(ValueError, match="n must be a positive integer"):
        validate_preparation([{"step": "stratified_sample", "n": 0, "random_state": 1}])
    with pytest.raises(ValueError, match="no positive definition 'nope'"):
        _prep(_frame(), [{"step": "woe_encode", "columns": ["c"], "positive": "nope"}])


# ----------------------------------------------------------------------------- fingerprints
def test_preparation_changes_table_fingerprint_and_digest():
    df = _frame(40)
    spec = {"name": "t", "positive": POS, "meta_columns": []}
    plain = fingerprint(canonicalize(df, spec))
    std = fingerprint(canonicalize(df, {**spec, "preparation": [{"step": "standardize"}]}))
    only_a = fingerprint(canonicalize(df, {**spec, "preparation": [{"step": "standardize", "columns": ["a"]}]}))
    assert len({plain, std, only_a}) == 3
    # the preparation runs before the encoding: WOE replaces the one-hot block of c
    woe = canonicalize(df, {**spec, "preparation": [{"step": "woe_encode", "columns": ["c"]}]})
    assert list(woe.columns) == ["a", "b", "c", "target"] and woe["c"].dtype == np.float64
    assert [c for c in canonicalize(df, spec).columns if c.startswith("c=")] == ["c=x", "c=y", "c=z"]
    d1 = preparation_digest([{"step": "standardize"}])
    assert d1.startswith("sha256:") and d1 != preparation_digest([{"step": "standardize", "columns": ["a"]}])
    assert preparation_digest([{"columns": ["a"], "step": "standardize"}]) == preparation_digest(
        [{"step": "standardize", "columns": ["a"]}])  # key order does not matter


def test_registry_fingerprints_differ_from_the_unprepared_entries():
    for name in list_datasets():
        if not name.endswith("_puhdt"):
            continue
        spec, base = get_spec(name), get_spec(name[: -len("_puhdt")])
        assert spec["preparation"] == validate_preparation(spec["preparation"])
        assert spec["preparation_evidence"] in ("code", "inferred") and spec["preparation_note"]
        assert spec.get("mirror_file") == base.get("mirror_file") and spec["papers"] == ["PU-HDT"]
        if spec["kind"] == "mirror":
            assert spec["fingerprint"] != base["fingerprint"]


def _cc_arff(path, n=12):
    names = ["Time", *[f"V{i}" for i in range(1, 29)], "Amount"]
    lines = ["@relation creditcard"] + [f"@attribute {c} numeric" for c in names] + ["@attribute Class {0,1}", "@data"]
    for i in range(n):
        amount = 0.0 if i in (3, 7) else float(i + 1)  # two transactions of amount 0
        lines.append(",".join([str(float(i))] * 29 + [str(amount), "1" if i < 2 else "0"]))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_credit_card_preparation_on_a_fixture(tmp_path):
    """FCC, the authors' prep.py: amount-0 rows dropped, Time left out, log(Amount) as
    L_Amount, then every column standardised (download-only entry, a local ARFF)."""
    spec = get_spec("creditcard_ulb_puhdt")
    spec["urls"] = [_cc_arff(tmp_path / "phpKo8OWT").as_uri()]
    out = prepare_dataset("creditcard_ulb_puhdt", tmp_path / "fcc.parquet", cache_dir=tmp_path / "cache", spec=spec)
    reg = {"datasets": {"creditcard_ulb_puhdt": spec}}
    ds = load_canonical(out, registry=reg)
    assert ds.X.shape == (10, 29) and ds.feature_names == [f"V{i}" for i in range(1, 29)] + ["L_Amount"]
    kept = [i for i in range(12) if i not in (3, 7)]
    amount = np.log([i + 1.0 for i in kept])
    np.testing.assert_allclose(ds.X[:, -1], (amount - amount.mean()) / amount.std(), rtol=1e-6)
    np.testing.assert_allclose(ds.X[:, 0], (np.array(kept) - np.mean(kept)) / np.std(kept), rtol=1e-6)
    assert ds.binary_target("pu_hellinger").tolist() == [1, 1] + [0] * 8
    stored = json.loads(pq.read_schema(out).metadata[PARQUET_META_KEY])
    assert stored["preparation"] == preparation_digest(spec["preparation"]) and stored["fingerprint_recorded"]
    # a changed preparation invalidates the file (its fingerprint was recorded on first use) ...
    assert is_valid_canonical(out, spec)
    changed = dict(spec, preparation=spec["preparation"][:-1])  # not standardised
    assert not is_valid_canonical(out, changed)
    # ... and prepare_dataset rebuilds it
    prepare_dataset("creditcard_ulb_puhdt", out, cache_dir=tmp_path / "cache", spec=changed)
    ds2 = load_canonical(out, registry={"datasets": {"creditcard_ulb_puhdt": changed}})
    np.testing.assert_allclose(ds2.X[:, -1], amount, rtol=1e-6)


def test_mirror_entry_without_preparation_keeps_valid_files(tmp_path):
    # files written before preparations existed carry no digest: still valid where none is asked
    out = prepare_dataset("digits", cache_dir=tmp_path)
    assert "preparation" not in json.loads(pq.read_schema(out).metadata[PARQUET_META_KEY])
    assert is_valid_canonical(out, get_spec("digits"))


# ----------------------------------------------------------------------------- the paper config
TABLE_1_FEATURES = {  # PU-HDT Table 1: examples, features (CCH / CKO: the authors' files; FCC prints 8)
    "car_good_puhdt": (1728, 6), "forest_cover_odds_puhdt": (286048, 10), "fraud_oracle_puhdt": (15420, 30),
    "creditcard_ulb_puhdt": (282982, 29), "kddcup_land_vs_portsweep_puhdt": (1061, 41),
    "mammography_odds_puhdt": (11183, 6), "pendigits_odds_puhdt": (6870, 16), "pizzacutter1_puhdt": (661, 37),
    "poker_8_vs_6_puhdt": (1477, 10), "satellite_openml_puhdt": (5000, 36), "shuttle_odds_puhdt": (49097, 9),
    "thyroid_ann_uci_puhdt": (7200, 21), "yeast6_puhdt": (1484, 8),
}


def test_puhdt_entries_have_table_1_sizes():
    assert sorted(n for n in list_datasets() if n.endswith("_puhdt")) == sorted(TABLE_1_FEATURES)
    for name, (rows, feats) in TABLE_1_FEATURES.items():
        spec = get_spec(name)
        assert (spec["n_rows"], spec["n_features"]) == (rows, feats), name


@pytest.mark.parametrize("cfg", ["pu_hellinger.yaml", "pu_hellinger_threshold_grid.yaml"])
def test_paper_configs_use_the_authors_preparation(cfg):
    exps = yaml.safe_load((REPO / "config" / "papers" / cfg).read_text())["experiments"]
    (exp,) = exps.values()
    names = {d["id"]: d["name"] for d in exp["datasets"]}
    assert len(names) == 15
    # the authors' own prepared files (download-only), else the *_puhdt entry
    assert names.pop("CCH") == "churn_chile" and names.pop("CKO") == "churn_korean"
    assert all(n.endswith("_puhdt") for n in names.values())
    optional = {d["name"] for d in exp["datasets"] if d.get("optional")}
    assert optional == {"churn_chile", "churn_korean", "creditcard_ulb_puhdt"}  # SAT / PCU run offline


# ----------------------------------------------------------------------------- mirror
@needs_mirror
def test_satellite_author_sample_5000_rows_74_positives(tmp_path):
    ds = load_dataset("satellite_openml_puhdt", data_mirror=SHARED_DATASETS, cache_dir=tmp_path, download=False)
    y = ds.binary_target("pu_hellinger")
    assert ds.X.shape == (5000, 36) and int(y.sum()) == 74
    # the first row of the author's data/processed/scaled_satellite.csv (PU_AnomalyDetection)
    np.testing.assert_allclose(ds.X[0, :3], [-0.769306125201163, -0.7865773263924863, -0.22965614020069927],
                               rtol=1e-6)
    assert np.abs(ds.X.mean(axis=0)).max() < 1e-5 and np.allclose(ds.X.std(axis=0), 1, atol=1e-5)


@needs_mirror
def test_pizzacutter_and_car_good_preparations(tmp_path):
    pcu = load_dataset("pizzacutter1_puhdt", data_mirror=SHARED_DATASETS, cache_dir=tmp_path, download=False)
    assert pcu.X.shape == (661, 37) and int(pcu.binary_target("pu_hellinger").sum()) == 52
    # the first row of the author's data/processed/scaled_pizzacutter1.csv
    np.testing.assert_allclose(pcu.X[0, :2], [-0.4902316041495759, -0.5289751529901681], rtol=1e-6)
    cgo = load_dataset("car_good_puhdt", data_mirror=SHARED_DATASETS, cache_dir=tmp_path, download=False)
    assert cgo.X.shape == (1728, 6) and cgo.feature_names == ["Buying", "Maint", "Doors", "Persons", "Lug_boot", "Safety"]
    # WOE: one value per category (Safety: low / med / high), ordered by the positives' share
    assert len(np.unique(cgo.X[:, 5])) == 3


@pytest.mark.slow
@needs_mirror
def test_forest_cover_standardised_on_all_rows(tmp_path):
    ds = load_dataset("forest_cover_odds_puhdt", data_mirror=SHARED_DATASETS, cache_dir=tmp_path, download=False)
    assert ds.X.shape == (286048, 10)
    assert np.abs(ds.X.astype(np.float64).mean(axis=0)).max() < 1e-5
