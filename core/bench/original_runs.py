#!/usr/bin/env python3
"""The workflow's runs of the original DeltaFS prototype (deltafs_bm_svr, deltafs_bm_cli,
parallel_compactor, built by the workflow's build_original rule): one run or DeltaFS phase
per call, with the seed guide's command lines (guide.py), written as phase documents (JSON
Lines) that the workflow reads like runs.py's. The command line mirrors runs.py's for the
same runs.

What the original reports goes in as printed: per phase its operations and seconds (hence
throughput and micros/op); failed operations are its clients' "Fail to ..." lines. It prints
no latency quantiles or per-rank balance: those fields are null. Nor CPU time: each phase's
CPU seconds of the client (or compactor) ranks and of the servers' ranks are sampled from
/proc every 50 ms, from the job's start or its previous result line to the phase's
(guide.Jobs), so a first phase includes the job's start-up. Each document also carries the
machine's readings around its phase (`environment`, mpijobs.sampler, as runs.py's do), the
phase taken to end when its result line was seen. The servers
listen on a free port of this host (--info-port, default: one the kernel picks), since the
guide's fixed 10086 may be taken by anything else on the machine."""
import argparse
import os
import shutil
import sys
import time

from guide import TOOL_NAMES, GuideTools, Jobs, free_port
from mpijobs import JobError, Sampler, stop_on_signals
from runs import RUNS, add_run_arguments, coordinates, write_docs


def document(phase, r, ranks, commit):
    """A phase document in runs.py's shape, from the original's result line `r`."""
    return {"phase": phase, "ops": r["ops"], "elapsed_s": r["seconds"],
            "throughput_mops": r["mops"], "micros_per_op": r["micros_per_op"], "errors": {"total": r["failed"]},
            "latency_us": None, "cpu_s": r["cpu_s"],
            "balance": {"rank_min_s": None, "rank_max_s": None}, "ranks": ranks,
            "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(r["printed_at"])),
            "build": {"git_revision": commit[:12], "implementation": "deltafs-proto"}, "placement": {"hosts": 1}}


def run(a, tools, jobs):
    """The phases of run `a.run`: [(phase, result)]."""
    name = a.run
    if a.run in ("indexfs", "indexfs-bulk"):
        root = os.path.join(a.work, "stores")
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        got = tools.indexfs(jobs, name, root, bulk=a.run == "indexfs-bulk")
        if not a.keep_stores:
            shutil.rmtree(root, ignore_errors=True)
        return [("insert", got["insert"]), ("lstat", got["lstat"])]
    if a.run == "deltafs-write":
        shutil.rmtree(a.origin, ignore_errors=True)
        return [("insert", tools.deltafs_write(jobs, name, os.path.abspath(a.origin))["insert"])]
    if a.run == "deltafs-compact":
        shutil.rmtree(a.compacted, ignore_errors=True)
        return [("compaction", tools.deltafs_compact(jobs, name, os.path.abspath(a.origin),
                                                     os.path.abspath(a.compacted))["compaction"])]
    return [("lstat", tools.deltafs_read(jobs, name, os.path.abspath(a.compacted))["lstat"])]


def copy_logs(jobs_dir, log):
    """Every job's command line and output, appended to the run's log."""
    for name in sorted(os.listdir(jobs_dir)):
        with open(os.path.join(jobs_dir, name), errors="replace") as f:
            log.write(f"==> {name} <==\n{f.read()}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(p, RUNS, "directory of deltafs_bm_svr, deltafs_bm_cli, parallel_compactor",
                      "servers (indexfs runs); compactor ranks, as many as the client ranks that wrote, and read "
                      "servers (deltafs-compact, deltafs-read)")
    p.add_argument("--commit", default="unknown", help="the original's commit, recorded in every document")
    p.add_argument("--info-port", type=int, default=0, help="servers' info port (default: a free one)")
    p.add_argument("--keep-stores", action="store_true", help="keep the IndexFS runs' stores")
    a = p.parse_args()
    if a.run.startswith("deltafs") and not (a.origin if a.run != "deltafs-read" else a.compacted):
        p.error(f"{a.run} needs --origin" if a.run != "deltafs-read" else "deltafs-read needs --compacted")
    if a.run == "deltafs-compact" and not a.compacted:
        p.error("deltafs-compact needs --compacted")
    if a.run == "deltafs-compact" and a.servers != a.ranks:
        p.error(f"deltafs-compact: the original's parallel compactor reads one writer store per rank: give "
                f"--servers {a.ranks} for the {a.ranks} client ranks that wrote (got --servers {a.servers})")
    stop_on_signals()
    a.work = os.path.abspath(a.work)  # the jobs run in it: every path they are given is absolute
    scale = argparse.Namespace(ranks=a.ranks, n=a.n, servers=a.servers, readers=a.servers,
                               mpiexec=shutil.which(a.mpiexec) or a.mpiexec, info_port=a.info_port or free_port(),
                               ready_timeout=min(120, a.timeout), stop_timeout=min(120, a.timeout),
                               keep_stores=a.keep_stores)
    jobs_dir = os.path.join(a.work, "jobs")
    shutil.rmtree(jobs_dir, ignore_errors=True)
    os.makedirs(jobs_dir)
    jobs = Jobs(jobs_dir, a.timeout, TOOL_NAMES["original"].values())
    tools = GuideTools("original", os.path.abspath(a.bin), scale, a.work,
                       dict(kv.split("=", 1) for kv in a.env))
    failed = None
    with Sampler() as sampler:
        try:
            phases = run(a, tools, jobs)
        except JobError as e:
            failed = str(e)
        finally:
            jobs.kill_all()
            with open(a.log, "a") as log:
                copy_logs(jobs_dir, log)
    if failed:
        sys.exit(f"original_runs: {failed}")
    ranks = a.servers if a.run == "deltafs-compact" else a.ranks
    write_docs(a.out, a.run, [document(phase, r, ranks, a.commit) for phase, r in phases], sampler,
               {"backend": "posix", "stores": {}}, coordinates=coordinates(a, "original"))


if __name__ == "__main__":
    main()
