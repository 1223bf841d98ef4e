"""Rule `sweep`: one metric against a setting or method parameter (Bekker thesis Figures 5.4-5.10)."""
import pandas as pd

from pu_lib._logging import log_to_file
from pu_lib.workflow.experiments.sweep import write_sweep_outputs

log = log_to_file(snakemake.log[0])
summary = write_sweep_outputs(
    pd.read_parquet(snakemake.input[0]),
    experiment=snakemake.wildcards.experiment,
    sweep=snakemake.wildcards.sweep,
    metric=snakemake.wildcards.metric,
    options=dict(snakemake.params.options),
    outputs=dict(snakemake.output.items()),
)
log.info("%s", summary)
