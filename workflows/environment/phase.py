"""The environment of one phase, from what its document carries (core/bench/mpijobs/sampler.py's
readings around the phase: wall time, /proc/stat's cpu line, load average, the run's own
CPU seconds, the readings' error bounds) and where its stores were: the share of the
machine's CPUs other processes used, steal, the highest load average, the CPU the phase's
own processes got against wall time x processes, /dev/shm, and each store's file system.
These are summary.csv's environment columns (ENVIRONMENT_COLUMNS), which the claims'
conditions are checked on; with them how many times the run was rerun for a busy machine,
and why (environment/reruns.py)."""
import os

from workflows.environment.cpu import IN_OTHERS, busy_share, cpu_ticks
from workflows.environment.mounts import file_system

RADOS = "rados"  # the kind of a store kept in Ceph RADOS (no file system here)
ENVIRONMENT_COLUMNS = ["cpu_own_share", "cpu_other_share", "cpu_steal_share", "load_max", "shm_free_mib",
                       "store_fs", "store_kind", "reruns", "rerun_causes"]


def resolution(first, last, ticks):
    """The most, in ticks, by which the run's own CPU between readings `first` and `last` can
    read low (sampler.py's readings; 0 for readings made before they carried their bounds):
    each process read at the last reading may have up to a tick rounded off, and the
    processes were read up to the first reading's duration after /proc/stat, while they ran
    (at most all of the machine's CPUs: that duration's share of the `ticks` counted)."""
    if len(first) < 6 or len(last) < 6 or last[0] <= first[0]:
        return 0.0
    return last[4] + ticks * first[5] / (last[0] - first[0])


def cpu_shares(environment):
    """{"cpu_other_share", "cpu_steal_share", "load_max"} over the readings of a phase
    document's `environment`; empty values where it has none (results made before the
    environment was measured). The other processes' share is the least the readings show:
    the machine's busy time less the run's own, less the readings' resolution, so that on
    an idle machine a phase of a tenth of a second does not read as 10% used by others; it
    is never more than the busy share."""
    readings = (environment or {}).get("readings") or []
    if len(readings) < 2:
        return {"cpu_other_share": "", "cpu_steal_share": "", "load_max": ""}
    first, last = readings[0], readings[-1]
    before, after = cpu_ticks(first[1]), cpu_ticks(last[1])
    shares = busy_share(before, after)
    # the run's own CPU seconds in the machine's ticks (USER_HZ), as a share of all ticks counted
    ticks = sum(after[k] - before[k] for k in after if k not in IN_OTHERS)
    # never less than none (readings from before the sampler kept the run's CPU from falling)
    own_or_unresolved = max(last[3] - first[3], 0.0) * os.sysconf("SC_CLK_TCK") + resolution(first, last, ticks)
    own = own_or_unresolved / ticks if ticks > 0 else 0.0
    return {"cpu_other_share": max(shares["busy"] - own, 0.0),
            "cpu_steal_share": "" if shares["steal"] is None else shares["steal"],
            "load_max": max(r[2] for r in readings)}


def own_share(doc, servers):
    """The CPU the phase's processes got: their CPU seconds over wall time x processes (the
    job's ranks, and `servers` where the servers' CPU is counted; for servers not of ours,
    sampled from /proc, CephFS's MDS, the processes read)."""
    cpu = doc["cpu_s"]
    servers = (doc.get("servers_sampled") or {}).get("processes", servers)
    processes = doc.get("ranks", 0) + (servers if cpu.get("servers") else 0)
    wall = doc.get("elapsed_s") or 0
    return (cpu["clients"] + cpu["servers"]) / (wall * processes) if wall > 0 and processes else ""


def stores(doc):
    """{"store_fs", "store_kind"}: the file system types and kinds of the phase's stores
    (their paths probed on this machine, where the run was), each listed once, joined by
    "+"; RADOS stores are of kind "rados"."""
    storage = doc.get("storage") or {}
    if storage.get("backend") == RADOS:
        return {"store_fs": RADOS, "store_kind": RADOS}
    found = [file_system(path) for path in (storage.get("stores") or {}).values()]
    join = lambda key: "+".join(sorted({fs[key] for fs in found}))  # noqa: E731
    return {"store_fs": join("fs_type"), "store_kind": join("kind")}


def reruns(doc):
    """{"reruns", "rerun_causes"}: how many times the run of a phase document was rerun
    because other processes were busy (environment/reruns.py), and for each rerun the phase
    and the other processes' share that caused it ("insert=0.342; lstat=0.118")."""
    done = doc.get("reruns") or []
    return {"reruns": len(done), "rerun_causes": "; ".join(f"{r['phase']}={r['cpu_other_share']:.3f}" for r in done)}


def environment_columns(doc, servers):
    """summary.csv's ENVIRONMENT_COLUMNS of one phase document."""
    environment = doc.get("environment") or {}
    shm = environment.get("shm")
    return dict(cpu_own_share=own_share(doc, servers), **cpu_shares(environment),
                shm_free_mib=shm["free_bytes"] >> 20 if shm else "", **stores(doc), **reruns(doc))
