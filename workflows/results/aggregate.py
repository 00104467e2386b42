"""Rule aggregate: one row per implementation x system x phase x scale x repetition in
results/summary.csv (columns in workflows/results/runs.py's COLUMNS, documented in
config/README.md); ours first, then the original's."""
import csv
import sys

from workflows.registry import IMPLEMENTATIONS, PHASES, SYSTEMS
from workflows.results.runs import COLUMNS, rows

ORDER = list(SYSTEMS)  # tables and figures list systems, then phases, in the registry's order


def main(sm):
    try:
        table = list(rows(sm.input.runs))
    except (OSError, ValueError) as e:
        sys.exit(f"aggregate: {e}")
    table.sort(key=lambda r: (list(IMPLEMENTATIONS).index(r["implementation"]), ORDER.index(r["system"]), PHASES.index(r["phase"]), r["client_ranks"],
                              r["files_per_rank"], r["repetition"]))
    with open(sm.output[0], "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(table)
    with open(sm.log[0], "w") as log:
        log.write(f"{len(table)} rows\n")
