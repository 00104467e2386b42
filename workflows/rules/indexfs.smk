# Runs 1 and 2: IndexFS and IndexFS with bulk insertion. One rule per run: it starts the
# servers, waits until they are ready, runs the client job (insert, then lstat), and always
# stops the servers (core/bench/runs.py).


rule indexfs:
    input:
        tools="results/core/tools.json",
    output:
        "results/runs/indexfs/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}/phases.jsonl",
    log:
        "results/logs/indexfs/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}.log",
    benchmark:
        "results/benchmarks/indexfs/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}.tsv"
    threads: lambda wildcards: workflow.cores  # a measurement owns the machine: runs never overlap
    resources:
        **run_resources("ranks", "servers"),
    params:
        bin=tools_bin,
        work=lambda wc, output: os.path.dirname(output[0]),
        store_settings=config["store_settings"],
    message:
        "Run 1 IndexFS: {wildcards.ranks} client ranks x {wildcards.n} files, {wildcards.servers} servers, "
        "repetition {wildcards.rep}"
    shell:
        runs_command("indexfs") + " --ranks {wildcards.ranks} --servers {wildcards.servers} --n {wildcards.n}"
        " --work {params.work} --out {output} --log {log}"


rule indexfs_bulk:
    input:
        tools="results/core/tools.json",
    output:
        "results/runs/indexfs-bulk/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}/phases.jsonl",
    log:
        "results/logs/indexfs-bulk/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}.log",
    benchmark:
        "results/benchmarks/indexfs-bulk/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}.tsv"
    threads: lambda wildcards: workflow.cores  # a measurement owns the machine: runs never overlap
    resources:
        **run_resources("ranks", "servers"),
    params:
        bin=tools_bin,
        work=lambda wc, output: os.path.dirname(output[0]),
        store_settings=config["store_settings"],
    message:
        "Run 2 IndexFS + bulk insertion: {wildcards.ranks} client ranks x {wildcards.n} files, "
        "{wildcards.servers} servers, repetition {wildcards.rep}"
    shell:
        runs_command("indexfs-bulk") + " --ranks {wildcards.ranks} --servers {wildcards.servers} --n {wildcards.n}"
        " --work {params.work} --out {output} --log {log}"
