"""Download, mirror and cache: produce the verified canonical Parquet of a dataset."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import os
import shutil
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .._io import atomic_path
from .canonical import TARGET, canonicalize, dtype_tag, fingerprint
from .converters import READERS
from .preparation import preparation_digest
from .registry import spec_from

__all__ = [
    "default_cache_dir",
    "sha256_file",
    "fetch_raw",
    "convert_raw",
    "build_canonical_frame",
    "write_canonical",
    "is_valid_canonical",
    "prepare_dataset",
    "offline_unavailable_reason",
    "raw_file_paths",
    "PARQUET_META_KEY",
]

PARQUET_META_KEY = b"pu_lib.dataset"


def default_cache_dir() -> Path:
    """``$PU_LIB_CACHE`` if set, else ``~/.cache/pu_lib``."""
    env = os.environ.get("PU_LIB_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "pu_lib"


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(chunk), b""):
            h.update(block)
    return h.hexdigest()


# ----------------------------------------------------------------------------- fetch
def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, urllib.error.HTTPError):
        return exc.code >= 500 or exc.code in (408, 429)
    return isinstance(exc, (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError))


def fetch_raw(
    url: str,
    dest: str | os.PathLike,
    sha256: str | None = None,
    retries: int = 3,
    backoff: float = 1.0,
    timeout: float = 60.0,
    *,
    force: bool = False,
) -> Path:
    """Download ``url`` (``http(s)://`` or ``file://``) to ``dest`` atomically.

    * An existing ``dest`` is reused unless ``force``; if ``sha256`` is given it
      must match, otherwise the file is downloaded again.
    * Network errors (``URLError``, timeouts, connection resets, HTTP 5xx/408/429)
      are retried up to ``retries`` more times, sleeping ``backoff * 2**attempt``
      seconds in between; other HTTP errors are raised at once.
    * The bytes are streamed to a temporary file beside ``dest`` while hashing;
      if ``sha256`` is given and differs, ``ValueError`` is raised and no file is
      left behind (neither ``dest`` nor the temporary file).
    """
    dest = Path(dest)
    if dest.exists() and not force:
        if sha256 is None or sha256_file(dest) == sha256.lower():
            return dest
    attempt = 0
    while True:
        try:
            with urllib.request.urlopen(url, timeout=timeout) as resp, atomic_path(dest) as tmp:
                h = hashlib.sha256()
                with open(tmp, "wb") as out:
                    for block in iter(lambda: resp.read(1 << 20), b""):
                        h.update(block)
                        out.write(block)
                digest = h.hexdigest()
                if sha256 is not None and digest != sha256.lower():
                    raise ValueError(f"checksum mismatch for {url}: expected sha256 {sha256.lower()}, got {digest}")
            return dest
        except ValueError:
            raise
        except Exception as exc:  # noqa: BLE001 - filtered by _retryable
            if not _retryable(exc) or attempt >= retries:
                raise
            time.sleep(backoff * (2**attempt))
            attempt += 1


# ----------------------------------------------------------------------------- convert raw
def _decompress(path: Path, compression: str | None) -> Path:
    if not compression:
        return path
    opener = {"gzip": gzip.open, "bz2": bz2.open}.get(compression)
    if opener is None:
        raise ValueError(f"unsupported compression {compression!r}")
    out = path.with_name(path.name.rsplit(".", 1)[0] if path.suffix in (".gz", ".bz2") else path.name + ".raw")
    if not out.exists():
        with atomic_path(out) as tmp, opener(path, "rb") as src, open(tmp, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return out


def _extract_members(archive: Path, members: list[str], out_dir: Path) -> list[Path]:
    paths = []
    with zipfile.ZipFile(archive) as zf:
        names = [n for n in zf.namelist() if not n.endswith("/")]
        for member in members:
            hits = [n for n in names if n == member or n.endswith("/" + member)]
            if not hits:
                raise ValueError(f"{archive.name}: member {member!r} not found (has {names[:20]})")
            target = out_dir / member
            if not target.exists():
                with atomic_path(target) as tmp, zf.open(hits[0]) as src, open(tmp, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            paths.append(target)
    return paths


def _align_to_mirror(df: pd.DataFrame, spec: Mapping[str, Any]) -> pd.DataFrame:
    cols = spec.get("mirror_columns")
    if cols:
        if set(df.columns) == set(cols):
            df = df[list(cols)]
        elif len(df.columns) == len(cols):
            df = df.set_axis(list(cols), axis=1)
        else:
            raise ValueError(
                f"{spec['name']}: converted table has {len(df.columns)} columns, the mirror has {len(cols)}"
            )
    dtypes = spec.get("mirror_dtypes") or {}
    for name, tag in dtypes.items():
        if name not in df.columns:
            continue
        col = df[name]
        if tag == "string":
            if dtype_tag(col.dtype) != "string":
                df[name] = col.astype("str").where(col.notna(), None)
        elif dtype_tag(col.dtype) != tag and dtype_tag(col.dtype) != "string":
            arr = col.to_numpy()
            if np.dtype(tag).kind in "iu" and (pd.isna(arr).any() or not np.all(arr == np.round(arr))):
                continue
            df[name] = arr.astype(tag)
    return df


def _order_parts_by_rows(spec: Mapping[str, Any], frames: list, expected: list[int]) -> list:
    """The parts reordered so that part ``i`` has ``expected[i]`` rows (``conversion.part_rows``:
    files whose names do not say which partition they hold, e.g. the two UNSW-NB15 CSVs);
    ``ValueError`` naming the row counts when they do not match."""
    counts = [len(f) for f in frames]
    if sorted(counts) != sorted(expected) or len(set(expected)) != len(expected):
        raise ValueError(f"{spec['name']}: the raw parts have {counts} rows, the registry expects {expected} "
                         "(conversion.part_rows); is this the official release?")
    return [frames[counts.index(n)] for n in expected]


def convert_raw(spec: Mapping[str, Any], files: list[Path], work_dir: Path) -> pd.DataFrame:
    """Convert downloaded raw files into the dataset's mirror-layout table.

    Follows ``spec["conversion"]``: optional zip ``archive`` with ``members``,
    ``compression`` (gzip/bz2), ``reader`` (csv, parquet, arff, libsvm, keel, mat, npz,
    newsgroups_tar, cifar10_tar, kddcup04_tar, har_zip; newsgroups_glove takes two files, the
    20news tar and the GloVe zip) with reader ``options`` (libsvm: ``n_features``,
    ``dtype``; kddcup04_tar: ``member``; har_zip: ``parts``), ``names``, ``class_column_raw``;
    then ``part_rows`` (the parts reordered by their row counts, for files whose names do not
    say which partition they are), ``split_values`` (a ``split`` column per part), ``split_rows``,
    ``drop_columns``, ``class_map``, ``target_strip``, ``sequence_column``; integer
    column names of a download-only entry (headerless CSV) become ``f0``, ``f1``, ...
    (``column_prefix``); and finally alignment to the mirror's column names/dtypes (``mirror_columns``,
    ``mirror_dtypes``, filled by ``build_registry``).
    """
    conv = dict(spec.get("conversion") or {})
    reader = conv.get("reader")
    if reader not in READERS:
        raise ValueError(f"{spec['name']}: no offline converter for format {spec.get('format')!r}; use a data mirror")
    parts: list[Path] = []
    for f in files:
        if conv.get("archive") == "zip":
            parts.extend(_extract_members(f, list(conv.get("members") or []), work_dir))
        else:
            parts.append(_decompress(f, conv.get("compression")))
    opts = dict(conv.get("options") or {})
    if reader == "newsgroups_glove":  # two raw files: the 20news tar and the GloVe vectors
        if len(parts) != 2:
            raise ValueError(f"{spec['name']}: reader newsgroups_glove needs 2 files (20news tar, GloVe), got {len(parts)}")
        return _align_to_mirror(READERS[reader](parts[0], parts[1], **opts), spec)
    frames = []
    feature_names = None
    if reader in ("npz", "mat") and spec.get("mirror_columns"):
        meta = set(spec.get("meta_columns") or [])
        feature_names = [c for c in spec["mirror_columns"] if c != TARGET and c not in meta]
    for p in parts:
        if reader == "csv":
            df = READERS["csv"](p, names=conv.get("names"), class_column=conv.get("class_column_raw"), **opts)
        elif reader in ("arff", "parquet"):
            df = READERS[reader](p, class_column=conv.get("class_column_raw"))
        elif reader == "libsvm":
            df = READERS[reader](p, n_features=opts.get("n_features"), column_prefix=conv.get("column_prefix", "f"),
                                 dtype=np.dtype(opts.get("dtype", "float64")))
        elif reader in ("npz", "mat"):
            df = READERS[reader](p, names=feature_names)
        else:
            df = READERS[reader](p, **opts)
        frames.append(df)
    if conv.get("part_rows"):
        frames = _order_parts_by_rows(spec, frames, [int(n) for n in conv["part_rows"]])
    split_values = conv.get("split_values")
    if split_values:
        if len(split_values) != len(frames):
            raise ValueError(f"{spec['name']}: {len(split_values)} split values for {len(frames)} parts")
        for df, sv in zip(frames, split_values):
            df["split"] = sv
    df = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if conv.get("split_rows"):
        labels = np.concatenate([np.full(n, k, dtype=object) for k, n in conv["split_rows"].items()])
        if len(labels) != len(df):
            raise ValueError(f"{spec['name']}: split_rows cover {len(labels)} rows, table has {len(df)}")
        df["split"] = labels
    if conv.get("drop_columns"):
        df = df.drop(columns=list(conv["drop_columns"]))
    if conv.get("target_strip"):
        df[TARGET] = df[TARGET].astype("str").str.rstrip(conv["target_strip"])
    if conv.get("class_map"):
        cmap = {str(k): v for k, v in conv["class_map"].items()}
        df[TARGET] = pd.array([cmap.get(str(v), None) for v in df[TARGET]], dtype="str")
    if conv.get("sequence_column"):
        sc = conv["sequence_column"]
        seqs = df.pop(sc["column"]).astype("str").str.strip()
        width = max(seqs.str.len())
        for i in range(width):
            df[f"{sc.get('prefix', 'pos')}{i + 1:0{sc.get('width', 2)}d}"] = seqs.str[i]
    if not spec.get("mirror_columns"):  # download-only: headerless files get f0, f1, ... names
        prefix = conv.get("column_prefix", "f")
        df = df.set_axis([c if isinstance(c, str) else f"{prefix}{c}" for c in df.columns], axis=1)
    return _align_to_mirror(df, spec)


def _sklearn_frame(spec: Mapping[str, Any]) -> pd.DataFrame:
    import sklearn.datasets as skd

    loader = spec["conversion"]["loader"]
    if loader not in ("load_breast_cancer", "load_digits"):
        raise ValueError(f"{spec['name']}: unsupported sklearn loader {loader!r}")
    frame = getattr(skd, loader)(as_frame=True).frame.copy()
    frame[TARGET] = frame[TARGET].to_numpy().astype(np.int64)
    feats = [c for c in frame.columns if c != TARGET]
    frame[feats] = frame[feats].astype(np.float64)
    return frame


# ----------------------------------------------------------------------------- canonical files
def _expected(spec: Mapping[str, Any]) -> str | None:
    """The registry fingerprint; None for a download-only entry whose fingerprint is not
    known yet (it is recorded in the canonical file on the first build)."""
    fp = spec.get("fingerprint")
    if not fp:
        if spec.get("kind") == "download":
            return None
        raise ValueError(
            f"dataset {spec['name']!r} has no fingerprint in the registry; "
            "run `python -m pu_lib.datasets.build_registry --mirror <dir>`"
        )
    return fp


def _read_table_frame(path: Path) -> pd.DataFrame:
    return pq.read_table(path).to_pandas()


def is_valid_canonical(path: str | os.PathLike, spec: Mapping[str, Any]) -> bool:
    """True if ``path`` is a readable Parquet whose content fingerprint equals the
    registry fingerprint of ``spec`` (the file's stored metadata is checked first) and
    whose stored preparation digest equals that of ``spec["preparation"]`` (both absent
    for an entry without one): a download-only entry, whose fingerprint is recorded on
    its first build, is rebuilt when its preparation changes."""
    path = Path(path)
    if not path.is_file():
        return False
    try:
        md = pq.read_schema(path).metadata or {}
        stored = json.loads(md.get(PARQUET_META_KEY, b"{}"))
        expected = _expected(spec)
        if stored.get("preparation") != preparation_digest(spec.get("preparation")):
            return False  # built under another preparation (matters where no registry fingerprint pins it)
        if expected is None:  # download-only entry: the fingerprint recorded at its first build
            if stored.get("name") != spec["name"] or not stored.get("fingerprint"):
                return False
            expected = stored["fingerprint"]
        if stored.get("fingerprint") != expected:
            return False
        return fingerprint(_read_table_frame(path)) == expected
    except Exception:  # noqa: BLE001 - any unreadable file is simply invalid
        return False


def write_canonical(df: pd.DataFrame, path: str | os.PathLike, spec: Mapping[str, Any]) -> Path:
    """Verify ``df`` against the registry fingerprint and write it atomically.

    The fingerprint is checked before writing and again on the temporary file
    (Parquet round trip) before it is renamed into place. A mismatch raises
    ``ValueError`` naming the dataset and the expected/actual fingerprints and
    leaves no file. The schema metadata key ``pu_lib.dataset`` stores the name,
    meta columns and fingerprint (used by :func:`load_canonical`) and, for an entry with a
    ``preparation``, its digest (:func:`pu_lib.datasets.preparation.preparation_digest`).

    Download-only entries (``kind == "download"``) whose registry fingerprint is still
    null are written with the fingerprint of their first build recorded in the file
    (``"fingerprint_recorded": true``); later uses check the file against it (trust on
    first use), and ``build_registry`` can copy it into the registry.
    """
    expected = _expected(spec)
    actual = fingerprint(df)
    if expected is not None and actual != expected:
        hint = f" ({spec['fingerprint_note']})" if spec.get("fingerprint_note") else ""
        raise ValueError(
            f"fingerprint mismatch for dataset {spec['name']!r}: expected {expected}, got {actual}{hint}"
        )
    recorded = expected is None
    expected = actual if recorded else expected
    table = pa.Table.from_pandas(df, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    info = {"name": spec["name"], "meta_columns": list(spec.get("meta_columns") or []), "fingerprint": expected}
    prep = preparation_digest(spec.get("preparation"))
    if prep is not None:
        info["preparation"] = prep
    if recorded:
        info["fingerprint_recorded"] = True
    meta[PARQUET_META_KEY] = json.dumps(info).encode()
    table = table.replace_schema_metadata(meta)
    with atomic_path(path, suffix=".parquet") as tmp:
        pq.write_table(table, tmp, compression="zstd")
        back = fingerprint(_read_table_frame(tmp))
        if back != expected:
            raise ValueError(
                f"fingerprint mismatch for dataset {spec['name']!r} after Parquet round trip: expected {expected}, got {back}"
            )
    return Path(path)


def _mirror_file(spec: Mapping[str, Any], data_mirror: Path) -> Path | None:
    fname = spec.get("mirror_file")
    if not fname:
        return None
    p = Path(data_mirror) / fname
    return p if p.is_file() else None


def _verify_mirror_sha(spec: Mapping[str, Any], path: Path, data_mirror: Path) -> None:
    expected = (spec.get("mirror_sha256") or "").lower()
    manifest = Path(data_mirror) / "manifest.csv"
    if manifest.is_file():
        man = pd.read_csv(manifest, dtype=str)
        row = man[man["file"] == spec["mirror_file"]]
        if len(row) and expected and row.iloc[0]["sha256"].lower() != expected:
            raise ValueError(
                f"dataset {spec['name']!r}: manifest sha256 {row.iloc[0]['sha256']} differs from registry {expected}"
            )
        if len(row) and not expected:
            expected = row.iloc[0]["sha256"].lower()
    if not expected:
        raise ValueError(f"dataset {spec['name']!r}: no sha256 known for mirror file {path}")
    actual = sha256_file(path)
    if actual != expected:
        raise ValueError(f"sha256 mismatch for mirror file of dataset {spec['name']!r} ({path}): expected {expected}, got {actual}")


def raw_file_paths(spec: Mapping[str, Any], raw_dir: str | os.PathLike) -> list[Path]:
    """Where the raw files of ``spec`` lie in ``raw_dir`` (``cache_dir/raw/<name>/``): its
    ``manual_files``, else the last path segment of each registry URL (as a download names
    them); empty for an entry without URLs."""
    raw_dir = Path(raw_dir)
    if spec.get("manual_files"):
        return [raw_dir / f for f in spec["manual_files"]]
    return [raw_dir / (Path(urllib.parse.urlparse(u).path).name or "download") for u in spec.get("urls") or []]


def _check_raw_sha(spec: Mapping[str, Any], files: list[Path]) -> None:
    shas = spec.get("raw_sha256") or [None] * len(files)
    for f, sha in zip(files, shas):
        if sha is not None and sha256_file(f) != sha.lower():
            raise ValueError(f"dataset {spec['name']!r}: sha256 of {f} differs from the registry's {sha}")


def build_canonical_frame(
    spec: Mapping[str, Any], *, data_mirror=None, cache_dir=None, download: bool = True, verify_mirror: bool = True
) -> pd.DataFrame:
    """Canonical table of ``spec`` (not fingerprint-checked; see :func:`prepare_dataset`).

    Source order: the mirror file in ``data_mirror`` (sha256-verified), a local
    scikit-learn loader, a download of the registry URLs into ``cache_dir/raw``. An entry
    with ``manual_files`` (no stable direct URL) reads those files from
    ``cache_dir/raw/<name>/``, where the user puts them; missing ones raise ``ValueError``
    naming the page (``urls[0]``) and the directory.

    Offline (``download=False``), raw files already in ``cache_dir/raw/<name>/`` (an
    earlier download, or files put there by hand: :func:`raw_file_paths`) are converted as
    a download is: the registry's ``raw_sha256`` and the conversion's checks (e.g.
    ``part_rows``) apply, and :func:`prepare_dataset` checks the fingerprint. When any is
    absent the ``ValueError`` names the expected files, their source and the directory.
    """
    name = spec["name"]
    if spec.get("kind") == "synthetic":
        raise ValueError(f"dataset {name!r} is synthetic; use load_dataset() / pu_lib.datasets.synthetic")
    if data_mirror is not None:
        mf = _mirror_file(spec, Path(data_mirror))
        if mf is not None:
            if verify_mirror:
                _verify_mirror_sha(spec, mf, Path(data_mirror))
            return canonicalize(pq.read_table(mf).to_pandas(), spec)
    conv = spec.get("conversion") or {}
    if conv.get("reader") == "sklearn":
        return canonicalize(_sklearn_frame(spec), spec)
    raw_dir = Path(cache_dir if cache_dir is not None else default_cache_dir()) / "raw" / name
    if not download:
        raw = raw_file_paths(spec, raw_dir) if conv.get("reader") in READERS else []
        if not raw or not all(f.is_file() for f in raw):
            hint = ""
            if raw:
                absent = ", ".join(f.name for f in raw if not f.is_file())
                hint = (f"; to build it offline put {absent} (from {' and '.join(spec['urls'])}) in {raw_dir}, "
                        "or set download: true" + (" after putting them there" if spec.get("manual_files") else ""))
            raise ValueError(
                f"dataset {name!r}: no mirror file found (data_mirror={data_mirror!r}) and download=False (offline){hint}"
            )
        _check_raw_sha(spec, raw)
        return canonicalize(convert_raw(spec, raw, raw_dir), spec)
    if not spec.get("urls"):
        raise ValueError(f"dataset {name!r}: no download URL in the registry and no mirror given")
    if conv.get("reader") not in READERS:
        raise ValueError(f"dataset {name!r}: raw format {spec.get('format')!r} has no converter; use a data mirror")
    if spec.get("manual_files"):  # no stable direct URL: the user downloads the files by hand
        files = [raw_dir / f for f in spec["manual_files"]]
        absent = [f.name for f in files if not f.is_file()]
        if absent:
            raise ValueError(f"dataset {name!r}: download {', '.join(absent)} from {spec['urls'][0]} "
                             f"and put it in {raw_dir} (no stable direct URL)")
        _check_raw_sha(spec, files)
        return canonicalize(convert_raw(spec, files, raw_dir), spec)
    files = []
    shas = spec.get("raw_sha256") or [None] * len(spec["urls"])
    for url, sha in zip(spec["urls"], shas):
        fname = Path(urllib.parse.urlparse(url).path).name or "download"
        files.append(fetch_raw(url, raw_dir / fname, sha256=sha))
    return canonicalize(convert_raw(spec, files, raw_dir), spec)


def prepare_dataset(
    name: str,
    out_path: str | os.PathLike | None = None,
    *,
    data_mirror: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
    download: bool = True,
    registry=None,
    spec: Mapping[str, Any] | None = None,
) -> Path:
    """Return the path of the verified canonical Parquet of dataset ``name``.

    1. ``out_path`` (default ``cache_dir/canonical/{name}.parquet``) is reused if it
       exists and its content fingerprint equals the registry's; else a valid
       ``cache_dir/canonical/{name}.parquet`` is copied to ``out_path``;
    2. else, if ``data_mirror`` (a directory laid out like the shared mirror:
       ``manifest.csv`` + ``<file>.parquet``) holds the dataset's file: its sha256
       is checked against the registry/manifest (mismatch -> ``ValueError``), it is
       canonicalised and written;
    3. else scikit-learn bundled data (``kind == "sklearn"`` and
       ``breast_cancer_wdbc``) are built locally;
    4. else, if ``download``, the registry URLs are fetched into
       ``cache_dir/raw/{name}/`` and converted; offline, raw files already there
       (downloaded earlier or put there by hand) are converted the same way;
    5. else ``ValueError`` (no mirror, offline), naming the raw files and their directory.

    Every write is fingerprint-checked; a mismatch raises ``ValueError`` naming the
    dataset with expected/actual values and leaves no file. ``cache_dir`` defaults
    to :func:`default_cache_dir`. ``registry`` (path or mapping) or ``spec`` (an
    explicit registry entry) override the packaged registry, e.g. in tests.
    Unknown names raise ``ValueError`` listing close matches.
    """
    spec = dict(spec) if spec is not None else spec_from(name, registry)
    if spec.get("kind") == "synthetic":
        raise ValueError(f"dataset {name!r} is synthetic and has no canonical file; use load_dataset()")
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    cached = cache / "canonical" / f"{spec['name']}.parquet"
    out = Path(out_path) if out_path is not None else cached
    _expected(spec)
    if is_valid_canonical(out, spec):
        return out
    if out.resolve() != cached.resolve() and is_valid_canonical(cached, spec):
        with atomic_path(out, suffix=".parquet") as tmp:
            shutil.copyfile(cached, tmp)
        return out
    df = build_canonical_frame(spec, data_mirror=data_mirror, cache_dir=cache, download=download)
    return write_canonical(df, out, spec)


def offline_unavailable_reason(
    name: str,
    *,
    data_mirror: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
    prepared: tuple = (),
    registry=None,
) -> str | None:
    """Why dataset ``name`` cannot be prepared without network access, or None if it can.

    Available offline: synthetic and scikit-learn built-ins; a dataset whose mirror file
    exists in ``data_mirror``; a canonical file already prepared at one of the paths in
    ``prepared`` (e.g. the workflow's ``results/data/{name}.parquet``) or in
    ``cache_dir/canonical/``; a dataset whose raw files are all in ``cache_dir/raw/<name>/``
    (:func:`raw_file_paths`: an earlier download, or files put there by hand). For an entry
    with ``manual_files`` the reason names the absent files, their page and the directory.
    Only existence is checked (cheap, for config parsing);
    :func:`prepare_dataset` verifies the content when it is used.
    """
    spec = spec_from(name, registry)
    if spec.get("kind") in ("synthetic", "sklearn") or (spec.get("conversion") or {}).get("reader") == "sklearn":
        return None
    for p in prepared:
        if p is not None and Path(p).is_file():
            return None
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    if (cache / "canonical" / f"{spec['name']}.parquet").is_file():
        return None
    raw_dir = cache / "raw" / spec["name"]
    raw = raw_file_paths(spec, raw_dir) if (spec.get("conversion") or {}).get("reader") in READERS else []
    if raw and all(f.is_file() for f in raw):
        return None
    if not spec.get("mirror_file") and spec.get("manual_files"):
        absent = ", ".join(f.name for f in raw if not f.is_file())
        return f"download by hand: put {absent} from {spec['urls'][0]} in {raw_dir}"
    if not spec.get("mirror_file"):
        return "no mirror copy"
    if data_mirror is None:
        return "no data_mirror configured"
    if not Path(data_mirror).is_dir():
        return f"the data_mirror directory {data_mirror} does not exist"
    if _mirror_file(spec, Path(data_mirror)) is None:
        return f"not in the mirror {data_mirror}"
    return None
