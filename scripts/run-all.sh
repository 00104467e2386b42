#!/usr/bin/env bash
# Runs the whole artifact on this machine: installs what is missing (Debian packages, the
# Python environment), then runs the workflow (build, runs, validation, summary, figures)
# and writes its HTML report. Extra arguments go to snakemake, e.g.
#   bash scripts/run-all.sh --configfile config/profiles/paper.yaml
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/setup-python.sh"
cd "$top"
.venv/bin/snakemake --cores all "$@"
.venv/bin/snakemake --cores all --report results/report.html "$@"
echo "run-all: results in results/ (summary.csv, report.html), figures in paper/figures/"
