"""Rule figures's script (workflows/rules/analysis.smk): main of workflows/figures/paper.py."""
from workflows.figures.paper import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
