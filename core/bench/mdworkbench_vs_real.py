#!/usr/bin/env python3
"""MD-Workbench beside ours: runs the real MD-Workbench (--reference-binary, built from
JulianKunkel/md-workbench) and deltameta_mdworkbench -i=posix with the same parameters
(default -P=1000 -D=10 -I=200 -S=3901 -R=1, 1 rank), alternating which goes first per
repetition, --repeat times each, on every directory given (default: an ext4 folder, /tmp or
/work, whichever `stat -f` says is ext2/ext3, and the tmpfs /dev/shm). Each run gets a fresh
folder below the directory (the real tool's root is out/ in its working directory) that is
removed afterwards.

On ext4 without a journal (this machine's root file system) a create skips every free
inode the allocator finds that was deleted in the last 60 s (360 s while its inode table
block is dirty; the kernel's recently_deleted()), scanning from the start of the block
group each time, so a run whose directories land in a block group where anyone (the
previous run's cleanup, a compiler's temporary files in /tmp) freed thousands of inodes
pays up to 400 us per create, whichever tool it is: measured precreate times of either tool
ranged from 0.24 s to 4.8 s with these parameters. So on any file system but tmpfs the
runs' folders sit in a folder flagged `chattr +T` (ext4's top-directory hint: the
allocator spreads its subdirectories to block groups with many free inodes and few
directories, away from the busy ones), and before every run the script syncs and waits
--settle seconds (default 65; an inode table block is clean after the sync, so 60 s is
enough for the previous run's deletions to stop counting).

Prints the machine, the load before and after, each run's phase times, and per directory
a table of each tool's seconds per phase (min-max) and ours/real of the medians. The real tool's seconds are its objects
over its obj/s rate (its "max:" is rounded to 0.01 s). Exit 0 on success, 1 when a run
fails, 2 on bad arguments."""
import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

from repetitions import median_range

PHASES = ("precreate", "benchmark", "cleanup")
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OURS = os.path.join(HERE, "..", "..", "build", "core", "deltameta_mdworkbench")


def fs_type(path):
    return subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True, text=True, check=True).stdout.strip()


def default_dirs():
    ext4 = next((d for d in ("/tmp", "/work") if os.path.isdir(d) and fs_type(d).startswith("ext")), None)
    return [d for d in (ext4, "/dev/shm") if d]


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def real_seconds(out):
    """Phase -> seconds from the real tool's "<phase> process max:..." lines."""
    found = {}
    for line in out.splitlines():
        m = re.match(r"(\w+) process max:([\d.]+)s", line)
        if m and m.group(1) in PHASES:
            rate = re.search(r"objects:(\d+) .*?rate:([\d.]+) obj/s", line)
            found[m.group(1)] = int(rate.group(1)) / float(rate.group(2)) if rate else float(m.group(2))
    return found


def ours_seconds(out):
    """Phase -> seconds from our table's "<phase> <ranks> <time_s> ..." lines."""
    found = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) > 2 and f[0] in PHASES and f[1].isdigit():
            found[f[0]] = float(f[2])
    return found


def run_once(tool, a, parent):
    """Runs one tool in a fresh folder under `parent`; phase -> seconds. Raises RuntimeError."""
    work = tempfile.mkdtemp(prefix="run.", dir=parent)
    try:
        if tool == "real":
            cmd, parse = [a.reference_binary, *a.params], real_seconds
        else:
            cmd, parse = [a.ours, "--interface=posix", f"--root={work}/ours", *a.params], ours_seconds
        p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=a.timeout)
        found = parse(p.stdout)
        if p.returncode != 0 or set(found) != set(PHASES):
            tail = (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:] or ["no output"]
            raise RuntimeError(f"{tool} run in {parent} failed (exit {p.returncode}): {tail[0]}")
        return found
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(a, directory):
    """{tool: {phase: [seconds per run]}}, alternating which tool runs first."""
    times = {"real": {p: [] for p in PHASES}, "ours": {p: [] for p in PHASES}}
    tmpfs = fs_type(directory) == "tmpfs"
    parent = tempfile.mkdtemp(prefix="mdw_vs_real.", dir=directory)
    try:
        if not tmpfs:
            subprocess.run(["chattr", "+T", parent], capture_output=True, text=True, check=True)
        for rep in range(a.repeat):
            for tool in ("real", "ours") if rep % 2 == 0 else ("ours", "real"):
                if not tmpfs:
                    os.sync()
                    time.sleep(a.settle)
                found = run_once(tool, a, parent)
                print(f"  {tool} run {rep + 1}: " + ", ".join(f"{p} {found[p]:.3f} s" for p in PHASES), flush=True)
                for phase, s in found.items():
                    times[tool][phase].append(s)
    except subprocess.CalledProcessError as e:
        raise RuntimeError(f"chattr +T {parent} failed: {e.stderr.strip()}") from e
    finally:
        shutil.rmtree(parent, ignore_errors=True)
    return times


def table(parent, times):
    """A markdown table: per phase each tool's seconds (min-max) and ours/real of the medians."""
    lines = [f"{parent} ({fs_type(parent)}):", "",
             "| phase | real MD-Workbench s | ours s | ours/real |", "| --- | --- | --- | --- |"]
    for p in PHASES:
        (real, real_lo, real_hi), (ours, ours_lo, ours_hi) = (median_range(times[t][p]) for t in ("real", "ours"))
        lines.append(f"| {p} | {real_lo:.3f}-{real_hi:.3f} | {ours_lo:.3f}-{ours_hi:.3f} | {ours / real:.2f} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference-binary", required=True, help="the real md-workbench executable")
    ap.add_argument("--ours", default=DEFAULT_OURS, help="deltameta_mdworkbench (default: build/core's)")
    ap.add_argument("--dir", action="append", help="a directory to run in (repeatable; default: ext4 and /dev/shm)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per tool and directory (default 3)")
    ap.add_argument("--settle", type=float, default=65, help="seconds to wait after sync before a non-tmpfs run")
    ap.add_argument("--timeout", type=float, default=600, help="seconds one run may take")
    ap.add_argument("--params", default="-P=1000 -D=10 -I=200 -S=3901 -R=1", help="MD-Workbench parameters")
    a = ap.parse_args()
    a.params = a.params.split()
    for path in (a.reference_binary, a.ours):
        if not os.access(path, os.X_OK):
            ap.error(f"no executable {path}")
    dirs = a.dir or default_dirs()
    for d in dirs:
        if not os.path.isdir(d):
            ap.error(f"no directory {d}")
    print(f"{time.strftime('%Y-%m-%d %H:%M %Z')} on {platform.node()}, {os.cpu_count()} CPUs, "
          f"load {loadavg()}; {' '.join(a.params)}, {a.repeat} alternated runs each, settle {a.settle:g} s")
    try:
        for d in dirs:
            print(table(d, measure(a, d)), flush=True)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"mdworkbench_vs_real: {e}", file=sys.stderr)
        sys.exit(1)
    print(f"load after {loadavg()}")


if __name__ == "__main__":
    main()
