"""Rule projection's script (workflows/rules/projection.smk): main of workflows/projection/fit.py."""
from workflows.projection.fit import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
