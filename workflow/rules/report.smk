rule aggregate:
    """All result rows of an experiment in one Parquet; fails naming a fit file that is
    unreadable or does not hold the cell it is named for. update(): a failing job keeps
    the previous aggregate (Snakemake restores it) and a failure marker with a new
    identifier: last_failure changes, so the next run aggregates again until one succeeds
    (pu_lib.workflow.experiments.results). Read-only while the workflow is planned."""
    input:
        fit_files,
    output:
        update("results/aggregate/{experiment}.parquet"),
    params:
        repetitions=lambda wc: GRID.experiments[wc.experiment]["exp"]["repetitions"],
        last_failure=lambda wc: last_failure(f"results/aggregate/{wc.experiment}.parquet"),
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
    best cell bold and underlined); per_setting: the layout of PU Hellinger trees Tables A2-A7."""
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


rule prior_estimates:
    """Class-prior experiments: estimate vs truth per method (mean and 95% t interval over
    repetitions, clipped to [0, 1]; the values themselves below 3 repetitions), PULSNAR
    Figures 3-5 and Bekker thesis Figures 3.1-3.2."""
    input:
        "results/aggregate/{experiment}.parquet",
    output:
        png=report(
            "results/figures/prior_estimates_{experiment}.png",
            caption="../report/prior_estimates.rst",
            category="{experiment}",
            subcategory="prior estimates",
            labels={"kind": "figure", "content": "estimates vs truth"},
        ),
        pdf="results/figures/prior_estimates_{experiment}.pdf",
        md="results/tables/{experiment}.prior_estimates.md",
        csv="results/tables/{experiment}.prior_estimates.csv",
    params:
        options=lambda wc: dict(GRID.experiments[wc.experiment]["exp"]["report"]["estimates"],
                                methods=GRID.experiments[wc.experiment]["exp"]["methods"]),
        description=report_params["description"],
        code_hash=rule_code_hash("prior_report"),
    log:
        "logs/prior_estimates/{experiment}.log",
    benchmark:
        "results/benchmarks/prior_estimates/{experiment}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/prior_estimates.py"


rule curves:
    """Boosting methods: test metric by round, mean and sd over repetitions (Ada-PU
    Figures 1-3 and 5)."""
    input:
        "results/aggregate/{experiment}.parquet",
    output:
        png=report(
            "results/figures/curves_{experiment}.{metric}.png",
            caption="../report/curves.rst",
            category="{experiment}",
            subcategory="curves",
            labels={"kind": "figure", "content": "{metric} by boosting round"},
        ),
        pdf="results/figures/curves_{experiment}.{metric}.pdf",
        csv="results/tables/{experiment}.curves_{metric}.csv",
    params:
        methods=_exp_field("methods"),
        code_hash=rule_code_hash("curves"),
    log:
        "logs/curves/{experiment}.{metric}.log",
    benchmark:
        "results/benchmarks/curves/{experiment}.{metric}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/curves.py"


rule sweep:
    """One metric against a parameter of the label setting or of the method (config
    report.sweeps), one series per method or method group, one panel per data set: mean and
    95% t interval over the pooled repetitions (Bekker thesis Figures 5.4-5.10)."""
    input:
        "results/aggregate/{experiment}.parquet",
    output:
        png=report(
            "results/figures/sweep_{experiment}.{sweep}.{metric}.png",
            caption="../report/sweep.rst",
            category="{experiment}",
            subcategory="sweeps",
            labels={"kind": "figure", "sweep": "{sweep}", "metric": "{metric}"},
        ),
        pdf="results/figures/sweep_{experiment}.{sweep}.{metric}.pdf",
        md="results/tables/{experiment}.sweep_{sweep}.{metric}.md",
        csv="results/tables/{experiment}.sweep_{sweep}.{metric}.csv",
    params:
        options=lambda wc: dict(
            GRID.experiments[wc.experiment]["exp"]["report"]["sweeps"][wc.sweep],
            decimals=GRID.experiments[wc.experiment]["exp"]["report"]["decimals"],
            methods=GRID.experiments[wc.experiment]["exp"]["methods"],
            settings=list(GRID.experiments[wc.experiment]["settings"]),
        ),
        code_hash=rule_code_hash("sweep"),
    log:
        "logs/sweep/{experiment}.{sweep}.{metric}.log",
    benchmark:
        "results/benchmarks/sweep/{experiment}.{sweep}.{metric}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/sweep.py"


rule calibration_curves:
    """PULSCAR / PULSNAR calibrated probabilities (PULSNAR Algorithm 4): calibration curves
    before and after, on 'PU' and 'U' data (Figures 6-11)."""
    input:
        "results/aggregate/{experiment}.parquet",
    output:
        calibration_png=report(
            "results/figures/calibration_{experiment}.png",
            caption="../report/calibration.rst",
            category="{experiment}",
            subcategory="calibration",
            labels={"kind": "figure", "content": "calibration curves"},
        ),
        calibration_pdf="results/figures/calibration_{experiment}.pdf",
    params:
        options=lambda wc: dict(GRID.experiments[wc.experiment]["exp"]["report"]["estimates"],
                                methods=GRID.experiments[wc.experiment]["exp"]["methods"]),
        code_hash=rule_code_hash("prior_report"),
    log:
        "logs/calibration_curves/{experiment}.log",
    benchmark:
        "results/benchmarks/calibration_curves/{experiment}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/prior_evaluation.py"


rule classification_with_prior:
    """Classification with and without PULSCAR / PULSNAR (PULSNAR Algorithm 5): six metrics
    against the true alpha (Figures 12-13)."""
    input:
        "results/aggregate/{experiment}.parquet",
    output:
        classification_png=report(
            "results/figures/classification_{experiment}.png",
            caption="../report/classification.rst",
            category="{experiment}",
            subcategory="classification",
            labels={"kind": "figure", "content": "classification with and without alpha"},
        ),
        classification_pdf="results/figures/classification_{experiment}.pdf",
        classification_md="results/tables/{experiment}.classification.md",
        classification_csv="results/tables/{experiment}.classification.csv",
    params:
        options=lambda wc: dict(GRID.experiments[wc.experiment]["exp"]["report"]["estimates"],
                                methods=GRID.experiments[wc.experiment]["exp"]["methods"]),
        code_hash=rule_code_hash("prior_report"),
    log:
        "logs/classification_with_prior/{experiment}.log",
    benchmark:
        "results/benchmarks/classification_with_prior/{experiment}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/prior_evaluation.py"


rule scorecard:
    """A paper target's scorecard (config scorecards): each published cell of the paper
    beside ours (mean, sd, runs, protocol), the difference, within tolerance or not, and the
    documented cause; the counts and the paper's claims with their verdicts."""
    input:
        aggregates=lambda wc: scorecard_aggregates(wc.target),
        published=lambda wc: scorecard_published(wc.target),
    output:
        md="results/scorecards/{target}.md",
        csv="results/scorecards/{target}.csv",
        html=report(
            "results/scorecards/{target}.html",
            caption="../report/scorecard.rst",
            category="scorecards",
            subcategory="{target}",
            labels={"kind": "scorecard", "target": "{target}"},
        ),
    params:
        spec=lambda wc: config["scorecards"][wc.target],
        causes=config["scorecard_causes"],
        reduced=config["scorecard_reduced"],
        aliases=config["scorecard_aliases"],
        config_files=report_params["config_files"],
        code_hash=rule_code_hash("scorecard"),
    log:
        "logs/scorecard/{target}.log",
    benchmark:
        "results/benchmarks/scorecard/{target}.tsv"
    conda:
        "../../envs/pu_lib.yaml"
    script:
        "../scripts/scorecard.py"
