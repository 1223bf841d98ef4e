rule dataset:
    """Canonical, fingerprint-verified Parquet of a dataset (mirror, built-in or download)."""
    output:
        "results/data/{name}.parquet",
    params:
        # only data sets with a mirror file read the mirror: the others' jobs do not depend on
        # (and are not rerun for) its location
        data_mirror=lambda wc: config["data_mirror"] if get_spec(wc.name).get("mirror_file") else None,
        cache_dir=config["cache_dir"],
        download=config["download"],
    log:
        "logs/dataset/{name}.log",
    benchmark:
        "results/benchmarks/dataset/{name}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/dataset.py"
