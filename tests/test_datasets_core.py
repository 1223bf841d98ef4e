"""Tests for pu_lib.datasets: canonical form, fingerprint, converters, synthetic data."""

from __future__ import annotations

import bz2
import gzip
import json

import numpy as np
import pandas as pd
import pytest

from pu_lib.datasets import (
    Dataset,
    canonicalize,
    fingerprint,
    get_spec,
    list_datasets,
    load_dataset,
    make_pulsnar_scar,
    make_pulsnar_snar,
)
from pu_lib.datasets.canonical import strip_newsgroup_text, text_count_features
from pu_lib.datasets.converters import (
    read_arff,
    read_csv,
    read_keel,
    read_libsvm,
    read_mat,
    read_npz,
    read_newsgroups_tar,
)
from pu_lib.datasets.positive import binary_labels
from pu_lib.datasets.synthetic import snar_unlabeled_counts


# ----------------------------------------------------------------------------- registry
def test_registry_entries_complete():
    names = list_datasets()
    assert {"breast_cancer", "digits", "pulsnar_scar", "pulsnar_snar", "mnist", "anuran_calls"} <= set(names)
    assert list_datasets("synthetic") == ["pulsnar_scar", "pulsnar_snar"]
    assert list_datasets("sklearn") == ["breast_cancer", "digits"]
    assert list_datasets("download") == ["churn_chile", "churn_korean", "cifar10", "covtype_binary",
                                         "creditcard_ulb", "creditcard_ulb_puhdt", "epsilon", "hapt_smartphones",
                                         "kddcup04_physics", "kddcup04_physics_pulsnar", "newsgroups20_glove300",
                                         "uci_har_smartphones", "unsw_nb15_official"]
    manifest_names = set(list_datasets("mirror"))
    # the 37 mirror files, some of which serve further entries (mushrooms_libsvm; splice_libsvm;
    # newsgroups20_svd300, newsgroups20_bow200; the twelve PU Hellinger *_puhdt preparations)
    assert len(manifest_names) == 53
    assert len({get_spec(n)["mirror_file"] for n in manifest_names}) == 37
    for name in names:
        spec = get_spec(name)
        for key in ("name", "kind", "title", "papers", "urls", "format", "conversion", "license",
                    "meta_columns", "encoding", "positive", "positive_note", "n_rows", "n_features"):
            assert key in spec, (name, key)
        assert "default" in spec["positive"]
        if spec["kind"] in ("mirror", "sklearn"):
            assert spec["fingerprint"].startswith("sha256:") and len(spec["fingerprint"]) == 71
        if spec["kind"] != "synthetic":
            assert spec["url_verified"] is False
        if spec["kind"] == "mirror":
            assert len(spec["mirror_sha256"]) == 64
        if spec["kind"] == "download":  # fingerprint recorded on the first download
            assert spec["fingerprint"] is None and spec["fingerprint_note"] and "mirror_file" not in spec
            assert {"pu_extra_trees", "pu_hellinger", "pulsnar"} & set(spec["positive"])  # the paper's definition


def test_pu_extra_trees_download_entries():
    cov, eps, cif = get_spec("covtype_binary"), get_spec("epsilon"), get_spec("cifar10")
    assert cov["urls"] == ["https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/covtype.libsvm.binary.bz2"]
    assert [u.rsplit("/", 1)[1] for u in eps["urls"]] == ["epsilon_normalized.bz2", "epsilon_normalized.t.bz2"]
    assert cif["urls"] == ["https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"]
    assert cov["positive"]["pu_extra_trees"] == {"most_frequent": True}
    assert eps["positive"]["pu_extra_trees"] == {"values": [1]}
    assert cif["positive"]["pu_extra_trees"] == {"values": ["airplane", "automobile", "ship", "truck"]}
    assert eps["meta_columns"] == ["split"] and cif["meta_columns"] == ["split"] and cov["meta_columns"] == []
    assert (cov["n_features"], eps["n_features"], cif["n_features"]) == (54, 2000, 3072)


