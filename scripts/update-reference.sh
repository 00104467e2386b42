#!/usr/bin/env bash
# Regenerates the tracked reference run from the current commit, in one command: runs the
# default configuration (scripts/run-all.sh, into results/default/), then copies what it
# concluded to the tracked places: results/reference/ (summary, validation, provenance,
# claims, results table, storage floor, projection), paper/figures/, paper/claims.md,
# paper/results-table.md, paper/artifact-appendix.md (the appendix with this run's step times and claims) and
# paper/projection.md (the projection model: inputs, equations, validation).
# Extra arguments go to snakemake. Commit the result; results/reference/README.md says
# which run it is (date, wall time, machine, revision).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "update-reference: the working tree has uncommitted changes: commit them first, so that the reference names the commit it ran" >&2
  exit 1
fi
start=$(date +%s)
bash scripts/run-all.sh "$@"
minutes=$(( ($(date +%s) - start + 30) / 60 ))
out=results/default
ref=results/reference
for f in summary.csv validation.json provenance.json claims.json claims.md results-table.md artifact-appendix.md \
  floor.csv floor.md projection.md projection-inputs.csv projection-validation.csv \
  mdworkbench/summary.csv mdworkbench/validation.json mdworkbench/table.md; do
  [ -f "$out/$f" ] || { echo "update-reference: $out/$f is missing: the run did not finish (see above)" >&2; exit 1; }
done
rm -f "$ref"/*.csv "$ref"/*.json "$ref"/*.md "$ref"/mdworkbench/* paper/figures/*.pdf paper/figures/*.png
mkdir -p "$ref/mdworkbench"
cp "$out"/mdworkbench/summary.csv "$out"/mdworkbench/validation.json "$out"/mdworkbench/table.md "$ref/mdworkbench/"
cp "$out"/summary.csv "$out"/validation.json "$out"/provenance.json "$out"/claims.json "$out"/claims.md \
  "$out"/results-table.md "$out"/floor.csv "$out"/floor.md "$out"/projection-inputs.csv \
  "$out"/projection-validation.csv "$ref"/
cp "$out"/figures/*.pdf "$out"/figures/*.png paper/figures/
cp "$out"/claims.md "$out"/results-table.md "$out"/artifact-appendix.md "$out"/projection.md paper/
.venv/bin/python scripts/reference_readme.py "$ref" "$minutes" > "$ref/README.md"
echo "update-reference: results/reference/, paper/figures/, paper/claims.md, paper/results-table.md," \
  "paper/artifact-appendix.md and paper/projection.md now hold" \
  "this run ($minutes min); review and commit them"
