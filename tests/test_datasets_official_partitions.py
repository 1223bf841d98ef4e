"""Download-only entries for the papers' own data: the official UNSW-NB15 partitions and
20 Newsgroups as averaged GloVe vectors, converted from small hand-made files (no internet)."""

from __future__ import annotations

import io
import re
import tarfile
import zipfile

import numpy as np
import pandas as pd
import pytest
import yaml

from pu_lib.datasets import get_spec, list_datasets, load_canonical, offline_unavailable_reason, prepare_dataset
from pu_lib.datasets.canonical import canonicalize
from pu_lib.datasets.registry import comparability_note

UNSW_HEADER = "id,dur,proto,service,state,spkts,attack_cat,label\n"


def _unsw_csv(rows):
    # the released CSVs start with a byte-order mark
    return ("\ufeff" + UNSW_HEADER + "".join(",".join(map(str, r)) + "\n" for r in rows)).encode("utf-8")


TRAIN_ROWS = [(1, 0.1, "tcp", "-", "FIN", 4, "Normal", 0), (2, 0.2, "udp", "dns", "INT", 2, "Generic", 1),
              (3, 0.3, "tcp", "http", "FIN", 8, "Exploits", 1), (4, 0.0, "udp", "-", "CON", 2, "Normal", 0),
              (5, 1.5, "ospf", "-", "INT", 1, "Fuzzers", 1)]
TEST_ROWS = [(1, 0.4, "tcp", "-", "FIN", 6, "Normal", 0), (2, 0.5, "arp", "-", "INT", 2, "Generic", 1),
             (3, 0.6, "udp", "dns", "CON", 2, "Normal", 0)]


def _unsw_spec():
    spec = get_spec("unsw_nb15_official")
    spec["conversion"]["part_rows"] = [len(TRAIN_ROWS), len(TEST_ROWS)]
    return spec


def _put_unsw(tmp_path, train_name="UNSW_NB15_testing-set.csv", test_name="UNSW_NB15_training-set.csv"):
    raw = tmp_path / "raw" / "unsw_nb15_official"
    raw.mkdir(parents=True)
    # as released: the 175341-row (training) partition is in the file named testing-set
    (raw / train_name).write_bytes(_unsw_csv(TRAIN_ROWS))
    (raw / test_name).write_bytes(_unsw_csv(TEST_ROWS))
    return raw


def test_unsw_official_entry_is_download_only_with_the_partitions():
    spec = get_spec("unsw_nb15_official")
    assert spec["kind"] == "download" and not spec.get("mirror_file")
    assert spec["conversion"]["part_rows"] == [175341, 82332]
    assert spec["conversion"]["split_values"] == ["train", "test"]
    assert "split" in spec["meta_columns"]
    assert spec["positive"] == get_spec("unsw_nb15_testing_set")["positive"]
    assert spec.get("fingerprint") is None and spec.get("checksum_note")  # recorded at first build


def test_unsw_official_split_by_row_counts_and_aligned_columns(tmp_path):
    _put_unsw(tmp_path)
    path = prepare_dataset("unsw_nb15_official", spec=_unsw_spec(), cache_dir=tmp_path)
    ds = load_canonical(path)
    split = ds.meta["split"].to_numpy()
    assert (split == "train").sum() == len(TRAIN_ROWS) and (split == "test").sum() == len(TEST_ROWS)
    names = list(ds.feature_names)
    protos = [n for n in names if n.startswith("proto=")]
    # one set of columns for both partitions: the categories of either partition
    assert protos == ["proto=arp", "proto=ospf", "proto=tcp", "proto=udp"]
    X = pd.DataFrame(np.asarray(ds.X), columns=names)  # load_canonical gives float32
    assert (X[protos].sum(axis=1) == 1).all()
    test_X = X[split == "test"].reset_index(drop=True)
    assert list(test_X["proto=arp"]) == [0, 1, 0] and list(test_X["proto=ospf"]) == [0, 0, 0]
    # the testing partition is encoded as the one-partition entry encodes it (same rule)
    alone = canonicalize(pd.read_csv(io.BytesIO(_unsw_csv(TEST_ROWS)), encoding="utf-8-sig")
                         .rename(columns={"label": "target"}), get_spec("unsw_nb15_testing_set"))
    for col in alone.columns:
        if col not in ("id", "attack_cat", "target"):
            np.testing.assert_array_equal(test_X[col].to_numpy(np.float32), alone[col].to_numpy(np.float32))
    assert "id" not in names and "attack_cat" not in names and "split" not in names


