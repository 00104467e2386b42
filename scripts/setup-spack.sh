#!/usr/bin/env bash
# Sets up Spack once per machine as README.md's "Spack" section uses it: Spack v1.0.2, its
# package repository at releases/v2025.07 as the builtin repository, and a Python with
# clingo, so that nothing is bootstrapped or downloaded later. Everything goes under DEST,
# Spack's settings into its site scope (DEST/spack/etc/spack), none into ~/.spack.
#   scripts/setup-spack.sh DEST                  clones both from their public homes
#   scripts/setup-spack.sh --from DIR DEST       offline, from DIR's release archives
#                                                (spack-1.0.2.tar.gz, spack-packages-2025.07.tar.gz)
# Then: export SPACK_PYTHON=DEST/python/bin/python PATH=DEST/spack/bin:$PATH
# (the last line printed). Does nothing if DEST already holds this set-up.
set -euo pipefail
die() { echo "setup-spack: $*" >&2; exit 2; }
spack_tag=v1.0.2 spack_commit=5efd8eea1b8ea701074d72372a4acf0a972d736b
packages_branch=releases/v2025.07 packages_commit=32c54f0906004d7fd1f72fd1b5970bf2bf094e26
clingo=clingo==5.8.0

from=
if [ "${1:-}" = "--from" ]; then
  [ $# -ge 2 ] || die "--from needs the folder with the release archives"
  from=$2; shift 2
fi
[ $# -eq 1 ] || die "usage: $0 [--from ARCHIVE_DIR] DEST"
dest=$(mkdir -p "$1" && cd "$1" && pwd) || die "cannot create $1"
stamp=$dest/.deltameta-spack
exports="export SPACK_PYTHON=$dest/python/bin/python PATH=$dest/spack/bin:\$PATH"
if [ -f "$stamp" ]; then
  echo "$exports"
  exit 0
fi
[ -z "$(ls -A "$dest")" ] || die "$dest is neither empty nor an earlier set-up of this script: choose another DEST"

if [ -n "$from" ]; then
  for a in spack-1.0.2 spack-packages-2025.07; do
    [ -f "$from/$a.tar.gz" ] || die "$from/$a.tar.gz is missing (README.md, \"Spack\", names the archives)"
  done
  tar -xzf "$from/spack-1.0.2.tar.gz" -C "$dest" && mv "$dest/spack-1.0.2" "$dest/spack"
  tar -xzf "$from/spack-packages-2025.07.tar.gz" -C "$dest" && mv "$dest/spack-packages-2025.07" "$dest/spack-packages"
  # Spack takes a package repository without .git for one it has yet to clone, and tries to
  # (offline: a warning, then a half-made clone): made a git repository of its own here.
  git -C "$dest/spack-packages" init -q
  git -C "$dest/spack-packages" add -A
  git -C "$dest/spack-packages" -c user.name=setup-spack -c user.email=setup-spack@localhost \
    commit -q -m "spack-packages $packages_branch ($packages_commit), from its release archive"
else
  git clone -q --depth 1 -b "$spack_tag" https://github.com/spack/spack.git "$dest/spack"
  git clone -q -b "$packages_branch" https://github.com/spack/spack-packages.git "$dest/spack-packages"
  git -C "$dest/spack-packages" checkout -q "$packages_commit"
  [ "$(git -C "$dest/spack" rev-parse HEAD)" = "$spack_commit" ] ||
    die "the tag $spack_tag is not commit $spack_commit: the remote has changed, check it by hand"
fi
[ -x "$dest/spack/bin/spack" ] || die "$dest/spack has no bin/spack: not a Spack release"

python3 -m venv "$dest/python"
"$dest/python/bin/pip" install --quiet --disable-pip-version-check "$clingo" ||
  die "pip could not install $clingo into $dest/python (Spack's concretizer needs it)"
spack=("$dest/spack/bin/spack")
export SPACK_PYTHON=$dest/python/bin/python
"${spack[@]}" bootstrap disable --scope site >/dev/null      # clingo is installed: nothing to fetch
"${spack[@]}" repo set --scope site --destination "$dest/spack-packages" builtin >/dev/null
touch "$stamp"
echo "setup-spack: Spack $spack_tag in $dest/spack, its packages in $dest/spack-packages; now run:"
echo "$exports"
