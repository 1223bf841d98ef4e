"""Readers that turn raw public dataset files into a DataFrame with ``target``.

Every reader returns a :class:`pandas.DataFrame` whose class column is named
``target`` (original class values, not binarised). Formats: CSV, Parquet, ARFF (own
parser), LIBSVM/svmlight, KEEL ``.dat`` (own parser), MATLAB ``.mat`` (ODDS) and
NumPy ``.npz`` (ADBench), plus the 20 Newsgroups ``bydate`` tarball and the CIFAR-10
python-version tarball.
"""

from __future__ import annotations

import io
import os
import pickle
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from .canonical import TARGET

__all__ = [
    "read_csv",
    "read_parquet",
    "read_arff",
    "read_libsvm",
    "read_keel",
    "read_mat",
    "read_npz",
    "read_newsgroups_tar",
    "read_cifar10_tar",
    "read_kddcup04_tar",
    "read_har_zip",
    "read_glove_vectors",
    "glove_mean_features",
    "read_newsgroups_glove",
    "CIFAR10_LABELS",
    "READERS",
]


def _set_target(df: pd.DataFrame, class_column: str | None) -> pd.DataFrame:
    if class_column is not None:
        if class_column not in df.columns:
            raise ValueError(f"class column {class_column!r} not found (columns: {list(df.columns)})")
        if class_column != TARGET:
            if TARGET in df.columns:
                raise ValueError(f"table already has a {TARGET!r} column besides {class_column!r}")
            df = df.rename(columns={class_column: TARGET})
    elif TARGET not in df.columns:
        df = df.rename(columns={df.columns[-1]: TARGET})
    return df


