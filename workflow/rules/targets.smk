# One named target per paper table or figure (config `targets`), e.g.
#   snakemake --cores 2 --configfile config/papers/pu_extra_trees.yaml pu_et_tables_2_3
for _target in config["targets"]:

    rule:
        name:
            _target
        input:
            target_outputs(_target),
