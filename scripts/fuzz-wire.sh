#!/usr/bin/env bash
# Fuzzes the wire decoders (core/tests/fuzz/): builds the libFuzzer target with clang into
# build/fuzz (or $DELTAMETA_FUZZ_BUILD_DIR), writes the seed corpus and fuzzes for SECONDS
# (default 20). Fails on any crash, sanitizer report or round-trip mismatch; exits 77
# (ctest: skipped) if clang with libFuzzer is not installed. New inputs that reach new code
# accumulate in build/fuzz/corpus, so longer runs pick up where earlier ones stopped.
#   scripts/fuzz-wire.sh [SECONDS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
seconds="${1:-20}"
build="${DELTAMETA_FUZZ_BUILD_DIR:-$top/build/fuzz}"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SECONDS] (a whole number of seconds, default 20)" >&2; exit 2; }

if ! command -v clang++ >/dev/null; then
  echo "fuzz-wire: skipped: clang++ not found (scripts/install-deps.sh installs clang and libclang-rt-14-dev)"
  exit 77
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe/p.cc"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cc" -o "$probe/p" 2>/dev/null; then
  echo "fuzz-wire: skipped: clang++ cannot link -fsanitize=fuzzer,address,undefined (install libclang-rt-14-dev)"
  exit 77
fi

cmake -S "$top/core/tests/fuzz" -B "$build" -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
rm -rf "$build/seeds"
mkdir -p "$build/seeds" "$build/corpus" "$build/crashes"
"$build/deltameta_wire_seeds" "$build/seeds" ||
  { echo "fuzz-wire: FAILED: the seed corpus could not be written (the reason is above)" >&2; exit 1; }

log="$build/fuzz.log"
if ! "$build/deltameta_wire_fuzz" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$build/crashes/" "$build/corpus" "$build/seeds" >"$log" 2>&1; then
  # The report: from the target's own message or the sanitizer's first line on.
  report=$(awk '/^wire_fuzz: |^==[0-9]+== *ERROR|runtime error:/ { on = 1 } on' "$log" | head -n 40)
  echo "${report:-$(tail -n 30 "$log")}" >&2
  crash=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
  echo "fuzz-wire: FAILED: the wire fuzz target found an input that breaks a decoder (above; whole log: $log)." >&2
  echo "fuzz-wire: reproduce with: $build/deltameta_wire_fuzz ${crash:-$build/crashes/<file>}" >&2
  exit 1
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
echo "fuzz-wire: ok: ${runs:-?} inputs in ${seconds} s, no failure ($(find "$build/corpus" -type f | wc -l) inputs in $build/corpus)"
