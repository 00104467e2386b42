"""Rule artifact_appendix's script (workflows/rules/analysis.smk): main of workflows/results/appendix.py."""
from workflows.results.appendix import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
