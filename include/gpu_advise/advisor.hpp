// The pipeline: for each card, estimate, then score and rank, and explain.
#pragma once

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/report.hpp"
#include "gpu_advise/request.hpp"
#include "gpu_advise/rules.hpp"

namespace gpu_advise {

// `model` is the resolved shape of the request's model (preset, config.json or
// inferred); request.params equals model.params.
[[nodiscard]] Report advise(const Request& request, const ModelShape& model, const Catalog& catalog,
                            const RuleSet& rules, Language language = Language::en);

// Words for people, in one language (shared with the renderers).
[[nodiscard]] std::string describe(Task task, Language language);
[[nodiscard]] std::string describe(BudgetTier tier, Language language);
[[nodiscard]] std::string describe(const Layout& layout, Task task, Language language);
[[nodiscard]] std::string describe(const Shortfall& why, Language language);
[[nodiscard]] std::string describe(const EstimateNote& note, Language language);
// One way out of "nothing fits" in words: task, count and card, the flags it drops, price and time.
[[nodiscard]] std::string describe(const WayOut& way, Language language);

}  // namespace gpu_advise
