"""Rule mdworkbench_summary's script (workflows/rules/mdworkbench.smk): main of workflows/mdworkbench/summary.py."""
from workflows.mdworkbench.summary import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