def _integral_or_float(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    if values.size and np.all(np.isfinite(values)) and np.all(values == np.round(values)):
        return values.astype(np.int64)
    return values


# ----------------------------------------------------------------------------- CSV
def read_csv(
    path: str | os.PathLike | io.IOBase,
    *,
    sep: str = ",",
    header: int | None | str = "infer",
    names: Sequence[str] | None = None,
    na_values: Sequence[str] | None = None,
    class_column: str | None = None,
    **kwargs,
) -> pd.DataFrame:
    """Read a delimited text file (``pandas.read_csv``) and name the class ``target``.

    ``sep`` (``r"\\s+"`` for whitespace), ``header`` (None for headerless files),
    ``names`` (column names), ``na_values`` (e.g. ``["?"]``) and further keyword
    arguments go to :func:`pandas.read_csv`. The class column is ``class_column``,
    else a column already called ``target``, else the last column. Compression is
    inferred from the file name (``.gz``, ``.bz2``, ``.zip``, ``.xz``).
    """
    df = pd.read_csv(path, sep=sep, header=header, names=names, na_values=na_values, **kwargs)
    return _set_target(df, class_column)


# ----------------------------------------------------------------------------- Parquet
def read_parquet(path: str | os.PathLike, *, class_column: str | None = None) -> pd.DataFrame:
    """Read a Parquet table (e.g. OpenML's ``dataset_<id>.pq``) and name the class
    ``target``: ``class_column``, else a column already called ``target``, else the last."""
    return _set_target(pd.read_parquet(path), class_column)


# ----------------------------------------------------------------------------- ARFF
def _split_fields(line: str, sep: str = ",") -> list[tuple[str, bool]]:
    """Split a data line into (value, was_quoted) pairs; handles '...' and "..." quotes."""
    if "'" not in line and '"' not in line:
        return [(f.strip(), False) for f in line.split(sep)]
    out: list[tuple[str, bool]] = []
    i, n = 0, len(line)
    while i <= n:
        while i < n and line[i] in " \t":
            i += 1
        if i < n and line[i] in "'\"":
            q = line[i]
            i += 1
            buf = []
            while i < n and line[i] != q:
                if line[i] == "\\" and i + 1 < n:
                    i += 1
                buf.append(line[i])
                i += 1
            if i >= n:
                raise ValueError(f"unterminated quote in line: {line!r}")
            i += 1
            out.append(("".join(buf), True))
            while i < n and line[i] != sep:
                i += 1
        else:
            j = line.find(sep, i)
            j = n if j < 0 else j
            out.append((line[i:j].strip(), False))
            i = j
        i += 1
    return out


_ARFF_ATTR = re.compile(r"""^@attribute\s+('(?:[^']*)'|"(?:[^"]*)"|\S+)\s+(.*)$""", re.I)


def _parse_attribute(line: str) -> tuple[str, str, list[str] | None]:
    m = _ARFF_ATTR.match(line.strip())
    if not m:
        raise ValueError(f"bad @attribute line: {line!r}")
    name, rest = m.group(1), m.group(2).strip()
    if name[0] in "'\"":
        name = name[1:-1]
    if rest.startswith("{"):
        inner = rest[1 : rest.rindex("}")]
        cats = [v for v, _ in _split_fields(inner)]
        return name, "nominal", cats
    kind = rest.split()[0].lower()
    if kind in ("numeric", "real"):
        return name, "real", None
    if kind == "integer":
        return name, "integer", None
    if kind in ("string", "date"):
        return name, "string", None
    raise ValueError(f"unsupported ARFF attribute type {rest!r} for {name!r}")


def _columns_from_rows(rows: list[list[tuple[str, bool]]], attrs, missing=("?",)) -> dict:
    n_attr = len(attrs)
    data = {}
    for j, (name, kind, cats) in enumerate(attrs):
        raw = [r[j] for r in rows]
        is_missing = np.array([(not q) and v in missing for v, q in raw], dtype=bool)
        if kind in ("real", "integer"):
            vals = np.array([np.nan if m else float(v) for (v, _), m in zip(raw, is_missing)], dtype=np.float64)
            if kind == "integer" and not is_missing.any():
                vals = vals.astype(np.int64)
            data[name] = vals
        else:
            if cats is not None:
                allowed = set(cats)
                bad = {v for (v, _), m in zip(raw, is_missing) if not m and v not in allowed}
                if bad:
                    raise ValueError(f"values {sorted(bad)[:5]} of {name!r} not among its declared categories")
            data[name] = pd.array([None if m else v for (v, _), m in zip(raw, is_missing)], dtype="str")
    if any(len(r) != n_attr for r in rows):
        raise ValueError("a data row has a wrong number of fields")
    return data


def read_arff(path: str | os.PathLike, *, class_column: str | None = None, encoding: str = "utf-8") -> pd.DataFrame:
    """Parse an ARFF file (dense format) into a DataFrame.

    Supported: ``%`` comments, ``@relation``, ``@attribute`` with ``numeric``/``real``
    (float64), ``integer`` (int64, float64 if a value is missing), nominal
    ``{a, b, 'c d'}`` and ``string``/``date`` (pandas ``str``), ``@data`` rows with
    single or double quoted values and ``?`` for missing. Sparse rows
    (``{i v, ...}``) raise ``ValueError``. The class is ``class_column`` or the last
    attribute, renamed ``target``.
    """
    attrs: list[tuple[str, str, list[str] | None]] = []
    rows: list[list[tuple[str, bool]]] = []
    in_data = False
    with open(path, encoding=encoding) as fh:
        for line in fh:
            s = line.strip()
            if not s or s.startswith("%"):
                continue
            if not in_data:
                low = s.lower()
                if low.startswith("@relation"):
                    continue
                if low.startswith("@attribute"):
                    attrs.append(_parse_attribute(s))
                elif low.startswith("@data"):
                    in_data = True
                else:
                    raise ValueError(f"unexpected ARFF header line: {s!r}")
            else:
                if s.startswith("{"):
                    raise ValueError("sparse ARFF rows are not supported")
                rows.append(_split_fields(s))
    if not attrs:
        raise ValueError(f"{path}: no @attribute lines")
    return _set_target(pd.DataFrame(_columns_from_rows(rows, attrs)), class_column or attrs[-1][0])


# ----------------------------------------------------------------------------- KEEL
_KEEL_ATTR = re.compile(r"^@attribute\s+('(?:[^']*)'|\S+?)\s*(\{.*\}|real.*|integer.*|numeric.*)$", re.I)


def read_keel(path: str | os.PathLike, *, encoding: str = "utf-8") -> pd.DataFrame:
    """Parse a KEEL ``.dat`` file into a DataFrame.

    Header lines: ``@relation``, ``@attribute <name> real [a, b]`` (float64),
    ``integer [a, b]`` (int64, float64 with missing values), ``{v1, v2}`` (string),
    ``@inputs``/``@input`` and ``@outputs``/``@output``; then ``@data`` with
    comma-separated rows; ``<null>`` and ``?`` are missing. The (single) output
    attribute becomes ``target`` (the last attribute if no ``@outputs`` line).
    """
    attrs: list[tuple[str, str, list[str] | None]] = []
    outputs: list[str] = []
    rows = []
    in_data = False
    with open(path, encoding=encoding) as fh:
        for line in fh:
            s = line.strip()
            if not s or s.startswith("%"):
                continue
            if not in_data:
                low = s.lower()
                if low.startswith("@relation") or low.startswith("@input"):
                    continue
                if low.startswith("@output"):
                    outputs = [o.strip() for o in s.split(None, 1)[1].split(",")]
                elif low.startswith("@attribute"):
                    m = _KEEL_ATTR.match(s)
                    if not m:
                        raise ValueError(f"bad KEEL @attribute line: {s!r}")
                    name, rest = m.group(1).strip("'"), m.group(2).strip()
                    if rest.startswith("{"):
                        cats = [c.strip() for c in rest[1 : rest.rindex("}")].split(",")]
                        attrs.append((name, "nominal", cats))
                    elif rest.lower().startswith("integer"):
                        attrs.append((name, "integer", None))
                    else:
                        attrs.append((name, "real", None))
                elif low.startswith("@data"):
                    in_data = True
                else:
                    raise ValueError(f"unexpected KEEL header line: {s!r}")
            else:
                rows.append([(f.strip(), False) for f in s.split(",")])
    if not attrs:
        raise ValueError(f"{path}: no @attribute lines")
    data = _columns_from_rows(rows, attrs, missing=("?", "<null>"))
    if len(outputs) > 1:
        raise ValueError(f"KEEL file with several outputs {outputs} is not supported")
    return _set_target(pd.DataFrame(data), outputs[0] if outputs else attrs[-1][0])


# ----------------------------------------------------------------------------- LIBSVM
def read_libsvm(
    path: str | os.PathLike, *, n_features: int | None = None, column_prefix: str = "f", dtype=np.float64
) -> pd.DataFrame:
    """Read an svmlight/LIBSVM file (1-based feature indices) into a dense DataFrame.

    Uses :func:`sklearn.datasets.load_svmlight_file` with ``zero_based=False``;
    ``n_features`` fixes the width (files may not mention the last features).
    Columns are ``f1 .. f<n>`` (``column_prefix`` + 1-based index); absent entries
    are 0. Labels become ``target`` (int64 when all are integral). ``.gz``/``.bz2``
    files are decompressed transparently.
    """
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(path), n_features=n_features, zero_based=False, dtype=dtype)
    dense = X.toarray()
    df = pd.DataFrame(dense, columns=[f"{column_prefix}{i + 1}" for i in range(dense.shape[1])])
    df[TARGET] = _integral_or_float(y)
    return df


