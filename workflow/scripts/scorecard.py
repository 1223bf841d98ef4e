"""Rule `scorecard`: a paper target's cells beside the paper's published cells (md, csv, html)."""
from pu_lib._logging import log_to_file
from pu_lib.experiments.scorecard import scorecard_from_results, scorecard_counts, write_scorecard

log = log_to_file(snakemake.log[0])
target = snakemake.wildcards.target
config = {"scorecards": {target: snakemake.params.spec}, "scorecard_causes": snakemake.params.causes,
          "scorecard_reduced": snakemake.params.reduced, "scorecard_aliases": snakemake.params.aliases}
card, claims = scorecard_from_results(config, target, list(snakemake.input.aggregates))
write_scorecard(target, card, claims, {fmt: getattr(snakemake.output, fmt) for fmt in ("md", "csv", "html")},
                title=snakemake.params.config_files)
log.info("scorecard %s: %s", target, scorecard_counts(card))
