"""Rule mdworkbench_figure's script (workflows/rules/mdworkbench.smk): main of workflows/mdworkbench/figure.py."""
from workflows.mdworkbench.figure import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
