// The validated workload: what the user asked for, with every default made
// explicit. Built once from the command line (cli) and read by everything after.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_advise/calibration.hpp"
#include "gpu_advise/gpu.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/ownership.hpp"
#include "gpu_advise/prices.hpp"

namespace gpu_advise {

enum class Task { pretrain, full, lora, qlora, inference };
enum class BudgetTier { low, medium, high };

[[nodiscard]] std::span<const EnumName<Task>> names(Task);
[[nodiscard]] std::span<const EnumName<BudgetTier>> names(BudgetTier);

// The task names and their accepted aliases (sft, finetune, serve, ...).
struct TaskAlias {
  std::string_view alias;
  Task task;
};
[[nodiscard]] std::span<const TaskAlias> task_aliases();

// Parses a task name or alias, case-insensitively. Throws UsageError naming
// `flag`, with the valid values and a did-you-mean.
[[nodiscard]] Task parse_task(std::string_view text, std::string_view flag);
[[nodiscard]] BudgetTier parse_budget(std::string_view text, std::string_view flag);

// An amount of money as typed: 50k, 50000usd, $1.2M, 350k cny, ¥2.5M, 15元.
// Without a currency it is in the request's --currency.
struct MoneyAmount {
  double value = 0;
  std::optional<Currency> currency;  // nullopt: none typed
};
// nullopt when `text` is not an amount (at most `limit` before the currency).
[[nodiscard]] std::optional<MoneyAmount> parse_money_amount(std::string_view text, double limit);

// --budget takes a tier (low, medium, high) or an amount: 50k, 50000usd,
// $1.2M, 350k cny. An amount keeps the medium profile and caps the plan's cost.
struct BudgetChoice {
  BudgetTier tier = BudgetTier::medium;
  std::optional<MoneyAmount> amount;
};
[[nodiscard]] BudgetChoice parse_budget_choice(std::string_view text, std::string_view flag);

[[nodiscard]] constexpr bool is_training(Task task) { return task != Task::inference; }

enum class Recompute { full, selective, none };
enum class InferencePrecision { bf16, fp8, int8, int4, fp4 };
enum class KvPrecision { bf16, fp8, fp4 };
// The serving engine whose scheduler defaults and speed a serving plan assumes
// (--engine; docs/methodology.md §5, "Engines").
enum class ServingEngine { vllm, sglang, trtllm, mindie, lmdeploy };
enum class CostMode { rent, buy };
// Optimizer state per trained parameter: mixed-precision AdamW with FP32
// master weights (16 B with BF16 weights and gradients), pure-BF16 AdamW (8 B),
// 8-bit Adam states with FP32 master (10 B) or without one, on BF16 weights (6 B).
enum class Optimizer { adamw, adamw_bf16, adamw_8bit, adamw_8bit_bf16 };
// What training keeps in host memory instead (DeepSpeed ZeRO-Offload / ZeRO-Infinity, FSDP CPU offload).
enum class Offload { none, optimizer, optimizer_params };
// How the stack computes the loss over the vocabulary, which sets the logits'
// memory: all FP32 logits at once (Hugging Face Transformers + PEFT), in chunks
// (torchtune, LitGPT, Unsloth) or fused and vocabulary-parallel (Megatron-Core,
// torchtitan).
enum class Loss { full, chunked, fused };
// The training stack (--stack): what its kernels reach, how it computes the
// loss, what its layers keep for the backward pass and when its gradients
// exist (docs/methodology.md §2, "Stacks"; src/estimate/stacks.cpp).
enum class Stack { hf, torchtune, unsloth, litgpt, torchtitan, megatron, deepspeed };
// The pipeline schedule (--pipeline-schedule): plain 1F1B (Narayanan et al.,
// arXiv 2104.04473), interleaved 1F1B with chunks of two layers (Megatron-Core,
// NeMo's recipes; the default when each stage has as many micro-batches as
// stages) or DualPipe (DeepSeek-V3, arXiv 2412.19437 §3.2.1: micro-batches fed
// from both ends, each chunk's all-to-all hidden behind another's compute).
enum class PipelineSchedule { one_f_one_b, interleaved, dualpipe };

[[nodiscard]] std::span<const EnumName<Recompute>> names(Recompute);
[[nodiscard]] std::span<const EnumName<InferencePrecision>> names(InferencePrecision);
[[nodiscard]] std::span<const EnumName<KvPrecision>> names(KvPrecision);
[[nodiscard]] std::span<const EnumName<CostMode>> names(CostMode);
[[nodiscard]] std::span<const EnumName<Optimizer>> names(Optimizer);
[[nodiscard]] std::span<const EnumName<Offload>> names(Offload);
[[nodiscard]] std::span<const EnumName<Loss>> names(Loss);
[[nodiscard]] std::span<const EnumName<Stack>> names(Stack);
[[nodiscard]] std::span<const EnumName<PipelineSchedule>> names(PipelineSchedule);
[[nodiscard]] std::span<const EnumName<LoraTarget>> names(LoraTarget);

// Bytes per trained parameter for weights, gradients and optimizer states.
struct TrainingBytes {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
};
[[nodiscard]] TrainingBytes training_bytes(Optimizer optimizer);

// "all", "attention" (q,k,v,o), "mlp" (gate,up,down) or a list such as "q,v".
// Throws UsageError naming `flag`.
[[nodiscard]] std::vector<LoraTarget> parse_lora_targets(std::string_view text, std::string_view flag);

// A user's price for one card, overriding the catalog's quotes.
// A default the user configured, in the environment (GPU_ADVISE_REGION) or in
// the config file, that a request took because no flag said otherwise.
struct ConfiguredDefault {
  std::string key;     // "region"
  std::string value;   // "cn"
  std::string origin;  // "GPU_ADVISE_REGION", or "/home/u/.config/gpu-advise/config.yaml:2"
};

struct PriceOverride {
  std::string gpu_id;
  double usd_per_gpu_hour = 0;
};

// What a buyer states about owning (--condition, --years, --utilization,
// --power-price; docs/methodology.md §6.2). The figures they are combined
// with are in ownership_data() (ownership.hpp).
struct OwnershipCosts {
  Condition condition = Condition::new_card;  // new servers, or used (where the catalog prices them)
  double years = default_ownership_years;     // how long the servers are kept, then sold
  double utilisation = default_utilisation;   // share of the hours the GPUs are busy
  std::optional<double> usd_per_kwh;          // --power-price; nullopt: the region's sourced figure
};

// The interactive latency a serving plan is sized to when the user states no
// target: 50 ms per output token (20 tokens/s, faster than people read) and
// 2 s to the first token (docs/methodology.md §5: a stated judgement).
inline constexpr double default_tpot_ms = 50.0;
inline constexpr double default_ttft_ms = 2000.0;

struct Request {
  double params = 0;                    // total parameters
  std::optional<double> active_params;  // --active-params (MoE) with --params
  std::string model_id;                 // --model preset id, or empty
  std::string model_config;             // --model-config path, or empty
  Task task = Task::inference;
  BudgetTier budget = BudgetTier::medium;
  std::optional<double> budget_usd;  // --budget 50k: a hard cap on the plan's cost
  Region region = Region::global;    // where the cards are bought or rented
  // --ecosystem: only cards of this software stack; nullopt (any, the
  // default): every stack, each non-CUDA plan carrying its stack's warning.
  std::optional<SoftwareStack> ecosystem;
  bool explain = false;              // --explain: the rules that fired on each card, and each score's parts
  bool explain_all = false;          // --explain=all: also every rule that did not fire
  std::vector<std::string> gpu_ids;  // only consider these card ids (resolved); empty = all
  std::vector<std::string> compare;  // compare: these cards side by side, in this order
  std::optional<int> count;          // fix the number of cards
  std::optional<int> top;            // list at most this many recommendations
  bool ways_out = true;              // when nothing fits, search the ways out (fit's rows do not)
  bool owned = false;                // fit: the user has the cards, so rules about getting them do not apply
  int max_gpus = 65536;              // the largest cluster considered

