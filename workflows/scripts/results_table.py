"""Rule results_table's script (workflows/rules/analysis.smk): main of workflows/results/table.py."""
from workflows.results.table import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
