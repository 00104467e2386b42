#!/usr/bin/env bash
# Image build steps (docker/Dockerfile) for the core's tools (stripped, with RADOS support),
# in three steps, so that a commit that changes none of the core's sources compiles nothing:
#   build-core.sh source working-tree|pinned SRC OUT [REVISION]
#       OUT/core: the sources the tools are built from; OUT/stamp: what they are (source,
#       revision, version, commit). SRC holds .git and core/; the Spack package (package.py)
#       lies beside this script. working-tree: core/ as copied into the image, its commit
#       HEAD (the revision "-dirty" if those sources differ from it), or REVISION (a commit,
#       perhaps with "-dirty") where SRC/.git is no history (a git worktree's .git is a file;
#       docker/build-image.sh gives it); pinned: the commit the Spack package pins for its
#       newest version, taken from .git.
#   build-core.sh compile CORE BUILD      compiles CORE in BUILD, the revision left unstamped
#   build-core.sh stamp STAMP BUILD PREFIX
#       stamps BUILD's tools with STAMP's revision (one object compiled again, the tools
#       linked again), installs them in PREFIX and records what was built in PREFIX/image.json.
set -euo pipefail
die() { echo "build-core: $*" >&2; exit 1; }
usage="usage: $0 source working-tree|pinned SRC OUT [REVISION] | compile CORE BUILD | stamp STAMP BUILD PREFIX"
core_sources=(CMakeLists.txt include src tools)  # what the tools are built from, in core/

source_step() {
  local mode=$1 src=$2 out=$3 given=${4:-} core commit dirty=
  git config --global --add safe.directory "$src"
  case "$mode" in
    working-tree)
      core=$src/core
      if [ -d "$src/.git" ]; then
        commit=$(git -C "$src" rev-parse HEAD 2>/dev/null) ||
          die "no git history in the build context: build from the top of a clone"
        [ -z "$(git -C "$src" status --porcelain -- "${core_sources[@]/#/core/}")" ] || dirty=-dirty
      else
        [[ "$given" =~ ^[0-9a-f]{40}(-dirty)?$ ]] || die "the build context's .git holds no history (a git" \
          "worktree): build with docker/build-image.sh, which gives its commit, or --build-arg REVISION=\$(git rev-parse HEAD)"
        commit=${given%-dirty} dirty=${given#"$commit"}
      fi ;;
    pinned)
      commit=$(grep -m1 -oE 'commit="[0-9a-f]{40}"' "$(dirname "$0")/package.py" | cut -d'"' -f2)
      [ -n "$commit" ] || die "no pinned commit in the Spack package"
      [ -d "$src/.git" ] || die "CORE=pinned needs the history: build from a clone, not a git worktree"
      mkdir -p /tmp/pinned
      git -C "$src" archive "$commit" core | tar -x -C /tmp/pinned ||
        die "commit $commit is not in the build context's history (a shallow clone? git fetch --unshallow)"
      core=/tmp/pinned/core ;;
    *) die "CORE must be working-tree or pinned, not '$mode'" ;;
  esac
  mkdir -p "$out/core"
  (cd "$core" && cp -r "${core_sources[@]}" "$out/core/")
  version=$(sed -n 's/^project(deltameta VERSION \([0-9.]*\).*/\1/p' "$core/CMakeLists.txt")
  echo "$mode ${commit:0:12}$dirty $version $commit" > "$out/stamp"
  rm -rf /tmp/pinned
}

compile_step() {
  # The project's optimisation (RelWithDebInfo's -O2) without its debug information, which
  # would cost a third of the compile time and which the install strips (stamp): the same code.
  cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
    -DDELTAMETA_WITH_RADOS=ON -DDELTAMETA_WITH_CEPHFS=ON -DDELTAMETA_TESTS=OFF -DDELTAMETA_GIT_REVISION=unstamped >/dev/null
  cmake --build "$2" -j "$(nproc)" >/dev/null
}

stamp_step() {
  local mode revision version commit build=$2 prefix=$3
  read -r mode revision version commit < "$1"
  cmake "$build" -DDELTAMETA_GIT_REVISION="$revision" >/dev/null
  cmake --build "$build" -j "$(nproc)" >/dev/null
  cmake --install "$build" --prefix "$prefix" --strip >/dev/null
  # The library and headers: not needed to run the tools. lib/deltameta stays: the preload
  # library the original prototype's ranks end with across hosts (core/doc/transports.md).
  rm -rf "${prefix:?}/include" "${prefix:?}/lib/libdeltameta.a"
  printf '{"core_source": "%s", "core_revision": "%s", "core_commit": "%s", "core_version": "%s", "built": "%s"}\n' \
    "$mode" "$revision" "$commit" "$version" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$prefix/image.json"
  echo "build-core: installed deltameta $version ($mode, $revision) in $prefix"
}

case "${1:-}" in
  source) [ $# -eq 4 ] || [ $# -eq 5 ] || die "$usage"; shift; source_step "$@" ;;
  compile) [ $# -eq 3 ] || die "$usage"; compile_step "$2" "$3" ;;
  stamp) [ $# -eq 4 ] || die "$usage"; stamp_step "$2" "$3" "$4" ;;
  *) die "$usage" ;;
esac
