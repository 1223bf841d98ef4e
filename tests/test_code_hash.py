"""The code hash of a workflow job (pu_lib.workflow.experiments.code_hash): the pu_lib sources a
method's fits run, the same in every copy of the sources, changed by an edit of a file
the method uses and by nothing else."""

import inspect
import shutil
from pathlib import Path

import pytest

from pu_lib.workflow import registry
from pu_lib.workflow.experiments.code_hash import (
    RULE_ROOTS,
    code_files,
    code_hash,
    compute_code_hash,
    fit_roots,
    package_dir,
)

NAIVE = {"method": "naive", "base": "logistic_regression"}
ELKAN = {"method": "elkan_noto", "base": "logistic_regression"}
PULSNAR = {"method": "pulsnar"}
PU_HDT = {"method": "pu_hellinger_tree"}


def _copy(tmp_path) -> Path:
    """A copy of the package without bytecode (as on another machine)."""
    dst = tmp_path / "src" / "pu_lib"
    shutil.copytree(package_dir(), dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dst


def _h(spec, pkg=None):
    return compute_code_hash(fit_roots(spec), package=pkg)


@pytest.mark.slow
def test_same_hash_in_a_copy_and_bytecode_caches_do_not_count(tmp_path):
    pkg = _copy(tmp_path)
    for spec in (NAIVE, ELKAN, PULSNAR, PU_HDT):
        assert _h(spec) == _h(spec, pkg) == _h(spec, pkg)  # stable, location-independent
        assert len(_h(spec)) == 16
    # numba cache files, bytecode and a stray document do not enter the hash
    cache = pkg / "trees" / "__pycache__"
    cache.mkdir()
    (cache / "_builder.build_tree-1.py311.nbi").write_bytes(b"numba index")
    (cache / "_builder.cpython-311.pyc").write_bytes(b"bytecode")
    (pkg / "trees" / "NOTES.md").write_text("notes")
    assert _h(PU_HDT, pkg) == _h(PU_HDT)
    files = code_files(fit_roots(PU_HDT), package=pkg)
    assert files == sorted(files) and all(not f.endswith((".nbi", ".pyc", ".md")) for f in files)
    assert all(f.startswith("pu_lib/") for f in files)


@pytest.mark.slow  # ~6 s: a whole-package copy and refits; the fast tier stays under 3 minutes
def test_an_edit_changes_the_hash_of_the_methods_that_use_the_file_only(tmp_path):
    pkg = _copy(tmp_path)
    before = {m: _h(spec, pkg) for m, spec in (("naive", NAIVE), ("elkan", ELKAN), ("pulsnar", PULSNAR),
                                              ("pu_hdt", PU_HDT))}
    with open(pkg / "baselines" / "elkan_noto.py", "a") as fh:
        fh.write("# a harmless comment\n")
    after = {m: _h(spec, pkg) for m, spec in (("naive", NAIVE), ("elkan", ELKAN), ("pulsnar", PULSNAR),
                                             ("pu_hdt", PU_HDT))}
    assert after["elkan"] != before["elkan"]
    assert after["naive"] == before["naive"] and after["pulsnar"] == before["pulsnar"]
    # the PU Hellinger trees' module: their fits rerun, PULSNAR's do not
    with open(pkg / "trees" / "hellinger.py", "a") as fh:
        fh.write("# another one\n")
    assert _h(PU_HDT, pkg) != after["pu_hdt"]
    assert _h(PULSNAR, pkg) == before["pulsnar"] and _h(NAIVE, pkg) == before["naive"]
    # a module the runner runs for every fit changes every fit's hash
    with open(pkg / "workflow" / "experiments" / "runner.py", "a") as fh:
        fh.write("# runner\n")
    assert _h(NAIVE, pkg) != before["naive"] and _h(PULSNAR, pkg) != before["pulsnar"]


def test_a_new_unused_module_and_report_code_do_not_change_fit_hashes(tmp_path):
    pkg = _copy(tmp_path)
    before = _h(PULSNAR, pkg), _h(NAIVE, pkg)
    (pkg / "unused_helper.py").write_text("X = 1\n")
    with open(pkg / "workflow" / "reporting.py", "a") as fh:
        fh.write("# table layout tweak\n")
    assert (_h(PULSNAR, pkg), _h(NAIVE, pkg)) == before
    # ... but the report rules' hash
    assert compute_code_hash(*RULE_ROOTS["report"], package=pkg) != compute_code_hash(*RULE_ROOTS["report"])


def test_closures_are_per_method():
    naive = set(code_files(fit_roots(NAIVE)))
    elkan = set(code_files(fit_roots(ELKAN)))
    pulsnar = set(code_files(fit_roots(PULSNAR)))
    # the classifier's module and the Elkan-Noto fit it shares with the prior estimator (in
    # pu_lib.prior.elkan_noto; the prior interface is in every classifier's closure: the
    # scoring code reads predict_proba kinds from pu_lib.calibration, which takes a prior)
    assert elkan - naive == {"pu_lib/baselines/elkan_noto.py", "pu_lib/prior/elkan_noto.py"}
    assert {"pu_lib/prior/pulsnar.py", "pu_lib/prior/pulscar.py", "pu_lib/workflow/experiments/prior_eval.py"} <= pulsnar
    assert not any(f.startswith("pu_lib/trees/") for f in pulsnar | naive)
    assert "pu_lib/prior/tice.py" not in pulsnar
    # scoring code only of the method's kind; report code in no fit
    assert "pu_lib/workflow/experiments/classifier_eval.py" in naive and "pu_lib/workflow/experiments/prior_eval.py" not in naive
    for f in ("pu_lib/workflow/reporting.py", "pu_lib/workflow/stats.py", "pu_lib/workflow/experiments/config.py", "pu_lib/prior/bootstrap.py"):
        assert f not in naive | pulsnar
    # a prior estimator named by a parameter is part of the classifier's closure
    tice_prior = set(code_files(fit_roots({"method": "pu_extra_trees", "params": {"prior": "tice"}})))
    assert "pu_lib/prior/tice.py" in tice_prior
    given = {"method": "pu_extra_trees", "params": {"prior": 0.3}}
    assert "pu_lib/prior/tice.py" not in set(code_files(fit_roots(given)))
    # options of the experiment add their scoring code
    boot = set(code_files(fit_roots(PULSNAR, method="ps", prior_evaluation={"bootstrap": 10})))
    assert "pu_lib/prior/bootstrap.py" in boot
    other = set(code_files(fit_roots(PULSNAR, method="ps", prior_evaluation={"bootstrap": 10,
                                                                             "bootstrap_methods": ["x"]})))
    assert "pu_lib/prior/bootstrap.py" not in other
    assert "pu_lib/workflow/experiments/curves.py" in set(code_files(fit_roots({"method": "ada_pu"}, staged_metrics=["f1"])))


@pytest.mark.slow
def test_every_registered_method_has_a_closure_with_its_class():
    for name in registry.names():
        spec = {"method": name}
        if registry.get(name).takes_base:
            spec["base"] = "logistic_regression"
        cls = registry.method_class(name)
        module_file = "pu_lib/" + "/".join(cls.__module__.split(".")[1:]) + ".py"
        assert module_file in code_files(fit_roots(spec)), name


def test_labels_hash_follows_labeling_and_the_dataset_registry_only(tmp_path):
    pkg = _copy(tmp_path)
    labels = RULE_ROOTS["labels"]
    files = code_files(*labels)
    assert "pu_lib/datasets/registry.json" in files and "pu_lib/labeling/scar.py" in files
    assert not any(f.startswith(("pu_lib/trees/", "pu_lib/baselines/")) for f in files)
    assert "pu_lib/workflow/experiments/classifier_eval.py" not in files
    before = compute_code_hash(*labels, package=pkg)
    with open(pkg / "baselines" / "naive.py", "a") as fh:
        fh.write("# x\n")
    assert compute_code_hash(*labels, package=pkg) == before
    text = (pkg / "datasets" / "registry.json").read_text()
    (pkg / "datasets" / "registry.json").write_text(text + "\n")
    assert compute_code_hash(*labels, package=pkg) != before


def test_cached_hash_and_cache_clear(tmp_path):
    pkg = _copy(tmp_path)
    roots = fit_roots(ELKAN)
    h = code_hash(roots, package=pkg)
    with open(pkg / "baselines" / "elkan_noto.py", "a") as fh:
        fh.write("# y\n")
    assert code_hash(roots, package=pkg) == h  # cached for the process (one workflow invocation)
    code_hash.cache_clear()
    assert code_hash(roots, package=pkg) != h


def test_unknown_root_is_an_error():
    with pytest.raises(ValueError, match="no module 'pu_lib.nope'"):
        compute_code_hash(["pu_lib.nope"])


def test_runner_extend_defaults_agree_with_the_config():
    """The runner leaves missing ``extend`` keys to extend_attributes' defaults (so that it
    need not import the config module); they must be the config's EXTEND_DEFAULTS."""
    from pu_lib.workflow.experiments.config import EXTEND_DEFAULTS
    from pu_lib.labeling import extend_attributes

    sig = inspect.signature(extend_attributes).parameters
    assert {k: sig[k].default for k in EXTEND_DEFAULTS} == EXTEND_DEFAULTS
