"""Rule fidelity's numbers: for every design's phase at every point (client ranks x files
per rank) both implementations ran, our median throughput over the original's; for every
claim checked on both, our median ratio over the original's. Each quotient agrees when it is
within the agreement factor of paper/claims.yaml's `fidelity` (either way), else the table
names the disagreement: a finding about the two implementations, not a failure of the run."""
import statistics

import yaml

from workflows.registry import PHASES, SYSTEMS
from workflows.results.summary import ns_of, ranks_of, select

COLUMNS = ["kind", "what", "client_ranks", "files_per_rank", "ours", "original", "ours_over_original", "agrees"]


def agreement(claims_path):
    """(factor, its reason) from the claims file's `fidelity` block."""
    with open(claims_path) as f:
        doc = yaml.safe_load(f)
    block = doc.get("fidelity") if isinstance(doc, dict) else None
    if not isinstance(block, dict) or not isinstance(block.get("tolerance"), (int, float)) or block["tolerance"] < 1:
        raise ValueError(f"{claims_path}: expected a `fidelity` block with a tolerance >= 1 and its why")
    return float(block["tolerance"]), str(block.get("why", "")).strip()


def row(kind, what, x, n, ours, original, tolerance):
    q = ours / original if original > 0 else float("inf")
    return {"kind": kind, "what": what, "client_ranks": x, "files_per_rank": n, "ours": ours, "original": original,
            "ours_over_original": q, "agrees": 1 / tolerance <= q <= tolerance}


def phases(rows, tolerance):
    """The per-phase rows: median Mop/s of each implementation at each point both ran."""
    out = []
    for s in SYSTEMS.values():
        for phase in PHASES:
            for x, n in [(x, n) for x in ranks_of(rows) for n in ns_of(rows)]:
                medians = {}
                for impl in ("deltameta", "original"):
                    pts = select(rows, implementation=impl, system=s.name, phase=phase, client_ranks=x,
                                 files_per_rank=n)
                    if pts:
                        medians[impl] = statistics.median(r["throughput_mops"] for r in pts)
                if len(medians) == 2:
                    out.append(row("phase", f"{s.label} {phase}", x, n, medians["deltameta"], medians["original"],
                                   tolerance))
    return out


def claims(result, tolerance):
    """The per-claim rows: each implementation's median ratio at each point both measured."""
    out = []
    theirs = {c["id"]: c for c in result.get("original", {}).get("claims", [])}
    for c in result["claims"]:
        other = {(p["client_ranks"], p["files_per_rank"]): p["median"]
                 for p in theirs.get(c["id"], {}).get("per_client_ranks", [])}
        for p in c["per_client_ranks"]:
            key = (p["client_ranks"], p["files_per_rank"])
            if key in other:
                out.append(row("claim", c["id"], *key, p["median"], other[key], tolerance))
    return out


def table(rows, tolerance, why, source):
    """fidelity.md: the claims' rows, then the phases', each with its verdict."""
    def fmt(v):
        return f"{v:.3g}"

    apart = [r for r in rows if not r["agrees"]]
    lines = ["# Fidelity: our core against the authors' original prototype", "",
             f"Measured in one run ({source}), on the same machine, at the same scale: ours over the original's "
             f"(the authors' deltafs-proto 2021.5, built from its release and run with the seed guide's command "
             f"lines). They agree within {tolerance:g}x either way: {why}", "",
             f"{len(rows) - len(apart)} of {len(rows)} comparisons agree; {len(apart)} disagree"
             + (" (a finding about the two implementations, not a failure of the run)." if apart else "."), ""]
    for kind, head, unit in (("claim", "claim (its ratio)", "x"), ("phase", "phase (Mop/s)", "")):
        part = [r for r in rows if r["kind"] == kind]
        if not part:
            continue
        lines += [f"| {head} | client ranks | files per rank | ours | original | ours / original | agree |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
        lines += [f"| {r['what']} | {r['client_ranks']} | {r['files_per_rank']:,} | {fmt(r['ours'])}{unit} | "
                  f"{fmt(r['original'])}{unit} | {r['ours_over_original']:.2f} | "
                  f"{'yes' if r['agrees'] else '**no**'} |" for r in part]
        lines.append("")
    return "\n".join(lines)
