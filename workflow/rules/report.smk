rule aggregate:
    """All result rows of an experiment in one Parquet."""
    input:
        fit_files,
    output:
        "results/aggregate/{experiment}.parquet",
    log:
        "logs/aggregate/{experiment}.log",
    benchmark:
        "results/benchmarks/aggregate/{experiment}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/aggregate.py"


rule tables:
    """Paper-layout table of one metric: methods x (dataset / setting), mean ± sd."""
    input:
        "results/aggregate/{experiment}.parquet",
    output:
        md="results/tables/{experiment}.{metric}.md",
        csv="results/tables/{experiment}.{metric}.csv",
    log:
        "logs/tables/{experiment}.{metric}.log",
    benchmark:
        "results/benchmarks/tables/{experiment}.{metric}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/tables.py"
