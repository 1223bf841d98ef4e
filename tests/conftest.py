"""Shared test paths and fixtures.

Test modules import the constants directly (``from conftest import SHARED_DATASETS,
needs_mirror``): pytest puts this directory on ``sys.path`` when it loads this file.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: the local data mirror (``manifest.csv`` plus Parquet files) beside the repository
SHARED_DATASETS = REPO.parent / "shared" / "datasets"
#: skip marker for tests that read the data mirror
needs_mirror = pytest.mark.skipif(
    not (SHARED_DATASETS / "manifest.csv").exists(), reason=f"no data mirror at {SHARED_DATASETS}"
)


#: the two quick logistic-regression methods of the tiny workflow-test configs
LR_METHODS = {
    "naive_lr": {"method": "naive", "base": "logistic_regression"},
    "elkan_noto_lr": {"method": "elkan_noto", "base": "logistic_regression", "params": {"hold_out_ratio": 0.2}},
}


def pickled_modules(data: bytes) -> set:
    """The modules whose classes or functions a pickle references (``find_class``), e.g.
    to check that no torch object is among them (a string value ``"pytorch"`` may be)."""
    import io
    import pickle

    modules = set()

    class _Recorder(pickle.Unpickler):
        def find_class(self, module, name):
            modules.add(module)
            return super().find_class(module, name)

    _Recorder(io.BytesIO(data)).load()
    return modules


def two_gaussians(n=3000, pi=0.4, c=0.3, shift=3.0, seed=0):
    """A SCAR PU sample of two Gaussians in 3-d (positives shifted by ``shift`` in every
    coordinate): ``(X, s, y)`` with class prior ``pi`` and label frequency ``c``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    y = (rng.random(n) < pi).astype(int)
    X = rng.normal(size=(n, 3))
    X[y == 1] += shift
    s = ((y == 1) & (rng.random(n) < c)).astype(int)
    return X, s, y


def pu_data(n=600, d=6, n_lab=120, seed=0):
    """A float32 PU sample for tree tests: ``(X, y, s)``, ``y = 1`` where
    ``x0 - x1 + noise > 0``, ``n_lab`` of the positives labeled (``s = 1``)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    y = (X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)
    s = np.zeros(n, int)
    s[rng.choice(np.flatnonzero(y == 1), n_lab, replace=False)] = 1
    return X, y, s


def mixture_sample(alpha, n_u, n_p, seed, d=2, shift=2.0):
    """A case-control PU sample for prior estimators: U = ``n_u`` rows of
    (1 - alpha) N(0, I) + alpha N(shift, I), P = ``n_p`` rows of N(shift, I); returns
    ``(X, s)`` with the P rows first."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n_pos_u = int(round(alpha * n_u))
    Xu = np.vstack([rng.normal(0.0, 1.0, (n_u - n_pos_u, d)), rng.normal(shift, 1.0, (n_pos_u, d))])
    Xp = rng.normal(shift, 1.0, (n_p, d))
    return np.vstack([Xp, Xu]), np.r_[np.ones(n_p, int), np.zeros(n_u, int)]


def write_config(workdir, cfg: dict, sort_keys: bool = True) -> None:
    """Write ``cfg`` as ``<workdir>/config/config.yaml`` (the workflow's default config)."""
    import yaml

    (Path(workdir) / "config").mkdir(parents=True, exist_ok=True)
    (Path(workdir) / "config" / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=sort_keys))


#: result columns that differ between otherwise identical runs (timings, hosts, clocks)
NONDETERMINISTIC = re.compile(r"(_seconds$|^host(name)?$|^(timestamp|started|finished)$)")


def fit_frames(workdir) -> dict:
    """Every fit result of a run (``results/fits/**.parquet``), keyed by its path below
    ``results/fits``, without the :data:`NONDETERMINISTIC` columns."""
    import pandas as pd

    root = Path(workdir) / "results" / "fits"
    out = {}
    for f in sorted(root.rglob("*.parquet")):
        df = pd.read_parquet(f)
        out[str(f.relative_to(root))] = df.drop(columns=[c for c in df.columns if NONDETERMINISTIC.search(c)])
    return out


def run_snakemake(workdir, *args, check: bool = True) -> subprocess.CompletedProcess:
    """Run the real workflow (this checkout's Snakefile) in ``workdir`` with ``args``, in a
    subprocess without ``PYTHONPATH`` (pu_lib comes from the installed package);
    ``AssertionError`` with Snakemake's output when it fails and ``check``."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir), *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=workdir)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(map(str, args))} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


#: with ``PU_LIB_REQUIRE_TORCH=1`` (.ci/run) the neural tests fail instead of skipping
#: when torch cannot be imported, as ``PU_LIB_REQUIRE_SLURM`` does for the SLURM tests
REQUIRE_TORCH = os.environ.get("PU_LIB_REQUIRE_TORCH") == "1"


def _import_or_skip(module: str, install: str, require: bool, env: str):
    """``module``, or skip the calling test (or module, at import) when it cannot be
    imported; with ``require`` (the environment variable ``env`` set to 1) fail instead."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        reason = f"{module} cannot be imported ({exc}); {install}"
        if require:
            pytest.fail(f"{env}=1 but {reason}", pytrace=False)
        pytest.skip(reason, allow_module_level=True)


def torch_or_skip():
    """torch, or skip (fail with ``PU_LIB_REQUIRE_TORCH=1``)."""
    return _import_or_skip("torch", "pip install torch==2.13.0 gives the CPU build", REQUIRE_TORCH,
                           "PU_LIB_REQUIRE_TORCH")


REQUIRE_CATBOOST = os.environ.get("PU_LIB_REQUIRE_CATBOOST") == "1"


