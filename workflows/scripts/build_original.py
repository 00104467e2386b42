"""Rule build_original's script (workflows/rules/build.smk): main of workflows/launch/build_original.py."""
from workflows.launch.build_original import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
