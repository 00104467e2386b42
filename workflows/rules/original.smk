# The three designs on the original DeltaFS prototype (the authors' deltafs-proto v2021.5):
# the same runs as indexfs.smk and deltafs.smk, at the same coordinates, with the seed
# guide's command lines (core/bench/original_runs.py), their results in
# results/runs/original/ (workflows/registry.py; the shared pieces are in runs.smk). Its
# stores are local or, with storage: rados, in pool `test` of the runs' cluster, its DeltaFS
# origin and compacted outputs then temporary markers as ours are (storage.smk); its compactor
# and read-only servers run with as many ranks as wrote (common.smk, expand_run).
ORIGINAL_LOG = "results/logs/original"
ORIGINAL_DELTAFS_RUN = os.path.dirname(run_result("original_deltafs_write"))
ORIGINAL_WRITE_OPTIONS = (
    " --ranks {wildcards.ranks} --n {wildcards.n} --origin {output.origin}"
    " --work {params.work} --out {output.result} --log {log}"
)
ORIGINAL_COMPACT_OPTIONS = (
    " --ranks {wildcards.ranks} --n {wildcards.n} --servers {wildcards.readers} --origin {input.origin}"
    " --compacted {output.compacted} --work {params.work} --out {output.result} --log {log}"
)
ORIGINAL_READ_OPTIONS = (
    " --ranks {wildcards.ranks} --servers {wildcards.readers} --n {wildcards.n} --compacted {input.compacted}"
    " --work {params.work} --out {output.result} --log {log}"
)
ORIGINAL_WRITE_MESSAGE = " write: {wildcards.ranks} client ranks x {wildcards.n} files, repetition {wildcards.rep}"
ORIGINAL_COMPACT_MESSAGE = " parallel compaction: {wildcards.readers} ranks, repetition {wildcards.rep}"
ORIGINAL_READ_MESSAGE = (
    " read: {wildcards.ranks} client ranks lstat from {wildcards.readers} read-only servers, repetition {wildcards.rep}"
)


rule original_indexfs:
    input:
        **ORIGINAL_CORE,
        tools=ORIGINAL_TOOLS,
    output:
        result=run_result("original_indexfs"),
    log:
        f"{ORIGINAL_LOG}/indexfs/{{backend}}/c{{ranks}}-s{{servers}}-n{{n}}/rep{{rep}}.log",
    benchmark:
        run_benchmark("original_indexfs")
    threads: every_core
    resources:
        **run_resources("ranks", "servers"),
    params:
        **ORIGINAL_PARAMS,
    message:
        original_title("indexfs") + INDEXFS_MESSAGE
    shell:
        original_command("original_indexfs") + INDEXFS_OPTIONS


rule original_indexfs_bulk:
    input:
        **ORIGINAL_CORE,
        tools=ORIGINAL_TOOLS,
    output:
        result=run_result("original_indexfs_bulk"),
    log:
        f"{ORIGINAL_LOG}/indexfs-bulk/{{backend}}/c{{ranks}}-s{{servers}}-n{{n}}/rep{{rep}}.log",
    benchmark:
        run_benchmark("original_indexfs_bulk")
    threads: every_core
    resources:
        **run_resources("ranks", "servers"),
    params:
        **ORIGINAL_PARAMS,
    message:
        original_title("indexfs-bulk") + INDEXFS_MESSAGE
    shell:
        original_command("original_indexfs_bulk") + INDEXFS_OPTIONS


rule original_deltafs_write:
    input:
        **ORIGINAL_CORE,
        tools=ORIGINAL_TOOLS,
    output:
        result=run_result("original_deltafs_write"),
        origin=storage_output(f"{ORIGINAL_DELTAFS_RUN}/origin"),
    log:
        f"{ORIGINAL_LOG}/deltafs/{{backend}}/c{{ranks}}-n{{n}}/rep{{rep}}/write.log",
    benchmark:
        run_benchmark("original_deltafs_write")
    threads: every_core
    resources:
        **run_resources("ranks"),
    params:
        **ORIGINAL_PARAMS,
    message:
        original_title("deltafs") + ORIGINAL_WRITE_MESSAGE
    shell:
        original_command("original_deltafs_write") + ORIGINAL_WRITE_OPTIONS


rule original_deltafs_compact:
    input:
        **ORIGINAL_CORE,
        tools=ORIGINAL_TOOLS,
        written=run_result("original_deltafs_write"),
        origin=f"{ORIGINAL_DELTAFS_RUN}/origin",
    output:
        result=run_result("original_deltafs_compact"),
        compacted=storage_output(f"{ORIGINAL_DELTAFS_RUN}/r{{readers}}/compacted"),
    log:
        f"{ORIGINAL_LOG}/deltafs/{{backend}}/c{{ranks}}-n{{n}}/rep{{rep}}/r{{readers}}/compact.log",
    benchmark:
        run_benchmark("original_deltafs_compact")
    threads: every_core
    resources:
        **run_resources("readers"),
    params:
        **ORIGINAL_PARAMS,
    message:
        original_title("deltafs") + ORIGINAL_COMPACT_MESSAGE
    shell:
        original_command("original_deltafs_compact") + ORIGINAL_COMPACT_OPTIONS


rule original_deltafs_read:
    input:
        **ORIGINAL_CORE,
        tools=ORIGINAL_TOOLS,
        compact=run_result("original_deltafs_compact"),
        compacted=f"{ORIGINAL_DELTAFS_RUN}/r{{readers}}/compacted",
    output:
        result=run_result("original_deltafs_read"),
    log:
        f"{ORIGINAL_LOG}/deltafs/{{backend}}/c{{ranks}}-n{{n}}/rep{{rep}}/r{{readers}}/read.log",
    benchmark:
        run_benchmark("original_deltafs_read")
    threads: every_core
    resources:
        **run_resources("ranks", "readers"),
    params:
        **ORIGINAL_PARAMS,
    message:
        original_title("deltafs") + ORIGINAL_READ_MESSAGE
    shell:
        original_command("original_deltafs_read") + ORIGINAL_READ_OPTIONS
