"""CPUs: how many this process may run on (its affinity), and how busy the machine's CPUs
were over a short interval, from /proc/stat's counters (steal too, where the kernel
reports it) and /proc/loadavg.

The busy share counts every tick that was not idle or waiting for I/O, steal included
(time a hypervisor gave this VM's CPUs to someone else); it is the share of all the
machine's CPUs, as /proc/stat counts them. What other processes used is the busy share
minus what this workflow's own processes used over the interval; the pre-flight samples
before any job of the workflow runs, so there the whole busy share is the other processes'
(Snakemake itself sleeps while it samples)."""
import os
import time

# /proc/stat's columns after "cpu", in the kernel's order (man 5 proc); older kernels
# print fewer (steal from 2.6.11, guest from 2.6.24, guest_nice from 2.6.33).
FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice")
# Time of guests (VMs this kernel runs) is already counted in user and nice.
IN_OTHERS = ("guest", "guest_nice")
NOT_BUSY = ("idle", "iowait")


def available_cpus():
    """CPUs this process may run on."""
    return len(os.sched_getaffinity(0))


def cpu_ticks(stat_text):
    """{column: ticks} of /proc/stat's aggregate `cpu` line (the columns the kernel prints)."""
    for line in stat_text.splitlines():
        parts = line.split()
        if parts and parts[0] == "cpu":
            # a kernel prints as many columns as it counts; any it adds after guest_nice are left out
            return dict(zip(FIELDS, (int(p) for p in parts[1:]), strict=False))
    raise ValueError("/proc/stat has no aggregate cpu line")


def busy_share(before, after):
    """{"busy": share of the CPUs' time that was busy, "steal": share stolen by the hypervisor
    (None where the kernel does not report steal)} between two readings of cpu_ticks."""
    delta = {k: after[k] - before[k] for k in after if k not in IN_OTHERS}
    total = sum(delta.values())
    if total <= 0:
        return {"busy": 0.0, "steal": 0.0 if "steal" in delta else None}
    busy = total - sum(delta[k] for k in NOT_BUSY if k in delta)
    return {"busy": busy / total, "steal": delta["steal"] / total if "steal" in delta else None}


def load_average(loadavg_text):
    """/proc/loadavg's 1, 5 and 15 minute load averages."""
    return [float(v) for v in loadavg_text.split()[:3]]


def _read(path):
    with open(path) as f:
        return f.read()


def sample(interval_s=1.0):
    """The machine's CPU use over `interval_s` seconds from now: {"interval_s", "busy",
    "steal", "load"} (load: the load averages at the end)."""
    before = cpu_ticks(_read("/proc/stat"))
    time.sleep(interval_s)
    after = cpu_ticks(_read("/proc/stat"))
    return dict(interval_s=interval_s, **busy_share(before, after), load=load_average(_read("/proc/loadavg")))
