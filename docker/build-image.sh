#!/usr/bin/env bash
# Builds the deltameta image from this clone (docker/Dockerfile), labelled with the commit it
# was built from:
#   docker/build-image.sh [--base IMAGE] [--tag TAG] [--pinned] [--original ARCHIVE]
# --base: the Debian 12 image to start from (default debian:bookworm-slim; where nothing can
# be pulled, docker/make-base-image.sh makes deltameta-base:bookworm). --tag: default
# deltameta. --pinned: build the core at the commit the Spack package pins instead of the
# working tree's core/. --original: the original DeltaFS prototype's release archive
# (deltafs-proto-2021.5.tar.gz), checked and built into the image (docker/original/build.sh);
# copied into docker/original/ for the build and removed afterwards.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "build-image: $*" >&2; exit 2; }
base=debian:bookworm-slim tag=deltameta core=working-tree original=
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --pinned) core=pinned; shift ;;
    --original) original=$2; shift 2 ;;
    *) die "unknown option $1 (--base IMAGE, --tag TAG, --pinned, --original ARCHIVE)" ;;
  esac
done
command -v docker >/dev/null || die "docker not found: install Docker Engine"
docker info >/dev/null 2>&1 || die "no Docker engine answers: start dockerd (or join the docker group)"
revision=$(git -C "$top" rev-parse HEAD 2>/dev/null) || die "$top is not a git clone: the image records its commit"
dirty=false tree_dirty=false  # core/'s sources; the whole clone (provenance.json's git_dirty)
[ -z "$(git -C "$top" status --porcelain -- core/CMakeLists.txt core/include core/src core/tools)" ] || dirty=true
[ -z "$(git -C "$top" status --porcelain)" ] || tree_dirty=true
# A git worktree's .git is a file naming history outside the build context: its revision is
# given to the build instead (docker/build-core.sh); the pinned commit needs the history.
worktree=()
if [ -f "$top/.git" ]; then
  [ "$core" = working-tree ] || die "--pinned needs the history in the build context: build from a clone, not a git worktree"
  worktree=(--build-arg REVISION="$revision$([ "$dirty" = false ] || echo -dirty)")
fi
# Where no registry answers, the base cannot be pulled: say what to do instead.
if ! docker image inspect "$base" >/dev/null 2>&1 && ! pull=$(docker pull -q "$base" 2>&1); then
  die "cannot pull $base ($(echo "$pull" | tail -n 1)): where no registry answers, make a base once with" \
    "sudo docker/make-base-image.sh and build on it: docker/build-image.sh --base deltameta-base:bookworm"
fi
log=$(mktemp) staged=
trap 'rm -f "$log" ${staged:+"$staged"}' EXIT
labels=(--label org.opencontainers.image.revision="$revision" --label io.deltameta.core="$core"
        --label io.deltameta.core-dirty="$dirty" --label io.deltameta.tree-dirty="$tree_dirty")
# One build at a time from this clone (others wait): every build's context holds
# docker/original/, where a build given --original stages the archive.
exec 9<"$top/docker/original"
flock 9
shopt -s nullglob
left=("$top"/docker/original/*.tar.gz)
[ ${#left[@]} -eq 0 ] || die "docker/original/ already holds ${left[*]}: remove it, and give the archive with --original"
if [ -n "$original" ]; then
  [ -f "$original" ] || die "--original $original: no such file: give the release archive deltafs-proto-2021.5.tar.gz"
  # The labels name what the build checks the archive against: the workflow's pinned commit
  # and config/config.yaml's original.sha256 (the build fails on any other archive).
  commit=$(grep -m1 -oE '^COMMIT = "[0-9a-f]{40}"' "$top/workflows/launch/original_source.py" | cut -d'"' -f2)
  sha256=$(sed -n '/^original:/,/^[a-z]/s/^  sha256: \([0-9a-f]\{64\}\)$/\1/p' "$top/config/config.yaml")
  [ -n "$commit" ] && [ -n "$sha256" ] ||
    die "no pinned commit in workflows/launch/original_source.py or original.sha256 in config/config.yaml: restore them"
  staged=$top/docker/original/deltafs-proto-2021.5.tar.gz
  cp "$original" "$staged"
  labels+=(--label io.deltameta.original-commit="$commit" --label io.deltameta.original-sha256="$sha256"
           --label io.deltameta.original-archive-sha256="$(sha256sum "$staged" | cut -d' ' -f1)")
fi
# Progress: each step's first line as the build reaches it, and "cached" under a step whose
# layer was reused (its whole output in the log, the log's end on failure); a failed step's
# container is removed too (--force-rm).
docker build --force-rm -f "$top/docker/Dockerfile" --build-arg BASE="$base" --build-arg CORE="$core" \
  --build-arg TREE_DIRTY="$tree_dirty" \
  ${worktree[@]+"${worktree[@]}"} "${labels[@]}" \
  -t "$tag" "$top" 2>&1 | tee "$log" |
  sed -u -n -E -e 's/^(Step [0-9]+\/[0-9]+ : .{0,80}).*/build-image: \1/p' -e 's/^ ---> Using cache$/build-image:   cached/p' ||
  { tail -n 40 "$log" >&2; die "docker build failed (its last lines above)"; }
echo "build-image: $tag ($core core of $revision$([ "$dirty" = false ] || echo ', core/ modified')$([ -z "$original" ] ||
  echo ", with the original deltafs-proto 2021.5"))"
