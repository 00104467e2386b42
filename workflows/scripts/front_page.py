"""Rule front_page's script (workflows/rules/analysis.smk): main of workflows/claims/front_page.py."""
from workflows.claims.front_page import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