# ----------------------------------------------------------------------------- MAT / NPZ
def _xy_frame(X, y, names: Sequence[str] | None, column_prefix: str) -> pd.DataFrame:
    X = np.asarray(X)
    if hasattr(X, "toarray"):
        X = X.toarray()
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    y = np.asarray(y).ravel()
    if len(y) != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {len(y)}")
    if names is None:
        names = [f"{column_prefix}{i}" for i in range(X.shape[1])]
    if len(names) != X.shape[1]:
        raise ValueError(f"{len(names)} names for {X.shape[1]} columns")
    df = pd.DataFrame({n: X[:, j] for j, n in enumerate(names)})
    df[TARGET] = _integral_or_float(y) if y.dtype.kind in "iufb" else y
    return df


def read_mat(
    path: str | os.PathLike, *, x_key: str = "X", y_key: str = "y", names: Sequence[str] | None = None,
    column_prefix: str = "f",
) -> pd.DataFrame:
    """Read a MATLAB ``.mat`` file with a feature matrix and a label vector (ODDS
    layout: keys ``X`` and ``y``) via :func:`scipy.io.loadmat`. Columns ``f0..``
    unless ``names`` is given; feature dtype as stored; ``target`` int64 if integral."""
    from scipy.io import loadmat

    m = loadmat(str(path))
    for k in (x_key, y_key):
        if k not in m:
            raise ValueError(f"{path}: key {k!r} not found (keys: {[k for k in m if not k.startswith('__')]})")
    X = m[x_key]
    if hasattr(X, "toarray"):
        X = X.toarray()
    return _xy_frame(X, m[y_key], names, column_prefix)


