#!/usr/bin/env bash
# Makes the release archive of a commit (default HEAD): dist/deltameta-<version>.tar.gz
# and its .sha256, from `git archive` (tracked files only: sources, workflow, reference
# results and figures, LICENSE, CITATION.cff, .zenodo.json), <version> being the core's
# (core/CMakeLists.txt at that commit). Refuses when CITATION.cff or .zenodo.json name
# another version. Usage: bash scripts/release-archive.sh [COMMIT] (DELTAMETA_DIST: output folder)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ref=${1:-HEAD}
dist=${DELTAMETA_DIST:-$top/dist}
cd "$top"
git rev-parse --verify -q "$ref^{commit}" >/dev/null ||
  { echo "release-archive: $ref is not a commit of $top" >&2; exit 2; }
version=$(git show "$ref:core/CMakeLists.txt" | sed -n 's/^project(deltameta VERSION \([0-9.]*\).*/\1/p')
[ -n "$version" ] || { echo "release-archive: no 'project(deltameta VERSION x.y.z' line in core/CMakeLists.txt at $ref" >&2; exit 1; }
cff=$(git show "$ref:CITATION.cff" 2>/dev/null | sed -n 's/^version: *"\{0,1\}\([0-9.]*\)"\{0,1\} *$/\1/p')
zen=$(git show "$ref:.zenodo.json" 2>/dev/null | sed -n 's/.*"version": *"\([0-9.]*\)".*/\1/p')
if [ "$cff" != "$version" ] || [ "$zen" != "$version" ]; then
  echo "release-archive: the core is $version but CITATION.cff says '${cff}' and .zenodo.json '${zen}' at $ref:" \
    "set both to $version and commit" >&2
  exit 1
fi
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
  echo "release-archive: note: uncommitted changes are not in the archive (it is made from $ref)" >&2
mkdir -p "$dist"
name=deltameta-$version
git archive --format=tar.gz --prefix="$name/" -o "$dist/$name.tar.gz" "$ref"
(cd "$dist" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
echo "release-archive: $dist/$name.tar.gz ($(git rev-parse --short "$ref"), $(du -h "$dist/$name.tar.gz" | cut -f1))"
