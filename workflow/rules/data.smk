rule dataset:
    """Canonical, fingerprint-verified Parquet of a dataset (mirror, built-in or download)."""
    output:
        "results/data/{name}.parquet",
    params:
        data_mirror=config["data_mirror"],
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