def read_npz(
    path: str | os.PathLike, *, x_key: str = "X", y_key: str = "y", names: Sequence[str] | None = None,
    column_prefix: str = "f",
) -> pd.DataFrame:
    """Read a NumPy ``.npz`` archive with keys ``X`` and ``y`` (ADBench layout);
    ``allow_pickle=False``. Columns ``f0..`` unless ``names``; ``target`` int64 if integral."""
    with np.load(path, allow_pickle=False) as z:
        for k in (x_key, y_key):
            if k not in z.files:
                raise ValueError(f"{path}: key {k!r} not found (keys: {z.files})")
        return _xy_frame(z[x_key], z[y_key], names, column_prefix)


# ----------------------------------------------------------------------------- 20 Newsgroups
def read_newsgroups_tar(path: str | os.PathLike) -> pd.DataFrame:
    """Read ``20news-bydate.tar.gz`` (``20news-bydate-{train,test}/<group>/<id>``).

    Returns columns ``text`` (message decoded latin-1, as scikit-learn does),
    ``split`` (train/test), ``doc_id`` (int64 file name) and ``target`` (group),
    sorted by split (train first), group and doc_id.
    """
    recs = []
    with tarfile.open(path, "r:*") as tf:
        for member in tf:
            if not member.isfile():
                continue
            parts = Path(member.name).parts
            if len(parts) < 3 or not parts[-3].startswith("20news-bydate-"):
                continue
            split = parts[-3].rsplit("-", 1)[-1]
            group, doc = parts[-2], parts[-1]
            if not doc.isdigit():
                continue
            text = tf.extractfile(member).read().decode("latin-1")
            recs.append((0 if split == "train" else 1, group, int(doc), text, split))
    recs.sort(key=lambda r: r[:3])
    return pd.DataFrame(
        {
            "text": pd.array([r[3] for r in recs], dtype="str"),
            "split": pd.array([r[4] for r in recs], dtype="str"),
            "doc_id": np.array([r[2] for r in recs], dtype=np.int64),
            TARGET: pd.array([r[1] for r in recs], dtype="str"),
        }
    )



#: tokens of a document for the GloVe average: lower-cased runs of letters, digits and
#: apostrophes (GloVe 6B's vocabulary is lower-cased Wikipedia + Gigaword tokens)
_GLOVE_TOKEN_RE = re.compile(r"[a-z0-9']+")


def read_glove_vectors(path: str | os.PathLike, *, member: str | None = None, vocab=None) -> tuple[dict, int]:
    """Word vectors of a GloVe text file (``word v1 ... vd`` per line), or of ``member``
    of a zip archive (``glove.6B.zip`` holds ``glove.6B.300d.txt``). With ``vocab`` (a
    set of words) only those words are kept. Returns ``({word: float32 vector}, d)``;
    ``ValueError`` for an empty file or lines of different lengths."""
    import zipfile

    vectors, dim = {}, None

    def _lines(fh):
        for raw in fh:
            yield raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw

    def _read(fh):
        nonlocal dim
        for k, line in enumerate(_lines(fh)):
            parts = line.rstrip("\n").rstrip(" ").split(" ")
            if len(parts) < 2:
                continue
            if dim is None:
                dim = len(parts) - 1
            elif len(parts) - 1 != dim:
                raise ValueError(f"{path}: line {k + 1} has {len(parts) - 1} values, the first line has {dim}")
            if vocab is None or parts[0] in vocab:
                vectors[parts[0]] = np.asarray(parts[1:], dtype=np.float32)

    if member is not None:
        with zipfile.ZipFile(path) as zf, zf.open(member) as fh:
            _read(fh)
    else:
        with open(path, "rb") as fh:
            _read(fh)
    if dim is None:
        raise ValueError(f"{path}{':' + member if member else ''}: no word vectors found")
    return vectors, dim


