// The fit command's flags into a FitRequest.
#pragma once

#include "flags.hpp"
#include "gpu_advise/fit.hpp"

namespace gpu_advise::cli {

// --gpu ID (repeatable) with --count N (one per --gpu, or one for all; 1 when
// none); the model given, or every preset; the task given, or full, lora,
// qlora and inference. A flag of one kind of task applies to those rows.
[[nodiscard]] FitRequest to_fit_request(const Flags& flags, const Catalog& catalog, Presets& presets);

}  // namespace gpu_advise::cli
