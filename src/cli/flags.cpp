#include "flags.hpp"

#include <algorithm>

namespace gpu_advise::cli {

OutputFormat parse_format(const std::string& raw) {
  const std::string folded = text::to_lower(raw);
  if (folded == "md") {
    return OutputFormat::markdown;
  }
  if (const auto format = enum_from_string<OutputFormat>(folded)) {
    return *format;
  }
  std::string message =
      fmt::format("--format: '{}' is not a format; expected text, json, markdown (or md) or html", text::excerpt(raw));
  if (const auto suggestion = text::did_you_mean(raw, {"text", "json", "markdown", "html"})) {
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

Request to_request(const Flags& flags, const Catalog& catalog, const ModelShape& model) {
  Request request;
  request.params = model.params;
  request.model_id = model.id;
  request.model_config = flags.model_config;
  if (model.source == ModelSource::inferred && model.active_params != model.params) {
    request.active_params = model.active_params;
  }
  if (flags.task.empty()) {
    throw UsageError("--task is required: pretrain, full, lora, qlora or inference");
  }
  request.task = parse_task(flags.task, "--task");
  const BudgetChoice budget = parse_budget_choice(flags.budget, "--budget");
  request.budget = budget.tier;
  request.budget_usd = budget.usd;
  if (!flags.region.empty()) {
    request.region = parse_choice<Region>(flags.region, "--region");
  }
  request.explain = flags.explain;
  for (const auto& query : flags.gpus) {
    try {
      const std::string& id = catalog.resolve(query).id;
      if (std::find(request.gpu_ids.begin(), request.gpu_ids.end(), id) == request.gpu_ids.end()) {
        request.gpu_ids.push_back(id);
      }
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--gpu: {}", e.what()));
    }
  }
  auto integer = [](const std::string& raw, std::string_view flag, std::int64_t max) {
    return wrap(flag, [&] { return static_cast<int>(parse_positive_integer(raw, max)); });
  };
  if (!flags.count.empty()) {
    request.count = integer(flags.count, "--count", max_count);
  }
  if (!flags.top.empty()) {
    request.top = integer(flags.top, "--top", max_top);
  }
  if (!flags.max_gpus.empty()) {
    request.max_gpus = integer(flags.max_gpus, "--max-gpus", 1'000'000);
  }
  if (request.count && *request.count > request.max_gpus) {
    request.max_gpus = *request.count;
  }

  // Training.
  if (!flags.seq_len.empty()) {
    request.seq_len = integer(flags.seq_len, "--seq-len", 10'000'000);
  }
  if (!flags.micro_batch.empty()) {
    request.micro_batch = integer(flags.micro_batch, "--micro-batch", 65536);
  }
  if (!flags.zero.empty()) {
    const std::string zero(text::trim(flags.zero));
    if (zero.size() != 1 || zero[0] < '0' || zero[0] > '3') {
      throw UsageError(
          fmt::format("--zero: '{}' is not a ZeRO stage; expected 0, 1, 2 or 3", text::excerpt(flags.zero)));
    }
    request.zero_stage = zero[0] - '0';
  }
  if (!flags.recompute.empty()) {
    request.recompute = parse_choice<Recompute>(flags.recompute, "--recompute");
  }
  if (!flags.lora_rank.empty()) {
    request.lora_rank = integer(flags.lora_rank, "--lora-rank", 65536);
  }
  if (!flags.lora_targets.empty()) {
    request.lora_targets = parse_lora_targets(flags.lora_targets, "--lora-targets");
  }
  if (!flags.optimizer.empty()) {
    request.optimizer = parse_choice<Optimizer>(flags.optimizer, "--optimizer");
  }
  if (!flags.tokens.empty()) {
    request.tokens = wrap("--tokens", [&] { return parse_parameter_count(flags.tokens); });
  }
  if (!flags.epochs.empty()) {
    request.epochs = wrap("--epochs", [&] { return parse_positive_number(flags.epochs, 10000); });
  }
  request.fp8_training = flags.fp8;
  if (!flags.deadline.empty()) {
    request.deadline_hours = wrap("--deadline", [&] { return parse_duration_hours(flags.deadline); });
  }

  // Inference.
  if (!flags.precision.empty()) {
    request.precision = parse_choice<InferencePrecision>(flags.precision, "--precision");
  }
  if (!flags.kv_precision.empty()) {
    request.kv_precision = parse_choice<KvPrecision>(flags.kv_precision, "--kv-precision");
  }
  if (!flags.context.empty()) {
    request.context = integer(flags.context, "--context", 100'000'000);
  }
  if (!flags.output_tokens.empty()) {
    request.output_tokens = integer(flags.output_tokens, "--output-tokens", 100'000'000);
  }
  if (!flags.concurrency.empty()) {
    request.concurrency = integer(flags.concurrency, "--concurrency", 1'000'000);
  }
  const int window = is_training(request.task) ? request.seq_len : request.context;
  if (model.max_context > 0 && window > model.max_context) {
    throw UsageError(fmt::format("{}: {} tokens is more than {}'s maximum context of {}",
                                 is_training(request.task) ? "--seq-len" : "--context", window, model.name,
                                 model.max_context));
  }
  const bool training_flags = !flags.seq_len.empty() || !flags.micro_batch.empty() || !flags.zero.empty() ||
                              !flags.recompute.empty() || !flags.tokens.empty() || !flags.epochs.empty() || flags.fp8 ||
                              !flags.deadline.empty();
  const bool inference_flags = !flags.precision.empty() || !flags.kv_precision.empty() || !flags.context.empty() ||
                               !flags.output_tokens.empty() || !flags.concurrency.empty();
  if (request.task == Task::inference && training_flags) {
    throw UsageError(
        "--seq-len, --micro-batch, --zero, --recompute, --tokens, --epochs, --fp8 and --deadline apply "
        "to training tasks, not inference");
  }
  if (is_training(request.task) && inference_flags) {
    throw UsageError(
        "--precision, --kv-precision, --context, --output-tokens and --concurrency apply to inference; "
        "for training use --seq-len and --micro-batch (and --fp8)");
  }
  if ((!flags.lora_rank.empty() || !flags.lora_targets.empty()) && request.task != Task::lora &&
      request.task != Task::qlora) {
    throw UsageError("--lora-rank and --lora-targets apply to --task lora or qlora");
  }
  if (!flags.optimizer.empty() && request.task == Task::inference) {
    throw UsageError("--optimizer applies to training tasks, not inference");
  }

  // Cost.
  if (!flags.mode.empty()) {
    request.mode = parse_choice<CostMode>(flags.mode, "--mode");
  }
  std::vector<std::string> price_entries;  // as typed, beside request.prices
  for (const auto& entry : flags.prices) {
    const auto equals = entry.find('=');
    if (equals == std::string::npos) {
      throw UsageError(
          fmt::format("--price: '{}' is not ID=USD_PER_GPU_HOUR, e.g. --price h100-sxm5=2.10", text::excerpt(entry)));
    }
    PriceOverride price;
    try {
      price.gpu_id = catalog.resolve(entry.substr(0, equals)).id;
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--price: {}", e.what()));
    }
    price.usd_per_gpu_hour = wrap("--price", [&] { return parse_positive_number(entry.substr(equals + 1), 10000); });
    const auto same_card = std::find_if(request.prices.begin(), request.prices.end(),
                                        [&](const PriceOverride& p) { return p.gpu_id == price.gpu_id; });
    if (same_card == request.prices.end()) {
      request.prices.push_back(price);
      price_entries.push_back(entry);
    } else if (same_card->usd_per_gpu_hour != price.usd_per_gpu_hour) {
      const auto first = price_entries[static_cast<std::size_t>(same_card - request.prices.begin())];
      throw UsageError(fmt::format("--price: '{}' and '{}' both price {}; give one price per card",
                                   text::excerpt(first), text::excerpt(entry), price.gpu_id));
    }
  }
  return request;
}

}  // namespace gpu_advise::cli
