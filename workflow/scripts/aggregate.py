"""Rule `aggregate`: one Parquet of all result rows of an experiment."""
from pu_lib._logging import log_to_file
from pu_lib.experiments.runner import aggregate

log = log_to_file(snakemake.log[0])
df = aggregate(snakemake.input, snakemake.output[0])
log.info("aggregated %d rows from %d files", len(df), len(snakemake.input))
