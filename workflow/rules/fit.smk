rule fit_eval:
    """Fit and score one method on one (dataset, label setting): repetitions run as Dask tasks
    (in the job's process when it has one thread and no scheduler address)."""
    input:
        data=dataset_file,
        labels="results/labels/{experiment}/{dataset}/{setting}.parquet",
    output:
        "results/fits/{experiment}/{dataset}/{setting}/{method}.parquet",
    params:
        spec=lambda wc: GRID.fit_spec(Cell(wc.experiment, wc.dataset, wc.setting, wc.method)),
        # the pu_lib sources this method's fits run (pu_lib.workflow.experiments.code_hash)
        code_hash=lambda wc: GRID.fit_code_hash(Cell(wc.experiment, wc.dataset, wc.setting, wc.method)),
        scheduler_address=config["dask"]["scheduler_address"],
        processes=config["dask"]["processes"],
    threads: config["dask"]["threads"]
    resources:
        mem_mb=config["dask"]["mem_mb"],
    log:
        "logs/fit_eval/{experiment}/{dataset}/{setting}/{method}.log",
    benchmark:
        "results/benchmarks/fit_eval/{experiment}/{dataset}/{setting}/{method}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/fit_eval.py"
