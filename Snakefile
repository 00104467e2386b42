# The deltameta workflow: builds the core, runs the three metadata designs over the
# configured matrix, validates every run, aggregates the results and draws the figures.
#   snakemake --cores all                                  (single-node default)
#   snakemake --cores all --configfile config/profiles/smoke.yaml
#   snakemake --cores all --configfile config/profiles/rados.yaml   (stores in Ceph RADOS)
#   snakemake --report results/report.html                 (after a run)
import os

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: os.path.join(workflow.basedir, "config", "config.yaml")


validate(config, "config/schema.yaml")


report: "workflows/report/workflow.rst"


include: "workflows/rules/common.smk"
include: "workflows/rules/storage.smk"
include: "workflows/rules/build.smk"
include: "workflows/rules/indexfs.smk"
include: "workflows/rules/deltafs.smk"
include: "workflows/rules/analysis.smk"


rule all:
    input:
        "results/validation.json",
        "results/summary.csv",
        "results/provenance.json",
        "paper/results-table.md",
        expand("paper/figures/{figure}.{ext}", figure=FIGURES, ext=["pdf", "png"]),
    default_target: True
