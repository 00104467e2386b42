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

Each repetition first runs a ping-pong of every transport (ceilings.py, deltameta_pingpong
--calls=--pingpong-calls; 0: none) with the placement of the per-operation phases' jobs
(every create or lstat one RPC): shared memory, Unix sockets and TCP as ours uses them,
UDP as the original does. The first table gives each per-operation phase as a fraction of
its transport's ceiling (ours of shared memory's, the original's of UDP's: medians), a
third table the ceilings, with CPU time and context switches per call. Above every table a
line names the machine (CPU model, CPUs, kernel) and the steal time over the invocation;
the JSON records them, and the steal time per repetition.
Every job has a timeout; whatever the script started is stopped on any error, SIGTERM or
Ctrl-C. The tools are copied before the first job, so a rebuild during the benchmark does
not mix versions. Exit 0 when every job succeeded and printed its lines, 1 when one failed,
2 on bad arguments."""
import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import sys
import tempfile
import time

import ceilings
import machine
from guide import GUIDE_INFO_PORT, TOOL_NAMES, GuideTools, Jobs, add_original_argument, free_port, original_problem
from mpijobs import JobError, stop_on_signals
from repetitions import summarize, text

# (phase, goal in Mop/s): the project's performance goals, at 4 client ranks x 50,000 files.
PHASES = [("run1 insert", 0.07), ("run1 lstat", 0.07), ("run2 bulk insert", 1.0), ("run2 lstat", 0.07),
          ("run3 DeltaFS insert", 1.0), ("run3 compaction", 0.7), ("run3 lstat", 0.06)]
GOALS = dict(PHASES)


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def snapshot_tools(key, bin_dir, dest, extra=()):
    """Copies one system's tools, and the tools named in `extra`, to `dest` (a rebuild during
    the benchmark cannot mix versions); exits 2 with one line if any is missing."""
    names = list(TOOL_NAMES[key].values()) + list(extra)
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


def ratio(value):
    return f"{value:.2f}" if value is not None else "-"


def table(rows, with_original):
    head = ["phase", "ours Mop/s", "original Mop/s", "goal", "ours/orig", "goal met",
            f"ours/{ceilings.OURS} ceiling", f"orig/{ceilings.ORIGINAL} ceiling"]
    lines = [[r["phase"], text(r["ours"]), text(r["original"]) if with_original else "-", f">= {r['goal']}",
              ratio(r["ratio"]), "yes" if r["goal_met"] else "no",
              ratio(r["ceiling"]["ours"]) if r["ceiling"] else "-",
              ratio(r["ceiling"]["original"]) if r["ceiling"] else "-"]
             for r in rows]
    return aligned(head, lines)


def ceiling_rows(runs):
    """The ping-pongs of every repetition, per transport and placement: Mop/s summarized, and
    the medians of the measures per call."""
    keys = []
    for c in runs:
        if (c["transport"], c["placement"]) not in keys:
            keys.append((c["transport"], c["placement"]))
    rows = []
    for transport, placement in keys:
        same = [c for c in runs if c["transport"] == transport and c["placement"] == placement]
        rows.append({"transport": transport, "placement": placement, "cpu_affinity": same[0]["cpu_affinity"],
                     "mops": summarize([c["mops"] for c in same]),
                     "per_call": {k: statistics.median(c["per_call"][k] for c in same) for k in same[0]["per_call"]}})
    return rows


def ceiling_table(rows):
    head = ["transport", "clients x servers", "pinned", "Mop/s", "CPU us/call client", "server",
            "sleeps/call client", "server", "preempted/call"]
    lines = [[r["transport"], r["placement"], str(r["cpu_affinity"]), text(r["mops"]),
              f"{r['per_call']['client_cpu_us']:.2f}", f"{r['per_call']['server_cpu_us']:.2f}",
              f"{r['per_call']['client_voluntary_switches']:.2f}", f"{r['per_call']['server_voluntary_switches']:.2f}",
              f"{r['per_call']['involuntary_switches']:.3f}"] for r in rows]
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
    add_original_argument(p)
    p.add_argument("--n", type=int, default=50000, help="files per client rank (default 50000)")
    p.add_argument("--ranks", type=int, default=4, help="client ranks (default 4)")
    p.add_argument("--servers", type=int, default=2, help="servers of runs 1-2 (default 2, the guide's)")
    p.add_argument("--readers", type=int, default=4,
                   help="compactor ranks and read servers of run 3 (default 4, the guide's)")
    p.add_argument("--repeat", type=int, default=1, help="run everything this many times (default 1)")
    p.add_argument("--pingpong-calls", type=int, default=20000,
                   help="timed calls per client of each transport's ping-pong, every repetition (default 20000; "
                        "0: no ceilings)")
    p.add_argument("--cpu-affinity", type=int, choices=(0, 1), default=1,
                   help="ours' clients pinned one per CPU (1, the tools' default) or placed by the scheduler (0), "
                        "in the phases and in ours' ping-pongs; the original pins nothing")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.add_argument("--work", help="directory for the stores (default: a fresh one in /tmp, removed after)")
    p.add_argument("--logs", help="directory for every job's command line and output (default: in --work; "
                   "a temporary --work is kept when a job fails)")
    p.add_argument("--keep-stores", action="store_true", help="keep each run's stores (default: removed after it)")
    p.add_argument("--mpiexec", default=shutil.which("mpirun.mpich") or shutil.which("mpiexec"),
                   help="MPI launcher (default: mpirun.mpich as in the guide, else mpiexec)")
    p.add_argument("--info-port", type=int, default=GUIDE_INFO_PORT,
                   help="servers' info port (default 10086, the guide's; another port adds --info_port; 0: a free "
                        "one)")
    p.add_argument("--timeout", type=int, default=900, help="seconds allowed per client/compactor job (default 900)")
    p.add_argument("--ready-timeout", type=int, default=120, help="seconds for servers to print Running...")
    p.add_argument("--stop-timeout", type=int, default=120, help="seconds for servers to exit after SIGINT")
    a = p.parse_args()
    if a.n < 1 or a.ranks < 1 or a.servers < 1 or a.readers < 1 or a.repeat < 1:
        p.error("--n, --ranks, --servers, --readers and --repeat must be positive")
    if a.pingpong_calls < 0:
        p.error("--pingpong-calls must be 0 or more")
    if not a.mpiexec or not shutil.which(a.mpiexec):
        print(f"side_by_side: MPI launcher {a.mpiexec or 'mpirun.mpich/mpiexec'} not found: "
              f"install mpich or pass --mpiexec", file=sys.stderr)
        sys.exit(2)
    a.mpiexec = shutil.which(a.mpiexec)
    a.info_port = a.info_port or free_port()
    if a.original is not None and original_problem(a.original):
        print(f"side_by_side: {original_problem(a.original)}", file=sys.stderr)
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
        extra = {"ours": [ceilings.PINGPONG] if a.pingpong_calls else []}
        tools = {k: snapshot_tools(k, d, os.path.join(work, "tools", k), extra.get(k, ())) for k, d in bins.items()}
    except SystemExit:
        if temp_work:
            shutil.rmtree(work, ignore_errors=True)
        raise
    placed = {"ours": {"cpu_affinity": a.cpu_affinity}}
    systems = {k: GuideTools(k, tools[k], a, work, client_flags=placed.get(k)) for k in bins}

    stop_on_signals()  # SIGTERM, and SIGINT even when started with it ignored, stop every job
    signal.signal(signal.SIGINT, signal.default_int_handler)
    jobs = Jobs(logs, a.timeout, [n for names in TOOL_NAMES.values() for n in names.values()])
    values = {k: {ph: [] for ph, _ in PHASES} for k in systems}
    peaks = {k: {} for k in systems}  # job label -> {"resident", "private"} KiB, maxima over repetitions
    reps, ceiling_runs, failed = [], [], None
    host = {"hostname": platform.node(), **machine.describe(), "loadavg_start": loadavg()}
    cpu_start = machine.cpu_times()
    print(f"side_by_side: {a.ranks} client ranks x {a.n} files, {a.servers} servers (runs 1-2), {a.readers} "
          f"compactor ranks / read servers (run 3), {a.repeat} repetition(s), systems: {', '.join(systems)} (ours' "
          f"clients {'pinned' if a.cpu_affinity else 'unpinned'}); "
          f"{host['cpus']} CPUs, load {' '.join(map(str, host['loadavg_start']))}; logs in {logs}", flush=True)
    try:
        for rep in range(a.repeat):
            t0, load0, cpu0 = time.monotonic(), loadavg(), machine.cpu_times()
            rep_results = {k: {} for k in systems}
            if a.pingpong_calls:
                got = ceilings.run(os.path.join(tools["ours"], ceilings.PINGPONG), a, logs, f"rep{rep + 1}-")
                ceiling_runs += [dict(c, repetition=rep + 1) for c in got]
                print(f"  rep {rep + 1} ceilings " + ", ".join(f"{c['transport']} {c['placement']} {c['mops']:.3f}"
                                                             for c in got) + " Mop/s", flush=True)
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
                         "loadavg_after": loadavg(), "steal_percent": machine.steal_percent(cpu0, machine.cpu_times()),
                         "results": rep_results})
            print(f"  rep {rep + 1}: {reps[-1]['seconds']} s, load before {' '.join(map(str, load0))}, "
                  f"after {' '.join(map(str, reps[-1]['loadavg_after']))}, steal {reps[-1]['steal_percent']}%",
                  flush=True)
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

    ceiling = ceiling_rows(ceiling_runs)
    ceiling_median = {(c["transport"], c["placement"]): c["mops"]["median"] for c in ceiling}
    rows = []
    for ph, goal in PHASES:
        ours = summarize(values["ours"][ph])
        orig = summarize(values["original"][ph]) if "original" in values else None
        of_ceiling = None
        if ph in ceilings.PER_OP and ceiling:
            placement = ceilings.placement_of(a, ph)
            of_ceiling = {"placement": placement,
                          "ours": ceilings.fraction(ours["median"], ceiling_median[(ceilings.OURS, placement)]),
                          "original": ceilings.fraction(orig["median"] if orig else None,
                                                        ceiling_median[(ceilings.ORIGINAL, placement)])}
        rows.append({"phase": ph, "goal": goal, "ours": ours, "original": orig,
                     "ratio": ours["median"] / orig["median"] if orig and orig["median"] > 0 else None,
                     "goal_met": ours["median"] >= goal, "ceiling": of_ceiling})
    memory = []
    for job, ours in peaks["ours"].items():
        orig = peaks.get("original", {}).get(job)
        memory.append({"job": job, **{f"{key}_mib": {"ours": ours[key] / 1024,
                                                     "original": orig[key] / 1024 if orig else None}
                                      for key in ("resident", "private")}})
    host["loadavg_end"] = loadavg()
    host["steal_percent"] = machine.steal_percent(cpu_start, machine.cpu_times())
    about = machine.line(host, host["steal_percent"]) + " over the invocation, load " + \
        " ".join(map(str, host["loadavg_start"])) + " at its start, " + " ".join(map(str, host["loadavg_end"])) + \
        " at its end"
    tables = [table(rows, "original" in systems), memory_table(memory)] + ([ceiling_table(ceiling)] if ceiling else [])
    for printed in tables:
        print()
        print(about)
        print(printed)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"schema": "deltameta.side_by_side/1", "n": a.n, "ranks": a.ranks, "servers": a.servers,
                       "readers": a.readers, "repeat": a.repeat, "info_port": a.info_port,
                       "cpu_affinity": a.cpu_affinity,
                       "systems": bins, "mpiexec": a.mpiexec, "host": host, "phases": rows, "peak_memory": memory,
                       "pingpong_calls": a.pingpong_calls, "ceilings": ceiling, "ceiling_runs": ceiling_runs,
                       "repetitions": reps},
                      f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
