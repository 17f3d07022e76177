// Each command's examples and notes, the footer of its --help and of
// `gpu-advise help COMMAND`, and the short usage of a bare `gpu-advise`.
#pragma once

namespace gpu_advise::cli {

inline constexpr const char* recommend_examples = R"(Examples:
  gpu-advise --params 70B --task lora --budget low
  gpu-advise -p 8B -t inference -b medium --top 5
  gpu-advise --params 405B --task pretrain --budget high -o plan.json -o plan.md
  gpu-advise --params 70B --task qlora --gpu a100-80gb-sxm4 --gpu l40s
  gpu-advise --model llama-3.1-70b --task inference --precision fp8 --context 32768 --concurrency 32
  gpu-advise --model-config ./config.json --task full --seq-len 8192 --zero 3
  gpu-advise --model qwen2.5-72b --task pretrain --tokens 2T --deadline 30d --mode buy
  gpu-advise --params 70B --task inference --region cn --mode buy
  gpu-advise --params 8B --task inference --budget 5k --explain
  gpu-advise --params 70B --task lora --format csv > plans.csv

Tasks: pretrain, full (aliases: sft, finetune, fine-tune, full-ft), lora, qlora,
       inference (aliases: infer, serve, serving).
Parameter counts: 70B, 7b, 1.5T, 500M, 405e9 (K, M, B, T suffixes; 1M to 100T).
Defaults: GPU_ADVISE_REGION, GPU_ADVISE_LANG, GPU_ADVISE_CURRENCY, GPU_ADVISE_BUDGET,
  or the same keys in ~/.config/gpu-advise/config.yaml; flags win (docs/configuration.md).

Exit status:
  0  at least one card is recommended
  1  the request is valid but no card fits (the report, with ways out, is still printed)
  2  usage error or invalid data (message on stderr)

Commands: recommend (the default), compare, fit, batch, models, catalog, rules, help.
Documentation: README.md, docs/methodology.md (formulas), docs/catalog.md (data),
docs/json.md (the JSON contract), docs/csv.md (the CSV columns).)";

inline constexpr const char* compare_examples = R"(Examples:
  gpu-advise compare a100-80gb-sxm4 h100-sxm5 --params 70B --task lora
  gpu-advise compare h20 ascend-910b2 a800-80gb-sxm4 --model qwen2.5-72b --task inference --region cn
  gpu-advise compare l40s rtx-4090 --params 8B --task qlora --format csv

Exit status: 0 when at least one of the cards fits, 1 when none does, 2 for bad input.)";

inline constexpr const char* fit_examples = R"(Examples:
  gpu-advise fit --gpu ascend-910b2 --count 8 --region cn
  gpu-advise fit --gpu rtx-4090 --count 2 --task qlora
  gpu-advise fit --gpu h100-sxm5 --count 8 --model llama-3.1-70b
  gpu-advise fit --gpu a100-80gb-sxm4 --count 8 --gpu l40s --count 4 --format csv
  gpu-advise fit --gpu h20          (one card)

For each model preset (or the --params / --model given) and each task (or the
--task given): whether it fits on the cards, the layout, the time for the
default or given --tokens, the serving throughput at the latency targets, and
the largest model of each task that fits.

Exit status: 0 when something fits, 1 when nothing does, 2 for bad input.)";

inline constexpr const char* batch_examples = R"(Examples:
  gpu-advise batch requests.jsonl > results.jsonl
  printf '{"params":"70B","task":"lora"}\n{"model":"qwen2.5-72b","task":"inference"}\n' | gpu-advise batch --compact

Each line is a JSON object whose keys are the flags' names with '_' for '-'
("params", "task", "seq_len", "gpu": [...]); each result line is a JSON
document as `--format json` writes it, with "line" and "status" (docs/json.md).
Exit status: 0 when every line was answered, 2 when a line was bad (its error is its result line).)";

inline constexpr const char* models_examples = R"(Examples:
  gpu-advise models
  gpu-advise models --format json)";

inline constexpr const char* catalog_examples = R"(Examples:
  gpu-advise catalog list
  gpu-advise catalog list --format csv > cards.csv
  gpu-advise catalog show h100-sxm5
  gpu-advise catalog validate my-cards.yaml
  gpu-advise --params 70B --task full --catalog my-cards.yaml)";

inline constexpr const char* prices_examples = R"(Examples:
  mkdir -p lambda && curl -fsSLo lambda/vms.csv \
    https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v7/lambda/vms.csv
  gpu-advise prices lambda/vms.csv our-quotes.csv
  gpu-advise --params 70B --task lora --price-file lambda/vms.csv
  gpu-advise catalog show h100-sxm5 --price-file aws=aws-vms.csv)";

inline constexpr const char* calibrate_examples = R"(Examples:
  OUT=. python3 bench/training_bench.py --gpu h200-sxm   # on the GPU: training_bench.jsonl
  gpu-advise calibrate training_bench.jsonl -o h200-hf.yaml
  gpu-advise calibrate --check h200-hf.yaml
  gpu-advise --model llama-3.1-8b --task lora --gpu h200-sxm --calibration h200-hf.yaml)";

inline constexpr const char* rules_examples = R"(Examples:
  gpu-advise rules list
  gpu-advise rules validate my-rules.yaml
  gpu-advise --params 70B --task lora --rules my-rules.yaml)";

inline constexpr const char* short_usage =
    R"(usage: gpu-advise --params COUNT --task TASK [--budget low|medium|high] [options]
       gpu-advise compare|fit|batch|models|prices|calibrate|catalog|rules|help ...

  gpu-advise --params 70B --task lora --budget low     which cards to rent for a LoRA of a 70B model
  gpu-advise fit --gpu ascend-910b2 --count 8          what 8 cards you have can train or serve
  gpu-advise help                                      every option, with examples
)";

}  // namespace gpu_advise::cli
