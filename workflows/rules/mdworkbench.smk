# The MD-Workbench workload (config key `mdworkbench`), a run of its own beside the three
# designs: precreate, benchmark iterations of stat/read/delete/create with a rank offset,
# cleanup, on each configured interface (registry.py MDWB_INTERFACES): a POSIX directory,
# the IndexFS service (objects' data inline with their metadata), and what DeltaFS serves
# (precreate through its write path and compaction, then stat and read on the read-only
# servers). One rule runs it (core/bench/runs.py mdworkbench); the others validate every
# run, tabulate the per-op latency quantiles and draw them, into results/<name>/mdworkbench/.
# Its runs and outputs are listed in common.smk.
rule mdworkbench:
    input:
        tools=TOOLS,
    output:
        result=MDWORKBENCH.path,
    log:
        MDWB_LOG,
    benchmark:
        MDWORKBENCH.benchmark
    threads: every_core
    resources:
        **run_resources("ranks", "servers"),
    params:
        **RUN_PARAMS,
        wear_out=lambda wildcards: " --wear-out" if wildcards.wearout == "1" else "",
    message:
        "MD-Workbench on the {wildcards.interface} interface: {wildcards.ranks} ranks x {wildcards.dsets} data sets"
        " x {wildcards.precreate} objects of {wildcards.size} bytes, {wildcards.iterations} iterations of"
        " {wildcards.objects} objects per set, repetition {wildcards.rep}"
    shell:
        runs_command("mdworkbench")
        + " --interface {wildcards.interface} --ranks {wildcards.ranks} --servers {wildcards.servers}"
        " --data-sets {wildcards.dsets} --precreate {wildcards.precreate} --objects {wildcards.objects}"
        " --object-size {wildcards.size} --iterations {wildcards.iterations} --offset {wildcards.offset}"
        " --stonewall {wildcards.stonewall}{params.wear_out}"
        " --process-reports --work {params.work} --out {output.result} --log {log}"


rule mdworkbench_validate:
    input:
        mdworkbench_results(),
    output:
        f"{MDWB_OUT}/validation.json",
    log:
        f"{MDWB_OUT}/logs/validate.log",
    message:
        "Validating every MD-Workbench run: phases, object and op counts, verification errors"
    script:
        "../scripts/mdworkbench_validate.py"


rule mdworkbench_summary:
    input:
        runs=mdworkbench_results(),
        validation=f"{MDWB_OUT}/validation.json",
    output:
        csv=report(f"{MDWB_OUT}/summary.csv", caption="../report/mdworkbench_summary.rst", category="MD-Workbench"),
        table=report(f"{MDWB_OUT}/table.md", caption="../report/mdworkbench_table.rst", category="MD-Workbench"),
    log:
        f"{MDWB_OUT}/logs/summary.log",
    message:
        "Tabulating MD-Workbench's rates and per-op latency quantiles into {output.table}"
    script:
        "../scripts/mdworkbench_summary.py"


rule mdworkbench_figure:
    input:
        f"{MDWB_OUT}/summary.csv",
    output:
        pdf=f"{OUT}/figures/mdworkbench_latency.pdf",
        png=report(
            f"{OUT}/figures/mdworkbench_latency.png",
            caption="../report/mdworkbench_latency.rst",
            category="Figures",
            labels={"figure": "MD-Workbench latency"},
        ),
    log:
        f"{MDWB_OUT}/logs/figure.log",
    message:
        "Drawing MD-Workbench's latency quantiles per op type and interface into {output.png}"
    script:
        "../scripts/mdworkbench_figure.py"
