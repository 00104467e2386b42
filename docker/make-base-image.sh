#!/usr/bin/env bash
# Makes a Debian 12 (bookworm) base image without a registry: debootstrap into a scratch
# folder from the Debian archive this host uses, with this host's apt configuration
# (sources, apt.conf.d: proxies, snapshot settings) and its locally added CA certificates
# and pip configuration, so that builds on top of it reach the same package registries the
# host reaches; then `docker import`. The image stays on this machine: never push it (it
# carries this host's configuration; docker/Dockerfile leaves all of it out of the image it
# builds, from the list this script writes). Takes about a minute and a half.
#   docker/make-base-image.sh [IMAGE]        (default deltameta-base:bookworm; kept if present)
#   docker/make-base-image.sh --force [IMAGE]
set -euo pipefail

die() { echo "make-base-image: $*" >&2; exit 1; }

force=0
if [ "${1:-}" = "--force" ]; then force=1; shift; fi
image=${1:-deltameta-base:bookworm}
[ $# -le 1 ] || die "usage: $0 [--force] [IMAGE]"

command -v docker >/dev/null || die "docker not found: install Docker Engine"
docker info >/dev/null 2>&1 || die "no Docker engine answers: start dockerd (or run as a user of the docker group)"
if [ $force = 0 ] && docker image inspect "$image" >/dev/null 2>&1; then
  echo "make-base-image: $image exists (--force to make it again)"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || die "debootstrap needs root: run with sudo"
if ! command -v debootstrap >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes apt-get install -y -qq debootstrap >/dev/null
fi

# The host's Debian mirror: the first URI of a source serving bookworm.
mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2; exit}')
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 ~ /^bookworm$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || die "no Debian bookworm source in /etc/apt: cannot tell which archive to bootstrap from"

root=$(mktemp -d /var/tmp/deltameta-base.XXXXXX)
chmod 755 "$root"  # the image's /: apt's own user must reach its files
trap 'rm -rf "$root"' EXIT
echo "make-base-image: debootstrap bookworm from $mirror into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 ||
  die "debootstrap failed (log: $root.log)"
rm -f "$root.log"

# The host's apt configuration, so that apt in the image reaches what the host reaches: its
# sources, the apt.conf.d files debootstrap did not make, its pip configuration and local CA
# certificates. Each file added is listed in /etc/deltameta-build-host.list, which the
# image's build reads to take them all out of the image it saves (docker/strip-host-config.sh).
list=$root/etc/deltameta-build-host.list
echo "# Files of the build host's configuration (docker/make-base-image.sh): never in a saved image" > "$list"
add() {  # add HOST_FILE: copy it to the same path in the image, and list it
  cp -a "$1" "$root$1" && echo "$1" >> "$list"
}
rm -f "$root/etc/apt/sources.list"
[ -f /etc/apt/sources.list ] && add /etc/apt/sources.list
for f in /etc/apt/sources.list.d/* /etc/apt/apt.conf.d/*; do
  [ -f "$f" ] && [ ! -e "$root$f" ] && add "$f"
done
[ -f /etc/pip.conf ] && add /etc/pip.conf
mkdir -p "$root/usr/local/share/ca-certificates"
for f in /usr/local/share/ca-certificates/*; do
  [ -f "$f" ] && add "$f"
done

chroot "$root" apt-get update -qq
# No pseudo-terminal in the chroot: without Use-Pty=0 apt prints "E: Can not write log".
chroot "$root" env DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends \
  ca-certificates >/dev/null
chroot "$root" apt-get clean
rm -rf "$root/var/lib/apt/lists/"*

tar -C "$root" -c . | docker import -c 'CMD ["bash"]' -c 'ENV LANG=C.UTF-8' - "$image" >/dev/null
echo "make-base-image: made $image ($(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%d MB", $1/1e6}'))"
