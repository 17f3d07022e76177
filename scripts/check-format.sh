#!/usr/bin/env bash
# Fails, naming the files, when a tracked C++ file is not formatted as
# .clang-format says (clang-format-14, Debian 12). Fix with:
#   git ls-files '*.cpp' '*.hpp' | xargs clang-format-14 -i
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
unformatted=()
for file in "${files[@]}"; do
  if ! clang-format-14 --dry-run --Werror "$file" >/dev/null 2>&1; then
    unformatted+=("$file")
  fi
done
if ((${#unformatted[@]} > 0)); then
  echo "format: ${#unformatted[@]} file(s) not formatted by clang-format-14:" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  echo "format: run: git ls-files '*.cpp' '*.hpp' | xargs clang-format-14 -i" >&2
  exit 1
fi
echo "format: ${#files[@]} files formatted"
