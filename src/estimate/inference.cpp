// Serving: decode throughput and time per token, bounded by memory bandwidth
// or compute, and time to first token (docs/methodology.md §7).
#include <algorithm>
#include <cmath>
#include <utility>

#include "estimate/parts.hpp"

namespace gpu_advise::sizing {

namespace {

// Decode reaches less of the peak bandwidth with quantised weights: the
// kernels dequantise as they read (gpt-fast int8/int4 on A100, docs/validation.md).
double decode_precision_factor(InferencePrecision precision) {
  switch (precision) {
    case InferencePrecision::bf16:
    case InferencePrecision::fp8: return 1.0;
    case InferencePrecision::int8: return 0.95;
    case InferencePrecision::int4: return 0.70;
  }
  return 1.0;
}

double inference_peak_tflops(const Request& request, const GpuSpec& gpu) {
  if (request.precision == InferencePrecision::fp8 && gpu.compute.fp8_tflops) {
    return *gpu.compute.fp8_tflops;
  }
  return gpu.compute.bf16_tflops;  // weight-only INT8/INT4 compute in BF16
}

// Seconds per decode step for `batch` sequences, at bandwidth efficiency `eta`.
double decode_step_s(const Request& request, const ModelShape& model, const GpuSpec& gpu, const Layout& layout,
                     const MemoryBreakdown& memory, double batch, double eta) {
  const double kv_value_bytes = request.kv_precision == KvPrecision::fp8 ? 1.0 : 2.0;
  // Average tokens in a sequence's cache while it decodes: the prompt plus half the output.
  const double average_tokens = request.prompt_tokens() + request.effective_output_tokens() / 2.0;
  const double kv_split =
      (model.mla ? 1.0 : std::min<double>(layout.tensor, std::max(model.kv_heads, 1))) * layout.pipeline;
  const double kv_read = model.kv_bytes(average_tokens, kv_value_bytes) * batch / kv_split;
  const double memory_s = (memory.weights + kv_read) /
                          (gpu.memory.bandwidth_gb_per_s * 1e9 * eta * decode_precision_factor(request.precision));
  const double compute_s = 2.0 * model.active_params * batch /
                           (static_cast<double>(layout.gpus()) * inference_peak_tflops(request, gpu) * 1e12 *
                            gpu.efficiency.prefill_compute.typical);
  // Two all-reduces per layer under tensor parallelism: latency-bound at small batch.
  const double allreduce_s = gpu.interconnect.domain_size >= 2 ? 8e-6 : 25e-6;
  const double comm_s = layout.tensor > 1 ? 2.0 * model.layers / layout.pipeline * allreduce_s : 0.0;
  // Pipeline stages run one after another for a token.
  return layout.pipeline * (std::max(memory_s, compute_s) + comm_s);
}

}  // namespace

InferenceEstimate inference_performance(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                        const Layout& layout, const MemoryBreakdown& memory, double usable) {
  InferenceEstimate inf;
  inf.concurrency = request.concurrency;
  inf.context = request.context;
  inf.prompt_tokens = request.prompt_tokens();
  inf.output_tokens = request.effective_output_tokens();
  const double per_sequence = memory.kv_cache / std::max(request.concurrency, 1);
  const double free_bytes = usable - memory.weights - memory.reserve;
  inf.max_concurrency = per_sequence > 0 ? static_cast<int>(std::floor(free_bytes / per_sequence)) : 0;
  // The scheduler runs at most max_batch sequences (vLLM's max_num_seqs).
  inf.max_concurrency = std::min(inf.max_concurrency, request.max_batch);
  inf.max_concurrency = std::max(inf.max_concurrency, request.concurrency);

  const Range& eta = gpu.efficiency.decode_bandwidth;
  auto throughput = [&](double batch) {
    const double slow = decode_step_s(request, model, gpu, layout, memory, batch, eta.low);
    const double typical = decode_step_s(request, model, gpu, layout, memory, batch, eta.typical);
    const double fast = decode_step_s(request, model, gpu, layout, memory, batch, eta.high);
    return std::pair<Range, Range>{Range{batch / slow, batch / typical, batch / fast},
                                   Range{fast * 1e3, typical * 1e3, slow * 1e3}};
  };
  std::tie(inf.tokens_per_s, inf.tpot_ms) = throughput(request.concurrency);
  inf.max_tokens_per_s = throughput(inf.max_concurrency).first;

  // Prefill of one prompt: 2*N_active FLOPs per token plus causal attention
  // 2*L*(a*d_h)*prompt^2, compute-bound over the tensor-parallel group.
  const double prompt = request.prompt_tokens();
  const double width =
      model.mla ? static_cast<double>(model.heads) * (model.mla->qk_nope_head_dim + model.mla->qk_rope_head_dim)
                : static_cast<double>(model.heads) * model.head_dim;
  const double flops = 2.0 * model.active_params * prompt + 2.0 * model.layers * width * prompt * prompt;
  const double peak = inference_peak_tflops(request, gpu) * 1e12 * layout.tensor;
  const double read_s = memory.weights * layout.pipeline / (gpu.memory.bandwidth_gb_per_s * 1e9 * eta.typical);
  const Range& c = gpu.efficiency.prefill_compute;
  auto ttft = [&](double efficiency) { return std::max(flops / (peak * efficiency), read_s) * 1e3; };
  inf.ttft_ms = {ttft(c.high), ttft(c.typical), ttft(c.low)};
  return inf;
}

}  // namespace gpu_advise::sizing
