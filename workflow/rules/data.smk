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


rule user_dataset:
    """Canonical Parquet of a user's own table (config user_datasets): the file is the
    input (a newer file reruns the job) and its SHA-256 names the output (a file with new
    content is a new job, whatever its modification time)."""
    input:
        lambda wc: GRID.user_specs[wc.name]["file"],
    output:
        "results/data/user/{name}-{sha}.parquet",
    wildcard_constraints:
        sha=r"[0-9a-f]{16}",
    log:
        "logs/user_dataset/{name}-{sha}.log",
    benchmark:
        "results/benchmarks/user_dataset/{name}-{sha}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/user_dataset.py"
