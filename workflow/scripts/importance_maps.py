"""Rule `importance_maps`: PU ET and PN ET risk-reduction importance maps per MNIST digit."""
import numpy as np

from pu_lib._io import atomic_path
from pu_lib._logging import log_to_file
from pu_lib.datasets import load_canonical
from pu_lib.workflow.figures import save_figure
from pu_lib.trees.importance_maps import digit_importances, importance_figure

log = log_to_file(snakemake.log[0])
opts = snakemake.params.options
ds = load_canonical(snakemake.input[0])
train = np.ones(len(ds.target), bool)
if ds.meta is not None and "split" in ds.meta.columns:
    train = ds.meta["split"].astype(str).to_numpy() == "train"
X, digits = ds.X[train], np.asarray(ds.target)[train].astype(int)
log.info("importance maps on %d training images, digits %s", len(digits), opts["digits"])
imp = digit_importances(X, digits, positive_digits=opts["digits"], n_labeled=opts["n_labeled"],
                        n_estimators=opts["n_estimators"], random_state=snakemake.params.seed,
                        n_jobs=snakemake.threads)
with atomic_path(snakemake.output.npz) as tmp:
    with open(tmp, "wb") as fh:
        np.savez(fh, **{f"{k}_{key}": v for k, d in imp.items() for key, v in d.items()})
for kind, png, pdf in (("raw", snakemake.output.raw_png, snakemake.output.raw_pdf),
                       ("normalized", snakemake.output.norm_png, snakemake.output.norm_pdf)):
    save_figure(importance_figure(imp, kind), [png, pdf])
log.info("wrote %s", ", ".join(snakemake.output))
