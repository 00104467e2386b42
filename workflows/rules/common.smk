# Paths of the experiment matrix and the helpers the rules share.
import json
import os

REPO = workflow.basedir
RUNS_PY = os.path.join(REPO, "core", "bench", "runs.py")
FIGURES = ["insert_throughput", "lstat_throughput", "compaction_throughput", "end_to_end_time",
           "latency_quantiles", "cpu_per_mop"]
N = config["files_per_rank"]
REPS = range(1, config["repetitions"] + 1)
STORAGE = config["storage"]


def indexfs_runs(system):
    return expand("results/runs/{system}/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}/phases.jsonl",
                  system=system, backend=STORAGE, ranks=config["client_ranks"], servers=config["servers"],
                  n=N, rep=REPS)


def deltafs_runs(phase):
    """The write phase's results sit above the per-reader-count compaction and read phases."""
    per_readers = "" if phase == "write" else "/r{readers}"
    return expand("results/runs/deltafs/{backend}/c{ranks}-n{n}/rep{rep}" + per_readers + "/{phase}.jsonl",
                  backend=STORAGE, ranks=config["client_ranks"], n=N, rep=REPS, readers=config["readers"],
                  phase=phase)


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
    """The start of a core/bench/runs.py command line shared by every run rule."""
    env = " ".join(f"--env {k}={v}" for k, v in sorted(config["store_settings"].items()))
    hostfile = f"--hostfile {config['mpi']['hostfile']}" if config["mpi"]["hostfile"] else ""
    return (f"python3 {RUNS_PY} {run} --bin {{params.bin}} --mpiexec {config['mpi']['mpiexec']} {hostfile} "
            f"{env} --timeout {config['job_timeout_s']}" + storage_options())


wildcard_constraints:
    ranks=r"\d+",
    servers=r"\d+",
    readers=r"\d+",
    n=r"\d+",
    rep=r"\d+",
    backend=r"posix|rados",
