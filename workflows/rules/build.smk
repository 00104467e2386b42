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


# The original DeltaFS prototype (the authors' deltafs-proto v2021.5), when config key
# `implementations` lists it: built from original.source with the seed guide's CMake flags,
# its checksum verified first, or taken from an installed original.bin_dir.
rule build_original:
    output:
        tools=ORIGINAL_TOOLS,
    log:
        "results/logs/build_original.log",
    benchmark:
        "results/benchmarks/build_original.tsv"
    threads: lambda wildcards: workflow.cores
    params:
        mode=config["original"]["build"],
        source=config["original"]["source"],
        sha256=config["original"]["sha256"],
        bin_dir=config["original"]["bin_dir"],
        repo=REPO,
    message:
        "Building the original DeltaFS prototype ({params.mode}; BSD-3-Clause, its LICENSE.txt)"
    script:
        "../scripts/build_original.py"
