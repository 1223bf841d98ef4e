"""Rule `fit_eval`: repetitions of one (dataset, setting, method) as Dask tasks."""
import sys
from pathlib import Path

# Use this checkout's pu_lib (also inside a conda env that does not install it).
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1]))

from pu_lib._io import write_parquet_atomic
from pu_lib._logging import log_to_file
from pu_lib.distributed import dask_client
from pu_lib.experiment import fit_eval

log = log_to_file(snakemake.log[0])
spec = snakemake.params.spec
data = snakemake.input.data[0] if len(snakemake.input.data) else None
with dask_client(
    threads=snakemake.threads,
    mem_mb=snakemake.resources.mem_mb,
    scheduler_address=snakemake.params.scheduler_address,
    processes=snakemake.params.processes,
) as client:
    log.info("dask client: %s", client)
    df = fit_eval(spec, data, snakemake.input.labels, client=client)
write_parquet_atomic(df, snakemake.output[0])
log.info("wrote %d result rows to %s", len(df), snakemake.output[0])
