"""Rule mdworkbench_validate's script (workflows/rules/mdworkbench.smk): main of workflows/mdworkbench/validate.py."""
from workflows.mdworkbench.validate import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
