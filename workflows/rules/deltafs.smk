# Run 3, DeltaFS, as three rules: the client job writes per-rank stores (no servers); the
# parallel compactor shuffles them into one store per reader; read-only servers on the
# compacted stores answer the client job's lstats. Stores are kept, so that a change of
# the reader count reruns only the compaction and read phases. With storage: rados the
# `origin` and `compacted` outputs are local marker directories naming the RADOS stores,
# temporary (storage.smk): a later invocation that needs a store writes it again.

DELTAFS_RUN = os.path.dirname(run_result("deltafs_write"))
DELTAFS_LOG = "results/logs/deltafs/{backend}/c{ranks}-n{n}/rep{rep}"
DELTAFS_FILES = " --work {params.work} --out {output.result} --log {log}"


rule deltafs_write:
    input:
        tools=TOOLS,
    output:
        result=run_result("deltafs_write"),
        origin=storage_output(f"{DELTAFS_RUN}/origin"),
    log:
        f"{DELTAFS_LOG}/write.log",
    benchmark:
        run_benchmark("deltafs_write")
    threads: every_core
    resources:
        **run_resources("ranks"),
    params:
        **RUN_PARAMS,
    message:
        run_title("deltafs") + " write: {wildcards.ranks} client ranks x {wildcards.n} files into their own stores, "
        "repetition {wildcards.rep}"
    shell:
        runs_command("deltafs_write")
        + " --ranks {wildcards.ranks} --n {wildcards.n} --origin {output.origin}"
        + DELTAFS_FILES


rule deltafs_compact:
    input:
        tools=TOOLS,
        written=run_result("deltafs_write"),
        origin=f"{DELTAFS_RUN}/origin",
    output:
        result=run_result("deltafs_compact"),
        compacted=storage_output(f"{DELTAFS_RUN}/r{{readers}}/compacted"),
    log:
        f"{DELTAFS_LOG}/r{{readers}}/compact.log",
    benchmark:
        run_benchmark("deltafs_compact")
    threads: every_core
    resources:
        **run_resources("readers"),
    params:
        **RUN_PARAMS,
    message:
        run_title("deltafs") + " parallel compaction: {wildcards.readers} ranks over the stores of "
        "{wildcards.ranks} x {wildcards.n} files, repetition {wildcards.rep}"
    shell:
        runs_command("deltafs_compact")
        + " --ranks {wildcards.ranks} --n {wildcards.n} --servers {wildcards.readers} --origin {input.origin}"
        + " --compacted {output.compacted}"
        + DELTAFS_FILES


rule deltafs_read:
    input:
        tools=TOOLS,
        compact=run_result("deltafs_compact"),
        compacted=f"{DELTAFS_RUN}/r{{readers}}/compacted",
    output:
        result=run_result("deltafs_read"),
    log:
        f"{DELTAFS_LOG}/r{{readers}}/read.log",
    benchmark:
        run_benchmark("deltafs_read")
    threads: every_core
    resources:
        **run_resources("ranks", "readers"),
    params:
        **RUN_PARAMS,
    message:
        run_title("deltafs") + " read: {wildcards.ranks} client ranks lstat {wildcards.n} files each from "
        "{wildcards.readers} read-only servers, repetition {wildcards.rep}"
    shell:
        runs_command("deltafs_read")
        + " --ranks {wildcards.ranks} --servers {wildcards.readers} --n {wildcards.n} --compacted {input.compacted}"
        + DELTAFS_FILES
