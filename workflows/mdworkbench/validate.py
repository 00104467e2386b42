"""Rule mdworkbench_validate: every MD-Workbench run must hold its phases
with the object and op counts its parameters imply and no verification error
(mdworkbench/runs.py says what each phase must show). Writes results/<name>/mdworkbench/
validation.json; fails the workflow listing every problem."""
import sys

from workflows.mdworkbench.runs import problems, read
from workflows.results.validate import write_report


def main(sm):
    found, phases = [], 0
    for path in sm.input:
        try:
            docs = read(path)
        except (OSError, ValueError) as e:
            sys.exit(f"mdworkbench_validate: {e}")
        phases += len(docs)
        found += problems(docs)
    report = {"runs_checked": len(sm.input), "phases_checked": phases, "ok": not found, "problems": found}
    write_report(sm, report, "mdworkbench_validate")
