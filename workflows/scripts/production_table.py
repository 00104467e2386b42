"""Rule production_table's script (workflows/rules/cephfs.smk): main of workflows/results/production.py."""
from workflows.results.production import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
