#!/usr/bin/env bash
# Configures and builds the C++ core into build/core (tools: build/core/deltameta_*), with
# RADOS storage unless DELTAMETA_WITH_RADOS=OFF and the CephFS client unless
# DELTAMETA_WITH_CEPHFS=OFF, with DELTAMETA_BUILD_JOBS parallel jobs
# (default: nproc; the workflow's build rule passes the cores it was given).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build="${DELTAMETA_BUILD_DIR:-$top/build/core}"
# One build of a directory at a time: two at once (the test command's two workflow
# processes, two workflows on one checkout) ran CMake's checks in one scratch folder and
# failed ("Could NOT find MPI"). The lock goes with the process that holds it.
mkdir -p "$build"
exec {lock}>"$build/.build-core.lock"
if ! flock -n "$lock"; then
  echo "build-core: another build of $build is running; waiting for it to end"
  flock "$lock"
fi
cmake -S "$top/core" -B "$build" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" \
  -DDELTAMETA_WITH_RADOS="${DELTAMETA_WITH_RADOS:-ON}" -DDELTAMETA_WITH_CEPHFS="${DELTAMETA_WITH_CEPHFS:-ON}" >/dev/null
jobs=${DELTAMETA_BUILD_JOBS:-$(nproc)}
echo "build-core: building $build with $jobs parallel jobs"
cmake --build "$build" -j "$jobs"
