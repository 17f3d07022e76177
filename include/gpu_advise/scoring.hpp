// Turning estimates into a ranking: a transparent score from cost, speed and
// memory headroom, weighted by the budget tier, a total order, and the two
// documented hand-overs of the lead (docs/methodology.md §7).
#pragma once

#include <optional>
#include <vector>

#include "gpu_advise/report.hpp"

namespace gpu_advise {

// The plan's cost in the request's mode, typical: training, rent (or amortised
// cards and power) for the run; inference, rent per hour (or ownership per
// month) of serving the asked load. nullopt without a price.
[[nodiscard]] std::optional<double> ranking_cost(const Estimate& estimate, CostMode mode);
// Higher is better: tokens/s for inference; for training 1 / wall hours, or
// 1 / GPU-hours when every plan is sized to the same deadline.
[[nodiscard]] double speed_metric(const Estimate& estimate, bool sized_to_deadline);

// Scores every option relative to the best in the set with the budget
// profile's weights, uses each option's risk part and rule points (score.risk
// and score.rules, set by the caller), then sorts by score (descending), cost (ascending, unknown last)
// and id, and numbers the ranks.
void score_and_rank(std::vector<Recommendation>& options, const ScoreWeights& weights, CostMode mode,
                    bool sized_to_deadline = false);

// What ranking decided beside the order (the Report's fields of these names).
struct Ranking {
  std::optional<Report::Displaced> displaced_tight;      // a tight Best that handed over the lead
  std::optional<Report::Displaced> displaced_oversized;  // an oversized Best that handed over the lead
  std::optional<Report::CheaperBelow> cheaper_below;     // low budget: the cheapest plan, ranked below the Best
};

// The ranking policy: score_and_rank()'s total order (on GPU-hours when
// every plan is sized to the request's deadline), then two overrides: a Best
// with under 5% headroom hands the lead to a roomier plan within 10% of its
// cost, and one over 75% idle to a right-sized plan that costs less and takes
// at most 1.5 times as long. On the low budget, the cheapest priced plan when
// it ranks below the Best.
[[nodiscard]] Ranking rank(std::vector<Recommendation>& options, const Request& request, const ScoreWeights& weights);

}  // namespace gpu_advise
