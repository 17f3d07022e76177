#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, ASan + UBSan) and runs each for a
# bounded time on a copy of its seed corpus. Any crash, leak, timeout or
# out-of-memory fails the run; the input that caused it is kept in
# build/fuzz/findings/ (add it to tests/data/bad_inputs as a regression case).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}

# Quiet when it works; the whole log when the build fails.
build_log=$(mktemp)
if ! { cmake --preset fuzz && cmake --build --preset fuzz; } >"$build_log" 2>&1; then
  cat "$build_log"
  echo "fuzz: the fuzz targets did not build"
  rm -f "$build_log"
  exit 1
fi
rm -f "$build_log"

findings=build/fuzz/findings
mkdir -p "$findings"
status=0
for target in quantity catalog rules config batch prices; do
  corpus=$(mktemp -d)
  cp tests/fuzz/corpus/"$target"/* "$corpus"/
  echo "fuzz: $target for ${seconds}s"
  if ! build/fuzz/tests/fuzz/fuzz_"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$findings/$target-" "$corpus" \
      >"build/fuzz/$target.log" 2>&1; then
    echo "fuzz: $target FAILED; see build/fuzz/$target.log and $findings/"
    tail -40 "build/fuzz/$target.log"
    status=1
  else
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "build/fuzz/$target.log" | sed "s/^/fuzz: $target /"
  fi
  rm -rf "$corpus"
done
exit $status