def test_unknown_name_lists_close_matches():
    with pytest.raises(ValueError, match="mnist"):
        get_spec("mnits")
    with pytest.raises(ValueError, match="unknown dataset"):
        load_dataset("no_such_dataset_xyz")


# ----------------------------------------------------------------------------- positive
def test_binary_labels_definitions():
    t = np.array(["a", "b", "c", "d"], dtype=object)
    assert binary_labels(t, {"values": ["a", "c"]}).tolist() == [1, 0, 1, 0]
    assert binary_labels(t, {"not_values": ["a"]}).tolist() == [0, 1, 1, 1]
    assert binary_labels(t, {"values": ["a"], "drop_values": ["d"]}).tolist() == [1, 0, 0, -1]
    assert binary_labels(t, {"values": ["a"], "keep_values": ["a", "b"]}).tolist() == [1, 0, -1, -1]
    assert binary_labels(np.arange(5), {"parity": "even"}).tolist() == [1, 0, 1, 0, 1]
    assert binary_labels(np.arange(5), {"parity": "odd"}).tolist() == [0, 1, 0, 1, 0]
    g = np.array(["comp.x", "rec.y", "sci.z"], dtype=object)
    assert binary_labels(g, {"prefixes": ["comp."], "keep_prefixes": ["comp.", "rec."]}).tolist() == [1, 0, -1]
    assert binary_labels(np.array([0, 1, 3]), {"values": [0, 3]}).dtype == np.int8
    with pytest.raises(ValueError):
        binary_labels(t, {"values": ["a"], "parity": "even"})


def test_binary_labels_most_frequent():
    # PU ET: "the most prominent class makes up the P class" (covtype)
    assert binary_labels(np.array([1, 2, 2, 1, 2]), {"most_frequent": True}).tolist() == [0, 1, 1, 0, 1]
    t = np.array(["e", "p", "e"], dtype=object)
    assert binary_labels(t, {"most_frequent": True}).tolist() == [1, 0, 1]
    # ties: the smallest value; dropped rows do not count
    assert binary_labels(np.array([2, 1, 2, 1]), {"most_frequent": True}).tolist() == [0, 1, 0, 1]
    assert binary_labels(np.array(["a", "b", "b", "c", "c", "c"]),
                         {"most_frequent": True, "drop_values": ["c"]}).tolist() == [0, 1, 1, -1, -1, -1]
    with pytest.raises(ValueError, match="most_frequent must be true"):
        binary_labels(t, {"most_frequent": "yes"})


def test_sklearn_breast_cancer_and_digits(tmp_path):
    bc = load_dataset("breast_cancer", cache_dir=tmp_path)
    assert bc.X.shape == (569, 30) and bc.X.dtype == np.float32 and bc.X.flags.c_contiguous
    y = bc.binary_target()
    assert y.dtype == np.int8 and int(y.sum()) == 212  # malignant = target 0
    assert int(bc.binary_target("ada_pu").sum()) == 357
    dg = load_dataset("digits", cache_dir=tmp_path)
    assert dg.X.shape == (1797, 64)
    yd = dg.binary_target()
    assert np.array_equal(yd, (dg.target % 2 == 0).astype(np.int8))
    mask, ysel = dg.select()
    assert mask.all() and len(ysel) == 1797
    with pytest.raises(ValueError, match="no positive definition"):
        dg.binary_target("pulsnar")
    assert (tmp_path / "canonical" / "digits.parquet").is_file()


# ----------------------------------------------------------------------------- canonical
def _toy_frame():
    return pd.DataFrame(
        {
            "num": [1.5, np.nan, 3.0, 4.0],
            "cnt": np.array([1, 2, 3, 4], dtype=np.int64),
            "bin": pd.array(["yes", "no", "no", "yes"], dtype="str"),
            "multi": pd.array(["b", "a", None, "c"], dtype="str"),
            "px": np.array([0, 255, 7, 1], dtype=np.uint8),
            "split": pd.array(["train", "train", "test", "test"], dtype="str"),
            "target": pd.array(["pos", "neg", "neg", "pos"], dtype="str"),
        }
    )


