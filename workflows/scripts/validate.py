"""Rule validate's script (workflows/rules/analysis.smk): main of workflows/results/validate.py."""
from workflows.results.validate import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
