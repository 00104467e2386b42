#!/usr/bin/env bash
# The project's test command: installs what is missing, builds the core, and runs every
# test: the core's unit and integration tests (ctest) and the Python tests (pytest: the
# workflow, Ceph, Slurm, Spack and Docker). Every part runs even when another fails; the
# last lines sum the run up (counts per part, each failed test by name, the slowest tests)
# and the exit status is non-zero when any test failed.
#   scripts/test.sh           everything: what CI runs (.ci/run)
#   scripts/test.sh --quick   the development tier (a few minutes once the core is built):
#                             the core's unit and MPI tests, the linters and the Python tests
#                             that start no workflow, cluster, image or build (mark `slow`)
# The parts that mostly wait (on package downloads, containers, Slurm's scheduler) run
# beside the others, each with its output in build/test-reports/PART.log, printed when it
# ends: the Docker part from the start where an engine answers (the image, then its
# release tests beside its two clusters' tests, one cluster at a time), Spack's from the
# start (scripts/setup-spack.sh once, from the release archives where no spack is on PATH,
# into build/test-scratch; its repository indices once; then its three groups side by
# side), Slurm's and Ceph's and the other Python tests once the core is built, beside ctest.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "test.sh: $*" >&2; exit 2; }
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) die "unknown option $1 (--quick, or nothing for every test)" ;;
esac
[ $# -le 1 ] || die "one option at most (--quick)"

for step in install-deps setup-python; do
  "$top/scripts/$step.sh" || die "scripts/$step.sh failed (its output above): no test can run without it"
done
reports=$top/build/test-reports scratch=$top/build/test-scratch  # both anew each run
rm -rf "$reports" "$scratch" && mkdir -p "$reports" "$scratch"
cd "$top" || die "cannot enter $top"
pytest=(.venv/bin/python -m pytest -q -rs --durations=15 -p no:cacheprovider)
parts=() background=()

pytest_part() {  # pytest_part NAME ARGS...: pytest ARGS with its report as part NAME
  "${pytest[@]}" --junitxml "$reports/$1.xml" "${@:2}"
}

in_background() {  # in_background NAME COMMAND...: runs COMMAND beside the rest, output in NAME.log
  "${@:2}" >"$reports/$1.log" 2>&1 &
  background+=("$1:$!")
  echo "test.sh: $1 runs in the background (log: $reports/$1.log)"
}

docker_part() {  # the image, then its release tests beside its clusters' (one at a time)
  # tests/docker/conftest.py's image fixture runs the same two commands (the image with the
  # original prototype where its archive is in the upstream folder, tagged apart), finds
  # every layer cached, and fails the tests with the build's output should these have failed.
  local archive image=(--tag deltameta:test)
  archive=${DELTAMETA_UPSTREAM:-$top/../shared/upstream}/deltafs-proto-2021.5.tar.gz
  [ ! -f "$archive" ] || image=(--tag deltameta:original-test --original "$archive")
  bash docker/make-base-image.sh deltameta-base:bookworm &&
    bash docker/build-image.sh --base deltameta-base:bookworm "${image[@]}" ||
    echo "test.sh: the image build failed (above); the Docker tests will say so"
  pytest_part pytest-docker-release tests/docker/test_release.py tests/docker/test_single_node.py \
    tests/docker/test_image_original.py \
    >"$reports/pytest-docker-release.log" 2>&1 &
  # The two clusters (three containers each, with Ceph) one at a time: side by side, on
  # CI's machine, three of their four workflow tests failed (2026-11-27).
  pytest_part pytest-docker-cluster tests/docker/test_cluster.py
  pytest_part pytest-docker-slurm tests/docker/test_slurm_cluster.py >"$reports/pytest-docker-slurm.log" 2>&1
  wait
  echo "test.sh: tests/docker/test_slurm_cluster.py:"
  cat "$reports/pytest-docker-slurm.log"
  echo "test.sh: tests/docker/test_release.py, test_single_node.py and test_image_original.py:"
  cat "$reports/pytest-docker-release.log"
}

docker_answers=0
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then docker_answers=1; fi
if [ $quick = 0 ] && [ $docker_answers = 1 ]; then
  in_background docker docker_part
  parts+=("pytest-docker-release=$reports/pytest-docker-release.xml"
          "pytest-docker-cluster=$reports/pytest-docker-cluster.xml"
          "pytest-docker-slurm=$reports/pytest-docker-slurm.xml")
fi
spack_groups=(  # NAME:FILES, side by side: their concretizations are single-threaded
  "pytest-spack-default:tests/spack/test_spack_env.py"
  "pytest-spack-rados-develop:tests/spack/test_spack_rados_env.py tests/spack/test_spack_develop.py"
  "pytest-spack-proto:tests/spack/test_deltafs_proto.py tests/spack/test_spack_setup.py")
spack_part() {  # Spack set up once (where none is on PATH), then the groups side by side
  local upstream=${DELTAMETA_UPSTREAM:-$top/../shared/upstream} group name
  if ! command -v spack >/dev/null && [ -f "$upstream/spack-1.0.2.tar.gz" ] &&
     [ -f "$upstream/spack-packages-2025.07.tar.gz" ]; then
    export DELTAMETA_SPACK_SETUP=$scratch/spack
    # On failure each group sets Spack up in its own scratch space, and says what failed.
    bash scripts/setup-spack.sh --from "$upstream" "$DELTAMETA_SPACK_SETUP" >/dev/null || {
      echo "test.sh: scripts/setup-spack.sh failed (above); each Spack test group tries on its own"
      unset DELTAMETA_SPACK_SETUP; }
  fi
  # Spack's repository indices built once; each group copies them (tests/spack/index_seed.py).
  if .venv/bin/python tests/spack/index_seed.py "$scratch/spack-index" >"$reports/spack-index.log" 2>&1; then
    export DELTAMETA_SPACK_INDEX_SEED=$scratch/spack-index
  else
    echo "test.sh: tests/spack/index_seed.py failed; each Spack test group builds the indices on its own:"
    tail -n 20 "$reports/spack-index.log"
  fi
  for group in "${spack_groups[@]}"; do
    name=${group%%:*}
    # ${group#*:} unquoted: the group's files, one word each
    pytest_part "$name" ${group#*:} >"$reports/$name.log" 2>&1 &
  done
  wait
  for group in "${spack_groups[@]}"; do
    echo "test.sh: ${group#*:}:"
    cat "$reports/${group%%:*}.log"
  done
}
if [ $quick = 0 ]; then  # Spack builds the core on its own: it needs no build of ours
  in_background spack spack_part
  for group in "${spack_groups[@]}"; do parts+=("${group%%:*}=$reports/${group%%:*}.xml"); done
fi
# Should the set-up below fail, the parts already started still end (and clean up) first.
trap 'wait' EXIT

scripts/build-core.sh || die "scripts/build-core.sh failed (its output above): no test can run without it"
build=${DELTAMETA_BUILD_DIR:-$top/build/core}

if [ $quick = 1 ]; then
  ctest_filter=(-E '^(integration|faults|rados|ceph|fuzz)\.')
  pytest_args=(-m "not slow" tests)
else
  ctest_filter=()
  in_background pytest-clusters pytest_part pytest-clusters tests/slurm tests/ceph
  parts+=("pytest-clusters=$reports/pytest-clusters.xml")
  # Without a Docker engine tests/docker runs here, where each of its tests says why it skips.
  pytest_args=(--ignore tests/slurm --ignore tests/ceph --ignore tests/spack)
  [ $docker_answers = 0 ] || pytest_args+=(--ignore tests/docker)
  pytest_args+=(tests)
  # The workflow's tests in two processes side by side, split by file so that each session
  # fixture is made once (the smoke runs in the first, the original's build in the second)
  # and the two take about as long (15 min each in a fresh-clone run, beside the rest).
  workflow_second=(tests/workflow/test_original*.py tests/workflow/test_failures.py
                   tests/workflow/test_cephfs_system.py)
  in_background pytest-workflow-2 pytest_part pytest-workflow-2 "${workflow_second[@]}"
  parts+=("pytest-workflow-2=$reports/pytest-workflow-2.xml")
  for f in "${workflow_second[@]}"; do pytest_args=(--ignore "$f" "${pytest_args[@]}"); done
fi

# The Python tests beside ctest: both need only the build, and ctest's longest tests mostly
# wait (on Ceph's timeouts, on servers killed on purpose).
echo "test.sh: the Python tests (pytest ${pytest_args[*]})"
in_background pytest pytest_part pytest "${pytest_args[@]}"
parts+=("pytest=$reports/pytest.xml")

echo "test.sh: the core's tests (ctest)"
(cd "$build" && ctest --output-on-failure --timeout 900 "${ctest_filter[@]}" --output-junit "$reports/ctest.xml")
parts+=("ctest=$reports/ctest.xml")

for b in "${background[@]}"; do
  echo "test.sh: waiting for ${b%%:*}"
  wait "${b#*:}"
  echo "test.sh: ${b%%:*}'s output:"
  cat "$reports/${b%%:*}.log"
done
background=()

echo
echo "test.sh: summary"
.venv/bin/python scripts/summarize_tests.py "${parts[@]}" | tee "$reports/summary.txt"
exit "${PIPESTATUS[0]}"
