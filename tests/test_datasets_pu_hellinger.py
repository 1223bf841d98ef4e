"""The PU Hellinger trees paper's 15 data sets (Table 1): the mirror copies match the
paper's sizes and positive shares; the three without an offline copy are download-only
registry entries whose conversions are exercised on small local files (no internet).
The authors' data preparation (the ``*_puhdt`` entries): tests/test_datasets_authors_prep.py."""

from __future__ import annotations

import zipfile

import numpy as np
import pandas as pd
import pytest

from pu_lib.datasets import get_spec, list_datasets, load_canonical, load_dataset, prepare_dataset
from pu_lib.datasets.converters import read_parquet
from pu_lib.datasets.positive import binary_labels

from conftest import SHARED_DATASETS, needs_mirror

#: Table 1: name in the registry -> (examples, P(y = 1) in %) as printed in the paper
TABLE_1_MIRROR = {
    "car_good": (1728, 3.99),
    "forest_cover_odds": (286048, 0.96),
    "fraud_oracle": (15420, 5.98),
    "kddcup_land_vs_portsweep": (1061, 1.97),
    "mammography_odds": (11183, 2.32),
    "pendigits_odds": (6870, 2.27),
    "pizzacutter1": (661, 7.87),
    "poker_8_vs_6": (1477, 1.15),
    "shuttle_odds": (49097, 7.15),
    "thyroid_ann_uci": (7200, 7.41),
    "yeast6": (1484, 2.35),
}
DOWNLOAD_ONLY = ["churn_chile", "churn_korean", "creditcard_ulb", "creditcard_ulb_puhdt"]


@needs_mirror
@pytest.mark.parametrize("name", sorted(TABLE_1_MIRROR))
def test_mirror_copies_match_table_1(name, tmp_path):
    rows, pct = TABLE_1_MIRROR[name]
    y = load_dataset(name, data_mirror=SHARED_DATASETS, cache_dir=tmp_path, download=False).binary_target(
        "pu_hellinger")
    assert len(y) == rows
    # the paper truncates to two decimals (yeast6: 35 / 1484 = 2.358%, printed 2.35%)
    assert 100 * y.mean() == pytest.approx(pct, abs=0.01)


def test_download_only_entries():
    assert set(DOWNLOAD_ONLY) <= set(list_datasets("download"))
    for name in DOWNLOAD_ONLY:
        spec = get_spec(name)
        assert spec["papers"] == ["PU-HDT"] and "pu_hellinger" in spec["positive"]
        assert spec["url_verified"] is False and spec["fingerprint"] is None and spec["urls"]
    assert get_spec("satellite_openml")["urls"] == ["https://data.openml.org/datasets/0004/40900/dataset_40900.pq"]
    assert get_spec("pizzacutter1")["urls"] == ["https://data.openml.org/datasets/0000/1443/dataset_1443.pq"]
    assert get_spec("creditcard_ulb")["urls"] == ["https://www.openml.org/data/download/1673544/phpKo8OWT"]
    assert get_spec("creditcard_ulb_puhdt")["urls"] == get_spec("creditcard_ulb")["urls"]
    assert get_spec("churn_chile")["urls"] == get_spec("churn_korean")["urls"]
    # the mirror's Landsat versions are 31.6% positive: not the paper's 1.48% Satellite
    for name in ("satellite_odds", "satellite_landsat_uci"):
        assert "satellite_openml" in get_spec(name)["positive_note"]


def test_least_frequent_definition():
    assert binary_labels(np.array([1, 2, 2, 1, 2]), {"least_frequent": True}).tolist() == [1, 0, 0, 1, 0]
    t = np.array(["N", "N", "Y", "N"], dtype=object)
    assert binary_labels(t, {"least_frequent": True}).tolist() == [0, 0, 1, 0]
    # ties: the smallest value; dropped rows do not count
    assert binary_labels(np.array([2, 1, 2, 1]), {"least_frequent": True}).tolist() == [0, 1, 0, 1]
    assert binary_labels(np.array(["a", "b", "b", "c"]),
                         {"least_frequent": True, "drop_values": ["a"]}).tolist() == [-1, 0, 0, 1]
    with pytest.raises(ValueError, match="least_frequent must be true"):
        binary_labels(t, {"least_frequent": 1})
    with pytest.raises(ValueError, match="exactly one"):
        binary_labels(t, {"least_frequent": True, "most_frequent": True})


def test_read_parquet_names_the_class(tmp_path):
    p = tmp_path / "t.pq"
    pd.DataFrame({"a": [1.0, 2.0], "Target": pd.Categorical(["Normal", "Anomaly"]), "b": [3, 4]}).to_parquet(p)
    df = read_parquet(p, class_column="Target")
    assert list(df.columns) == ["a", "target", "b"] and df["target"].astype(str).tolist() == ["Normal", "Anomaly"]
    assert list(read_parquet(p).columns) == ["a", "Target", "target"]  # default: the last column


def _spec_at(name: str, url: str) -> dict:
    spec = dict(get_spec(name))
    spec["urls"] = [url]
    if spec["kind"] == "mirror":  # the download path of a mirrored entry, on a fixture file
        spec.update(kind="download", fingerprint=None)
        spec.pop("mirror_file")
    return spec


