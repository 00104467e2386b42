#!/usr/bin/env python3
"""The seed guide's runs as functions, with its flags and store settings, on the deltameta
tools: run 1 IndexFS, run 2 IndexFS + bulk insertion, run 3 DeltaFS (write, compaction,
read); the same workload on CephFS's MDS (cephfs, the production baseline, not one of the
paper's runs); and the MD-Workbench workload (deltameta_mdworkbench) on one interface:
posix, indexfs, deltafs or cephfs. Each writes the phases' JSON documents to `out` (JSON
Lines, with `run`, `coordinates` (the run's place in the workflow's matrix: coordinates())
and `storage` fields, and `environment`: the machine's readings around the phase, taken
while the run lasts by mpijobs/sampler.py). Also a command line, one run or DeltaFS phase per call (used by the
workflow's rules).

Stores live in local directories, or with --storage-root rados://POOL/PREFIX in Ceph RADOS:
every store path the run is given (or derives, like the IndexFS servers' `svr`) then names
the RADOS location PREFIX/<that path relative to --storage-base>, so runs never collide.
Each write phase first clears its destination (reruns on a persistent cluster, a rerun of
the phase in the same folder), and
the DeltaFS origin and compacted "stores" the rules pass around become local marker
directories holding the RADOS URI (store_markers.py), which the later phases read."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import store_markers
from mpijobs import JobError, Launcher, Sampler, ServerJob, procs, read_json_lines, run_job, stop_on_signals

SERVER_ENV = {
    "DELTAFS_Db_write_ahead_log_buffer": 65536,
    "DELTAFS_Db_disable_write_ahead_logging": 0,
    "DELTAFS_Db_disable_compaction": 0,
    "DELTAFS_Db_l0_soft_limit": 8,
    "DELTAFS_Db_l0_hard_limit": 12,
    "DELTAFS_Db_compression": 1,
}
DELTAFS_WRITE_ENV = {
    "DELTAFS_Db_write_ahead_log_buffer": 65536,
    "DELTAFS_Db_disable_write_ahead_logging": 0,
    "DELTAFS_Db_disable_compaction": 1,
    "DELTAFS_Db_compression": 1,
}
COMPACTOR_ENV = {"DELTAFS_Db_disable_write_ahead_logging": 1, "DELTAFS_Db_compression": 1}
SERVER_FLAGS = {"skip_fs_checks": 0, "ports_per_rank": 1, "rpc_threads": 2}
COMPACTOR_COMPAT_FLAGS = {"rpc_async_sender_threads": 16, "rpc_worker_threads": 0, "rpc_batch_min": 4,
                          "rpc_batch_max": 8, "rpc_threads": 2}
RADOS_SCHEME = "rados://"


class Storage:
    """Where a run's stores live: local paths as given (root None), or RADOS locations under
    `root` (rados://POOL/PREFIX) named after the local path relative to `base`. Also the
    environment the jobs and the storage tool need to reach the cluster."""

    def __init__(self, launcher, log, timeout, root=None, base=".", ceph_conf=None):
        self.launcher, self.log, self.timeout = launcher, log, timeout
        self.root = root.rstrip("/") if root else None
        self.base = os.path.abspath(base)
        self.ceph_conf = os.path.abspath(ceph_conf) if ceph_conf else None
        if self.root and not (self.root.startswith(RADOS_SCHEME) and len(self.root) > len(RADOS_SCHEME)):
            raise JobError(f"--storage-root {root}: expected rados://POOL/PREFIX")
        if self.root and self.ceph_conf:
            # The core prefers DELTAMETA_RADOS_CONF to CEPH_CONF, and mpiexec passes the whole
            # environment on: the cluster given here must win.
            os.environ.pop("DELTAMETA_RADOS_CONF", None)

    @property
    def backend(self):
        return "rados" if self.root else "posix"

    def env(self):
        """Job environment for RADOS: CEPH_CONF and the DELTAMETA_RADOS_* settings of this process."""
        if not self.root:
            return {}
        env = {k: v for k, v in os.environ.items() if k.startswith("DELTAMETA_RADOS_")}
        if self.ceph_conf:
            env["CEPH_CONF"] = self.ceph_conf
        return env

    def location(self, path):
        """The store location for the local path `path`."""
        if not self.root:
            return path
        rel = os.path.relpath(os.path.abspath(path), self.base)
        if rel == "." or rel.startswith(".."):
            raise JobError(f"{path} is not below --storage-base {self.base}: cannot name its RADOS location")
        return self.root + "/" + rel.replace(os.sep, "/")

    def fsid(self):
        """The cluster id in the ceph.conf, if it names one (scripts/ceph-cluster.sh's do)."""
        try:
            with open(self.ceph_conf or "") as f:
                for line in f:
                    key, _, value = line.partition("=")
                    if key.strip() == "fsid":
                        return value.strip()
        except OSError:
            pass
        return None

    def _tool(self, *args):
        tool = self.launcher.tool("storage")
        if not os.access(tool, os.X_OK):
            raise JobError(f"{tool} not found: runs need the core's deltameta_storage tool (it lists and clears "
                           "their stores)")
        cmd = [tool, *args]
        self.log.write("$ " + " ".join(cmd) + "\n")
        self.log.flush()
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout,
                                 env=dict(os.environ, **self.env()))
        except subprocess.TimeoutExpired:
            raise JobError(f"deltameta_storage {args[0]} {args[1]}: did not finish within {self.timeout} s") from None
        self.log.write(res.stdout + res.stderr)
        self.log.flush()
        if res.returncode != 0:
            how = f"killed by signal {-res.returncode}" if res.returncode < 0 else f"exit {res.returncode}"
            said = (res.stderr.strip() or res.stdout.strip() or "no output").splitlines()[-1]
            raise JobError(f"deltameta_storage {args[0]} {args[1]} failed ({how}): {said} (see {self.log.name})")
        return res.stdout

    def remove(self, location):
        """Removes a store tree, in RADOS or local, with the storage tool: it removes only a
        tree deltameta made (anything else there fails the run)."""
        self._tool("rm", location)

    def output_store(self, path):
        """Where a phase writes the store the rule names `path`: its location, cleared (a
        store an earlier execution of the phase wrote there, which the tools refuse to write
        over: a rerun, workflows/environment/reruns.py)."""
        location = self.location(path)
        self._tool("rm", location)  # only a tree deltameta made: anything else there fails the run
        return location

    def mark(self, path, location):
        """After a phase wrote a RADOS store: the rule's output directory `path` records it."""
        if location.startswith(RADOS_SCHEME):
            store_markers.write(path, location, self.ceph_conf, self.fsid())

    def input_store(self, path):
        """The store an earlier phase wrote at `path`: the URI of its marker, or the local path."""
        uri = store_markers.uri_of(path)
        if uri:
            return uri
        if self.root:
            raise JobError(f"{path} holds no {store_markers.MARKER}: it was not written to RADOS; "
                           "rerun the phase that writes it")
        return path


class Run:
    """Where one run keeps its stores (`storage`), job files, logs and results."""

    def __init__(self, launcher, work, log, timeout, env_overrides=None, storage=None):
        self.launcher, self.work, self.log, self.timeout = launcher, work, log, timeout
        self.storage = storage or Storage(launcher, log, timeout)
        self.env_overrides = dict(env_overrides or {}, **self.storage.env())
        self.stores = {}  # role -> location, recorded in the results
        os.makedirs(work, exist_ok=True)

    def store(self, role, path, write=True):
        """The location of the store `role` at local path `path`; cleared first if this phase writes it."""
        location = self.storage.output_store(path) if write else self.storage.input_store(path)
        self.stores[role] = location
        return location

    def env(self, base):
        return dict(base, **self.env_overrides)

    def hosts(self, role):
        """Where a job runs when the hostfile has several hosts: IndexFS servers ("servers") on
        the first host and their clients ("clients") on the others; any other job (None: the
        DeltaFS writers, compactors, read-only servers and their clients) on every host."""
        hosts = self.launcher.hosts
        if not self.launcher.spans_hosts() or role is None:
            return None
        return hosts[:1] if role == "servers" else hosts[1:]

    def client(self, label, ranks, flags, env=None, role=None):
        path = os.path.join(self.work, label + ".jsonl")
        return run_job(self.launcher, label, ranks, self.env(env or {}), "client", flags, path, self.log,
                       self.timeout, self.hosts(role))

    def servers(self, ranks, db, env, role=None, **flags):
        if self.launcher.spans_hosts():
            flags["rpc_ip"] = "host"  # each rank listens on its own host's address
        return ServerJob(self.launcher, ranks, self.env(env), dict(SERVER_FLAGS, db=db, **flags),
                         os.path.join(self.work, "servers.ready"), self.log, min(120, self.timeout),
                         hosts=self.hosts(role))


def client_flags(n, **more):
    return dict({"share_dir": 1, "n": n, "skip_fs_checks": 0}, **more)


def indexfs(run, ranks, servers, n):
    with run.servers(servers, run.store("servers", os.path.join(run.work, "svr")), SERVER_ENV, "servers") as s:
        return run.client("indexfs", ranks, client_flags(n, read_phases=1, info_svr_uri=s.uri), role="clients")


def indexfs_bulk(run, ranks, servers, n):
    svr = run.store("servers", os.path.join(run.work, "svr"))
    cli = run.store("tables", os.path.join(run.work, "cli"))
    with run.servers(servers, svr, SERVER_ENV, "servers") as s:
        return run.client("indexfs-bulk", ranks, client_flags(n, bk=1, db=cli, read_phases=1, info_svr_uri=s.uri),
                          role="clients")


def deltafs_write(run, ranks, n, origin):
    db = run.store("origin", origin)
    docs = run.client("deltafs-write", ranks, client_flags(n, db=db, read_phases=0, skip_fs_checks=1,
                                                           fs_use_local=1), env=DELTAFS_WRITE_ENV)
    run.storage.mark(origin, db)
    return docs


def deltafs_compact(run, compactors, origin, compacted):
    path = os.path.join(run.work, "deltafs-compact.jsonl")
    src, dst = run.store("origin", origin, write=False), run.store("compacted", compacted)
    flags = dict(COMPACTOR_COMPAT_FLAGS, src_dir=src, dst_dir=dst, overwrite=1)
    docs = run_job(run.launcher, "deltafs-compact", compactors, run.env(COMPACTOR_ENV), "compactor", flags, path,
                   run.log, run.timeout)
    run.storage.mark(compacted, dst)
    return docs


def deltafs_read(run, ranks, readers, n, compacted):
    with run.servers(readers, run.store("compacted", compacted, write=False), {}, use_existing_fs=1) as s:
        return run.client("deltafs-read", ranks, client_flags(n, use_existing_fs=1, write_phases=0, read_phases=1,
                                                              info_svr_uri=s.uri))


def cephfs(run, ranks, n):
    """The runs' workload on CephFS: one client job whose ranks create their files through the
    MDS of the CephFS of --ceph-conf (else CEPH_CONF) in one shared directory and lstat them
    back, every lstat verified, the namespace's total too. The directory is
    /deltameta-runs<work>/<UTC time>-<pid>: no two runs, nor two executions of one run (a
    rerun, workflows/environment/reruns.py), share one; the documents say where
    (`cephfs_dir`; it is no store of ours, so `storage` lists none). It is not removed
    afterwards: the project has no tool that deletes in CephFS beyond MD-Workbench's own
    tree (the client only creates and lstats), and the workflow's throw-away cluster takes
    it away when it stops; on an existing cluster it stays, one empty file per created
    name, below /deltameta-runs."""
    attempt = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + f"-{os.getpid()}"
    where = "/deltameta-runs" + os.path.abspath(run.work) + "/" + attempt
    env = {"CEPH_CONF": run.storage.ceph_conf} if run.storage.ceph_conf else None
    docs = run.client("cephfs", ranks, client_flags(n, cephfs=1, cephfs_dir=where, read_phases=1, verify_total=1),
                      env=env)
    return [dict(d, cephfs_dir=where) for d in docs]


def mds_cpu(doc, sampler, conf):
    """A cephfs phase document with its servers' CPU (`cpu_s.servers`): what the MDS of the
    run's cluster used from the phase's start to its end, read from /proc by the sampler
    (Sampler.servers_cpu), since the client job cannot see it; `servers_sampled` says so and
    how many MDS processes there were. The OSDs under it, like those under the designs'
    RADOS stores, count as storage, not servers. An MDS this host cannot see is a JobError:
    its CPU would read as none."""
    seconds, processes = sampler.servers_cpu(doc)
    if processes == 0:
        raise JobError(f"no ceph-mds of {conf} runs on this host ({os.uname().nodename}), so the cephfs run cannot "
                       "measure its servers' CPU: run it on the MDS's host (the Docker cluster's head), or leave "
                       "cephfs out of systems")
    return dict(doc, cpu_s=dict(doc["cpu_s"], servers=round(seconds, 3)),
                servers_sampled={"names": ["ceph-mds"], "processes": processes})


MDWB_INTERFACES = ("posix", "indexfs", "deltafs", "cephfs")


class Workbench:
    """The MD-Workbench parameters (deltameta_mdworkbench's -D, -P, -I, -S, -R, -O, and the
    stonewall -w, -W when `stonewall` seconds are not 0)."""

    def __init__(self, data_sets, precreate, objects, object_size, iterations, offset, stonewall=0, wear_out=False):
        self.flags = {"dset-count": data_sets, "precreate-per-set": precreate, "obj-per-proc": objects,
                      "object-size": object_size, "iterations": iterations, "offset": offset}
        if stonewall:
            self.flags.update({"stonewall-timer": stonewall, "stonewall-wear-out": int(wear_out)})


def mdwb_job(run, label, ranks, flags, docs, env=None, role=None):
    """One deltameta_mdworkbench job; its phase documents are added to `docs`, also those a
    failed job wrote before it failed (its verification errors)."""
    path = os.path.join(run.work, label + ".jsonl")
    if os.path.exists(path):
        os.remove(path)  # the tool appends
    try:
        docs += run_job(run.launcher, label, ranks, run.env(env or {}), "mdworkbench", flags, path, run.log,
                        run.timeout, run.hosts(role))
    except JobError as e:
        written = read_json_lines(path) if os.path.exists(path) else []
        docs += written
        failed = [f"{d['phase']} ({d['verification']['total']})" for d in written if d["verification"]["total"]]
        if failed:
            raise JobError(f"{e}: verification errors in {', '.join(failed)} (each phase document's "
                           "\"verification\" says which)") from None
        raise


def posix_controls(root):
    """Makes the posix interface's tree `root` with the cheap controls of
    mdworkbench_vs_real.py: on ext2/3/4 the top-directory flag (chattr +T: its data sets go to
    block groups with many free inodes), then a sync. Not its 65 s wait (a create on ext4
    without a journal skips inodes freed in the last minute, core/doc/mdworkbench.md). What
    was done, for the run's documents."""
    os.makedirs(root, exist_ok=True)
    fs = subprocess.run(["findmnt", "-n", "-o", "FSTYPE", "--target", root], capture_output=True,
                        text=True).stdout.strip()
    flagged = (fs.startswith("ext") and shutil.which("chattr") is not None
               and subprocess.run(["chattr", "+T", root], capture_output=True).returncode == 0)
    os.sync()
    return {"fs": fs, "top_dir_flag": flagged, "synced": True, "settle_s": 0}


def mdworkbench(run, interface, ranks, servers, bench, docs, process_reports=False, latency_dir=None):
    """MD-Workbench's three phases on `interface`, into `docs` (a list, filled as the jobs end,
    so that a failed run keeps what it measured):
      posix    one job, the tree in <work>/posix;
      indexfs  `servers` IndexFS servers (the guide's settings), one job of the three phases;
      deltafs  precreate (-1) into the ranks' stores <work>/origin, the compactor with `servers`
               ranks into <work>/compacted (its document too), `servers` read-only servers on
               them and the benchmark (-2): DeltaFS serves no create, delete or cleanup;
      cephfs   one job, the tree in the CephFS of --ceph-conf (else CEPH_CONF), at
               /deltameta-mdworkbench<work>: no two runs share one; the documents say where
               (`cephfs_root`). The cleanup leaves the tree's root, empty."""
    if interface not in MDWB_INTERFACES:
        raise JobError(f"--interface {interface}: expected one of {', '.join(MDWB_INTERFACES)}")
    flags = dict(bench.flags, interface=interface)
    if process_reports:
        flags["process-reports"] = 1
    if latency_dir:
        os.makedirs(latency_dir, exist_ok=True)
        flags["latency-file-prefix"] = os.path.join(os.path.abspath(latency_dir), interface)
    if interface == "posix":
        root = os.path.join(os.path.abspath(run.work), "posix")
        shutil.rmtree(root, ignore_errors=True)
        run.stores["posix"] = root
        controls = posix_controls(root)
        first = len(docs)
        try:
            mdwb_job(run, "mdworkbench", ranks, dict(flags, root=root), docs)
        finally:
            for d in docs[first:]:
                d["posix_controls"] = controls
    elif interface == "cephfs":
        root = "/deltameta-mdworkbench" + os.path.abspath(run.work)
        env = {"CEPH_CONF": run.storage.ceph_conf} if run.storage.ceph_conf else None
        first = len(docs)
        try:
            mdwb_job(run, "mdworkbench", ranks, dict(flags, root=root), docs, env=env)
        finally:
            for d in docs[first:]:
                d["cephfs_root"] = root
    elif interface == "indexfs":
        svr = os.path.join(run.work, "svr")
        shutil.rmtree(svr, ignore_errors=True)
        with run.servers(servers, run.store("servers", svr), SERVER_ENV, "servers") as s:
            mdwb_job(run, "mdworkbench", ranks, dict(flags, info_svr_uri=s.uri), docs, role="clients")
    else:
        origin, compacted = os.path.join(run.work, "origin"), os.path.join(run.work, "compacted")
        for path in (origin, compacted):
            shutil.rmtree(path, ignore_errors=True)
        db = run.store("origin", origin)
        mdwb_job(run, "mdworkbench-precreate", ranks, dict(flags, root=db, **{"run-precreate": 1}), docs,
                 env=DELTAFS_WRITE_ENV)
        run.storage.mark(origin, db)
        docs += deltafs_compact(run, servers, origin, compacted)
        with run.servers(servers, run.store("compacted", compacted, write=False), {}, use_existing_fs=1) as s:
            mdwb_job(run, "mdworkbench-benchmark", ranks, dict(flags, info_svr_uri=s.uri, **{"run-benchmark": 1}),
                     docs)
    return docs


def write_docs(path, run_name, docs, sampler, storage=None, **fields):
    """One line per phase document, with the run's name, where its stores were, the machine's
    readings around the phase (`environment`, mpijobs.sampler) and `fields`."""
    with open(path, "w") as f:
        for d in docs:
            f.write(json.dumps(dict(d, run=run_name, **fields, environment=sampler.around(d),
                                    **({"storage": storage} if storage else {}))) + "\n")


RUNS = ("indexfs", "indexfs-bulk", "deltafs-write", "deltafs-compact", "deltafs-read", "cephfs")


def coordinates(a, implementation):
    """The run's place in the matrix the workflow runs, which each of its phase documents
    records (`coordinates`), so its readers need not take it from the result's path: the
    implementation, the client ranks, the servers (IndexFS's; the DeltaFS compaction's and
    read's readers; 0 for the DeltaFS write and CephFS, which have none of ours), the files
    per client rank and the repetition; for MD-Workbench, its interface and parameters
    instead of the files, its stonewall among them (seconds, 0 for none, and whether it
    wears out)."""
    where = {"implementation": implementation, "client_ranks": a.ranks,
             "servers": 0 if a.run in ("deltafs-write", "cephfs") else a.servers, "repetition": a.repetition}
    if a.run != "mdworkbench":
        return dict(where, files_per_rank=a.n)
    return dict(where, interface=a.interface, data_sets=a.data_sets, precreate=a.precreate, objects=a.objects,
                object_size=a.object_size, iterations=a.iterations, offset=a.offset, stonewall=a.stonewall,
                wear_out=a.wear_out)


def add_run_arguments(p, runs, bin_help, servers_help):
    """The command line every runner of the seed guide's runs shares (this one and
    original_runs.py): the run, the tools, the scale, the run's folders and files, MPI, the
    store settings and the jobs' timeout."""
    p.add_argument("run", choices=runs)
    p.add_argument("--bin", required=True, help=bin_help)
    p.add_argument("--ranks", type=int, default=4, help="client ranks")
    p.add_argument("--servers", type=int, default=2, help=servers_help)
    p.add_argument("--n", type=int, default=50000, help="files per client rank")
    p.add_argument("--repetition", type=int, default=1, help="the run's repetition, recorded with its scale")
    p.add_argument("--work", required=True, help="directory for this run's stores and job files")
    p.add_argument("--origin", help="DeltaFS write-phase store root (deltafs-*)")
    p.add_argument("--compacted", help="compacted store root (deltafs-compact, deltafs-read)")
    p.add_argument("--out", required=True, help="JSON Lines output")
    p.add_argument("--log", required=True, help="log of every command and its output")
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--env", action="append", default=[], metavar="DELTAFS_Db_NAME=VALUE",
                   help="store setting overriding the guide's (repeatable)")
    p.add_argument("--timeout", type=int, default=3600, help="seconds allowed per job")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    add_run_arguments(p, RUNS + ("mdworkbench",), "directory of the deltameta_* tools",
                      "servers (indexfs runs); compactor ranks and read servers (deltafs-compact, deltafs-read, "
                      "mdworkbench --interface deltafs)")
    p.add_argument("--hostfile")
    p.add_argument("--keep-stores", action="store_true", help="keep the IndexFS and MD-Workbench runs' stores")
    m = p.add_argument_group("mdworkbench", "MD-Workbench's parameters (deltameta_mdworkbench; its defaults)")
    m.add_argument("--interface", choices=MDWB_INTERFACES, default="posix")
    m.add_argument("--data-sets", type=int, default=10, help="-D: data sets per rank")
    m.add_argument("--precreate", type=int, default=3000, help="-P: objects precreated per data set")
    m.add_argument("--objects", type=int, default=1000, help="-I: objects per data set and iteration")
    m.add_argument("--object-size", type=int, default=3901, help="-S: bytes per object")
    m.add_argument("--iterations", type=int, default=3, help="-R: benchmark iterations")
    m.add_argument("--offset", type=int, default=1, help="-O: rank offset")
    m.add_argument("--stonewall", type=int, default=0, metavar="SECONDS",
                   help="-w: each benchmark iteration stops after this many seconds (0: none)")
    m.add_argument("--wear-out", action="store_true", help="-W: with --stonewall, every rank runs as many "
                   "positions as the rank that ran the most")
    m.add_argument("--process-reports", action="store_true", help="a result per rank too")
    m.add_argument("--latency-dir", help="write every operation's latency here (-L), a CSV per rank and phase")
    p.add_argument("--storage-root", metavar="rados://POOL/PREFIX",
                   help="keep every store in RADOS below this root (default: local directories)")
    p.add_argument("--storage-base", default=".", metavar="DIR",
                   help="the local directory --storage-root stands for: a store path DIR/x is ROOT/x")
    p.add_argument("--ceph-conf", metavar="PATH", help="with --storage-root: the cluster's ceph.conf (CEPH_CONF "
                   "of every job; DELTAMETA_RADOS_* of this process are passed on too); mdworkbench --interface "
                   "cephfs and the cephfs run: its CephFS's cluster")
    a = p.parse_args()
    stop_on_signals()
    overrides = dict(kv.split("=", 1) for kv in a.env)
    docs, storage, run = [], None, None
    # With stores in RADOS, or on CephFS, the daemons of their cluster on this machine (a
    # throw-away cluster's, its MDS too) work for the run; the configuration the jobs use (the
    # core's order) names it.
    conf = a.ceph_conf or os.environ.get("DELTAMETA_RADOS_CONF") or os.environ.get("CEPH_CONF")
    serving = (lambda: procs.ceph_daemons(conf)) if a.storage_root or a.run == "cephfs" else list
    mds = (lambda: procs.ceph_daemons(conf, ("ceph-mds",))) if a.run == "cephfs" else list
    with open(a.log, "a") as log, Sampler(serving=serving, servers=mds) as sampler:
        try:
            launcher = Launcher(os.path.abspath(a.bin), a.mpiexec, a.hostfile)
            storage = Storage(launcher, log, a.timeout, a.storage_root, a.storage_base, a.ceph_conf)
            run = Run(launcher, a.work, log, a.timeout, overrides, storage)
            if a.run == "indexfs":
                docs = indexfs(run, a.ranks, a.servers, a.n)
            elif a.run == "indexfs-bulk":
                docs = indexfs_bulk(run, a.ranks, a.servers, a.n)
            elif a.run == "deltafs-write":
                docs = deltafs_write(run, a.ranks, a.n, a.origin)
            elif a.run == "deltafs-compact":
                docs = deltafs_compact(run, a.servers, a.origin, a.compacted)
            elif a.run == "deltafs-read":
                docs = deltafs_read(run, a.ranks, a.servers, a.n, a.compacted)
            elif a.run == "cephfs":
                docs = cephfs(run, a.ranks, a.n)
            else:
                bench = Workbench(a.data_sets, a.precreate, a.objects, a.object_size, a.iterations, a.offset,
                                  a.stonewall, a.wear_out)
                mdworkbench(run, a.interface, a.ranks, a.servers, bench, docs, a.process_reports, a.latency_dir)
            if (a.run.startswith("indexfs") or a.run == "mdworkbench") and not a.keep_stores:
                for role, location in run.stores.items():
                    if role == "posix":  # MD-Workbench's file tree, which the run made below its --work
                        shutil.rmtree(location, ignore_errors=True)
                    else:
                        storage.remove(location)
        except JobError as e:
            if a.run == "mdworkbench" and run:  # what the failed run measured, its verification errors too
                write_docs(a.out, a.run, docs, sampler, dict(backend=storage.backend, stores=run.stores),
                           coordinates=coordinates(a, "deltameta"), interface=a.interface)
            sys.exit(f"runs: {e}")
    extra = {"interface": a.interface} if a.run == "mdworkbench" else {}
    if a.run == "cephfs":
        try:
            docs = [mds_cpu(d, sampler, conf) for d in docs]
        except JobError as e:
            sys.exit(f"runs: {e}")
    write_docs(a.out, a.run, docs, sampler, dict(backend=storage.backend, stores=run.stores),
               coordinates=coordinates(a, "deltameta"), **extra)


if __name__ == "__main__":
    main()