  // Training. Each default is stated in the output's assumptions.
  int seq_len = 4096;                  // tokens per training sequence
  int micro_batch = 1;                 // sequences per GPU per step
  std::optional<int> global_batch;     // --global-batch: sequences per optimizer step; unset = task default
  std::optional<int> zero_stage;       // 0-3; unset = chosen per layout (3 for data parallel, 1 with TP/PP)
  std::optional<Recompute> recompute;  // unset = full for fine-tuning, selective for pretraining
  // Training layout degrees the user fixes (--tp, --pp, --dp, --cp; --ep,
  // below, for both tasks); nullopt: searched.
  std::optional<int> tensor_parallel;
  std::optional<int> pipeline_parallel;
  std::optional<int> data_parallel;
  std::optional<int> context_parallel;
  std::optional<PipelineSchedule> pipeline_schedule;  // --pipeline-schedule; unset = interleaved where it can
  int lora_rank = 16;                                 // LoRA / QLoRA adapter rank
  std::vector<LoraTarget> lora_targets{std::begin(all_lora_targets), std::end(all_lora_targets)};
  Optimizer optimizer = Optimizer::adamw;
  Offload offload = Offload::none;     // --offload
  std::optional<Loss> loss;            // --loss; unset = the stack's
  std::optional<Stack> stack;          // --stack; unset = hf for LoRA / QLoRA, megatron otherwise
  bool optimizer_in_backward = false;  // --optimizer-in-backward: each layer's update in its backward pass
  // Share of a long run's wall time spent training rather than restarting,
  // checkpointing and evaluating, as --goodput states it (unstated: derived
  // from the run's checkpoints and interruptions; docs/methodology.md §4).
  double goodput = 1.0;
  bool goodput_stated = false;
  std::optional<double> tokens;           // --tokens: dataset tokens (per epoch); unset = task default
  double epochs = 1;                      // fine-tuning passes over the dataset
  bool fp8_training = false;              // --fp8: FP8 matmuls where the card has them
  std::optional<double> deadline_hours;   // --deadline: size the cluster to finish in time
  double fine_tune_tokens = 100e6;        // default fine-tuning dataset, tokens per epoch
  double pretrain_tokens_per_param = 20;  // Chinchilla (arXiv 2203.15556)
  // Pretraining without --deadline is sized to finish in about 3 months;
  // nullopt sizes it to memory alone.
  std::optional<double> pretrain_default_deadline_hours = 90 * 24;