def catboost_or_skip():
    """catboost, or skip (fail with ``PU_LIB_REQUIRE_CATBOOST=1``, as CI's ``.ci/run`` sets)."""
    return _import_or_skip("catboost", 'pip install "pu_lib[catboost]" installs it', REQUIRE_CATBOOST,
                           "PU_LIB_REQUIRE_CATBOOST")


def is_neural(estimator_or_name) -> bool:
    """Whether a registered name or an estimator belongs to :mod:`pu_lib.neural` (needs torch)."""
    if isinstance(estimator_or_name, str):
        from pu_lib.workflow import registry

        return registry.METHODS[estimator_or_name].target.startswith("pu_lib.neural")
    return type(estimator_or_name).__module__.startswith("pu_lib.neural")


#: environment variable naming the folder of the ``scontrol`` shim of :func:`_no_wait_for_a_slurm_controller`
SCONTROL_SHIM_ENV = "PU_LIB_TEST_SCONTROL_SHIM"


@pytest.fixture(scope="session", autouse=True)
def _no_wait_for_a_slurm_controller(tmp_path_factory):
    """Snakemake imports every installed executor plugin in every process, and the SLURM
    plugin's import runs ``scontrol show config`` (timeout 10 s) to read MinJobAge. Where
    SLURM is installed but no controller answers (every test but those of
    ``tests/workflow/test_slurm.py``, which start one), that call waits out its 10 s and the
    plugin goes on without the value. A shim ``scontrol`` first on ``PATH`` fails at once,
    which gives the plugin the same outcome (no MinJobAge) without the wait in each of the
    suite's Snakemake runs. ``test_slurm.py`` takes the shim off ``PATH`` for its cluster."""
    if shutil.which("scontrol") is None:
        yield
        return
    folder = tmp_path_factory.mktemp("scontrol_shim")
    shim = folder / "scontrol"
    shim.write_text("#!/bin/sh\necho 'scontrol: no SLURM controller for this test (tests/conftest.py)' >&2\nexit 1\n")
    shim.chmod(0o755)
    old_path = os.environ.get("PATH", "")
    os.environ["PATH"] = f"{folder}{os.pathsep}{old_path}"
    os.environ[SCONTROL_SHIM_ENV] = str(folder)
    try:
        yield
    finally:
        os.environ["PATH"] = old_path
        os.environ.pop(SCONTROL_SHIM_ENV, None)


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    """:data:`SHARED_DATASETS`, for tests that take the mirror as a fixture."""
    return SHARED_DATASETS


@pytest.fixture(scope="session")
def schema_path(repo) -> Path:
    return repo / "workflow" / "schemas" / "config.schema.yaml"


def _short_repr_failure(excinfo, style=None):
    """The exception and the line that raised it, without pytest's full traceback."""
    entry = excinfo.traceback[-1] if excinfo.traceback else None
    where = f"{entry.path}:{entry.lineno + 1}: " if entry is not None else ""
    return f"{where}{excinfo.exconly()}"


def pytest_collection_modifyitems(config, items):
    """Expected failures report the exception line only. pytest formats the full traceback
    of every failing call, also of an expected failure (xfail), and for scikit-learn's
    estimator checks that means reading and parsing every source file on a deep stack: the
    225 expected failures of tests/test_sklearn_checks.py (the PU exemptions) took 51 of
    its 75 s that way on a 2-core Xeon. pytest never shows an xfail's traceback, so the
    test outcome and every report stay the same. ``--runxfail`` (xfails run as plain
    tests) keeps the full traceback."""
    if config.getoption("runxfail"):
        return
    for item in items:
        if item.get_closest_marker("xfail") is not None and hasattr(item, "repr_failure"):
            item.repr_failure = _short_repr_failure


#: session fixtures that run a whole workflow once: the test files that use one go to the
#: same pytest-xdist worker, so that the run is made once per suite, not once per worker
SHARED_RUN_GROUPS = {"tiny_core": "tiny_run", "tiny_run": "tiny_run", "default_run": "default_run"}


def _worker_groups(tests_dir: Path, root: Path) -> dict[str, str]:
    """``{test file (relative to the rootdir): group}`` for the files that name a shared-run
    fixture of :data:`SHARED_RUN_GROUPS` (found in the file's text)."""
    groups = {}
    for path in sorted(tests_dir.rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        for fixture, group in SHARED_RUN_GROUPS.items():
            if re.search(rf"\b{fixture}\b", text):
                groups[path.relative_to(root).as_posix()] = group
                break
    return groups


def pytest_xdist_make_scheduler(config, log):
    """With ``pytest -n N`` (``--dist loadgroup``, the default of pyproject.toml): a test
    file is a unit of work (its module fixtures, such as a workflow run that its tests
    change one after another, are made once), and the files that read one shared workflow
    run (:data:`SHARED_RUN_GROUPS`) form one unit, so that the run is made once. (pytest-xdist
    3.8's own ``xdist_group`` marks do not reach its scheduler under pytest 9.2, whose node
    ids no longer take the group suffix.)

    The shared-run units are handed out first: each makes a whole workflow run before its
    first test, and pytest-xdist otherwise orders units by their number of tests, which put
    the tiny run's few tests last, on one worker while the other had nothing left to do."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    groups = _worker_groups(Path(__file__).resolve().parent, Path(config.rootpath))
    first = list(dict.fromkeys(SHARED_RUN_GROUPS.values()))

    class SharedRunScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return groups.get(path, path)

        def _assign_work_unit(self, node) -> None:
            for scope in reversed(first):  # the workqueue is an OrderedDict, taken from the front
                if scope in self.workqueue:
                    self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return SharedRunScheduling(config, log)
