"""Rule scale_figure: throughput (Mop/s, the median over repetitions, a bar
from the lowest to the highest) against the total files of each run (client ranks x files
per rank, log axis), one line per design and phase: each system's inserts, DeltaFS's
compaction, each system's lstats. Writes the points it draws to scale_throughput.csv beside
the figure. The scale profile (config/profiles/scale.yaml) sweeps files_per_rank for it."""
import csv

from repetitions import median_range

from workflows.figures.style import NO_LABELS, PHASE_LINES, log_axis, median_with_range, outside_legend, plt, save
from workflows.registry import PHASES, SYSTEMS
from workflows.results.summary import load, select

COLUMNS = ["system", "phase", "client_ranks", "files_per_rank", "total_files", "repetitions", "median_mops",
           "min_mops", "max_mops"]


def points(rows):
    """One point per system x phase x client ranks x files per rank, in the registry's order
    of systems and phases, then by total files."""
    out = []
    for s in SYSTEMS:
        for phase in PHASES:
            pts = select(rows, system=s, phase=phase)
            for ranks, n in sorted({(r["client_ranks"], r["files_per_rank"]) for r in pts},
                                   key=lambda k: (k[0] * k[1], k[0])):
                reps = [r["throughput_mops"] for r in select(pts, client_ranks=ranks, files_per_rank=n)]
                med, lo, hi = median_range(reps)
                out.append(dict(system=s, phase=phase, client_ranks=ranks, files_per_rank=n, total_files=ranks * n,
                                repetitions=len(reps), median_mops=med, min_mops=lo, max_mops=hi, reps=reps))
    return out


def draw(pts, pdf, png):
    fig, ax = plt.subplots(figsize=(7.5, 4))
    for s in SYSTEMS:
        for phase in PHASES:
            line = [p for p in pts if (p["system"], p["phase"]) == (s, phase)]
            if line:
                median_with_range(ax, [p["total_files"] for p in line], [p["reps"] for p in line],
                                  color=SYSTEMS[s].color, marker=SYSTEMS[s].marker, linestyle=PHASE_LINES[phase],
                                  label=f"{SYSTEMS[s].label} {phase}")
    ax.set_xscale("log")
    totals = sorted({p["total_files"] for p in pts})
    ax.set_xticks(totals, [f"{t:,}" for t in totals], fontsize=8, rotation=30, ha="right")
    ax.xaxis.set_minor_formatter(NO_LABELS)
    ax.set_xlabel("total files (client ranks x files per rank)")
    ax.set_ylabel("throughput (Mop/s)")
    ax.set_title("Throughput as the work grows: median, range, repetitions")
    if pts:
        ax.set_xlim(totals[0] / 2, totals[-1] * 2)
        log_axis(ax)
        outside_legend(ax, fontsize=8)
    save(fig, pdf, png)


def main(sm):
    pts = points(load(sm.input[0], "deltameta"))  # our core's scale runs
    with open(sm.output.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(pts)
    draw(pts, sm.output.pdf, sm.output.png)
    with open(sm.log[0], "w") as log:
        log.write(f"{len(pts)} points at {len({p['total_files'] for p in pts})} totals\n")