  // Inference.
  InferencePrecision precision = InferencePrecision::bf16;
  KvPrecision kv_precision = KvPrecision::bf16;
  int context = 4096;       // tokens per sequence held in the KV cache (prompt + output)
  int output_tokens = 512;  // tokens generated per request (at most the context less one prompt token)
  // Sequences served at once (--concurrency); nullopt: the operating point is
  // the largest concurrency that fits and meets the latency targets.
  std::optional<int> concurrency;
  // Model copies (--copies): the count split into that many copies of one
  // layout; nullopt: the number of copies that serves the most is chosen.
  std::optional<int> copies;
  // Wide expert parallelism (--ep): a MoE model's routed experts spread over
  // groups of this many GPUs, each running its own requests' attention; 1:
  // the experts follow the tensor-parallel group; nullopt: searched.
  std::optional<int> expert_parallel;
  // The serving engine (--engine); nullopt: each card's vLLM build (vLLM on
  // CUDA, vLLM-ROCm, vLLM-Ascend; docs/methodology.md §5, "Engines").
  std::optional<ServingEngine> engine;
  // The scheduler's limits as stated; nullopt: the engine's defaults for the
  // card and the mode (sizing::on_card resolves them). --max-batch caps the
  // running sequences; the tokens in one step (decodes plus prefill chunks)
  // and the share of memory the engine takes are set by the validation cases
  // as each source ran its engine.
  std::optional<int> max_batch;
  std::optional<int> max_batched_tokens;
  std::optional<double> serving_memory_fraction;
  // Latency targets per user (--tpot-ms, --ttft-ms); nullopt: none. A stated
  // target rejects a card that cannot meet it; the interactive defaults size
  // the plan when they can be met and are relaxed to the latency knee when not.
  std::optional<double> tpot_target_ms = default_tpot_ms;
  std::optional<double> ttft_target_ms = default_ttft_ms;
  bool tpot_stated = false;
  bool ttft_stated = false;
  std::optional<double> request_rate;  // --request-rate: requests per second to sustain

  // Cost. Every figure is computed in USD; money is shown in `currency`,
  // converted at the catalog's rate (set with the currency by to_request()).
  CostMode mode = CostMode::rent;
  Currency currency = Currency::usd;
  ExchangeRate exchange_rate;
  std::vector<PriceOverride> prices;
  bool spot = false;  // --spot: rent on spot (preemptible) prices where a card has them
  // --market: rent at one tier's quotes where a card has them (--spot is
  // --market spot); nullopt: the typical (docs/methodology.md §6.1).
  std::optional<PriceTier> market;
  // The oldest month a catalog quote may be dated to count: twelve months
  // before the catalog's date (set with the exchange rate).
  std::string quotes_since;
  // The --price-file files that priced the catalog's cards (stated in the assumptions).
  std::vector<PriceFileSummary> price_files;
  OwnershipCosts ownership;

  // The configured defaults this request took (stated in the assumptions).
  std::vector<ConfiguredDefault> configured;

  // --calibration files: the fitted factors of the cards and stacks (or
  // engines) measured; an estimate on one of them uses its calibration
  // (docs/calibration.md), every other is as modelled.
  std::vector<Calibration> calibrations;

  // Training tokens this request implies (tokens x epochs for fine-tuning).
  [[nodiscard]] double training_tokens() const;
  [[nodiscard]] Recompute effective_recompute() const;
  [[nodiscard]] Loss effective_loss() const;
  [[nodiscard]] Stack effective_stack() const;
  // Sequences per optimizer step: --global-batch, or the task's default.
  [[nodiscard]] int effective_global_batch() const;
  // --deadline, or for pretraining the default; none for other tasks without --deadline.
  [[nodiscard]] std::optional<double> effective_deadline_hours() const;
  [[nodiscard]] int effective_output_tokens() const;
  [[nodiscard]] int prompt_tokens() const { return context - effective_output_tokens(); }
};

}  // namespace gpu_advise
