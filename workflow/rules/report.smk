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
    """Per-data-set tables of one metric (methods x settings, mean ± sd over repetitions,
    best cell bold and underlined), the layout of PU Hellinger trees Tables A2-A7."""
    input:
        "results/aggregate/{experiment}.parquet",
    output:
        md="results/tables/{experiment}.{metric}.per_dataset.md",
        tex="results/tables/{experiment}.{metric}.per_dataset.tex",
        csv="results/tables/{experiment}.{metric}.per_dataset.csv",
        html=report(
            "results/tables/{experiment}.{metric}.per_dataset.html",
            caption="../report/table_per_dataset.rst",
            category="{experiment}",
            subcategory="{metric}",
            labels={"kind": "table", "grouping": "per data set", "metric": "{metric}"},
        ),
    params:
        **report_params,
    log:
        "logs/tables/{experiment}.{metric}.log",
    benchmark:
        "results/benchmarks/tables/{experiment}.{metric}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/tables.py"


rule stats:
    """Friedman / Iman-Davenport and Holm tests of one metric under one grouping; the
    significance-marked summary table (PU Hellinger trees Tables 3-4 layout), the
    critical-difference diagram and the rank plot."""
    input:
        "results/aggregate/{experiment}.parquet",
    output:
        json="results/stats/{experiment}.{metric}.{grouping}.json",
        md="results/tables/{experiment}.{metric}.{grouping}.md",
        tex="results/tables/{experiment}.{metric}.{grouping}.tex",
        csv="results/tables/{experiment}.{metric}.{grouping}.csv",
        html=report(
            "results/tables/{experiment}.{metric}.{grouping}.html",
            caption="../report/table_summary.rst",
            category="{experiment}",
            subcategory="{metric}",
            labels={"kind": "table", "grouping": "{grouping}", "metric": "{metric}"},
        ),
        cd_png=report(
            "results/figures/cd_{experiment}.{metric}.{grouping}.png",
            caption="../report/cd.rst",
            category="{experiment}",
            subcategory="{metric}",
            labels={"kind": "critical difference", "grouping": "{grouping}", "metric": "{metric}"},
        ),
        cd_pdf="results/figures/cd_{experiment}.{metric}.{grouping}.pdf",
        ranks_png=report(
            "results/figures/ranks_{experiment}.{metric}.{grouping}.png",
            caption="../report/ranks.rst",
            category="{experiment}",
            subcategory="{metric}",
            labels={"kind": "ranks", "grouping": "{grouping}", "metric": "{metric}"},
        ),
        ranks_pdf="results/figures/ranks_{experiment}.{metric}.{grouping}.pdf",
    params:
        **report_params,
    log:
        "logs/stats/{experiment}.{metric}.{grouping}.log",
    benchmark:
        "results/benchmarks/stats/{experiment}.{metric}.{grouping}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/stats.py"
