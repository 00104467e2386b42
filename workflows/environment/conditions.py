"""The conditions the paper's claims (paper/claims.yaml) were set under, as data in this one
place, and a machine's findings (preflight.py's) checked against them: each condition
outside its bound is one (problem, fix). Issue 31's item 2 moves them into claims.yaml,
per claim."""
from workflows.environment.mounts import LOCAL_DISK, TMPFS

CONDITIONS = {
    # The bounds were set on an otherwise idle 2-core machine, every run taking all cores
    # (workflows/rules/runs.smk); at load 8-15 on 2 cores 4 of 6 claims failed (issue 31).
    # A tenth of the CPUs is a fifth of a core on 2 cores.
    "max_other_cpu_share": 0.10,
    # The reference stores were on the host's ext4; on fuse-overlayfs (a container's own file
    # system) the table writes ran at 64 MB/s against 650 MB/s on ext4 (issue 31), and a
    # network file system adds a round trip to every operation. RADOS (storage: rados) is
    # allowed too: its stores are not on a file system here.
    "store_kinds": [LOCAL_DISK, TMPFS],
    # Docker's default 64 MB /dev/shm is the smallest the runs are known to work in (the smoke
    # profile, docker/README.md, Tests): MPI's shared-memory transport (UCX's sm) keeps its
    # segments there; the RPC channels use memfds (core/src/shm), which it does not limit.
    "min_shm_free_bytes": 64 << 20,
}


def outside(findings, conditions=CONDITIONS):
    """[(problem, fix)] for every condition `findings` (preflight.probe's) are outside."""
    out = []
    cpu = findings["cpu"]
    if cpu["other"] > conditions["max_other_cpu_share"]:
        out.append((f"other processes used {cpu['other']:.0%} of the CPUs over {cpu['interval_s']:g} s, "
                    f"more than the claims' {conditions['max_other_cpu_share']:.0%}",
                    "rerun on an otherwise idle machine"))
    for label, fs in findings["stores"].items():
        if fs["kind"] not in conditions["store_kinds"]:
            out.append((f"{label} is on {fs['fs_type']} ({fs['kind']}, mounted at {fs['mount_point']})",
                        "run with results/ on a local disk file system or tmpfs, e.g. in a container on a "
                        "bind-mounted host folder: docker run -v \"$PWD/out:/out\""))
    shm = findings["shm"]
    if shm is None or shm["free_bytes"] < conditions["min_shm_free_bytes"]:
        have = "missing" if shm is None else f"{shm['free_bytes'] >> 20} MiB free"
        out.append((f"/dev/shm {have}, under the {conditions['min_shm_free_bytes'] >> 20} MiB the runs are known to "
                    "work with", "give the machine or container a larger /dev/shm, e.g. docker run --shm-size=1g"))
    return out
