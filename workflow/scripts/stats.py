"""Rule `stats`: Demšar tests, the significance-marked summary table and the figures of
one (experiment, metric, grouping)."""
import warnings


import pandas as pd

from pu_lib._logging import log_to_file
from pu_lib.workflow.reporting import write_stats_outputs

log = log_to_file(snakemake.log[0])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    summary = write_stats_outputs(
        pd.read_parquet(snakemake.input[0]),
        experiment=snakemake.wildcards.experiment,
        metric=snakemake.wildcards.metric,
        grouping=snakemake.wildcards.grouping,
        options=snakemake.params.options,
        methods=snakemake.params.methods,
        datasets=snakemake.params.datasets,
        settings=snakemake.params.settings,
        outputs=dict(snakemake.output.items()),
        provenance={
            "config_hash": snakemake.params.config_hash,
            "config_files": snakemake.params.config_files,
            "paper": snakemake.params.paper,
            "paper_table": snakemake.params.paper_table,
        },
    )
for w in caught:
    log.warning("%s", w.message)
log.info("%s", summary)
