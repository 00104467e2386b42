"""The projection figure (rule projection): (a) the model's error at every measured
configuration beside the run-to-run range of the measurement, (b) each design's projected
throughput against client nodes (faint, and named so, where its fit is unreliable:
reliability.py), (c) the projected DeltaFS / IndexFS ratios beside the
paper's published ones (paper/claims.yaml's paper_value). Labelled as a model throughout."""
from workflows.figures.style import PHASE_LINES, PHASE_MARKERS, PLAIN_NUMBERS, RATIO_LABELS, plt, save
from workflows.registry import SYSTEMS

RATIOS = {"insert": ("DeltaFS / IndexFS insert", "-"),
          "insert_and_compaction": ("DeltaFS write + compaction / IndexFS insert", "--"),
          "cpu_per_create": ("IndexFS / DeltaFS CPU per create", ":")}


def errors(ax, points):
    """Error per configuration (filled: in sample, hollow: held out) and the measurement's range."""
    groups = list(dict.fromkeys((p["system"], p["phase"]) for p in points))
    for g, (system, phase) in enumerate(groups):
        pts = [p for p in points if (p["system"], p["phase"]) == (system, phase)]
        color = SYSTEMS[system].color
        for i, p in enumerate(pts):
            x = g + (i - (len(pts) - 1) / 2) * 0.8 / max(len(pts), 1)
            lo, hi = p["measured_min_mops"] / p["measured_mops"] - 1, p["measured_max_mops"] / p["measured_mops"] - 1
            ax.plot([x, x], [100 * lo, 100 * hi], color="#bbbbbb", linewidth=4, solid_capstyle="butt")
            ax.plot(x, 100 * p["error"], PHASE_MARKERS[phase], color=color, markersize=5)
            if p["held_out_error"] is not None:
                ax.plot(x, 100 * p["held_out_error"], PHASE_MARKERS[phase], color=color, markersize=7, fillstyle="none")
            ax.annotate(str(p["client_ranks"]), (x, 100 * max(p["error"], hi)), xytext=(0, 3),
                        textcoords="offset points", ha="center", fontsize=6)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(groups)), [f"{SYSTEMS[s].short}\n{ph}" for s, ph in groups], fontsize=6, rotation=30)
    ax.set_ylabel("predicted / measured median - 1 (%)")
    ax.set_title("(a) validation: error per measured configuration\n(filled: in sample, hollow: held out; "
                 "grey: run-to-run range; numbers: client ranks)", fontsize=8)


def throughputs(ax, projected, p, fit):
    for system, phase in dict.fromkeys((r["system"], r["phase"]) for r in projected):
        rows = [r for r in projected if (r["system"], r["phase"]) == (system, phase)]
        reliable = fit[(system, phase)]["reliable"]
        ax.plot([r["nodes"] for r in rows], [r["mops"] for r in rows], PHASE_LINES[phase], color=SYSTEMS[system].color,
                alpha=1.0 if reliable else 0.35,
                label=f"{SYSTEMS[system].short} {phase}" + ("" if reliable else " (unreliable fit)"))
        for r in rows:
            ax.plot(r["nodes"], r["mops"], PHASE_MARKERS[phase], color=SYSTEMS[system].color, markersize=4,
                    fillstyle="full" if r["largest_regime"] else "none")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(PLAIN_NUMBERS)
    ax.set_xlabel(f"client nodes N ({p['ranks_per_node']} ranks, {p['cores_per_node']} cores each; "
                  f"{p['server_nodes']} server nodes)")
    ax.set_ylabel("model: Mop/s")
    ax.set_title("(b) model: each design's throughput\n(filled: the costs of the largest measured names per server;"
                 "\nhollow: of a smaller-names regime, e.g. IndexFS's names in its memtable)", fontsize=8)
    ax.legend(fontsize=6, ncol=2)


def ratio_panel(ax, ratio_rows, paper, p):
    if not ratio_rows:
        ax.text(0.5, 0.5, "needs both IndexFS and DeltaFS", ha="center", va="center", transform=ax.transAxes)
        return
    xs = [r["nodes"] for r in ratio_rows]
    for name, (label, style) in RATIOS.items():
        ys = [r[name] for r in ratio_rows]
        if all(y is not None for y in ys):
            ax.plot(xs, ys, style, color="black", label=f"model: {label}")
    for i, (c, m) in enumerate(zip(paper, "D*P", strict=False)):
        x = p["paper_nodes"] * 1.08 ** (i - (len(paper) - 1) / 2)  # side by side around the paper's node count
        ax.plot(x, c["paper_value"], m, color="#c0392b", markersize=8, linestyle="none",
                label=f"paper (published): {c['id']} {c['paper_value']:g}x")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(PLAIN_NUMBERS)
    ax.yaxis.set_major_formatter(RATIO_LABELS)
    ax.set_xlabel("client nodes N")
    ax.set_title(f"(c) model: DeltaFS vs IndexFS, and the paper's ratios\n(marked at {p['paper_nodes']} client nodes)",
                 fontsize=8)
    ax.legend(fontsize=6)


def draw(points, projected, ratio_rows, paper, p, pdf, png, fit):
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    errors(axes[0], points)
    throughputs(axes[1], projected, p, fit)
    ratio_panel(axes[2], ratio_rows, paper, p)
    fig.suptitle("A MODEL, not a measurement: throughput projected from costs measured on this machine "
                 "(projection.md: inputs, equations, assumptions)", fontsize=10, color="#c0392b")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    save(fig, pdf, png)
