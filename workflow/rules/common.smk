import os

# Config validation (before any job) and the grid derived from it.
from snakemake.exceptions import WorkflowError
from snakemake.logging import logger

try:
    from pu_lib.workflow.experiments.code_hash import rule_code_hash
    from pu_lib.workflow.experiments.results import last_failure
    from pu_lib.workflow.experiments.config import Cell, ConfigError, Grid, validate_config
    from pu_lib.datasets import get_spec
except ImportError as exc:
    raise WorkflowError(
        f"pu_lib is not importable ({exc}); install it from this checkout: python -m pip install -e \".[workflow]\""
    ) from None

try:
    _validated = validate_config(config, workflow.source_path("../schemas/config.schema.yaml"))
except ConfigError as exc:
    raise WorkflowError(str(exc)) from None
config.clear()
config.update(_validated)
try:
    GRID = Grid(config)
except ConfigError as exc:  # e.g. a data_mirror directory that does not exist
    raise WorkflowError(str(exc)) from None
# Offline, optional datasets that are neither in the mirror nor prepared are dropped.
for _msg in GRID.skip_messages():
    logger.warning(_msg)


wildcard_constraints:
    experiment=r"[A-Za-z0-9_+-]+",
    dataset=r"[A-Za-z0-9_.+-]+",
    setting=r"[A-Za-z0-9_.+-]+",
    method=r"[A-Za-z0-9_+-]+",
    metric=r"[a-z0-9_]+",
    grouping=r"setting|all",
    name=r"[A-Za-z0-9_+-]+",
    sweep=r"[A-Za-z0-9_]+",
    target=r"[A-Za-z_][A-Za-z0-9_]*",


def dataset_file(wildcards):
    """Canonical Parquet of a cell's dataset, or nothing for synthetic datasets."""
    entry = GRID.dataset_entry(wildcards.experiment, wildcards.dataset)
    if "user" in entry:  # a user's own table: its canonical file is named by the content hash
        return [GRID.user_canonical(entry["name"])]
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


def experiment_outputs(exp, metrics=None):
    """Tables, tests and figures of one experiment (all its metrics unless given)."""
    out = []
    if GRID.is_prior_experiment(exp):
        out += [f"results/figures/prior_estimates_{exp}.{ext}" for ext in ("png", "pdf")]
        out += [f"results/tables/{exp}.prior_estimates.{ext}" for ext in ("md", "csv")]
        kinds = GRID.prior_evaluation_kinds(exp)
        if "calibration" in kinds:
            out += [f"results/figures/calibration_{exp}.{ext}" for ext in ("png", "pdf")]
        if "classification" in kinds:
            out += [f"results/figures/classification_{exp}.{ext}" for ext in ("png", "pdf")]
            out += [f"results/tables/{exp}.classification.{ext}" for ext in ("md", "csv")]
    for metric in GRID.staged_metrics(exp):
        out += [f"results/figures/curves_{exp}.{metric}.{ext}" for ext in ("png", "pdf")]
        out.append(f"results/tables/{exp}.curves_{metric}.csv")
    out += sweep_outputs(exp, GRID.experiments[exp]["exp"]["report"].get("sweeps") or {})
    for metric in metrics or GRID.metrics(exp):
        for ext in ("md", "tex", "csv", "html"):
            out.append(f"results/tables/{exp}.{metric}.per_dataset.{ext}")
        for grouping in GRID.groupings(exp):
            stem = f"{exp}.{metric}.{grouping}"
            out.append(f"results/stats/{stem}.json")
            for ext in ("md", "tex", "csv", "html"):
                out.append(f"results/tables/{stem}.{ext}")
            for fig in ("cd", "ranks"):
                for ext in ("png", "pdf"):
                    out.append(f"results/figures/{fig}_{stem}.{ext}")
    return out


