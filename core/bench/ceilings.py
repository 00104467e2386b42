"""The transport ceilings beside the per-operation phases (side_by_side.py): a ping-pong
of each transport (deltameta_pingpong) with the process placement of the phases' jobs,
so that every run answers "is it us or the machine". Ours talks shared memory (the tools'
default) with its clients placed as in the phases (pinned, --cpu_affinity=1, unless
side_by_side.py --cpu-affinity 0); it also runs over its Unix sockets and TCP. The original
prototype talks UDP and pins nothing; its ceiling is the ping-pong of UDP in its pattern,
unpinned."""
import json
import os
import subprocess

from mpijobs import JobError

PINGPONG = "deltameta_pingpong"
# (transport, cpu_affinity): each as its implementation places it; None: as ours' clients are
# placed in this invocation (side_by_side.py --cpu-affinity, pinned by default).
TRANSPORTS = [("shm", None), ("unix", None), ("tcp", None), ("udp", 0)]
OURS, ORIGINAL = "shm", "udp"  # the transports the two implementations' phases run over
# The per-operation phases (every create or lstat one RPC), each with the server count of its job:
# "servers" (runs 1 and 2) or "readers" (run 3's read-only servers).
PER_OP = {"run1 insert": "servers", "run1 lstat": "servers", "run2 lstat": "servers", "run3 lstat": "readers"}
THREADS = 2  # the guide's --rpc_threads, both implementations


def placements(a):
    """{label: (clients, servers)} of the per-operation phases' jobs, e.g. {"4x2": (4, 2), "4x4": (4, 4)}."""
    return {f"{a.ranks}x{getattr(a, kind)}": (a.ranks, getattr(a, kind)) for kind in sorted(set(PER_OP.values()))}


def placement_of(a, phase):
    return f"{a.ranks}x{getattr(a, PER_OP[phase])}"


def run(tool, a, logs, label):
    """Every transport at every placement once: [{"transport", "placement", "cpu_affinity", "mops",
    "per_call": {...}}], from deltameta_pingpong's JSON. JobError with its last line if one fails."""
    out = []
    for name, (clients, servers) in placements(a).items():
        for transport, pinned in TRANSPORTS:
            pinned = a.cpu_affinity if pinned is None else pinned
            stem = os.path.join(logs, f"{label}pingpong-{transport}-{name}")
            cmd = [tool, f"--transport={transport}", f"--clients={clients}", f"--servers={servers}",
                   f"--threads={THREADS}", f"--calls={a.pingpong_calls}", f"--cpu_affinity={pinned}",
                   f"--json={stem}.json"]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
            except subprocess.TimeoutExpired:
                raise JobError(f"{PINGPONG} --transport={transport} ({name}): did not finish within "
                               f"{a.timeout} s") from None
            with open(stem + ".out", "w") as f:
                f.write(" ".join(cmd) + "\n" + r.stdout + r.stderr)
            if r.returncode != 0:
                last = (r.stderr.strip().splitlines() or ["no error output"])[-1]
                raise JobError(f"{PINGPONG} --transport={transport} ({name}): exited with code {r.returncode}: {last}")
            with open(stem + ".json") as f:
                doc = json.load(f)
            out.append({"transport": transport, "placement": name, "cpu_affinity": pinned, "mops": doc["mops"],
                        "per_call": doc["per_call"]})
    return out


def fraction(phase_median, ceiling_median):
    return phase_median / ceiling_median if phase_median is not None and ceiling_median else None
