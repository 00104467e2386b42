"""Rule claims: checks every claim of paper/claims.yaml on this
configuration's summary.csv and writes results/<name>/claims.json and claims.md. A failed
claim is reported there and on the log, and the rule still succeeds; it fails only when the
results lack what a tested claim needs, or the claims file is malformed."""
import json
import sys

from workflows.claims.check import MissingData, check, load_claims, measured_text, several_n, table
from workflows.results.summary import load


def main(sm):
    try:
        doc = load_claims(sm.input.claims)
        rows = load(sm.input.summary)
        result = check(doc, rows, sm.params.systems)
    except (OSError, ValueError, MissingData) as e:
        sys.exit(f"claims: {e}")
    result["summary"] = sm.input.summary
    with open(sm.output.json, "w") as f:
        json.dump(result, f, indent=1)
    with open(sm.output.table, "w") as f:
        f.write(table(result, sm.input.summary))
    with open(sm.log[0], "w") as log:
        for r in result["claims"]:
            line = (f"{r['status'].upper()}: {r['claim']}: expected {r['expected']}, "
                    f"{measured_text(r, several_n(result))}")
            log.write(line + "\n")
            print(f"claims: {line}", file=sys.stderr)
