"""Rule `tables`: Markdown and CSV table of one metric for one experiment."""
import sys
from pathlib import Path

# Use this checkout's pu_lib (also inside a conda env that does not install it).
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1]))

import pandas as pd

from pu_lib._logging import log_to_file
from pu_lib.reporting import write_tables

log = log_to_file(snakemake.log[0])
metric = snakemake.wildcards.metric
df = pd.read_parquet(snakemake.input[0])
write_tables(
    df, [metric], {metric: snakemake.output.md}, {metric: snakemake.output.csv},
    title_prefix=f"{snakemake.wildcards.experiment}: ",
)
log.info("wrote %s and %s", snakemake.output.md, snakemake.output.csv)
