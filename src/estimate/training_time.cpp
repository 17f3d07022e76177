// Training time: model FLOPs over the achieved FLOP rate (docs/methodology.md §6).
#include <algorithm>
#include <cmath>

#include "estimate/parts.hpp"

namespace gpu_advise::sizing {

TrainingEstimate training_time(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                               const Layout& layout, const ScaleOut& out, std::vector<EstimateNote>& notes) {
  TrainingEstimate t;
  t.tokens = request.training_tokens();
  // 6*N_active*D plus attention 12*L*(a*d_h)*s per token (PaLM, arXiv 2204.02311 app. B).
  const double per_token = 6.0 * model.active_params + model.attention_training_flops_per_token(request.seq_len);
  t.flops = per_token * t.tokens;
  Range mfu = gpu.efficiency.training_mfu;
  if (request.task == Task::lora || request.task == Task::qlora) {
    t.flops *= 2.0 / 3.0;  // no weight gradients for the frozen base
    mfu = gpu.efficiency.fine_tune_mfu;
    if (request.task == Task::qlora) {
      t.flops *= qlora_slowdown;  // dequantisation, counted as extra work
    }
  }
  t.peak_tflops = gpu.compute.bf16_tflops;
  if (request.fp8_training) {
    if (gpu.compute.fp8_tflops) {
      t.fp8 = true;
      t.peak_tflops = *gpu.compute.fp8_tflops;
      mfu = scale(mfu, fp8_mfu_factor);
    } else {
      notes.push_back(EstimateNote{EstimateNote::Kind::fp8_fallback, 0, 0});
    }
  }
  t.mfu = scale(mfu, layout_efficiency(gpu, layout, request.task) * out.factor);
  auto hours = [&](double m) { return t.flops / (t.peak_tflops * 1e12 * m) / 3600.0; };
  t.gpu_hours = {hours(t.mfu.high), hours(t.mfu.typical), hours(t.mfu.low)};
  t.wall_hours = scale(t.gpu_hours, 1.0 / layout.gpus());

  // Offload: every optimizer step sends the GPU's gradients to the host and
  // takes its weights back over PCIe (and, with the parameters offloaded, the
  // weights for the forward and the backward pass), and the host runs the
  // optimizer; counted without overlap (ZeRO-Offload overlaps some of it).
  if (request.offload != Offload::none) {
    const double tokens_per_step = static_cast<double>(batch_sequences(request)) * request.seq_len;
    const double steps = t.tokens / tokens_per_step;
    const bool adapters = request.task == Task::lora || request.task == Task::qlora;
    const double trained = adapters ? model.lora_params(request.lora_rank, request.lora_targets) : model.params;
    const double partition = trained / layout.gpus();
    double pcie_bytes = 4.0 * partition;  // BF16 gradients down, BF16 weights up
    if (request.offload == Offload::optimizer_params) {
      pcie_bytes += 2.0 * 2.0 * partition;  // the weights in for the forward and the backward pass
    }
    const double pcie = pcie_gb_per_s(gpu) * link_efficiency;
    const double per_server = partition * std::min(layout.gpus(), std::max(1, gpu.node.gpus_per_node));
    auto stall = [&](double host_gb_per_s) {
      const double seconds = pcie_bytes / (pcie * 1e9) + per_server * host_adam_bytes_per_param / (host_gb_per_s * 1e9);
      return steps * seconds / 3600.0;
    };
    t.offload_hours = {stall(host_memory_gb_per_s.high), stall(host_memory_gb_per_s.typical),
                       stall(host_memory_gb_per_s.low)};
    t.wall_hours = Range{t.wall_hours.low + t.offload_hours.low, t.wall_hours.typical + t.offload_hours.typical,
                         t.wall_hours.high + t.offload_hours.high};
    t.gpu_hours = scale(t.wall_hours, layout.gpus());
  }

  // Long runs lose time to restarts, checkpoints and evaluation: pretraining
  // (or any run given --goodput) takes wall time / goodput.
  if (request.task == Task::pretrain || request.goodput_stated) {
    t.goodput = request.goodput;
    t.wall_hours = scale(t.wall_hours, 1.0 / t.goodput);
  }
  return t;
}

}  // namespace gpu_advise::sizing
