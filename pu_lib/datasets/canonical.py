"""Canonical table form of a dataset and its fingerprint.

The *canonical table* of a dataset is a :class:`pandas.DataFrame` with

* numeric feature columns, in the order of the source table, keeping their
  numeric dtype (``uint8`` MNIST pixels stay ``uint8``, ``int64`` stays ``int64``,
  ``float64`` stays ``float64``; an integer column with missing values arrives as
  ``float64`` with ``NaN``);
* categorical (string) feature columns encoded deterministically (Bekker thesis,
  Section 5.6.1: "Multivalued attributes were binarized"):

  - categories are the distinct non-missing values, sorted by Unicode code point;
  - exactly two categories and no missing value -> one ``uint8`` column named
    ``"<col>=<second category>"`` that is 1 for the second category and 0 for the
    first;
  - otherwise -> one-hot, one ``uint8`` column ``"<col>=<category>"`` per category
    (a column with a single category gives one constant column);
  - missing values: with ``missing_categorical="zeros"`` (default) a missing value
    is the all-zero pattern of its one-hot block; with ``"nan"`` the block becomes
    ``float32`` and a missing value is ``NaN`` in every column of the block (so the
    loader's ``dropna`` removes the row; used for splice, as in the Bekker thesis
    which drops the sequences with ambiguous bases);
  - ``na_values`` (per column or for all columns) lists strings treated as missing
    (e.g. mushroom ``stalk-root == "?"``);
  - ``min_category_count``: categories seen fewer times are merged into
    ``"__other__"`` before encoding (Bekker thesis, Section 5.6.1, diabetes:
    "replaced uncommon attribute values by 'other'");
  - ``category_codes`` (a mapping category -> number, for all categorical columns):
    each column becomes one ``float64`` column of those numbers instead of a one-hot
    block, a missing value ``NaN`` (LIBSVM's splice codes the bases A, G, C, T as 1-4);

* an optional text feature built by :func:`text_count_features` (bag of words, 20
  Newsgroups as in the Bekker thesis) or :func:`text_svd_features` (TF-IDF + truncated
  SVD, the dense 300-feature substitute for the PU Extra Trees paper's GloVe averages);
* the meta columns named in the spec (kept as they are, never features);
* ``target`` with the ORIGINAL class values, last.

An entry's ``preparation`` (named, deterministic steps such as standardisation or a
fixed stratified sample; :mod:`pu_lib.datasets.preparation`) is applied to the source
table before the encoding, so the canonical table and its fingerprint include it.

:func:`fingerprint` hashes such a table (schema and values) with SHA-256.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Mapping

import numpy as np
import pandas as pd

TARGET = "target"
OTHER_CATEGORY = "__other__"

__all__ = [
    "TARGET",
    "OTHER_CATEGORY",
    "canonicalize",
    "fingerprint",
    "feature_columns",
    "strip_newsgroup_text",
    "text_count_features",
    "text_svd_features",
    "dtype_tag",
]


# --------------------------------------------------------------------------- helpers
def _is_string_dtype(dtype) -> bool:
    if isinstance(dtype, pd.CategoricalDtype):
        return True
    if pd.api.types.is_string_dtype(dtype) or dtype == object:
        return True
    return False


def dtype_tag(dtype) -> str:
    """Return the machine-independent dtype name used in fingerprints.

    Numeric and boolean dtypes map to their NumPy name (``"uint8"``, ``"float64"``,
    ...); every string/object dtype (pandas ``str``, ``string``, ``object``) maps to
    ``"string"``, so pandas' choice of string storage does not change a fingerprint.
    """
    if _is_string_dtype(dtype):
        return "string"
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if isinstance(dtype, pd.api.extensions.ExtensionDtype):
        # nullable integer / float extension dtypes: name of the numpy equivalent
        return np.dtype(dtype.numpy_dtype).name
    return np.dtype(dtype).name


def feature_columns(columns, meta_columns=(), target: str = TARGET) -> list[str]:
    """Columns of a canonical (or mirror) table that are features, in order."""
    meta = set(meta_columns or ())
    return [c for c in columns if c != target and c not in meta]


# --------------------------------------------------------------------------- fingerprint
_NULL = b"\xff\xfe"  # length sentinel never produced by a real string


def _hash_string_column(h, values: np.ndarray) -> None:
    # Length-prefixed UTF-8: unambiguous for any content; missing -> sentinel.
    parts = []
    lengths = np.empty(len(values), dtype="<i8")
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA:
            lengths[i] = -1
        else:
            b = str(v).encode("utf-8")
            lengths[i] = len(b)
            parts.append(b)
    h.update(lengths.tobytes())
    h.update(b"".join(parts))


def fingerprint(df: pd.DataFrame) -> str:
    """SHA-256 fingerprint of a table's schema and values, ``"sha256:<hex>"``.

    Hashed, in order: the row count; then for every column its name (UTF-8), its
    :func:`dtype_tag` and its values. Numeric values are hashed as little-endian
    NumPy bytes of the column's dtype, with every ``NaN`` replaced by the one
    canonical quiet NaN (NaN payloads may differ between machines). Strings are
    hashed as an array of byte lengths (``-1`` = missing) followed by the
    concatenated UTF-8 bytes. The index is ignored. Stable across runs, machines
    and pandas string storages; MNIST (70000 x 786) takes well under a second.
    """
    h = hashlib.sha256()
    h.update(b"pu_lib-canonical-v1\x00")
    h.update(np.int64(len(df)).astype("<i8").tobytes())
    for name in df.columns:
        col = df[name]
        tag = dtype_tag(col.dtype)
        h.update(str(name).encode("utf-8") + b"\x00" + tag.encode("ascii") + b"\x00")
        if tag == "string":
            _hash_string_column(h, col.to_numpy(dtype=object, na_value=None))
            continue
        if isinstance(col.dtype, pd.api.extensions.ExtensionDtype):
            if col.isna().any():
                arr = col.to_numpy(dtype="float64", na_value=np.nan)
                tag = "float64"
            else:
                arr = col.to_numpy(dtype=np.dtype(tag))
        else:
            arr = col.to_numpy()
        arr = np.ascontiguousarray(arr)
        if arr.dtype.kind == "f":
            nan = np.isnan(arr)
            if nan.any():
                arr = arr.copy()
                arr[nan] = np.nan
        if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and not _LITTLE):
            arr = arr.astype(arr.dtype.newbyteorder("<"))
        h.update(memoryview(arr).cast("B"))
    return "sha256:" + h.hexdigest()


_LITTLE = np.little_endian


# --------------------------------------------------------------------------- text
_QUOTE_RE = re.compile(
    r"(writes in|writes:|wrote:|says:|said:|^In article|^Quoted from|^\||^>)"
)


def strip_newsgroup_text(text: str) -> str:
    """Remove header, quoted lines and signature from a Usenet message.

    * header: everything up to the first blank line (``"\\n\\n"``);
    * quotes: lines starting with ``>`` or ``|`` and attribution lines
      (``In article ...``, ``... writes:``, ``wrote:``, ``says:``, ``said:``,
      ``Quoted from``);
    * footer: everything from the last line equal to ``"--"`` (the signature
      separator, trailing spaces ignored).

    As in the Bekker thesis, Section 5.6.1 (20 Newsgroups: "After removing their
    headers, footers, quotes ...").
    """
    _, sep, body = text.partition("\n\n")
    if not sep:
        body = text
    lines = body.split("\n")
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].rstrip() == "--":
            lines = lines[:i]
            break
    return "\n".join(line for line in lines if not _QUOTE_RE.search(line))


def text_count_features(
    texts, *, max_features: int = 200, stop_words: str | None = "english", strip: bool = True,
    prefix: str = "word_", fit_mask=None, binary: bool = False,
) -> pd.DataFrame:
    """Bag-of-words count features of the ``max_features`` most frequent words
    (``binary=True``: 0/1 presence of each word instead of its count).

    Deterministic version of the Bekker thesis features for 20 Newsgroups (Section
    3.3.1: "bag of words with the 200 most frequent words", Section 5.6.1: headers,
    footers and quotes removed, English stop words removed, scikit-learn count
    vectorizer). Texts are optionally cleaned with :func:`strip_newsgroup_text`,
    tokenised by ``sklearn.feature_extraction.text.CountVectorizer`` (lowercase,
    default token pattern, scikit-learn's English stop-word list; the thesis used
    nltk's list, which is not a dependency here). The vocabulary is ranked by total
    count over all documents (or, with ``fit_mask``, a boolean array over ``texts``, over
    the selected documents only: the words are chosen from those documents, and every
    document gets its counts of the chosen words), ties broken by the word itself;
    columns are ``prefix + word`` in alphabetical order, dtype ``int32``.
    """
    from sklearn.feature_extraction.text import CountVectorizer

    docs = [strip_newsgroup_text(t) if strip else t for t in texts]
    vec = CountVectorizer(lowercase=True, stop_words=stop_words, dtype=np.int64)
    counts = vec.fit_transform(docs).tocsc()
    vocab = vec.get_feature_names_out()
    if fit_mask is None:
        totals = np.asarray(counts.sum(axis=0)).ravel()
    else:
        fit_mask = np.asarray(fit_mask, dtype=bool)
        if fit_mask.shape != (len(docs),):
            raise ValueError(f"fit_mask must be a boolean array of length {len(docs)}, got shape {fit_mask.shape}")
        # tokenisation is per document, so ranking the words by their totals over the
        # selected rows equals fitting the vectorizer on those rows only
        totals = np.asarray(counts.tocsr()[fit_mask].sum(axis=0)).ravel()
        if int((totals > 0).sum()) < max_features:
            raise ValueError(
                f"text_count_features: the selected documents have {int((totals > 0).sum())} distinct words, "
                f"need at least max_features={max_features}"
            )
    order = np.lexsort((vocab, -totals))[:max_features]  # primary: -total, then word
    chosen = np.sort(order)  # vocabulary is alphabetical -> sorted indices = alphabetical
    dense = counts[:, chosen].toarray().astype(np.int32)
    if binary:
        dense = (dense > 0).astype(np.int32)
    names = [prefix + str(w) for w in vocab[chosen]]
    return pd.DataFrame(dense, columns=names)


def text_svd_features(
    texts, *, n_components: int = 300, min_df: int = 2, sublinear_tf: bool = True,
    stop_words: str | None = "english", strip: bool = True, random_state: int = 0,
    decimals: int | None = 4, prefix: str = "svd_",
) -> pd.DataFrame:
    """Dense document features: TF-IDF followed by a truncated SVD (latent semantic analysis).

    Used for 20 Newsgroups as a documented, offline substitute for the PU Extra Trees
    paper's averaged GloVe word vectors (300 dense features per document; GloVe is not
    available offline). Steps, all deterministic:

    1. texts cleaned with :func:`strip_newsgroup_text` (headers, quoted lines and
       signatures removed) when ``strip``;
    2. ``sklearn.feature_extraction.text.TfidfVectorizer(lowercase=True,
       stop_words=stop_words, min_df=min_df, sublinear_tf=sublinear_tf)`` (default token
       pattern, smooth idf, l2-normalised rows), float64;
    3. ``sklearn.decomposition.TruncatedSVD(n_components, random_state=random_state)``
       (randomized solver) ``fit_transform``, with BLAS/OpenMP pinned to one thread so
       the floating-point summation order (and thus every bit of the result) does not
       depend on the number of cores;
    4. values rounded to ``decimals`` decimals (default 4; None = no rounding) and stored
       as float32. The rounding makes the table fingerprint robust to last-bit
       differences between BLAS builds (differences are ~1e-13, the grid is 1e-4); it is
       far below the spread of the features (|values| up to ~0.6).

    Both the vocabulary and the SVD are fitted on all the given documents. The procedure
    is unsupervised (it never sees a label) but transductive: test documents shape the
    features of the training documents, as word embeddings fitted on a corpus would.
    Columns are ``prefix + "000"`` ... in component order.
    """
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from threadpoolctl import threadpool_limits

    docs = [strip_newsgroup_text(t) if strip else t for t in texts]
    vec = TfidfVectorizer(lowercase=True, stop_words=stop_words, min_df=min_df, sublinear_tf=sublinear_tf,
                          dtype=np.float64)
    tfidf = vec.fit_transform(docs)
    if tfidf.shape[1] <= n_components:
        raise ValueError(
            f"text_svd_features: the vocabulary has {tfidf.shape[1]} terms, need more than n_components={n_components}"
        )
    with threadpool_limits(limits=1):
        Z = TruncatedSVD(n_components=n_components, random_state=random_state).fit_transform(tfidf)
    if decimals is not None:
        Z = np.round(Z, int(decimals))
    Z = Z.astype(np.float32)
    Z[Z == 0] = 0.0  # no negative zeros (-0.0 hashes differently from 0.0)
    width = max(3, len(str(n_components - 1)))
    names = [f"{prefix}{j:0{width}d}" for j in range(n_components)]
    return pd.DataFrame(Z, columns=names)


# --------------------------------------------------------------------------- canonicalize
def _encode_categorical(col: pd.Series, name: str, enc: Mapping[str, Any]) -> dict[str, np.ndarray]:
    obj = col.to_numpy(dtype=object, na_value=None)
    missing = pd.isna(obj)
    vals = np.where(missing, "", obj).astype(str)  # NumPy unicode: code-point order
    na_values = enc.get("na_values")
    if isinstance(na_values, Mapping):
        na_values = na_values.get(name)
    if na_values:
        missing = missing | np.isin(vals, np.array([str(v) for v in na_values], dtype=str))
    codes_map = enc.get("category_codes")
    if codes_map:
        lookup = {str(k): float(v) for k, v in codes_map.items()}
        unknown = sorted(set(vals[~missing].tolist()) - set(lookup))
        if unknown:
            raise ValueError(f"column {name!r}: categories {unknown} have no entry in encoding.category_codes "
                             f"(known: {sorted(lookup)})")
        coded = np.full(len(vals), np.nan)
        coded[~missing] = [lookup[v] for v in vals[~missing]]
        return {name: coded}
    mode = enc.get("missing_categorical", "zeros")
    if mode not in ("zeros", "nan"):
        raise ValueError(f"missing_categorical must be 'zeros' or 'nan', got {mode!r}")
    cats, codes = np.unique(vals[~missing], return_inverse=True)
    min_count = enc.get("min_category_count")
    if isinstance(min_count, Mapping):
        min_count = min_count.get(name)
    if min_count:
        counts = np.bincount(codes, minlength=len(cats))
        rare = counts < int(min_count)
        if rare.any():
            merged = np.where(rare[codes], OTHER_CATEGORY, vals[~missing])
            cats, codes = np.unique(merged, return_inverse=True)
    full = np.full(len(vals), -1, dtype=np.int64)
    full[~missing] = codes
    cats = [str(c) for c in cats]
    out: dict[str, np.ndarray] = {}
    if len(cats) == 2 and not missing.any():
        out[f"{name}={cats[1]}"] = (full == 1).astype(np.uint8)
        return out
    as_nan = mode == "nan" and missing.any()
    for i, cat in enumerate(cats):
        if as_nan:
            arr = (full == i).astype(np.float32)
            arr[missing] = np.nan
        else:
            arr = (full == i).astype(np.uint8)
        out[f"{name}={cat}"] = arr
    return out


def _put(out: dict, name: str, values) -> None:
    if name in out:
        raise ValueError(f"duplicate canonical column name {name!r}")
    out[name] = values


def canonicalize(df: pd.DataFrame, spec: Mapping[str, Any]) -> pd.DataFrame:
    """Convert a mirror/raw table to the canonical table of a dataset.

    ``df`` must hold a ``target`` column with the original class values, the meta
    columns ``spec["meta_columns"]`` and the feature columns. ``spec`` is a registry
    entry (or any mapping) using the keys ``meta_columns`` (list) and ``encoding``
    (mapping: ``missing_categorical``, ``na_values``, ``min_category_count``,
    ``drop_features`` and, for raw text, ``text`` = ``{"column": ..., "max_features":
    200, "stop_words": "english", "strip": true}`` for word counts (optional
    ``"fit_rows"``: row selectors of :func:`pu_lib.datasets.positive.row_mask`, e.g.
    ``{"keep_prefixes": ["comp."], "keep_meta": {"split": ["train"]}}``, choosing the
    documents the 200 words are ranked on; every row still gets its counts), or ``{"column": ...,
    "method": "tfidf_svd", "n_components": 300, "min_df": 2, "sublinear_tf": true,
    "random_state": 0, "decimals": 4}`` for :func:`text_svd_features`). See the module docstring for
    the encoding rules. A ``preparation`` (list of named steps: standardize, stratified_sample,
    drop_rows, log, drop_columns, woe_encode; :mod:`pu_lib.datasets.preparation`) is applied to
    the source table first, before the encoding. Returns a new DataFrame with a default RangeIndex:
    features, then meta columns, then ``target``.
    """
    if TARGET not in df.columns:
        raise ValueError(f"table has no {TARGET!r} column (columns: {list(df.columns)[:10]}...)")
    meta = list(spec.get("meta_columns") or [])
    missing_meta = [m for m in meta if m not in df.columns]
    if missing_meta:
        raise ValueError(f"meta columns {missing_meta} not in table")
    enc = dict(spec.get("encoding") or {})
    drop = set(enc.get("drop_features") or [])
    text = enc.get("text")
    text_col = text["column"] if text else None
    df = df.reset_index(drop=True)
    if spec.get("preparation"):
        from .preparation import apply_preparation

        df = apply_preparation(df, spec)
    fit_mask = None
    if text and text.get("fit_rows"):
        from .positive import row_mask

        fit_mask = row_mask(df[TARGET].to_numpy(), text["fit_rows"], meta=df)
    out: dict[str, Any] = {}
    for name in feature_columns(df.columns, meta):
        if name in drop:
            continue
        col = df[name]
        if name == text_col:
            method = text.get("method", "counts")
            if method == "counts":
                feats = text_count_features(
                    col.to_numpy(dtype=object, na_value=""),
                    max_features=int(text.get("max_features", 200)),
                    stop_words=text.get("stop_words", "english"),
                    strip=bool(text.get("strip", True)),
                    prefix=text.get("prefix", "word_"),
                    fit_mask=fit_mask,
                    binary=bool(text.get("binary", False)),
                )
            elif method == "tfidf_svd":
                if fit_mask is not None:
                    raise ValueError("encoding.text.fit_rows is only supported for word counts (method 'counts')")
                feats = text_svd_features(
                    col.to_numpy(dtype=object, na_value=""),
                    n_components=int(text.get("n_components", 300)),
                    min_df=int(text.get("min_df", 2)),
                    sublinear_tf=bool(text.get("sublinear_tf", True)),
                    stop_words=text.get("stop_words", "english"),
                    strip=bool(text.get("strip", True)),
                    random_state=int(text.get("random_state", 0)),
                    decimals=text.get("decimals", 4),
                    prefix=text.get("prefix", "svd_"),
                )
            else:
                raise ValueError(f"encoding.text.method must be 'counts' or 'tfidf_svd', got {method!r}")
            for c in feats.columns:
                _put(out, c, feats[c].to_numpy())
        elif _is_string_dtype(col.dtype):
            for c, arr in _encode_categorical(col, name, enc).items():
                _put(out, c, arr)
        elif pd.api.types.is_bool_dtype(col.dtype):
            _put(out, name, col.to_numpy(dtype=np.uint8))
        elif isinstance(col.dtype, pd.api.extensions.ExtensionDtype):
            if col.isna().any():
                _put(out, name, col.to_numpy(dtype=np.float64, na_value=np.nan))
            else:
                _put(out, name, col.to_numpy(dtype=col.dtype.numpy_dtype))
        else:
            _put(out, name, col.to_numpy())
    for name in meta + [TARGET]:
        _put(out, name, df[name].to_numpy() if not _is_string_dtype(df[name].dtype) else df[name])
    result = pd.DataFrame({k: (v.reset_index(drop=True) if isinstance(v, pd.Series) else v) for k, v in out.items()})
    return result
