"""Rule storage_floor's script (workflows/rules/floor.smk): main of workflows/floor/measure.py."""
from workflows.floor.measure import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
