# CephFS's MDS, the production baseline beside the paper's three designs (not one of its
# runs): one rule per run, one client job whose ranks create their files in one shared
# directory of the CephFS through the MDS and lstat them back, every lstat verified
# (core/bench/runs.py cephfs). It needs storage: rados (common.smk refuses it otherwise):
# its MDS runs in the stores' cluster, the throw-away one then started with --cephfs. Also
# the report's "Against a production service" table of CephFS's measured ratios to IndexFS
# and DeltaFS (rule production_table, when systems lists cephfs: common.smk's
# production_outputs).


rule cephfs:
    input:
        tools=TOOLS,
    output:
        result=run_result("cephfs"),
    log:
        "results/logs/cephfs/{backend}/c{ranks}-n{n}/rep{rep}.log",
    benchmark:
        run_benchmark("cephfs")
    threads: every_core
    resources:
        **run_resources("ranks"),
    params:
        **RUN_PARAMS,
    message:
        run_title("cephfs") + ": {wildcards.ranks} client ranks x {wildcards.n} files, repetition {wildcards.rep}"
    shell:
        runs_command("cephfs")
        + " --ranks {wildcards.ranks} --n {wildcards.n} --work {params.work} --out {output} --log {log}"


rule production_table:
    input:
        f"{OUT}/summary.csv",
    output:
        report(f"{OUT}/production.md", caption="../report/production_table.rst", category="Results"),
    log:
        f"{OUT}/logs/production_table.log",
    message:
        "Writing CephFS's ratios to IndexFS and DeltaFS into {output}"
    script:
        "../scripts/production_table.py"
