# Run 3, DeltaFS, as three rules: the client job writes per-rank stores (no servers); the
# parallel compactor shuffles them into one store per reader; read-only servers on the
# compacted stores answer the client job's lstats. Stores are kept, so that a change of
# the reader count reruns only the compaction and read phases. With storage: rados the
# `origin` and `compacted` outputs are local marker directories naming the RADOS stores,
# temporary (storage.smk): a later invocation that needs a store writes it again.

DELTAFS_RUN = "results/runs/deltafs/{backend}/c{ranks}-n{n}/rep{rep}"
DELTAFS_LOG = "results/logs/deltafs/{backend}/c{ranks}-n{n}/rep{rep}"
DELTAFS_BENCHMARK = "results/benchmarks/deltafs/{backend}/c{ranks}-n{n}/rep{rep}"


rule deltafs_write:
    input:
        tools="results/core/tools.json",
    output:
        result=f"{DELTAFS_RUN}/write.jsonl",
        origin=storage_output(f"{DELTAFS_RUN}/origin"),
    log:
        f"{DELTAFS_LOG}/write.log",
    benchmark:
        f"{DELTAFS_BENCHMARK}/write.tsv"
    threads: lambda wildcards: workflow.cores  # a measurement owns the machine: runs never overlap
    resources:
        **run_resources("ranks"),
    params:
        bin=tools_bin,
        work=lambda wc, output: os.path.dirname(output.result),
        store_settings=config["store_settings"],
    message:
        "Run 3 DeltaFS write: {wildcards.ranks} client ranks x {wildcards.n} files into their own stores, "
        "repetition {wildcards.rep}"
    shell:
        runs_command("deltafs-write") + " --ranks {wildcards.ranks} --n {wildcards.n} --origin {output.origin}"
        " --work {params.work} --out {output.result} --log {log}"


rule deltafs_compact:
    input:
        tools="results/core/tools.json",
        written=f"{DELTAFS_RUN}/write.jsonl",
        origin=f"{DELTAFS_RUN}/origin",
    output:
        result=f"{DELTAFS_RUN}/r{{readers}}/compact.jsonl",
        compacted=storage_output(f"{DELTAFS_RUN}/r{{readers}}/compacted"),
    log:
        f"{DELTAFS_LOG}/r{{readers}}/compact.log",
    benchmark:
        f"{DELTAFS_BENCHMARK}/r{{readers}}/compact.tsv"
    threads: lambda wildcards: workflow.cores  # a measurement owns the machine: runs never overlap
    resources:
        **run_resources("readers"),
    params:
        bin=tools_bin,
        work=lambda wc, output: os.path.dirname(output.result),
        store_settings=config["store_settings"],
    message:
        "Run 3 DeltaFS parallel compaction: {wildcards.readers} ranks over the stores of "
        "{wildcards.ranks} x {wildcards.n} files, repetition {wildcards.rep}"
    shell:
        runs_command("deltafs-compact")
        + " --servers {wildcards.readers} --origin {input.origin} --compacted {output.compacted}"
        " --work {params.work} --out {output.result} --log {log}"


rule deltafs_read:
    input:
        tools="results/core/tools.json",
        compact=f"{DELTAFS_RUN}/r{{readers}}/compact.jsonl",
        compacted=f"{DELTAFS_RUN}/r{{readers}}/compacted",
    output:
        result=f"{DELTAFS_RUN}/r{{readers}}/read.jsonl",
    log:
        f"{DELTAFS_LOG}/r{{readers}}/read.log",
    benchmark:
        f"{DELTAFS_BENCHMARK}/r{{readers}}/read.tsv"
    threads: lambda wildcards: workflow.cores  # a measurement owns the machine: runs never overlap
    resources:
        **run_resources("ranks", "readers"),
    params:
        bin=tools_bin,
        work=lambda wc, output: os.path.dirname(output.result),
        store_settings=config["store_settings"],
    message:
        "Run 3 DeltaFS read: {wildcards.ranks} client ranks lstat {wildcards.n} files each from "
        "{wildcards.readers} read-only servers, repetition {wildcards.rep}"
    shell:
        runs_command("deltafs-read") + " --ranks {wildcards.ranks} --servers {wildcards.readers} --n {wildcards.n}"
        " --compacted {input.compacted} --work {params.work} --out {output.result} --log {log}"