def test_canonicalize_encoding_rules():
    c = canonicalize(_toy_frame(), {"meta_columns": ["split"]})
    assert list(c.columns) == ["num", "cnt", "bin=yes", "multi=a", "multi=b", "multi=c", "px", "split", "target"]
    assert c["bin=yes"].tolist() == [1, 0, 0, 1] and c["bin=yes"].dtype == np.uint8
    assert c["multi=a"].tolist() == [0, 1, 0, 0]
    assert c["multi=b"].tolist() == [1, 0, 0, 0]
    assert c.loc[2, ["multi=a", "multi=b", "multi=c"]].tolist() == [0, 0, 0]  # missing -> all zero
    assert c["px"].dtype == np.uint8 and c["cnt"].dtype == np.int64
    assert np.isnan(c.loc[1, "num"])
    assert c["target"].tolist() == ["pos", "neg", "neg", "pos"]


def test_canonicalize_missing_as_nan_na_values_and_rare():
    df = pd.DataFrame({"s": pd.array(["A", "C", "N", "A", "G"], dtype="str"), "target": [1, 0, 1, 0, 1]})
    c = canonicalize(df, {"meta_columns": [], "encoding": {"missing_categorical": "nan", "na_values": ["N"]}})
    assert list(c.columns) == ["s=A", "s=C", "s=G", "target"]
    assert c["s=A"].dtype == np.float32 and np.isnan(c.loc[2, "s=A"])
    c2 = canonicalize(df, {"encoding": {"min_category_count": 2}})
    # A (2x) kept, C/N/G (1x each) merged -> two categories -> one binary column
    assert list(c2.columns) == ["s=__other__", "target"]
    assert c2["s=__other__"].tolist() == [0, 1, 1, 0, 1]
    c3 = canonicalize(df, {"encoding": {"min_category_count": {"s": 1}}})
    assert list(c3.columns) == ["s=A", "s=C", "s=G", "s=N", "target"]


def test_canonicalize_category_codes():
    # LIBSVM's splice: one numeric column per position, a missing base NaN (dropped by dropna)
    df = pd.DataFrame({"s": pd.array(["A", "C", "N", "T", "G"], dtype="str"), "target": [1, 0, 1, 0, 1]})
    c = canonicalize(df, {"encoding": {"category_codes": {"A": 1, "G": 2, "C": 3, "T": 4}, "na_values": ["N"]}})
    assert list(c.columns) == ["s", "target"]
    assert c["s"].tolist()[:2] == [1.0, 3.0] and np.isnan(c.loc[2, "s"]) and c["s"].tolist()[3:] == [4.0, 2.0]
    with pytest.raises(ValueError, match="no entry in encoding.category_codes"):
        canonicalize(df, {"encoding": {"category_codes": {"A": 1}}})


def test_fingerprint_stable_and_sensitive():
    df = canonicalize(_toy_frame(), {"meta_columns": ["split"]})
    fp = fingerprint(df)
    assert fp.startswith("sha256:")
    assert fingerprint(df.copy()) == fp
    # string storage does not matter
    obj = df.copy()
    obj["split"] = obj["split"].astype(object)
    assert fingerprint(obj) == fp
    # NaN payload does not matter
    weird = df.copy()
    arr = weird["num"].to_numpy().copy()
    arr.view(np.uint64)[1] = 0x7FF8000000000123
    weird["num"] = arr
    assert fingerprint(weird) == fp
    changed = df.copy()
    changed.loc[0, "cnt"] = 99
    assert fingerprint(changed) != fp
    renamed = df.rename(columns={"cnt": "cnt2"})
    assert fingerprint(renamed) != fp
    retyped = df.astype({"cnt": np.int32})
    assert fingerprint(retyped) != fp
    nulled = df.copy()
    nulled["split"] = pd.array(["train", None, "test", "test"], dtype="str")
    assert fingerprint(nulled) != fp