def glove_mean_features(texts, vectors: dict, dim: int, *, strip: bool = True, prefix: str = "glove_",
                        decimals: int | None = 4) -> pd.DataFrame:
    """Average GloVe vector of each document (PU ET Section 5: "GloVe pre-trained word
    embeddings were used for 20News with average pooling over each document").

    Texts are optionally cleaned with :func:`pu_lib.datasets.canonical.strip_newsgroup_text`,
    lower-cased and split into tokens ``[a-z0-9']+``; the vectors of the tokens found in
    ``vectors`` are averaged (every occurrence counts); a document without any known
    token gets zeros. Columns ``prefix + 000 ... d-1``, float32, rounded to ``decimals``."""
    from .canonical import strip_newsgroup_text

    out = np.zeros((len(texts), dim), dtype=np.float64)
    for i, t in enumerate(texts):
        t = strip_newsgroup_text(t) if strip else t
        vecs = [vectors[w] for w in _GLOVE_TOKEN_RE.findall(str(t).lower()) if w in vectors]
        if vecs:
            out[i] = np.mean(np.stack(vecs).astype(np.float64), axis=0)
    if decimals is not None:
        out = np.round(out, int(decimals))
    return pd.DataFrame(out.astype(np.float32), columns=[f"{prefix}{j:03d}" for j in range(dim)])


def read_newsgroups_glove(tar_path: str | os.PathLike, glove_path: str | os.PathLike, *,
                          member: str | None = "glove.6B.300d.txt", strip: bool = True,
                          decimals: int | None = 4) -> pd.DataFrame:
    """20 Newsgroups (``20news-bydate.tar.gz``, :func:`read_newsgroups_tar`) as averaged
    GloVe vectors (:func:`glove_mean_features`; ``glove_path`` a zip with ``member`` or,
    with ``member=None``, the text file itself). Columns ``glove_000`` ..., ``split``,
    ``doc_id``, ``target``; rows in the order of :func:`read_newsgroups_tar`."""
    from .canonical import strip_newsgroup_text

    docs = read_newsgroups_tar(tar_path)
    texts = [strip_newsgroup_text(t) if strip else t for t in docs["text"]]
    vocab = {w for t in texts for w in _GLOVE_TOKEN_RE.findall(str(t).lower())}
    vectors, dim = read_glove_vectors(glove_path, member=member, vocab=vocab)
    feats = glove_mean_features(texts, vectors, dim, strip=False, decimals=decimals)
    return pd.concat([feats, docs.drop(columns=["text"])], axis=1)


# ----------------------------------------------------------------------------- CIFAR-10
#: CIFAR-10 class names in label order (``batches.meta``'s ``label_names``).
CIFAR10_LABELS = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")

_CIFAR_ALLOWED = {
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.numeric", "_frombuffer"),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("_codecs", "encode"),  # bytes objects in protocol-2 pickles written by Python 3
}


class _ArrayOnlyUnpickler(pickle.Unpickler):
    """Unpickler that only rebuilds plain containers and NumPy arrays: a downloaded
    pickle cannot run arbitrary code."""

    def find_class(self, module, name):
        if (module, name) in _CIFAR_ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"CIFAR-10 batch refers to {module}.{name}, which is not allowed")


def _cifar_load(fh) -> dict:
    obj = _ArrayOnlyUnpickler(fh, encoding="bytes").load()
    if not isinstance(obj, dict):
        raise ValueError(f"CIFAR-10 batch is a {type(obj).__name__}, expected a dict")
    return {(k.decode() if isinstance(k, bytes) else k): v for k, v in obj.items()}


