// The estimator's use of a --calibration file (docs/calibration.md): which
// calibration a plan follows, and the measured peak's correction. The speed
// factors and bands are applied where the step models run (training_time.cpp,
// inference.cpp).
#include <algorithm>

#include "estimate/parts.hpp"
#include "gpu_advise/units.hpp"

namespace gpu_advise::sizing {

const Calibration* training_calibration(const Request& request, const GpuSpec& gpu) {
  if (request.calibrations.empty() || !is_training(request.task)) {
    return nullptr;
  }
  return find_calibration(request.calibrations, CalibrationKind::training, gpu.id,
                          to_string(request.effective_stack()));
}

const Calibration* serving_calibration(const Request& request, const GpuSpec& gpu) {
  if (request.calibrations.empty() || is_training(request.task)) {
    return nullptr;
  }
  return find_calibration(request.calibrations, CalibrationKind::serving, gpu.id,
                          to_string(request.engine.value_or(ServingEngine::vllm)));
}

std::optional<std::size_t> calibration_index(const Request& request, const GpuSpec& gpu) {
  const Calibration* c =
      is_training(request.task) ? training_calibration(request, gpu) : serving_calibration(request, gpu);
  if (c == nullptr) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(c - request.calibrations.data());
}

MemoryBreakdown memory_on(const Request& request, const ModelShape& model, const GpuSpec& gpu, const Layout& layout) {
  MemoryBreakdown m = memory_per_gpu(request, model, layout);
  const Calibration* c = training_calibration(request, gpu);
  if (c == nullptr || c->memory.fitted_on == 0 || !c->memory.applied) {
    return m;
  }
  // What the measured peaks are (torch.cuda.max_memory_allocated): the
  // model's peak less the runtime reserve, corrected as fitted; never below
  // the weights it holds.
  const double peak = m.total() - m.reserve;
  const double corrected = std::max(c->memory.scale * peak + c->memory.offset_gib * bytes_per_gib, m.weights);
  m.calibration = corrected - peak;
  return m;
}

}  // namespace gpu_advise::sizing
