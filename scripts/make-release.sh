#!/usr/bin/env bash
# Makes a release of the checked-out commit for Zenodo: the tag vVERSION and a folder of
# files that rebuild and rerun the artifact with no network at all:
#   deltameta-VERSION-source.tar.gz        the tagged tree (git archive)
#   deltameta-VERSION-image.tar.gz         the Docker image (docker save), tagged deltameta:VERSION
#   deltameta-VERSION-wheels.tar.gz        wheels of workflows/requirements.txt for an offline .venv
#   deltameta-VERSION-reference.tar.gz     the reference results and the paper's figures
#   RELEASE.json                           what each file was made from (commit, image, Python)
#   SHA256SUMS
# Usage: scripts/make-release.sh VERSION [--image IMAGE | --no-image] [--base IMAGE] [--out DIR]
# VERSION must be the core's (core/CMakeLists.txt) and the one CITATION.cff and .zenodo.json
# name. Without --image the image is built from the tagged commit (docker/build-image.sh,
# --base as there); --image saves an image already built (its commit is recorded);
# --no-image leaves the image out, saying so in RELEASE.json. The tracked tree must be
# clean; an existing tag must name this commit; the output folder (default
# dist/deltameta-VERSION) must not exist yet. Nothing is deleted.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "make-release: $*" >&2; exit 2; }
version=${1:-}
[ -n "$version" ] && [ "${version#-}" = "$version" ] ||
  die "usage: $0 VERSION [--image IMAGE | --no-image] [--base IMAGE] [--out DIR]"
shift
image="" build_image=true base="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --image) image=$2 build_image=false; shift 2 ;;
    --no-image) build_image=false; shift ;;
    --base) base=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) die "unknown option $1 (--image IMAGE, --no-image, --base IMAGE, --out DIR)" ;;
  esac
done
cd "$top"
core=$(sed -n 's/^project(deltameta VERSION \([0-9.]*\).*/\1/p' core/CMakeLists.txt)
cff=$(sed -n 's/^version: *"\{0,1\}\([0-9.]*\)"\{0,1\} *$/\1/p' CITATION.cff)
zen=$(sed -n 's/.*"version": *"\([0-9.]*\)".*/\1/p' .zenodo.json)
[ "$version" = "$core" ] || die "the core is $core (core/CMakeLists.txt), not $version: release $core or change the core's version"
[ "$cff" = "$version" ] && [ "$zen" = "$version" ] ||
  die "the core is $version but CITATION.cff says '$cff' and .zenodo.json '$zen': set both to $version and commit"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
  die "uncommitted changes to tracked files: a release is of a commit; commit or stash them first"
commit=$(git rev-parse HEAD) tag=v$version
if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
  [ "$(git rev-parse "$tag^{commit}")" = "$commit" ] ||
    die "tag $tag names $(git rev-parse --short "$tag^{commit}"), not HEAD ($(git rev-parse --short HEAD)): check out that commit or release another version"
fi
out=${out:-$top/dist/deltameta-$version}
[ ! -e "$out" ] || die "$out exists: move it away or give --out a new folder"
if $build_image || [ -n "$image" ]; then
  command -v docker >/dev/null && docker info >/dev/null 2>&1 ||
    die "no Docker engine answers: start it, or release without the image (--no-image)"
fi
if [ -n "$image" ]; then
  docker image inspect "$image" >/dev/null 2>&1 || die "no image $image: build it (docker/build-image.sh) or leave out --image"
fi

git tag -l "$tag" | grep -q . || git var GIT_COMMITTER_IDENT >/dev/null 2>&1 ||
  die "git has no name and email to sign the tag $tag with: set user.name and user.email (git config)"

# The folder is this run's: a failed run removes it (and its scratch folder), nothing else.
mkdir -p "$out"
out=$(cd "$out" && pwd)
wheels=$(mktemp -d) finished=false
trap 'rm -rf "$wheels"; $finished || rm -rf "$out"' EXIT
name=deltameta-$version
git tag -l "$tag" | grep -q . || git tag -a "$tag" -m "deltameta $version"
git archive --format=tar.gz --prefix="$name/" -o "$out/$name-source.tar.gz" "$tag"
tar -czf "$out/$name-reference.tar.gz" --transform "s,^,$name/," results/reference paper/figures

# Wheels for every pinned requirement (and what they need), built for this Python.
python3 -m pip wheel --quiet --disable-pip-version-check -r workflows/requirements.txt -w "$wheels/wheels" >&2 ||
  die "pip could not fetch or build the wheels of workflows/requirements.txt (needs PyPI once)"
cp workflows/requirements.txt "$wheels/wheels/requirements.txt"
tar -czf "$out/$name-wheels.tar.gz" -C "$wheels" wheels
python=$(python3 -c 'import sys, sysconfig; print(f"{sys.version.split()[0]} {sysconfig.get_platform()}")')

image_doc=null
if $build_image; then
  bash docker/build-image.sh ${base:+--base "$base"} --tag "deltameta:$version" >&2
  image=deltameta:$version
fi
if [ -n "$image" ]; then
  [ "$image" = "deltameta:$version" ] || docker tag "$image" "deltameta:$version"
  docker save "deltameta:$version" | gzip -1 > "$out/$name-image.tar.gz"
  image_doc=$(docker image inspect "deltameta:$version" --format \
    '{"tag": "deltameta:'"$version"'", "id": "{{.Id}}", "revision": "{{index .Config.Labels "org.opencontainers.image.revision"}}", "core": "{{index .Config.Labels "io.deltameta.core"}}", "core_dirty": {{index .Config.Labels "io.deltameta.core-dirty"}}}')
fi
cat > "$out/RELEASE.json" <<JSON
{
  "version": "$version",
  "tag": "$tag",
  "commit": "$commit",
  "made": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "image": $image_doc,
  "wheels_python": "$python"
}
JSON
(cd "$out" && sha256sum -- *.tar.gz RELEASE.json > SHA256SUMS)
finished=true
echo "make-release: $out ($tag, $(du -sh "$out" | cut -f1)$([ "$image_doc" != null ] || echo ', no image'))"
