"""The storage floor figure (rule floor): for each system x phase at the largest client rank
count (and files per rank), its bytes/s (a bar in the system's colour) beside the floor of the operation it does
(a black line on the same row, with the fraction of the floor written beside it); a phase
whose bytes cannot be known has no bar and says so."""
from workflows.figures.style import PHASE_HATCHES, plt, save
from workflows.registry import SYSTEMS


NO_DESIGN = "No design ran in this configuration (config key systems): no phase to set against the floor"


def draw(rows, storage, pdf, png):
    if not rows:  # systems: [cephfs] alone
        fig, ax = plt.subplots(figsize=(8, 1.6))
        ax.axis("off")
        ax.text(0.5, 0.5, NO_DESIGN, ha="center", va="center", fontsize=9)
        ax.set_title(f"Storage floor ({storage})")
        save(fig, pdf, png)
        return
    top = max(r["client_ranks"] for r in rows)
    n = max(r["files_per_rank"] for r in rows)
    several_n = len({r["files_per_rank"] for r in rows}) > 1
    shown = [r for r in rows if r["client_ranks"] == top and r["files_per_rank"] == n]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(shown) + 1.6))
    ys = list(range(len(shown)))[::-1]
    values = [r["floor_bytes_per_s"] / 1e6 for r in shown] + [r["bytes_per_s"] / 1e6 for r in shown
                                                              if r["bytes_per_s"] != ""]
    lo = min(v for v in values if v > 0) / 3
    for y, r in zip(ys, shown, strict=True):
        s = SYSTEMS[r["system"]]
        floor = r["floor_bytes_per_s"] / 1e6
        if r["bytes_per_s"] != "":
            est = r["bytes_from"].startswith("estimate")
            ax.barh(y, r["bytes_per_s"] / 1e6 - lo, left=lo, height=0.6, color=s.color, alpha=0.5 if est else 0.9,
                    hatch=PHASE_HATCHES.get(r["phase"], ""), edgecolor="white")
            note = f"{r['fraction_of_floor']:.2g} of floor" + (" (bytes estimated)" if est else "")
        else:
            note = "bytes unknown"
        ax.plot([floor, floor], [y - 0.4, y + 0.4], color="black", linewidth=2)
        ax.annotate(note, (max(floor, r["bytes_per_s"] / 1e6 if r["bytes_per_s"] != "" else 0), y),
                    xytext=(6, 0), textcoords="offset points", va="center", fontsize=8)
    ax.set_yticks(ys, [f"{SYSTEMS[r['system']].short} {r['phase']}\nfloor: {r['floor']}" for r in shown], fontsize=8)
    ax.set_xscale("log")
    ax.set_xlim(left=lo, right=max(values) * 30)
    ax.set_xlabel("MB/s (bars: the phase; black lines: the floor of its operation, fio)")
    ax.set_title(f"Storage floor ({storage}), {top} client ranks" + (f" x {n:,} files per rank" if several_n else ""))
    ax.grid(True, axis="x", alpha=0.3)
    save(fig, pdf, png)
