#!/usr/bin/env bash
# Runs the artifact on this machine: installs what is missing, builds the core, and runs the
# seed guide's three runs (4 client ranks x 50,000 files), printing the phase table.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build-core.sh"
mkdir -p "$top/results"
python3 "$top/core/bench/seed_runs.py" --bin "${DELTAMETA_BUILD_DIR:-$top/build/core}" \
  --json "$top/results/seed-runs.json" "$@" | tee "$top/results/seed-runs.txt"
