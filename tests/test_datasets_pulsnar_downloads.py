"""Download-only entries of two PULSNAR benchmark sets (KDD Cup 2004 particle physics;
the smartphone activity-recognition sets, UCI 341 = the paper's 7,415 windows, and UCI
240), converted from small hand-made archives laid out as the releases are (no internet),
and their positive definitions (PULSNAR paper, Table 1)."""

from __future__ import annotations

import io
import tarfile
import zipfile

import numpy as np
import pytest

from pu_lib.datasets import get_spec, load_canonical, offline_unavailable_reason, prepare_dataset
from pu_lib.datasets.converters import read_har_zip, read_kddcup04_tar
from pu_lib.datasets.positive import binary_labels


def _phy_lines(n=6, n_feat=78, seed=0):
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        feats = np.round(rng.normal(size=n_feat), 3)
        feats[19] = 999  # attribute 20: "not available"
        lines.append("\t".join([str(1000 + i), str(i % 2)] + [repr(float(v)) for v in feats]))
    return ("\n".join(lines) + "\n").encode("ascii")


def _kdd_tar(path, n=6):
    with tarfile.open(path, "w:gz") as tf:
        for name, data in (("phy_train.dat", _phy_lines(n)), ("phy_test.dat", b"1\t?\t0.5\n"),
                           ("bio_train.dat", b"279\t261532\t0\t52.0\t32.69\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def _har_txt(rows, uci240=False):
    # UCI 240 pads with blanks and uses exponent notation ("  2.8858451e-001 -2.0294171e-002");
    # UCI 341 separates by single blanks
    if uci240:
        return "".join(" " + " ".join(f"{v: .7e}" for v in r) + "\n" for r in rows).encode()
    return "".join(" ".join(f"{v:.7f}" for v in r) + "\n" for r in rows).encode()


def _har_zip(path, labels_train, labels_test, n_feat=561, uci240=False, seed=0):
    rng = np.random.default_rng(seed)
    folder, tr, te = ("UCI HAR Dataset/", "train/", "test/") if uci240 else ("", "Train/", "Test/")
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf:
        for part, sub, labels in (("train", tr, labels_train), ("test", te, labels_test)):
            zf.writestr(f"{folder}{sub}X_{part}.txt", _har_txt(rng.normal(size=(len(labels), n_feat)), uci240))
            zf.writestr(f"{folder}{sub}y_{part}.txt", "".join(f"{v}\n" for v in labels))
            if uci240:  # the raw signals, which are not read
                zf.writestr(f"{folder}{sub}Inertial Signals/body_acc_x_{part}.txt", "1 2\n")
        zf.writestr(f"{folder}features.txt", "1 tBodyAcc-mean()-X\n")
    if uci240:  # the UCI download wraps the release's zip in another one
        with zipfile.ZipFile(path, "w") as outer:
            outer.writestr("UCI HAR Dataset.zip", inner.getvalue())
            outer.writestr("__MACOSX/._UCI HAR Dataset.zip", b"junk")
    else:
        path.write_bytes(inner.getvalue())
    return path


def test_kdd_entry_is_download_only_with_the_papers_definition():
    for name, n_feat in (("kddcup04_physics", 78), ("kddcup04_physics_pulsnar", 77)):
        spec = get_spec(name)
        assert spec["kind"] == "download" and spec["fingerprint"] is None and spec["checksum_note"]
        assert spec["urls"] == ["https://www.kdd.org/cupfiles/KDDCupData/2004/data_kddcup04.tar.gz"]
        assert spec["positive"]["pulsnar"] == {"values": [1]} and spec["n_features"] == n_feat


def test_read_kddcup04_tar_phy_train(tmp_path):
    df = read_kddcup04_tar(_kdd_tar(tmp_path / "data_kddcup04.tar.gz"))
    assert list(df.columns[:3]) == ["example_id", "f1", "f2"] and df.columns[-1] == "target"
    assert df.shape == (6, 1 + 78 + 1) and df["f78"].notna().all()
    assert df["example_id"].tolist() == list(range(1000, 1006)) and df["target"].tolist() == [0, 1] * 3
    assert (df["f20"] == 999).all()  # "not available" codes kept, as the PULSNAR authors' code keeps them
    bio = read_kddcup04_tar(tmp_path / "data_kddcup04.tar.gz", member="bio_train.dat")
    assert list(bio.columns) == ["block_id", "example_id", "f1", "f2", "target"]
    with pytest.raises(ValueError, match="not a whitespace-separated numeric table"):  # '?' as class
        read_kddcup04_tar(tmp_path / "data_kddcup04.tar.gz", member="phy_test.dat")
    with pytest.raises(ValueError, match="not found"):
        read_kddcup04_tar(tmp_path / "data_kddcup04.tar.gz", member="nope.dat")


def test_kdd_prepared_from_a_local_archive(tmp_path):
    archive = _kdd_tar(tmp_path / "data_kddcup04.tar.gz", n=8)
    for name, n_feat in (("kddcup04_physics", 78), ("kddcup04_physics_pulsnar", 77)):
        spec = get_spec(name)
        spec["urls"] = [archive.as_uri()]
        ds = load_canonical(prepare_dataset(name, spec=spec, cache_dir=tmp_path / "cache"))
        assert ds.X.shape == (8, n_feat)
        y = binary_labels(ds.target, spec["positive"]["pulsnar"])
        assert y.tolist() == [0, 1] * 4


def test_har_entries(tmp_path):
    hapt, uci = get_spec("hapt_smartphones"), get_spec("uci_har_smartphones")
    assert "static/public/341/" in hapt["urls"][0] and "static/public/240/" in uci["urls"][0]
    for spec in (hapt, uci):
        assert spec["kind"] == "download" and spec["fingerprint"] is None and spec["n_features"] == 561
        assert spec["positive"]["pulsnar"]["values"] == [1, 2, 3, 4, 6]
        assert spec["positive"]["pulsnar"]["keep_meta"] == {"split": ["train"]}


@pytest.mark.parametrize("uci240", [False, True])
def test_read_har_zip(tmp_path, uci240):
    train, test = [1, 2, 3, 4, 5, 6, 7, 12, 5], [5, 6, 1]
    df = read_har_zip(_har_zip(tmp_path / "har.zip", train, test, uci240=uci240))
    assert df.shape == (12, 561 + 2) and list(df.columns[:2]) == ["f1", "f2"] and df.columns[-1] == "target"
    assert df["split"].tolist() == ["train"] * 9 + ["test"] * 3 and df["target"].tolist() == train + test
    assert np.isfinite(df.filter(like="f").to_numpy()).all()


def test_hapt_positive_definition_keeps_the_train_basic_activities(tmp_path):
    train, test = [1, 2, 3, 4, 5, 6, 7, 12, 5, 6], [5, 6, 1]
    spec = get_spec("hapt_smartphones")
    spec["urls"] = [_har_zip(tmp_path / "hapt.zip", train, test).as_uri()]
    ds = load_canonical(prepare_dataset("hapt_smartphones", spec=spec, cache_dir=tmp_path / "cache"))
    y = binary_labels(ds.target, spec["positive"]["pulsnar"], meta=ds.meta)
    # train: 7 and 12 (transitions) dropped, 5 (standing) negative; test rows dropped
    assert y.tolist() == [1, 1, 1, 1, 0, 1, -1, -1, 0, 1, -1, -1, -1]


def test_offline_without_files_has_a_reason(tmp_path):
    for name in ("kddcup04_physics_pulsnar", "hapt_smartphones", "uci_har_smartphones"):
        assert offline_unavailable_reason(name, cache_dir=tmp_path)
