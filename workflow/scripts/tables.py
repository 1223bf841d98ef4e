"""Rule `tables`: per-data-set tables of one metric (Markdown, LaTeX, CSV, HTML)."""
import pandas as pd

from pu_lib._logging import log_to_file
from pu_lib.workflow.reporting import dataset_tables, write_table_files

log = log_to_file(snakemake.log[0])
opts = snakemake.params.options
experiment, metric = snakemake.wildcards.experiment, snakemake.wildcards.metric
df = pd.read_parquet(snakemake.input[0])
tables = dataset_tables(
    df, metric, opts["per_dataset_layout"], pool_where=opts.get("pool_where"), decimals=opts["decimals"], scale=opts["scale"], style=opts["style"],
    methods=snakemake.params.methods, datasets=snakemake.params.datasets,
    settings=snakemake.params.settings, title_prefix=f"{experiment}: ",
    table_labels=(opts.get("table_labels") or {}).get(metric),
)
out = {fmt: getattr(snakemake.output, fmt) for fmt in ("md", "tex", "csv", "html")}
write_table_files(tables, out, html_title=f"{experiment}: {metric} per data set")
log.info("wrote %d per-data-set tables to %s", len(tables), ", ".join(out.values()))
