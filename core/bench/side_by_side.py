#!/usr/bin/env python3
"""Side-by-side benchmark: the seed guide's three runs on our tools and, with --original DIR,
on the original DeltaFS prototype (deltafs_bm_svr, deltafs_bm_cli, parallel_compactor) in
the same invocation, so both see the same machine and the same noise.

Each system runs the guide's command lines as written: the same flags, DELTAFS_Db_*
settings and rank counts (run 1 IndexFS and run 2 bulk insertion with 2 servers; run 3
DeltaFS write, parallel compaction on 4 ranks and reads through 4 read-only servers), only
the file count (--n), the client ranks (--ranks) and the store root change. Servers are
awaited by their "Running..." line (both systems print it; never a fixed sleep) on the
guide's info port 10086 (--info-port moves both systems), and stopped with SIGINT like the
guide's ^C. Results are the "==<phase> : ... Mop/s ..." lines of the clients and the
compactor, mapped to seven phases: run1 insert/lstat, run2 bulk insert/lstat, run3
DeltaFS insert, compaction ("==mapreduce") and lstat ("==fstats" lines are lstats). Mop/s
is computed from each line's ops and seconds (the printed Mop/s, rounded to 0.001, is the
same quantity).

The runs alternate which system goes first, per run and per repetition. --repeat K runs
everything K times; the table gives per phase our median (range), the original's median
(range), the goal, ours/original of the medians and whether our median meets the goal.
A second table gives each job's peak memory per rank, the maximum over the repetitions,
ours beside the original's: resident (the largest VmHWM of any one rank: everything it
mapped in, code and shared memory included) and private (the largest anonymous memory,
RssAnon, seen in any one rank: heap and stacks), sampled every 50 ms ("-": a job too
short to be sampled).
Every job has a timeout; whatever the script started is stopped on any error, SIGTERM or
Ctrl-C. The tools are copied before the first job, so a rebuild during the benchmark does
not mix versions. Exit 0 when every job succeeded and printed its lines, 1 when one failed,
2 on bad arguments."""
import argparse
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import sys
import tempfile
import threading
import time

from mpijobs import Job, JobError, Launcher, flags, process_tree, rank_memory_kb, stop_on_signals
from mpijobs import wait_until

# The guide's settings and flags (seed guide, runs 1-3), shared with the workflow's runs.
from runs import COMPACTOR_COMPAT_FLAGS as COMPACTOR_FLAGS
from runs import COMPACTOR_ENV, SERVER_ENV
from runs import DELTAFS_WRITE_ENV as WRITE_ENV

GUIDE_INFO_PORT = 10086
MEMORY_SAMPLE_S = 0.05
JOB_LABELS = {"svr": "servers", "cli": "client", "write": "DeltaFS write", "compact": "compaction",
              "read": "read client"}

# (phase, goal in Mop/s): the project's performance goals, at 4 client ranks x 50,000 files.
PHASES = [("run1 insert", 0.07), ("run1 lstat", 0.07), ("run2 bulk insert", 1.0), ("run2 lstat", 0.07),
          ("run3 DeltaFS insert", 1.0), ("run3 compaction", 0.7), ("run3 lstat", 0.06)]
GOALS = dict(PHASES)

SYSTEMS = {
    # deltameta_client becomes deltameta_client_store for --bk=1 and --fs_use_local=1.
    "ours": {"server": "deltameta_server", "client": "deltameta_client", "compactor": "deltameta_compactor",
             "client_store": "deltameta_client_store"},
    "original": {"server": "deltafs_bm_svr", "client": "deltafs_bm_cli", "compactor": "parallel_compactor"},
}
RESULT = re.compile(r"==(\w+)\s*:\s*([0-9.]+) micros/op,\s*([0-9.]+) Mop/s,\s*([0-9.]+) s,\s*(\d+) ops")


