#!/usr/bin/env bash
# Runs each libFuzzer target for a bounded time on a copy of its seed corpus,
# as many at a time as there are cores (two on CI), each for the full time.
# The targets are built in the asan tree (clang-14, ASan + UBSan, with the
# tests: CMakePresets.json); this builds it when needed. Any crash, leak,
# timeout or out-of-memory fails the run; the input that caused it is kept in
# build/asan/findings/ (add it to tests/data/bad_inputs as a regression case).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
targets=(quantity catalog rules config defaults batch prices calibration)

# Quiet when it works; the whole log when the build fails.
build_log=$(mktemp)
if ! { cmake --preset asan && cmake --build --preset asan; } >"$build_log" 2>&1; then
  cat "$build_log"
  echo "fuzz: the fuzz targets did not build"
  rm -f "$build_log"
  exit 1
fi
rm -f "$build_log"

tree=build/asan
findings=$tree/findings
mkdir -p "$findings"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One target: its own copy of the corpus, its log, its verdict in a file.
fuzz_one() {
  local target=$1 corpus=$work/$1
  mkdir -p "$corpus"
  cp tests/fuzz/corpus/"$target"/* "$corpus"/
  if "$tree"/tests/fuzz/fuzz_"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$findings/$target-" "$corpus" \
      >"$tree/fuzz-$target.log" 2>&1; then
    echo ok >"$work/$target.verdict"
  else
    echo failed >"$work/$target.verdict"
  fi
}

parallel=$(nproc)
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, $parallel at a time"
running=0
for target in "${targets[@]}"; do
  fuzz_one "$target" &
  running=$((running + 1))
  if ((running >= parallel)); then
    wait -n || true
    running=$((running - 1))
  fi
done
wait

status=0
for target in "${targets[@]}"; do
  if [ "$(cat "$work/$target.verdict" 2>/dev/null)" != ok ]; then
    echo "fuzz: $target FAILED; see $tree/fuzz-$target.log and $findings/"
    tail -40 "$tree/fuzz-$target.log"
    status=1
  else
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$tree/fuzz-$target.log" | sed "s/^/fuzz: $target /"
  fi
done
exit $status
