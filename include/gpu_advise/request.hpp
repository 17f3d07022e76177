// The validated workload: what the user asked for, with every default made
// explicit. Built once from the command line (cli) and read by everything after.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_advise/gpu.hpp"

namespace gpu_advise {

enum class Task { pretrain, full, lora, qlora, inference };
enum class BudgetTier { low, medium, high };

[[nodiscard]] std::span<const EnumName<Task>> names(Task);
[[nodiscard]] std::span<const EnumName<BudgetTier>> names(BudgetTier);

// Human label: "pretraining", "full fine-tune", "LoRA fine-tune", ...
[[nodiscard]] std::string_view describe(Task task);

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

[[nodiscard]] constexpr bool is_training(Task task) { return task != Task::inference; }

struct Request {
  double params = 0;  // total parameters
  Task task = Task::inference;
  BudgetTier budget = BudgetTier::medium;
  std::vector<std::string> gpu_ids;  // only consider these card ids (resolved); empty = all
  std::optional<int> count;          // fix the number of cards
  std::optional<int> top;            // list at most this many recommendations

  // Workload assumptions. Each default is stated in the output's assumptions.
  int seq_len = 4096;                   // training sequence length
  int micro_batch = 1;                  // training micro-batch per GPU
  int lora_rank = 16;                   // LoRA / QLoRA adapter rank (PEFT, LLaMA-Factory default-ish)
  int context = 4096;                   // inference: tokens per sequence held in the KV cache
  int concurrency = 8;                  // inference: sequences served at once
  double fine_tune_tokens = 100e6;      // fine-tuning dataset, tokens x epochs
  double pretrain_tokens_per_param = 20;  // Chinchilla (arXiv 2203.15556)
  int max_gpus = 4096;                  // the largest cluster considered

  // Training tokens this request implies.
  [[nodiscard]] double training_tokens() const;
};

}  // namespace gpu_advise
