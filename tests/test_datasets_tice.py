"""Data sets of the Bekker thesis, chapter 3 (TIcE experiments, Table 3.1), PU and NU versions.

Table 3.1 lists rows and Pr(y=1) per data set. Definitions ``bekker_tice`` (PU: the
Table 3.1 positive class) and ``bekker_tice_nu`` (NU, Section 3.3.2: the other class is
the labeled one) on breast_cancer_wisconsin_original, mushroom, adult and ijcnn1; the six
20 Newsgroups pairs are definitions ``<a>_<b>`` / ``<a>_<b>_nu`` of ``newsgroups20_bow200``
(bydate training documents only, via ``keep_meta``). Cover Type (536,301 rows) is not in the
mirror and not defined here.

Tolerances against Table 3.1: the four tabular sets match the rows exactly and the prior to
the table's 3 decimals (|p - table| <= 0.0005). The 20 Newsgroups pairs have 4-38 rows more
than the thesis (the thesis' version lacks 29 comp, 9 rec, 1 sci and 3 talk training
documents, see the registry's positive_note): rows within 1 %, priors within 0.004 (worst:
comp_sci 0.447 vs 0.450). The mirror tests skip when the data mirror is absent.
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from conftest import SHARED_DATASETS, needs_mirror

from pu_lib.datasets import Dataset, canonicalize, fingerprint, get_spec, load_canonical, load_dataset, prepare_dataset
from pu_lib.datasets.canonical import text_count_features
from pu_lib.datasets.positive import binary_labels, row_mask, validate_definition


# Table 3.1: name -> (rows, Pr(y=1)) of the PU version
TABULAR = {
    "breast_cancer_wisconsin_original": (683, 0.350),
    "mushroom": (8124, 0.482),
    "adult": (48842, 0.761),
    "ijcnn1": (141691, 0.096),
}
# our exact counts (rows, positives of the PU version)
TABULAR_OURS = {
    "breast_cancer_wisconsin_original": (683, 239),
    "mushroom": (8124, 3916),
    "adult": (48842, 37155),
    "ijcnn1": (141691, 13565),
}
PAIRS = {  # definition -> (Table 3.1 rows, prior), (our rows, positives)
    "comp_rec": ((5287, 0.450), (5325, 2389)),
    "comp_sci": ((5279, 0.450), (5309, 2373)),
    "comp_talk": ((4856, 0.401), (4888, 1952)),
    "rec_sci": ((4752, 0.499), (4762, 2373)),
    "rec_talk": ((4329, 0.450), (4341, 1952)),
    "sci_talk": ((4321, 0.451), (4325, 1952)),
}
NG_ROWS_REL_TOL = 0.01
NG_PRIOR_TOL = 0.004


# ----------------------------------------------------------------------------- keep_meta
def test_keep_meta_row_selector():
    t = np.array(["comp.a", "rec.b", "comp.a", "sci.c", "rec.b"], dtype=object)
    meta = pd.DataFrame({"split": ["train", "train", "test", "train", "test"], "k": [1, 2, 3, 4, 5]})
    d = {"prefixes": ["rec."], "keep_prefixes": ["comp.", "rec."], "keep_meta": {"split": ["train"]}}
    assert binary_labels(t, d, meta=meta).tolist() == [0, 1, -1, -1, -1]
    # a scalar value is a one-element list; numeric meta columns; several columns are ANDed
    assert binary_labels(t, {"values": ["comp.a"], "keep_meta": {"split": "test"}}, meta=meta).tolist() == [-1, -1, 1, -1, 0]
    assert binary_labels(t, {"values": ["rec.b"], "keep_meta": {"k": [2, 5], "split": ["train"]}},
                         meta=meta).tolist() == [-1, 1, -1, -1, -1]
    assert row_mask(t, {"keep_meta": {"split": ["train"]}, "drop_values": ["sci.c"]}, meta=meta).tolist() == [
        True, True, False, False, False]
    assert row_mask(t, {}).all()
    # a mapping of arrays works as meta too
    assert binary_labels(t, d, meta={"split": meta["split"].to_numpy()}).tolist() == [0, 1, -1, -1, -1]


def test_keep_meta_errors():
    t = np.array(["a", "b"], dtype=object)
    with pytest.raises(ValueError, match="no meta columns were given"):
        binary_labels(t, {"values": ["a"], "keep_meta": {"split": ["train"]}})
    with pytest.raises(ValueError, match="no meta column 'fold'"):
        binary_labels(t, {"values": ["a"], "keep_meta": {"fold": [1]}}, meta=pd.DataFrame({"split": ["x", "y"]}))
    with pytest.raises(ValueError, match="rows"):
        binary_labels(t, {"values": ["a"], "keep_meta": {"split": ["x"]}}, meta=pd.DataFrame({"split": ["x"]}))
    for bad in ({}, [], {"split": []}, {"split": {"a": 1}}, "train"):
        with pytest.raises(ValueError, match="keep_meta"):
            validate_definition({"values": ["a"], "keep_meta": bad})
    with pytest.raises(ValueError, match="unknown keys"):
        validate_definition({"values": ["a"], "keep_metadata": {"split": "train"}})


def test_dataset_binary_target_uses_meta():
    meta = pd.DataFrame({"split": ["train", "test", "train"]})
    d = {"values": [1], "keep_meta": {"split": ["train"]}}
    ds = Dataset(name="x_tice", X=np.zeros((3, 1)), target=np.array([1, 0, 0]), feature_names=["f"], meta=meta, spec=None)
    assert ds.binary_target(d).tolist() == [1, -1, 0]
    mask, y = ds.select(d)
    assert mask.tolist() == [True, False, True] and y.tolist() == [1, 0]
    sub = ds.subset(np.array([False, True, True]))
    assert sub.binary_target(d).tolist() == [-1, 0]
    no_meta = Dataset(name="x_tice", X=np.zeros((3, 1)), target=np.array([1, 0, 0]), feature_names=["f"], spec=None)
    with pytest.raises(ValueError, match="with_meta"):
        no_meta.binary_target(d)


# ----------------------------------------------------------------------------- word counts on a subset
def test_text_count_features_fit_mask():
    texts = ["h\n\napple apple banana", "h\n\ncherry cherry cherry", "h\n\nbanana date", "h\n\nelder elder elder elder"]
    mask = np.array([True, False, True, False])
    a = text_count_features(texts, max_features=3, fit_mask=mask)
    # words ranked on rows 0 and 2 only (apple 2, banana 2, date 1); every row gets counts
    assert list(a.columns) == ["word_apple", "word_banana", "word_date"] and a.dtypes.unique().tolist() == [np.int32]
    assert a.to_numpy().tolist() == [[2, 1, 0], [0, 0, 0], [0, 1, 1], [0, 0, 0]]
    b = text_count_features([t for t, m in zip(texts, mask) if m], max_features=3)
    assert list(b.columns) == list(a.columns) and np.array_equal(b.to_numpy(), a.to_numpy()[mask])
    assert list(text_count_features(texts, max_features=1).columns) == ["word_elder"]  # no mask: all rows
    # binary: presence instead of counts, same words
    c = text_count_features(texts, max_features=3, fit_mask=mask, binary=True)
    assert list(c.columns) == list(a.columns) and c.to_numpy().tolist() == [[1, 1, 0], [0, 0, 0], [0, 1, 1], [0, 0, 0]]
    with pytest.raises(ValueError, match="distinct words"):
        text_count_features(texts, max_features=4, fit_mask=mask)
    with pytest.raises(ValueError, match="fit_mask"):
        text_count_features(texts, max_features=1, fit_mask=mask[:2])


def test_canonicalize_fit_rows():
    df = pd.DataFrame({
        "text": ["h\n\nalpha alpha beta", "h\n\ngamma gamma gamma", "h\n\nbeta beta delta", "h\n\nzeta"],
        "split": ["train", "train", "test", "train"],
        "target": ["comp.x", "alt.y", "rec.z", "rec.z"],
    })
    fit_rows = {"keep_prefixes": ["comp.", "rec."], "keep_meta": {"split": ["train"]}}
    spec = {"meta_columns": ["split"], "encoding": {"text": {"column": "text", "max_features": 2, "fit_rows": fit_rows}}}
    canon = canonicalize(df, spec)
    assert list(canon.columns) == ["word_alpha", "word_beta", "split", "target"]
    assert canon["word_beta"].tolist() == [1, 0, 2, 0]
    assert fingerprint(canon) == fingerprint(canonicalize(df, spec))
    svd = {"meta_columns": ["split"], "encoding": {"text": {"column": "text", "method": "tfidf_svd", "fit_rows": fit_rows}}}
    with pytest.raises(ValueError, match="fit_rows"):
        canonicalize(df, svd)


# ----------------------------------------------------------------------------- registry and config
def test_registry_definitions():
    for name in TABULAR:
        pos = get_spec(name)["positive"]
        pu, nu = pos["bekker_tice"], pos["bekker_tice_nu"]
        validate_definition(pu)
        validate_definition(nu)
        assert set(pu) == set(nu) == {"values"} and not set(pu["values"]) & set(nu["values"])
    assert get_spec("adult")["positive"]["bekker_tice"] == {"values": ["<=50K"]}
    assert get_spec("mushroom")["positive"]["bekker_tice"] == {"values": ["p"]}
    spec = get_spec("newsgroups20_bow200")
    assert spec["kind"] == "mirror" and spec["mirror_file"] == get_spec("newsgroups20_bydate")["mirror_file"]
    assert spec["n_features"] == 200 and spec["fingerprint"].startswith("sha256:")
    assert spec["encoding"]["text"]["fit_rows"] == {"keep_prefixes": ["comp.", "rec.", "sci.", "talk."],
                                                    "keep_meta": {"split": ["train"]}}
    pos = spec["positive"]
    assert set(pos) == {"default"} | set(PAIRS) | {p + "_nu" for p in PAIRS}
    assert pos["default"] == pos["comp_rec"]
    for pair in PAIRS:
        a, b = pair.split("_")
        pu, nu = pos[pair], pos[pair + "_nu"]
        validate_definition(pu)
        assert pu == {"prefixes": [b + "."], "keep_prefixes": [a + ".", b + "."], "keep_meta": {"split": ["train"]}}
        assert nu == dict(pu, prefixes=[a + "."])


def test_config_accepts_tice_definitions(repo, schema_path):
    import yaml

    from pu_lib.workflow.experiments.config import ConfigError, validate_config

    with open(repo / "config" / "config.yaml") as fh:
        cfg = yaml.safe_load(fh)
    exp = cfg["experiments"]["quick_uci"]
    exp["datasets"] = [{"name": "newsgroups20_bow200", "positive": p} for p in ("comp_rec", "sci_talk_nu")] + [
        {"name": n, "positive": d} for n in TABULAR for d in ("bekker_tice", "bekker_tice_nu")]
    out = validate_config(cfg, schema_path)
    assert [d["positive"] for d in out["experiments"]["quick_uci"]["datasets"]][:2] == ["comp_rec", "sci_talk_nu"]
    exp["datasets"] = [{"name": "newsgroups20_bow200", "positive": "comp_misc"}]
    with pytest.raises(ConfigError, match="comp_misc"):
        validate_config(cfg, schema_path)


# ----------------------------------------------------------------------------- mirror
@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("tice_cache")


@needs_mirror
@pytest.mark.parametrize("name", list(TABULAR))
def test_tabular_table_3_1(cache, name):
    ds = load_dataset(name, data_mirror=SHARED_DATASETS, cache_dir=cache)
    rows, prior = TABULAR[name]
    mask, y = ds.select("bekker_tice")
    mask_nu, y_nu = ds.select("bekker_tice_nu")
    assert mask.all() and mask_nu.all() and len(y) == rows  # Table 3.1 rows, exactly
    assert (len(y), int(y.sum())) == TABULAR_OURS[name]
    assert abs(y.mean() - prior) <= 0.0005, (name, y.mean(), prior)
    assert np.array_equal(y + y_nu, np.ones_like(y))  # NU = the other class
    assert y.mean() + y_nu.mean() == pytest.approx(1.0)


@needs_mirror
@pytest.mark.slow
def test_newsgroups20_bow200(cache):
    # prepare_dataset checks the table against the registry fingerprint (recorded in an
    # earlier run): the 200 word-presence features are deterministic
    path = prepare_dataset("newsgroups20_bow200", data_mirror=SHARED_DATASETS, cache_dir=cache, download=False)
    ds = load_canonical(path)
    assert ds.X.shape == (18846, 200) and len(ds.feature_names) == 200
    assert all(f.startswith("word_") for f in ds.feature_names) and ds.feature_names == sorted(ds.feature_names)
    assert set(np.unique(ds.X)) == {0.0, 1.0}  # presence of each word (binary bag of words)
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    assert not {f[len("word_"):] for f in ds.feature_names} & ENGLISH_STOP_WORDS
    split = ds.meta["split"].to_numpy()
    for pair, ((t_rows, t_prior), (rows, n_pos)) in PAIRS.items():
        mask, y = ds.select(pair)
        mask_nu, y_nu = ds.select(pair + "_nu")
        assert np.array_equal(mask, mask_nu) and np.array_equal(y + y_nu, np.ones_like(y))
        assert (split[mask] == "train").all()
        a, b = pair.split("_")
        kept = ds.target[mask].astype(str)
        assert np.array_equal(y == 1, np.char.startswith(kept, b + "."))
        assert set(np.char.partition(kept, ".")[:, 0]) == {a, b}
        assert (len(y), int(y.sum())) == (rows, n_pos)
        assert abs(len(y) - t_rows) <= NG_ROWS_REL_TOL * t_rows, (pair, len(y), t_rows)
        assert abs(y.mean() - t_prior) <= NG_PRIOR_TOL, (pair, y.mean(), t_prior)
        assert y.mean() + y_nu.mean() == pytest.approx(1.0)
    # the vocabulary is ranked on the 9650 used documents, so it differs from newsgroups20_bydate's
    used = row_mask(ds.target, get_spec("newsgroups20_bow200")["encoding"]["text"]["fit_rows"], meta=ds.meta)
    assert int(used.sum()) == 9650
    totals = ds.X[used].sum(axis=0)
    assert (totals > 0).all()
    # cached: a second call reuses the verified file
    mtime = path.stat().st_mtime_ns
    assert prepare_dataset("newsgroups20_bow200", data_mirror=SHARED_DATASETS, cache_dir=cache, download=False) == path
    assert path.stat().st_mtime_ns == mtime
