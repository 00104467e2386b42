# Runs 1 and 2: IndexFS and IndexFS with bulk insertion. One rule per run: it starts the
# servers, waits until they are ready, runs the client job (insert, then lstat), and always
# stops the servers (core/bench/runs.py). Both rules share all but their system.
INDEXFS_OPTIONS = (
    " --ranks {wildcards.ranks} --servers {wildcards.servers} --n {wildcards.n}"
    " --work {params.work} --out {output} --log {log}"
)
INDEXFS_MESSAGE = (
    ": {wildcards.ranks} client ranks x {wildcards.n} files, {wildcards.servers} servers, repetition {wildcards.rep}"
)


rule indexfs:
    input:
        tools=TOOLS,
    output:
        result=run_result("indexfs"),
    log:
        "results/logs/indexfs/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}.log",
    benchmark:
        run_benchmark("indexfs")
    threads: every_core
    resources:
        **run_resources("ranks", "servers"),
    params:
        **RUN_PARAMS,
    message:
        run_title("indexfs") + INDEXFS_MESSAGE
    shell:
        runs_command("indexfs") + INDEXFS_OPTIONS


rule indexfs_bulk:
    input:
        tools=TOOLS,
    output:
        result=run_result("indexfs_bulk"),
    log:
        "results/logs/indexfs-bulk/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}.log",
    benchmark:
        run_benchmark("indexfs_bulk")
    threads: every_core
    resources:
        **run_resources("ranks", "servers"),
    params:
        **RUN_PARAMS,
    message:
        run_title("indexfs-bulk") + INDEXFS_MESSAGE
    shell:
        runs_command("indexfs_bulk") + INDEXFS_OPTIONS
