#include "gpu_advise/scoring.hpp"

#include <algorithm>
#include <limits>

namespace gpu_advise {

namespace {

constexpr double full_headroom = 0.25;           // 25% of usable memory left earns the whole headroom score
constexpr double oversized_headroom = 0.75;      // more idle than this: oversized
constexpr double right_sized_time_factor = 1.5;  // a right-sized plan may take this much longer

// Numbers the ranks from 1 in the options' order.
void renumber(std::vector<Recommendation>& options) {
  int rank = 1;
  for (auto& option : options) {
    option.rank = rank++;
  }
}

// Moves options[i] to the front and renumbers the ranks.
void promote(std::vector<Recommendation>& options, std::size_t i) {
  std::rotate(options.begin(), options.begin() + static_cast<std::ptrdiff_t>(i),
              options.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  renumber(options);
}

}  // namespace

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
  renumber(options);
}

namespace {

// A plan with under 5% headroom is not the Best when one within 10% of its
// cost has more room (docs/methodology.md §7): that one leads.
std::optional<Report::Displaced> hand_over_tight(std::vector<Recommendation>& options, CostMode mode) {
  if (options.size() < 2 || !options.front().estimate.tight()) {
    return std::nullopt;
  }
  const auto tight_cost = ranking_cost(options.front().estimate, mode);
  for (std::size_t i = 1; tight_cost && i < options.size(); ++i) {
    const auto cost = ranking_cost(options[i].estimate, mode);
    if (!options[i].estimate.tight() && cost && *cost <= *tight_cost * 1.10) {
      Report::Displaced displaced{options.front().gpu.name, options.front().estimate.headroom()};
      promote(options, i);
      return displaced;
    }
  }
  return std::nullopt;
}

// An oversized top plan (over 75% of its memory idle) gives way to the
// best-ranked right-sized plan that costs less and takes at most 1.5 times
// as long (serves at least 2/3 as fast) (docs/methodology.md §7).
std::optional<Report::Displaced> hand_over_oversized(std::vector<Recommendation>& options, CostMode mode,
                                                     bool sized_to_deadline) {
  if (options.size() < 2 || options.front().estimate.headroom() <= oversized_headroom) {
    return std::nullopt;
  }
  const auto top_cost = ranking_cost(options.front().estimate, mode);
  const double top_speed = speed_metric(options.front().estimate, sized_to_deadline);
  for (std::size_t i = 1; i < options.size(); ++i) {
    const Estimate& e = options[i].estimate;
    const auto cost = ranking_cost(e, mode);
    if (e.headroom() <= oversized_headroom && !e.tight() && cost && (!top_cost || *cost < *top_cost) &&
        speed_metric(e, sized_to_deadline) * right_sized_time_factor >= top_speed) {
      Report::Displaced displaced{options.front().gpu.name, options.front().estimate.headroom()};
      promote(options, i);
      return displaced;
    }
  }
  return std::nullopt;
}

// Cost first: the cheapest priced plan, when risk, rules, speed or headroom
// ranked it below the Best, with what ranked it down.
std::optional<Report::CheaperBelow> cheapest_below(const std::vector<Recommendation>& options, CostMode mode) {
  const Recommendation* cheapest = nullptr;
  std::optional<double> cheapest_cost;
  for (const auto& option : options) {
    const auto cost = ranking_cost(option.estimate, mode);
    if (cost && (!cheapest_cost || *cost < *cheapest_cost)) {
      cheapest = &option;
      cheapest_cost = cost;
    }
  }
  if (cheapest == nullptr || cheapest == &options.front()) {
    return std::nullopt;
  }
  const Recommendation& best = options.front();
  const auto best_cost = ranking_cost(best.estimate, mode);
  if (best_cost && *cheapest_cost >= *best_cost) {
    return std::nullopt;
  }
  const Recommendation& c = *cheapest;
  Report::CheaperBelow below;
  below.gpu_name = c.gpu.name;
  below.count = c.estimate.count;
  below.rank = c.rank;
  below.cost_usd = *cheapest_cost;
  if (c.gpu.software != SoftwareStack::cuda) {
    below.software = c.gpu.software;
  }
  below.estimated_specs = c.gpu.confidence == Confidence::estimate;
  for (const auto& f : c.findings) {
    if (f.fired && f.points < 0) {
      below.rules.push_back(f.rule_id);
    }
  }
  below.slower = c.score.speed < best.score.speed;
  below.less_headroom = c.score.headroom < best.score.headroom;
  return below;
}

}  // namespace

Ranking rank(std::vector<Recommendation>& options, const Request& request, const ScoreWeights& weights) {
  const bool sized_to_deadline =
      is_training(request.task) && request.effective_deadline_hours().has_value() && !request.count;
  score_and_rank(options, weights, request.mode, sized_to_deadline);
  Ranking ranking;
  ranking.displaced_tight = hand_over_tight(options, request.mode);
  ranking.displaced_oversized = hand_over_oversized(options, request.mode, sized_to_deadline);
  if (request.budget == BudgetTier::low) {
    ranking.cheaper_below = cheapest_below(options, request.mode);
  }
  return ranking;
}

}  // namespace gpu_advise
