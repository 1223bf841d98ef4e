"""Rule `scorecard`: a paper target's cells beside the paper's published cells (md, csv, html)."""
import os

from pu_lib._logging import log_to_file
from pu_lib.workflow.experiments.scorecard import scorecard_from_results, scorecard_counts, write_scorecard

log = log_to_file(snakemake.log[0])
target = snakemake.wildcards.target
spec = dict(snakemake.params.spec, published=str(snakemake.input.published))  # as the rule resolved it
config = {"scorecards": {target: spec}, "scorecard_causes": snakemake.params.causes,
          "scorecard_reduced": snakemake.params.reduced, "scorecard_aliases": snakemake.params.aliases}
card, claims = scorecard_from_results(config, target, list(snakemake.input.aggregates))
# the config files as given on the command line, relative to the working directory where they lie under it
title = ", ".join(os.path.relpath(f) if os.path.abspath(f).startswith(os.getcwd() + os.sep) else f
                  for f in snakemake.params.config_files.split(", "))
write_scorecard(target, card, claims, {fmt: getattr(snakemake.output, fmt) for fmt in ("md", "csv", "html")},
                title=title)
log.info("scorecard %s: %s", target, scorecard_counts(card))
