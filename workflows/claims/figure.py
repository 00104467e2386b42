"""Rule claims_figure: one panel per claim of results/<name>/claims.json,
its ratio at every client count (median over repetitions, and the range from the lowest to
the highest ratio of two repetitions) against the interval it must fall in and the paper's figure
where the paper reports one; a point measured outside the claim's conditions is marked
apart from a failed one (an open square; the panel orange, naming the condition). With
several files per rank, against the total files (client ranks x files per rank, log axis)
instead."""
import json
import math
import textwrap

from workflows.claims.check import counts_text
from workflows.figures.style import AGREEMENT, NO_LABELS, RATIO_LABELS, plt, save

COLORS = {"held": AGREEMENT, "failed": "#c0392b", "not comparable here": "#d68910", "not tested": "#777777"}


def panel(ax, r):
    ax.set_title(f"{r['id']}: {r['status']}", color=COLORS[r["status"]], fontsize=9)
    pts = r["per_client_ranks"]
    if not pts:
        ax.text(0.5, 0.5, r.get("reason", "no data"), ha="center", va="center", wrap=True, transform=ax.transAxes,
                fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
        return
    several_n = len({p["files_per_rank"] for p in pts}) > 1
    if several_n:
        pts = sorted(pts, key=lambda p: (p["client_ranks"] * p["files_per_rank"], p["client_ranks"]))
    xs = [p["client_ranks"] * (p["files_per_rank"] if several_n else 1) for p in pts]
    med = [p["median"] for p in pts]
    err = [[m - p["min"] for m, p in zip(med, pts, strict=True)], [p["max"] - m for m, p in zip(med, pts, strict=True)]]
    low, high = r["accepted"][0], r["accepted"][1]
    values = med + [p["min"] for p in pts] + [p["max"] for p in pts] + [low] + ([high] if high else [])
    top = max(values + ([r["paper_value"]] if r.get("paper_value") else []))
    bottom = min(v for v in values if v > 0)
    ax.set_yscale("log")
    ax.set_ylim(bottom / 2, top * 2)
    ax.axhspan(low, high if high else top * 2, color=COLORS["held"], alpha=0.08, label="accepted")
    ax.axhline(low, color=COLORS["held"], linewidth=1)
    if high:
        ax.axhline(high, color=COLORS["held"], linewidth=1)
    ax.errorbar(xs, med, yerr=err, color="black", marker="o", capsize=3, label="median (range)")
    outside = [(x, p["median"]) for x, p in zip(xs, pts, strict=True) if p.get("outside")]
    if outside:  # a miss outside the conditions is not a failure: drawn apart
        ax.plot(*zip(*outside, strict=True), "s", color=COLORS["not comparable here"], markersize=9, fillstyle="none",
                mew=2, linestyle="none", label="measured outside the claim's conditions")
    for x, p in zip(xs, pts, strict=True):
        if not p["held"] and not p.get("outside"):
            ax.plot(x, p["median"], "x", color=COLORS["failed"], markersize=10, mew=2)
    if r["status"] == "not comparable here":
        # the problem without its parenthesis (the bound), wrapped to the panel
        said = [textwrap.fill(o["problem"].split(" (")[0], 55) for o in r["not_comparable"]]
        ax.text(0.02, 0.04, "\n".join(said), transform=ax.transAxes, fontsize=6, color=COLORS["not comparable here"])
    if r.get("paper_value"):
        ax.axhline(r["paper_value"], color="#555555", linestyle=":", linewidth=1, label="paper, at scale")
    if several_n:
        ax.set_xscale("log")
        ax.set_xticks(xs, [f"{x:,}" for x in xs], fontsize=7, rotation=30)
        ax.xaxis.set_minor_formatter(NO_LABELS)
        ax.set_xlabel("total files (client ranks x files per rank)")
    else:
        ax.set_xticks(xs)
        ax.set_xlabel("client ranks")
    of, over = r["of"], r["over"]
    ax.set_ylabel(f"{of['system']} / {over['system']}\n{r['metric']}", fontsize=8)
    ax.yaxis.set_major_formatter(RATIO_LABELS)
    ax.yaxis.set_minor_formatter(NO_LABELS)


def main(sm):
    with open(sm.input[0]) as f:
        result = json.load(f)
    claims = result["claims"]
    cols = 2
    rows = max(1, math.ceil(len(claims) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(9, 2.8 * rows), squeeze=False)
    for ax, r in zip(axes.flat, claims, strict=False):  # the grid may have more axes than claims
        panel(ax, r)
    for ax in list(axes.flat)[len(claims):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=3, bbox_to_anchor=(0.5, -0.02), fontsize=8)
    fig.suptitle(f"The paper's claims on these results: {counts_text(result['counts'])}", fontsize=10)
    fig.tight_layout(rect=(0, 0.03, 1, 0.97))
    save(fig, sm.output.pdf, sm.output.png)
    with open(sm.log[0], "w") as log:
        log.write(f"{len(claims)} claims drawn\n")
