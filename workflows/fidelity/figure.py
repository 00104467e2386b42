"""Rule fidelity's figure: ours over the original's, per claim (top) and per phase
(bottom), against the client ranks, on a log axis with the agreement band shaded."""
from workflows.figures.style import AGREEMENT, NO_LABELS, RATIO_LABELS, outside_legend, plt, save

MARKERS = "osD^v<>pXh*"


def panel(ax, rows, tolerance, title):
    whats = list(dict.fromkeys(r["what"] for r in rows))
    for i, what in enumerate(whats):
        pts = sorted((r["client_ranks"], r["ours_over_original"]) for r in rows if r["what"] == what)
        ax.plot([x for x, _ in pts], [q for _, q in pts], marker=MARKERS[i % len(MARKERS)], label=what)
    ax.axhspan(1 / tolerance, tolerance, color=AGREEMENT, alpha=0.08, label=f"agree (within {tolerance:g}x)")
    ax.axhline(1, color="#555555", linewidth=0.8, linestyle=":")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(RATIO_LABELS)
    ax.yaxis.set_minor_formatter(NO_LABELS)
    ax.set_xlabel("client ranks")
    ax.set_ylabel("ours / original")
    ax.set_title(title, fontsize=10)
    if whats:
        ax.set_xticks(sorted({r["client_ranks"] for r in rows}))
        outside_legend(ax, fontsize=7)
    else:
        ax.text(0.5, 0.5, "nothing both implementations measured", ha="center", va="center",
                transform=ax.transAxes)


def draw(rows, tolerance, pdf, png):
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7))
    panel(top, [r for r in rows if r["kind"] == "claim"], tolerance, "Each claim's ratio, ours over the original's")
    panel(bottom, [r for r in rows if r["kind"] == "phase"], tolerance,
          "Each phase's throughput, ours over the original's")
    fig.tight_layout()
    save(fig, pdf, png)