def test_unsw_official_missing_file_names_where_to_put_it(tmp_path):
    with pytest.raises(ValueError, match=r"UNSW_NB15_testing-set\.csv.*research\.unsw\.edu\.au"):
        prepare_dataset("unsw_nb15_official", spec=_unsw_spec(), cache_dir=tmp_path)


def test_unsw_official_wrong_row_counts_are_an_error(tmp_path):
    _put_unsw(tmp_path)
    spec = _unsw_spec()
    spec["conversion"]["part_rows"] = [175341, 82332]
    with pytest.raises(ValueError, match="part_rows"):
        prepare_dataset("unsw_nb15_official", spec=spec, cache_dir=tmp_path)


def _tar_bytes(docs):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, text in docs.items():
            data = text.encode("latin-1")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_newsgroups_glove_averages_word_vectors(tmp_path):
    docs = {
        "20news-bydate-train/alt.atheism/10": "From: a@b\nSubject: x\n\nGod god exists\n> quoted space\n",
        "20news-bydate-train/sci.space/11": "From: c@d\n\nThe orbit.\n",
        "20news-bydate-test/comp.graphics/12": "From: e@f\n\nzzz qqq\n",
    }
    (tmp_path / "20news-bydate.tar.gz").write_bytes(_tar_bytes(docs))
    vec = "god 1 0 2\nexists 0 1 0\norbit 3 3 3\nspace 9 9 9\nthe 0 0 -3\n"
    with zipfile.ZipFile(tmp_path / "glove.6B.zip", "w") as zf:
        zf.writestr("glove.6B.300d.txt", vec)
    spec = get_spec("newsgroups20_glove300")
    spec["urls"] = [(tmp_path / "20news-bydate.tar.gz").as_uri(), (tmp_path / "glove.6B.zip").as_uri()]
    path = prepare_dataset("newsgroups20_glove300", spec=spec, cache_dir=tmp_path / "cache")
    ds = load_canonical(path)
    assert list(ds.feature_names) == ["glove_000", "glove_001", "glove_002"]
    X = np.asarray(ds.X, dtype=float)
    # "God god exists": every occurrence counts, the quoted line is removed
    np.testing.assert_allclose(X[0], [2 / 3, 1 / 3, 4 / 3], atol=1e-4)
    np.testing.assert_allclose(X[1], [1.5, 1.5, 0.0], atol=1e-4)  # "the orbit"
    np.testing.assert_array_equal(X[2], [0, 0, 0])  # no known word
    assert list(ds.meta["split"]) == ["train", "train", "test"]


def test_registry_comparability_fields():
    for name in list_datasets():
        comparability_note(get_spec(name))  # every entry valid
    for name in ("unsw_nb15_testing_set", "newsgroups20_svd300"):
        assert "not comparable with the paper" in comparability_note(get_spec(name))
    for name in ("unsw_nb15_official", "newsgroups20_glove300"):
        assert comparability_note(get_spec(name)) is None
    with pytest.raises(ValueError, match="comparability_note"):
        comparability_note({"name": "x", "paper_comparable": False})
    with pytest.raises(ValueError, match="true or false"):
        comparability_note({"name": "x", "paper_comparable": "no"})


