"""Rule provenance's script (workflows/rules/analysis.smk): main of workflows/results/provenance.py."""
from workflows.results.provenance import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
