"""The environment of one phase, from what its document carries (core/bench/mpijobs/sampler.py's
readings around the phase: wall time, /proc/stat's cpu line, load average, the run's own
CPU seconds) and where its stores were: the share of the machine's CPUs other processes
used, steal, the highest load average, the CPU the phase's own processes got against wall
time x processes, /dev/shm, and each store's file system. These are summary.csv's
environment columns (ENVIRONMENT_COLUMNS), which the claims' conditions are checked on."""
import os

from workflows.environment.cpu import IN_OTHERS, busy_share, cpu_ticks
from workflows.environment.mounts import file_system

RADOS = "rados"  # the kind of a store kept in Ceph RADOS (no file system here)
ENVIRONMENT_COLUMNS = ["cpu_own_share", "cpu_other_share", "cpu_steal_share", "load_max", "shm_free_mib",
                       "store_fs", "store_kind"]


def cpu_shares(environment):
    """{"cpu_other_share", "cpu_steal_share", "load_max"} over the readings of a phase
    document's `environment`; empty values where it has none (results made before the
    environment was measured)."""
    readings = (environment or {}).get("readings") or []
    if len(readings) < 2:
        return {"cpu_other_share": "", "cpu_steal_share": "", "load_max": ""}
    (_, line0, _, own0), (_, line1, _, own1) = readings[0], readings[-1]
    before, after = cpu_ticks(line0), cpu_ticks(line1)
    shares = busy_share(before, after)
    # the run's own CPU seconds in the machine's ticks (USER_HZ), as a share of all ticks counted
    ticks = sum(after[k] - before[k] for k in after if k not in IN_OTHERS)
    own = (own1 - own0) * os.sysconf("SC_CLK_TCK") / ticks if ticks > 0 else 0.0
    return {"cpu_other_share": max(shares["busy"] - own, 0.0),
            "cpu_steal_share": "" if shares["steal"] is None else shares["steal"],
            "load_max": max(r[2] for r in readings)}


def own_share(doc, servers):
    """The CPU the phase's processes got: their CPU seconds over wall time x processes (the
    job's ranks, and `servers` where the servers' CPU is counted)."""
    cpu = doc["cpu_s"]
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


def environment_columns(doc, servers):
    """summary.csv's ENVIRONMENT_COLUMNS of one phase document."""
    environment = doc.get("environment") or {}
    shm = environment.get("shm")
    return dict(cpu_own_share=own_share(doc, servers), **cpu_shares(environment),
                shm_free_mib=shm["free_bytes"] >> 20 if shm else "", **stores(doc))
