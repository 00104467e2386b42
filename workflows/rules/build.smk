# The core's tools: built from core/ (build: source) or taken from an installed bin_dir.


rule build_core:
    input:
        sources=lambda wc: (
            sorted(
                os.path.join(dp, f)
                for sub in ("include", "src", "tools")
                for dp, _, fs in os.walk(os.path.join(REPO, "core", sub))
                for f in fs
            )
            + [os.path.join(REPO, "core", "CMakeLists.txt")]
            if config["core"]["build"] == "source"
            else []
        ),
    output:
        tools=TOOLS,
    log:
        "results/logs/build_core.log",
    benchmark:
        BUILD_BENCHMARK
    # make -j with every core it is given (without threads, Snakemake sets OMP_NUM_THREADS=1,
    # which makes nproc, and so the build, use one)
    threads: lambda wildcards: workflow.cores
    params:
        mode=config["core"]["build"],
        bin_dir=config["core"]["bin_dir"],
        repo=REPO,
    message:
        "Building the core ({params.mode})"
    script:
        "../scripts/build_core.py"
