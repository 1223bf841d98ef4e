"""Rule `labels`: PU label sets for every repetition of one (dataset, setting)."""
from pu_lib._logging import log_to_file
from pu_lib.workflow.experiments.runner import write_label_sets

log = log_to_file(snakemake.log[0])
spec = snakemake.params.spec
data = snakemake.input.data[0] if len(snakemake.input.data) else None
df = write_label_sets(spec, data, snakemake.output[0])
log.info("wrote %d label rows for %d repetitions to %s", len(df), spec["repetitions"], snakemake.output[0])
