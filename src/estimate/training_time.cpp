// Training time: model FLOPs over the achieved FLOP rate (docs/methodology.md §6).
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
  return t;
}

}  // namespace gpu_advise::sizing
