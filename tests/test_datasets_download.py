"""Download, caching and prepare_dataset tests (local HTTP server, no internet)."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
import urllib.error
import zipfile

import numpy as np
import pandas as pd
import pytest

from pu_lib.datasets import load_canonical, prepare_dataset
from pu_lib.datasets.canonical import canonicalize, fingerprint
from pu_lib.datasets.converters import read_csv
from pu_lib.datasets.download import fetch_raw

PAYLOAD = b"x1,x2,color,class\n1.0,2,red,pos\n3.5,4,blue,neg\n?,6,red,pos\n7.25,8,green,neg\n"


class _Server:
    """Threaded HTTP server on 127.0.0.1 serving fixed bytes; fails the first N GETs."""

    def __init__(self, files: dict[str, bytes], fail_first: int = 0):
        self.files = files
        self.fail_first = fail_first
        self.requests = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                outer.requests += 1
                if outer.requests <= outer.fail_first:
                    self.send_error(503, "try again")
                    return
                data = outer.files.get(self.path)
                if data is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def _sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def test_fetch_raw_http_and_checksum(tmp_path):
    with _Server({"/d.csv": PAYLOAD}) as srv:
        dest = fetch_raw(srv.url + "/d.csv", tmp_path / "d.csv", sha256=_sha(PAYLOAD), backoff=0.01)
        assert dest.read_bytes() == PAYLOAD
        # wrong checksum: ValueError naming both digests, no file left
        bad = tmp_path / "bad.csv"
        with pytest.raises(ValueError, match="checksum mismatch"):
            fetch_raw(srv.url + "/d.csv", bad, sha256="0" * 64, backoff=0.01)
        assert not bad.exists()
        assert [p.name for p in tmp_path.iterdir()] == ["d.csv"]
        # 404 is not retried
        before = srv.requests
        with pytest.raises(urllib.error.HTTPError):
            fetch_raw(srv.url + "/missing", tmp_path / "m", retries=3, backoff=0.01)
        assert srv.requests == before + 1


def test_fetch_raw_retries(tmp_path):
    with _Server({"/d.csv": PAYLOAD}, fail_first=2) as srv:
        dest = fetch_raw(srv.url + "/d.csv", tmp_path / "d.csv", retries=3, backoff=0.01)
        assert dest.read_bytes() == PAYLOAD and srv.requests == 3
    with _Server({"/d.csv": PAYLOAD}, fail_first=5) as srv:
        with pytest.raises(urllib.error.HTTPError):
            fetch_raw(srv.url + "/d.csv", tmp_path / "e.csv", retries=2, backoff=0.01)
        assert srv.requests == 3 and not (tmp_path / "e.csv").exists()


def test_fetch_raw_file_url_and_reuse(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(PAYLOAD)
    dest = fetch_raw(src.as_uri(), tmp_path / "out" / "copy.bin", sha256=_sha(PAYLOAD))
    assert dest.read_bytes() == PAYLOAD
    src.write_bytes(b"changed")
    assert fetch_raw(src.as_uri(), dest, sha256=_sha(PAYLOAD)).read_bytes() == PAYLOAD  # reused
    assert fetch_raw(src.as_uri(), dest, force=True).read_bytes() == b"changed"


def _fixture_spec(url: str, fp: str | None) -> dict:
    return {
        "name": "toy_csv",
        "kind": "mirror",
        "urls": [url],
        "format": "csv",
        "conversion": {"reader": "csv", "archive": "zip", "members": ["toy.csv"],
                       "options": {"na_values": ["?"]}, "class_column_raw": "class"},
        "mirror_file": "toy_csv.parquet",
        "meta_columns": [],
        "encoding": {"missing_categorical": "zeros"},
        "positive": {"default": {"values": ["pos"]}},
        "fingerprint": fp,
    }


def _expected_fp() -> str:
    import io

    df = read_csv(io.BytesIO(PAYLOAD), na_values=["?"], class_column="class")
    return fingerprint(canonicalize(df, {"meta_columns": []}))


def test_prepare_dataset_download_convert_and_cache(tmp_path):
    zbuf = tmp_path / "toy.zip"
    with zipfile.ZipFile(zbuf, "w") as zf:
        zf.writestr("folder/toy.csv", PAYLOAD)
    data = zbuf.read_bytes()
    cache = tmp_path / "cache"
    with _Server({"/toy.zip": data}) as srv:
        spec = _fixture_spec(srv.url + "/toy.zip", _expected_fp())
        path = prepare_dataset("toy_csv", cache_dir=cache, spec=spec)
        assert path == cache / "canonical" / "toy_csv.parquet"
        assert (cache / "raw" / "toy_csv" / "toy.zip").is_file()
        n_req = srv.requests
        assert prepare_dataset("toy_csv", cache_dir=cache, spec=spec) == path
        assert srv.requests == n_req  # reused, nothing fetched
    ds = load_canonical(path, registry={"datasets": {"toy_csv": spec}})
    assert ds.feature_names == ["x1", "x2", "color=blue", "color=green", "color=red"]
    assert ds.X.shape == (3, 5)  # row with x1 = '?' dropped (dropna=True)
    assert ds.X.dtype == np.float32 and ds.X.flags.c_contiguous
    assert ds.binary_target().tolist() == [1, 0, 0]
    full = load_canonical(path, registry={"datasets": {"toy_csv": spec}}, dropna=False)
    assert full.X.shape == (4, 5) and np.isnan(full.X[2, 0])
    # offline, no mirror and nothing cached -> ValueError naming the dataset
    with pytest.raises(ValueError, match="toy_csv.*download=False"):
        prepare_dataset("toy_csv", cache_dir=tmp_path / "empty", spec=spec, download=False)


def test_prepare_dataset_fingerprint_mismatch_leaves_no_file(tmp_path):
    zbuf = tmp_path / "toy.zip"
    with zipfile.ZipFile(zbuf, "w") as zf:
        zf.writestr("toy.csv", PAYLOAD)
    spec = _fixture_spec(zbuf.as_uri(), "sha256:" + "0" * 64)
    out = tmp_path / "out" / "toy.parquet"
    with pytest.raises(ValueError, match=r"toy_csv.*expected sha256:0{64}, got sha256:"):
        prepare_dataset("toy_csv", out, cache_dir=tmp_path / "cache", spec=spec)
    assert not out.exists()
    assert not out.parent.exists() or list(out.parent.iterdir()) == []
    # a temp registry file works the same way
    reg = tmp_path / "reg.json"
    reg.write_text(json.dumps({"datasets": {"toy_csv": spec}}))
    with pytest.raises(ValueError, match="fingerprint mismatch"):
        prepare_dataset("toy_csv", out, cache_dir=tmp_path / "cache", registry=reg)
    assert not out.exists()


def test_prepare_dataset_replaces_invalid_cached_file(tmp_path):
    zbuf = tmp_path / "toy.zip"
    with zipfile.ZipFile(zbuf, "w") as zf:
        zf.writestr("toy.csv", PAYLOAD)
    spec = _fixture_spec(zbuf.as_uri(), _expected_fp())
    out = tmp_path / "toy.parquet"
    pd.DataFrame({"a": [1]}).to_parquet(out)
    prepare_dataset("toy_csv", out, cache_dir=tmp_path / "cache", spec=spec)
    assert fingerprint(pd.read_parquet(out)) == spec["fingerprint"]
