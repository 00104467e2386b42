#!/usr/bin/env python3
"""Runs the seed guide's three runs (IndexFS; IndexFS + bulk insertion; DeltaFS write ->
parallel compaction -> read) on the deltameta tools, with the guide's flags, and prints one
table: phase, Mop/s, micros/op, errors. Exits 1 if any phase fails or reports an error."""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

GUIDE_SERVER_ENV = {
    "DELTAFS_Db_write_ahead_log_buffer": "65536",
    "DELTAFS_Db_disable_write_ahead_logging": "0",
    "DELTAFS_Db_disable_compaction": "0",
    "DELTAFS_Db_l0_soft_limit": "8",
    "DELTAFS_Db_l0_hard_limit": "12",
    "DELTAFS_Db_compression": "1",
}


class Runner:
    def __init__(self, bin_dir, mpiexec, work, timeout):
        self.bin, self.mpiexec, self.work, self.timeout = bin_dir, mpiexec, work, timeout
        self.rows = []

    def tool(self, name):
        return os.path.join(self.bin, "deltameta_" + name)

    def mpi(self, ranks, env, argv):
        cmd = [self.mpiexec, "-n", str(ranks)]
        for k, v in env.items():
            cmd += ["-env", k, v]
        return cmd + argv

    def job(self, label, ranks, env, argv):
        """Runs one MPI job to completion and records its JSON phases."""
        json_path = os.path.join(self.work, label + ".json")
        cmd = self.mpi(ranks, env, argv + ["--json=" + json_path])
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout)
        sys.stderr.write(res.stdout + res.stderr)
        if res.returncode != 0:
            raise RuntimeError(f"{label}: exit code {res.returncode}")
        with open(json_path) as f:
            for line in f:
                doc = json.loads(line)
                self.rows.append((label + " " + doc["phase"], doc))

    def servers(self, ranks, env, argv):
        """Starts a server job; returns (process, info URI) once it is ready."""
        ready = os.path.join(self.work, "servers.ready")
        if os.path.exists(ready):
            os.remove(ready)
        cmd = self.mpi(ranks, env, argv + ["--info_port=0", "--ready_file=" + ready])
        proc = subprocess.Popen(cmd, start_new_session=True, stdout=sys.stderr, stderr=sys.stderr)
        deadline = time.monotonic() + 60
        while not os.path.exists(ready):
            if proc.poll() is not None:
                raise RuntimeError(f"servers exited with {proc.returncode} before becoming ready")
            if time.monotonic() > deadline:
                stop(proc)
                raise RuntimeError("servers not ready within 60 s")
            time.sleep(0.05)
        with open(ready) as f:
            return proc, f.read().strip()


def stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode


def with_servers(r, ranks, env, argv, body):
    proc, uri = r.servers(ranks, env, argv)
    try:
        body(uri)
    finally:
        if stop(proc) != 0:
            raise RuntimeError(f"servers exited with {proc.returncode}")


def run_all(r, ranks, n, servers, readers):
    w = r.work
    common = [f"--n={n}", "--share_dir=1", "--skip_fs_checks=0"]
    srv = ["--skip_fs_checks=0", "--ports_per_rank=1", "--rpc_threads=2"]
    with_servers(r, servers, GUIDE_SERVER_ENV, [r.tool("server"), f"--db={w}/run1/svr"] + srv,
                 lambda uri: r.job("run1", ranks, {}, [r.tool("client"), "--read_phases=1",
                                                       "--info_svr_uri=" + uri] + common))
    with_servers(r, servers, GUIDE_SERVER_ENV, [r.tool("server"), f"--db={w}/run2/svr"] + srv,
                 lambda uri: r.job("run2", ranks, {}, [r.tool("client"), "--bk=1", f"--db={w}/run2/cli",
                                                       "--read_phases=1", "--info_svr_uri=" + uri] + common))
    write_env = {"DELTAFS_Db_write_ahead_log_buffer": "65536", "DELTAFS_Db_disable_write_ahead_logging": "0",
                 "DELTAFS_Db_disable_compaction": "1", "DELTAFS_Db_compression": "1"}
    r.job("run3", ranks, write_env, [r.tool("client"), f"--db={w}/run3/origin", "--share_dir=1", f"--n={n}",
                                     "--read_phases=0", "--skip_fs_checks=1", "--fs_use_local=1"])
    r.job("run3", readers, {"DELTAFS_Db_disable_write_ahead_logging": "1", "DELTAFS_Db_compression": "1"},
          [r.tool("compactor"), f"--src_dir={w}/run3/origin", f"--dst_dir={w}/run3/compact",
           "--rpc_async_sender_threads=16", "--rpc_worker_threads=0", "--rpc_batch_min=4", "--rpc_batch_max=8",
           "--rpc_threads=2"])
    with_servers(r, readers, {}, [r.tool("server"), "--use_existing_fs=1", f"--db={w}/run3/compact"] + srv,
                 lambda uri: r.job("run3", ranks, {}, [r.tool("client"), "--use_existing_fs=1", "--write_phases=0",
                                                       "--read_phases=1", "--info_svr_uri=" + uri] + common))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bin", default=os.path.join(here, "..", "..", "build", "core"),
                   help="directory holding the deltameta_* tools (default: build/core)")
    p.add_argument("--ranks", type=int, default=4, help="client ranks (default 4)")
    p.add_argument("--n", type=int, default=50000, help="files per client rank (default 50000)")
    p.add_argument("--servers", type=int, default=2, help="servers for runs 1-2 (default 2)")
    p.add_argument("--readers", type=int, default=4, help="compactor ranks = read servers in run 3 (default 4)")
    p.add_argument("--work", help="scratch directory (default: a fresh temporary directory, removed after)")
    p.add_argument("--json", help="also write the table as JSON to this file")
    p.add_argument("--timeout", type=int, default=1800, help="seconds allowed per job (default 1800)")
    a = p.parse_args()
    mpiexec = shutil.which("mpiexec") or sys.exit("seed_runs: mpiexec not found: run scripts/install-deps.sh")
    if not os.path.exists(os.path.join(a.bin, "deltameta_server")):
        sys.exit(f"seed_runs: no deltameta tools in {a.bin}: build the core first (scripts/build-core.sh)")
    work = a.work or tempfile.mkdtemp(prefix="deltameta-seed-")
    r = Runner(os.path.abspath(a.bin), mpiexec, work, a.timeout)
    try:
        run_all(r, a.ranks, a.n, a.servers, a.readers)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        sys.exit(f"seed_runs: {e}")
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{'phase':<22} {'Mop/s':>9} {'micros/op':>10} {'ops':>9} {'errors':>7}")
    failed = False
    for label, d in r.rows:
        print(f"{label:<22} {d['throughput_mops']:9.3f} {d['micros_per_op']:10.3f} {d['ops']:9d} {d['errors']['total']:7d}")
        failed |= d["errors"]["total"] > 0
    if a.json:
        with open(a.json, "w") as f:
            json.dump([{"phase": label, "mops": d["throughput_mops"], "errors": d["errors"]["total"]}
                       for label, d in r.rows], f, indent=1)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
