"""Snakemake script of rule results_table: paper/results-table.md, the mean and standard
deviation over repetitions of every system x phase x scale in results/summary.csv."""
from summary_stats import LABELS, SYSTEMS, load, mean_std, ranks_of, select


def main(sm):
    rows = load(sm.input[0])
    lines = ["# Results", "",
             "Mean ± standard deviation over repetitions; generated from results/summary.csv by the workflow.", "",
             "| system | phase | client ranks | servers | files per rank | reps | Mop/s | µs/op (median latency) |"
             " CPU s per Mop |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for s in SYSTEMS:
        for phase in ("insert", "compaction", "lstat"):
            for x in ranks_of(rows):
                pts = select(rows, system=s, phase=phase, client_ranks=x)
                if not pts:
                    continue
                m, sd = mean_std(r["throughput_mops"] for r in pts)
                med = mean_std(r["lat_median_us"] for r in pts if r["lat_median_us"] != "")[0]
                cpu = mean_std((r["cpu_clients_s"] + r["cpu_servers_s"]) / r["ops"] * 1e6 for r in pts)[0]
                lat = f"{med:.1f}" if med == med else "n/a"
                lines.append(f"| {LABELS[s]} | {phase} | {x} | {pts[0]['servers']} | {pts[0]['files_per_rank']} | "
                             f"{len(pts)} | {m:.3f} ± {sd:.3f} | {lat} | {cpu:.1f} |")
    with open(sm.output[0], "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(sm.log[0], "w") as log:
        log.write(f"{len(lines) - 6} table rows\n")


main(snakemake)  # noqa: F821 (provided by Snakemake)
