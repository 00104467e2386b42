#!/usr/bin/env bash
# The project's test command: installs what is missing, builds the core, and runs every
# test: the core's unit and integration tests (ctest), then the workflow tests (pytest).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/setup-python.sh"
"$top/scripts/build-core.sh"
(cd "${DELTAMETA_BUILD_DIR:-$top/build/core}" && ctest --output-on-failure --timeout 900)
cd "$top"
.venv/bin/pytest -q tests
