#!/usr/bin/env bash
# Builds the Spack variant of the image (docker/spack.Dockerfile) on top of the image that
# docker/build-image.sh made: the core installed by Spack, offline, from this clone.
#   docker/build-spack-image.sh SPACK_DIR SPACK_PACKAGES_DIR [--base IMAGE] [--image IMAGE] [--tag TAG]
# SPACK_DIR: a Spack v1.0.x checkout; SPACK_PACKAGES_DIR: spack-packages at releases/v2025.07
# (README.md, "Spack": git clone them once). Defaults: --base debian:bookworm-slim, --image
# deltameta, --tag deltameta:spack.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "build-spack-image: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: $0 SPACK_DIR SPACK_PACKAGES_DIR [--base IMAGE] [--image IMAGE] [--tag TAG]"
spack=$1 packages=$2
shift 2
base=debian:bookworm-slim image=deltameta tag=deltameta:spack
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    --image) image=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    *) die "unknown option $1" ;;
  esac
done
[ -x "$spack/bin/spack" ] || die "$spack is not a Spack checkout (no bin/spack)"
[ -d "$packages/repos" ] || [ -d "$packages/spack_repo" ] || die "$packages is not a spack-packages checkout"
docker image inspect "$image" >/dev/null 2>&1 || die "no image $image: run docker/build-image.sh first"
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
git clone -q "$top" "$context/repo"                      # the committed history: the pinned commit
cp -a "$spack" "$context/spack"
cp -a "$packages" "$context/spack-packages"
log=$context.log
docker build -f "$top/docker/spack.Dockerfile" --build-arg BASE="$base" --build-arg IMAGE="$image" \
  --label org.opencontainers.image.revision="$(git -C "$top" rev-parse HEAD)" -t "$tag" "$context" >"$log" 2>&1 ||
  { tail -n 40 "$log" >&2; die "docker build failed (its last lines above; log $log)"; }
rm -f "$log"
echo "build-spack-image: $tag (core installed by Spack, replacing the tools of $image)"