def read_cifar10_tar(path: str | os.PathLike) -> pd.DataFrame:
    """Read ``cifar-10-python.tar.gz`` (``cifar-10-batches-py/data_batch_1..5``,
    ``test_batch``, ``batches.meta``; Python pickles of dicts with ``data`` = uint8
    array (n, 3072) and ``labels``).

    Returns 3072 ``uint8`` pixel columns ``r0000 .. r1023, g0000 .. g1023, b0000 ..
    b1023`` (the batch layout: the red, green and blue 32 x 32 planes, each row-major),
    ``split`` (``train`` for the five data batches in order, then ``test``) and
    ``target`` = the class name (``airplane`` ... ``truck``; from ``batches.meta`` when
    present, else :data:`CIFAR10_LABELS`). The pickles are read with an unpickler that
    only allows NumPy arrays and plain containers.
    """
    batches: dict[str, dict] = {}
    label_names = list(CIFAR10_LABELS)
    with tarfile.open(path, "r:*") as tf:
        for member in tf:
            if not member.isfile():
                continue
            base = Path(member.name).name
            if base == "batches.meta":
                meta = _cifar_load(tf.extractfile(member))
                if "label_names" in meta:
                    label_names = [v.decode() if isinstance(v, bytes) else str(v) for v in meta["label_names"]]
            elif re.fullmatch(r"data_batch_[1-5]|test_batch", base):
                batches[base] = _cifar_load(tf.extractfile(member))
    order = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    missing = [b for b in order if b not in batches]
    if missing:
        raise ValueError(f"{path}: CIFAR-10 batches {missing} not found")
    datas, labels, splits = [], [], []
    for b in order:
        data = np.asarray(batches[b]["data"])
        lab = np.asarray(batches[b]["labels"], dtype=np.int64).ravel()
        if data.ndim != 2 or data.shape[1] != 3072 or data.shape[0] != lab.shape[0]:
            raise ValueError(f"{path}: {b} has data of shape {data.shape} and {lab.shape[0]} labels; expected (n, 3072)")
        if lab.size and (lab.min() < 0 or lab.max() >= len(label_names)):
            raise ValueError(f"{path}: {b} has labels outside 0..{len(label_names) - 1}")
        datas.append(data.astype(np.uint8, copy=False))
        labels.append(lab)
        splits.append(np.full(lab.shape[0], "test" if b == "test_batch" else "train", dtype=object))
    X = np.concatenate(datas)
    y = np.concatenate(labels)
    names = [f"{ch}{i:04d}" for ch in "rgb" for i in range(1024)]
    df = pd.DataFrame(X, columns=names)
    df["split"] = pd.array(np.concatenate(splits), dtype="str")
    df[TARGET] = pd.array(np.asarray(label_names, dtype=object)[y], dtype="str")
    return df


# ----------------------------------------------------------------------------- KDD Cup 2004
def _whitespace_table(fh, what: str) -> np.ndarray:
    """A whitespace-separated numeric text table (leading blanks and runs of blanks
    allowed) as a float64 array; ``ValueError`` naming ``what`` on ragged rows or text."""
    try:
        arr = np.loadtxt(io.TextIOWrapper(fh, encoding="ascii"), dtype=np.float64, ndmin=2)
    except ValueError as exc:
        raise ValueError(f"{what}: not a whitespace-separated numeric table ({exc})") from exc
    return arr


def read_kddcup04_tar(path: str | os.PathLike, member: str = "phy_train.dat") -> pd.DataFrame:
    """Read one labelled file of the KDD Cup 2004 archive ``data_kddcup04.tar.gz``
    (``phy_train.dat``, the particle physics / "quantum physics" training set: per line
    the EXAMPLE ID, the class 0/1 and 78 feature values, whitespace-separated; or
    ``bio_train.dat``, protein homology: BLOCK ID, EXAMPLE ID, class 0/1, 74 features).

    Returns ``example_id`` (and ``block_id`` for ``bio_train.dat``), the features ``f1``
    ... ``fK`` (numbered from the first attribute as the task page does) and ``target``
    (int). Values are kept as they are: the physics file codes "not available" as 999
    (attributes 20-22, 44-46) and 9999 (29, 55), which the KDD Cup page leaves to the user.
    ``path`` may also be the member file itself (already extracted)."""
    path = Path(path)
    lead = ["block_id", "example_id"] if member.startswith("bio_") else ["example_id"]
    if tarfile.is_tarfile(path):
        with tarfile.open(path, "r:*") as tf:
            hits = [m for m in tf.getmembers() if m.isfile() and Path(m.name).name == member]
            if not hits:
                raise ValueError(f"{path}: member {member!r} not found")
            arr = _whitespace_table(tf.extractfile(hits[0]), f"{path.name}:{member}")
    else:
        with open(path, "rb") as fh:
            arr = _whitespace_table(fh, path.name)
    k = len(lead)
    if arr.shape[1] < k + 2:
        raise ValueError(f"{path.name}: {arr.shape[1]} columns, expected {'/'.join(lead)}, class and features")
    df = pd.DataFrame(arr[:, k + 1:], columns=[f"f{i}" for i in range(1, arr.shape[1] - k)])
    for j, name in enumerate(lead):
        df.insert(j, name, arr[:, j].astype(np.int64))
    lab = arr[:, k]
    if not np.all(np.isin(lab, (0.0, 1.0))):
        raise ValueError(f"{path.name}: class values other than 0/1 (a test file has '?' there)")
    df[TARGET] = lab.astype(np.int64)
    return df


