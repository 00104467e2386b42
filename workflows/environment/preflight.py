"""The pre-flight, run when the workflow starts (the Snakefile's onstart, before any job):
probes the machine (cores, the CPUs' use over about a second, the file system under each
path the configuration keeps data in, /dev/shm), checks the findings against the claims'
conditions (conditions.py), prints a short block to stderr with a `warning:` line for each
condition outside its bound, and records it all in a JSON file that rule provenance copies
into provenance.json. With strict set, a condition outside its bound stops the run instead,
with one line."""
import json
import os
import sys

from workflows.environment.conditions import outside
from workflows.environment.cpu import available_cpus, sample
from workflows.environment.mounts import file_system
from workflows.environment.shm import dev_shm


def probe(cores_given, paths, interval_s=1.0):
    """The findings: cores given and available, the CPUs' use over `interval_s` (everything busy
    is other processes': nothing of the workflow runs yet), the file system of each of
    `paths` ({label: path}) and /dev/shm's size."""
    cpu = sample(interval_s)
    return {
        "cores": {"given": cores_given, "available": available_cpus()},
        "cpu": dict(cpu, other=cpu["busy"]),
        "stores": {label: file_system(path) for label, path in paths.items()},
        "shm": dev_shm(),
    }


def _gib(n):
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{n >> 20} MiB"


def block(findings, rados_root=None):
    """The pre-flight's lines (without warnings) for `findings`; rados_root: where the stores
    are in RADOS, when they are."""
    cores, cpu, shm = findings["cores"], findings["cpu"], findings["shm"]
    steal = f" (steal {cpu['steal']:.0%})" if cpu["steal"] is not None else ""
    lines = [f"pre-flight: {cores['given']} cores given to snakemake, {cores['available']} available; the machine "
             f"was {cpu['busy']:.0%} busy over {cpu['interval_s']:g} s{steal}, load average "
             + " ".join(f"{v:.2f}" for v in cpu["load"])]
    if rados_root:
        lines.append(f"pre-flight: stores in RADOS, {rados_root}")
    by_mount = {}
    for label, fs in findings["stores"].items():
        by_mount.setdefault((fs["fs_type"], fs["mount_point"], fs["kind"]), []).append(label)
    for (fs_type, point, kind), labels in by_mount.items():
        lines.append(f"pre-flight: {', '.join(labels)} on {fs_type} at {point} ({kind})")
    lines.append("pre-flight: /dev/shm missing" if shm is None else
                 f"pre-flight: /dev/shm {_gib(shm['size_bytes'])}, {_gib(shm['free_bytes'])} free")
    return lines


def stop_line(problems):
    """The one line that stops a strict run: every problem with its fix."""
    said = [f"{problem} ({fix})" for problem, fix in problems[:-1]]
    problem, fix = problems[-1]
    return "pre-flight: " + "; ".join(said + [f"{problem} ({fix}, or drop strict_environment)"])


def preflight(cores_given, paths, record, strict, conditions, rados_root=None, interval_s=1.0):
    """Probes, prints the block to stderr and records the findings in `record` (a JSON file);
    returns False when `strict` and one of `conditions` is outside its bound (its one line
    printed instead of the warnings): the run must stop."""
    findings = probe(cores_given, paths, interval_s)
    problems = outside(findings, conditions)
    os.makedirs(os.path.dirname(record) or ".", exist_ok=True)
    with open(record, "w") as f:
        json.dump(dict(findings, rados_root=rados_root, conditions=conditions,
                       outside=[f"{p} ({fix})" for p, fix in problems]), f, indent=1)
    lines = block(findings, rados_root)
    if strict and problems:
        print("\n".join(lines + [stop_line(problems)]), file=sys.stderr)
        return False
    print("\n".join(lines + [f"warning: {p} ({fix})" for p, fix in problems]), file=sys.stderr)
    return True
