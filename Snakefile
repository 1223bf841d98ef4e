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


rule all:
    input:
        all_outputs(),
    default_target: True
