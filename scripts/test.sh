#!/usr/bin/env bash
# The project's test command: installs what is missing, builds the core, runs every test.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build-core.sh"
cd "${DELTAMETA_BUILD_DIR:-$top/build/core}"
ctest --output-on-failure --timeout 900
