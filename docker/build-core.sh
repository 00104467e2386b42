#!/usr/bin/env bash
# Image build step (docker/Dockerfile): builds and installs the core's tools (stripped) with
# RADOS support, and records what was built in PREFIX/image.json.
#   build-core.sh working-tree|pinned SRC PREFIX
# SRC holds .git and core/ (its build files and sources); the Spack package (package.py)
# lies beside this script. working-tree: core/ as copied into the image (its revision is
# HEAD, "-dirty" if those sources differ from it); pinned: the commit that the Spack
# package pins for its newest version, taken from .git.
set -euo pipefail
die() { echo "build-core: $*" >&2; exit 1; }
[ $# -eq 3 ] || die "usage: $0 working-tree|pinned SRC PREFIX"
mode=$1 src=$2 prefix=$3
core_sources=(core/CMakeLists.txt core/include core/src core/tools)  # what the tools are built from
git config --global --add safe.directory "$src"
case "$mode" in
  working-tree)
    core=$src/core
    revision=$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null) ||
      die "no git history in the build context: build from the top of a clone"
    [ -z "$(git -C "$src" status --porcelain -- "${core_sources[@]}")" ] || revision="$revision-dirty" ;;
  pinned)
    revision=$(grep -m1 -oE 'commit="[0-9a-f]{40}"' "$(dirname "$0")/package.py" | cut -d'"' -f2)
    [ -n "$revision" ] || die "no pinned commit in the Spack package"
    mkdir -p /tmp/pinned
    git -C "$src" archive "$revision" core | tar -x -C /tmp/pinned ||
      die "commit $revision is not in the build context's history (a shallow clone? git fetch --unshallow)"
    core=/tmp/pinned/core
    revision=${revision:0:12} ;;
  *) die "CORE must be working-tree or pinned, not '$mode'" ;;
esac
cmake -S "$core" -B /tmp/core-build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDELTAMETA_WITH_RADOS=ON \
  -DDELTAMETA_TESTS=OFF -DDELTAMETA_GIT_REVISION="$revision" -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
cmake --build /tmp/core-build -j "$(nproc)" >/dev/null
cmake --install /tmp/core-build --strip >/dev/null
rm -rf "${prefix:?}/include" "${prefix:?}/lib"   # the library and headers: not needed to run the tools
version=$(sed -n 's/^project(deltameta VERSION \([0-9.]*\).*/\1/p' "$core/CMakeLists.txt")
printf '{"core_source": "%s", "core_revision": "%s", "core_version": "%s", "built": "%s"}\n' \
  "$mode" "$revision" "$version" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$prefix/image.json"
rm -rf /tmp/core-build /tmp/pinned
echo "build-core: installed deltameta $version ($mode, $revision) in $prefix"
