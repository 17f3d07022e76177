// The estimator's parts, shared by its files and by the tests; not part of
// the public interface (include/gpu_advise/estimate.hpp is). One file per
// job: memory.cpp, layouts.cpp, count_search.cpp, training_time.cpp,
// inference.cpp, cost.cpp; estimate.cpp puts them together.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "gpu_advise/estimate.hpp"

namespace gpu_advise::sizing {

// Constants with their origin in docs/methodology.md.
inline constexpr double bytes_nf4_with_double_quant = 0.516;  // 4 + 0.127 bits (QLoRA paper)
inline constexpr double bytes_int8_weight = 1.02;             // int8 + per-channel scales
inline constexpr double bytes_int4_weight = 0.5625;           // 4 bits + FP16 scale and zero per 128 (AWQ/GPTQ)
inline constexpr double qlora_slowdown = 1.39;                // vs LoRA on the same card
inline constexpr double fp8_mfu_factor = 0.70;                // MFU against the FP8 peak, relative to BF16's
inline constexpr double full_recompute_factor = 0.85;         // recompute only the layers that must be
inline constexpr int gpus_per_node = 8;
inline constexpr double hours_per_month = 730.0;

[[nodiscard]] inline Range scale(const Range& r, double factor) {
  return {r.low * factor, r.typical * factor, r.high * factor};
}
[[nodiscard]] inline Range multiply(const Range& a, const Range& b) {
  return {a.low * b.low, a.typical * b.typical, a.high * b.high};
}

// ---- layouts (layouts.cpp) ----

// A layout that fits, with its memory and how much it is preferred.
struct Candidate {
  Layout layout;
  MemoryBreakdown memory;
  double preference = 0;
};

// What spreading `count` GPUs beyond the card's scale-up domain costs.
struct ScaleOut {
  double factor = 1.0;
  std::optional<EstimateNote> note;
};
[[nodiscard]] ScaleOut scale_out(const GpuSpec& gpu, int count);

// The layout's MFU factor: tensor parallelism over the card's link and, for
// full training, full recompute.
[[nodiscard]] double layout_efficiency(const GpuSpec& gpu, const Layout& layout, Task task);
// The efficiency, then (for ties) less model parallelism and a lower ZeRO stage.
[[nodiscard]] double layout_preference(const GpuSpec& gpu, const Layout& layout, Task task);

// The model-parallel shapes of a full-training job on this card, without their
// data-parallel size (data == 0) or recompute: tensor x pipeline x ZeRO stage,
// tensor x pipeline at most `limit` GPUs.
[[nodiscard]] std::vector<Layout> model_parallel_shapes(const Request& request, const ModelShape& model,
                                                        const GpuSpec& gpu, int limit);
// The recompute modes to try: the request's, or its task's norm then full.
[[nodiscard]] std::vector<Recompute> recompute_modes(const Request& request);
// A shape given its data-parallel size: n / (tensor x pipeline) GPUs.
[[nodiscard]] Layout with_count(const Request& request, const Layout& shape, int n);

// Every layout of `count` GPUs the request allows on this card.
[[nodiscard]] std::vector<Layout> layouts_for(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                              int count);
// The full-training families the count search bisects: every shape up to
// max_gpus, times the recompute modes.
[[nodiscard]] std::vector<Layout> training_families(const Request& request, const ModelShape& model,
                                                    const GpuSpec& gpu);

// ---- the count search (count_search.cpp) ----

// The GPU counts considered: 1, 2, 4, 8, then whole 8-GPU nodes.
[[nodiscard]] std::vector<int> candidate_counts(int max_gpus);

// The counts a family can use, in order: multiples of its model-parallel size
// among 1, 2, 4, 8, 16, 24, ... up to max_gpus.
class FamilyCounts {
 public:
  FamilyCounts(int unit, int max_gpus);
  [[nodiscard]] std::size_t size() const { return m_size; }
  [[nodiscard]] int operator[](std::size_t k) const {
    return k < m_small.size() ? m_small[k] : m_step * static_cast<int>(k - m_small.size() + 1);
  }

 private:
  int m_step;
  std::vector<int> m_small;
  std::size_t m_size = 0;
};

// What the search found: the smallest count that fits and meets the deadline,
// with its best layout; or, when none does, what the last count tried needed.
struct SearchResult {
  std::optional<Candidate> chosen;
  int count = 0;
  MemoryBreakdown smallest;                // the least memory of the layouts tried at the last failing count
  std::optional<TrainingEstimate> missed;  // a layout that fit but missed the deadline, when that was the blocker
  int last_count = 0;                      // the last failing count tried
};
[[nodiscard]] SearchResult search_count(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                        double usable_bytes);

// ---- time, throughput and cost ----

[[nodiscard]] TrainingEstimate training_time(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                             const Layout& layout, const ScaleOut& out,
                                             std::vector<EstimateNote>& notes);
[[nodiscard]] InferenceEstimate inference_performance(const Request& request, const ModelShape& model,
                                                      const GpuSpec& gpu, const Layout& layout,
                                                      const MemoryBreakdown& memory, double usable);
void add_costs(const Request& request, const GpuSpec& gpu, Estimate& e);

}  // namespace gpu_advise::sizing
