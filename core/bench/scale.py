#!/usr/bin/env python3
"""Scale benchmark (not a test): the seed guide's seven phases (run 1 IndexFS insert and
lstat; run 2 bulk insertion and lstat; run 3 DeltaFS write, parallel compaction and lstat)
at several file counts per client rank (--n, default 50,000, 200,000 and 1,000,000), on our
tools and, with --original DIR, on the original prototype's binaries at the same n,
alternating which system goes first. Our runs are runs.py's (the workflow's command lines,
every lstat verified); the original's are guide.py's (the guide's command lines).

It prints three tables. Throughput: per phase and n, the median Mop/s over --repeat
repetitions (range), the original's, ours/original, ours against the smallest n, and the
1-minute load average when the phase's job ended. Memory: per job and n, the peak per rank
over the repetitions, resident (the largest VmHWM of any rank: code and shared memory
included) and private (anonymous memory: heap, stacks; the largest of RssAnon and of VmHWM
less the rank's most RssFile + RssShmem seen, so a peak shorter than the sampling period of
20 ms counts too),
the growth of private memory over the smallest n, and the load. Storage: per design and n,
the bytes of the store files per entry once the run is over (IndexFS servers stopped and
flushed; DeltaFS after compaction).

Every job has a timeout; whatever the script started is stopped on any error, SIGTERM or
Ctrl-C. The tools are copied first, so a rebuild during the benchmark cannot mix versions.
--json also keeps every repetition's figures, with our phases' CPU microseconds per
operation (clients, servers). Exit 0 when every job succeeded, 1 when one failed, 2 on bad
arguments."""
import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time

import guide
import runs
import side_by_side
from mpijobs import JobError, Launcher, process_tree, stop_on_signals
from repetitions import summarize, text

PHASES = [name for name, _ in side_by_side.PHASES]
JOBS = ["run1 servers", "run1 client", "run2 servers", "run2 client", "run3 DeltaFS write", "run3 compaction",
        "run3 servers", "run3 read client"]
DESIGNS = {"run1": "IndexFS", "run2": "IndexFS + bulk insertion", "run3": "DeltaFS (compacted)"}
# The tools of both systems by role; a client with --fs_use_local=1 is run 3's DeltaFS writer,
# any other client of run 3 its read client.
ROLE_OF_TOOL = {"deltameta_server": "servers", "deltameta_client": "client", "deltameta_client_store": "client",
                "deltameta_compactor": "compaction", "deltafs_bm_svr": "servers", "deltafs_bm_cli": "client",
                "parallel_compactor": "compaction"}
SAMPLE_S = 0.02


def rank_memory(pid, shared_max):
    """(role, whether it is a DeltaFS writer, {"resident": KiB, "private": KiB}) of a tool
    rank, else None. Resident is VmHWM; private the larger of RssAnon and VmHWM less the
    most file and shared memory (RssFile + RssShmem) the rank has held (`shared_max`, by
    pid, kept here), which keeps a peak of anonymous memory that came and went between two
    samples, and is not fooled by the mappings a rank drops as it exits."""
    try:
        role = ROLE_OF_TOOL.get(os.path.basename(os.readlink(f"/proc/{pid}/exe")))
        if not role:
            return None
        with open(f"/proc/{pid}/status") as f:
            kb = {w[0]: int(w[1]) for w in map(str.split, f) if len(w) > 1 and w[0] in
                  ("VmHWM:", "RssAnon:", "RssFile:", "RssShmem:")}
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            writer = b"--fs_use_local=1" in f.read()
    except (OSError, ValueError):
        return None
    if len(kb) < 4:
        return None
    shared = shared_max[pid] = max(shared_max.get(pid, 0), kb["RssFile:"] + kb["RssShmem:"])
    private = max(kb["RssAnon:"], kb["VmHWM:"] - shared)
    return role, writer, {"resident": kb["VmHWM:"], "private": private}


def job_label(run, role, writer):
    if run == "run3" and role == "client":
        return "run3 DeltaFS write" if writer else "run3 read client"
    return f"{run} {role}"


