import subprocess
import sys


def test_import_is_fast_and_light():
    code = (
        "import time, sys; t = time.perf_counter(); import pu_lib, pu_lib.experiments.config, pu_lib.metrics; "
        "dt = time.perf_counter() - t; "
        "heavy = [m for m in ('numba', 'distributed', 'dask', 'xgboost') if m in sys.modules]; "
        "print(dt, heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(" ", 1)
    assert float(out[0]) < 1.0
    assert out[1].strip() == "[]"


def test_seed_derivation_is_stable():
    from pu_lib._seeding import derive_seed

    # pinned: the documented hash must never change silently (it would change every result)
    assert derive_seed(1, "digits", "scar_c-c0.5", "labels", 0) == derive_seed(1, "digits", "scar_c-c0.5", "labels", 0)
    assert derive_seed(0) == int.from_bytes(__import__("hashlib").sha256(b"0").digest()[:4], "big")
    assert derive_seed(1, "a") != derive_seed(1, "b")


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    import pytest

    from pu_lib._io import atomic_path

    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_atomic_outputs_get_the_usual_file_mode(tmp_path):
    import os

    from pu_lib._io import write_text_atomic

    mask = os.umask(0o022)
    try:
        import importlib

        import pu_lib._io as io_mod

        importlib.reload(io_mod)
        io_mod.write_text_atomic("x", tmp_path / "a.txt")
        assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(mask)
        importlib.reload(io_mod)
    write_text_atomic("y", tmp_path / "b.txt")
    assert (tmp_path / "b.txt").read_text() == "y"
