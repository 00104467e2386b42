"""Snakemake script of rule validate: every run must have its phases, exact op counts and no
errors. Writes results/validation.json; fails the workflow listing every problem."""
import json
import sys

from run_results import rows

EXPECTED_PHASES = {"indexfs": {"insert", "lstat"}, "indexfs-bulk": {"insert", "lstat"},
                   "deltafs": {"insert", "compaction", "lstat"}}


def main(sm):
    problems, seen = [], {}
    try:
        all_rows = list(rows(sm.input))
    except (OSError, ValueError) as e:
        sys.exit(f"validate: {e}")
    for r in all_rows:
        key = (r["system"], r["storage"], r["client_ranks"], r["servers"], r["files_per_rank"], r["repetition"])
        seen.setdefault(key, set()).add(r["phase"])
        what = (f"{r['system']} {r['phase']} with {r['client_ranks']} client ranks, repetition "
                f"{r['repetition']}")
        if r["errors"] != 0:
            problems.append(f"{what}: {r['errors']} operations failed verification")
        if r["ops"] != r["expected_ops"]:
            problems.append(f"{what}: {r['ops']} ops, expected {r['expected_ops']}")
        if r["throughput_mops"] <= 0:
            problems.append(f"{what}: no throughput measured")
        if r["hosts"] < sm.params.min_hosts:
            problems.append(f"{what}: ranks on {r['hosts']} host(s), mpi.min_hosts is {sm.params.min_hosts}")
    for key, phases in seen.items():
        missing = EXPECTED_PHASES[key[0]] - phases
        if key[0] != "deltafs" and missing:
            problems.append(f"{key[0]} with {key[2]} client ranks, repetition {key[5]}: no {', '.join(missing)} phase")
    report = {"phases_checked": len(all_rows), "runs_checked": len(seen), "ok": not problems, "problems": problems}
    with open(sm.log[0], "w") as log:
        json.dump(report, log, indent=1)
    if problems:
        sys.exit("validate: " + "; ".join(problems))
    with open(sm.output[0], "w") as f:
        json.dump(report, f, indent=1)


main(snakemake)  # noqa: F821 (provided by Snakemake)