# ----------------------------------------------------------------------------- smartphone HAR zips
def _zip_members(zf: zipfile.ZipFile, prefix: str = ""):
    """``(name, opener)`` of every file in ``zf``, descending into zips inside it (the UCI
    download of data set 240 wraps ``UCI HAR Dataset.zip`` in another zip)."""
    for name in zf.namelist():
        if name.endswith("/") or "__MACOSX/" in name:
            continue
        if name.lower().endswith(".zip"):
            with zf.open(name) as fh:
                inner = zipfile.ZipFile(io.BytesIO(fh.read()))
            yield from _zip_members(inner, prefix + name + "/")
        else:
            yield prefix + name, (lambda z=zf, n=name: z.open(n))


def read_har_zip(path: str | os.PathLike, parts: Sequence[str] = ("train", "test")) -> pd.DataFrame:
    """Read the 561-feature windows of a smartphone activity-recognition zip: UCI 240
    ("Human Activity Recognition Using Smartphones", ``UCI HAR Dataset/train/X_train.txt``
    ...) or UCI 341 ("Smartphone-Based Recognition of Human Activities and Postural
    Transitions", ``Train/X_train.txt`` ...), nested zips included.

    For each of ``parts`` the files ``X_<part>.txt`` (whitespace-separated numbers, one
    window a line) and ``y_<part>.txt`` (the activity id) are matched by name (any folder,
    any case) and stacked in that order; returns the features ``f1`` ... ``f561``, ``split``
    (the part) and ``target`` (activity id, int: 1 walking ... 6 laying; 7-12 the postural
    transitions of UCI 341)."""
    path = Path(path)
    frames = []
    with zipfile.ZipFile(path) as zf:
        members = dict(_zip_members(zf))
        for part in parts:
            found = {}
            for kind in ("X", "y"):
                want = f"{kind}_{part}.txt".lower()
                hits = sorted(n for n in members if Path(n).name.lower() == want and "inertial" not in n.lower())
                if not hits:
                    raise ValueError(f"{path.name}: no {kind}_{part}.txt in the archive")
                with members[hits[0]]() as fh:
                    found[kind] = _whitespace_table(fh, f"{path.name}:{hits[0]}")
            X, y = found["X"], found["y"]
            if y.shape[1] != 1 or X.shape[0] != y.shape[0]:
                raise ValueError(f"{path.name}: X_{part}.txt has {X.shape[0]} rows, y_{part}.txt {y.shape[0]} "
                                 f"rows of {y.shape[1]} values")
            df = pd.DataFrame(X, columns=[f"f{i}" for i in range(1, X.shape[1] + 1)])
            df["split"] = pd.array(np.full(X.shape[0], part, dtype=object), dtype="str")
            df[TARGET] = y[:, 0].astype(np.int64)
            frames.append(df)
    widths = {f.shape[1] for f in frames}
    if len(widths) != 1:
        raise ValueError(f"{path.name}: the parts have different numbers of features")
    return pd.concat(frames, ignore_index=True)


READERS = {
    "csv": read_csv,
    "parquet": read_parquet,
    "arff": read_arff,
    "libsvm": read_libsvm,
    "keel": read_keel,
    "mat": read_mat,
    "npz": read_npz,
    "newsgroups_tar": read_newsgroups_tar,
    "cifar10_tar": read_cifar10_tar,
    "newsgroups_glove": read_newsgroups_glove,
    "kddcup04_tar": read_kddcup04_tar,
    "har_zip": read_har_zip,
}
