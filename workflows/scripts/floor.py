"""Rule floor's script (workflows/rules/floor.smk): main of workflows/floor/report.py."""
from workflows.floor.report import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
