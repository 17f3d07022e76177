#!/usr/bin/env bash
# Fails, naming them, when functions grow past the house limits
# (docs/development.md): none in src/cli over 80 lines, none anywhere in src
# over 150. A data table is exempt, and so is a lambda inside one: the tables
# are named below as file:function. Lengths are universal-ctags' line and end
# fields (Debian's universal-ctags), a function's first line to its last.
set -euo pipefail
cd "$(dirname "$0")/.."
tables='src/rules/fields.cpp:registry src/cli/flags.cpp:flag_table'
if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
  echo "size: universal-ctags is missing (apt install universal-ctags)" >&2
  exit 2
fi
scratch=$(mktemp)
trap 'rm -f "$scratch"' EXIT
mapfile -t files < <(git ls-files 'src/*.cpp' 'src/*.hpp')
report=$(ctags --fields=+ne --c++-kinds=f -f - "${files[@]}" | awk -F'\t' -v tables="$tables" '
  BEGIN { n = split(tables, t, " "); for (i = 1; i <= n; i++) table[t[i]] = 1 }
  {
    line = 0; end = 0
    for (i = 4; i <= NF; i++) {
      if ($i ~ /^line:/) line = substr($i, 6)
      if ($i ~ /^end:/) end = substr($i, 5)
    }
    if (end == 0) next
    k++; file[k] = $2; name[k] = $1; first[k] = line; last[k] = end
    if (($2 ":" $1) in table) { tf[++m] = $2; ts[m] = line; te[m] = end }
  }
  END {
    for (i = 1; i <= k; i++) {
      exempt = 0
      for (j = 1; j <= m; j++) if (file[i] == tf[j] && first[i] >= ts[j] && last[i] <= te[j]) exempt = 1
      if (exempt) continue
      size = last[i] - first[i] + 1
      limit = file[i] ~ /^src\/cli\// ? 80 : 150
      if (size > limit) printf "  %s:%d %s: %d lines (limit %d)\n", file[i], first[i], name[i], size, limit
      else if (size > longest) longest = size
    }
    print "longest " longest > "/dev/stderr"
  }' 2>"$scratch")
longest=$(sed -n 's/^longest //p' "$scratch")
if [ -n "$report" ]; then
  echo "size: functions over the limit (80 lines in src/cli, 150 elsewhere; data tables exempt):" >&2
  echo "$report" >&2
  exit 1
fi
echo "size: ${#files[@]} files, no function over its limit (the longest outside the tables: $longest lines)"
