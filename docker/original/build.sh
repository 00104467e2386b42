#!/usr/bin/env bash
# docker/original/ is where the original DeltaFS prototype's release archive
# (deltafs-proto-2021.5.tar.gz, git-ignored) goes for the image to include it:
# docker/build-image.sh --original PATH puts it here for its build and removes it afterwards.
# This script is the image's build step for it (docker/Dockerfile, stage original):
#   build.sh PREFIX
# Beside it: the archive, and the workflow's build code (build_original.py,
# original_source.py, build_original_tools.py) and config.yaml (the checksum), laid out here
# as in the repository. Checks and builds the archive as rule build_original does
# (workflows/bin/build_original_tools.py): its tools in PREFIX/install/bin, its record in
# PREFIX/tools.json, its log in PREFIX/build.log. Without an archive PREFIX stays empty.
set -euo pipefail
die() { echo "build-original: $*" >&2; exit 1; }
[ $# -eq 1 ] || die "usage: $0 PREFIX"
here=$(dirname "$0") prefix=$1
mkdir -p "$prefix"
shopt -s nullglob
archives=("$here"/*.tar.gz)
if [ ${#archives[@]} -eq 0 ]; then
  echo "build-original: no archive in docker/original/, so the image holds no original prototype"
  exit 0
fi
[ ${#archives[@]} -eq 1 ] || die "docker/original/ holds ${#archives[@]} archives: keep only deltafs-proto-2021.5.tar.gz"
src=/tmp/original-src  # workflows/launch/, workflows/bin/ (namespace packages) and config/, as in the repository
mkdir -p "$src/workflows/launch" "$src/workflows/bin" "$src/config"
cp "$here/build_original.py" "$here/original_source.py" "$src/workflows/launch/"
cp "$here/build_original_tools.py" "$src/workflows/bin/"
cp "$here/config.yaml" "$src/config/"
(cd "$src" && PYTHONPATH="$src" /opt/deltameta/venv/bin/python3 workflows/bin/build_original_tools.py "${archives[0]}" \
  "$prefix") ||
  { tail -n 30 "$prefix/build.log" >&2; die "building the original failed (its build log's end above)"; }
# The tools link its libraries statically: only bin/ is needed to run them.
rm -rf "$prefix/install/include" "$prefix/install/lib" "$prefix/install/share" "$src"
echo "build-original: installed in $prefix/install/bin, its record in $prefix/tools.json"
