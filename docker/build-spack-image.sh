#!/usr/bin/env bash
# Builds the Spack variant of the image (docker/spack.Dockerfile) on top of the image that
# docker/build-image.sh made: the core installed by Spack from this clone, Spack itself set
# up by scripts/setup-spack.sh inside the build.
#   docker/build-spack-image.sh [--from DIR] [--base IMAGE] [--image IMAGE] [--tag TAG]
# --from: a folder with Spack's release archives (spack-1.0.2.tar.gz,
# spack-packages-2025.07.tar.gz): the build needs no network for Spack; without it, the
# build clones both from GitHub. Defaults: --base debian:bookworm-slim, --image deltameta,
# --tag deltameta:spack.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "build-spack-image: $*" >&2; exit 2; }
from= base=debian:bookworm-slim image=deltameta tag=deltameta:spack
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || die "$1 needs a value (--from DIR, --base IMAGE, --image IMAGE, --tag TAG)"
  case "$1" in
    --from) from=$2; shift 2 ;;
    --base) base=$2; shift 2 ;;
    --image) image=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    *) die "unknown option $1 (--from DIR, --base IMAGE, --image IMAGE, --tag TAG)" ;;
  esac
done
archives=(spack-1.0.2.tar.gz spack-packages-2025.07.tar.gz)
if [ -n "$from" ]; then
  for a in "${archives[@]}"; do [ -f "$from/$a" ] || die "$from/$a is missing"; done
fi
docker image inspect "$image" >/dev/null 2>&1 || die "no image $image: run docker/build-image.sh first"
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
git clone -q "$top" "$context/repo"                      # the committed history: the pinned commit
mkdir "$context/archives"
[ -z "$from" ] || for a in "${archives[@]}"; do cp "$from/$a" "$context/archives/"; done
log=$context.log
docker build -f "$top/docker/spack.Dockerfile" --build-arg BASE="$base" --build-arg IMAGE="$image" \
  --label org.opencontainers.image.revision="$(git -C "$top" rev-parse HEAD)" -t "$tag" "$context" >"$log" 2>&1 ||
  { tail -n 40 "$log" >&2; die "docker build failed (its last lines above; log $log)"; }
rm -f "$log"
echo "build-spack-image: $tag (core installed by Spack, replacing the tools of $image)"
