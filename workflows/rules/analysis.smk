# From run results to conclusions: validation of every run, the summary table, provenance,
# the figures, a results table and the paper's claims checked, all in results/<name>/ (OUT).


rule validate:
    input:
        all_run_results(),
    output:
        f"{OUT}/validation.json",
    log:
        f"{OUT}/logs/validate.log",
    params:
        files_per_rank=N,
        min_hosts=config["mpi"].get("min_hosts", 1),
    message:
        "Validating every run (files per rank: {params.files_per_rank}): op counts and zero errors"
    script:
        "../scripts/validate.py"


rule aggregate:
    input:
        runs=all_run_results(),
        validation=f"{OUT}/validation.json",
    output:
        report(f"{OUT}/summary.csv", caption="../report/summary.rst", category="Results"),
    log:
        f"{OUT}/logs/aggregate.log",
    params:
        files=lambda wc, input: len(input.runs),
    message:
        "Aggregating {params.files} run result files into {output}"
    script:
        "../scripts/aggregate.py"


rule provenance:
    input:
        tools=TOOLS,
        original=[ORIGINAL_TOOLS] if "original" in IMPLS else [],
        validation=f"{OUT}/validation.json",
        runs=all_run_results(),
        mdworkbench=mdworkbench_results(),
    output:
        f"{OUT}/provenance.json",
    log:
        f"{OUT}/logs/provenance.log",
    params:
        config=config,
        repo=REPO,
        storage=storage_provenance(),
        preflight=PREFLIGHT_FILE,
    message:
        "Recording provenance: configuration, revision, versions, host"
    script:
        "../scripts/provenance.py"


rule figures:
    input:
        f"{OUT}/summary.csv",
    output:
        **{
            f"{figure}_{ext}": (
                report(
                    f"{OUT}/figures/{figure}.{ext}",
                    caption=f"../report/{figure}.rst",
                    category="Figures",
                    labels={"figure": figure.replace("_", " ")},
                )
                if ext == "png"
                else f"{OUT}/figures/{figure}.{ext}"
            )
            for figure in FIGURES
            for ext in ("pdf", "png")
        },
    log:
        f"{OUT}/logs/figures.log",
    message:
        f"Drawing the figures into {OUT}/figures/"
    script:
        "../scripts/figures.py"


rule results_table:
    input:
        f"{OUT}/summary.csv",
    output:
        report(f"{OUT}/results-table.md", caption="../report/results_table.rst", category="Results"),
    log:
        f"{OUT}/logs/results_table.log",
    message:
        "Writing the results table {output}"
    script:
        "../scripts/results_table.py"


rule claims:
    input:
        summary=f"{OUT}/summary.csv",
        claims=CLAIMS_FILE,
    output:
        json=f"{OUT}/claims.json",
        table=report(f"{OUT}/claims.md", caption="../report/claims.rst", category="Results"),
    log:
        f"{OUT}/logs/claims.log",
    params:
        systems=config["systems"],
    message:
        "Checking the paper's claims of {input.claims} on {input.summary}"
    script:
        "../scripts/claims.py"


# The report's front page: the description, every claim's verdict and the environment
# (workflows/claims/front_page.py). The Snakefile's report: takes it once it exists.
rule front_page:
    input:
        claims=f"{OUT}/claims.json",
        summary=f"{OUT}/summary.csv",
        description=DESCRIPTION,
    output:
        FRONT_PAGE,
    log:
        f"{OUT}/logs/front_page.log",
    message:
        f"Writing the report's front page, the claims' verdicts and the environment, into {FRONT_PAGE}"
    script:
        "../scripts/front_page.py"


rule claims_figure:
    input:
        f"{OUT}/claims.json",
    output:
        pdf=f"{OUT}/figures/claims.pdf",
        png=report(
            f"{OUT}/figures/claims.png",
            caption="../report/claims_figure.rst",
            category="Figures",
            labels={"figure": "claims"},
        ),
    log:
        f"{OUT}/logs/claims_figure.log",
    message:
        f"Drawing every claim's measured ratio into {OUT}/figures/claims.png"
    script:
        "../scripts/claims_figure.py"


rule fidelity:
    input:
        summary=f"{OUT}/summary.csv",
        claims=f"{OUT}/claims.json",
        claims_file=CLAIMS_FILE,
    output:
        csv=f"{OUT}/fidelity.csv",
        table=report(f"{OUT}/fidelity.md", caption="../report/fidelity.rst", category="Results"),
        pdf=f"{OUT}/figures/fidelity.pdf",
        png=report(
            f"{OUT}/figures/fidelity.png",
            caption="../report/fidelity_figure.rst",
            category="Figures",
            labels={"figure": "fidelity"},
        ),
    log:
        f"{OUT}/logs/fidelity.log",
    message:
        "Comparing our core with the authors' original prototype into {output.table}"
    script:
        "../scripts/fidelity.py"


rule artifact_appendix:
    input:
        source=APPENDIX_SOURCE,
        build=BUILD_BENCHMARK,
        benchmarks=all_run_benchmarks() + mdworkbench_results("benchmark"),
        claims=f"{OUT}/claims.md",
        provenance=f"{OUT}/provenance.json",
    output:
        report(f"{OUT}/artifact-appendix.md", caption="../report/artifact_appendix.rst", category="Results"),
    log:
        f"{OUT}/logs/artifact_appendix.log",
    params:
        name=config["name"],
        steps=run_steps(),
    message:
        "Writing the artifact appendix with this run's step times and claims into {output}"
    script:
        "../scripts/artifact_appendix.py"
