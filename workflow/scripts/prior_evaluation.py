"""Rules `calibration_curves` and `classification_with_prior`: PULSNAR Figures 6-13."""
import pandas as pd

from pu_lib._logging import log_to_file
from pu_lib.workflow.experiments.prior_report import write_evaluation_outputs

log = log_to_file(snakemake.log[0])
summary = write_evaluation_outputs(
    pd.read_parquet(snakemake.input[0]),
    experiment=snakemake.wildcards.experiment,
    options=dict(snakemake.params.options),
    outputs=dict(snakemake.output.items()),
)
log.info("%s", summary)
