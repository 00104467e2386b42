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
listen on a free port of this host (--info-port, default: one below the kernel's ephemeral
range, guide.free_port), since the guide's fixed 10086 may be taken by anything else on the
machine.

With --hostfile of several hosts the jobs are placed as runs.py places ours (guide_hosts.py:
IndexFS servers on the first host and their clients on the others, the DeltaFS jobs on every
host), the servers given their hosts' address prefix (--ip) and --print_ips=1, whose printed
addresses each document records (placement); the CPU seconds then count only the ranks on
this host; with --mpi-end-preload every rank ends as ours do (the original's MPI_Finalize can
hang across hosts: core/doc/transports.md). Under the workflow's Slurm profile this script
runs inside the run's allocation with srun steps as its mpiexec (workflows/bin/slurm_run.py),
as runs.py does.

With --storage-root rados://test/PREFIX every store is in RADOS, where the original's tools
put it with --env_use_rados=1 (original_rados.py: its fixed pool `test`, CEPH_ARGS, the conf
file it reads): a store the rules would keep at results/X is its RADOS directory /PREFIX/X
(runs.py's naming, --storage-base), cleared before a phase writes it; the IndexFS runs remove
their stores when done, and the DeltaFS origin and compacted outputs are marker directories
as ours are (runs.py MARKER). With RADOS across several hosts every rank starts through
original_rados.py exec-held, which holds its host's /tmp/ceph.conf, and once the run is done
one rank on each host removes the placeholder there (drop-placeholder)."""
import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import time

import guide_hosts
import original_rados
from guide import TOOL_NAMES, GuideTools, Jobs, free_port
from mpijobs import JobError, Sampler, procs, stop_on_signals
from mpijobs.launcher import read_hostfile
from runs import RADOS_SCHEME, RUNS, Storage, add_run_arguments, coordinates, write_docs


HELD_CONF = os.path.abspath(original_rados.__file__)  # exec-held and drop-placeholder, on every host


def drop_placeholders(mpiexec, hosts, timeout):
    """Removes the /tmp/ceph.conf placeholder no rank holds any longer on each of `hosts`, one
    rank per host; why that failed, or None."""
    if not hosts:
        return None
    cmd = [mpiexec, "-hosts", ",".join(h + ":1" for h in hosts), "-n", str(len(hosts)), "python3", HELD_CONF,
           "drop-placeholder"]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=min(120, timeout))
    except subprocess.TimeoutExpired:
        return f"removing {original_rados.CONF_PATH}'s placeholders on {', '.join(hosts)}: no end within 120 s"
    if res.returncode != 0:
        said = (res.stderr.strip() or res.stdout.strip() or "no output").splitlines()[-1]
        return f"removing {original_rados.CONF_PATH}'s placeholders on {', '.join(hosts)} failed: {said}"
    return None


def placement(tools, jobs_dir):
    """Where the run's jobs ran: {"hosts": how many hosts they were given, "job_hosts": {job:
    its hosts}, "server_addresses": what the servers printed for their ranks} ({"hosts": 1}
    on one host, as the guide runs)."""
    if not tools.launcher.spans_hosts():
        return {"hosts": 1}
    addresses = []
    for name in sorted(tools.placed):
        out = os.path.join(jobs_dir, name + ".out")
        if name.endswith("-svr") and os.path.exists(out):
            with open(out, errors="replace") as f:
                addresses += guide_hosts.server_addresses(f.read())
    return {"hosts": len({h for hosts in tools.placed.values() for h in hosts}), "job_hosts": tools.placed,
            "server_addresses": addresses}


def document(phase, r, ranks, commit, where):
    """A phase document in runs.py's shape, from the original's result line `r`."""
    return {"phase": phase, "ops": r["ops"], "elapsed_s": r["seconds"],
            "throughput_mops": r["mops"], "micros_per_op": r["micros_per_op"], "errors": {"total": r["failed"]},
            "latency_us": None, "cpu_s": r["cpu_s"],
            "balance": {"rank_min_s": None, "rank_max_s": None}, "ranks": ranks,
            "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(r["printed_at"])),
            "build": {"git_revision": commit[:12], "implementation": "deltafs-proto"}, "placement": where}


class Stores:
    """Where the run's stores are: local directories, or with `storage` (runs.Storage on a
    rados://test/PREFIX root) RADOS directories /PREFIX/..., which the original's tools take
    as store paths."""

    def __init__(self, storage, log, timeout):
        self.storage, self.log, self.timeout = storage, log, timeout
        self.uris, self.written = {}, []  # every store the phase used (name: URI); those it wrote

    def path(self, uri):
        return uri[len(RADOS_SCHEME + original_rados.POOL):] if uri.startswith(RADOS_SCHEME) else uri

    def output(self, name, local):
        """A store the phase writes at the rules' `local` path, emptied first."""
        shutil.rmtree(local, ignore_errors=True)
        if not self.storage:
            return os.path.abspath(local)
        self.uris[name] = self.storage.location(local)
        self.written.append((name, local))
        self.remove(self.uris[name])
        return self.path(self.uris[name])

    def input(self, name, local):
        """The store an earlier phase wrote at the rules' `local` path."""
        if not self.storage:
            return os.path.abspath(local)
        self.uris[name] = self.storage.input_store(local)
        return self.path(self.uris[name])

    def remove(self, location):
        if location.startswith(RADOS_SCHEME):
            original_rados.remove(self.storage.ceph_conf, self.path(location), self.timeout, self.log)
        else:
            shutil.rmtree(location, ignore_errors=True)


