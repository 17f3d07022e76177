# bash completion for gpu-advise
#
# Works with the bash-completion package (_init_completion) and on a bare bash
# without it. Card ids and model presets come from one gpu-advise call at most
# per TAB; errors are silent. tests/cli/test_completion.sh runs it on a bare bash.

# COMPREPLY from a word list, one reply per line (ids and enum values have no blanks).
_gpu_advise_reply() {
  local list=$1
  COMPREPLY=()
  local reply
  while IFS= read -r reply; do
    COMPREPLY+=("$prefix$reply")
  done < <(compgen -W "$list" -- "$cur")
}

# Files and directories matching $cur.
_gpu_advise_files() {
  if declare -F _filedir >/dev/null && [[ -z $prefix ]]; then
    _filedir
    return
  fi
  compopt -o filenames 2>/dev/null
  COMPREPLY=()
  local reply
  while IFS= read -r reply; do
    COMPREPLY+=("$prefix$reply")
  done < <(compgen -f -- "$cur")
}

# The "id"s in gpu-advise's JSON: the cards (catalog list) or the presets (models).
_gpu_advise_ids() {
  "$bin" "$@" --format json 2>/dev/null | grep -o '"id": *"[^"]*"' 2>/dev/null | cut -d'"' -f4
}

# Without bash-completion: words and cword from COMP_WORDS, with the pieces
# COMP_WORDBREAKS split at '=' joined again (--explain=all, --price h100-sxm5=2.10
# are one word each), as _init_completion -s does.
_gpu_advise_words() {
  local line=${COMP_LINE-} i w blank n
  words=()
  cword=0
  for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
    w=${COMP_WORDS[i]}
    blank=0
    [[ $line == [[:space:]]* ]] && blank=1
    line=${line#"${line%%[![:space:]]*}"}
    line=${line#"$w"}
    n=${#words[@]}
    if ((n > 1 && !blank)) && [[ $w == = || ${words[n - 1]} == *= ]]; then
      words[n - 1]+=$w
    else
      words+=("$w")
    fi
    ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
  done
  cur=${words[cword]-}
  prev=${words[cword - 1]-}
  split=false
  if [[ $cur == --?*=* ]]; then
    prev=${cur%%=*}
    cur=${cur#*=}
    split=true
  fi
}

_gpu_advise() {
  local cur prev words cword split=false prefix=""
  if declare -F _init_completion >/dev/null; then
    _init_completion -s || return
  else
    _gpu_advise_words
  fi
  # --flag=VALUE where '=' does not break words: bash replaces the whole word.
  if [[ $split == true && ${COMP_WORDBREAKS-} != *=* ]]; then
    prefix="$prev="
  fi
  local bin=${1:-gpu-advise}
  [[ $bin == */* && -x $bin ]] || bin=gpu-advise

  # The flags, long then short: exactly those of flag_table() in src/cli/flags.cpp
  # (tests/unit/test_flags.cpp checks), plus --help and --version.
  local flags="--params --active-params --model --model-config --task --budget --region --ecosystem --mode --gpu
      --count --top --max-gpus --seq-len --micro-batch --global-batch --zero --recompute --optimizer --offload --stack --pipeline-schedule --loss
      --optimizer-in-backward --goodput --lora-rank --lora-targets
      --tokens --epochs --fp8 --deadline --precision --kv-precision --context --output-tokens --concurrency --copies --ep --tp --pp --dp --cp --engine --max-batch
      --tpot-ms --ttft-ms --request-rate --price --spot --market --condition --years --utilization --power-price
      --currency --format --output --lang --color --explain --compact --catalog --price-file --calibration --check --rules --prepared-for --prepared-by
      --help --version
      -p -t -b -g -n -f -o"
  # The flags that take no value; every other flag takes the next word.
  local switches=" --optimizer-in-backward --fp8 --spot --explain --compact --help -h --version "
  local commands="recommend compare fit batch catalog models prices calibrate rules help"

  case "$prev" in
    --task | -t) _gpu_advise_reply "pretrain full lora qlora inference sft finetune serve"; return ;;
    --budget | -b) _gpu_advise_reply "low medium high"; return ;;
    --format | -f) _gpu_advise_reply "text json markdown html csv tsv yaml"; return ;;
    --region) _gpu_advise_reply "global cn"; return ;;
    --mode) _gpu_advise_reply "rent buy"; return ;;
    --ecosystem) _gpu_advise_reply "cuda rocm cann gaudi xpu neuware dtk any"; return ;;
    --condition) _gpu_advise_reply "new used"; return ;;
    --market) _gpu_advise_reply "specialist hyperscaler marketplace survey serverless spot term china_cloud china_lease"; return ;;
    --currency) _gpu_advise_reply "usd cny"; return ;;
    --lang) _gpu_advise_reply "en zh"; return ;;
    --color) _gpu_advise_reply "auto always never"; return ;;
    --precision) _gpu_advise_reply "bf16 fp8 int8 int4 fp4"; return ;;
    --kv-precision) _gpu_advise_reply "bf16 fp8 fp4"; return ;;
    --engine) _gpu_advise_reply "vllm vllm-rocm vllm-ascend sglang trtllm mindie lmdeploy auto"; return ;;
    --recompute) _gpu_advise_reply "full selective none"; return ;;
    --optimizer) _gpu_advise_reply "adamw adamw-bf16 adamw-8bit adamw-8bit-bf16"; return ;;
    --offload) _gpu_advise_reply "none optimizer optimizer+params"; return ;;
    --stack) _gpu_advise_reply "hf torchtune unsloth litgpt torchtitan megatron deepspeed"; return ;;
    --pipeline-schedule) _gpu_advise_reply "1f1b interleaved dualpipe"; return ;;
    --loss) _gpu_advise_reply "full chunked fused"; return ;;
    --zero) _gpu_advise_reply "0 1 2 3"; return ;;
    --explain)
      # --explain takes no value, but --explain=all is one word.
      if [[ $split == true ]]; then
        _gpu_advise_reply "all"
        return
      fi
      ;;
    --gpu | -g) _gpu_advise_reply "$(_gpu_advise_ids catalog list)"; return ;;
    --price)
      # ID=PRICE: the id, then the price is typed.
      COMPREPLY=()
      if [[ $cur != *=* ]]; then
        _gpu_advise_reply "$(_gpu_advise_ids catalog list)"
        local i
        for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]+="="; done
        compopt -o nospace 2>/dev/null
      fi
      return
      ;;
    --model) _gpu_advise_reply "$(_gpu_advise_ids models)"; return ;;
    --catalog | --price-file | --calibration | --check | --rules | --model-config | --output | -o) _gpu_advise_files; return ;;
  esac
  if [[ $split == true ]]; then
    COMPREPLY=()  # --flag=VALUE of a flag with free-text values
    return
  fi
  if [[ $cur == -* ]]; then
    _gpu_advise_reply "$flags"
    return
  fi
  # The value of a flag with free-text values (--params 70B): nothing to offer.
  if ((cword > 1)) && [[ $prev == -* && $prev != *=* && $prev != -- && $switches != *" $prev "* ]]; then
    COMPREPLY=()
    return
  fi
  if ((cword == 1)); then
    _gpu_advise_reply "$commands"
    return
  fi
  COMPREPLY=()
  case "${words[1]}" in
    help) ((cword == 2)) && _gpu_advise_reply "$commands" ;;
    compare) _gpu_advise_reply "$(_gpu_advise_ids catalog list)" ;;
    batch) ((cword == 2)) && _gpu_advise_files ;;
    prices | calibrate) _gpu_advise_files ;;
    catalog)
      if ((cword == 2)); then
        _gpu_advise_reply "list show validate"
      elif ((cword == 3)) && [[ ${words[2]} == show ]]; then
        _gpu_advise_reply "$(_gpu_advise_ids catalog list)"
      elif ((cword == 3)) && [[ ${words[2]} == validate ]]; then
        _gpu_advise_files
      fi
      ;;
    rules)
      if ((cword == 2)); then
        _gpu_advise_reply "list validate"
      elif ((cword == 3)) && [[ ${words[2]} == validate ]]; then
        _gpu_advise_files
      fi
      ;;
  esac
  return 0
}
complete -F _gpu_advise gpu-advise