def test_unsw_official_hand_placed_files_build_offline(tmp_path):
    _put_unsw(tmp_path)
    # checked as a download is: other row counts than the release's are an error offline too
    spec = _unsw_spec()
    spec["conversion"]["part_rows"] = [175341, 82332]
    with pytest.raises(ValueError, match="part_rows"):
        prepare_dataset("unsw_nb15_official", spec=spec, cache_dir=tmp_path, download=False)
    path = prepare_dataset("unsw_nb15_official", spec=_unsw_spec(), cache_dir=tmp_path, download=False)
    split = load_canonical(path).meta["split"].to_numpy()
    assert (split == "train").sum() == len(TRAIN_ROWS) and (split == "test").sum() == len(TEST_ROWS)


def test_unsw_official_offline_without_files_names_them_and_where(tmp_path):
    raw = tmp_path / "raw" / "unsw_nb15_official"
    with pytest.raises(ValueError, match=r"download=False.*UNSW_NB15_training-set\.csv, UNSW_NB15_testing-set\.csv"
                                         r" \(from https://research\.unsw\.edu\.au.*\) in " + re.escape(str(raw))):
        prepare_dataset("unsw_nb15_official", spec=_unsw_spec(), cache_dir=tmp_path, download=False)
    reason = offline_unavailable_reason("unsw_nb15_official", cache_dir=tmp_path)
    assert reason == ("download by hand: put UNSW_NB15_training-set.csv, UNSW_NB15_testing-set.csv from "
                      f"https://research.unsw.edu.au/projects/unsw-nb15-dataset in {raw}")
    _put_unsw(tmp_path)
    assert offline_unavailable_reason("unsw_nb15_official", cache_dir=tmp_path) is None


def test_hand_placed_files_keep_an_optional_dataset_in_the_offline_grid(repo, schema_path, tmp_path):
    from pu_lib.workflow.experiments.config import Grid, validate_config

    cfg = yaml.safe_load((repo / "config" / "config.yaml").read_text())
    cfg.update(download=False, cache_dir=str(tmp_path / "cache"))
    cfg["experiments"]["quick_uci"]["datasets"] = ["breast_cancer", {"name": "unsw_nb15_official", "optional": True}]
    grid = Grid(validate_config(cfg, schema_path), workdir=tmp_path)
    raw = tmp_path / "cache" / "raw" / "unsw_nb15_official"
    # no "set download: true": a download does not fetch files that are put in place by hand
    assert grid.skip_messages() == [
        "skipped offline: unsw_nb15_official (download by hand: put UNSW_NB15_training-set.csv, "
        f"UNSW_NB15_testing-set.csv from https://research.unsw.edu.au/projects/unsw-nb15-dataset in {raw})"]
    _put_unsw(tmp_path / "cache")
    grid = Grid(validate_config(cfg, schema_path), workdir=tmp_path)
    assert not grid.skipped and "unsw_nb15_official" in grid.experiments["quick_uci"]["datasets"]


def test_newsgroups_glove_files_in_the_raw_directory_build_offline(tmp_path):
    raw = tmp_path / "raw" / "newsgroups20_glove300"
    with pytest.raises(ValueError, match=r"20news-bydate\.tar\.gz, glove\.6B\.zip \(from http://qwone\.com.* and "
                                         r"https://nlp\.stanford\.edu/data/glove\.6B\.zip\) in " + re.escape(str(raw))):
        prepare_dataset("newsgroups20_glove300", cache_dir=tmp_path, download=False)
    raw.mkdir(parents=True)
    (raw / "20news-bydate.tar.gz").write_bytes(_tar_bytes({"20news-bydate-test/sci.space/1": "From: a\n\norbit\n"}))
    with zipfile.ZipFile(raw / "glove.6B.zip", "w") as zf:
        zf.writestr("glove.6B.300d.txt", "orbit 3 3\n")
    assert offline_unavailable_reason("newsgroups20_glove300", cache_dir=tmp_path) is None
    ds = load_canonical(prepare_dataset("newsgroups20_glove300", cache_dir=tmp_path, download=False))
    np.testing.assert_allclose(np.asarray(ds.X, dtype=float), [[3, 3]])
