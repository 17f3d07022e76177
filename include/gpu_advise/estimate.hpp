// Sizing one workload on one card: memory per GPU, the number of GPUs, time or
// throughput, and cost, each uncertain figure as low / typical / high.
// Pure functions: no printing, no globals. Every formula and constant is in
// docs/methodology.md with its origin.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu_advise/gpu.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/request.hpp"

namespace gpu_advise {

// Bytes per GPU.
struct MemoryBreakdown {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  double kv_cache = 0;
  double reserve = 0;

  [[nodiscard]] double total() const { return weights + gradients + optimizer + activations + kv_cache + reserve; }
};

struct TrainingEstimate {
  double tokens = 0;
  double flops = 0;  // model FLOPs (6ND, 4ND for LoRA, x1.39 for QLoRA dequantisation)
  Range mfu;
  Range gpu_hours;
  Range wall_hours;
};

struct InferenceEstimate {
  int concurrency = 0;
  int context = 0;
  Range tokens_per_s;  // aggregate output tokens/s at `concurrency`
  Range tpot_ms;       // time per output token for each sequence
};

struct CostEstimate {
  std::optional<Range> rent_usd_per_gpu_hour;
  std::optional<Range> rent_usd;                   // training: whole run; inference: per hour of serving
  std::optional<Range> usd_per_million_tokens;     // inference only
  std::optional<Range> purchase_usd;               // cards only (no server, power or hosting)
};

struct Estimate {
  bool fits = false;
  int count = 0;               // GPUs
  int nodes = 0;               // 8-GPU servers (or 1 for fewer)
  std::string layout;          // how the work is split
  MemoryBreakdown per_gpu;     // bytes
  double capacity_bytes = 0;   // what the card reports
  double usable_bytes = 0;     // capacity x usable fraction
  std::optional<TrainingEstimate> training;
  std::optional<InferenceEstimate> inference;
  CostEstimate cost;
  std::string why_not;         // when !fits: the reason, in one sentence
  std::vector<std::string> notes;

  [[nodiscard]] double headroom() const { return usable_bytes > 0 ? 1.0 - per_gpu.total() / usable_bytes : 0.0; }
};

// Constants of the estimator (see docs/methodology.md for their origins).
namespace constants {
inline constexpr double usable_memory_fraction = 0.90;
inline constexpr double training_reserve_gib = 2.0;
inline constexpr double inference_reserve_gib = 3.5;
inline constexpr double bytes_model_states_mixed_adam = 16.0;  // 2 + 2 + 12 (ZeRO paper)
inline constexpr double bytes_lora_adapter_states = 16.0;       // fp32 weight 4 + grad 4 + Adam 8
inline constexpr double bytes_nf4_with_double_quant = 0.516;    // 4 + 0.127 bits (QLoRA paper)
inline constexpr double qlora_slowdown = 1.39;                  // vs LoRA on the same card
inline constexpr int gpus_per_node = 8;
}  // namespace constants

// The GPU counts considered: 1, 2, 4, 8, then whole 8-GPU nodes.
[[nodiscard]] std::vector<int> candidate_counts(int max_gpus);

// Memory per GPU for `count` GPUs.
[[nodiscard]] MemoryBreakdown memory_per_gpu(const Request& request, const ModelShape& model, int count);

// The full estimate for one card: the smallest count that fits (or
// request.count when fixed), then time or throughput and cost.
[[nodiscard]] Estimate estimate(const Request& request, const ModelShape& model, const GpuSpec& gpu);

}  // namespace gpu_advise
