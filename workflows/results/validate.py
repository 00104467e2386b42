"""Rule validate: every run result file must hold its phases (registry.py),
with exact op counts (client ranks x the run's files per rank) and no errors. Writes
results/<name>/validation.json (with the runs checked per files per rank); fails the
workflow listing every problem."""
import json
import sys

from workflows.results.runs import result_file, rows


def main(sm):
    problems = []
    try:
        found = {path: list(rows([path])) for path in sm.input}
    except (OSError, ValueError) as e:
        sys.exit(f"validate: {e}")
    all_rows = [r for file_rows in found.values() for r in file_rows]
    for r in all_rows:
        impl = " (original)" if r["implementation"] == "original" else ""
        what = (f"{r['system']}{impl} {r['phase']} with {r['client_ranks']} client ranks x {r['files_per_rank']} files, "
                f"repetition {r['repetition']}")
        if r["errors"] != 0:
            problems.append(f"{what}: {r['errors']} operations failed verification")
        if r["ops"] != r["expected_ops"]:
            problems.append(f"{what}: {r['ops']} ops, expected {r['expected_ops']}")
        if r["throughput_mops"] <= 0:
            problems.append(f"{what}: no throughput measured")
        if r["hosts"] < sm.params.min_hosts:
            problems.append(f"{what}: ranks on {r['hosts']} host(s), mpi.min_hosts is {sm.params.min_hosts}")
    for path, file_rows in found.items():
        where, expected = result_file(path)
        missing = sorted(set(expected) - {r["phase"] for r in file_rows})
        if missing:
            problems.append(f"{where['system']} with {where['client_ranks']} client ranks x {where['files_per_rank']} "
                            f"files, repetition {where['repetition']}: no {', '.join(missing)} phase")
    runs = {(r["implementation"], r["system"], r["storage"], r["client_ranks"], r["servers"], r["files_per_rank"], r["repetition"])
            for r in all_rows}
    per_n = {n: sum(run[5] == n for run in runs) for n in sorted({run[5] for run in runs})}
    report = {"phases_checked": len(all_rows), "runs_checked": len(runs), "runs_per_files_per_rank": per_n,
              "ok": not problems, "problems": problems}
    write_report(sm, report, "validate")


def write_report(sm, report, rule):
    """The report into the rule's log; then, if it lists problems, the workflow fails
    naming them all, else the report becomes the rule's output."""
    with open(sm.log[0], "w") as log:
        json.dump(report, log, indent=1)
    if report["problems"]:
        sys.exit(f"{rule}: " + "; ".join(report["problems"]))
    with open(sm.output[0], "w") as f:
        json.dump(report, f, indent=1)
