"""A data_mirror directory that does not exist is reported when the config is read,
before any job runs."""

import pytest

from conftest import run_snakemake, write_config

pytestmark = pytest.mark.workflow


def test_missing_mirror_directory_fails_before_any_job(tmp_path):
    cfg = {
        "seed": 1,
        "data_mirror": "../no_such_mirror/datasets",
        "download": False,
        "dask": {"threads": 1, "mem_mb": 1000},
        "methods": {"naive_lr": {"method": "naive", "base": "logistic_regression"}},
        "experiments": {"flip": {"datasets": ["breast_cancer", {"name": "yeast6", "positive": "pu_hellinger"}],
                                 "settings": [{"mechanism": "scar_flip", "flip_ratio": 0.5}],
                                 "methods": ["naive_lr"], "repetitions": 1, "metrics": ["auc_pr"]}},
    }
    write_config(tmp_path, cfg)
    proc = run_snakemake(tmp_path, "--cores", "1", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "data_mirror: the directory '../no_such_mirror/datasets'" in out, out
    assert "does not exist, and dataset(s) yeast6 (experiments.flip) need it" in out, out
    # before any job: no job ran, nothing was written
    assert not (tmp_path / "results").exists() and not (tmp_path / "logs").exists()
