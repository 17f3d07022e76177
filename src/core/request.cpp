#include "gpu_advise/request.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpu_advise/error.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"

namespace gpu_advise {

std::span<const EnumName<Task>> names(Task) {
  static constexpr EnumName<Task> table[] = {{Task::pretrain, "pretrain"},
                                             {Task::full, "full"},
                                             {Task::lora, "lora"},
                                             {Task::qlora, "qlora"},
                                             {Task::inference, "inference"}};
  return table;
}

std::span<const EnumName<BudgetTier>> names(BudgetTier) {
  static constexpr EnumName<BudgetTier> table[] = {
      {BudgetTier::low, "low"}, {BudgetTier::medium, "medium"}, {BudgetTier::high, "high"}};
  return table;
}

std::span<const TaskAlias> task_aliases() {
  static constexpr TaskAlias table[] = {
      {"pretrain", Task::pretrain},   {"pretraining", Task::pretrain},
      {"pre-train", Task::pretrain},  {"full", Task::full},
      {"full-ft", Task::full},        {"finetune", Task::full},
      {"fine-tune", Task::full},      {"sft", Task::full},
      {"lora", Task::lora},           {"qlora", Task::qlora},
      {"inference", Task::inference}, {"infer", Task::inference},
      {"serve", Task::inference},     {"serving", Task::inference},
  };
  return table;
}

Task parse_task(std::string_view raw, std::string_view flag) {
  const std::string folded = text::to_lower(text::trim(raw));
  std::vector<std::string> all;
  for (const auto& [alias, task] : task_aliases()) {
    if (alias == folded) {
      return task;
    }
    all.emplace_back(alias);
  }
  std::string message = fmt::format(
      "{}: '{}' is not a task; expected pretrain, full, lora, qlora or inference "
      "(aliases: sft/finetune = full, serve = inference)",
      flag, text::excerpt(raw));
  if (const auto suggestion = text::did_you_mean(folded, all)) {
    message += fmt::format("; did you mean '{}'?", *suggestion);
  }
  throw UsageError(message);
}

BudgetTier parse_budget(std::string_view raw, std::string_view flag) {
  const std::string folded = text::to_lower(text::trim(raw));
  if (const auto tier = enum_from_string<BudgetTier>(folded)) {
    return *tier;
  }
  std::string message =
      fmt::format("{}: '{}' is not a budget tier; expected low, medium or high", flag, text::excerpt(raw));
  if (const auto suggestion = text::did_you_mean(folded, {"low", "medium", "high"})) {
    message += fmt::format("; did you mean '{}'?", *suggestion);
  }
  throw UsageError(message);
}

std::span<const EnumName<Recompute>> names(Recompute) {
  static constexpr EnumName<Recompute> table[] = {
      {Recompute::full, "full"}, {Recompute::selective, "selective"}, {Recompute::none, "none"}};
  return table;
}

std::span<const EnumName<InferencePrecision>> names(InferencePrecision) {
  static constexpr EnumName<InferencePrecision> table[] = {{InferencePrecision::bf16, "bf16"},
                                                           {InferencePrecision::fp8, "fp8"},
                                                           {InferencePrecision::int8, "int8"},
                                                           {InferencePrecision::int4, "int4"},
                                                           {InferencePrecision::fp4, "fp4"}};
  return table;
}

std::span<const EnumName<KvPrecision>> names(KvPrecision) {
  static constexpr EnumName<KvPrecision> table[] = {
      {KvPrecision::bf16, "bf16"}, {KvPrecision::fp8, "fp8"}, {KvPrecision::fp4, "fp4"}};
  return table;
}

std::span<const EnumName<CostMode>> names(CostMode) {
  static constexpr EnumName<CostMode> table[] = {{CostMode::rent, "rent"}, {CostMode::buy, "buy"}};
  return table;
}

std::span<const EnumName<Optimizer>> names(Optimizer) {
  static constexpr EnumName<Optimizer> table[] = {{Optimizer::adamw, "adamw"},
                                                  {Optimizer::adamw_bf16, "adamw-bf16"},
                                                  {Optimizer::adamw_8bit, "adamw-8bit"},
                                                  {Optimizer::adamw_8bit_bf16, "adamw-8bit-bf16"}};
  return table;
}

std::span<const EnumName<Offload>> names(Offload) {
  static constexpr EnumName<Offload> table[] = {
      {Offload::none, "none"}, {Offload::optimizer, "optimizer"}, {Offload::optimizer_params, "optimizer+params"}};
  return table;
}

std::span<const EnumName<Loss>> names(Loss) {
  static constexpr EnumName<Loss> table[] = {{Loss::full, "full"}, {Loss::chunked, "chunked"}, {Loss::fused, "fused"}};
  return table;
}

std::span<const EnumName<Stack>> names(Stack) {
  static constexpr EnumName<Stack> table[] = {{Stack::hf, "hf"},
                                              {Stack::torchtune, "torchtune"},
                                              {Stack::unsloth, "unsloth"},
                                              {Stack::litgpt, "litgpt"},
                                              {Stack::torchtitan, "torchtitan"},
                                              {Stack::megatron, "megatron"},
                                              {Stack::deepspeed, "deepspeed"}};
  return table;
}

std::span<const EnumName<PipelineSchedule>> names(PipelineSchedule) {
  static constexpr EnumName<PipelineSchedule> table[] = {{PipelineSchedule::one_f_one_b, "1f1b"},
                                                         {PipelineSchedule::interleaved, "interleaved"},
                                                         {PipelineSchedule::dualpipe, "dualpipe"}};
  return table;
}

std::span<const EnumName<LoraTarget>> names(LoraTarget) {
  static constexpr EnumName<LoraTarget> table[] = {
      {LoraTarget::q, "q"},       {LoraTarget::k, "k"},   {LoraTarget::v, "v"},      {LoraTarget::o, "o"},
      {LoraTarget::gate, "gate"}, {LoraTarget::up, "up"}, {LoraTarget::down, "down"}};
  return table;
}

TrainingBytes training_bytes(Optimizer optimizer) {
  switch (optimizer) {
    // ZeRO paper (arXiv 1910.02054): BF16 weights 2 + gradients 2 + FP32 master, m, v 12.
    case Optimizer::adamw: return {2, 2, 12};
    // Pure BF16: weights, gradients and both moments in BF16 (torchtune's default).
    case Optimizer::adamw_bf16: return {2, 2, 4};
    // 8-bit Adam (Dettmers et al., arXiv 2110.02861): 2 bytes of moments + FP32 master 4.
    case Optimizer::adamw_8bit: return {2, 2, 6};
    // 8-bit states on BF16 weights, no master copy (torchtune's single-GPU recipe).
    case Optimizer::adamw_8bit_bf16: return {2, 2, 2};
  }
  return {2, 2, 12};
}

std::vector<LoraTarget> parse_lora_targets(std::string_view raw, std::string_view flag) {
  const std::string text = text::to_lower(text::trim(raw));
  if (text == "all") {
    return {std::begin(all_lora_targets), std::end(all_lora_targets)};
  }
  if (text == "attention") {
    return {LoraTarget::q, LoraTarget::k, LoraTarget::v, LoraTarget::o};
  }
  if (text == "mlp") {
    return {LoraTarget::gate, LoraTarget::up, LoraTarget::down};
  }
  std::vector<LoraTarget> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string item(text::trim(
        std::string_view(text).substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    const auto target = enum_from_string<LoraTarget>(item);
    if (!target) {
      std::string message = fmt::format(
          "{}: '{}' is not a layer; expected all, attention, mlp or a list of q, k, v, "
          "o, gate, up, down (e.g. q,v)",
          flag, item);
      if (const auto suggestion = text::did_you_mean(item, enum_names<LoraTarget>())) {
        message += fmt::format("; did you mean '{}'?", *suggestion);
      }
      throw UsageError(message);
    }
    if (std::find(out.begin(), out.end(), *target) == out.end()) {
      out.push_back(*target);
    }
    if (comma == std::string::npos) {
      break;
    }
    start = comma + 1;
  }
  return out;
}

std::optional<MoneyAmount> parse_money_amount(std::string_view raw, double limit) {
  const std::string folded = text::to_lower(text::trim(raw));
  std::string_view amount = folded;
  std::optional<Currency> currency;
  auto strip_prefix = [&](std::string_view prefix, Currency c) {
    if (!currency && amount.substr(0, prefix.size()) == prefix) {
      amount.remove_prefix(prefix.size());
      currency = c;
    }
  };
  auto strip_suffix = [&](std::string_view suffix, Currency c) {
    if (!currency && amount.size() > suffix.size() && amount.substr(amount.size() - suffix.size()) == suffix) {
      amount.remove_suffix(suffix.size());
      currency = c;
    }
  };
  strip_prefix("$", Currency::usd);
  strip_prefix("\xc2\xa5", Currency::cny);      // ¥ (U+00A5)
  strip_prefix("\xef\xbf\xa5", Currency::cny);  // U+FFE5, the full-width yen sign
  strip_suffix("usd", Currency::usd);
  strip_suffix("cny", Currency::cny);
  strip_suffix("rmb", Currency::cny);
  strip_suffix("\xe5\x85\x83", Currency::cny);  // U+5143, yuan
  amount = text::trim(amount);
  double multiplier = 1;
  if (!amount.empty() && (amount.back() == 'k' || amount.back() == 'm')) {
    multiplier = amount.back() == 'k' ? 1e3 : 1e6;
    amount.remove_suffix(1);
  }
  const bool numeric = !amount.empty() && std::all_of(amount.begin(), amount.end(),
                                                      [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
  if (!numeric) {
    return std::nullopt;
  }
  try {
    const double value = parse_positive_number(amount, limit) * multiplier;
    if (value <= limit) {
      return MoneyAmount{value, currency};
    }
  } catch (const QuantityError&) {
    return std::nullopt;
  }
  // The limit holds for the amount meant, not for the digits typed.
  throw QuantityError(fmt::format("'{}' is more than {:.0f}", text::excerpt(raw), limit));
}

BudgetChoice parse_budget_choice(std::string_view raw, std::string_view flag) {
  const std::string folded = text::to_lower(text::trim(raw));
  if (const auto tier = enum_from_string<BudgetTier>(folded)) {
    return BudgetChoice{*tier, std::nullopt};
  }
  try {
    if (const auto amount = parse_money_amount(raw, 1e12)) {
      return BudgetChoice{BudgetTier::medium, amount};
    }
  } catch (const QuantityError& e) {
    throw UsageError(fmt::format("{}: {}", flag, e.what()));
  }
  std::string message = fmt::format(
      "{}: '{}' is neither a budget tier (low, medium, high) nor an amount (50k, 50000usd, $1.2M, 350k cny)", flag,
      text::excerpt(raw));
  if (const auto suggestion = text::did_you_mean(folded, {"low", "medium", "high"})) {
    message += fmt::format("; did you mean '{}'?", *suggestion);
  }
  throw UsageError(message);
}

double Request::training_tokens() const {
  switch (task) {
    case Task::pretrain: return tokens.value_or(pretrain_tokens_per_param * params) * epochs;
    case Task::full:
    case Task::lora:
    case Task::qlora: return tokens.value_or(fine_tune_tokens) * epochs;
    case Task::inference: return 0;
  }
  return 0;
}

Recompute Request::effective_recompute() const {
  if (recompute) {
    return *recompute;
  }
  return task == Task::pretrain ? Recompute::selective : Recompute::full;
}

namespace {
// Global batch defaults (docs/methodology.md §3.1): Llama 2's 4M tokens a step
// (arXiv 2307.09288 §2.2); from 100B parameters 16M, where Llama 3 405B ran
// most of its 15T tokens (arXiv 2407.21783 §3.4.1: 4M, then 8M, then 16M);
// fine-tuning 128 sequences (Alpaca, Vicuna).
constexpr double pretrain_batch_tokens = 4194304;
constexpr double large_pretrain_batch_tokens = 16777216;
constexpr double large_pretrain_params = 100e9;
constexpr int fine_tune_batch_sequences = 128;
}  // namespace

int Request::effective_global_batch() const {
  if (global_batch) {
    return *global_batch;
  }
  if (task == Task::pretrain) {
    const double step_tokens = params >= large_pretrain_params ? large_pretrain_batch_tokens : pretrain_batch_tokens;
    return std::max(1, static_cast<int>(step_tokens / seq_len));
  }
  return fine_tune_batch_sequences;
}

Stack Request::effective_stack() const {
  if (stack) {
    return *stack;
  }
  return task == Task::lora || task == Task::qlora ? Stack::hf : Stack::megatron;
}

Loss Request::effective_loss() const {
  if (loss) {
    return *loss;
  }
  switch (effective_stack()) {
    case Stack::hf:
    case Stack::deepspeed: return Loss::full;
    case Stack::torchtune:
    case Stack::unsloth:
    case Stack::litgpt: return Loss::chunked;
    case Stack::torchtitan:
    case Stack::megatron: return Loss::fused;
  }
  return Loss::fused;
}

std::optional<double> Request::effective_deadline_hours() const {
  if (deadline_hours) {
    return deadline_hours;
  }
  if (task == Task::pretrain && !count) {
    return pretrain_default_deadline_hours;
  }
  return std::nullopt;
}

int Request::effective_output_tokens() const { return std::max(1, std::min(output_tokens, context - 1)); }

}  // namespace gpu_advise
