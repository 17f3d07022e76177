// fit: the other half of "which GPU": what the cards a user already has can
// train or serve. Each (model, task) is sized on the user's cards by the same
// pipeline as a recommendation (advise()), and a sweep over model sizes finds
// the largest model of each task that fits. The report's types are in
// fit_report.hpp.
#pragma once

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/fit_report.hpp"
#include "gpu_advise/rules.hpp"

namespace gpu_advise {

[[nodiscard]] FitReport fit(const FitRequest& request, const Catalog& catalog, const RuleSet& rules);

}  // namespace gpu_advise
