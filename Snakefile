# pu_lib workflow: datasets -> PU label sets -> fit_eval (Dask) -> aggregate -> tables, stats, figures.
# Thin on purpose: all logic lives in pu_lib; rules live in workflow/rules/.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/labels.smk"
include: "workflow/rules/fit.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/targets.smk"


# Rules that take about a second each run on the submit host with a cluster executor
# (e.g. --profile config/profiles/slurm), never as cluster jobs: the label index files,
# the aggregate and everything drawn from it. `dataset` too, as compute nodes often have no
# internet for its downloads, and `user_dataset` (a user's table, read in seconds).
# fit_eval, importance_maps and half_moons are cluster jobs.
localrules:
    all,
    dataset,
    user_dataset,
    labels,
    aggregate,
    tables,
    stats,
    prior_estimates,
    curves,
    sweep,
    calibration_curves,
    classification_with_prior,


rule all:
    input:
        all_outputs(),
    default_target: True
