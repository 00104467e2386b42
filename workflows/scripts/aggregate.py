"""Rule aggregate's script (workflows/rules/analysis.smk): main of workflows/results/aggregate.py."""
from workflows.results.aggregate import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
