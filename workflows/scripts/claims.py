"""Rule claims's script (workflows/rules/analysis.smk): main of workflows/claims/verdicts.py."""
from workflows.claims.verdicts import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
