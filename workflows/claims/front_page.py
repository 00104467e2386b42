"""Rule front_page: the report's front page, results/<name>/front-page.rst: the workflow's
description (workflows/report/workflow.rst, a Jinja template Snakemake fills in), then the
verdict of every claim (held, failed, not comparable here with what was violated and the
fix, not tested) and the environment the claims' phases were measured in, with the runs
rerun because other processes were busy (claims/reruns.py), from
claims.json and summary.csv. The Snakefile gives `snakemake --report` this page once it
exists, the bare description before."""
import json
import math
import statistics

from workflows.claims.check import counts_text, measured_text, not_comparable_text, several_n
from workflows.claims.reruns import reruns_line
from workflows.results.summary import load

VERDICT = {"held": "held", "failed": "**failed**", "not tested": "not tested"}


def verdict(r):
    if r["status"] == "not comparable here":
        return "*" + not_comparable_text(r) + "*"
    text = VERDICT[r["status"]]
    if r["status"] == "failed":
        text += " (at " + ", ".join(f"{p['client_ranks']} client ranks" for p in r["failed_at"]) + ")"
    return text + (": " + r["reason"] if r["status"] == "not tested" else "")


def cell(text):
    """One rst list-table cell: no line breaks, and nothing Jinja would read as its own."""
    return str(text).replace("\n", " ").replace("{{", "{ {").replace("{%", "{ %")


def numbers(rows, column):
    return [float(r[column]) for r in rows if r.get(column, "") not in ("", None) and not math.isnan(float(r[column]))]


def environment_lines(rows):
    """The environment of the runs' phases, or why there is none."""
    other = numbers(rows, "cpu_other_share")
    if not other:
        return ["These results carry no record of the environment they were measured in: their verdicts rest on "
                "the ratios alone."]
    load, shm = numbers(rows, "load_max"), numbers(rows, "shm_free_mib")
    stores = sorted({f"{r['store_fs']} ({r['store_kind']})" for r in rows if r.get("store_fs")})
    steal = numbers(rows, "cpu_steal_share")
    lines = [f"- Other processes' share of the CPUs during a phase: median {statistics.median(other):.0%}, "
             f"highest {max(other):.0%}" + (f"; steal at most {max(steal):.0%}" if steal else "") + ".",
             f"- Highest 1-minute load average during a phase: {max(load):.2f}." if load else "",
             f"- Stores on: {', '.join(stores)}." if stores else "",
             f"- /dev/shm free: at least {min(shm):.0f} MiB." if shm else "",
             reruns_line(rows) or ""]
    return [line for line in lines if line]


def page(description, result, rows):
    name_n = several_n(result)
    lines = [description.rstrip(), "", "Verdict", "-------", "",
             f"The paper's claims on these results: {counts_text(result['counts'])} (claims.md; how to read "
             "them and how to get a valid run: the artifact appendix's evaluation section).", "",
             ".. list-table::", "   :header-rows: 1", "", "   * - claim", "     - verdict", "     - measured"]
    for r in result["claims"]:
        lines += [f"   * - {cell(r['claim'])}", f"     - {cell(verdict(r))}",
                  f"     - {cell(measured_text(r, name_n))}"]
    lines += ["", "Environment", "-----------", "", *environment_lines(rows), ""]
    return "\n".join(lines)


def main(sm):
    with open(sm.input.claims) as f:
        result = json.load(f)
    with open(sm.input.description) as f:
        description = f.read()
    text = page(description, result, load(sm.input.summary))
    with open(sm.output[0], "w") as f:
        f.write(text)
    with open(sm.log[0], "w") as log:
        log.write(f"{len(result['claims'])} claims on the front page\n")
