"""The runs that were rerun because other processes were busy during them (config key
environment_reruns, workflows/environment/reruns.py), from summary.csv's reruns and
rerun_causes columns: a section of claims.md naming each run, how many times it was rerun
and why, and a line of the report's front page. Nothing where no run was rerun."""


def rerun_runs(rows):
    """[(the run's description, its reruns, [(phase, other processes' share)])], one per run:
    its rows (phases) share the coordinates and the causes of its reruns."""
    runs = {}
    for r in rows:
        if int(r.get("reruns") or 0) > 0:
            key = (r.get("implementation", "deltameta"), r["system"], r["storage"], int(r["client_ranks"]),
                   int(r["servers"]), int(r["files_per_rank"]), int(r["repetition"]), r["rerun_causes"])
            runs.setdefault(key, []).append(r["phase"])
    out = []
    for (impl, system, storage, ranks, servers, n, rep, causes), phases in runs.items():
        what = (f"{system} {'/'.join(phases)} ({impl}, {storage}) at {ranks} client ranks, {servers} servers, "
                f"{n:,} files per rank, repetition {rep}")
        found = [cause.rsplit("=", 1) for cause in str(causes).split("; ") if "=" in cause]
        out.append((what, len(found), [(phase, float(share)) for phase, share in found]))
    return out


def reruns_section(rows, bound):
    """claims.md's section on the reruns (Markdown, ending in a newline), or "" when none."""
    runs = rerun_runs(rows)
    if not runs:
        return ""
    limit = f"more than the claims' {bound:.0%}" if bound is not None else "more than the claims allow"
    lines = ["# Runs rerun on a busy machine", "",
             f"These runs were made again because other processes used {limit} of the CPUs during one of their "
             "phases (config key environment_reruns); their rows are the last attempt's, which a claim measured "
             "outside its conditions still shows as not comparable here.", ""]
    for what, count, causes in runs:
        why = "; ".join(f"other processes used {share:.0%} of the CPUs during {phase}" for phase, share in causes)
        lines.append(f"- {what}: rerun {count} time{'s' if count > 1 else ''} ({why})")
    return "\n".join(lines) + "\n"


def reruns_line(rows):
    """The front page's line on the reruns, or None when no run was rerun."""
    runs = rerun_runs(rows)
    if not runs:
        return None
    return (f"- Rerun because other processes were busy: {len(runs)} run{'s' if len(runs) > 1 else ''}, "
            f"{sum(count for _, count, _ in runs)} rerun(s) in all (claims.md names them).")
