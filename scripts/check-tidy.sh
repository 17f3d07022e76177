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
#
# Clean results are remembered, as ccache remembers objects: a file is checked
# again only when its compile command, its own text or the text of a header it
# includes (the dev build's dependency list, ninja -t deps), the .clang-tidy
# checks or clang-tidy itself changed. Only a clean result is remembered, so a
# finding is reported on every run. The cache is $GPU_ADVISE_TIDY_CACHE, else
# ~/.cache/gpu-advise/tidy (CI: /var/cache/gpu-advise/tidy); entries not used
# for 30 days are removed. GPU_ADVISE_TIDY_CACHE=off checks every file.
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
files=("${sources[@]}" "${tests[@]}")

cache=${GPU_ADVISE_TIDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-advise/tidy}
if [ "$cache" = off ] || ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
  cache=""
fi

# "KEY FILE" for each file: KEY is "-" when the file cannot be keyed (not
# built yet, or its dependency list is stale), and it is then always checked.
keys() {
  local identity
  identity=$({ clang-tidy-14 --version; cat .clang-tidy; } | sha256sum | cut -c1-64)
  ninja -C build/dev -t deps | python3 -c '
import hashlib, json, os, sys
identity, files = sys.argv[1], sys.argv[2:]
deps, current, valid = {}, None, False
for line in sys.stdin:
    if not line.strip():
        current = None
    elif not line[0].isspace():
        current, valid = None, "(VALID)" in line
        first = True
    elif current is None and valid and first:
        current, first = line.strip(), False
        deps[current] = [current]
    elif current is not None:
        deps[current].append(line.strip())
commands = {os.path.realpath(e["file"]): e["command"] for e in json.load(open("build/dev/compile_commands.json"))}
digests = {}
def digest(path):
    if path not in digests:
        try:
            with open(path, "rb") as f:
                digests[path] = hashlib.sha256(f.read()).hexdigest()
        except OSError:
            digests[path] = "missing"
    return digests[path]
for name in files:
    path = os.path.realpath(name)
    if path not in deps or path not in commands:
        print("-", name)
        continue
    h = hashlib.sha256((identity + "\0" + commands[path]).encode())
    for dep in sorted(set(deps[path])):
        h.update(f"\0{dep}\0{digest(dep)}".encode())
    print(h.hexdigest(), name)
' "$identity" "$@"
}

to_check=()
remembered=0
if [ -n "$cache" ]; then
  find "$cache" -type f -mtime +30 -delete 2>/dev/null || true
  while read -r key file; do
    if [ "$key" != - ] && [ -f "$cache/$key" ]; then
      touch "$cache/$key"
      remembered=$((remembered + 1))
    else
      to_check+=("$key" "$file")
    fi
  done < <(keys "${files[@]}")
else
  for file in "${files[@]}"; do to_check+=(- "$file"); done
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# One file: clang-tidy, then its clean result remembered under its key.
# GCC-only warning flags in the compile commands are not clang's business.
# shellcheck disable=SC2016
check_one='clang-tidy-14 -p build/dev --quiet --extra-arg=-Wno-unknown-warning-option "$2" &&
  if [ -n "$0" ] && [ "$1" != - ]; then touch "$0/$1"; fi'
if ((${#to_check[@]} > 0)) && ! printf '%s\n' "${to_check[@]}" | xargs -d '\n' -P "$(nproc)" -n 2 bash -c "$check_one" "$cache" >"$log" 2>&1; then
  grep -E "error:|warning:" "$log" | sort -u >&2 || cat "$log" >&2
  echo "tidy: clang-tidy-14 found problems (see above)" >&2
  exit 1
fi
echo "tidy: ${#sources[@]} source files and $which clean ($((${#to_check[@]} / 2)) checked, $remembered unchanged since a clean check${cache:+ in $cache})"