def test_fingerprint_known_value():
    df = pd.DataFrame({"a": np.array([1, 2], dtype=np.uint8), "target": pd.array(["x", None], dtype="str")})
    # fixed value: a change of the hashing scheme must be deliberate (update registry too)
    assert fingerprint(df) == fingerprint(df.astype({"target": object}))
    import hashlib

    h = hashlib.sha256()
    h.update(b"pu_lib-canonical-v1\x00")
    h.update(np.int64(2).tobytes())
    h.update(b"a\x00uint8\x00" + bytes([1, 2]))
    h.update(b"target\x00string\x00" + np.array([1, -1], dtype="<i8").tobytes() + b"x")
    assert fingerprint(df) == "sha256:" + h.hexdigest()


def test_text_features_fixture():
    texts = [
        "From: a@b\nSubject: x\n\nApple apple banana\n> quoted cherry cherry cherry\n--\nsig sig sig sig",
        "Subject: y\n\nbanana cherry the and\nIn article <1@x> bob writes:\n",
        "Subject: z\n\napple date",
    ]
    assert "Subject" not in strip_newsgroup_text(texts[0])
    assert "cherry" not in strip_newsgroup_text(texts[0])
    assert "sig" not in strip_newsgroup_text(texts[0])
    f = text_count_features(texts, max_features=3)
    # totals: apple 3, banana 2, cherry 1, date 1 -> tie cherry/date broken by word
    assert list(f.columns) == ["word_apple", "word_banana", "word_cherry"]
    assert f.to_numpy().tolist() == [[2, 1, 0], [0, 1, 1], [1, 0, 0]]
    assert f.dtypes.unique().tolist() == [np.int32]
    canon = canonicalize(
        pd.DataFrame({"text": texts, "split": ["train"] * 3, "target": ["g1", "g2", "g1"]}),
        {"meta_columns": ["split"], "encoding": {"text": {"column": "text", "max_features": 2}}},
    )
    assert list(canon.columns) == ["word_apple", "word_banana", "split", "target"]


