"""Rule figures: the paper's figures from results/<name>/summary.csv,
each as PDF and PNG, in one style: throughput vs client ranks (insert, lstat, compaction),
end-to-end job time, latency quantiles and CPU seconds per million operations. Every value
is the median over repetitions, its bar the range from the lowest to the highest, and each
repetition is drawn as a small dot. With several files per rank (config key files_per_rank)
the throughput figures draw one line per system and files per rank (line styles), and the
others show the largest files per rank, which their titles name. With the original
prototype's runs in the summary, the throughput and time figures draw them beside ours in
the design's colour with hollow markers (and lighter bars); the latency figure shows ours
alone, since the original prints no quantiles, and says so."""
from matplotlib.patches import Patch
from repetitions import median_range

from workflows.figures.style import (PHASE_HATCHES, PHASE_LINES, log_axis, median_with_range, outside_legend, plt,
                                     range_over_bar, save)
from workflows.registry import IMPLEMENTATIONS, PHASES, SYSTEMS
from workflows.results.summary import at_largest_n, implementations_of, load, ns_of, ranks_of, select

QUANTS = ["min", "q1", "median", "q3", "q90", "q99", "max"]
N_STYLES = ["-", "--", ":", "-."]  # line style of each files per rank, when there are several


def systems_in(rows):
    return [s for s in SYSTEMS if select(rows, system=s)]


def series_in(rows):
    """(system, implementation, its label) of every design on every implementation in `rows`;
    the label names the implementation only when the rows hold several."""
    impls = implementations_of(rows)
    return [(s, i, SYSTEMS[s].label + (f", {IMPLEMENTATIONS[i].label}" if len(impls) > 1 else ""))
            for i in impls for s in systems_in(select(rows, implementation=i))]


def ours_only(rows):
    """(our rows, a title's note when the original's were left out)."""
    ours = select(rows, implementation="deltameta")
    return ours, (" (ours only: the original prints none)" if len(ours) < len(rows) else "")


def save_as(fig, name, out):
    save(fig, out[f"{name}_pdf"], out[f"{name}_png"])


def no_data(ax, what):
    ax.text(0.5, 0.5, f"no {what} in these results", ha="center", va="center", transform=ax.transAxes)


def throughput_vs_ranks(rows, phase, title, out, name, also=()):
    """`also`: (system, phase, label) lines drawn for comparison (e.g. the DeltaFS write phase
    beside its compaction): dashed, or with several files per rank (whose line styles tell
    them apart) with hollow markers."""
    fig, ax = plt.subplots(figsize=(7, 3.8))
    drawn = False
    ns = ns_of(rows)
    several = len(implementations_of(rows)) > 1
    lines = [(s, impl, phase, f"{label} {phase}" if also else label, False) for s, impl, label in series_in(rows)]
    lines += [(s, impl, p, label + (f", {IMPLEMENTATIONS[impl].label}" if several else ""), True)
              for s, p, label in also for impl in implementations_of(rows)]
    for s, impl, p, label, compared in lines:
        for i, n in enumerate(ns):
            pts = select(rows, implementation=impl, system=s, phase=p, files_per_rank=n)
            xs = ranks_of(pts)
            if not xs:
                continue
            groups = [[r["throughput_mops"] for r in select(pts, client_ranks=x)] for x in xs]
            if len(ns) > 1:
                style = dict(linestyle=N_STYLES[i % len(N_STYLES)], label=f"{label}, {n:,} files/rank")
                if compared:
                    style["markerfacecolor"] = "none"
            else:
                style = dict(linestyle="--" if compared else "-", label=label)
            if not IMPLEMENTATIONS[impl].filled:
                style["markerfacecolor"] = "none"
                if len(ns) == 1 and not compared:
                    style["linestyle"] = ":"
            median_with_range(ax, xs, groups, color=SYSTEMS[s].color, marker=SYSTEMS[s].marker, **style)
            drawn = True
    if drawn:
        log_axis(ax)
        outside_legend(ax)
    else:
        no_data(ax, f"{phase} phases")
    ax.set_xticks(ranks_of(rows))
    ax.set_xlabel("client ranks")
    ax.set_ylabel("throughput (Mop/s)" if also else f"{phase} throughput (Mop/s)")
    ax.set_title(title)
    save_as(fig, name, out)


def end_to_end(rows, out):
    fig, ax = plt.subplots(figsize=(8, 3.8))
    rows, at_n = at_largest_n(rows)
    series, ranks = series_in(rows), ranks_of(rows)
    width = 0.8 / max(1, len(series))
    for i, (s, impl, _) in enumerate(series):
        mine = select(rows, implementation=impl, system=s)
        alpha = 1.0 if IMPLEMENTATIONS[impl].filled else 0.45
        for j, x in enumerate(ranks):
            reps = sorted({r["repetition"] for r in select(mine, client_ranks=x)})
            if not reps:
                continue
            totals = [sum(r["elapsed_s"] for r in select(mine, client_ranks=x, repetition=rep)) for rep in reps]
            total = range_over_bar(ax, j + i * width, totals)
            # The bar is the median total, split in the proportions of the phases' medians.
            parts = {p: median_range(r["elapsed_s"] for r in select(mine, client_ranks=x, phase=p))[0]
                     for p in PHASES}
            parts = {p: v for p, v in parts.items() if v == v}  # phases this system has
            scale = total / sum(parts.values())
            bottom = 0.0
            for phase, v in parts.items():
                ax.bar(j + i * width, v * scale, width, bottom=bottom, color=SYSTEMS[s].color,
                       hatch=PHASE_HATCHES[phase], edgecolor="white", alpha=alpha)
                bottom += v * scale
    ax.set_xticks([j + width * (len(series) - 1) / 2 for j in range(len(ranks))], [str(x) for x in ranks])
    ax.set_xlabel("client ranks")
    ax.set_ylabel("job time (s)")
    at_n = f" at {at_n}" if at_n else ""
    ax.set_title(f"End-to-end time{at_n}: write (+ compaction) + read; median, range, repetitions")
    handles = [Patch(color=SYSTEMS[s].color, alpha=1.0 if IMPLEMENTATIONS[impl].filled else 0.45, label=label)
               for s, impl, label in series]
    handles += [Patch(facecolor="#777777", edgecolor="white", hatch=PHASE_HATCHES[p], label=p) for p in PHASES]
    outside_legend(ax, handles=handles, fontsize=8)
    save_as(fig, "end_to_end_time", out)