class MemorySampler:
    """Peak memory per rank of the jobs below this process, every SAMPLE_S: begin(run) names
    the run they belong to, end() returns {job label (JOBS): {"resident", "private"}} in KiB,
    the largest of any rank since begin (rank_memory)."""

    def __init__(self):
        self.lock, self.run, self.peaks, self.shared_max = threading.Lock(), None, {}, {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    def sample(self):
        while not self.done.wait(SAMPLE_S):
            for pid in process_tree(os.getpid()):
                got = rank_memory(pid, self.shared_max)
                with self.lock:
                    if got and self.run:
                        peak = self.peaks.setdefault(job_label(self.run, got[0], got[1]),
                                                     {"resident": 0, "private": 0})
                        for key, kb in got[2].items():
                            peak[key] = max(peak[key], kb)

    def begin(self, run):
        with self.lock:
            self.run, self.peaks, self.shared_max = run, {}, {}

    def end(self):
        with self.lock:
            peaks, self.run, self.peaks = self.peaks, None, {}
        return peaks

    def stop(self):
        self.done.set()
        self.thread.join()


def store_bytes(path):
    """The bytes of every file below `path`."""
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def checked(docs, label, ops):
    """The phase documents of a job, each with exactly `ops` operations and no error."""
    for d in docs:
        if d["ops"] != ops or d["errors"]["total"] != 0:
            raise JobError(f"{label}: {d['phase']} reports {d['ops']} ops (expected {ops}) and errors "
                           f"{d['errors']}")
    return docs


class Ours:
    """Our tools through runs.py: one repetition of the three runs at n files per rank."""

    def __init__(self, bin_dir, a, work, log, sampler):
        self.launcher = Launcher(bin_dir, a.mpiexec)
        self.a, self.work, self.log, self.sampler = a, work, log, sampler

    def stage(self, run, call):
        """Runs `call`, a job of run `run`; (its result, its jobs' peaks, the load after)."""
        self.sampler.begin(run)
        try:
            result = call()
        finally:
            peaks = self.sampler.end()
        return result, peaks, os.getloadavg()[0]

    def run(self, n):
        a, total = self.a, self.a.ranks * n
        root = os.path.join(self.work, "ours", f"n{n}")
        shutil.rmtree(root, ignore_errors=True)
        got, memory, disk = {}, {}, {}

        def new_run(name):
            return runs.Run(self.launcher, os.path.join(root, name), self.log, a.timeout)

        def record(phases, docs, label, peaks, load):
            for phase, doc in zip(phases, checked(docs, label, total), strict=True):
                got[phase] = {"mops": doc["throughput_mops"], "load": load,
                              "cpu_us_per_op": {k: v / doc["ops"] * 1e6 for k, v in doc["cpu_s"].items()}}
            memory.update({job: dict(kb, load=load) for job, kb in peaks.items()})

        r1 = new_run("run1")
        docs, peaks, load = self.stage("run1", lambda: runs.indexfs(r1, a.ranks, a.servers, n))
        record(["run1 insert", "run1 lstat"], docs, "run 1", peaks, load)
        disk["run1"] = store_bytes(os.path.join(r1.work, "svr")) / total
        shutil.rmtree(r1.work, ignore_errors=True)

        r2 = new_run("run2")
        docs, peaks, load = self.stage("run2", lambda: runs.indexfs_bulk(r2, a.ranks, a.servers, n))
        record(["run2 bulk insert", "run2 lstat"], docs, "run 2", peaks, load)
        disk["run2"] = store_bytes(os.path.join(r2.work, "svr")) / total
        shutil.rmtree(r2.work, ignore_errors=True)

        r3 = new_run("run3")
        origin, compacted = os.path.join(r3.work, "origin"), os.path.join(r3.work, "compact")
        docs, peaks, load = self.stage("run3", lambda: runs.deltafs_write(r3, a.ranks, n, origin))
        record(["run3 DeltaFS insert"], docs, "run 3 write", peaks, load)
        docs, peaks, load = self.stage("run3", lambda: runs.deltafs_compact(r3, a.readers, origin, compacted))
        record(["run3 compaction"], docs, "run 3 compaction", peaks, load)
        disk["run3"] = store_bytes(compacted) / total
        docs, peaks, load = self.stage("run3", lambda: runs.deltafs_read(r3, a.ranks, a.readers, n, compacted))
        record(["run3 lstat"], docs, "run 3 read", peaks, load)
        shutil.rmtree(root, ignore_errors=True)
        return got, memory, disk


class Original:
    """The original prototype's binaries through guide.py's command lines."""

    def __init__(self, bin_dir, a, work, jobs, sampler):
        self.a, self.work, self.jobs, self.bin_dir, self.sampler = a, work, jobs, bin_dir, sampler

    def run(self, n):
        a = argparse.Namespace(**dict(vars(self.a), n=n, keep_stores=True))
        system = guide.GuideTools("original", self.bin_dir, a, self.work)
        got, memory, disk = {}, {}, {}
        for run in ("run1", "run2", "run3"):
            self.sampler.begin(run)
            try:
                phases, _ = system.run(self.jobs, run, f"n{n}-")
            finally:
                peaks = self.sampler.end()
            load = os.getloadavg()[0]
            got.update({phase: {"mops": r["mops"], "load": load} for phase, r in phases.items()})
            memory.update({job: dict(kb, load=load) for job, kb in peaks.items()})
            root = os.path.join(self.work, "original", run)
            disk[run] = store_bytes(os.path.join(root, "compact" if run == "run3" else "svr")) / (a.ranks * n)
            shutil.rmtree(root, ignore_errors=True)
        return got, memory, disk


def median_of(values):
    return statistics.median(values) if values else None


def tables(results, ns, systems):
    """The three text tables and their rows (JSON) from results[system][n] = list of
    (got, memory, disk) per repetition."""
    def per(system, n, part, key, field=None):
        """The values of one figure over the repetitions: rep[part][key][field] (or rep[part][key])."""
        reps = [rep[part][key] for rep in results.get(system, {}).get(n, []) if key in rep[part]]
        return [r[field] for r in reps] if field else reps

    first = ns[0]
    rows = {"throughput": [], "memory": [], "storage": []}
    lines = []
    for phase in PHASES:
        base = median_of(per("ours", first, 0, phase, "mops"))
        for n in ns:
            ours = summarize(per("ours", n, 0, phase, "mops"))
            orig = summarize(per("original", n, 0, phase, "mops"))
            row = {"phase": phase, "n": n, "ours": ours, "original": orig,
                   "ratio": ours["median"] / orig["median"] if ours and orig and orig["median"] > 0 else None,
                   "vs_first_n": ours["median"] / base if ours and base else None,
                   "load": median_of(per("ours", n, 0, phase, "load"))}
            rows["throughput"].append(row)
            lines.append([phase, f"{n:,}", text(ours), text(orig), num(row["ratio"], 2),
                          num(row["vs_first_n"], 2), num(row["load"], 1)])
    throughput = side_by_side.aligned(["phase", "n", "ours Mop/s", "original Mop/s", "ours/orig",
                                       f"vs n={first:,}", "load"], lines)
    lines = []
    for job in JOBS:
        base = max(per("ours", first, 1, job, "private"), default=None)
        for n in ns:
            mib = {f"{s}_{k}": (max(per(s, n, 1, job, k), default=0) / 1024 or None)
                   for s in systems for k in ("resident", "private")}
            private = max(per("ours", n, 1, job, "private"), default=None)
            row = dict({"job": job, "n": n, "load": median_of(per("ours", n, 1, job, "load")),
                        "private_growth_mib": (private - base) / 1024 if private and base else None}, **mib)
            rows["memory"].append(row)
            lines.append([job, f"{n:,}", num(mib.get("ours_resident"), 1), num(mib.get("ours_private"), 1),
                          num(mib.get("original_resident"), 1), num(mib.get("original_private"), 1),
                          num(row["private_growth_mib"], 1, sign=True), num(row["load"], 1)])
    memory = side_by_side.aligned(["job", "n", "resident MiB", "private MiB", "orig resident", "orig private",
                                   f"private vs n={first:,}", "load"], lines)
    lines = []
    for run, design in DESIGNS.items():
        for n in ns:
            ours, orig = median_of(per("ours", n, 2, run)), median_of(per("original", n, 2, run))
            rows["storage"].append({"design": design, "n": n, "ours": ours, "original": orig})
            lines.append([design, f"{n:,}", num(ours, 1), num(orig, 1)])
    storage = side_by_side.aligned(["design", "n", "bytes/entry", "original"], lines)
    return throughput, memory, storage, rows


def num(value, digits, sign=False):
    if value is None:
        return "-"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def parse_ns(text):
    try:
        ns = sorted({int(x.replace("_", "")) for x in text.split(",") if x.strip()})
    except ValueError:
        ns = []
    if not ns or ns[0] < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected positive file counts separated by commas")
    return ns


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=os.path.join(here, "..", "..", "build", "core"),
                   help="directory holding our deltameta_* tools (default: build/core)")
    guide.add_original_argument(p)
    p.add_argument("--n", type=parse_ns, default=[50000, 200000, 1000000], metavar="N[,N...]",
                   help="files per client rank (default 50000,200000,1000000)")
    p.add_argument("--ranks", type=int, default=4, help="client ranks (default 4)")
    p.add_argument("--servers", type=int, default=2, help="servers of runs 1-2 (default 2, the guide's)")
    p.add_argument("--readers", type=int, default=4,
                   help="compactor ranks and read servers of run 3 (default 4, the guide's)")
    p.add_argument("--repeat", type=int, default=1, help="repetitions at each n (default 1)")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.add_argument("--work", help="directory for the stores (default: a fresh one in /tmp, removed after)")
    p.add_argument("--mpiexec", default=shutil.which("mpirun.mpich") or shutil.which("mpiexec"),
                   help="MPI launcher (default: mpirun.mpich as in the guide, else mpiexec)")
    p.add_argument("--info-port", type=int, default=guide.GUIDE_INFO_PORT,
                   help="the original's servers' info port (default 10086, the guide's)")
    p.add_argument("--timeout", type=int, default=3600, help="seconds allowed per job (default 3600)")
    p.add_argument("--ready-timeout", type=int, default=120, help="seconds for servers to start")
    p.add_argument("--stop-timeout", type=int, default=300, help="seconds for servers to exit after SIGINT")
    a = p.parse_args()
    if a.ranks < 1 or a.servers < 1 or a.readers < 1 or a.repeat < 1:
        p.error("--ranks, --servers, --readers and --repeat must be positive")
    if not a.mpiexec or not shutil.which(a.mpiexec):
        p.error(f"MPI launcher {a.mpiexec or 'mpirun.mpich/mpiexec'} not found: install mpich or pass --mpiexec")
    a.mpiexec = shutil.which(a.mpiexec)
    if a.original is not None and guide.original_problem(a.original):
        p.error(guide.original_problem(a.original))

    temp_work = a.work is None
    work = os.path.abspath(a.work or tempfile.mkdtemp(prefix="scale-"))
    os.makedirs(os.path.join(work, "logs"), exist_ok=True)
    bins = {"ours": os.path.abspath(a.bin)}
    if a.original:
        bins["original"] = os.path.abspath(a.original)
    try:
        tools = {k: side_by_side.snapshot_tools(k, d, os.path.join(work, "tools", k)) for k, d in bins.items()}
    except SystemExit:
        if temp_work:
            shutil.rmtree(work, ignore_errors=True)
        raise

    stop_on_signals()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sampler = MemorySampler()
    jobs = guide.Jobs(os.path.join(work, "logs"), a.timeout,
                      [t for names in guide.TOOL_NAMES.values() for t in names.values()])
    log = open(os.path.join(work, "logs", "runs.log"), "a")
    systems = {"ours": Ours(tools["ours"], a, work, log, sampler)}
    if a.original:
        systems["original"] = Original(tools["original"], a, work, jobs, sampler)
    results, failed = {k: {} for k in systems}, None
    host = {"hostname": platform.node(), "cpus": os.cpu_count(), "loadavg_start": os.getloadavg(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    print(f"scale: {a.ranks} client ranks x {', '.join(f'{n:,}' for n in a.n)} files, {a.servers} servers (runs "
          f"1-2), {a.readers} compactor ranks / read servers (run 3), {a.repeat} repetition(s), systems: "
          f"{', '.join(systems)}; {host['cpus']} CPUs; logs in {os.path.join(work, 'logs')}", flush=True)
    try:
        for i, n in enumerate(a.n):
            for rep in range(a.repeat):
                order = list(systems)[::-1 if (i + rep) % 2 else 1]
                for key in order:
                    t0 = time.monotonic()
                    got, memory, disk = systems[key].run(n)
                    results[key].setdefault(n, []).append((got, memory, disk))
                    print(f"  n={n:,} rep {rep + 1} {key:<8} " +
                          ", ".join(f"{ph} {r['mops']:.3f}" for ph, r in got.items()) +
                          f" Mop/s ({time.monotonic() - t0:.0f} s, load {os.getloadavg()[0]:.1f})", flush=True)
    except JobError as e:
        failed = str(e)
    except KeyboardInterrupt:
        failed = "interrupted"
    finally:
        jobs.kill_all()
        sampler.stop()
        log.close()
        for d in ("tools", "ours", "original"):
            shutil.rmtree(os.path.join(work, d), ignore_errors=True)
    if failed:
        print(f"scale: {failed} (logs: {os.path.join(work, 'logs')})", file=sys.stderr)
        sys.exit(1)
    if temp_work:
        shutil.rmtree(work, ignore_errors=True)

    throughput, memory, storage, rows = tables(results, a.n, list(systems))
    host["loadavg_end"] = os.getloadavg()
    print(f"\n{host['date']}, {host['hostname']}, {host['cpus']} CPUs; load is the 1-minute load average when "
          f"the phase's job ended")
    print("\n" + throughput + "\n\n" + memory + "\n\n" + storage)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"schema": "deltameta.scale/1", "ns": a.n, "ranks": a.ranks, "servers": a.servers,
                       "readers": a.readers, "repeat": a.repeat, "systems": bins, "host": host, **rows,
                       "repetitions": results}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