# ----------------------------------------------------------------------------- converters
def test_read_csv(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("a,b,cls\n1,?,x\n2,3.5,y\n")
    df = read_csv(p, na_values=["?"], class_column="cls")
    assert list(df.columns) == ["a", "b", "target"]
    assert df["a"].dtype == np.int64 and np.isnan(df.loc[0, "b"]) and df.loc[1, "b"] == 3.5
    assert df["target"].tolist() == ["x", "y"]
    p2 = tmp_path / "d2.data.gz"
    with gzip.open(p2, "wt") as fh:
        fh.write("1 2 A\n3 4 B\n")
    df2 = read_csv(p2, sep=" ", header=None, names=["u", "v", "c"])
    assert list(df2.columns) == ["u", "v", "target"] and df2["target"].tolist() == ["A", "B"]


def test_read_arff(tmp_path):
    p = tmp_path / "t.arff"
    p.write_text(
        "% comment\n@RELATION test\n\n"
        "@ATTRIBUTE 'width cm' NUMERIC\n@attribute n integer\n@attribute color {red, 'dark blue', green}\n"
        "@attribute note string\n@attribute class {yes,no}\n\n@DATA\n"
        "1.5,3,red,'hello, world',yes\n"
        "?,4,'dark blue',\"q\",no\n"
        "% another comment\n"
        "2,5,?,plain,yes\n"
    )
    df = read_arff(p)
    assert list(df.columns) == ["width cm", "n", "color", "note", "target"]
    assert df["width cm"].dtype == np.float64 and np.isnan(df.loc[1, "width cm"])
    assert df["n"].dtype == np.int64 and df["n"].tolist() == [3, 4, 5]
    assert df.loc[1, "color"] == "dark blue" and pd.isna(df.loc[2, "color"])
    assert df.loc[0, "note"] == "hello, world"
    assert df["target"].tolist() == ["yes", "no", "yes"]
    p2 = tmp_path / "bad.arff"
    p2.write_text("@relation r\n@attribute c {a,b}\n@data\nz\n")
    with pytest.raises(ValueError, match="declared categories"):
        read_arff(p2)


def test_read_keel(tmp_path):
    p = tmp_path / "k.dat"
    p.write_text(
        "@relation yeast\n@attribute Mcg real [0.11, 1.0]\n@attribute Cnt integer [0, 9]\n"
        "@attribute Kind {tcp, udp}\n@attribute Class {positive, negative}\n"
        "@inputs Mcg, Cnt, Kind\n@outputs Class\n@data\n"
        "0.58, 1, tcp, negative\n0.43, <null>, udp, positive\n0.5, 3, ?, negative\n"
    )
    df = read_keel(p)
    assert list(df.columns) == ["Mcg", "Cnt", "Kind", "target"]
    assert df["Mcg"].tolist() == [0.58, 0.43, 0.5]
    assert df["Cnt"].dtype == np.float64 and np.isnan(df.loc[1, "Cnt"])
    assert pd.isna(df.loc[2, "Kind"]) and df.loc[1, "Kind"] == "udp"
    assert df["target"].tolist() == ["negative", "positive", "negative"]


def test_read_libsvm(tmp_path):
    p = tmp_path / "s.txt.bz2"
    with bz2.open(p, "wt") as fh:
        fh.write("-1 1:0.5 3:2\n1 2:-1.25\n")
    df = read_libsvm(p, n_features=4)
    assert list(df.columns) == ["f1", "f2", "f3", "f4", "target"]
    assert df[["f1", "f2", "f3", "f4"]].to_numpy().tolist() == [[0.5, 0, 2, 0], [0, -1.25, 0, 0]]
    assert df["target"].dtype == np.int64 and df["target"].tolist() == [-1, 1]


def test_read_mat_and_npz(tmp_path):
    from scipy.io import savemat

    X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.5]])
    y = np.array([[0], [1], [0]], dtype=np.float64)
    savemat(tmp_path / "o.mat", {"X": X, "y": y})
    df = read_mat(tmp_path / "o.mat")
    assert list(df.columns) == ["f0", "f1", "target"]
    assert df[["f0", "f1"]].to_numpy().tolist() == X.tolist() and df["target"].tolist() == [0, 1, 0]
    assert df["target"].dtype == np.int64
    np.savez(tmp_path / "a.npz", X=X.astype(np.int16), y=np.array([1, 0, 0]))
    d2 = read_npz(tmp_path / "a.npz", names=["u", "v"])
    assert list(d2.columns) == ["u", "v", "target"] and d2["u"].dtype == np.int16
    assert d2["target"].tolist() == [1, 0, 0]
    with pytest.raises(ValueError, match="key"):
        read_npz(tmp_path / "a.npz", y_key="labels")


def test_read_newsgroups_tar(tmp_path):
    import io
    import tarfile

    p = tmp_path / "ng.tar.gz"
    with tarfile.open(p, "w:gz") as tf:
        for path, text in [
            ("20news-bydate-test/sci.med/5", "Subject: t\n\ncaf\xe9"),
            ("20news-bydate-train/sci.med/12", "b"),
            ("20news-bydate-train/comp.graphics/7", "a"),
        ]:
            data = text.encode("latin-1")
            info = tarfile.TarInfo(path)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    df = read_newsgroups_tar(p)
    assert df["target"].tolist() == ["comp.graphics", "sci.med", "sci.med"]
    assert df["split"].tolist() == ["train", "train", "test"]
    assert df["doc_id"].tolist() == [7, 12, 5] and df.loc[2, "text"].endswith("caf\xe9")


