# Config validation (before any job) and the grid derived from it.
import sys

# This checkout's pu_lib first, whether or not it is installed.
sys.path.insert(0, workflow.basedir)

from snakemake.exceptions import WorkflowError

from pu_lib.config import Cell, ConfigError, Grid, validate_config

try:
    _validated = validate_config(config, workflow.source_path("../schemas/config.schema.yaml"))
except ConfigError as exc:
    raise WorkflowError(str(exc)) from None
config.clear()
config.update(_validated)
GRID = Grid(config)


wildcard_constraints:
    experiment=r"[A-Za-z0-9_+-]+",
    dataset=r"[A-Za-z0-9_.+-]+",
    setting=r"[A-Za-z0-9_.+-]+",
    method=r"[A-Za-z0-9_+-]+",
    metric=r"[a-z0-9_]+",
    name=r"[A-Za-z0-9_+-]+",


def dataset_file(wildcards):
    """Canonical Parquet of a cell's dataset, or nothing for synthetic datasets."""
    entry = GRID.dataset_entry(wildcards.experiment, wildcards.dataset)
    if entry["name"] in GRID.file_datasets():
        return [f"results/data/{entry['name']}.parquet"]
    return []


def cell_files(experiment):
    return [
        f"results/fits/{c.experiment}/{c.dataset}/{c.setting}/{c.method}.parquet"
        for c in GRID.cells(experiment)
    ]


def fit_files(wildcards):
    return cell_files(wildcards.experiment)


def all_outputs():
    """Every cell's result file (so deleting one reruns that job and its downstream),
    every experiment's aggregate, and every table."""
    out = []
    for exp in GRID.experiments:
        out.extend(cell_files(exp))
        out.append(f"results/aggregate/{exp}.parquet")
        for metric in GRID.metrics(exp):
            out.append(f"results/tables/{exp}.{metric}.md")
            out.append(f"results/tables/{exp}.{metric}.csv")
    return out
