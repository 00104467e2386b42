"""Rule fidelity: results/<name>/fidelity.csv and fidelity.md, and figures/fidelity.pdf and
.png, from the run's summary.csv and claims.json (compare.py says what is compared)."""
import csv
import json
import sys

from workflows.fidelity.compare import COLUMNS, agreement, claims, phases, table
from workflows.fidelity.figure import draw
from workflows.results.summary import load


def main(sm):
    try:
        tolerance, why = agreement(sm.input.claims_file)
        with open(sm.input.claims) as f:
            result = json.load(f)
        rows = claims(result, tolerance) + phases(load(sm.input.summary), tolerance)
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"fidelity: {e}")
    if not rows:
        sys.exit(f"fidelity: {sm.input.summary} holds no point both implementations ran: list deltameta and "
                 "original in implementations")
    with open(sm.output.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    with open(sm.output.table, "w") as f:
        f.write(table(rows, tolerance, why, sm.input.summary))
    draw(rows, tolerance, sm.output.pdf, sm.output.png)
    with open(sm.log[0], "w") as log:
        log.write(f"{sum(r['agrees'] for r in rows)} of {len(rows)} comparisons agree\n")
