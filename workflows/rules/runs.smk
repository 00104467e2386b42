# The block the run rules of indexfs.smk, deltafs.smk and cephfs.smk share: the core's tools as input,
# all the cores (a measurement owns the machine: runs never overlap), resources, parameters,
# the result file (workflows/registry.py), the message's title, and the start of the
# command line: core/bench/runs.py, started by slurm_run.py with the rule's launcher
# (resources.mpi: mpi.mpiexec, or srun under the Slurm profile, config/profiles/slurm); with
# environment_reruns > 0, all of it under rerun_when_busy.py, which reruns a run whose
# phases other processes kept busier than the claims allow (workflows/environment/reruns.py).
import json

from snakemake.exceptions import WorkflowError

from workflows.claims.check import load_claims
from workflows.environment.conditions import other_cpu_bound
from workflows.registry import RESULTS, RUN_RULES, SYSTEMS

RUNS_PY = os.path.join(REPO, "core", "bench", "runs.py")
SLURM_RUN_PY = os.path.join(REPO, "workflows", "bin", "slurm_run.py")
RERUN_WHEN_BUSY_PY = os.path.join(REPO, "workflows", "bin", "rerun_when_busy.py")


def rerun_when_busy():
    """The start of every run's command line with environment_reruns > 0: rerun_when_busy.py
    with the reruns allowed and the claims' strictest bound on other processes' CPU share
    (read once, here); "" when the reruns are off or no claim bounds that share."""
    if not config["environment_reruns"]:
        return ""
    try:
        bound = other_cpu_bound(load_claims(CLAIMS_FILE)["claims"])
    except (OSError, ValueError) as e:
        raise WorkflowError(f"environment_reruns needs the claims' bound: {e}") from None
    if bound is None:
        return ""
    return f"python3 {RERUN_WHEN_BUSY_PY} --reruns {config['environment_reruns']} --bound {bound} "


RERUNS = rerun_when_busy()


def tools_bin(wildcards, input):
    with open(input.tools) as f:
        return json.load(f)["bin_dir"]


def every_core(wildcards):
    return workflow.cores


RUN_PARAMS = dict(
    bin=tools_bin,
    work=lambda wildcards, output: os.path.dirname(output.result),
    store_settings=config["store_settings"],
)


def run_result(rule):
    return RESULTS[rule].path


def run_benchmark(rule):
    return RESULTS[rule].benchmark


def run_title(system):
    """The start of a run rule's message: "Run <the paper's run number> <label>", or the label
    alone for a system that is not one of the paper's runs (CephFS)."""
    s = SYSTEMS[system]
    return f"Run {s.run} {s.label}" if s.run else s.label


def runs_command(rule):
    """The command line of a run rule, up to the rule's own options: runs.py with the run the
    registry names for the rule and the options that every run shares, its repetition among
    them (recorded with its other coordinates in each phase document, where
    workflows/results/runs.py reads them); under rerun_when_busy.py with environment_reruns."""
    return (
        f"{RERUNS}python3 {SLURM_RUN_PY} {{resources.mpi:q}} python3 {RUNS_PY} {RUN_RULES[rule].run} --bin {{params.bin}} "
        f"{job_options()}{storage_options()} --repetition {{wildcards.rep}}"
    )


def job_options():
    """The options of runs.py and original_runs.py alike: the hostfile, the store settings
    (--env) and each job's time limit."""
    env = " ".join(f"--env {k}={v}" for k, v in sorted(config["store_settings"].items()))
    hostfile = f"--hostfile {config['mpi']['hostfile']}" if config["mpi"]["hostfile"] else ""
    return f"{hostfile} {env} --timeout {config['job_timeout_s']}"


def run_resources(*rank_counts):
    """The resources of a run rule: its MPI launcher, its ranks (servers and clients, or
    compactors; at least 2, since Snakemake's Slurm executor refuses an MPI job of one task)
    and the nodes its Slurm job allocates (slurm.nodes). Only the Slurm profile uses them."""
    return dict(
        mpi=config["mpi"]["mpiexec"],
        tasks=lambda wc: max(2, sum(int(wc[c]) for c in rank_counts)),
        nodes=config.get("slurm", {}).get("nodes", 1),
    )


# The original prototype's runs (original.smk): the same coordinates, its tools (rule
# build_original's record) and core/bench/original_runs.py with the guide's command lines.
ORIGINAL_RUNS_PY = os.path.join(REPO, "core", "bench", "original_runs.py")


def original_tool_record(wildcards, input):
    with open(input.tools) as f:
        return json.load(f)


# Across hosts (mpi.hostfile, or a Slurm job of several nodes: slurm.nodes) the original's
# ranks end through our core's preload library (core/src/jobs/mpi_end_preload.cc), where the
# core's tools record finds it: beside the tools in a build tree, in lib/deltameta of an
# installed prefix.
SPANS_HOSTS = bool(config["mpi"]["hostfile"]) or config.get("slurm", {}).get("nodes", 1) > 1
ORIGINAL_CORE = {"core": TOOLS} if SPANS_HOSTS else {}
MPI_END = "libdeltameta_mpi_end.so"


def mpi_end_option(wildcards, input):
    """original_runs.py's --mpi-end-preload where the runs span hosts and the core has it."""
    if not hasattr(input, "core"):
        return ""
    with open(input.core) as f:
        bin_dir = json.load(f)["bin_dir"]
    for path in (os.path.join(bin_dir, MPI_END), os.path.join(bin_dir, "..", "lib", "deltameta", MPI_END)):
        if os.path.isfile(path):
            return f"--mpi-end-preload {os.path.abspath(path)}"
    return ""


ORIGINAL_PARAMS = dict(
    mpi_end=mpi_end_option,
    bin=lambda wildcards, input: original_tool_record(wildcards, input)["bin_dir"],
    commit=lambda wildcards, input: original_tool_record(wildcards, input)["commit"] or "installed",
    work=lambda wildcards, output: os.path.dirname(output.result),
)


def original_title(system):
    return f"Original prototype: {run_title(system)}"


def original_command(rule):
    """The command line of one of the original's run rules, up to the rule's own options:
    original_runs.py started as runs.py is (slurm_run.py with the rule's launcher, the
    configured hostfile), so under the Slurm profile its jobs are steps of the run's allocation;
    under rerun_when_busy.py with environment_reruns, as ours are."""
    return (
        f"{RERUNS}python3 {SLURM_RUN_PY} {{resources.mpi:q}} python3 {ORIGINAL_RUNS_PY} {RUN_RULES[rule].run} "
        f"--bin {{params.bin}} --commit {{params.commit}} {job_options()} {{params.mpi_end}} "
        f"--repetition {{wildcards.rep}}{original_storage_options()}"
    )
