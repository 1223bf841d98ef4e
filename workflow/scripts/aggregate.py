"""Rule `aggregate`: one Parquet of all result rows of an experiment."""
import sys
from pathlib import Path

# Use this checkout's pu_lib (also inside a conda env that does not install it).
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1]))

from pu_lib._logging import log_to_file
from pu_lib.experiment import aggregate

log = log_to_file(snakemake.log[0])
df = aggregate(snakemake.input, snakemake.output[0])
log.info("aggregated %d rows from %d files", len(df), len(snakemake.input))
