#include "gpu_advise/scoring.hpp"

#include <algorithm>
#include <limits>

namespace gpu_advise {

namespace {
constexpr double full_headroom = 0.25;  // 25% of usable memory left earns the whole headroom score
}

std::optional<double> ranking_cost(const Estimate& estimate, CostMode mode) {
  // Inference: what serving the asked load costs per hour (renting) or per
  // month (owning); capacity beyond the asked concurrency is not income.
  const auto& cost = mode == CostMode::rent ? estimate.cost.rent_usd : estimate.cost.buy_usd;
  if (cost) {
    return cost->typical;
  }
  return std::nullopt;
}

double speed_metric(const Estimate& estimate, bool sized_to_deadline) {
  if (estimate.inference) {
    // Serving a stated request rate, every plan carries the traffic and
    // capacity beyond it earns nothing: speed is what each user sees.
    // Otherwise it is the throughput at the latency targets.
    const InferenceEstimate& inf = *estimate.inference;
    return inf.request_rate ? inf.user_tokens_per_s.typical : inf.tokens_per_s.typical;
  }
  if (!estimate.training || estimate.training->gpu_hours.typical <= 0) {
    return 0;
  }
  // Plans sized to one deadline all finish in time: the faster card is the one
  // that does more per GPU (fewer cards and nodes for the same run).
  if (sized_to_deadline) {
    return 1.0 / estimate.training->gpu_hours.typical;
  }
  return 1.0 / estimate.training->wall_hours.typical;
}

void score_and_rank(std::vector<Recommendation>& options, const ScoreWeights& w, CostMode mode,
                    bool sized_to_deadline) {
  double best_cost = std::numeric_limits<double>::infinity();
  double best_speed = 0;
  for (const auto& option : options) {
    if (const auto cost = ranking_cost(option.estimate, mode)) {
      best_cost = std::min(best_cost, *cost);
    }
    best_speed = std::max(best_speed, speed_metric(option.estimate, sized_to_deadline));
  }
  std::vector<double> priced;
  for (const auto& option : options) {
    if (const auto cost = ranking_cost(option.estimate, mode); cost && *cost > 0) {
      priced.push_back(best_cost / *cost);
    }
  }
  std::sort(priced.begin(), priced.end());
  const double neutral_cost =
      priced.empty() ? 0.5
                     : (priced.size() % 2 == 1 ? priced[priced.size() / 2]
                                               : (priced[priced.size() / 2 - 1] + priced[priced.size() / 2]) / 2.0);
  for (auto& option : options) {
    ScoreBreakdown& s = option.score;
    s.cost_weight = w.cost;
    s.speed_weight = w.speed;
    s.headroom_weight = w.headroom;
    s.risk_weight = w.risk;
    const auto cost = ranking_cost(option.estimate, mode);
    s.cost_known = cost.has_value();
    s.cost = (cost && *cost > 0) ? best_cost / *cost : 0.0;
    s.speed = best_speed > 0 ? speed_metric(option.estimate, sized_to_deadline) / best_speed : 0.0;
    s.headroom = std::clamp(option.estimate.headroom() / full_headroom, 0.0, 1.0);
    if (!s.cost_known) {
      // No price: a neutral cost part, the median of the priced plans', so a
      // gap in the data neither sinks the card nor lifts it above them.
      s.cost = neutral_cost;
    }
    s.total = 100.0 * (w.cost * s.cost + w.speed * s.speed + w.headroom * s.headroom + w.risk * s.risk) + s.rules;
  }
  std::sort(options.begin(), options.end(), [mode](const Recommendation& a, const Recommendation& b) {
    if (a.score.total != b.score.total) {
      return a.score.total > b.score.total;
    }
    const double inf = std::numeric_limits<double>::infinity();
    const double ca = ranking_cost(a.estimate, mode).value_or(inf);
    const double cb = ranking_cost(b.estimate, mode).value_or(inf);
    if (ca != cb) {
      return ca < cb;
    }
    return a.gpu.id < b.gpu.id;
  });
  int rank = 1;
  for (auto& option : options) {
    option.rank = rank++;
  }
}

}  // namespace gpu_advise
