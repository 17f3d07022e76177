#include "flags.hpp"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "core/quantity_format.hpp"
#include "estimate/parts.hpp"
#include "flag_values.hpp"

namespace gpu_advise::cli {

namespace {

// A default as --help shows it, from the value the Request starts with.
std::string shown(double value) { return format::number(value); }
std::string shown(int value) { return std::to_string(value); }
template <typename E>
requires std::is_enum_v<E> std::string shown(E value) { return std::string(to_string(value)); }

// The commands that load the data (all but validate and help), so a --catalog
// or --rules file given is always checked and --lang always applies. The
// other sets, in the rows: --price-file prices a plan and is listed by
// catalog show; prices takes only --format and --output besides; the
// validate commands say one line, to --output; compare names its cards as
// arguments and lists them all (no --gpu, --top); fit sizes the cards the
// user has (no --max-gpus); batch lines set the workload themselves.
constexpr Commands every_command{Command::recommend,  Command::compare,      Command::fit,          Command::batch,
                                 Command::models,     Command::catalog_list, Command::catalog_show, Command::prices,
                                 Command::rules_list, Command::calibrate};

constexpr Commands written{
    Command::recommend,      Command::compare,      Command::fit,    Command::batch,      Command::models,
    Command::catalog_list,   Command::catalog_show, Command::prices, Command::rules_list, Command::catalog_validate,
    Command::rules_validate, Command::calibrate};
constexpr Commands formatted{Command::recommend,  Command::compare,      Command::fit,          Command::batch,
                             Command::models,     Command::catalog_list, Command::catalog_show, Command::prices,
                             Command::rules_list, Command::calibrate};
constexpr Commands coloured{Command::recommend,    Command::compare,      Command::fit,       Command::models,
                            Command::catalog_list, Command::catalog_show, Command::rules_list};
constexpr Commands priced{Command::recommend, Command::compare, Command::fit, Command::batch, Command::catalog_show};
constexpr Commands calibrated{Command::recommend, Command::compare, Command::fit, Command::batch};
constexpr Commands checked{Command::calibrate};
constexpr Commands compacted{Command::recommend, Command::compare, Command::batch};
constexpr Commands explained{Command::recommend, Command::compare};
constexpr Commands selected{Command::recommend, Command::fit};   // --gpu
constexpr Commands listed{Command::recommend};                   // --top
constexpr Commands sized{Command::recommend, Command::compare};  // --max-gpus

}  // namespace

const std::vector<FlagSpec>& flag_table() {
  // The defaults the help states are the Request's and the Flags' own, so
  // they are typed once.
  static const Request d;
  static const Flags f;
  const auto days = [](double hours) { return format::number(hours / 24) + "d"; };
  // name, field, parse, --help group, value name, help, default shown, scope, batch key, repeatable, short name,
  // the commands that take it (default: recommend, compare and fit)
  static const std::vector<FlagSpec> table = {
      {"--params", &Flags::params, nullptr, "Workload", "COUNT", "Total parameters of the model: 70B, 7b, 1.5T, 405e9",
       "", FlagScope::any, "params", false, "-p"},
      {"--model", &Flags::model, nullptr, "Workload", "NAME",
       "A model preset: llama-3.1-70b, qwen2.5-72b, deepseek-v3, ... (see 'models')", "", FlagScope::any, "model",
       false},
      {"--model-config", &Flags::model_config, nullptr, "Workload", "FILE",
       "A Hugging Face config.json with the model's exact shape", "", FlagScope::any, "model_config", false},
      {"--active-params", &Flags::active_params, nullptr, "Workload", "COUNT",
       "With --params: parameters active per token (MoE)", "", FlagScope::any, "active_params", false},
      {"--task", &Flags::task, values::task, "Workload", "TASK",
       "pretrain | full | lora | qlora | inference (aliases: sft, finetune, serve)", "", FlagScope::any, "task", false,
       "-t"},
      {"--budget", &Flags::budget, values::budget, "Workload", "TIER|AMOUNT",
       "low (cost first), medium (balanced), high (speed first), or a cap in --currency: 50k, $1.2M, 350k cny",
       shown(d.budget), FlagScope::any, "budget", false, "-b"},
      {"--region", &Flags::region, values::choice<&Request::region>, "Workload", "REGION",
       fmt::format("Where the cards are bought or rented: {} (default) or cn", shown(d.region)), "", FlagScope::any,
       "region", false},
      {"--ecosystem", &Flags::ecosystem, values::ecosystem, "Workload", "STACK",
       "cuda | rocm | cann | gaudi | xpu | neuware | dtk | any: only cards of this software stack (default any; "
       "a plan off CUDA carries its stack's warning)",
       "", FlagScope::any, "ecosystem", false},
      {"--seq-len", &Flags::seq_len, values::integer<&Request::seq_len, 10'000'000>, "Training", "N",
       fmt::format("Training sequence length (default {})", shown(d.seq_len)), "", FlagScope::training, "seq_len",
       false},
      {"--micro-batch", &Flags::micro_batch, values::integer<&Request::micro_batch, 65536>, "Training", "N",
       fmt::format("Sequences per GPU per step (default {})", shown(d.micro_batch)), "", FlagScope::training,
       "micro_batch", false},
      {"--global-batch", &Flags::global_batch, values::integer<&Request::global_batch, 16777216>, "Training", "N",
       "Sequences per optimizer step, all GPUs (default: 4M tokens for pretraining, 16M from 100B parameters, 128 for "
       "fine-tuning)",
       "", FlagScope::training, "global_batch", false},
      {"--zero", &Flags::zero, values::zero, "Training", "STAGE", "ZeRO stage 0-3 (default: chosen per layout)", "",
       FlagScope::training, "zero", false},
      {"--tp", &Flags::tensor_parallel, values::integer<&Request::tensor_parallel, 1024>, "Training", "N",
       "Tensor-parallel degree, fixed (default: searched; any of --tp --pp --dp --cp --ep may be given)", "",
       FlagScope::training, "tp", false},
      {"--pp", &Flags::pipeline_parallel, values::integer<&Request::pipeline_parallel, 1024>, "Training", "N",
       "Pipeline-parallel stages, fixed (default: searched)", "", FlagScope::training, "pp", false},
      {"--dp", &Flags::data_parallel, values::integer<&Request::data_parallel, 65536>, "Training", "N",
       "Data-parallel ranks, fixed (default: searched; with --tp --pp --cp it sets the count)", "", FlagScope::training,
       "dp", false},
      {"--cp", &Flags::context_parallel, values::integer<&Request::context_parallel, 1024>, "Training", "N",
       "Context-parallel degree: each sequence split over N GPUs, fixed (default: searched for long sequences)", "",
       FlagScope::training, "cp", false},
      {"--pipeline-schedule", &Flags::pipeline_schedule, values::choice<&Request::pipeline_schedule>, "Training",
       "NAME",
       "Pipeline schedule: 1f1b | interleaved (chunks of two layers; default where each stage has as many "
       "micro-batches as stages and four layers) | dualpipe (DeepSeek-V3's: all-to-all hidden behind compute, two "
       "stages a GPU; even --pp, twice its micro-batches a rank)",
       "", FlagScope::training, "pipeline_schedule", false},
      {"--recompute", &Flags::recompute, values::choice<&Request::recompute>, "Training", "MODE",
       "Activation recompute: full | selective | none (default full for fine-tuning, selective for pretraining)", "",
       FlagScope::training, "recompute", false},
      {"--lora-rank", &Flags::lora_rank, values::integer<&Request::lora_rank, 65536>, "Training", "R",
       fmt::format("LoRA / QLoRA rank (default {})", shown(d.lora_rank)), "", FlagScope::lora, "lora_rank", false},
      {"--lora-targets", &Flags::lora_targets, values::lora_targets, "Training", "LAYERS",
       "Layers LoRA adapts: all (default) | attention | mlp | a list such as q,v", "", FlagScope::lora, "lora_targets",
       false},
      {"--optimizer", &Flags::optimizer, values::choice<&Request::optimizer>, "Training", "OPT",
       "adamw (mixed precision, FP32 master; default) | adamw-bf16 (pure BF16) | adamw-8bit (8-bit states, FP32 "
       "master) | adamw-8bit-bf16 (8-bit states, no master)",
       "", FlagScope::training, "optimizer", false},
      {"--offload", &Flags::offload, values::choice<&Request::offload>, "Training", "WHAT",
       "Keep in host memory: none (default) | optimizer (states and master weights) | optimizer+params", "",
       FlagScope::training, "offload", false},
      {"--stack", &Flags::stack, values::choice<&Request::stack>, "Training", "STACK",
       "Training stack, for its memory and speed: hf (Transformers + PEFT; default for LoRA/QLoRA) | torchtune | "
       "unsloth | litgpt | torchtitan | megatron (Megatron-Core; default otherwise) | deepspeed",
       "", FlagScope::training, "stack", false},
      {"--loss", &Flags::loss, values::choice<&Request::loss>, "Training", "HOW",
       "How the loss is computed, overriding the stack's: full (hf, deepspeed) | chunked (torchtune, LitGPT, "
       "Unsloth) | fused (Megatron-Core, torchtitan)",
       "", FlagScope::training, "loss", false},
      {"--optimizer-in-backward", &Flags::optimizer_in_backward, values::on<&Request::optimizer_in_backward>,
       "Training", "", "Update each layer in its backward pass, holding one layer's gradients", "", FlagScope::training,
       "optimizer_in_backward", false},
      {"--goodput", &Flags::goodput, values::goodput, "Training", "F",
       "Share of a training run's wall time spent training, 0-1 (default: derived from its checkpoints and "
       "interruptions)",
       "", FlagScope::training, "goodput", false},
      {"--tokens", &Flags::tokens, values::tokens, "Training", "COUNT",
       fmt::format(
           "Training tokens per epoch: 2T, 100M (default: {} per parameter for pretraining, {} for fine-tuning)",
           shown(d.pretrain_tokens_per_param), format_parameter_count(d.fine_tune_tokens)),
       "", FlagScope::training, "tokens", false},
      {"--epochs", &Flags::epochs, values::number<&Request::epochs, 10000>, "Training", "X",
       fmt::format("Passes over the dataset (default {})", shown(d.epochs)), "", FlagScope::training, "epochs", false},
      {"--fp8", &Flags::fp8, values::on<&Request::fp8_training>, "Training", "",
       "Train with FP8 matmuls on cards that have them", "", FlagScope::training, "fp8", false},
      {"--deadline", &Flags::deadline, values::deadline, "Training", "TIME",
       fmt::format("Size the cluster to finish within: 36h, 30d, 2w (pretraining default: {})",
                   days(d.pretrain_default_deadline_hours.value_or(0))),
       "", FlagScope::training, "deadline", false},
      {"--precision", &Flags::precision, values::choice<&Request::precision>, "Inference", "P",
       fmt::format(
           "Inference weights: bf16 | fp8 | int8 | int4 | fp4 (NVFP4/MXFP4: cards with FP4 tensor cores) (default {})",
           shown(d.precision)),
       "", FlagScope::inference, "precision", false},
      {"--kv-precision", &Flags::kv_precision, values::choice<&Request::kv_precision>, "Inference", "P",
       fmt::format("KV cache: bf16 | fp8 | fp4 (NVFP4: TensorRT-LLM on Blackwell) (default {})", shown(d.kv_precision)),
       "", FlagScope::inference, "kv_precision", false},
      {"--context", &Flags::context, values::integer<&Request::context, 100'000'000>, "Inference", "N",
       fmt::format("Tokens per sequence held in the KV cache, prompt + output (default {})", shown(d.context)), "",
       FlagScope::inference, "context", false},
      {"--output-tokens", &Flags::output_tokens, values::integer<&Request::output_tokens, 100'000'000>, "Inference",
       "N", fmt::format("Tokens generated per request (default {})", shown(d.output_tokens)), "", FlagScope::inference,
       "output_tokens", false},
      {"--concurrency", &Flags::concurrency, values::integer<&Request::concurrency, 1'000'000>, "Inference", "N",
       "Sequences served at once per model copy (default: the most that fit and meet the latency targets)", "",
       FlagScope::inference, "concurrency", false},
      {"--copies", &Flags::copies, values::integer<&Request::copies, 4096>, "Inference", "N",
       "Model copies the GPUs are split into, each serving its own requests (default: the number that serves the "
       "most)",
       "", FlagScope::inference, "copies", false},
      {"--ep", &Flags::expert_parallel, values::integer<&Request::expert_parallel, 65536>, "Inference", "N",
       "A MoE model's experts spread over N GPUs: serving, groups of N with attention data parallel (wide expert "
       "parallelism, across servers), 1 keeping them in each copy's tensor-parallel group; training, the "
       "expert-parallel degree over the data-parallel ranks (default: searched)",
       "", FlagScope::any, "ep", false},
      {"--tpot-ms", &Flags::tpot_ms, values::tpot, "Inference", "MS",
       fmt::format("Time per output token each user may wait, or none (default {}: interactive)",
                   shown(default_tpot_ms)),
       "", FlagScope::inference, "tpot_ms", false},
      {"--ttft-ms", &Flags::ttft_ms, values::ttft, "Inference", "MS",
       fmt::format("Time to the first token, or none (default {})", shown(default_ttft_ms)), "", FlagScope::inference,
       "ttft_ms", false},
      {"--request-rate", &Flags::request_rate, values::number<&Request::request_rate, 1'000'000>, "Inference", "R",
       "Requests per second to sustain; model copies are added to reach it (default: one copy)", "",
       FlagScope::inference, "request_rate", false},
      {"--engine", &Flags::engine, values::engine, "Inference", "ENGINE",
       "vllm | vllm-rocm | vllm-ascend | sglang | trtllm | mindie | lmdeploy | auto: the serving engine, its "
       "scheduler's defaults and its speed (default auto: each card's vLLM build); a card the engine does not run "
       "on is rejected",
       "", FlagScope::inference, "engine", false},
      {"--max-batch", &Flags::max_batch, values::integer<&Request::max_batch, 1'000'000>, "Inference", "N",
       "The scheduler's limit on running sequences, as vLLM's max_num_seqs (default: the engine's, e.g. vLLM's "
       "1024 on cards of 70 GiB or more, 256 below)",
       "", FlagScope::inference, "max_batch", false},
      {"--mode", &Flags::mode, values::choice<&Request::mode>, "Cost", "MODE",
       fmt::format("rent | buy (default {})", shown(d.mode)), "", FlagScope::any, "mode", false},
      {"--currency", &Flags::currency, values::choice<&Request::currency>, "Cost", "CURRENCY",
       "usd | cny: the currency of every money figure, and of amounts typed without one (default cny with --region "
       "cn, else usd)",
       "", FlagScope::any, "currency", false},
      {"--price", &Flags::prices, values::price, "Cost", "ID=PRICE",
       "Your rent price for a card, per GPU-hour, in --currency or with one: --price h100-sxm5=2.10, a800=9.5cny "
       "(repeatable)",
       "", FlagScope::any, "price", true},
      {"--spot", &Flags::spot, values::on<&Request::spot>, "Cost", "",
       "Rent on spot (preemptible) prices where a card has them; the others stay on demand", "", FlagScope::any, "spot",
       false},
      {"--market", &Flags::market, values::market, "Cost", "TIER",
       "Rent at one market tier's recent quotes; a card without one is not priced (spot is --spot): specialist | "
       "hyperscaler | marketplace | survey | serverless | spot | term | china_cloud | china_lease (default: the "
       "typical, the median of the specialist clouds' on-demand quotes; in China the clouds', then leases)",
       "", FlagScope::any, "market", false},
      {"--condition", &Flags::condition, values::condition, "Cost", "CONDITION",
       "new | used: buy new servers, or used ones where the catalog prices them (--mode buy; default new)", "",
       FlagScope::any, "condition", false},
      {"--years", &Flags::years, values::years, "Cost", "N",
       fmt::format("Years the servers are kept, then sold, 1-10 (--mode buy; default {})", shown(d.ownership.years)),
       "", FlagScope::any, "years", false},
      {"--utilization", &Flags::utilization, values::utilization, "Cost", "PERCENT",
       fmt::format("Share of the hours the owned GPUs are busy, 1-100% (--mode buy; default {:.0f}%)",
                   100 * d.ownership.utilisation),
       "", FlagScope::any, "utilization", false},
      {"--power-price", &Flags::power_price, values::power_price, "Cost", "PRICE",
       "Electricity per kWh, in --currency or with one: 0.12, 0.6cny (--mode buy; default: the region's sourced "
       "tariff)",
       "", FlagScope::any, "power_price", false},
      {"--gpu", &Flags::gpus, values::gpu, "Selection", "ID",
       "Only consider this card (id or alias; repeat for several)", "", FlagScope::any, "gpu", true, "-g", selected},
      {"--count", &Flags::count, values::integer<&Request::count, max_count>, "Selection", "N",
       "Fix the number of cards instead of finding the smallest that fits", "", FlagScope::any, "count", false, "-n"},
      {"--top", &Flags::top, values::integer<&Request::top, max_top>, "Selection", "N",
       "List at most N recommendations", "", FlagScope::any, "top", false, "", listed},
      {"--max-gpus", &Flags::max_gpus, values::integer<&Request::max_gpus, 1'000'000>, "Selection", "N",
       fmt::format("The largest cluster to consider (default {})", shown(d.max_gpus)), "", FlagScope::any, "max_gpus",
       false, "", sized},
      {"--format", &Flags::format, nullptr, "Output", "FORMAT",
       "text | json | markdown | html | csv | tsv | yaml (calibrate) (default: each --output file's extension, else "
       "text)",
       "", FlagScope::any, "", false, "-f", formatted},
      {"--color", &Flags::color, nullptr, "Output", "WHEN",
       "auto | always | never (auto honours NO_COLOR and CLICOLOR_FORCE)", f.color, FlagScope::any, "", false, "",
       coloured},
      {"--lang", &Flags::lang, nullptr, "Output", "LANG", "en | zh (default from LC_ALL / LC_MESSAGES / LANG)", "",
       FlagScope::any, "lang", false, "", every_command},
      {"--output", &Flags::outputs, nullptr, "Output", "FILE",
       "Write the result to FILE (repeatable; atomically; a device or pipe directly; - for stdout)", "", FlagScope::any,
       "", true, "-o", written},
      {"--prepared-for", &Flags::prepared_for, nullptr, "Output", "TEXT",
       "Markdown and HTML reports: the client the report is prepared for", "", FlagScope::any, "", false},
      {"--prepared-by", &Flags::prepared_by, nullptr, "Output", "TEXT", "Markdown and HTML reports: who prepared it",
       "", FlagScope::any, "", false},
      {"--catalog", &Flags::catalogs, nullptr, "Data", "FILE", "Add or override cards from a catalog FILE (repeatable)",
       "", FlagScope::any, "", true, "", every_command},
      {"--price-file", &Flags::price_files, nullptr, "Data", "FILE",
       "Rent prices from a SkyPilot catalog file (PROVIDER=FILE, or .../PROVIDER/vms.csv) or a CSV of your quotes "
       "(repeatable; docs/prices.md)",
       "", FlagScope::any, "", true, "", priced},
      {"--calibration", &Flags::calibration_files, nullptr, "Data", "FILE",
       "Estimates on the cards and stacks a calibration FILE measured follow it (repeatable; from "
       "'gpu-advise calibrate'; docs/calibration.md)",
       "", FlagScope::any, "", true, "", calibrated},
      {"--check", &Flags::calibrate_check, nullptr, "Data", "FILE",
       "calibrate: check a calibration FILE (as edited by hand) and summarise it", "", FlagScope::any, "", false, "",
       checked},
      {"--rules", &Flags::rules, nullptr, "Data", "FILE",
       "Add or override scenario rules from a rules FILE (repeatable)", "", FlagScope::any, "", true, "",
       every_command},
      {"--explain", &Flags::explain, values::explain, "Output", "",
       "Show the rules that fired on each card and each score's parts; --explain=all adds the rules that did not", "",
       FlagScope::any, "explain", false, "", explained},
      {"--compact", &Flags::compact, nullptr, "Output", "",
       "JSON: one small object with the top plan's key figures (for sweeps; docs/json.md)", "", FlagScope::any,
       "compact", false, "", compacted},
  };
  return table;
}

std::string_view command_name(Command command) {
  switch (command) {
    case Command::recommend: return "recommend";
    case Command::compare: return "compare";
    case Command::fit: return "fit";
    case Command::batch: return "batch";
    case Command::models: return "models";
    case Command::catalog_list: return "catalog list";
    case Command::catalog_show: return "catalog show";
    case Command::catalog_validate: return "catalog validate";
    case Command::prices: return "prices";
    case Command::calibrate: return "calibrate";
    case Command::rules_list: return "rules list";
    case Command::rules_validate: return "rules validate";
    case Command::help: return "help";
  }
  return "";
}

bool accepts(Command command, const FlagSpec& spec) { return spec.takers.has(command); }

bool accepts_calibration(Command command) { return calibrated.has(command); }

bool given(const Flags& flags, const FlagSpec& spec) {
  struct Given {
    const Flags& flags;
    bool operator()(std::string Flags::*field) const { return !(flags.*field).empty(); }
    bool operator()(std::vector<std::string> Flags::*field) const { return !(flags.*field).empty(); }
    bool operator()(bool Flags::*field) const { return flags.*field; }
  };
  return std::visit(Given{flags}, spec.field);
}

namespace {

// "--a", "--a and --b", "--a, --b and --c"
std::string join_and(const std::vector<std::string>& names) {
  if (names.size() <= 1) {
    return names.empty() ? std::string() : names.front();
  }
  std::vector<std::string> head(names.begin(), names.end() - 1);
  return text::join(head, ", ") + " and " + names.back();
}

// The flags given in `scope`, in the table's order.
std::vector<std::string> given_in(const Flags& flags, FlagScope scope) {
  std::vector<std::string> names;
  for (const auto& spec : flag_table()) {
    if (spec.scope == scope && given(flags, spec)) {
      names.emplace_back(spec.name);
    }
  }
  return names;
}

std::string applies(const std::vector<std::string>& names) { return names.size() == 1 ? "applies" : "apply"; }

}  // namespace

OutputFormat parse_format(const std::string& raw) {
  const std::string folded = text::to_lower(raw);
  if (folded == "md") {
    return OutputFormat::markdown;
  }
  if (const auto format = enum_from_string<OutputFormat>(folded)) {
    return *format;
  }
  std::string message = fmt::format(
      "--format: '{}' is not a format; expected text, json, markdown (or md), html, csv, tsv or yaml (calibrate)",
      text::excerpt(raw));
  if (const auto suggestion = text::did_you_mean(raw, {"text", "json", "markdown", "html", "csv", "tsv", "yaml"})) {
    message += fmt::format("; did you mean '{}'?", *suggestion);
  }
  throw UsageError(message);
}

ModelShape resolve_model(const Flags& flags, Presets& presets) {
  const int given = !flags.params.empty() + !flags.model.empty() + !flags.model_config.empty();
  if (given == 0) {
    throw UsageError(
        "describe the model with --params (e.g. 70B), --model (a preset, see 'gpu-advise models') or "
        "--model-config (a Hugging Face config.json)");
  }
  if (given > 1) {
    throw UsageError("give only one of --params, --model and --model-config");
  }
  if (!flags.active_params.empty() && flags.params.empty()) {
    throw UsageError("--active-params goes with --params (presets and config.json already know their active size)");
  }
  if (!flags.model.empty()) {
    return presets.get().resolve(flags.model);
  }
  if (!flags.model_config.empty()) {
    return load_hf_config(flags.model_config);
  }
  const double params = wrap("--params", [&] { return parse_parameter_count(flags.params); });
  std::optional<double> active;
  if (!flags.active_params.empty()) {
    active = wrap("--active-params", [&] { return parse_parameter_count(flags.active_params); });
    if (*active > params) {
      throw UsageError(fmt::format("--active-params: {} is more than --params {}", flags.active_params, flags.params));
    }
  }
  return infer_shape(params, active);
}

namespace {

// Read before the others, which are read against them: the task (what a flag
// applies to) and the region and currency (what an amount typed is in).
bool read_first(const FlagSpec& spec) {
  return spec.name == "--task" || spec.name == "--region" || spec.name == "--currency";
}

// Each value given of the flag, through the flag's own parse.
void apply_given(const FlagSpec& spec, const RequestInputs& inputs, Request& request) {
  struct Apply {
    const FlagSpec& spec;
    const RequestInputs& inputs;
    Request& request;
    void operator()(std::string Flags::*field) const {
      if (const std::string& value = inputs.flags.*field; !value.empty()) {
        spec.apply(spec.name, value, request, inputs);
      }
    }
    void operator()(std::vector<std::string> Flags::*field) const {
      for (const auto& value : inputs.flags.*field) {
        spec.apply(spec.name, value, request, inputs);
      }
    }
    void operator()(bool Flags::*field) const {
      if (inputs.flags.*field) {
        spec.apply(spec.name, std::string(), request, inputs);
      }
    }
  };
  std::visit(Apply{spec, inputs, request}, spec.field);
}

// --ep N: a MoE model's experts over groups of N GPUs that divide the count.
void check_expert_parallel(const ModelShape& model, const Request& request) {
  if (!request.expert_parallel || *request.expert_parallel < 2) {
    return;
  }
  const int ep = *request.expert_parallel;
  if (!model.moe) {
    throw UsageError(fmt::format("--ep {} spreads a mixture-of-experts model's experts; {} is dense: leave --ep out",
                                 ep, model.name));
  }
  if (model.moe->experts % ep != 0) {
    throw UsageError(
        fmt::format("--ep {} does not divide {}'s {} routed experts: each GPU of a group holds the same "
                    "number of them; give a divisor of {}",
                    ep, model.name, model.moe->experts, model.moe->experts));
  }
  if (ep > request.max_gpus) {
    throw UsageError(fmt::format("--ep {} is more GPUs than --max-gpus {}: raise --max-gpus or give a smaller group",
                                 ep, request.max_gpus));
  }
  if (request.copies) {
    throw UsageError(fmt::format("--ep {} and --copies {} both set how the GPUs are grouped: give one of them", ep,
                                 *request.copies));
  }
  if (request.count && *request.count % ep != 0) {
    throw UsageError(
        fmt::format("--ep {} does not divide --count {}: each expert group takes {} GPUs; give a count "
                    "that is a multiple of it",
                    ep, *request.count, ep));
  }
}

// --tp --pp --dp --cp (training): degrees the model and the count allow; the
// fine-tuning plans with adapters are data parallel only.
// --tp, --pp or --cp beyond the model parallelism the training stack runs
// (src/estimate/stacks.cpp).
void check_stack_runs(const Request& request, bool adapters) {
  const sizing::StackProfile& stack = sizing::stack_profile(request.effective_stack());
  const std::tuple<const char*, std::optional<int>, bool> runs[] = {
      {"--tp", request.tensor_parallel, stack.tensor_parallel},
      {"--pp", request.pipeline_parallel, stack.pipeline_parallel},
      {"--cp", request.context_parallel, stack.context_parallel}};
  if (request.pipeline_schedule && (adapters || !stack.pipeline_parallel)) {
    throw UsageError(fmt::format("--pipeline-schedule {}: {}; leave it out{}", to_string(*request.pipeline_schedule),
                                 adapters
                                     ? "LoRA and QLoRA plans here are data parallel, with no pipeline"
                                     : fmt::format("--stack {} runs no pipeline", to_string(request.effective_stack())),
                                 adapters ? "" : ", or give --stack megatron or torchtitan"));
  }
  if (request.pipeline_schedule == PipelineSchedule::dualpipe && request.pipeline_parallel &&
      (*request.pipeline_parallel < 2 || *request.pipeline_parallel % 2 != 0)) {
    throw UsageError(
        fmt::format("--pp {} with --pipeline-schedule dualpipe: DualPipe feeds micro-batches from both "
                    "ends of an even number of stages; give an even --pp of at least 2",
                    *request.pipeline_parallel));
  }
  for (const auto& [flag, value, runs_it] : runs) {
    if (!adapters && !runs_it && value && *value > 1) {
      throw UsageError(
          fmt::format("{} {}: --stack {} does not run it (data parallelism with FSDP or ZeRO{}); "
                      "leave {} out, or give --stack megatron or torchtitan",
                      flag, *value, to_string(request.effective_stack()),
                      stack.tensor_parallel ? ", and tensor parallelism" : "", flag));
    }
  }
}

void check_fixed_layout(const ModelShape& model, Request& request) {
  const bool adapters = request.task == Task::lora || request.task == Task::qlora;
  const std::pair<const char*, std::optional<int>> model_parallel[] = {{"--tp", request.tensor_parallel},
                                                                       {"--pp", request.pipeline_parallel},
                                                                       {"--cp", request.context_parallel},
                                                                       {"--ep", request.expert_parallel}};
  for (const auto& [flag, value] : model_parallel) {
    if (adapters && value && *value > 1) {
      throw UsageError(
          fmt::format("{} {}: LoRA and QLoRA plans here are data parallel (DDP, or FSDP sharding the "
                      "frozen base) over every GPU; leave {} out, or give --dp",
                      flag, *value, flag));
    }
  }
  check_stack_runs(request, adapters);
  if (request.tensor_parallel && model.heads % *request.tensor_parallel != 0) {
    throw UsageError(fmt::format("--tp {} does not divide {}'s {} attention heads: give a divisor of {}",
                                 *request.tensor_parallel, model.name, model.heads, model.heads));
  }
  if (request.pipeline_parallel && *request.pipeline_parallel > model.layers) {
    throw UsageError(fmt::format("--pp {} is more stages than {}'s {} layers: give at most {}",
                                 *request.pipeline_parallel, model.name, model.layers, model.layers));
  }
  if (request.context_parallel && request.seq_len % *request.context_parallel != 0) {
    throw UsageError(fmt::format("--cp {} does not divide --seq-len {}: each GPU holds the same share of a sequence",
                                 *request.context_parallel, request.seq_len));
  }
  const std::int64_t product = std::int64_t{request.tensor_parallel.value_or(1)} *
                               request.pipeline_parallel.value_or(1) * request.context_parallel.value_or(1) *
                               request.data_parallel.value_or(1);
  if (product > request.max_gpus) {
    throw UsageError(
        fmt::format("the degrees given need at least {} GPUs, more than --max-gpus {}", product, request.max_gpus));
  }
  const int fixed = static_cast<int>(product);
  if (request.count && *request.count % fixed != 0) {
    throw UsageError(
        fmt::format("the degrees given (--tp x --pp x --cp x --dp = {}) do not divide --count {}: give a "
                    "count that is a multiple of them, or fewer degrees",
                    fixed, *request.count));
  }
  const bool all = request.data_parallel &&
                   (adapters || (request.tensor_parallel && request.pipeline_parallel && request.context_parallel));
  if (request.count && all && *request.count != fixed) {
    throw UsageError(
        fmt::format("--tp x --pp x --cp x --dp = {} GPUs, not --count {}: give one of them", fixed, *request.count));
  }
  // The degrees left to the search are powers of two: what the count leaves
  // them must be one.
  const int rest = request.count ? *request.count / fixed : 1;
  if (!all && !adapters && (rest & (rest - 1)) != 0) {
    throw UsageError(
        fmt::format("--count {} over the degrees given ({}) leaves {} GPUs to the searched degrees, which "
                    "are powers of two: give the others (--tp, --pp, --cp, --dp) to make up {}",
                    *request.count, fixed, rest, rest));
  }
  // Training's experts spread over the data- and context-parallel ranks
  // (context parallelism is 1 unless given, as for sequences under 32K).
  if (request.expert_parallel && (request.data_parallel || request.count)) {
    const int ep = *request.expert_parallel;
    const int split = request.tensor_parallel.value_or(1) * request.pipeline_parallel.value_or(1);
    const int ranks =
        request.data_parallel ? *request.data_parallel * request.context_parallel.value_or(1) : *request.count / split;
    if (ranks % ep != 0) {
      throw UsageError(
          fmt::format("--ep {} does not divide the {} data- and context-parallel ranks the experts "
                      "spread over: give an --ep that divides them, or more --dp or --cp",
                      ep, ranks));
    }
  }
  if (all && !request.count) {
    request.count = fixed;  // every degree given: the count follows
  }
}

// The checks that take more than one flag: a count over the cluster limit,
// more sequences than the scheduler runs, a window past the model's context,
// a flag of another kind of task, the owning flags without --mode buy.
void check_combinations(const Flags& flags, const ModelShape& model, Request& request) {
  if (request.count && *request.count > request.max_gpus) {
    request.max_gpus = *request.count;
  }
  if (request.concurrency && request.max_batch && *request.concurrency > *request.max_batch) {
    throw UsageError(
        fmt::format("--concurrency {} is more than --max-batch {}, the scheduler's limit on running "
                    "sequences: raise --max-batch, or serve fewer at once",
                    *request.concurrency, *request.max_batch));
  }
  if (request.copies && request.count && *request.count % *request.copies != 0) {
    throw UsageError(
        fmt::format("--copies {} does not divide --count {}: each copy takes the same number of GPUs; "
                    "give a count that is a multiple of the copies",
                    *request.copies, *request.count));
  }
  check_expert_parallel(model, request);
  if (is_training(request.task)) {
    check_fixed_layout(model, request);
  }
  const int window = is_training(request.task) ? request.seq_len : request.context;
  // Past the native window only where the model's authors document rope
  // scaling to reach it (serving: scaled_context); training stays within it.
  const int reach = !is_training(request.task) && model.scaled_context > 0 ? model.scaled_context : model.max_context;
  if (model.max_context > 0 && window > reach) {
    const char* flag = is_training(request.task) ? "--seq-len" : "--context";
    throw UsageError(
        reach > model.max_context
            ? fmt::format("{}: {} tokens is more than {} reaches: {} natively, {} with the rope scaling (YaRN) its "
                          "authors document",
                          flag, window, model.name, model.max_context, reach)
        : is_training(request.task)
            ? fmt::format("{}: {} tokens is more than {}'s maximum context of {}", flag, window, model.name,
                          model.max_context)
            : fmt::format("{}: {} tokens is more than {}'s maximum context of {}, and it documents no rope scaling "
                          "past it; to serve a longer window, give --model-config with a config.json whose "
                          "rope_scaling extends it (YaRN factor and original_max_position_embeddings)",
                          flag, window, model.name, model.max_context));
  }
  // The context holds the prompt and the output: at least one prompt token.
  if (request.task == Task::inference && request.output_tokens >= request.context) {
    throw UsageError(
        flags.output_tokens.empty()
            ? fmt::format("--context {} leaves no room for the default {} output tokens (the context holds the prompt "
                          "and the output): give --output-tokens below {}, or a larger --context",
                          request.context, request.output_tokens, request.context)
            : fmt::format("--output-tokens {} does not fit in --context {}: the context holds the prompt and the "
                          "output, so give --output-tokens below {}, or a larger --context",
                          request.output_tokens, request.context, request.context));
  }
  // --optimizer-in-backward updates each layer in its backward pass, so a
  // step cannot accumulate gradients over micro-batches (torchtune refuses
  // optimizer_in_bwd with gradient_accumulation_steps > 1): the global batch
  // is one micro-batch on every data-parallel GPU.
  if (request.optimizer_in_backward && request.global_batch) {
    throw UsageError(
        "--optimizer-in-backward updates the weights in every backward pass, so a step cannot accumulate gradients "
        "(torchtune refuses optimizer_in_bwd with gradient accumulation): its global batch is --micro-batch on every "
        "data-parallel GPU; drop --global-batch, or --optimizer-in-backward");
  }
  // Flags of another kind of task: the table says which flag belongs where.
  if (const auto training = given_in(flags, FlagScope::training);
      request.task == Task::inference && !training.empty()) {
    throw UsageError(fmt::format("{} {} to training tasks, not inference", join_and(training), applies(training)));
  }
  if (const auto inference = given_in(flags, FlagScope::inference); is_training(request.task) && !inference.empty()) {
    throw UsageError(fmt::format("{} {} to inference; for training use --seq-len and --micro-batch (and --fp8)",
                                 join_and(inference), applies(inference)));
  }
  if (const auto lora = given_in(flags, FlagScope::lora);
      request.task != Task::lora && request.task != Task::qlora && !lora.empty()) {
    throw UsageError(fmt::format("{} {} to --task lora or qlora", join_and(lora), applies(lora)));
  }
  const bool owning_flags =
      !flags.condition.empty() || !flags.years.empty() || !flags.utilization.empty() || !flags.power_price.empty();
  if (owning_flags && request.mode != CostMode::buy) {
    throw UsageError(
        "--condition, --years, --utilization and --power-price describe owning: give them with --mode buy");
  }
}

}  // namespace

Request to_request(const Flags& flags, const Catalog& catalog, const ModelShape& model) {
  if (flags.task.empty()) {
    throw UsageError("--task is required: pretrain, full, lora, qlora or inference");
  }
  Request request;
  request.params = model.params;
  request.model_id = model.id;
  request.model_config = flags.model_config;
  if (model.source == ModelSource::inferred && model.active_params != model.params) {
    request.active_params = model.active_params;
  }
  request.configured = flags.configured;
  request.price_files = flags.priced_by;
  request.calibrations = flags.calibrated;
  const RequestInputs inputs{flags, catalog, model};
  for (const bool first : {true, false}) {
    if (!first) {
      values::settle_currency(flags, catalog, request);
    }
    for (const auto& spec : flag_table()) {
      if (spec.apply != nullptr && read_first(spec) == first) {
        apply_given(spec, inputs, request);
      }
    }
  }
  if (flags.compact) {
    request.top = 1;  // --compact shows the top plan only: the rest is not worded
  }
  check_combinations(flags, model, request);
  return request;
}

}  // namespace gpu_advise::cli