def _cifar_fixture(path, n_per_batch=3, with_meta=True):
    """A tiny CIFAR-10 python-version archive: 5 train batches and a test batch of
    ``n_per_batch`` images each, pickled like the original (protocol 2, bytes keys)."""
    import io
    import pickle
    import tarfile

    rng = np.random.default_rng(0)
    batches = {}
    for k, name in enumerate([f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]):
        data = rng.integers(0, 256, size=(n_per_batch, 3072), dtype=np.uint8)
        data[:, 0] = k  # batch index in the first red pixel
        labels = [(k + j) % 10 for j in range(n_per_batch)]
        batches[name] = {b"batch_label": name.encode(), b"labels": labels, b"data": data,
                         b"filenames": [f"img{j}.png".encode() for j in range(n_per_batch)]}
    with tarfile.open(path, "w:gz") as tf:
        members = dict(batches)
        if with_meta:
            members["batches.meta"] = {b"label_names": [n.encode() for n in (
                "airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")],
                b"num_vis": 3072}
        for name, obj in members.items():
            raw = pickle.dumps(obj, protocol=2)
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(raw)
            tf.addfile(info, io.BytesIO(raw))
    return batches


def test_read_cifar10_tar(tmp_path):
    from pu_lib.datasets.converters import read_cifar10_tar

    p = tmp_path / "cifar-10-python.tar.gz"
    batches = _cifar_fixture(p)
    df = read_cifar10_tar(p)
    assert df.shape == (18, 3072 + 2)
    assert list(df.columns[:2]) == ["r0000", "r0001"] and df.columns[1024] == "g0000" and df.columns[3071] == "b1023"
    assert list(df.columns[-2:]) == ["split", "target"]
    assert df["r0000"].dtype == np.uint8
    assert df["split"].tolist() == ["train"] * 15 + ["test"] * 3
    assert df["r0000"].tolist() == [k for k in range(6) for _ in range(3)]  # batch order 1..5, test
    assert df["target"].tolist()[:4] == ["airplane", "automobile", "bird", "automobile"]
    px = df.drop(columns=["split", "target"]).to_numpy()
    assert np.array_equal(px[15:], batches["test_batch"][b"data"])
    y = binary_labels(df["target"].to_numpy(), get_spec("cifar10")["positive"]["pu_extra_trees"])
    assert y.tolist()[:4] == [1, 1, 0, 1]
    # without batches.meta the standard names are used
    q = tmp_path / "nometa.tar.gz"
    _cifar_fixture(q, with_meta=False)
    assert read_cifar10_tar(q)["target"].tolist() == df["target"].tolist()


def test_read_cifar10_tar_refuses_foreign_pickles(tmp_path):
    import io
    import pickle
    import tarfile

    from pu_lib.datasets.converters import read_cifar10_tar

    p = tmp_path / "evil.tar.gz"
    with tarfile.open(p, "w:gz") as tf:
        raw = pickle.dumps({b"data": __import__("collections").OrderedDict()}, protocol=2)
        info = tarfile.TarInfo("cifar-10-batches-py/data_batch_1")
        info.size = len(raw)
        tf.addfile(info, io.BytesIO(raw))
    with pytest.raises(pickle.UnpicklingError, match="not allowed"):
        read_cifar10_tar(p)


