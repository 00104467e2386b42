#!/usr/bin/env bash
# The project's test command: installs what is missing, builds the core, and runs every
# test: the core's unit and integration tests (ctest) and the Python tests (pytest: the
# workflow, Ceph, Slurm, Spack and Docker). Every part runs even when an earlier one fails;
# the last lines sum the run up (counts per part, each failed test by name, the slowest
# tests) and the exit status is non-zero when any test failed.
#   scripts/test.sh           everything: what CI runs (.ci/run)
#   scripts/test.sh --quick   the development tier (a few minutes once the core is built):
#                             the core's unit and MPI tests, the linters and the Python tests
#                             that start no workflow, cluster, image or build (mark `slow`)
# Where a Docker engine answers, the Docker part (the deltameta image, then tests/docker)
# runs beside the rest from the start: the image waits on package downloads more than on
# the CPU, and the clusters' tests wait on their containers. Its output is printed when it
# ends. Reports and logs of every part: build/test-reports/.
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
reports=$top/build/test-reports
rm -rf "$reports" && mkdir -p "$reports"
py=$top/.venv/bin/python
pytest=("$py" -m pytest -q -rs --durations=15 -p no:cacheprovider)
parts=()

docker_pid=""
if [ $quick = 0 ] && command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  echo "test.sh: the Docker part runs in the background (image, then tests/docker; log: $reports/docker.log)"
  # The image fixture of tests/docker/conftest.py runs the same two commands and finds
  # every layer cached; should they fail here, it fails the tests with their output.
  (cd "$top" && { bash docker/make-base-image.sh deltameta-base:bookworm &&
      bash docker/build-image.sh --base deltameta-base:bookworm --tag deltameta:test
    } || echo "test.sh: the image build failed (above); the Docker tests will say so"
    "${pytest[@]}" --junitxml "$reports/pytest-docker.xml" tests/docker) >"$reports/docker.log" 2>&1 &
  docker_pid=$!
  parts+=("pytest-docker=$reports/pytest-docker.xml")
  trap '[ -z "$docker_pid" ] || pkill -TERM -P "$docker_pid" 2>/dev/null' EXIT
fi

"$top/scripts/build-core.sh" || die "scripts/build-core.sh failed (its output above): no test can run without it"
build=${DELTAMETA_BUILD_DIR:-$top/build/core}

echo "test.sh: the core's tests (ctest)"
ctest_filter=()
[ $quick = 0 ] || ctest_filter=(-E '^(integration|faults|rados|ceph|fuzz)\.')
(cd "$build" && ctest --output-on-failure --timeout 900 "${ctest_filter[@]}" --output-junit "$reports/ctest.xml")
parts+=("ctest=$reports/ctest.xml")

cd "$top"
if [ $quick = 1 ]; then
  echo "test.sh: the Python tests that start nothing slow (pytest -m 'not slow')"
  "${pytest[@]}" -m "not slow" --junitxml "$reports/pytest.xml" tests
else
  # Without a Docker engine tests/docker runs here, where each of its tests says why it skips.
  others=()
  [ -z "$docker_pid" ] || others=(--ignore tests/docker)
  echo "test.sh: the Python tests$([ -z "$docker_pid" ] || echo ' but the Docker part')"
  "${pytest[@]}" --junitxml "$reports/pytest.xml" "${others[@]}" tests
fi
parts+=("pytest=$reports/pytest.xml")

if [ -n "$docker_pid" ]; then
  echo "test.sh: waiting for the Docker part"
  wait "$docker_pid"
  docker_pid=""
  echo "test.sh: the Docker part's output:"
  cat "$reports/docker.log"
fi

echo
echo "test.sh: summary"
"$py" "$top/scripts/summarize_tests.py" "${parts[@]}" | tee "$reports/summary.txt"
exit "${PIPESTATUS[0]}"
