"""Rule fidelity's script (workflows/rules/analysis.smk): main of workflows/fidelity/report.py."""
from workflows.fidelity.report import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
