"""Rule mdworkbench_summary: the MD-Workbench runs as rows (one per
interface x phase x op type x repetition, mdworkbench_runs.COLUMNS) in summary.csv, and a
Markdown table of the medians over repetitions: per phase the op and object rates, per op
type the latency quantiles, in the order MD-Workbench prints them, and under it what the
POSIX baseline's numbers are subject to (posix_note)."""
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


def posix_note(docs):
    """What the POSIX directory's runs (their documents `docs`) were measured under: the file
    system, the controls runs.py applied (posix_controls) and the one it leaves out."""
    seen = sorted({(c["fs"], c["top_dir_flag"]) for c in (d.get("posix_controls") for d in docs) if c})
    if not seen:
        return ""
    where = "; ".join(f"{fs}{', top-directory flag (chattr +T) set' if flag else ''}" for fs, flag in seen)
    note = (f"POSIX directory: on {where}; synced before each run, without the 65 s wait of "
            "core/bench/mdworkbench_vs_real.py.")
    if any(fs.startswith("ext") for fs, _ in seen):
        note += (" On ext4 without a journal a create skips the inodes freed in the previous minute, so these "
                 "numbers move with what was deleted just before (an earlier run's cleanup, other programs): "
                 "core/doc/mdworkbench.md, \"Beside the real MD-Workbench\".")
    return note + "\n"


def main(sm):
    docs = [read(path) for path in sm.input.runs]
    all_rows = [r for by_phase in docs for r in rows(by_phase)]
    with open(sm.output.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(all_rows)
    with open(sm.output.table, "w") as f:
        f.write("# MD-Workbench: rates and latency quantiles\n\n"
                "Medians over repetitions; a phase's rates count all of its operations and objects.\n\n")
        f.write(table(all_rows))
        note = posix_note([d for by_phase in docs for d in by_phase.values()])
        if note:
            f.write("\n" + note)
