"""Rule build_core's script (workflows/rules/build.smk): main of workflows/launch/build_core.py."""
from workflows.launch.build_core import main

main(snakemake)  # noqa: F821 (provided by Snakemake)
