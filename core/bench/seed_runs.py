#!/usr/bin/env python3
"""Runs the seed guide's three runs (IndexFS; IndexFS + bulk insertion; DeltaFS write ->
parallel compaction -> read) on the deltameta tools and prints one table: phase, Mop/s,
micros/op, ops, errors. Exits 1 if any job fails or any phase reports an error.
With --storage-root rados://POOL/PREFIX every store lives in Ceph RADOS instead (removed
afterwards), which gives the RADOS-vs-local comparison in results/measurements/2026-11.md."""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

import runs
from mpijobs import JobError, Launcher, stop_on_signals


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
    p.add_argument("--storage-root", metavar="rados://POOL/PREFIX", help="keep every store in RADOS below this")
    p.add_argument("--ceph-conf", metavar="PATH", help="with --storage-root: the cluster's ceph.conf "
                   "(default: $CEPH_CONF)")
    p.add_argument("--hostfile", help="MPICH hostfile: ranks on its hosts as the workflow places them "
                   "(config/README.md, mpi.hostfile); --work must then be a folder every host sees")
    a = p.parse_args()
    mpiexec = shutil.which("mpiexec") or sys.exit("seed_runs: mpiexec not found: run scripts/install-deps.sh")
    if not os.path.exists(os.path.join(a.bin, "deltameta_server")):
        sys.exit(f"seed_runs: no deltameta tools in {a.bin}: build the core first (scripts/build-core.sh)")
    stop_on_signals()
    if a.hostfile and not a.work:
        sys.exit("seed_runs: --hostfile needs --work on a folder every host sees (rank 0 of each job writes there)")
    work = a.work or tempfile.mkdtemp(prefix="deltameta-seed-")
    os.makedirs(work, exist_ok=True)
    rows, runs_made = [], []
    try:
        launcher = Launcher(os.path.abspath(a.bin), mpiexec, a.hostfile)
        with open(os.path.join(work, "jobs.log"), "w") as log:
            root = a.storage_root and a.storage_root.rstrip("/") + "/seed-%d-%d" % (time.time(), os.getpid())
            storage = runs.Storage(launcher, log, a.timeout, root, work, a.ceph_conf or os.environ.get("CEPH_CONF"))

            def run(name):
                runs_made.append(runs.Run(launcher, os.path.join(work, name), log, a.timeout, storage=storage))
                return runs_made[-1]
            rows += [("run1", d) for d in runs.indexfs(run("run1"), a.ranks, a.servers, a.n)]
            rows += [("run2", d) for d in runs.indexfs_bulk(run("run2"), a.ranks, a.servers, a.n)]
            r3 = run("run3")
            origin, compacted = os.path.join(r3.work, "origin"), os.path.join(r3.work, "compact")
            rows += [("run3", d) for d in runs.deltafs_write(r3, a.ranks, a.n, origin)]
            rows += [("run3", d) for d in runs.deltafs_compact(r3, a.readers, origin, compacted)]
            rows += [("run3", d) for d in runs.deltafs_read(r3, a.ranks, a.readers, a.n, compacted)]
            if root:
                for location in dict.fromkeys(loc for r in runs_made for loc in r.stores.values()):
                    storage.remove(location)
    except JobError as e:
        sys.exit(f"seed_runs: {e} (job log: {os.path.join(work, 'jobs.log')})")
    finally:
        if not a.work and sys.exc_info()[0] is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{'phase':<22} {'Mop/s':>9} {'micros/op':>10} {'ops':>9} {'errors':>7}")
    for label, d in rows:
        print(f"{label + ' ' + d['phase']:<22} {d['throughput_mops']:9.3f} {d['micros_per_op']:10.3f} "
              f"{d['ops']:9d} {d['errors']['total']:7d}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump([{"phase": label + " " + d["phase"], "mops": d["throughput_mops"],
                        "micros_per_op": d["micros_per_op"], "errors": d["errors"]["total"]} for label, d in rows],
                      f, indent=1)
    sys.exit(1 if any(d["errors"]["total"] for _, d in rows) else 0)


if __name__ == "__main__":
    main()