class Jobs:
    """Every mpiexec job the script starts; kill_all() stops whatever is still running.
    peak_kb[name] is a job's peak memory in KiB, {"resident": the largest resident-set
    high-water mark (VmHWM) of any one of its ranks, "private": the largest anonymous
    resident memory (RssAnon: heap, stacks; no code or shared memory) of any one rank seen},
    sampled every MEMORY_SAMPLE_S while the job runs."""

    def __init__(self, log_dir, timeout, tool_names):
        self.log_dir, self.timeout, self.running = log_dir, timeout, []
        self.tool_names, self.peak_kb = set(tool_names), {}
        self.commands = open(os.path.join(log_dir, "commands.log"), "a")
        self.done = threading.Event()
        self.sampler = threading.Thread(target=self.sample_memory, daemon=True)
        self.sampler.start()

    def sample_memory(self):
        while not self.done.wait(MEMORY_SAMPLE_S):
            for job in list(self.running):
                peak = self.peak_kb.setdefault(job.name, {"resident": 0, "private": 0})
                for pid in process_tree(job.proc.pid):
                    for key, kb in rank_memory_kb(pid, self.tool_names).items():
                        peak[key] = max(kb, peak[key])

    def start(self, launcher, name, ranks, env, tool, tool_flags, cwd):
        cmd = launcher.command(ranks, tool, flags(**tool_flags), env)
        self.commands.write(f"[{time.strftime('%H:%M:%S')}] {name}: " + " ".join(cmd) + "\n")
        self.commands.flush()
        job = Job(name, cmd, os.path.join(self.log_dir, name + ".out"), os.path.join(self.log_dir, name + ".err"),
                  cwd=cwd)
        self.running.append(job)
        return job

    def finish(self, job, grace=30):
        """Stops `job` if it still runs (SIGTERM, then SIGKILL) and any rank it left behind."""
        job.stop(grace, tree=True)
        if job in self.running:
            self.running.remove(job)

    def run(self, launcher, name, ranks, env, tool, tool_flags, cwd):
        """Runs a job to completion within the timeout; returns its stdout."""
        job = self.start(launcher, name, ranks, env, tool, tool_flags, cwd)
        try:
            rc = job.wait(self.timeout)
            if rc is None:
                raise JobError(f"{name}: did not finish within {self.timeout} s (stopped; see {job.out_path})")
        finally:
            self.finish(job)
        if rc != 0:
            raise JobError(f"{name}: exited with code {rc}: {last_line(job.stderr())} (see {job.err_path})")
        return job.stdout()

    def kill_all(self):
        for job in list(self.running):
            self.finish(job, grace=10)
        self.done.set()
        self.sampler.join()
        self.commands.close()


def last_line(text):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no error output"


class Servers:
    """Context manager: a server job started with the guide's command line, awaited by its
    "Running..." line and stopped with SIGINT (the guide's ^C)."""

    def __init__(self, jobs, launcher, name, ranks, env, flags, cwd, port, ready_timeout, stop_timeout):
        self.jobs, self.launcher, self.name, self.ranks = jobs, launcher, name, ranks
        self.env, self.flags, self.cwd, self.port = env, flags, cwd, port
        self.ready_timeout, self.stop_timeout = ready_timeout, stop_timeout

    def __enter__(self):
        if port_in_use(self.port):
            raise JobError(f"{self.name}: port {self.port} on 127.0.0.1 is in use by another program "
                           f"(pass --info-port with a free port)")
        self.job = self.jobs.start(self.launcher, self.name, self.ranks, self.env, "server", self.flags, self.cwd)
        if not wait_until(self.said_running, self.ready_timeout):
            self.jobs.finish(self.job)
            raise JobError(f"{self.name}: no Running... within {self.ready_timeout} s (see {self.job.out_path})")
        return self

    def said_running(self):
        """Whether the servers printed Running...; fails if they exited first."""
        if "Running..." in self.job.stdout():
            return True
        if not self.job.running():
            self.jobs.finish(self.job)
            raise JobError(f"{self.name}: exited with code {self.job.proc.returncode} before printing Running...: "
                           f"{last_line(self.job.stderr())} (see {self.job.err_path})")
        return False

    def __exit__(self, exc_type, exc, tb):
        job = self.job
        if job.running():
            job.signal(signal.SIGINT)  # mpiexec passes it on to every rank, like ^C
            job.wait(self.stop_timeout)
        still_running = job.running()
        self.jobs.finish(job)
        if exc_type is None:
            if still_running:
                raise JobError(f"{self.name}: still running {self.stop_timeout} s after SIGINT (killed)")
            if job.proc.returncode != 0:
                raise JobError(f"{self.name}: exited with code {job.proc.returncode} after SIGINT: "
                               f"{last_line(job.stderr())} (see {job.err_path})")
        return False


