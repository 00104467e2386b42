#!/usr/bin/env bash
# Runs the whole artifact on this machine: installs what is missing (Debian packages, the
# Python environment), then runs the workflow (build, runs, validation, summary, claims,
# figures) and writes its HTML report, all into results/<name>/ (default: results/default/).
# Extra arguments go to snakemake, e.g.
#   bash scripts/run-all.sh --configfile config/profiles/paper.yaml     (results/paper/)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# Snakemake runs at the top of the clone: a configuration file must be found from there.
in_configfiles=0
for a in "$@"; do
  case "$a" in
    --configfile|--configfiles) in_configfiles=1 ;;
    -*) in_configfiles=0 ;;
    *) [ $in_configfiles = 0 ] || (cd "$top" && [ -f "$a" ]) || {
         echo "run-all: --configfile $a: no such file (relative paths start at the top of the clone, $top)" >&2
         exit 2; } ;;
  esac
done
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