def run(a, tools, jobs, stores):
    """The phases of run `a.run`: [(phase, result)]."""
    name = a.run
    if a.run in ("indexfs", "indexfs-bulk"):
        local = os.path.join(a.work, "stores")
        root = stores.output("stores", local)
        if not stores.storage:
            os.makedirs(root)
        got = tools.indexfs(jobs, name, root, bulk=a.run == "indexfs-bulk")
        if not a.keep_stores:
            stores.remove(stores.uris.get("stores", root))
        return [("insert", got["insert"]), ("lstat", got["lstat"])]
    if a.run == "deltafs-write":
        got = tools.deltafs_write(jobs, name, stores.output("origin", a.origin))
        return [("insert", got["insert"])]
    if a.run == "deltafs-compact":
        got = tools.deltafs_compact(jobs, name, stores.input("origin", a.origin),
                                    stores.output("compacted", a.compacted))
        return [("compaction", got["compaction"])]
    return [("lstat", tools.deltafs_read(jobs, name, stores.input("compacted", a.compacted))["lstat"])]


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
    p.add_argument("--hostfile", help="MPICH hostfile: with several hosts, the jobs are placed as runs.py places "
                   "ours (IndexFS servers on the first host, their clients on the others)")
    p.add_argument("--commit", default="unknown", help="the original's commit, recorded in every document")
    p.add_argument("--info-port", type=int, default=0, help="servers' info port (default: a free one)")
    p.add_argument("--keep-stores", action="store_true", help="keep the IndexFS runs' stores")
    p.add_argument("--mpi-end-preload", metavar="PATH",
                   help="with --hostfile of several hosts: our core's libdeltameta_mpi_end.so, preloaded in every "
                        "rank so that it ends as ours do (its MPI_Finalize can hang over UCX's TCP transport "
                        "across hosts: core/doc/transports.md)")
    p.add_argument("--storage-root", metavar=f"rados://{original_rados.POOL}/PREFIX",
                   help=f"keep every store in RADOS below this root (pool {original_rados.POOL}, fixed in the "
                        "original's source; default: local directories)")
    p.add_argument("--storage-base", default=".", metavar="DIR",
                   help="the local directory --storage-root stands for: a store path DIR/x is ROOT/x")
    p.add_argument("--ceph-conf", metavar="PATH", help="with --storage-root: the cluster's ceph.conf (its client "
                   "settings go to every job as CEPH_ARGS)")
    a = p.parse_args()
    if a.storage_root and not a.storage_root.startswith(f"{RADOS_SCHEME}{original_rados.POOL}/"):
        p.error(f"--storage-root {a.storage_root}: the original's tools store in pool {original_rados.POOL} only "
                f"(fixed in their source): give rados://{original_rados.POOL}/PREFIX")
    if a.storage_root and not a.ceph_conf:
        p.error("--storage-root needs --ceph-conf, the cluster's ceph.conf")
    if a.run.startswith("deltafs") and not (a.origin if a.run != "deltafs-read" else a.compacted):
        p.error(f"{a.run} needs --origin" if a.run != "deltafs-read" else "deltafs-read needs --compacted")
    if a.run == "deltafs-compact" and not a.compacted:
        p.error("deltafs-compact needs --compacted")
    if a.run == "deltafs-compact" and a.servers != a.ranks:
        p.error(f"deltafs-compact: the original's parallel compactor reads one writer store per rank: give "
                f"--servers {a.ranks} for the {a.ranks} client ranks that wrote (got --servers {a.servers})")
    stop_on_signals()
    a.work = os.path.abspath(a.work)  # the jobs run in it: every path they are given is absolute
    a.hostfile = a.hostfile and os.path.abspath(a.hostfile)
    scale = argparse.Namespace(ranks=a.ranks, n=a.n, servers=a.servers, readers=a.servers,
                               mpiexec=shutil.which(a.mpiexec) or a.mpiexec, info_port=a.info_port or free_port(),
                               ready_timeout=min(120, a.timeout), stop_timeout=min(120, a.timeout),
                               keep_stores=a.keep_stores)
    jobs_dir = os.path.join(a.work, "jobs")
    shutil.rmtree(jobs_dir, ignore_errors=True)
    os.makedirs(jobs_dir)
    env = dict(kv.split("=", 1) for kv in a.env)
    try:
        hosts = sorted(set(read_hostfile(a.hostfile))) if a.hostfile else []
    except JobError as e:
        sys.exit(f"original_runs: {e}")
    held_hosts = hosts if a.storage_root and len(hosts) > 1 else []
    if a.mpi_end_preload and len(hosts) > 1:
        if not os.path.isfile(a.mpi_end_preload):
            sys.exit(f"original_runs: --mpi-end-preload {a.mpi_end_preload}: no such file (the core's build puts "
                     "libdeltameta_mpi_end.so beside its tools, an install in lib/deltameta)")
        env["LD_PRELOAD"] = os.path.abspath(a.mpi_end_preload)
    try:
        if a.storage_root:
            env["CEPH_ARGS"] = original_rados.ceph_args(a.ceph_conf)
    except (OSError, original_rados.RadosError) as e:
        sys.exit(f"original_runs: --ceph-conf {a.ceph_conf}: {e}")
    jobs = Jobs(jobs_dir, a.timeout, TOOL_NAMES["original"].values())
    try:
        tools = GuideTools("original", os.path.abspath(a.bin), scale, a.work, env,
                           {"env_use_rados": 1} if a.storage_root else {}, a.hostfile,
                           ["python3", HELD_CONF, "exec-held"] if held_hosts else [])
    except JobError as e:
        sys.exit(f"original_runs: {e}")
    failed, stores = None, None
    # With stores in RADOS, this machine's Ceph daemons (a throw-away cluster's) work for the run
    serving = (lambda: procs.ceph_daemons(a.ceph_conf)) if a.storage_root else list
    with open(a.log, "a") as log, Sampler(serving=serving) as sampler:
        storage = Storage(None, log, a.timeout, a.storage_root, a.storage_base, a.ceph_conf) if a.storage_root else None
        stores = Stores(storage, log, a.timeout)
        try:
            with original_rados.FixedConf() if storage else contextlib.nullcontext():
                phases = run(a, tools, jobs, stores)
            for key, local in stores.written if storage else []:
                storage.mark(local, stores.uris[key])
        except (JobError, original_rados.RadosError) as e:
            failed = str(e)
        finally:
            jobs.kill_all()
            copy_logs(jobs_dir, log)
            dropped = drop_placeholders(scale.mpiexec, held_hosts, a.timeout)
            failed = failed or dropped
    if failed:
        sys.exit(f"original_runs: {failed}")
    ranks = a.servers if a.run == "deltafs-compact" else a.ranks
    backend = {"backend": "rados", "stores": stores.uris} if a.storage_root else {"backend": "posix", "stores": {}}
    where = placement(tools, jobs_dir)
    write_docs(a.out, a.run, [document(phase, r, ranks, a.commit, where) for phase, r in phases], sampler, backend,
               coordinates=coordinates(a, "original"))


if __name__ == "__main__":
    main()
