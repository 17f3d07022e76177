#!/usr/bin/env bash
# Runs clang-tidy-14 with the checked-in .clang-tidy on every C++ source of
# the library, the tool and the tests, in parallel, using the dev build's
# compile_commands.json (build it first: cmake --preset dev && cmake --build
# --preset dev). Any finding fails: .clang-tidy makes every warning an error.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/dev/compile_commands.json ]; then
  echo "tidy: build/dev/compile_commands.json is missing; run cmake --preset dev && cmake --build --preset dev" >&2
  exit 2
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
mapfile -t files < <(git ls-files 'src/*.cpp' 'tests/unit/*.cpp' 'tests/cli/*.cpp' 'tests/validation/*.cpp')
# GCC-only warning flags in the compile commands are not clang's business.
if ! printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 1 clang-tidy-14 -p build/dev --quiet \
    --extra-arg=-Wno-unknown-warning-option >"$log" 2>&1; then
  grep -E "error:|warning:" "$log" | sort -u >&2 || cat "$log" >&2
  echo "tidy: clang-tidy-14 found problems (see above)" >&2
  exit 1
fi
echo "tidy: ${#files[@]} files clean"
