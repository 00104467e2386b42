"""Rule production_table: results/<name>/production.md, "Against a production service":
CephFS's MDS (system cephfs, the production baseline, issue 36) against the research designs
IndexFS and DeltaFS (our core's runs) in this run's summary.csv. For each phase both measure
(insert, lstat) at each client count and files per rank: the median throughput over
repetitions of each, and the ratio CephFS over the design, one row per design run (IndexFS's
server count, DeltaFS's reader count). Measured ratios only: the paper makes no claim about
CephFS, and none is checked here."""
import statistics

from workflows.registry import SYSTEMS
from workflows.results.numbers import fmt
from workflows.results.summary import load, ns_of, ranks_of, select

BASELINE = "cephfs"
AGAINST = ("indexfs", "deltafs")
PHASES = ("insert", "lstat")


def median_mops(rows):
    return statistics.median(r["throughput_mops"] for r in rows)


def ratios(rows):
    """[(phase, client ranks, files per rank, CephFS's median Mop/s, design, its servers, its
    median Mop/s, CephFS over it)] where both ran."""
    ours = select(rows, implementation="deltameta")
    out = []
    for phase in PHASES:
        for x, n in [(x, n) for x in ranks_of(ours) for n in ns_of(ours)]:
            base = select(ours, system=BASELINE, phase=phase, client_ranks=x, files_per_rank=n)
            if not base:
                continue
            for system in AGAINST:
                pts = select(ours, system=system, phase=phase, client_ranks=x, files_per_rank=n)
                for servers in sorted({r["servers"] for r in pts}):
                    theirs = median_mops(select(pts, servers=servers))
                    out.append((phase, x, n, median_mops(base), system, servers, theirs,
                                median_mops(base) / theirs if theirs > 0 else float("inf")))
    return out


def table(rows, source):
    lines = ["# Against a production service", "",
             f"CephFS's metadata server ({SYSTEMS[BASELINE].label}) against the research designs on the same "
             f"machine and Ceph cluster: median Mop/s over repetitions and the ratio CephFS / design, from {source}. "
             "Measured ratios only: the paper makes no claim about CephFS.", "",
             "| phase | client ranks | files per rank | CephFS Mop/s | design | its servers | its Mop/s | "
             "CephFS / design |",
             "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |"]
    for phase, x, n, base, system, servers, theirs, ratio in rows:
        lines.append(f"| {phase} | {x} | {n} | {base:.4f} | {SYSTEMS[system].label} | {servers} | {theirs:.4f} | "
                     f"{fmt(ratio)}x |")
    if not rows:
        lines.append("| (no phase that CephFS and IndexFS or DeltaFS both ran) | | | | | | | |")
    return "\n".join(lines) + "\n"


def main(sm):
    rows = ratios(load(sm.input[0]))
    with open(sm.output[0], "w") as f:
        f.write(table(rows, sm.input[0]))
    with open(sm.log[0], "w") as log:
        log.write(f"{len(rows)} ratios\n")
