"""Rule `curves`: test metric by boosting round or training epoch (Ada-PU Figures 1-3 and 5)."""
import pandas as pd

from pu_lib._logging import log_to_file
from pu_lib.workflow.experiments.curves import write_curve_outputs, x_label

log = log_to_file(snakemake.log[0])
summary = write_curve_outputs(
    pd.read_parquet(snakemake.input[0]),
    experiment=snakemake.wildcards.experiment,
    metric=snakemake.wildcards.metric,
    methods=list(snakemake.params.methods),
    outputs=dict(snakemake.output.items()),
    xlabel=x_label([snakemake.config["methods"][m]["method"] for m in snakemake.params.methods]),
)
log.info("last round per method:\n%s", summary)
