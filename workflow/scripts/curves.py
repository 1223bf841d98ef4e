"""Rule `curves`: test metric by boosting round (Ada-PU Figures 1-3 and 5)."""
import pandas as pd

from pu_lib._logging import log_to_file
from pu_lib.experiments.curves import write_curve_outputs

log = log_to_file(snakemake.log[0])
summary = write_curve_outputs(
    pd.read_parquet(snakemake.input[0]),
    experiment=snakemake.wildcards.experiment,
    metric=snakemake.wildcards.metric,
    methods=list(snakemake.params.methods),
    outputs=dict(snakemake.output.items()),
)
log.info("last round per method:\n%s", summary)