IMPORTANCE_MAPS = [
    f"results/figures/importance_maps_{kind}.{ext}"
    for kind in ("raw", "normalized")
    for ext in ("png", "pdf")
] + ["results/importance_maps/importances.npz"]
HALF_MOONS = [f"results/figures/half_moons.{ext}" for ext in ("png", "pdf")] + ["results/half_moons/summary.csv"]


def sweep_outputs(exp, sweeps, metrics=None):
    """The figures and tables of the named sweeps of one experiment (only ``metrics``, if given)."""
    out = []
    for sweep in sweeps:
        spec = (GRID.experiments[exp]["exp"]["report"].get("sweeps") or {}).get(sweep)
        if spec is None:
            continue
        for metric in spec["metrics"]:
            if metrics and metric not in metrics:
                continue
            out += [f"results/figures/sweep_{exp}.{sweep}.{metric}.{ext}" for ext in ("png", "pdf")]
            out += [f"results/tables/{exp}.sweep_{sweep}.{metric}.{ext}" for ext in ("md", "csv")]
    return out


def target_outputs(name):
    """Inputs of a named target (config `targets`): experiments skipped offline are left out;
    with `sweeps`, only those sweep figures and tables."""
    t = config["targets"][name]
    out = []
    for exp in t["experiments"]:
        if exp in GRID.experiments and t.get("sweeps"):
            out.extend(sweep_outputs(exp, t["sweeps"], t.get("metrics")))
        elif exp in GRID.experiments:
            out.append(f"results/aggregate/{exp}.parquet")
            out.extend(experiment_outputs(exp, t.get("metrics")))
    if t["importance_maps"]:
        out.extend(IMPORTANCE_MAPS)
    if t["half_moons"]:
        out.extend(HALF_MOONS)
    if name in config["scorecards"]:
        out += [f"results/scorecards/{name}.{ext}" for ext in ("md", "csv", "html")]
    return out


def scorecard_published(target):
    """The published-cells file of a scored target: relative to the working directory, or
    else to the checkout (the paper configs name config/papers/<paper>.published.csv, and a
    run may have another working directory)."""
    path = config["scorecards"][target]["published"]
    if os.path.isabs(path) or os.path.exists(path):
        return path
    return os.path.join(workflow.basedir, path)


def scorecard_aggregates(target):
    """The aggregates of a scored target's experiments that this run has (experiments
    skipped offline are left out: their cells say "not run")."""
    return [f"results/aggregate/{exp}.parquet" for exp in config["targets"][target]["experiments"]
            if exp in GRID.experiments]


def all_outputs():
    """Every cell's result file (so deleting one reruns that job and its downstream),
    every experiment's aggregate, tables, tests and figures, and the importance maps and
    the half-moons figure when configured."""
    out = []
    for exp in GRID.experiments:
        out.extend(cell_files(exp))
        out.append(f"results/aggregate/{exp}.parquet")
        out.extend(experiment_outputs(exp))
    if config["importance_maps"]:
        out.extend(IMPORTANCE_MAPS)
    if config["half_moons"]:
        out.extend(HALF_MOONS)
    return out


def _exp_field(name):
    return lambda wildcards: GRID.experiments[wildcards.experiment]["exp"][name]


# Parameters of the tables and stats rules; the report captions read them too.
report_params = dict(
    options=lambda wildcards: GRID.report_options(wildcards.experiment),
    methods=_exp_field("methods"),
    datasets=lambda wildcards: list(GRID.experiments[wildcards.experiment]["datasets"]),
    settings=lambda wildcards: list(GRID.experiments[wildcards.experiment]["settings"]),
    paper=_exp_field("paper"),
    paper_table=_exp_field("paper_table"),
    description=lambda wildcards: " ".join(GRID.experiments[wildcards.experiment]["exp"]["description"].split()),
    config_hash=lambda wildcards: GRID.experiment_hash(wildcards.experiment),
    config_files=", ".join(str(f) for f in workflow.configfiles) or "(none)",
    code_hash=rule_code_hash("report"),
)

