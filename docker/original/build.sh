#!/usr/bin/env bash
# docker/original/ is where the original DeltaFS prototype's release archive
# (deltafs-proto-2021.5.tar.gz, git-ignored) goes for the image to include it:
# docker/build-image.sh --original PATH puts it here for its build and removes it afterwards.
# This script is the image's build step for it (docker/Dockerfile, stage original):
#   build.sh SRC PREFIX
# SRC holds the workflow's build code (workflows/launch/) and config/config.yaml (the
# checksum); the archive lies beside this script. Checks and builds it as rule
# build_original does (python3 -m workflows.launch.build_original): its tools in
# PREFIX/install/bin, its record in PREFIX/tools.json, its log in PREFIX/build.log. Without an
# archive PREFIX stays empty.
set -euo pipefail
die() { echo "build-original: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: $0 SRC PREFIX"
src=$1 prefix=$2
mkdir -p "$prefix"
shopt -s nullglob
archives=("$(dirname "$0")"/*.tar.gz)
if [ ${#archives[@]} -eq 0 ]; then
  echo "build-original: no archive in docker/original/, so the image holds no original prototype"
  exit 0
fi
[ ${#archives[@]} -eq 1 ] || die "docker/original/ holds ${#archives[@]} archives: keep only deltafs-proto-2021.5.tar.gz"
(cd "$src" && /opt/deltameta/venv/bin/python3 -m workflows.launch.build_original "${archives[0]}" "$prefix") ||
  { tail -n 30 "$prefix/build.log" >&2; die "building the original failed (its build log's end above)"; }
# The tools link its libraries statically: only bin/ is needed to run them.
rm -rf "$prefix/install/include" "$prefix/install/lib" "$prefix/install/share"
echo "build-original: installed in $prefix/install/bin, its record in $prefix/tools.json"
