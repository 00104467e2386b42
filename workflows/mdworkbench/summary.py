"""Rule mdworkbench_summary: the MD-Workbench runs as rows (one per
interface x phase x op type x repetition, mdworkbench_runs.COLUMNS) in summary.csv, and a
Markdown table of the medians over repetitions: per phase the op and object rates, per op
type the latency quantiles, in the order MD-Workbench prints them."""
import csv
import statistics

from workflows.mdworkbench.runs import COLUMNS, read, rows
from workflows.registry import MDWB_INTERFACES, MDWB_OPS
from workflows.results.runs import QUANTILES

PHASES = ("precreate", "benchmark", "cleanup")


def median_of(group, key):
    values = [r[key] for r in group if r[key] != ""]
    return statistics.median(values) if values else None


def table(all_rows):
    lines = ["| interface | phase | op | ops/s (phase) | objects/s (phase) | "
             + " | ".join(f"{q} µs" for q in QUANTILES) + " | repetitions |",
             "|" + " --- |" * (6 + len(QUANTILES))]
    for interface in MDWB_INTERFACES:
        for phase in PHASES:
            for op in MDWB_OPS:
                group = [r for r in all_rows if (r["interface"], r["phase"], r["op"]) == (interface, phase, op)]
                if not group:
                    continue
                cells = [f"{median_of(group, f'lat_{q}_us'):.1f}" for q in QUANTILES]
                lines.append(f"| {MDWB_INTERFACES[interface]} | {phase} | {op} | {median_of(group, 'op_rate'):,.0f} "
                             f"| {median_of(group, 'obj_rate'):,.0f} | " + " | ".join(cells) + f" | {len(group)} |")
    return "\n".join(lines) + "\n"


def main(sm):
    all_rows = [r for path in sm.input.runs for r in rows(path, read(path))]
    with open(sm.output.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(all_rows)
    with open(sm.output.table, "w") as f:
        f.write("# MD-Workbench: rates and latency quantiles\n\n"
                "Medians over repetitions; a phase's rates count all of its operations and objects.\n\n")
        f.write(table(all_rows))
