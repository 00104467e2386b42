"""Rule mdworkbench_validate: every MD-Workbench run must hold its phases
with the object and op counts its parameters imply and no verification error
(mdworkbench/runs.py says what each phase must show). Writes results/<name>/mdworkbench/
validation.json; fails the workflow listing every problem."""
import json
import sys

from workflows.mdworkbench.runs import problems, read


def main(sm):
    found, phases = [], 0
    for path in sm.input:
        try:
            docs = read(path)
        except (OSError, ValueError) as e:
            sys.exit(f"mdworkbench_validate: {e}")
        phases += len(docs)
        found += problems(path, docs)
    report = {"runs_checked": len(sm.input), "phases_checked": phases, "ok": not found, "problems": found}
    with open(sm.log[0], "w") as log:
        json.dump(report, log, indent=1)
    if found:
        sys.exit("mdworkbench_validate: " + "; ".join(found))
    with open(sm.output[0], "w") as f:
        json.dump(report, f, indent=1)
