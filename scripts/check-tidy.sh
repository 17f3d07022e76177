#!/usr/bin/env bash
# Runs clang-tidy-14 with the checked-in .clang-tidy, in parallel, using the
# dev build's compile_commands.json (build it first: cmake --preset dev &&
# cmake --build --preset dev). Any finding fails: .clang-tidy makes every
# warning an error.
#
#   scripts/check-tidy.sh          every source file of the library and the tool,
#                                  and the test files changed since BASE
#   scripts/check-tidy.sh --all    every source and every test file
#
# BASE is $GPU_ADVISE_TIDY_BASE when set (CI can set it to the last checked
# commit), else 20 commits back; without that much history, every test file.
# Tests are most of the files and mostly Catch2's macros: a test that has not
# changed since it was last checked gives the same answer again.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/dev/compile_commands.json ]; then
  echo "tidy: build/dev/compile_commands.json is missing; run cmake --preset dev && cmake --build --preset dev" >&2
  exit 2
fi
test_patterns=('tests/unit/*.cpp' 'tests/cli/*.cpp' 'tests/validation/*.cpp')
mapfile -t sources < <(git ls-files 'src/*.cpp')
base=${GPU_ADVISE_TIDY_BASE:-HEAD~20}
if [ "${1:-}" = --all ] || ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  mapfile -t tests < <(git ls-files "${test_patterns[@]}")
  which="every test file"
else
  # Changed since BASE, committed or not, and still there.
  mapfile -t tests < <({ git diff --name-only "$base" -- "${test_patterns[@]}"; git ls-files --others --exclude-standard "${test_patterns[@]}"; } |
    sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done)
  which="the ${#tests[@]} test files changed since $base"
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# GCC-only warning flags in the compile commands are not clang's business.
if ! printf '%s\n' "${sources[@]}" "${tests[@]}" | xargs -P "$(nproc)" -n 1 clang-tidy-14 -p build/dev --quiet \
    --extra-arg=-Wno-unknown-warning-option >"$log" 2>&1; then
  grep -E "error:|warning:" "$log" | sort -u >&2 || cat "$log" >&2
  echo "tidy: clang-tidy-14 found problems (see above)" >&2
  exit 1
fi
echo "tidy: ${#sources[@]} source files and $which clean"