def port_in_use(port):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def results(text, name, expect):
    """{phase: {mops, micros_per_op, seconds, ops}} of the '==phase' lines; `expect` maps each
    phase that must be there to the least number of ops it must report."""
    found = {}
    for m in RESULT.finditer(text):
        micros, mops, seconds, ops = float(m[2]), float(m[3]), float(m[4]), int(m[5])
        found[m[1]] = {"mops": ops / seconds / 1e6 if seconds > 0 else mops, "printed_mops": mops,
                       "micros_per_op": micros, "seconds": seconds, "ops": ops}
    for phase, ops in expect.items():
        if phase not in found:
            raise JobError(f"{name}: printed no '=={phase}' result line")
        if found[phase]["ops"] < ops:
            raise JobError(f"{name}: '=={phase}' reports {found[phase]['ops']} ops, expected {ops}")
    return found


class System:
    """One system's tools and store root, running the guide's three runs."""

    def __init__(self, key, bin_dir, a, work):
        self.key, self.a, self.work = key, a, work
        self.launcher = Launcher(bin_dir, a.mpiexec, names=SYSTEMS[key])
        self.uri = f"tcp://127.0.0.1:{a.info_port}"
        self.port_flags = {} if a.info_port == GUIDE_INFO_PORT else {"info_port": a.info_port}

    def prepare(self, run):
        """The guide's `mkdir -p /tmp/deltafs/runN; rm -rf /tmp/deltafs/runN/*`."""
        root = os.path.join(self.work, self.key, run)
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        return root

    def servers(self, jobs, name, ranks, env, flags):
        return Servers(jobs, self.launcher, name, ranks, env, dict(flags, **self.port_flags), self.work,
                       self.a.info_port, self.a.ready_timeout, self.a.stop_timeout)

    def run(self, jobs, run, prefix):
        a, total = self.a, self.a.ranks * self.a.n
        root = self.prepare(run)
        name = f"{prefix}{self.key}-{run}"
        server_flags = {"skip_fs_checks": 0, "ports_per_rank": 1, "rpc_threads": 2}
        if run == "run1":
            with self.servers(jobs, name + "-svr", a.servers, SERVER_ENV, dict(db=f"{root}/svr", **server_flags)):
                out = jobs.run(self.launcher, name + "-cli", a.ranks, {}, "client",
                               {"share_dir": 1, "n": a.n, "read_phases": 1, "info_svr_uri": self.uri,
                                "skip_fs_checks": 0}, self.work)
            r = results(out, name + "-cli", {"insert": total, "fstats": total})
            got = {"run1 insert": r["insert"], "run1 lstat": r["fstats"]}
        elif run == "run2":
            with self.servers(jobs, name + "-svr", a.servers, SERVER_ENV, dict(db=f"{root}/svr", **server_flags)):
                out = jobs.run(self.launcher, name + "-cli", a.ranks, {}, "client",
                               {"share_dir": 1, "n": a.n, "bk": 1, "db": f"{root}/cli", "read_phases": 1,
                                "info_svr_uri": self.uri, "skip_fs_checks": 0}, self.work)
            r = results(out, name + "-cli", {"insert": total, "fstats": total})
            got = {"run2 bulk insert": r["insert"], "run2 lstat": r["fstats"]}
        else:
            out = jobs.run(self.launcher, name + "-write", a.ranks, WRITE_ENV, "client",
                           {"db": f"{root}/origin", "share_dir": 1, "n": a.n, "read_phases": 0,
                            "skip_fs_checks": 1, "fs_use_local": 1}, self.work)
            write = results(out, name + "-write", {"insert": total})
            out = jobs.run(self.launcher, name + "-compact", a.readers, COMPACTOR_ENV, "compactor",
                           dict({"src_dir": f"{root}/origin", "dst_dir": f"{root}/compact"}, **COMPACTOR_FLAGS),
                           self.work)
            compact = results(out, name + "-compact", {"mapreduce": total})
            with self.servers(jobs, name + "-svr", a.readers, {},
                              dict({"use_existing_fs": 1, "db": f"{root}/compact"}, **server_flags)):
                out = jobs.run(self.launcher, name + "-read", a.ranks, {}, "client",
                               {"use_existing_fs": 1, "share_dir": 1, "n": a.n, "write_phases": 0,
                                "read_phases": 1, "info_svr_uri": self.uri, "skip_fs_checks": 0}, self.work)
            read_ = results(out, name + "-read", {"fstats": total})
            got = {"run3 DeltaFS insert": write["insert"], "run3 compaction": compact["mapreduce"],
                   "run3 lstat": read_["fstats"]}
        if not a.keep_stores:
            shutil.rmtree(root, ignore_errors=True)
        jobs_of_run = {"run1": ["svr", "cli"], "run2": ["svr", "cli"], "run3": ["write", "compact", "svr", "read"]}
        memory = {f"{run} {JOB_LABELS[j]}": jobs.peak_kb.get(f"{name}-{j}", {"resident": 0, "private": 0})
                  for j in jobs_of_run[run]}
        return got, memory


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def snapshot_tools(key, bin_dir, dest):
    """Copies one system's tools to `dest` (a rebuild during the benchmark cannot mix
    versions); exits 2 with one line if any is missing."""
    names = SYSTEMS[key].values()
    missing = [n for n in names if not os.access(os.path.join(bin_dir, n), os.X_OK)]
    if missing:
        flag, hint = ("--bin", "build the core first (scripts/build-core.sh)") if key == "ours" else \
            ("--original", "give the directory holding the original prototype's built tools, e.g. its install/bin")
        print(f"side_by_side: {flag} {bin_dir}: no executable {', '.join(missing)} there: {hint}", file=sys.stderr)
        sys.exit(2)
    os.makedirs(dest)
    for n in names:
        shutil.copy2(os.path.join(bin_dir, n), dest)
    return dest


