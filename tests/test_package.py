import subprocess
import sys


#: modules that take long to import or start machinery (compilers, schedulers, plotting):
#: pu_lib imports them where they are used, never at package import
HEAVY_MODULES = ("numba", "llvmlite", "dask", "distributed", "xgboost", "sklearn", "scipy", "pandas",
                 "matplotlib", "snakemake", "torch")


def test_import_loads_no_heavy_module():
    """Importing the package, its config reader and its metrics (what a job runner and a
    report read), and the class-prior package with its bootstrap module (what ``pu-lib``'s
    help reads), loads none of the heavy modules: checked in a fresh interpreter through
    sys.modules, which holds on any machine, loaded or not (a wall-time bound does not)."""
    code = (
        "import sys; import pu_lib, pu_lib.workflow.experiments.config, pu_lib.metrics, pu_lib.prior.bootstrap; "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY_MODULES!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_heavy_module_check_sees_a_heavy_import():
    """The check above can fail: a module that imports one of them is seen."""
    code = f"import sys, scipy.linalg; print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY_MODULES!r})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['scipy']", out


#: the optional dependencies (pyproject.toml's extras): the estimators work without them
OPTIONAL_MODULES = ("snakemake", "dask", "distributed", "matplotlib", "xgboost", "imblearn", "jsonschema", "yaml",
                    "torch")
#: run first in a fresh interpreter: every import of OPTIONAL_MODULES fails as if not installed
BLOCK_OPTIONAL = f"""
import sys

class _Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {OPTIONAL_MODULES!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, _Blocker())
"""


def test_estimators_import_and_fit_without_the_optional_dependencies():
    """With every optional dependency missing, the estimator, data and evaluation layers
    import, every registered method's class imports, a PU Extra Trees forest and PULSCAR
    on the built-in booster fit; what needs an extra raises ImportError naming it (fresh
    interpreter, ~2 s)."""
    code = BLOCK_OPTIONAL + """
import json
import numpy as np
import pu_lib.baselines, pu_lib.datasets, pu_lib.distributed, pu_lib.ensemble, pu_lib.workflow.experiments.config
import pu_lib.workflow.figures, pu_lib.labeling, pu_lib.metrics, pu_lib.prior, pu_lib.workflow.registry, pu_lib.sar, pu_lib.trees
from pu_lib.workflow import registry

for name in registry.names():
    registry.method_class(name)
rng = np.random.default_rng(0)
X = rng.normal(size=(80, 2))
X[:40] += 2.0
s = np.zeros(80, dtype=int)
s[:20] = 1
forest = pu_lib.trees.PUExtraTreesClassifier(n_estimators=4, prior=0.5, random_state=0).fit(X, s)
assert forest.predict_proba(X).shape == (80, 2)
prior = pu_lib.prior.PULSCAR(booster="hist_boost", n_folds=2, random_state=0).fit(X, s)
assert 0 <= prior.alpha_ <= 1
errors = {}
for what, call in {
    "xgboost nnpu_xgb": lambda: registry.make_estimator("nnpu_xgb", {"prior": 0.5}).fit(X, s),
    "xgboost pn_boosting": lambda: registry.make_estimator("pn_boosting", {"booster": "xgboost"}).fit(X, s),
    "xgboost pulscar": lambda: pu_lib.prior.PULSCAR(n_folds=2).fit(X, s),
    "xgboost dedpul": lambda: pu_lib.prior.DEDPUL(n_folds=2).fit(X, s),
    "imbalanced adasyn_rf": lambda: registry.make_estimator("adasyn_rf").fit(X, s),
    "nn nnpu": lambda: registry.make_estimator("nnpu", {"prior": 0.5}).fit(X, s),
    "nn vpu": lambda: registry.make_estimator("vpu").fit(X, s),
    "dask client": lambda: pu_lib.distributed.dask_client(1).__enter__(),
    "dask use_dask": lambda: pu_lib.distributed.resolve_client(True),
    "plot figure": lambda: pu_lib.workflow.figures.notice_figure("x"),
    "workflow config": lambda: pu_lib.workflow.experiments.config.load_config("config/config.yaml", {}),
}.items():
    try:
        call()
        errors[what] = None
    except ImportError as exc:
        errors[what] = str(exc)
print(json.dumps({"errors": errors, "loaded": sorted({m.split(".")[0] for m in sys.modules} & set(%r))}))
""" % (OPTIONAL_MODULES,)
    import json

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["loaded"] == []
    for what, message in out["errors"].items():
        extra = what.split()[0]
        assert message is not None, f"{what}: no ImportError without its extra"
        assert f'pip install "pu_lib[{extra}]"' in message, (what, message)


def test_core_dependencies_leave_out_the_workflow_and_optional_packages():
    """``pip install .`` installs the estimators only: the workflow, Dask, XGBoost,
    imbalanced-learn and plotting are extras; ``test`` pulls all of them."""
    import re
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]

    def name(requirement):
        return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower()

    core = {name(r) for r in project["dependencies"]}
    assert core.isdisjoint({"snakemake", "dask", "distributed", "matplotlib", "xgboost", "imbalanced-learn",
                            "jsonschema", "pyyaml", "xxhash"}), core
    extras = project["optional-dependencies"]
    assert "pu_lib[all]" in extras["test"]
    # every extra that pu_lib._optional names exists
    from pu_lib._optional import EXTRAS

    assert {extra for _, extra in EXTRAS.values()} <= set(extras)


def test_require_names_the_extra_and_keeps_the_cause():
    import pytest

    from pu_lib._optional import available, require

    assert require("json", purpose="x").dumps({}) == "{}"
    assert available("json") and not available("pu_lib_no_such_module")
    with pytest.raises(ImportError, match=r'my purpose needs pyyaml.*pip install "pu_lib\[workflow\]"') as info:
        require("yaml.no_such_module", purpose="my purpose")
    assert isinstance(info.value.__cause__, ImportError)


def test_seed_derivation_is_the_documented_sha256_prefix_and_pinned():
    import hashlib

    from pu_lib._seeding import derive_seed

    # pinned: the documented hash must never change silently (it would change every result)
    assert derive_seed(1, "digits", "scar_c-c0.5", "labels", 0) == 3038044954
    # the documented recipe: sha256 of the keys' repr joined with "\x1f", first 4 bytes big-endian
    text = "1\x1f'digits'\x1f'scar_c-c0.5'\x1f'labels'\x1f0"
    assert int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big") == 3038044954
    assert derive_seed(0) == int.from_bytes(hashlib.sha256(b"0").digest()[:4], "big")
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


def test_atomic_outputs_get_the_umask_file_mode(tmp_path):
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


def test_the_prior_package_loads_every_public_name_on_first_use():
    """pu_lib.prior loads its names lazily (module __getattr__): every name of __all__ has
    its module in the table, and resolves to the object its module defines."""
    import pu_lib.prior as prior

    assert set(prior.__all__) == set(prior._LAZY)
    for name in prior.__all__:
        module = sys.modules.get(prior._LAZY[name]) or __import__(prior._LAZY[name], fromlist=[name])
        assert getattr(prior, name) is getattr(module, name), name
    assert prior.tice.TIcE is prior.TIcE  # a submodule is an attribute too
