#!/usr/bin/env bash
# The bash completion (scripts/gpu-advise.bash) on a bare bash: bash --norc
# --noprofile, no bash-completion package, the built gpu-advise first on PATH.
# Each case sets COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT as bash does
# for the line typed (COMP_WORDBREAKS splits at '='), calls _gpu_advise and
# checks COMPREPLY. With bash-completion's bash_completion found (or named by
# GPU_ADVISE_BASH_COMPLETION), the same cases run again with it loaded.
#
#   tests/cli/test_completion.sh BINARY SOURCE_DIR
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BINARY SOURCE_DIR" >&2
  exit 2
fi
binary=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
source_dir=$(cd "$2" && pwd)
script=$source_dir/scripts/gpu-advise.bash
test -x "$binary" || { echo "test_completion: $binary is not an executable" >&2; exit 2; }
test -f "$script" || { echo "test_completion: $script is missing" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# gpu-advise on PATH is a shim that counts its calls, then runs the binary.
mkdir "$work/bin"
cat >"$work/bin/gpu-advise" <<EOF
#!/bin/sh
echo call >>"$work/calls"
exec "$binary" "\$@"
EOF
chmod +x "$work/bin/gpu-advise"
touch "$work/calls"

# The cases, run inside the bare bash. No set -e there: completion functions
# may return non-zero.
cat >"$work/cases.bash" <<'CASES'
failures=0
cases=0

# complete LINE: as bash does when TAB is pressed at the end of LINE.
complete_line() {
  local line=$1 token piece -
  set -f
  COMP_WORDS=()
  for token in $line; do
    # COMP_WORDBREAKS splits a word at '=' and keeps the '=' as a word.
    while [[ $COMP_WORDBREAKS == *=* && $token == *=* ]]; do
      piece=${token%%=*}
      [[ -n $piece ]] && COMP_WORDS+=("$piece")
      COMP_WORDS+=("=")
      token=${token#*=}
    done
    [[ -n $token ]] && COMP_WORDS+=("$token")
  done
  [[ $line == *' ' ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE=$line
  COMP_POINT=${#line}
  COMPREPLY=()
  : >"$WORK/calls"
  _gpu_advise gpu-advise "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>"$WORK/stderr"
  replies=" ${COMPREPLY[*]} "
  calls=$(wc -l <"$WORK/calls")
}

fail() {
  echo "FAIL [$MODE] '$line': $1; COMPREPLY=(${COMPREPLY[*]})" >&2
  failures=$((failures + 1))
}

# check LINE exactly|contains|none WORD...: the replies are exactly WORDs (in any
# order), contain every WORD, or are empty. Every case also checks the completion
# made one gpu-advise call at most and wrote nothing to stderr.
check() {
  line=$1
  local how=$2 word
  shift 2
  cases=$((cases + 1))
  complete_line "$line"
  case $how in
    exactly)
      local want got
      want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
      got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
      [[ $want == "$got" ]] || fail "expected exactly ($*)"
      ;;
    contains)
      ((${#COMPREPLY[@]} > 0)) || fail "expected ($*), got nothing"
      for word in "$@"; do
        [[ $replies == *" $word "* ]] || fail "expected $word"
      done
      ;;
    none) ((${#COMPREPLY[@]} == 0)) || fail "expected nothing" ;;
  esac
  ((calls <= 1)) || fail "gpu-advise ran $calls times"
  [[ ! -s $WORK/stderr ]] || fail "wrote to stderr: $(cat "$WORK/stderr")"
}

# every PREFIX: each reply of the last check starts with PREFIX.
every() {
  local reply
  for reply in "${COMPREPLY[@]}"; do
    [[ $reply == "$1"* ]] || fail "$reply does not start with $1"
  done
}

commands=(recommend compare fit batch catalog models prices calibrate rules help)
formats=(text json markdown html csv tsv yaml)

# Subcommands.
check "gpu-advise " exactly "${commands[@]}"
check "gpu-advise co" exactly compare
check "gpu-advise help " exactly "${commands[@]}"
check "gpu-advise catalog " exactly list show validate
check "gpu-advise catalog sh" exactly show
check "gpu-advise rules " exactly list validate
check "gpu-advise models " none

# Card ids.
check "gpu-advise compare h1" contains h100-sxm5 h100-pcie h100-nvl
every h1
check "gpu-advise compare a100-80gb-sxm4 h" contains h100-sxm5 h200-sxm
every h
check "gpu-advise compare --explain a100-80gb-sxm4 h2" contains h200-sxm h20
check "gpu-advise compare --top " none
check "gpu-advise --gpu a10" contains a10 a100-40gb-sxm4 a100-80gb-sxm4 a100-80gb-pcie
every a10
check "gpu-advise -g a10" contains a10 a100-40gb-sxm4 a100-80gb-sxm4 a100-80gb-pcie
every a10
check "gpu-advise recommend --params 70B -g h1" contains h100-sxm5
check "gpu-advise catalog show h1" contains h100-sxm5
check "gpu-advise --gpu=h1" contains h100-sxm5
check "gpu-advise --price h100-sxm5=2.10 --gpu a10" contains a100-80gb-sxm4
check "gpu-advise --price h100-s" exactly h100-sxm5=
check "gpu-advise --price h100-sxm5=" none

# Model presets.
check "gpu-advise --model llama" contains llama-3.1-70b llama-2-7b
every llama
check "gpu-advise --model=qwen2.5-1" exactly qwen2.5-14b

# Enum values, short flags like long ones, --flag=VALUE.
check "gpu-advise --format c" exactly csv
check "gpu-advise --format " exactly "${formats[@]}"
check "gpu-advise -f " exactly "${formats[@]}"
check "gpu-advise -f t" exactly text tsv
check "gpu-advise --format=c" exactly csv
check "gpu-advise --format=" exactly "${formats[@]}"
check "gpu-advise --task q" exactly qlora
check "gpu-advise -t l" exactly lora
check "gpu-advise -b " exactly low medium high
check "gpu-advise --budget m" exactly medium
check "gpu-advise --mode buy --condition " exactly new used
check "gpu-advise --condition u" exactly used
check "gpu-advise --condition=n" exactly new
check "gpu-advise --years " none
check "gpu-advise --utilization " none
check "gpu-advise --power-price " none
check "gpu-advise --explain=" exactly all
check "gpu-advise --params " none
check "gpu-advise -p " none
check "gpu-advise -n " none
check "gpu-advise --prepared-for " none

# Without '=' in COMP_WORDBREAKS, --flag=VALUE is one word, replaced whole.
saved_breaks=$COMP_WORDBREAKS
COMP_WORDBREAKS=${COMP_WORDBREAKS//=/}
check "gpu-advise --format=c" exactly --format=csv
check "gpu-advise --gpu=h100-p" exactly --gpu=h100-pcie
check "gpu-advise --explain=" exactly --explain=all
check "gpu-advise --price h100-sxm5=2.10 -g h100-p" exactly h100-pcie
COMP_WORDBREAKS=$saved_breaks

# Flags.
check "gpu-advise --prep" exactly --prepared-for --prepared-by
check "gpu-advise compare --for" exactly --format
check "gpu-advise --gp" exactly --gpu
check "gpu-advise --mode buy --cond" exactly --condition
check "gpu-advise --util" exactly --utilization
check "gpu-advise --power" exactly --power-price
check "gpu-advise -" contains --params --gpu --explain -p -t -b -g -n -f -o

# Files.
check "gpu-advise --output $SOURCE_DIR/scripts/gpu-advise.b" contains "$SOURCE_DIR/scripts/gpu-advise.bash"
check "gpu-advise -o $SOURCE_DIR/scripts/gpu-advise.b" contains "$SOURCE_DIR/scripts/gpu-advise.bash"
check "gpu-advise --catalog $SOURCE_DIR/scripts/gpu-advise.b" contains "$SOURCE_DIR/scripts/gpu-advise.bash"
check "gpu-advise batch $SOURCE_DIR/scripts/gpu-advise.b" contains "$SOURCE_DIR/scripts/gpu-advise.bash"
check "gpu-advise catalog validate $SOURCE_DIR/scripts/gpu-advise.b" contains "$SOURCE_DIR/scripts/gpu-advise.bash"
check "gpu-advise rules validate $SOURCE_DIR/scripts/gpu-advise.b" contains "$SOURCE_DIR/scripts/gpu-advise.bash"

# Quiet when gpu-advise is not on PATH.
saved_path=$PATH
PATH=/usr/bin:/bin
check "gpu-advise --gpu h1" none
check "gpu-advise compare h1" none
PATH=$saved_path

echo "test_completion [$MODE]: $cases cases, $failures failures"
((failures == 0))
CASES

run() {
  local mode=$1 preload=$2
  PATH="$work/bin:$PATH" WORK=$work SOURCE_DIR=$source_dir MODE=$mode \
    bash --norc --noprofile -c "$preload"'
      source "$1" || exit 1
      complete -p gpu-advise >/dev/null || { echo "no completion registered for gpu-advise" >&2; exit 1; }
      source "$2"' completion "$script" "$work/cases.bash"
}

status=0
run "bare bash" 'declare -F _init_completion >/dev/null && { echo "not a bare bash" >&2; exit 1; }' || status=1

bash_completion=${GPU_ADVISE_BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}
if [ -f "$bash_completion" ]; then
  run "bash-completion" 'source '"$(printf %q "$bash_completion")"' || exit 1
      declare -F _init_completion >/dev/null || { echo "no _init_completion in '"$bash_completion"'" >&2; exit 1; }' ||
    status=1
else
  echo "test_completion: $bash_completion not found; ran on the bare bash only"
fi
exit $status
