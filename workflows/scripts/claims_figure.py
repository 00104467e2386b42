"""Rule claims_figure's script (workflows/rules/analysis.smk): main of workflows/claims/figure.py."""
from workflows.claims.figure import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
