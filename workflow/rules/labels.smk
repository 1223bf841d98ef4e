rule labels:
    """PU label sets (row indices, split, y, s, true propensity) for every repetition."""
    input:
        data=dataset_file,
    output:
        "results/labels/{experiment}/{dataset}/{setting}.parquet",
    params:
        spec=lambda wc: GRID.label_spec(wc.experiment, wc.dataset, wc.setting),
        code_hash=rule_code_hash("labels"),
    log:
        "logs/labels/{experiment}/{dataset}/{setting}.log",
    benchmark:
        "results/benchmarks/labels/{experiment}/{dataset}/{setting}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/labels.py"