def test_satellite_and_pizzacutter_are_wired_to_the_mirror():
    """SAT and PCU run offline: the mirror copies of the first author's raw files, with the
    manifest's sha256 (test_datasets_mirror.py checks the fingerprints)."""
    assert {"satellite_openml", "pizzacutter1"} <= set(list_datasets("mirror"))
    sat, pcu = get_spec("satellite_openml"), get_spec("pizzacutter1")
    assert sat["mirror_file"] == "satellite_unsupervised_ad.parquet"
    assert sat["mirror_sha256"] == "8fcd8cffe4d4c9263f5baa3cbef8c2ad942d00b82a1386b4dba849cde437f810"
    assert pcu["mirror_file"] == "pizzacutter1.parquet"
    assert pcu["mirror_sha256"] == "edb26cc74b08e34f1ee9b77490982be38546d9e8f576ca77bce5bf1eec510641"
    assert (sat["n_rows"], sat["n_features"], pcu["n_rows"], pcu["n_features"]) == (5100, 36, 661, 37)
    # the author's prep_keel.py: y = np.where(y == 'N', 0, 1)
    assert pcu["positive"]["pu_hellinger"] == {"not_values": ["N"]}


@needs_mirror
def test_satellite_mirror_copy(tmp_path):
    y = load_dataset("satellite_openml", data_mirror=SHARED_DATASETS, cache_dir=tmp_path, download=False).binary_target(
        "pu_hellinger")
    assert (len(y), int(y.sum())) == (5100, 75)  # before the author's 5,000-row sample (satellite_openml_puhdt)


def _prepare(name, url, tmp_path):
    spec = _spec_at(name, url)
    path = prepare_dataset(name, cache_dir=tmp_path / "cache", spec=spec)
    return load_canonical(path, registry={"datasets": {name: spec}})


def test_satellite_openml_parquet_conversion(tmp_path):
    rng = np.random.default_rng(0)
    n = 200
    df = pd.DataFrame(rng.integers(0, 160, size=(n, 36)).astype(np.float64), columns=[f"V{i}" for i in range(1, 37)])
    df["Target"] = pd.Categorical(np.where(np.arange(n) < 3, "Anomaly", "Normal"))
    src = tmp_path / "dataset_40900.pq"
    df.to_parquet(src)
    ds = _prepare("satellite_openml", src.as_uri(), tmp_path)
    assert ds.X.shape == (n, 36)
    assert ds.binary_target("pu_hellinger").tolist() == [1, 1, 1] + [0] * (n - 3)


def test_pizzacutter1_parquet_minority_is_positive(tmp_path):
    n = 60
    df = pd.DataFrame(np.arange(n * 37, dtype=np.float64).reshape(n, 37), columns=[f"A{i}" for i in range(37)])
    df["def"] = pd.Categorical(np.where(np.arange(n) % 10 == 0, "Y", "N"))
    src = tmp_path / "dataset_1443.pq"
    df.to_parquet(src)
    ds = _prepare("pizzacutter1", src.as_uri(), tmp_path)
    assert ds.X.shape == (n, 37)
    assert int(ds.binary_target("pu_hellinger").sum()) == 6


def test_creditcard_arff_conversion(tmp_path):
    names = ["Time", *[f"V{i}" for i in range(1, 29)], "Amount"]
    lines = ["@relation creditcard"] + [f"@attribute {c} numeric" for c in names] + ["@attribute Class {0,1}", "@data"]
    for i in range(12):
        lines.append(",".join([str(float(i))] * 30 + ["1" if i < 2 else "0"]))
    src = tmp_path / "phpKo8OWT"
    src.write_text("\n".join(lines) + "\n")
    ds = _prepare("creditcard_ulb", src.as_uri(), tmp_path)
    assert ds.X.shape == (12, 30) and ds.feature_names[0] == "Time"
    assert ds.binary_target("pu_hellinger").tolist() == [1, 1] + [0] * 10


@pytest.mark.parametrize("name,member,n_features", [("churn_chile", "chile_scaled_imbalanced.csv", 42),
                                                    ("churn_korean", "korean5_scaled_imbalanced.csv", 8)])
def test_churn_zip_member_headerless_csv(name, member, n_features, tmp_path):
    rng = np.random.default_rng(1)
    n = 40
    X = rng.random((n, n_features))
    y = (np.arange(n) < 2).astype(float)  # the authors' files hold 0.0 / 1.0
    csv = "\n".join(",".join(f"{v:.6f}" for v in [*row, lab]) for row, lab in zip(X, y)) + "\n"
    src = tmp_path / "AABXQIZ4VcMFeG2PbrAuWYLVa"
    with zipfile.ZipFile(src, "w") as zf:  # the folder zip holds every data set of the paper
        zf.writestr(member, csv)
        zf.writestr("scaled_satellite.csv", "0.1,0\n")
    ds = _prepare(name, src.as_uri(), tmp_path)
    assert ds.X.shape == (n, n_features)
    assert ds.feature_names[:2] == ["f0", "f1"]
    np.testing.assert_allclose(ds.X, X.astype(np.float32), atol=1e-6)
    assert ds.binary_target("pu_hellinger").tolist() == [1, 1] + [0] * (n - 2)
