"""Rule `labels`: PU label sets for every repetition of one (dataset, setting)."""
import sys
from pathlib import Path

# Use this checkout's pu_lib (also inside a conda env that does not install it).
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1]))

from pu_lib._logging import log_to_file
from pu_lib.experiment import write_label_sets

log = log_to_file(snakemake.log[0])
spec = snakemake.params.spec
data = snakemake.input.data[0] if len(snakemake.input.data) else None
df = write_label_sets(spec, data, snakemake.output[0])
log.info("wrote %d label rows for %d repetitions to %s", len(df), spec["repetitions"], snakemake.output[0])
