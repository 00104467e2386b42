"""Rule mdworkbench_figure: MD-Workbench's latency quantiles, one panel per
op type of the benchmark phase (the precreate's creates where the benchmark did none), one
box per interface: the box spans q1 to q3 with the median across, the line min to max, dots
at q90 and q99 (medians over repetitions; log scale)."""
import csv
import statistics

from workflows.figures.style import plt, save
from workflows.registry import MDWB_COLORS, MDWB_INTERFACES, MDWB_OPS
from workflows.results.runs import QUANTILES


def quantiles(rows, interface, op):
    """(phase, {quantile: median over repetitions}) of `op` on `interface` in the benchmark
    phase, else the precreate; (None, None) if neither did it."""
    for phase in ("benchmark", "precreate"):
        group = [r for r in rows if (r["interface"], r["phase"], r["op"]) == (interface, phase, op)]
        if group:
            return phase, {q: statistics.median(float(r[f"lat_{q}_us"]) for r in group) for q in QUANTILES}
    return None, None


def main(sm):
    with open(sm.input[0]) as f:
        rows = list(csv.DictReader(f))
    interfaces = [i for i in MDWB_INTERFACES if any(r["interface"] == i for r in rows)]
    fig, axes = plt.subplots(1, len(MDWB_OPS), figsize=(3 * len(MDWB_OPS), 3.6), sharey=True)
    for ax, op in zip(axes, MDWB_OPS, strict=True):
        for x, interface in enumerate(interfaces):
            phase, q = quantiles(rows, interface, op)
            if q is None:
                ax.text(x, 1, "not served", rotation=90, ha="center", va="bottom", fontsize=7, color="grey")
                continue
            color = MDWB_COLORS[interface]
            ax.plot([x, x], [q["min"], q["max"]], color=color, linewidth=1)
            ax.add_patch(plt.Rectangle((x - 0.3, q["q1"]), 0.6, max(q["q3"] - q["q1"], 1e-3), facecolor=color,
                                       alpha=0.35, edgecolor=color))
            ax.plot([x - 0.3, x + 0.3], [q["median"]] * 2, color=color, linewidth=2)
            ax.plot([x, x], [q["q90"], q["q99"]], linestyle="none", marker="o", markersize=3, color=color)
            if phase == "precreate":
                ax.annotate("precreate", (x, q["max"]), xytext=(0, 3), textcoords="offset points", ha="center",
                            fontsize=7, color="grey")
        ax.set_title(op)
        ax.set_xticks(range(len(interfaces)), [MDWB_INTERFACES[i] for i in interfaces], rotation=30, ha="right",
                      fontsize=8)
        ax.set_xlim(-0.6, len(interfaces) - 0.4)
        ax.set_yscale("log")
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("latency (µs)")
    fig.suptitle("MD-Workbench: latency per op type (box q1-q3, median; line min-max; dots q90, q99)", fontsize=9)
    save(fig, sm.output.pdf, sm.output.png)
