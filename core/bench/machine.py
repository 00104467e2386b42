"""What a benchmark's numbers depend on besides the code: the machine's CPU model, CPU
count and kernel, and the steal time (CPU time the hypervisor gave to other guests) over
an interval, from /proc/stat. side_by_side.py prints them beside every table and records
them in its JSON, so that a table from another machine, or from one whose neighbours
stole much of its CPUs, can be told apart."""
import os
import platform


def cpu_model():
    """The first "model name" of /proc/cpuinfo (e.g. "AMD EPYC"), else the platform's."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe():
    """{"cpu_model", "cpus", "kernel"} of this machine."""
    return {"cpu_model": cpu_model(), "cpus": os.cpu_count(), "kernel": platform.release()}


def cpu_times():
    """The aggregate "cpu" line of /proc/stat: {"total", "steal"} in clock ticks (total
    without guest time, which user time already counts)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    fields += [0] * (8 - len(fields))
    return {"total": sum(fields[:8]), "steal": fields[7]}


def steal_percent(before, after):
    """Steal time between two cpu_times() as a percentage of all CPU time then."""
    total = after["total"] - before["total"]
    return round(100.0 * (after["steal"] - before["steal"]) / total, 2) if total > 0 else 0.0


def line(machine, steal):
    """One line naming the machine and the steal time, e.g. for above a table."""
    return (f"machine: {machine['cpu_model']}, {machine['cpus']} CPUs, kernel {machine['kernel']}; "
            f"steal {steal:.1f}% of CPU time")
