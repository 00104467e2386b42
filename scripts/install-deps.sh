#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages the core needs to build and test (idempotent; needs root or sudo).
set -euo pipefail

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
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "install-deps: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