@pytest.mark.slow
def test_prepare_download_only_cifar10_records_its_fingerprint(tmp_path):
    """The registry's cifar10 entry, pointed at a local fixture archive: download,
    convert, record the fingerprint on first build, reuse and detect tampering."""
    import pyarrow.parquet as pq

    from pu_lib.datasets import load_canonical, prepare_dataset

    p = tmp_path / "cifar-10-python.tar.gz"
    _cifar_fixture(p)
    spec = get_spec("cifar10")
    spec["urls"] = [p.as_uri()]
    out = prepare_dataset("cifar10", tmp_path / "out" / "cifar10.parquet", cache_dir=tmp_path / "cache", spec=spec)
    stored = json.loads(pq.read_schema(out).metadata[b"pu_lib.dataset"])
    assert stored["fingerprint_recorded"] is True and stored["fingerprint"].startswith("sha256:")
    assert (tmp_path / "cache" / "raw" / "cifar10" / "cifar-10-python.tar.gz").is_file()
    reg = {"datasets": {"cifar10": spec}}
    ds = load_canonical(out, registry=reg)
    assert ds.X.shape == (18, 3072) and ds.meta["split"].tolist()[-1] == "test"
    assert int(ds.binary_target("pu_extra_trees").sum()) == 3  # labels 0, 1 in batch 1; 1 in batch 2
    mtime = out.stat().st_mtime_ns
    assert prepare_dataset("cifar10", out, cache_dir=tmp_path / "cache", spec=spec, download=False) == out
    assert out.stat().st_mtime_ns == mtime  # reused, checked against the recorded fingerprint
    # a file whose content no longer matches its recorded fingerprint is rebuilt
    import pyarrow as pa

    table = pq.read_table(out)
    table = table.set_column(0, "r0000", pa.array(np.zeros(18, dtype=np.uint8)))
    pq.write_table(table, out)
    prepare_dataset("cifar10", out, cache_dir=tmp_path / "cache", spec=spec, download=True)
    assert load_canonical(out, registry=reg).X[:, 0].tolist() == [k for k in range(6) for _ in range(3)]
    # offline with nothing prepared: the usual error
    with pytest.raises(ValueError, match="cifar10.*download=False"):
        prepare_dataset("cifar10", tmp_path / "other.parquet", cache_dir=tmp_path / "c2", spec=spec, download=False)


def test_offline_unavailable_reason(tmp_path):
    from pu_lib.datasets import offline_unavailable_reason as why

    assert why("digits") is None and why("pulsnar_snar") is None
    assert why("covtype_binary", cache_dir=tmp_path) == "no mirror copy"
    assert why("mnist", cache_dir=tmp_path) == "no data_mirror configured"
    assert why("mnist", data_mirror=tmp_path, cache_dir=tmp_path) == f"not in the mirror {tmp_path}"
    (tmp_path / "mnist.parquet").write_bytes(b"x")
    assert why("mnist", data_mirror=tmp_path, cache_dir=tmp_path) is None
    prepared = tmp_path / "results" / "covtype_binary.parquet"
    prepared.parent.mkdir()
    prepared.write_bytes(b"x")
    assert why("covtype_binary", cache_dir=tmp_path, prepared=(prepared,)) is None


def test_prepare_dataset_copies_a_valid_cached_table(tmp_path):
    from pu_lib.datasets import prepare_dataset

    cached = prepare_dataset("digits", cache_dir=tmp_path / "cache")
    out = prepare_dataset("digits", tmp_path / "results" / "digits.parquet", cache_dir=tmp_path / "cache")
    assert out.read_bytes() == cached.read_bytes()


def test_read_libsvm_dtype(tmp_path):
    p = tmp_path / "s.txt"
    p.write_text("-1 1:0.5 3:2\n1 2:-1.25\n")
    df = read_libsvm(p, n_features=3, dtype=np.float32)
    assert df["f1"].dtype == np.float32 and df["target"].tolist() == [-1, 1]


def test_text_svd_features_fixture():
    from pu_lib.datasets.canonical import text_svd_features

    texts = [f"Subject: s\n\nalpha beta gamma {w} delta {w}" for w in ("red", "green", "blue", "red", "cyan")] * 3
    a = text_svd_features(texts, n_components=3, min_df=1)
    assert list(a.columns) == ["svd_000", "svd_001", "svd_002"] and a.shape == (15, 3)
    assert a.dtypes.unique().tolist() == [np.float32]
    assert np.allclose(a.to_numpy(), np.round(a.to_numpy(), 4), atol=1e-7)  # rounded to 4 decimals
    b = text_svd_features(texts, n_components=3, min_df=1)
    assert fingerprint(a) == fingerprint(b)  # deterministic
    canon = canonicalize(
        pd.DataFrame({"text": texts, "split": ["train"] * 15, "target": ["g"] * 15}),
        {"meta_columns": ["split"], "encoding": {"text": {"column": "text", "method": "tfidf_svd",
                                                          "n_components": 2, "min_df": 1}}},
    )
    assert list(canon.columns) == ["svd_000", "svd_001", "split", "target"]
    with pytest.raises(ValueError, match="vocabulary"):
        text_svd_features(texts, n_components=50, min_df=1)


