// Turning estimates into a ranking: a transparent score from cost, speed and
// memory headroom, weighted by the budget tier, and a total order.
#pragma once

#include <vector>

#include "gpu_advise/report.hpp"

namespace gpu_advise {

struct ScoreWeights {
  double cost = 0;
  double speed = 0;
  double headroom = 0;
};

// low: cost first; medium: balanced; high: speed first.
[[nodiscard]] ScoreWeights weights_for(BudgetTier tier);

// The plan's cost in the request's mode (training: typical rent, or amortised
// cards and power, for the run; inference: typical $ per million output
// tokens), if the card has a price.
[[nodiscard]] std::optional<double> cost_metric(const Estimate& estimate, CostMode mode);
// Higher is better: tokens/s for inference; for training 1 / wall hours, or
// 1 / GPU-hours when every plan is sized to the same deadline.
[[nodiscard]] double speed_metric(const Estimate& estimate, bool sized_to_deadline);

// Scores every option relative to the best in the set, then sorts by score
// (descending), cost (ascending, unknown last) and id, and numbers the ranks.
void score_and_rank(std::vector<Recommendation>& options, BudgetTier tier, CostMode mode,
                    bool sized_to_deadline = false);

}  // namespace gpu_advise
