#!/usr/bin/env python3
"""The seed guide's runs as functions, with its flags and store settings, on the deltameta
tools: run 1 IndexFS, run 2 IndexFS + bulk insertion, run 3 DeltaFS (write, compaction,
read). Each writes the phases' JSON documents to `out` (JSON Lines, with `run` and
`storage` fields). Also a command line, one run or DeltaFS phase per call (used by the
workflow's rules).

Stores live in local directories, or with --storage-root rados://POOL/PREFIX in Ceph RADOS:
every store path the run is given (or derives, like the IndexFS servers' `svr`) then names
the RADOS location PREFIX/<that path relative to --storage-base>, so runs never collide.
Each write phase first clears its RADOS destination (reruns on a persistent cluster), and
the DeltaFS origin and compacted "stores" the rules pass around become local marker
directories holding the RADOS URI (MARKER), which the later phases read."""
import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpijobs import JobError, Launcher, ServerJob, run_job, stop_on_signals  # noqa: E402

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
MARKER = "store.json"  # in a marker directory: {"uri": "rados://...", "ceph_conf": "/abs/ceph.conf", "fsid": ...}
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
            raise JobError(f"{tool} not found: RADOS storage needs the core's deltameta_storage tool")
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
            raise JobError(f"deltameta_storage {args[0]} {args[1]} failed: {res.stderr.strip()} (see {self.log.name})")
        return res.stdout

    def clear(self, location):
        """Removes a RADOS store tree before a phase writes it (nothing for local stores)."""
        if location.startswith(RADOS_SCHEME):
            self._tool("rm", location)

    def remove(self, location):
        if location.startswith(RADOS_SCHEME):
            self._tool("rm", location)
        else:
            shutil.rmtree(location, ignore_errors=True)

    def output_store(self, path):
        """Where a phase writes the store the rule names `path`: its location, cleared."""
        location = self.location(path)
        self.clear(location)
        return location

    def mark(self, path, location):
        """After a phase wrote a RADOS store: the rule's output directory `path` records it."""
        if location.startswith(RADOS_SCHEME):
            os.makedirs(path, exist_ok=True)
            with open(os.path.join(path, MARKER), "w") as f:
                json.dump({"uri": location, "ceph_conf": self.ceph_conf, "fsid": self.fsid()}, f)
                f.write("\n")

    def input_store(self, path):
        """The store an earlier phase wrote at `path`: the URI of its marker, or the local path."""
        marker = os.path.join(path, MARKER)
        if os.path.isfile(marker):
            with open(marker) as f:
                return json.load(f)["uri"]
        if self.root:
            raise JobError(f"{path} holds no {MARKER}: it was not written to RADOS; rerun the phase that writes it")
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


def write_docs(path, run_name, docs, storage=None):
    """One line per phase document, with the run's name and where its stores were."""
    with open(path, "w") as f:
        for d in docs:
            f.write(json.dumps(dict(d, run=run_name, **({"storage": storage} if storage else {}))) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("run", choices=["indexfs", "indexfs-bulk", "deltafs-write", "deltafs-compact", "deltafs-read"])
    p.add_argument("--bin", required=True, help="directory of the deltameta_* tools")
    p.add_argument("--ranks", type=int, default=4, help="client ranks")
    p.add_argument("--servers", type=int, default=2, help="servers (indexfs runs); compactor ranks and read "
                   "servers (deltafs-compact, deltafs-read)")
    p.add_argument("--n", type=int, default=50000, help="files per client rank")
    p.add_argument("--work", required=True, help="directory for this run's stores and job files")
    p.add_argument("--origin", help="DeltaFS write-phase store root (deltafs-*)")
    p.add_argument("--compacted", help="compacted store root (deltafs-compact, deltafs-read)")
    p.add_argument("--out", required=True, help="JSON Lines output")
    p.add_argument("--log", required=True, help="log of every command and its output")
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--hostfile")
    p.add_argument("--env", action="append", default=[], metavar="DELTAFS_Db_NAME=VALUE",
                   help="store setting overriding the guide's (repeatable)")
    p.add_argument("--timeout", type=int, default=3600, help="seconds allowed per job")
    p.add_argument("--keep-stores", action="store_true", help="keep the IndexFS runs' stores")
    p.add_argument("--storage-root", metavar="rados://POOL/PREFIX",
                   help="keep every store in RADOS below this root (default: local directories)")
    p.add_argument("--storage-base", default=".", metavar="DIR",
                   help="the local directory --storage-root stands for: a store path DIR/x is ROOT/x")
    p.add_argument("--ceph-conf", metavar="PATH", help="with --storage-root: the cluster's ceph.conf (CEPH_CONF "
                   "of every job; DELTAMETA_RADOS_* of this process are passed on too)")
    a = p.parse_args()
    stop_on_signals()
    overrides = dict(kv.split("=", 1) for kv in a.env)
    with open(a.log, "a") as log:
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
            else:
                docs = deltafs_read(run, a.ranks, a.servers, a.n, a.compacted)
            if a.run.startswith("indexfs") and not a.keep_stores:
                for location in run.stores.values():
                    storage.remove(location)
        except JobError as e:
            sys.exit(f"runs: {e}")
    write_docs(a.out, a.run, docs, dict(backend=storage.backend, stores=run.stores))


if __name__ == "__main__":
    main()
