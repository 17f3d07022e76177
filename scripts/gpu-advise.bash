# bash completion for gpu-advise
_gpu_advise() {
  local cur prev words cword
  _init_completion 2>/dev/null || { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; }
  case "$prev" in
    --task) COMPREPLY=($(compgen -W "pretrain full lora qlora inference sft finetune serve" -- "$cur")); return ;;
    --budget) COMPREPLY=($(compgen -W "low medium high" -- "$cur")); return ;;
    --format) COMPREPLY=($(compgen -W "text json markdown html" -- "$cur")); return ;;
    --region) COMPREPLY=($(compgen -W "global cn" -- "$cur")); return ;;
    --mode) COMPREPLY=($(compgen -W "rent buy" -- "$cur")); return ;;
    --currency) COMPREPLY=($(compgen -W "usd cny" -- "$cur")); return ;;
    --lang) COMPREPLY=($(compgen -W "en zh" -- "$cur")); return ;;
    --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
    --precision) COMPREPLY=($(compgen -W "bf16 fp8 int8 int4" -- "$cur")); return ;;
    --kv-precision) COMPREPLY=($(compgen -W "bf16 fp8" -- "$cur")); return ;;
    --recompute) COMPREPLY=($(compgen -W "full selective none" -- "$cur")); return ;;
    --optimizer) COMPREPLY=($(compgen -W "adamw adamw-bf16 adamw-8bit adamw-8bit-bf16" -- "$cur")); return ;;
    --offload) COMPREPLY=($(compgen -W "none optimizer optimizer+params" -- "$cur")); return ;;
    --loss) COMPREPLY=($(compgen -W "full chunked fused" -- "$cur")); return ;;
    --zero) COMPREPLY=($(compgen -W "0 1 2 3" -- "$cur")); return ;;
    --gpu|show)
      COMPREPLY=($(compgen -W "$(gpu-advise catalog list --format json 2>/dev/null | grep -o '"id": "[^"]*"' | cut -d'"' -f4)" -- "$cur"))
      return ;;
    --model)
      COMPREPLY=($(compgen -W "$(gpu-advise models --format json 2>/dev/null | grep -o '"id": "[^"]*"' | cut -d'"' -f4)" -- "$cur"))
      return ;;
    --catalog|--rules|--model-config|--output|validate|batch) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "--params --active-params --model --model-config --task --budget --region --mode --gpu
      --count --top --max-gpus --seq-len --micro-batch --global-batch --zero --recompute --optimizer --offload --loss --optimizer-in-backward --goodput --lora-rank --lora-targets
      --tokens --epochs --fp8 --deadline --precision --kv-precision --context --output-tokens --concurrency --max-batch --tpot-ms
      --ttft-ms --request-rate --price
      --currency --format --output --lang --color --explain --compact --catalog --rules --help --version" -- "$cur"))
  elif [[ $cword -eq 1 ]]; then
    COMPREPLY=($(compgen -W "recommend compare batch catalog models rules" -- "$cur"))
  elif [[ ${words[1]} == catalog && $cword -eq 2 ]]; then
    COMPREPLY=($(compgen -W "list show validate" -- "$cur"))
  elif [[ ${words[1]} == rules && $cword -eq 2 ]]; then
    COMPREPLY=($(compgen -W "list validate" -- "$cur"))
  fi
}
complete -F _gpu_advise gpu-advise
