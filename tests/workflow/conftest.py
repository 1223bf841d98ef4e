"""Fixtures shared by the workflow tests.

Session-scoped fixtures here run the real workflow once per test session; tests that
only read a run's outputs share it. A test must never change, add or delete files in a
shared run's working directory (other tests read it, in any order): tests that change
inputs or kill processes make their own run in their own ``tmp_path``.

* :func:`default_run`: the repository's own ``config/config.yaml`` (the default run of
  the README, ``snakemake --cores 2``) in a temporary working directory.

pytest imports this file as the module ``conftest``, and for the test modules of this
directory that name then no longer reaches ``tests/conftest.py``. So that
``from conftest import write_config`` keeps working here, the helpers (constants,
functions; not the fixtures, which pytest already provides) of ``tests/conftest.py`` are
re-exported below (not its hooks, which pytest already calls).
"""

import importlib.util
import inspect
import shutil
from pathlib import Path

import pytest


def _helpers_of_parent_conftest() -> dict:
    """The public names of ``tests/conftest.py`` that are neither modules nor fixtures."""
    path = Path(__file__).resolve().parents[1] / "conftest.py"
    spec = importlib.util.spec_from_file_location("_tests_conftest_helpers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        from _pytest.fixtures import FixtureFunctionDefinition as _Fixture
    except ImportError:  # pytest < 8.4: fixtures are functions with a marker attribute
        _Fixture = ()

    def is_fixture(v):
        return (bool(_Fixture) and isinstance(v, _Fixture)) or hasattr(v, "_pytestfixturefunction")

    return {k: v for k, v in vars(module).items()
            if not k.startswith(("_", "pytest_")) and not inspect.ismodule(v) and not is_fixture(v)}


globals().update({k: v for k, v in _helpers_of_parent_conftest().items() if k not in globals()})
REPO = globals()["REPO"]
run_snakemake = globals()["run_snakemake"]


@pytest.fixture(scope="session")
def default_run(tmp_path_factory) -> Path:
    """The working directory of one run of the default config: the repository's
    ``config/config.yaml`` copied into a temporary directory and
    ``snakemake --cores 2`` run there (this checkout's Snakefile, the installed pu_lib).
    Read-only for tests: ``results/`` holds every table, figure and aggregate of the
    default run."""
    wd = tmp_path_factory.mktemp("default_run")
    (wd / "config").mkdir()
    shutil.copy(REPO / "config" / "config.yaml", wd / "config" / "config.yaml")
    run_snakemake(wd, "--cores", "2")
    return wd


# ---------------------------------------------------------------------------------------
# The tiny shared run: one config that covers every rule the read-only workflow tests check
# ---------------------------------------------------------------------------------------

SHARED_DATASETS = globals()["SHARED_DATASETS"]
LR_METHODS = globals()["LR_METHODS"]
write_config = globals()["write_config"]

#: whether the papers' data mirror is here (the mirror parts of the tiny run need it)
HAS_MIRROR = (SHARED_DATASETS / "manifest.csv").exists()
PAPERS = REPO / "config" / "papers"
#: the paper configs with their tiny variants, merged into the tiny run in this order (the
#: tiny run's own config comes last, so its seed and dask block hold for every experiment)
PAPER_CONFIGS = [PAPERS / "pu_hellinger.yaml", PAPERS / "pu_hellinger_tiny.yaml",
                 PAPERS / "ada_pu.yaml", PAPERS / "ada_pu_tiny.yaml"]

#: the experiment of the core part (scikit-learn's bundled sets, two logistic-regression
#: methods): data sets, labels, fits, aggregate, per-data-set tables, Friedman /
#: Iman-Davenport and Holm tests, critical-difference and rank figures
TINY_CORE_EXPERIMENTS = {
    "tiny": {
        "paper_table": "hand-made test table",
        # and an optional data set that is neither built in nor in the mirror: skipped offline
        "datasets": ["breast_cancer", "digits",
                     {"name": "covtype_binary", "positive": "pu_extra_trees", "optional": True}],
        "settings": [{"mechanism": "scar_c", "c": 0.5}, {"mechanism": "sar", "k": 1, "min_std": 0.3, "id": "sar-k1"}],
        "split": {"test_size": 0.3, "val_size": 0.2},
        "methods": ["naive_lr", "elkan_noto_lr"],
        "repetitions": 3,
        "metrics": ["f1", "auc_roc"],
    },
}

#: the six approaches of Bekker's thesis chapter 5 (test_sar_workflow.py)
SAR_METHODS = {
    "supervised": {"method": "supervised", "base": "weighted_logistic_regression"},
    "sar_true_e": {"method": "propensity_weighted"},
    "scar_true_c": {"method": "label_frequency_weighted", "params": {"label_frequency": True}},
    "sar_em": {"method": "sar_em"},
    "scar_tice_c": {"method": "label_frequency_weighted", "params": {"label_frequency": "tice"}},
    "naive": {"method": "label_frequency_weighted", "params": {"label_frequency": 1.0}},
}

#: experiments that need no data mirror beyond the core: an experiment with a single
#: (data set, setting) cell, evaluated on the unlabeled rows; the SAR experiment with the
#: pooled thesis layout and a sweep against setting.k, class-prior experiments on the PULSNAR
#: recipes and a classifier that estimates its prior inside fit
TINY_EXPERIMENTS = {
    "tiny_snar": {
        "datasets": [{"name": "pulsnar_snar",
                      "params": {"frac": 0.2, "n_unlabeled": 1000, "n_labeled_per_subclass": 50}}],
        "settings": [{"mechanism": "snar_subclass", "n_labeled_per_group": 50}],
        "split": {"test_size": 0.0, "evaluate_on": "unlabeled"},
        "methods": ["naive_lr", "elkan_noto_lr"],
        "repetitions": 2,
        "metrics": ["auc_pr"],
    },
    # two random-attribute settings pooled in the per-data-set tables (Tables 5.2-5.3),
    # a correlated one left out of them; the sweep against k over the random ones
    "sar": {
        "datasets": [{"name": "breast_cancer", "scale": "minus1_1"}],
        # min_std 0.3: continuous attributes scaled to [-1, 1] rarely reach the thesis' 0.6
        "settings": [{"mechanism": "sar", "k": 1, "selection": "random", "min_std": 0.3},
                     {"mechanism": "sar", "k": 2, "selection": "random", "min_std": 0.3},
                     {"mechanism": "sar", "k": 2, "selection": "correlated", "min_std": 0.3}],
        "split": {"test_size": 0.2},
        "methods": list(SAR_METHODS),
        "repetitions": 3,
        "metrics": ["brier", "propensity_mse"],
        "report": {"per_dataset_layout": "pooled", "pool_where": {"selection": "random"}, "groupings": ["all"],
                   "sweeps": {"by_k": {"x": "setting.k", "metrics": ["brier"],
                                       "series": {"sar_true_e": "SAR", "naive": "Naive"},
                                       "where": {"selection": "random"},
                                       "x_label": "number of propensity attributes"}}},
    },
    "snar_alpha": {
        "paper_table": "Figure 3 (tiny)",
        "datasets": [{"name": "pulsnar_snar", "params": {"frac": f, "n_unlabeled": 800,
                                                          "n_labeled_per_subclass": 50}}
                     for f in (0.1, 0.3)],
        "settings": [{"mechanism": "snar_subclass", "n_labeled_per_group": 50}],
        "split": {"test_size": 0.0, "evaluate_on": "unlabeled"},
        "methods": ["pulscar", "pulsnar", "tice", "en"],
        "repetitions": 2,
        # one metric, one grouping: the tests read the estimates and one stats table
        "metrics": ["alpha_u_abs_error"],
        "report": {"groupings": ["all"]},
    },
    "clf": {
        "datasets": [{"name": "pulsnar_scar", "params": {"frac": 0.3, "n_unlabeled": 1500, "n_labeled": 500}}],
        "settings": [{"mechanism": "pulsnar_alpha", "alpha": 0.3}],
        "split": {"test_size": 0.3},
        "methods": ["pu_tree_tice"],
        "repetitions": 1,
        "metrics": ["accuracy"],
    },
}

#: experiments on the data mirror: PU ET on two mirror sets with a named target and an
#: optional download-only set, the TIcE label-frequency experiment, a flip-ratio run
MIRROR_EXPERIMENTS = {
    "pet": {
        "datasets": [{"name": "yeast6", "positive": "pu_hellinger"},
                     {"name": "thyroid_ann_uci", "positive": "pu_hellinger"},
                     {"name": "covtype_binary", "positive": "pu_extra_trees", "optional": True}],
        "settings": [{"mechanism": "case_control", "n_labeled": 20}],
        "split": {"predefined": "auto", "test_size": 0.3},
        "methods": ["pu_et", "naive_et", "sup_et"],
        "repetitions": 2,
        "metrics": ["accuracy", "f1", "train_pu_risk_01", "fit_seconds"],
        "report": {"scale": 100, "decimals": 1, "style": "paren"},
    },
    # in the config, never built (no target names it): a named target builds only its own
    "other": {
        "datasets": ["breast_cancer"],
        "settings": [{"mechanism": "scar_c", "c": 0.5}],
        "methods": ["naive_et"],
        "repetitions": 1,
    },
    "tice_c": {
        "datasets": [{"name": "breast_cancer_wisconsin_original", "positive": "bekker_tice"},
                     {"name": "breast_cancer_wisconsin_original", "positive": "bekker_tice_nu"}],
        "settings": [{"mechanism": "scar_c", "c": 0.3}, {"mechanism": "scar_c", "c": 0.7}],
        "split": {"test_size": 0.0, "evaluate_on": "unlabeled"},
        "methods": ["tice"],
        "repetitions": 2,
        "metrics": ["prior_abs_error", "ms_per_example"],
        "report": {"estimates": {"x": "c_true", "y": "prior_abs_error", "panel": "dataset", "x_decimals": 1}},
    },
    "flip": {
        "datasets": [{"name": "yeast6", "positive": "pu_hellinger"}],
        "settings": [{"mechanism": "scar_flip", "flip_ratio": 0.5}],
        "split": {"test_size": 0.3, "max_samples": 1000},
        "methods": ["naive_lr"],
        "repetitions": 2,
        "metrics": ["auc_pr"],
    },
}

#: the named target of the core part
TINY_CORE_TARGETS = ["tiny_core"]
#: the named targets of the rest; with the mirror also the paper configs' targets (the
#: PU Hellinger trees Tables 3, 4, A1-A7 and the Ada-PU Table 2 and Figure 3)
TINY_TARGETS = ["tiny_snar_tables", "sar_tables", "figure_2", "figure_3", "figure_3_1"]
TINY_MIRROR_TARGETS = ["table_a", "figure_b", "flip_tables", "pu_hellinger_table_3", "pu_hellinger_table_4",
                       "pu_hellinger_table_a1", "pu_hellinger_tables_a2_a4_a6", "pu_hellinger_tables_a3_a5_a7",
                       "ada_pu_table_2", "ada_pu_figure_3"]


def tiny_config(mirror: bool = HAS_MIRROR) -> dict:
    """The tiny run's config (the parts on the data mirror only with ``mirror``)."""
    import copy

    methods = {
        **LR_METHODS,
        **SAR_METHODS,
        "pulscar": {"method": "pulscar"},
        "pulsnar": {"method": "pulsnar", "params": {"max_clusters": 6}},
        "tice": {"method": "tice"},
        "en": {"method": "elkan_noto_prior", "base": "logistic_regression"},
        "pu_tree_tice": {"method": "pu_decision_tree", "params": {"prior": "tice", "max_depth": 4}},
    }
    experiments = {**TINY_CORE_EXPERIMENTS, **TINY_EXPERIMENTS}
    targets = {
        "tiny_core": {"experiments": list(TINY_CORE_EXPERIMENTS)},
        "tiny_snar_tables": {"experiments": ["tiny_snar"]},
        "sar_tables": {"experiments": ["sar"]},
        "figure_2": {"half_moons": True},
        "figure_3": {"experiments": ["snar_alpha"]},
        "figure_3_1": {"experiments": ["clf"]},
    }
    cfg = {
        "seed": 7,
        "cache_dir": ".cache/pu_lib",
        # one in-process worker per fit job: Snakemake runs two jobs side by side on 2 cores
        "dask": {"threads": 1, "mem_mb": 2000},
        "methods": methods,
        "experiments": experiments,
        "half_moons": {"n_samples": 1000},
        "targets": targets,
    }
    if mirror:
        cfg["data_mirror"] = str(SHARED_DATASETS)
        cfg["download"] = False
        methods.update({
            "pu_et": {"method": "pu_extra_trees", "params": {"n_estimators": 5, "prior": True}},
            "naive_et": {"method": "naive_pu_et", "params": {"n_estimators": 5}},
            "sup_et": {"method": "supervised_et", "params": {"n_estimators": 5}},
        })
        experiments.update(MIRROR_EXPERIMENTS)
        cfg["importance_maps"] = {"dataset": "mnist_5k_subset", "digits": [0, 1], "n_labeled": 50, "n_estimators": 3}
        targets["figure_3_1"] = {"experiments": ["tice_c", "clf"]}
        targets.update({
            "table_a": {"experiments": ["pet"], "metrics": ["accuracy", "f1"]},
            "figure_b": {"importance_maps": True},
            "flip_tables": {"experiments": ["flip"]},
        })
    return copy.deepcopy(cfg)


class SharedRun:
    """A working directory with the tiny run's config; :meth:`snakemake` runs the workflow
    there with the same config files every time (the paper configs with the mirror, then
    the tiny config), so that no run sees changed parameters. ``procs`` holds each
    invocation's CompletedProcess (output of the config checks, skip warnings)."""

    def __init__(self, wd: Path, config_dir: Path, mirror: bool = HAS_MIRROR):
        self.wd, self.mirror = Path(wd), mirror
        self.config = tiny_config(mirror)
        # The tiny config is given last on the command line, from a file outside the working
        # directory: the jobs' parameters name the config files (report captions), so a
        # copy of the directory (copy_to) sees the same parameters and nothing to rerun.
        # config/config.yaml (the Snakefile's configfile) holds the same.
        write_config(config_dir, self.config, sort_keys=False)  # sweep series keep their order
        write_config(self.wd, self.config, sort_keys=False)
        self.configfiles = [*(PAPER_CONFIGS if mirror else []), Path(config_dir) / "config" / "config.yaml"]
        self.procs = []

    def snakemake(self, *args, check: bool = True, workdir=None):
        """``snakemake *args`` in this run's directory (or in ``workdir``, e.g. a copy)."""
        return run_snakemake(workdir or self.wd, *args, "--configfile", *self.configfiles, check=check)

    def copy_to(self, dest) -> Path:
        """A copy of the working directory at ``dest`` (modification times kept, so that
        Snakemake sees the same state there): for tests that change or delete files."""
        shutil.copytree(self.wd, dest, symlinks=True)
        return Path(dest)

    @property
    def output(self) -> str:
        """stdout and stderr of every invocation so far."""
        return "".join(p.stdout + p.stderr for p in self.procs)


@pytest.fixture(scope="session")
def tiny_core(tmp_path_factory) -> SharedRun:
    """The core part of the tiny run (target ``tiny_core``: experiment ``tiny``, every
    table, test and figure of it), small enough for the fast tier. Read-only for tests."""
    run = SharedRun(tmp_path_factory.mktemp("tiny_run"), tmp_path_factory.mktemp("tiny_run_config"))
    run.procs.append(run.snakemake(*TINY_CORE_TARGETS, "--cores", "2"))
    return run


@pytest.fixture(scope="session")
def tiny_run(tiny_core) -> SharedRun:
    """The whole tiny run, in the same directory as :func:`tiny_core` and in one more
    invocation: the single-cell experiment ``tiny_snar``, the SAR experiment with its
    sweep, the class-prior experiments, the half-moons figure and, with the data mirror,
    PU ET with a named target and the importance maps, the TIcE experiment, a flip-ratio
    run, and the PU Hellinger trees and Ada-PU paper configs with their tiny variants.
    Read-only for tests."""
    targets = TINY_TARGETS + (TINY_MIRROR_TARGETS if tiny_core.mirror else [])
    tiny_core.procs.append(tiny_core.snakemake(*targets, "--cores", "2"))
    return tiny_core


@pytest.fixture
def tiny_run_output(tiny_run):
    """``(workdir, output)``: the shared tiny run's directory and the Snakemake output of
    its last invocation (the one that built the paper targets)."""
    last = tiny_run.procs[-1]
    return tiny_run.wd, last.stdout + last.stderr
