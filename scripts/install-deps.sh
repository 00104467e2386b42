#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages the core needs to build and test (idempotent; needs root or sudo).
# While another apt or dpkg holds the package lock it waits, saying so, up to
# DELTAMETA_APT_WAIT seconds (default 600).
set -euo pipefail
die() { echo "install-deps: $*" >&2; exit 2; }

packages=(
  build-essential cmake pkg-config git procps python3 python3-venv
  mpich libmpich-dev
  librocksdb-dev libsnappy-dev
  libasio-dev nlohmann-json3-dev libgtest-dev
  ceph-mon ceph-osd ceph-common librados-dev
  ceph-mds libcephfs-dev  # CephFS, the production baseline (scripts/ceph-cluster.sh --cephfs; issue 36)
  munge slurmctld slurmd slurm-client  # the Slurm profile's one-host test cluster (scripts/slurm-cluster.sh)
  valgrind
  fio  # the storage floor (workflows/rules/floor.smk): its POSIX engines and, in Debian's build, RADOS
  clang libclang-rt-14-dev  # the wire decoders' fuzz test (scripts/fuzz-wire.sh): clang with libFuzzer
  clang-format  # the core's C++ style (.clang-format), checked by tests/workflow/test_lint.py
  chromium  # headless, renders the HTML report as a reader sees it (tests/workflow/test_smoke_run.py)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "installing packages needs root, and there is no sudo: run it as root" \
    "(su -c 'bash scripts/install-deps.sh'), or install sudo"
  sudo_cmd=(sudo)
fi

lock_holder() {  # prints the process holding one of apt's or dpkg's locks (from /proc/locks), if any
  local f id
  for f in /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock; do
    [ -e "$f" ] || continue
    id=$(printf '%02x:%02x:%d' "$(stat -c %Hd "$f")" "$(stat -c %Ld "$f")" "$(stat -c %i "$f")")
    awk -v id="$id" '$2 != "->" && $6 == id { print $5; found = 1; exit } END { exit !found }' /proc/locks && return
  done
  return 1
}
limit=${DELTAMETA_APT_WAIT:-600} waited=0
[[ "$limit" =~ ^[0-9]+$ ]] || die "DELTAMETA_APT_WAIT=$limit: give the seconds to wait for the package lock"
while pid=$(lock_holder); do
  what="process $pid ($(ps -o comm= -p "$pid" 2>/dev/null || echo gone))"
  [ $waited -gt 0 ] || echo "install-deps: $what holds the package lock: waiting for it, up to $limit s"
  [ $waited -lt "$limit" ] ||
    die "$what still holds the package lock after $limit s: let it finish, then run this again"
  sleep 1
  waited=$((waited + 1))
done
[ $waited -eq 0 ] || echo "install-deps: the package lock is free after $waited s"

echo "install-deps: installing ${missing[*]}"
# DEBCONF_NOWARNINGS: without it debconf says it delays configuration for want of apt-utils,
# which is harmless; Lock::Timeout: for an apt that takes the lock after the wait above.
"${sudo_cmd[@]}" apt-get update -qq -o DPkg::Lock::Timeout="$limit"
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes \
  apt-get install -y -qq -o DPkg::Lock::Timeout="$limit" --no-install-recommends "${missing[@]}" >/dev/null