def summarize(values):
    """The benchmarks' summary of repetitions (scale.py's too): the values, their median,
    lowest and highest; None for no values."""
    if not values:
        return None
    return {"values": values, "median": statistics.median(values), "min": min(values), "max": max(values)}


def fmt(s):
    if not s:
        return "-"
    return f"{s['median']:.3f} ({s['min']:.3f}-{s['max']:.3f})"


def table(rows, with_original):
    head = ["phase", "ours Mop/s", "original Mop/s", "goal", "ours/orig", "goal met"]
    lines = [[r["phase"], fmt(r["ours"]), fmt(r["original"]) if with_original else "-", f">= {r['goal']}",
              f"{r['ratio']:.2f}" if r["ratio"] is not None else "-", "yes" if r["goal_met"] else "no"]
             for r in rows]
    return aligned(head, lines)


def memory_table(rows):
    head = ["job", "resident MiB ours", "original", "private MiB ours", "original"]
    mib = lambda v: f"{v:.1f}" if v else "-"  # noqa: E731  (0: the job ended before a sample)
    lines = [[r["job"], mib(r["resident_mib"]["ours"]), mib(r["resident_mib"]["original"]),
              mib(r["private_mib"]["ours"]), mib(r["private_mib"]["original"])] for r in rows]
    return aligned(head, lines)


