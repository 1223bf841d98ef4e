"""Atomic file output: write to a temporary name in the target directory, then rename.

A failure (exception, kill) leaves no half-written file under the final name.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator


def _default_mode() -> int:
    """0o666 minus the process umask: what ``open(path, "w")`` would give (mkstemp's
    temporary files are 0o600, which would make every output private)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_MODE = _default_mode()


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it to ``path`` on success.

    On any exception the temporary file is removed and ``path`` is left untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=suffix if suffix is not None else ".tmp", dir=path.parent
    )
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        if tmp_path.exists():
            os.chmod(tmp_path, _MODE)
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


def write_parquet_atomic(df, path: str | os.PathLike, **kwargs) -> Path:
    """Write a pandas DataFrame to Parquet atomically."""
    with atomic_path(path, suffix=".parquet") as tmp:
        df.to_parquet(tmp, index=False, **kwargs)
    return Path(path)


def write_text_atomic(text: str, path: str | os.PathLike) -> Path:
    """Write text (UTF-8) atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def write_bytes_atomic(data: bytes, path: str | os.PathLike) -> Path:
    """Write bytes atomically."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)