# ----------------------------------------------------------------------------- synthetic
def test_snar_counts_paper_example():
    assert snar_unlabeled_counts(1200) == [39, 77, 155, 310, 619]
    for n in (0, 1, 60, 300, 599, 1800, 3000):
        assert sum(snar_unlabeled_counts(n)) == n


@pytest.mark.parametrize("frac", [0.0, 0.01, 0.2, 0.5])
def test_pulsnar_scar_counts(frac):
    ds = make_pulsnar_scar(frac=frac, random_state=3)
    k = round(frac * 6000)
    assert np.bincount(ds.target, minlength=2).tolist() == [6000 - k, 2000 + k]
    assert ds.X.shape == (8000, 50) and ds.X.dtype == np.float32 and ds.X.flags.c_contiguous
    s = ds.meta["recipe_s"].to_numpy()
    assert s.sum() == 2000 and np.all(ds.target[s == 1] == 1)
    unl = s == 0
    assert ds.target[unl].sum() == k  # fraction frac of positives in the unlabeled set
    assert np.array_equal(ds.binary_target(), ds.target.astype(np.int8))


def test_pulsnar_snar_counts_paper():
    ds = make_pulsnar_snar(frac=0.2, random_state=0)
    counts = np.bincount(ds.target, minlength=6).tolist()
    assert counts == [4800, 439, 477, 555, 710, 1019]
    s = ds.meta["recipe_s"].to_numpy()
    unl = np.bincount(ds.target[s == 0], minlength=6).tolist()
    assert unl == [4800, 39, 77, 155, 310, 619]
    assert np.bincount(ds.target[s == 1], minlength=6).tolist() == [0, 400, 400, 400, 400, 400]
    assert np.array_equal(ds.groups, ds.target)
    assert int(ds.binary_target().sum()) == 3200


def test_synthetic_determinism_and_params():
    a = make_pulsnar_snar(random_state=5)
    b = make_pulsnar_snar(random_state=5)
    c = make_pulsnar_snar(random_state=6)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.target, b.target)
    assert np.array_equal(a.meta["recipe_s"], b.meta["recipe_s"])
    assert not np.array_equal(a.X, c.X)
    d = load_dataset("pulsnar_scar", params={"frac": 0.1}, seed=5)
    e = make_pulsnar_scar(frac=0.1, random_state=5)
    assert np.array_equal(d.X, e.X)
    with pytest.raises(ValueError, match="frac"):
        load_dataset("pulsnar_scar", params={"frac": 1.0})
    with pytest.raises(ValueError, match="unknown params"):
        load_dataset("pulsnar_snar", params={"fraction": 0.1})
    # default parameters, seed 0 reproduce the registry's fingerprint
    spec = get_spec("pulsnar_snar")
    ds0 = load_dataset("pulsnar_snar")
    frame = pd.DataFrame(ds0.X, columns=ds0.feature_names)
    frame["recipe_s"] = ds0.meta["recipe_s"].to_numpy()
    frame["target"] = ds0.target
    assert fingerprint(frame) == spec["fingerprint_seed0"]


def test_dataset_validation():
    ds = Dataset(name="x", X=np.ones((3, 2), dtype=np.float64), target=np.array([0, 1, 0]), feature_names=["a", "b"])
    assert ds.X.dtype == np.float32 and ds.X.flags.c_contiguous
    with pytest.raises(ValueError):
        Dataset(name="x", X=np.ones((3, 2)), target=np.array([0, 1]), feature_names=["a", "b"])
    sub = ds.subset(np.array([True, False, True]))
    assert sub.X.shape == (2, 2) and sub.target.tolist() == [0, 0]
