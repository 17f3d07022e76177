// The pipeline: for each card, estimate, then score and rank, and explain.
#pragma once

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/report.hpp"
#include "gpu_advise/request.hpp"

namespace gpu_advise {

[[nodiscard]] Report advise(const Request& request, const Catalog& catalog);

}  // namespace gpu_advise
