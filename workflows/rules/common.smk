# Paths of the experiment matrix and the helpers the rules share.
import json
import os

REPO = workflow.basedir
RUNS_PY = os.path.join(REPO, "core", "bench", "runs.py")
SLURM_RUN_PY = os.path.join(REPO, "workflows", "scripts", "slurm_run.py")
FIGURES = [
    "insert_throughput",
    "lstat_throughput",
    "compaction_throughput",
    "end_to_end_time",
    "latency_quantiles",
    "cpu_per_mop",
]
# What a configuration concludes (validation, summary, provenance, claims, figures, tables)
# goes to its own folder, results/<name>/, so that no configuration overwrites another's
# and no run touches a tracked file. Runs are shared by their coordinates (results/runs/).
OUT = f"results/{config['name']}"
CLAIMS_FILE = os.path.join(REPO, config["claims"])
N = config["files_per_rank"]
REPS = range(1, config["repetitions"] + 1)
STORAGE = config["storage"]


def indexfs_runs(system):
    return expand(
        "results/runs/{system}/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}/phases.jsonl",
        system=system,
        backend=STORAGE,
        ranks=config["client_ranks"],
        servers=config["servers"],
        n=N,
        rep=REPS,
    )


def deltafs_runs(phase):
    """The write phase's results sit above the per-reader-count compaction and read phases."""
    pattern = {
        "write": "results/runs/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/write.jsonl",
        "compact": "results/runs/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/r{readers}/compact.jsonl",
        "read": "results/runs/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/r{readers}/read.jsonl",
    }[phase]
    return expand(
        pattern,
        backend=STORAGE,
        ranks=config["client_ranks"],
        n=N,
        rep=REPS,
        readers=config["readers"],
    )


def all_run_results():
    files = []
    for system in config["systems"]:
        if system == "deltafs":
            files += deltafs_runs("read") + deltafs_runs("compact") + deltafs_runs("write")
        else:
            files += indexfs_runs(system)
    return files


def tools_bin(wildcards, input):
    with open(input.tools) as f:
        return json.load(f)["bin_dir"]


def runs_command(run):
    """The start of a core/bench/runs.py command line shared by every run rule, started by
    slurm_run.py with the rule's launcher (resources.mpi: mpi.mpiexec, or srun under the
    Slurm profile, config/profiles/slurm)."""
    env = " ".join(f"--env {k}={v}" for k, v in sorted(config["store_settings"].items()))
    hostfile = f"--hostfile {config['mpi']['hostfile']}" if config["mpi"]["hostfile"] else ""
    return (
        f"python3 {SLURM_RUN_PY} {{resources.mpi:q}} python3 {RUNS_PY} {run} --bin {{params.bin}} {hostfile} "
        f"{env} --timeout {config['job_timeout_s']}{storage_options()}"
    )


def run_resources(*rank_counts):
    """The resources of a run rule: its MPI launcher, its ranks (servers and clients, or
    compactors; at least 2, since Snakemake's Slurm executor refuses an MPI job of one task)
    and the nodes its Slurm job allocates (slurm.nodes). Only the Slurm profile uses them."""
    return dict(
        mpi=config["mpi"]["mpiexec"],
        tasks=lambda wc: max(2, sum(int(wc[c]) for c in rank_counts)),
        nodes=config.get("slurm", {}).get("nodes", 1),
    )


wildcard_constraints:
    ranks=r"\d+",
    servers=r"\d+",
    readers=r"\d+",
    n=r"\d+",
    rep=r"\d+",
    backend=r"posix|rados",
