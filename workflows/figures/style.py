"""The one style of every figure (rules figures, scale_figure, claims_figure, floor,
mdworkbench_figure, projection, fidelity): matplotlib without a display and its settings,
saving in both formats, tick labels (plain numbers, ratios, none), a log axis with plain
numbers, the median with its range and every repetition (on a line, or over a bar), a
legend outside the axes, each phase's line style, hatch and marker, and the colour of
agreement. Each system's colour and marker are the registry's (SYSTEMS, MDWB_COLORS)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator  # noqa: E402

from repetitions import median_range  # noqa: E402

plt.rcParams.update({"font.size": 10, "axes.grid": True, "grid.alpha": 0.3, "figure.dpi": 100,
                     "savefig.bbox": "tight", "axes.spines.top": False, "axes.spines.right": False})

# Each phase (registry.PHASES) drawn alike in every figure: its line, its bars' hatch, and
# its marker where the colour is the system's.
PHASE_LINES = {"insert": "-", "compaction": "-.", "lstat": "--"}
PHASE_HATCHES = {"insert": "", "compaction": "//", "lstat": ".."}
PHASE_MARKERS = {"insert": "o", "compaction": "s", "lstat": "^"}
AGREEMENT = "#2a9d4b"  # green: a claim that held, ours within the tolerance of the original

PLAIN_NUMBERS = FuncFormatter(lambda v, _: f"{v:g}")  # tick labels: 0.5, 2, 100
RATIO_LABELS = FuncFormatter(lambda v, _: f"{v:g}x")  # 0.5x, 2x, 100x
NO_LABELS = FuncFormatter(lambda v, _: "")


def save(fig, pdf, png):
    """Saves `fig` as PDF, then as PNG at 150 dpi, and closes it."""
    fig.savefig(pdf)
    fig.savefig(png, dpi=150)
    plt.close(fig)


def log_axis(ax):
    """Log scale with plain numbers on the ticks: each power of ten and its 2 and 5
    multiples (0.02, 0.05, 0.1, ...), so that labels never crowd one another, all in one
    font size."""
    ax.set_yscale("log")
    ax.yaxis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
    ax.yaxis.set_major_formatter(PLAIN_NUMBERS)
    ax.yaxis.set_minor_formatter(PLAIN_NUMBERS)
    ax.tick_params(axis="y", which="both", labelsize=8)


def median_with_range(ax, xs, groups, **style):
    """Draws the median of each group of repetitions at xs, a bar from its lowest to its
    highest value, and every repetition as a small hollow dot beside it (spread sideways
    over a tenth of the gap between points, so that none hides under the median's marker or
    the bar's cap)."""
    stats = [median_range(g) for g in groups]
    med = [m for m, _, _ in stats]
    err = [[m - lo for m, lo, _ in stats], [hi - m for m, _, hi in stats]]
    ax.errorbar(xs, med, yerr=err, capsize=3, **style)
    xs, ordered = list(xs), sorted(set(xs))
    gap = min((b - a for a, b in zip(ordered, ordered[1:], strict=False)), default=1)
    for x, g in zip(xs, groups, strict=True):
        spread = [x + gap * (0.06 + 0.04 * i) for i in range(len(g))]
        ax.plot(spread, g, linestyle="none", marker="o", markersize=3, markerfacecolor="none", markeredgewidth=0.8,
                alpha=0.8, color=style.get("color"))


def range_over_bar(ax, x, values):
    """Draws, over a bar at x, a black bar from the lowest of `values` (a list, one per
    repetition) to the highest and each value as a small dot on it; returns their median,
    the bar's height."""
    med, lo, hi = median_range(values)
    ax.errorbar(x, med, yerr=[[med - lo], [hi - med]], color="black", capsize=3)
    ax.plot([x] * len(values), values, linestyle="none", marker=".", markersize=3, color="black", alpha=0.5)
    return med


def outside_legend(ax, **kw):
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, **kw)