def aligned(head, lines):
    """A text table: the first column left-aligned, the others right-aligned."""
    widths = [max(len(x[i]) for x in [head] + lines) for i in range(len(head))]
    out = []
    for i, line in enumerate([head] + lines):
        cells = enumerate(zip(line, widths, strict=True))
        out.append("  ".join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in cells))
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=os.path.join(here, "..", "..", "build", "core"),
                   help="directory holding our deltameta_* tools (default: build/core)")
    p.add_argument("--original", metavar="DIR",
                   help="directory holding the original's deltafs_bm_svr, deltafs_bm_cli and parallel_compactor")
    p.add_argument("--n", type=int, default=50000, help="files per client rank (default 50000)")
    p.add_argument("--ranks", type=int, default=4, help="client ranks (default 4)")
    p.add_argument("--servers", type=int, default=2, help="servers of runs 1-2 (default 2, the guide's)")
    p.add_argument("--readers", type=int, default=4,
                   help="compactor ranks and read servers of run 3 (default 4, the guide's)")
    p.add_argument("--repeat", type=int, default=1, help="run everything this many times (default 1)")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.add_argument("--work", help="directory for the stores (default: a fresh one in /tmp, removed after)")
    p.add_argument("--logs", help="directory for every job's command line and output (default: in --work; "
                   "a temporary --work is kept when a job fails)")
    p.add_argument("--keep-stores", action="store_true", help="keep each run's stores (default: removed after it)")
    p.add_argument("--mpiexec", default=shutil.which("mpirun.mpich") or shutil.which("mpiexec"),
                   help="MPI launcher (default: mpirun.mpich as in the guide, else mpiexec)")
    p.add_argument("--info-port", type=int, default=GUIDE_INFO_PORT,
                   help="servers' info port (default 10086, the guide's; another port adds --info_port)")
    p.add_argument("--timeout", type=int, default=900, help="seconds allowed per client/compactor job (default 900)")
    p.add_argument("--ready-timeout", type=int, default=120, help="seconds for servers to print Running...")
    p.add_argument("--stop-timeout", type=int, default=120, help="seconds for servers to exit after SIGINT")
    a = p.parse_args()
    if a.n < 1 or a.ranks < 1 or a.servers < 1 or a.readers < 1 or a.repeat < 1:
        p.error("--n, --ranks, --servers, --readers and --repeat must be positive")
    if not a.mpiexec or not shutil.which(a.mpiexec):
        print(f"side_by_side: MPI launcher {a.mpiexec or 'mpirun.mpich/mpiexec'} not found: "
              f"install mpich or pass --mpiexec", file=sys.stderr)
        sys.exit(2)
    a.mpiexec = shutil.which(a.mpiexec)
    if a.original is not None and not os.path.isdir(a.original):
        print(f"side_by_side: --original {a.original}: no such directory (give the directory holding the "
              f"original prototype's deltafs_bm_svr, deltafs_bm_cli and parallel_compactor)", file=sys.stderr)
        sys.exit(2)

    temp_work = a.work is None
    work = os.path.abspath(a.work or tempfile.mkdtemp(prefix="side-by-side-"))
    logs = os.path.abspath(a.logs or os.path.join(work, "logs"))
    os.makedirs(logs, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    bins = {"ours": os.path.abspath(a.bin)}
    if a.original:
        bins["original"] = os.path.abspath(a.original)
    try:
        tools = {k: snapshot_tools(k, d, os.path.join(work, "tools", k)) for k, d in bins.items()}
    except SystemExit:
        if temp_work:
            shutil.rmtree(work, ignore_errors=True)
        raise
    systems = {k: System(k, tools[k], a, work) for k in bins}

    stop_on_signals()  # SIGTERM, and SIGINT even when started with it ignored, stop every job
    signal.signal(signal.SIGINT, signal.default_int_handler)
    jobs = Jobs(logs, a.timeout, [n for names in SYSTEMS.values() for n in names.values()])
    values = {k: {ph: [] for ph, _ in PHASES} for k in systems}
    peaks = {k: {} for k in systems}  # job label -> {"resident", "private"} KiB, maxima over repetitions
    reps, failed = [], None
    host = {"hostname": platform.node(), "cpus": os.cpu_count(), "loadavg_start": loadavg()}
    print(f"side_by_side: {a.ranks} client ranks x {a.n} files, {a.servers} servers (runs 1-2), {a.readers} "
          f"compactor ranks / read servers (run 3), {a.repeat} repetition(s), systems: {', '.join(systems)}; "
          f"{host['cpus']} CPUs, load {' '.join(map(str, host['loadavg_start']))}; logs in {logs}", flush=True)
    try:
        for rep in range(a.repeat):
            t0, load0 = time.monotonic(), loadavg()
            rep_results = {k: {} for k in systems}
            for g, run in enumerate(["run1", "run2", "run3"]):
                order = list(systems)
                if (rep + g) % 2 == 1:
                    order.reverse()
                for k in order:
                    t = time.monotonic()
                    got, memory = systems[k].run(jobs, run, f"rep{rep + 1}-")
                    rep_results[k].update(got)
                    for job, kb in memory.items():
                        peak = peaks[k].setdefault(job, {"resident": 0, "private": 0})
                        for key in peak:
                            peak[key] = max(kb[key], peak[key])
                    for ph, r in got.items():
                        values[k][ph].append(r["mops"])
                    print(f"  rep {rep + 1} {run} {k:<8} " + ", ".join(f"{ph.split(' ', 1)[1]} {r['mops']:.3f}"
                                                                      for ph, r in got.items()) +
                          f" Mop/s ({time.monotonic() - t:.1f} s)", flush=True)
            reps.append({"repetition": rep + 1, "seconds": round(time.monotonic() - t0, 1), "loadavg_before": load0,
                         "loadavg_after": loadavg(), "results": rep_results})
            print(f"  rep {rep + 1}: {reps[-1]['seconds']} s, load before {' '.join(map(str, load0))}, "
                  f"after {' '.join(map(str, reps[-1]['loadavg_after']))}", flush=True)
    except JobError as e:
        failed = str(e)
    except KeyboardInterrupt:
        failed = "interrupted"
    finally:
        jobs.kill_all()
        shutil.rmtree(os.path.join(work, "tools"), ignore_errors=True)
        if not a.keep_stores:  # also a failed run's stores; the logs stay
            for k in systems:
                shutil.rmtree(os.path.join(work, k), ignore_errors=True)
    logs_inside = os.path.commonpath([work, logs]) == work
    if temp_work and not a.keep_stores and (not failed or not logs_inside):
        shutil.rmtree(work, ignore_errors=True)  # with the logs in it only after success
    if failed:
        print(f"side_by_side: {failed} (logs: {logs})", file=sys.stderr)
        sys.exit(1)

    rows = []
    for ph, goal in PHASES:
        ours = summarize(values["ours"][ph])
        orig = summarize(values["original"][ph]) if "original" in values else None
        rows.append({"phase": ph, "goal": goal, "ours": ours, "original": orig,
                     "ratio": ours["median"] / orig["median"] if orig and orig["median"] > 0 else None,
                     "goal_met": ours["median"] >= goal})
    memory = []
    for job, ours in peaks["ours"].items():
        orig = peaks.get("original", {}).get(job)
        memory.append({"job": job, **{f"{key}_mib": {"ours": ours[key] / 1024,
                                                     "original": orig[key] / 1024 if orig else None}
                                      for key in ("resident", "private")}})
    print()
    print(table(rows, "original" in systems))
    print()
    print(memory_table(memory))
    host["loadavg_end"] = loadavg()
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"schema": "deltameta.side_by_side/1", "n": a.n, "ranks": a.ranks, "servers": a.servers,
                       "readers": a.readers, "repeat": a.repeat, "info_port": a.info_port,
                       "systems": bins, "mpiexec": a.mpiexec, "host": host, "phases": rows, "peak_memory": memory,
                       "repetitions": reps},
                      f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
