// Turning estimates into a ranking: a transparent score from cost, speed and
// memory headroom, weighted by the budget tier, and a total order.
#pragma once

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

}  // namespace gpu_advise
