# From run results to conclusions: validation of every run, the summary table, provenance,
# the paper's figures and a results table.


rule validate:
    input:
        all_run_results(),
    output:
        "results/validation.json",
    params:
        files_per_rank=N,
        min_hosts=config["mpi"].get("min_hosts", 1),
    log:
        "results/logs/validate.log",
    message:
        "Validating {params.files_per_rank} files per rank in every run: op counts and zero errors"
    script:
        "../scripts/validate_runs.py"


rule aggregate:
    input:
        runs=all_run_results(),
        validation="results/validation.json",
    output:
        report("results/summary.csv", caption="../report/summary.rst", category="Results"),
    log:
        "results/logs/aggregate.log",
    message:
        "Aggregating {params.files} run result files into results/summary.csv"
    params:
        files=lambda wc, input: len(input.runs),
    script:
        "../scripts/aggregate.py"


rule provenance:
    input:
        tools="results/core/tools.json",
        validation="results/validation.json",
        runs=all_run_results(),
    output:
        "results/provenance.json",
    params:
        config=config,
        repo=REPO,
        storage=storage_provenance(),
    log:
        "results/logs/provenance.log",
    message:
        "Recording provenance: configuration, revision, versions, host"
    script:
        "../scripts/provenance.py"


rule figures:
    input:
        "results/summary.csv",
    output:
        **{
            f"{figure}_{ext}": report(
                f"paper/figures/{figure}.{ext}",
                caption=f"../report/{figure}.rst",
                category="Figures",
                labels={"figure": figure.replace("_", " ")},
            )
            if ext == "png"
            else f"paper/figures/{figure}.{ext}"
            for figure in FIGURES
            for ext in ("pdf", "png")
        },
    log:
        "results/logs/figures.log",
    message:
        "Drawing the figures into paper/figures/"
    script:
        "../scripts/plot_figures.py"


rule results_table:
    input:
        "results/summary.csv",
    output:
        "paper/results-table.md",
    log:
        "results/logs/results_table.log",
    message:
        "Writing the results table paper/results-table.md"
    script:
        "../scripts/results_table.py"
