#!/bin/sh
# Image build step (docker/Dockerfile): takes the build host's configuration out of the
# runtime image. docker/make-base-image.sh lists every file it copied from the host (apt
# sources and apt.conf.d files, pip configuration, local CA certificates) in
# /etc/deltameta-build-host.list; each is removed, apt is given Debian's own sources in their
# place, and /etc/ssl/certs is made again from the certificates the image's packages hold.
# A base without that list (e.g. debian:bookworm-slim) carries no host configuration.
set -eu
list=/etc/deltameta-build-host.list
[ -f "$list" ] || { echo "strip-host-config: $list absent: the base holds no build host's configuration"; exit 0; }
grep -v '^#' "$list" | while read -r f; do rm -f "$f"; done
rm -f "$list"
cat > /etc/apt/sources.list.d/debian.sources <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
if command -v update-ca-certificates >/dev/null; then
  update-ca-certificates --fresh >/dev/null
fi
echo "strip-host-config: removed the build host's files, apt sources now Debian's own"