def at_largest_scale(rows):
    """(the rows at the largest client count and files per rank, the title's "<ranks> client
    ranks[ x <n> files per rank]")."""
    rows, at_n = at_largest_n(rows)
    top = max(ranks_of(rows)) if rows else 0
    return select(rows, client_ranks=top), f"{top} client ranks" + (f" x {at_n}" if at_n else "")


def latency(rows, out):
    fig, ax = plt.subplots(figsize=(8, 3.8))
    rows, note = ours_only(rows)
    top_rows, top = at_largest_scale(rows)
    for s in systems_in(top_rows):
        for phase in ("insert", "lstat"):
            pts = select(top_rows, system=s, phase=phase)
            if not pts:
                continue
            groups = [[r[f"lat_{q}_us"] for r in pts if r[f"lat_{q}_us"] != ""] for q in QUANTS]
            median_with_range(ax, range(len(QUANTS)), groups, color=SYSTEMS[s].color, linestyle=PHASE_LINES[phase],
                              marker=SYSTEMS[s].marker, label=f"{SYSTEMS[s].label} {phase}")
    log_axis(ax)
    ax.set_xticks(range(len(QUANTS)), QUANTS)
    ax.set_xlabel("quantile")
    ax.set_ylabel("latency per operation (µs)")
    ax.set_title(f"Latency quantiles at {top}{note}")
    if top_rows:
        outside_legend(ax, fontsize=8)
    save_as(fig, "latency_quantiles", out)


def cpu(rows, out):
    fig, ax = plt.subplots(figsize=(8, 4))
    top_rows, top = at_largest_scale(rows)
    several = len(implementations_of(top_rows)) > 1
    labels, x = [], 0
    for s, impl, _ in series_in(top_rows):
        alpha = 1.0 if IMPLEMENTATIONS[impl].filled else 0.45
        for phase in PHASES:
            pts = select(top_rows, implementation=impl, system=s, phase=phase)
            if not pts:
                continue
            # Client and server CPU of one repetition go together: the range is that of each
            # repetition's total, and the bar (the median total) is split in the median share
            # of the job's ranks (their deviations are not independent, so never added).
            totals = [(r["cpu_clients_s"] + r["cpu_servers_s"]) / r["ops"] * 1e6 for r in pts]
            share = median_range(r["cpu_clients_s"] / (r["cpu_clients_s"] + r["cpu_servers_s"]) for r in pts
                                 if r["cpu_clients_s"] + r["cpu_servers_s"] > 0)[0]
            total = range_over_bar(ax, x, totals)
            share = share if share == share else 1.0
            ax.bar(x, total * share, color=SYSTEMS[s].color, alpha=alpha)
            ax.bar(x, total * (1 - share), bottom=total * share, color=SYSTEMS[s].color, alpha=0.45 * alpha, hatch="//",
                   edgecolor="white")
            labels.append(f"{SYSTEMS[s].short} {phase}" + (" (original)" if several and impl == "original" else "")
                          + (f" ({SYSTEMS[s].sampled_servers} from /proc)" if SYSTEMS[s].sampled_servers else ""))
            x += 1
    ax.set_xticks(range(len(labels)), labels, fontsize=8, rotation=30, ha="right")
    ax.set_ylabel("CPU seconds per million operations")
    ax.set_title(f"Resource usage at {top}" + (" (lighter: the original, sampled from /proc)" if several else ""))
    if labels:
        outside_legend(ax, fontsize=8, handles=[
            Patch(color="#777777", label="job ranks (clients, compactor)"),
            Patch(facecolor="#777777", alpha=0.45, hatch="//", edgecolor="white", label="servers")])
    save_as(fig, "cpu_per_mop", out)


def main(sm):
    rows = load(sm.input[0])
    out = dict(sm.output.items())
    throughput_vs_ranks(rows, "insert", "Insert throughput", out, "insert_throughput")
    throughput_vs_ranks(rows, "lstat", "Lstat throughput", out, "lstat_throughput")
    write = "hollow markers" if len(ns_of(rows)) > 1 else "dashed"
    throughput_vs_ranks(rows, "compaction", f"DeltaFS parallel compaction ({write}: its write phase)", out,
                        "compaction_throughput", also=[("deltafs", "insert", "DeltaFS write phase")])
    end_to_end(rows, out)
    latency(rows, out)
    cpu(rows, out)
    with open(sm.log[0], "w") as log:
        log.write(f"{len(rows)} rows plotted\n")
