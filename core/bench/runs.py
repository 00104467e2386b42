#!/usr/bin/env python3
"""The seed guide's runs as functions, with its flags and store settings, on the deltameta
tools: run 1 IndexFS, run 2 IndexFS + bulk insertion, run 3 DeltaFS (write, compaction,
read). Each writes the phases' JSON documents to `out` (JSON Lines, with a `run` field).
Also a command line, one run or DeltaFS phase per call (used by the workflow's rules)."""
import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jobs import JobError, Launcher, ServerJob, run_job, stop_on_signals  # noqa: E402

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


class Run:
    """Where one run keeps its stores, logs and results."""

    def __init__(self, launcher, work, log, timeout, env_overrides=None):
        self.launcher, self.work, self.log, self.timeout = launcher, work, log, timeout
        self.env_overrides = env_overrides or {}
        os.makedirs(work, exist_ok=True)

    def env(self, base):
        return dict(base, **self.env_overrides)

    def client(self, label, ranks, flags, env=None):
        path = os.path.join(self.work, label + ".jsonl")
        return run_job(self.launcher, label, ranks, self.env(env or {}), "client", flags, path, self.log,
                       self.timeout)

    def servers(self, ranks, db, env, **flags):
        return ServerJob(self.launcher, ranks, self.env(env), dict(SERVER_FLAGS, db=db, **flags),
                         os.path.join(self.work, "servers.ready"), self.log)


def client_flags(n, **more):
    return dict({"share_dir": 1, "n": n, "skip_fs_checks": 0}, **more)


def indexfs(run, ranks, servers, n):
    with run.servers(servers, os.path.join(run.work, "svr"), SERVER_ENV) as s:
        return run.client("indexfs", ranks, client_flags(n, read_phases=1, info_svr_uri=s.uri))


def indexfs_bulk(run, ranks, servers, n):
    with run.servers(servers, os.path.join(run.work, "svr"), SERVER_ENV) as s:
        return run.client("indexfs-bulk", ranks, client_flags(n, bk=1, db=os.path.join(run.work, "cli"),
                                                               read_phases=1, info_svr_uri=s.uri))


def deltafs_write(run, ranks, n, origin):
    return run.client("deltafs-write", ranks, client_flags(n, db=origin, read_phases=0, skip_fs_checks=1,
                                                           fs_use_local=1), env=DELTAFS_WRITE_ENV)


def deltafs_compact(run, compactors, origin, compacted):
    path = os.path.join(run.work, "deltafs-compact.jsonl")
    flags = dict(COMPACTOR_COMPAT_FLAGS, src_dir=origin, dst_dir=compacted, overwrite=1)
    return run_job(run.launcher, "deltafs-compact", compactors, run.env(COMPACTOR_ENV), "compactor", flags, path,
                   run.log, run.timeout)


def deltafs_read(run, ranks, readers, n, compacted):
    with run.servers(readers, compacted, {}, use_existing_fs=1) as s:
        return run.client("deltafs-read", ranks, client_flags(n, use_existing_fs=1, write_phases=0, read_phases=1,
                                                              info_svr_uri=s.uri))


def write_docs(path, run_name, docs):
    with open(path, "w") as f:
        for d in docs:
            f.write(json.dumps(dict(d, run=run_name)) + "\n")


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
    a = p.parse_args()
    stop_on_signals()
    overrides = dict(kv.split("=", 1) for kv in a.env)
    launcher = Launcher(os.path.abspath(a.bin), a.mpiexec, a.hostfile)
    with open(a.log, "a") as log:
        run = Run(launcher, a.work, log, a.timeout, overrides)
        try:
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
        except JobError as e:
            sys.exit(f"runs: {e}")
        if a.run.startswith("indexfs") and not a.keep_stores:
            for d in ("svr", "cli"):
                shutil.rmtree(os.path.join(a.work, d), ignore_errors=True)
    write_docs(a.out, a.run, docs)


if __name__ == "__main__":
    main()
