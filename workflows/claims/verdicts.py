"""Rule claims: checks every claim of paper/claims.yaml on this
configuration's summary.csv and writes results/<name>/claims.json and claims.md. A failed
claim, and one not comparable here (measured outside its conditions), is reported there
and on the log, and the rule still succeeds; it fails only when the results lack what a
tested claim needs, or the claims file is malformed. With the original prototype's runs in
the summary, its claims are checked apart, on its rows alone, under "original" in
claims.json and in a section of its own in claims.md; the top level is ours. The runs that
were rerun because other processes were busy are named last (claims/reruns.py)."""
import json
import sys

from workflows.claims.check import MissingData, check, load_claims, measured_text, not_comparable_text, several_n, table
from workflows.claims.reruns import reruns_section
from workflows.environment.conditions import other_cpu_bound
from workflows.results.summary import implementations_of, load


def main(sm):
    try:
        doc = load_claims(sm.input.claims)
        rows = load(sm.input.summary)
        impls = implementations_of(rows)
        result = check(doc, rows, sm.params.systems, impls[0] if impls else "deltameta")
        if "original" in impls and impls[0] != "original":
            result["original"] = check(doc, rows, sm.params.systems, "original")
    except (OSError, ValueError, MissingData) as e:
        sys.exit(f"claims: {e}")
    result["summary"] = sm.input.summary
    with open(sm.output.json, "w") as f:
        json.dump(result, f, indent=1)
    with open(sm.output.table, "w") as f:
        f.write(table(result, sm.input.summary))
        if "original" in result:
            f.write("\n" + table(result["original"], sm.input.summary + "'s rows of the authors' original prototype "
                                  "(deltafs-proto 2021.5)", "# Claims on the authors' original prototype"))
        section = reruns_section(rows, other_cpu_bound(doc["claims"]))
        if section:
            f.write("\n" + section)
    with open(sm.log[0], "w") as log:
        for checked in [result] + ([result["original"]] if "original" in result else []):
            on = " (original)" if checked["implementation"] == "original" else ""
            for r in checked["claims"]:
                line = (f"{r['status'].upper()}{on}: {r['claim']}: expected {r['expected']}, "
                        f"{measured_text(r, several_n(checked))}")
                if r["status"] == "not comparable here":
                    line += "; " + not_comparable_text(r)
                log.write(line + "\n")
                print(f"claims: {line}", file=sys.stderr)
