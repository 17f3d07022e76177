// The pipeline: for each card, estimate, then score and rank, and explain.
#pragma once

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/report.hpp"
#include "gpu_advise/request.hpp"
#include "gpu_advise/rules.hpp"

namespace gpu_advise {

// `model` is the resolved shape of the request's model (preset, config.json or
// inferred); request.params equals model.params. The Report holds facts in no
// language; the renderers put them into words (words.hpp).
[[nodiscard]] Report advise(const Request& request, const ModelShape& model, const Catalog& catalog,
                            const RuleSet& rules);

}  // namespace gpu_advise
