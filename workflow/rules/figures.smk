rule importance_maps:
    """PU Extra Trees paper Figures 2-4: risk-reduction importance maps of PU ET (nnPU,
    quadratic) and PN ET (Gini) per MNIST digit, raw and normalised."""
    input:
        lambda wildcards: f"results/data/{config['importance_maps']['dataset']}.parquet",
    output:
        raw_png=report(
            "results/figures/importance_maps_raw.png",
            caption="../report/importance_maps.rst",
            category="importance maps",
        ),
        raw_pdf="results/figures/importance_maps_raw.pdf",
        norm_png=report(
            "results/figures/importance_maps_normalized.png",
            caption="../report/importance_maps.rst",
            category="importance maps",
        ),
        norm_pdf="results/figures/importance_maps_normalized.pdf",
        npz="results/importance_maps/importances.npz",
    params:
        options=lambda wildcards: config["importance_maps"],
        seed=config["seed"],
        config_files=", ".join(str(f) for f in workflow.configfiles) or "(none)",
        code_hash=rule_code_hash("importance_maps"),
    threads: config["dask"]["threads"]
    resources:
        mem_mb=config["dask"]["mem_mb"],
    log:
        "logs/importance_maps/importance_maps.log",
    benchmark:
        "results/benchmarks/importance_maps/importance_maps.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/importance_maps.py"


rule half_moons:
    """PU Hellinger trees paper Figure 2: decision regions of CART, HDT and PU-HDT on
    class-imbalanced half-moons, and a summary of how many hidden positives each finds."""
    output:
        png=report(
            "results/figures/half_moons.png",
            caption="../report/half_moons.rst",
            category="half-moons",
        ),
        pdf="results/figures/half_moons.pdf",
        summary="results/half_moons/summary.csv",
    params:
        options=lambda wildcards: config["half_moons"],
        seed=config["seed"],
        code_hash=rule_code_hash("half_moons"),
    log:
        "logs/half_moons/half_moons.log",
    benchmark:
        "results/benchmarks/half_moons/half_moons.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/half_moons.py"
