#!/usr/bin/env bash
# Builds the deltameta image from this clone (docker/Dockerfile), labelled with the commit it
# was built from:
#   docker/build-image.sh [--base IMAGE] [--tag TAG] [--pinned]
# --base: the Debian 12 image to start from (default debian:bookworm-slim; where nothing can
# be pulled, docker/make-base-image.sh makes deltameta-base:bookworm). --tag: default
# deltameta. --pinned: build the core at the commit the Spack package pins instead of the
# working tree's core/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "build-image: $*" >&2; exit 2; }
base=debian:bookworm-slim tag=deltameta core=working-tree
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --pinned) core=pinned; shift ;;
    *) die "unknown option $1 (--base IMAGE, --tag TAG, --pinned)" ;;
  esac
done
command -v docker >/dev/null || die "docker not found: install Docker Engine"
docker info >/dev/null 2>&1 || die "no Docker engine answers: start dockerd (or join the docker group)"
revision=$(git -C "$top" rev-parse HEAD 2>/dev/null) || die "$top is not a git clone: the image records its commit"
dirty=false
[ -z "$(git -C "$top" status --porcelain -- core/CMakeLists.txt core/include core/src core/tools)" ] || dirty=true
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Progress: each step's first line as the build reaches it (its whole output in the log,
# the log's end on failure).
docker build -f "$top/docker/Dockerfile" --build-arg BASE="$base" --build-arg CORE="$core" \
  --label org.opencontainers.image.revision="$revision" --label io.deltameta.core="$core" \
  --label io.deltameta.core-dirty="$dirty" -t "$tag" "$top" 2>&1 | tee "$log" |
  { grep --line-buffered -E '^Step [0-9]+/[0-9]+ : ' | cut -c1-100 | sed -u 's/^/build-image: /' || true; } ||
  { tail -n 40 "$log" >&2; die "docker build failed (its last lines above)"; }
echo "build-image: $tag ($core core of $revision$([ "$dirty" = false ] || echo ', core/ modified'))"
