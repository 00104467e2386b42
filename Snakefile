# The deltameta workflow: builds the core, runs the three metadata designs over the
# configured matrix, validates every run, aggregates the results, checks the paper's claims
# (paper/claims.yaml) and draws the figures, into results/<name>/ (config key `name`).
# After `source .venv/bin/activate` (scripts/setup-python.sh makes .venv):
#   snakemake --cores all                                  (default: results/default/)
#   snakemake --cores all --configfile config/profiles/smoke.yaml   (results/smoke/)
#   snakemake --cores all --configfile config/profiles/rados.yaml   (stores in Ceph RADOS)
#   snakemake --report results/default/report.html         (after a run; same --configfile)
import os
import warnings

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version, validate

from workflows.config_errors import schema_error

min_version("9.0")

# Planning remote (Slurm) jobs, Snakemake 9 evaluates its default resources' input.size_mb
# inside its own event loop, gives up on it until the job runs, and leaves a coroutine it
# never awaits: a "RuntimeWarning: coroutine ... was never awaited" per job that is noise
# (the value is computed when the job is submitted), silenced here, and only this one.
warnings.filterwarnings("ignore", r"coroutine 'InputFiles\._predicated_size_files", RuntimeWarning)

# The workflow's Python is the package workflows/ in this folder. Snakemake puts this folder
# on sys.path for the Snakefile and its rules; the rules' scripts and the programs the
# workflow starts (workflows/bin/) find the package through PYTHONPATH, set here once, and
# with it what they share with the core's benchmarks (core/bench/repetitions.py), which
# they import by the name the benchmarks do.
BENCH = os.path.join(workflow.basedir, "core", "bench")
os.environ.update(PYTHONPATH=os.pathsep.join(filter(None, [workflow.basedir, BENCH, os.environ.get("PYTHONPATH")])))


configfile: os.path.join(workflow.basedir, "config", "config.yaml")


# A value the schema rejects stops the workflow with one line: the key, and what it takes.
try:
    validate(config, "config/schema.yaml")
except WorkflowError as e:
    raise schema_error(e, os.path.join(workflow.basedir, "config", "schema.yaml")) from None


include: "workflows/rules/common.smk"
include: "workflows/rules/storage.smk"
include: "workflows/rules/preflight.smk"
include: "workflows/rules/runs.smk"
include: "workflows/rules/build.smk"
include: "workflows/rules/indexfs.smk"
include: "workflows/rules/deltafs.smk"
include: "workflows/rules/cephfs.smk"
include: "workflows/rules/original.smk"
include: "workflows/rules/analysis.smk"
include: "workflows/rules/scale.smk"
include: "workflows/rules/floor.smk"
include: "workflows/rules/mdworkbench.smk"
include: "workflows/rules/projection.smk"


# The report's front page: the claims' verdicts and the environment once a run wrote them
# (rule front_page), the workflow's description before.
report: report_front_page()


# scripts/run-all.sh and the image's entry point write the report next to the results:
# DELTAMETA_OUT_FILE names a file that receives this configuration's folder, results/<name>.
OUT_FILE = os.environ.get("DELTAMETA_OUT_FILE")
if OUT_FILE:
    with open(OUT_FILE, "w") as f:
        f.write(f"{OUT}\n")


# First the pre-flight (workflows/rules/preflight.smk): the machine and its file systems,
# checked against the claims' conditions. With storage: rados, the throw-away cluster lives
# from before the first job to after the last, and markers of stores that are gone are
# removed (workflows/launch/rados_stores.py).
onstart:
    preflight_or_stop()
    if RADOS_STORES:
        RADOS_STORES.before_first_job()


onsuccess:
    if RADOS_STORES:
        RADOS_STORES.after_last_job()


onerror:
    if RADOS_STORES:
        RADOS_STORES.after_last_job()


rule all:
    default_target: True
    input:
        f"{OUT}/validation.json",
        f"{OUT}/summary.csv",
        f"{OUT}/provenance.json",
        f"{OUT}/results-table.md",
        f"{OUT}/claims.json",
        f"{OUT}/claims.md",
        FRONT_PAGE,
        f"{OUT}/artifact-appendix.md",
        f"{OUT}/floor.csv",
        f"{OUT}/floor.md",
        expand(
            "{out}/figures/{figure}.{ext}", out=OUT, figure=FIGURES + ["claims", "storage_floor"], ext=["pdf", "png"]
        ),
        expand("{out}/figures/scale_throughput.{ext}", out=OUT, ext=["pdf", "png", "csv"]),
        mdworkbench_outputs(),
        fidelity_outputs(),
        production_outputs(),
        projection_outputs(),


# Under a cluster executor (config/profiles/slurm) these run where snakemake runs; only the
# run rules become cluster jobs. The storage floor too: it measures the runs' shared file
# system or pool as seen from there.
localrules:
    all,
    build_core,
    build_original,
    validate,
    aggregate,
    provenance,
    figures,
    results_table,
    production_table,
    artifact_appendix,
    claims,
    claims_figure,
    fidelity,
    front_page,
    scale_figure,
    storage_floor,
    floor,
    mdworkbench_validate,
    mdworkbench_summary,
    mdworkbench_figure,
    projection,
