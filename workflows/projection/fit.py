"""Rule projection: fits the projection model (projection/model.py) on
results/<name>/summary.csv and floor.csv, predicts every measured configuration, projects
each research design (registry.DESIGNS; not the CephFS baseline) to the configured target
machine (config key `projection`), and writes projection-inputs.csv,
projection-validation.csv, projection.md (projection/report.py) and, through
projection/figure.py, figures/projection.{pdf,png}. A model, labelled as such everywhere,
and each design's phase marked unreliable where its fit's error is beyond
projection.max_error (projection/reliability.py)."""
import csv
import os
import sys

from workflows.claims.check import load_claims
from workflows.projection.figure import draw
from workflows.projection.model import Target, project, ratios, storage_inputs, validate
from workflows.projection.reliability import judge
from workflows.projection.report import inputs_rows, markdown
from workflows.registry import DESIGNS
from workflows.results.summary import load


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def target_of(p):
    """The target machine of config key `projection`."""
    return Target(p["ranks_per_node"], p["cores_per_node"], p["server_nodes"], float(p["network_rtt_us"]),
                  p["storage"], p["files_per_rank"])


def main(sm):
    p = sm.params.projection
    cores = p["measured_cores"] or len(os.sched_getaffinity(0))
    try:
        # a model of our core's costs, so of the research designs alone (not the CephFS baseline)
        summary = [r for r in load(sm.input.summary, "deltameta") if r["system"] in DESIGNS]
        with open(sm.input.floor, newline="") as f:
            floor_rows = list(csv.DictReader(f))
        claims = load_claims(sm.input.claims)["claims"]
        paper = [c for c in claims if c.get("paper_value")]
        inputs, points = validate(summary, storage_inputs(floor_rows, summary), cores)
    except (OSError, ValueError) as e:
        sys.exit(f"projection: {e}")
    fit = judge(points, summary, p["max_error"], claims)
    projected = project(inputs, target_of(p), sorted(p["nodes"]))
    ratio_rows = ratios(projected)
    write_csv(sm.output.inputs, inputs_rows(inputs))
    write_csv(sm.output.validation, points)
    with open(sm.output.table, "w") as f:
        f.write(markdown(inputs, points, projected, ratio_rows, p, target_of(p), cores, paper,
                         f"{sm.input.summary} and {sm.input.floor}", fit))
    draw(points, projected, ratio_rows, paper, p, sm.output.pdf, sm.output.png, fit)
    with open(sm.log[0], "w") as log:
        worst = max(abs(q["error"]) for q in points)
        unreliable = [f"{s} {ph}" for (s, ph), v in fit.items() if not v["reliable"]]
        log.write(f"{len(inputs)} fitted inputs, {len(points)} configurations validated (worst error "
                  f"{100 * worst:.0f}%), {len(projected)} projected points; unreliable: "
                  f"{', '.join(unreliable) or 'none'}\n")
