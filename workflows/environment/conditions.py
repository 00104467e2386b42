"""The conditions under which the paper's claims were set (each claim's `conditions` in
paper/claims.yaml, each with its reason), checked here: on the environment a phase was
measured in (summary.csv's environment columns, environment/phase.py) for the claims'
verdicts, and on the machine's findings before a run (the pre-flight, on the strictest of
every claim's). Each condition outside its bound is said as one (problem, fix).

A condition is a mapping with one of the keys of KINDS and `why`:
  other_cpu_at_most: 0.10              other processes' share of the CPUs during a phase
  stores_on: [local disk, tmpfs, rados]  the kinds of file system (mounts.py) the stores may be on
  shm_free_mib_at_least: 64            /dev/shm's free space"""
from workflows.environment.mounts import LOCAL_DISK, NETWORK, OVERLAY_OR_FUSE, TMPFS, UNKNOWN
from workflows.environment.phase import RADOS

KINDS = ("other_cpu_at_most", "stores_on", "shm_free_mib_at_least")
STORE_KINDS = {LOCAL_DISK, TMPFS, OVERLAY_OR_FUSE, NETWORK, UNKNOWN, RADOS}
IDLE_FIX = "rerun on an otherwise idle machine"
STORE_FIX = ("run with results/ on a local disk file system or tmpfs, e.g. in a container on a bind-mounted host "
             "folder: docker run -v \"$PWD/out:/out\"")
SHM_FIX = "give the machine or container a larger /dev/shm, e.g. docker run --shm-size=1g"


def parse(conditions, where):
    """The conditions of a claim (a list, maybe empty), checked for shape; raises ValueError
    naming `where` and what is wrong."""
    if conditions is None:
        return []
    if not isinstance(conditions, list):
        raise ValueError(f"{where}: conditions must be a list")
    for c in conditions:
        keys = set(c) - {"why"} if isinstance(c, dict) else set()
        if len(keys) != 1 or not keys <= set(KINDS) or not c.get("why"):
            raise ValueError(f"{where}: a condition is {{one of {', '.join(KINDS)}: value, why: reason}}, not {c!r}")
        (kind,) = keys
        value = c[kind]
        if kind == "stores_on":
            if not isinstance(value, list) or not value or not set(value) <= STORE_KINDS:
                raise ValueError(f"{where}: stores_on lists some of {', '.join(sorted(STORE_KINDS))}")
        elif not isinstance(value, (int, float)) or value < 0:
            raise ValueError(f"{where}: {kind} must be a number >= 0")
    return conditions


def _kind(condition):
    return next(k for k in condition if k != "why")


def _either(kinds):
    return kinds[0] if len(kinds) == 1 else f"{', '.join(kinds[:-1])} or {kinds[-1]}"


def _during(row):
    return f"during {row['system']} {row['phase']} at {row['client_ranks']} client ranks"


def outside_rows(conditions, rows):
    """[{"condition", "measured", "problem", "fix"}] for each of `conditions` some of `rows`
    (summary.csv's) are outside of, naming the worst row; rows without a recorded value
    (results made before the environment was measured) are passed over."""
    out = []
    for c in conditions:
        kind, bound = _kind(c), c[_kind(c)]
        if kind == "other_cpu_at_most":
            found = [r for r in rows if r.get("cpu_other_share", "") != "" and float(r["cpu_other_share"]) > bound]
            if found:
                worst = max(found, key=lambda r: float(r["cpu_other_share"]))
                share = float(worst["cpu_other_share"])
                out.append({"condition": kind, "measured": share, "fix": IDLE_FIX,
                            "problem": f"other processes used {share:.0%} of the CPUs {_during(worst)} "
                                       f"(the claim's bound was set with at most {bound:.0%})"})
        elif kind == "stores_on":
            found = [r for r in rows if r.get("store_kind") and not set(str(r["store_kind"]).split("+")) <= set(bound)]
            if found:
                worst = found[0]
                out.append({"condition": kind, "measured": worst["store_kind"], "fix": STORE_FIX,
                            "problem": f"stores on {worst['store_fs']} ({worst['store_kind']}) {_during(worst)}, "
                                       f"not on {_either(bound)}"})
        else:
            found = [r for r in rows if r.get("shm_free_mib", "") != "" and float(r["shm_free_mib"]) < bound]
            if found:
                worst = min(found, key=lambda r: float(r["shm_free_mib"]))
                out.append({"condition": kind, "measured": float(worst["shm_free_mib"]), "fix": SHM_FIX,
                            "problem": f"/dev/shm had {float(worst['shm_free_mib']):.0f} MiB free {_during(worst)}, "
                                       f"under {bound:g} MiB"})
    return out


def recorded(rows):
    """Whether `rows` carry the environment they were measured in."""
    return any(r.get("cpu_other_share", "") != "" for r in rows)


def strictest(claims):
    """One condition of each kind: the strictest of every claim's (the pre-flight's)."""
    by_kind = {}
    for claim in claims:
        for c in claim.get("conditions") or []:
            kind = _kind(c)
            have = by_kind.get(kind)
            if have is None:
                by_kind[kind] = c
            elif kind == "stores_on":
                by_kind[kind] = dict(have, stores_on=[k for k in have[kind] if k in c[kind]])
            elif (c[kind] < have[kind]) == (kind == "other_cpu_at_most"):
                by_kind[kind] = c
    return [by_kind[k] for k in KINDS if k in by_kind]


def other_cpu_bound(claims):
    """The strictest other_cpu_at_most of every claim's conditions, or None when none has one
    (the bound of the reruns for a busy machine, environment/reruns.py)."""
    return next((c["other_cpu_at_most"] for c in strictest(claims) if "other_cpu_at_most" in c), None)


def outside(findings, conditions):
    """[(problem, fix)] for each of `conditions` the pre-flight's `findings` are outside of."""
    out = []
    for c in conditions:
        kind, bound = _kind(c), c[_kind(c)]
        cpu, shm = findings["cpu"], findings["shm"]
        if kind == "other_cpu_at_most" and cpu["other"] > bound:
            out.append((f"other processes used {cpu['other']:.0%} of the CPUs over {cpu['interval_s']:g} s, "
                        f"more than the claims' {bound:.0%}", IDLE_FIX))
        elif kind == "stores_on":
            for label, fs in findings["stores"].items():
                if fs["kind"] not in bound:
                    out.append((f"{label} is on {fs['fs_type']} ({fs['kind']}, mounted at {fs['mount_point']})",
                                STORE_FIX))
        elif kind == "shm_free_mib_at_least" and (shm is None or shm["free_bytes"] < bound * (1 << 20)):
            have = "missing" if shm is None else f"{shm['free_bytes'] >> 20} MiB free"
            out.append((f"/dev/shm {have}, under the {bound:g} MiB the runs are known to work with", SHM_FIX))
    return out
