"""Rule `dataset`: write the canonical, fingerprint-verified Parquet of one dataset."""
from pu_lib._logging import log_to_file
from pu_lib.datasets import prepare_dataset

log = log_to_file(snakemake.log[0])
p = snakemake.params
log.info("preparing %s (mirror=%s, cache=%s, download=%s)", snakemake.wildcards.name, p.data_mirror, p.cache_dir, p.download)
path = prepare_dataset(
    snakemake.wildcards.name,
    snakemake.output[0],
    data_mirror=p.data_mirror,
    cache_dir=p.cache_dir,
    download=p.download,
)
log.info("wrote %s", path)
