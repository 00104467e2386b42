"""Rule scale_figure's script (workflows/rules/scale.smk): main of workflows/figures/scale.py."""
from workflows.figures.scale import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
