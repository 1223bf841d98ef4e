"""Rule `aggregate`: one Parquet of all result rows of an experiment.

Each fit file must hold the cell it is named for (experiment, dataset, setting, method)
with the repetitions 0..R-1; otherwise the job fails naming the file
(:mod:`pu_lib.workflow.experiments.results`), in the log and on the console (the process'
original standard error: log_to_file sends tracebacks to the log only). The output is
flagged ``update()``: a failing job keeps the previous aggregate, and leaves a marker with
a new identifier (the rule's ``last_failure`` parameter) so that the next run aggregates
again.
"""
import sys

from pu_lib._logging import log_to_file
from pu_lib.workflow.experiments.results import aggregate, clear_failed, mark_failed

log = log_to_file(snakemake.log[0])
out = snakemake.output[0]
try:
    df = aggregate(snakemake.input, out, repetitions=getattr(snakemake.params, "repetitions", None))
except Exception as exc:
    message = f"{type(exc).__name__}: {exc}"
    mark_failed(out, message)
    log.error("%s", message)
    if sys.__stderr__ is not None:
        print(f"rule aggregate, {out}: {message}", file=sys.__stderr__, flush=True)
    raise
clear_failed(out)
log.info("aggregated %d rows from %d files", len(df), len(snakemake.input))
