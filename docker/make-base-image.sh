#!/usr/bin/env bash
# Makes a Debian 12 (bookworm) base image without a registry: debootstrap into a scratch
# folder from the Debian archive this host uses, with this host's apt configuration
# (sources, apt.conf.d: proxies, snapshot settings) and its locally added CA certificates
# and pip configuration, so that builds on top of it reach the same package registries the
# host reaches; then `docker import`. The image stays on this machine: never push it (it
# carries this host's configuration). Takes about three minutes.
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
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

# The host's Debian mirror: the first URI of a source serving bookworm.
mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2; exit}')
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 ~ /^bookworm$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || die "no Debian bookworm source in /etc/apt: cannot tell which archive to bootstrap from"

root=$(mktemp -d /var/tmp/deltameta-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
echo "make-base-image: debootstrap bookworm from $mirror into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 ||
  die "debootstrap failed (log: $root.log)"
rm -f "$root.log"

# The host's apt configuration, so that apt in the image reaches what the host reaches.
rm -f "$root/etc/apt/sources.list"
cp -a /etc/apt/sources.list.d/. "$root/etc/apt/sources.list.d/" 2>/dev/null || true
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root/etc/apt/"
cp -a /etc/apt/apt.conf.d/. "$root/etc/apt/apt.conf.d/"
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$root/etc/"
mkdir -p "$root/usr/local/share/ca-certificates"
cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"

chroot "$root" apt-get update -qq
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ca-certificates >/dev/null
chroot "$root" apt-get clean
rm -rf "$root/var/lib/apt/lists/"*

tar -C "$root" -c . | docker import -c 'CMD ["bash"]' -c 'ENV LANG=C.UTF-8' - "$image" >/dev/null
echo "make-base-image: made $image ($(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%d MB", $1/1e6}'))"
