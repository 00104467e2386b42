#!/usr/bin/env bash
# Configures and builds the C++ core into build/core (tools: build/core/deltameta_*), with
# RADOS storage unless DELTAMETA_WITH_RADOS=OFF.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build="${DELTAMETA_BUILD_DIR:-$top/build/core}"
cmake -S "$top/core" -B "$build" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" \
  -DDELTAMETA_WITH_RADOS="${DELTAMETA_WITH_RADOS:-ON}" >/dev/null
cmake --build "$build" -j "$(nproc)"
