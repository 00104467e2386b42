#!/usr/bin/env bash
# Runs the whole artifact on this machine: installs what is missing (Debian packages, the
# Python environment), then runs the workflow (build, runs, validation, summary, claims,
# figures) and writes its HTML report, all into results/<name>/ (default: results/default/).
# Extra arguments go to snakemake, e.g.
#   bash scripts/run-all.sh --configfile config/profiles/paper.yaml     (results/paper/)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/setup-python.sh"
cd "$top"
out_file=$(mktemp)
trap 'rm -f "$out_file"' EXIT
# The Snakefile writes this configuration's output folder into DELTAMETA_OUT_FILE.
DELTAMETA_OUT_FILE=$out_file .venv/bin/snakemake --cores all "$@"
out=$(cat "$out_file")
.venv/bin/snakemake --cores all --report "$out/report.html" "$@"
echo "run-all: results in $out/ (summary.csv, claims.md, report.html, figures/)"
