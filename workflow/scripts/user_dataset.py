"""Rule `user_dataset`: the canonical Parquet of a user's own table (config user_datasets)."""
from pu_lib._logging import log_to_file
from pu_lib.datasets.user import canonical_key, prepare_user_dataset
from pu_lib.workflow.experiments.config import user_specs

log = log_to_file(snakemake.log[0])
name, sha = snakemake.wildcards.name, snakemake.wildcards.sha
spec = user_specs(snakemake.config)[name]
if canonical_key(spec) != sha:
    raise ValueError(f"user dataset {name!r}: {spec['file']} changed while the workflow ran "
                     f"(sha256 {spec['sha256']}, the job was made for {sha}...); run again")
# the reading options (missing-value policy, coerce_numeric, keep_columns); what they did
# (rows dropped, cells imputed, columns left out) is logged by pu_lib.datasets.user
log.info("preparing %s from %s (sha256 %s, reading options %s)", name, spec["file"], spec["sha256"],
         spec.get("read") or "the defaults (missing: refuse)")
log.info("wrote %s", prepare_user_dataset(spec, snakemake.output[0]))
