"""Rule results_table: results/<name>/results-table.md, the median and
range (lowest to highest) over repetitions of every implementation x system x phase x client
ranks x files per rank in its summary.csv ("n/a": a number the original does not print). With
a system whose servers' CPU is sampled from /proc (CephFS's MDS), the registry's note saying
so."""
from repetitions import median_range

from workflows.registry import IMPLEMENTATIONS, PHASES, SYSTEMS
from workflows.results.summary import implementations_of, load, ns_of, ranks_of, select


def main(sm):
    rows = load(sm.input[0])
    lines = ["# Results", "",
             f"Median (lowest to highest) over repetitions; generated from {sm.input[0]} by the workflow.", "",
             "| system | phase | client ranks | servers | files per rank | reps | Mop/s | µs/op (median latency) |"
             " CPU s per Mop |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    impls = implementations_of(rows)
    for impl, s in [(i, s) for i in impls for s in SYSTEMS.values()]:
        label = s.label + (f", {IMPLEMENTATIONS[impl].label}" if len(impls) > 1 else "")
        for phase in PHASES:
            for x, n in [(x, n) for x in ranks_of(rows) for n in ns_of(rows)]:
                pts = select(rows, implementation=impl, system=s.name, phase=phase, client_ranks=x, files_per_rank=n)
                if not pts:
                    continue
                m, lo, hi = median_range(r["throughput_mops"] for r in pts)
                med = median_range(r["lat_median_us"] for r in pts if r["lat_median_us"] != "")[0]
                cpu = median_range((r["cpu_clients_s"] + r["cpu_servers_s"]) / r["ops"] * 1e6 for r in pts
                                   if r["cpu_clients_s"] != "")[0]
                lat = f"{med:.1f}" if med == med else "n/a"
                cpu = f"{cpu:.1f}" if cpu == cpu else "n/a"
                lines.append(f"| {label} | {phase} | {x} | {pts[0]['servers']} | {n} | "
                             f"{len(pts)} | {m:.3f} ({lo:.3f} to {hi:.3f}) | {lat} | {cpu} |")
    table_rows = len(lines) - 6
    lines += [line for s in SYSTEMS.values() if s.cpu_note() and select(rows, system=s.name)
              for line in ("", s.cpu_note())]
    with open(sm.output[0], "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(sm.log[0], "w") as log:
        log.write(f"{table_rows} table rows\n")
