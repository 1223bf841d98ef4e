"""Rule `half_moons`: the PU Hellinger trees paper's Figure 2 (CART, HDT, PU-HDT)."""
from pu_lib._io import write_text_atomic
from pu_lib._logging import log_to_file
from pu_lib.workflow.experiments.half_moons import half_moons
from pu_lib.workflow.figures import save_figure

log = log_to_file(snakemake.log[0])
fig, summary = half_moons(snakemake.params.options, snakemake.params.seed)
save_figure(fig, [snakemake.output.png, snakemake.output.pdf])
write_text_atomic(summary.to_csv(index=False), snakemake.output.summary)
log.info("half-moons summary:\n%s", summary.to_string(index=False))
