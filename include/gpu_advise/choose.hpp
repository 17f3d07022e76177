// The choice among the plans that met every constraint (docs/methodology.md
// "How a plan is chosen"): each plan's cost per unit of work and time, the
// budget tier's point on the cost-time frontier of the priced plans as the
// Best, one row per card, and the Best's neighbours.
#pragma once

#include <functional>
#include <vector>

#include "gpu_advise/report.hpp"

namespace gpu_advise {

// One card's candidate plans that met every constraint, smallest count first.
struct CardPlans {
  const GpuSpec* gpu = nullptr;
  std::vector<Estimate> plans;
  std::vector<PlanTried> tried;  // every candidate, kept or removed, smallest first
};

// The rules' verdicts on the plan a row shows.
using FindingsOf = std::function<std::vector<Finding>(const GpuSpec&, const Estimate&)>;

struct Choice {
  std::vector<Recommendation> rows;  // the Best first, then priced by cost per unit of work, then unpriced by time
  bool best_priced = false;
  std::vector<Report::Neighbour> frontier;
  std::optional<Report::Neighbour> cheapest;
  std::optional<Report::Neighbour> faster;
  std::vector<Rejection> larger;  // cards whose plan takes over 8 times the Best's GPUs (without --gpu)
};

// What the plan's objective measures in this request.
[[nodiscard]] PlanObjective::Kind objective_kind(const Request& request, const Estimate& estimate);

// The Best: of every card's priced plans, the fastest within the tier's
// premium of the cheapest (pick_for_tier), so no plan is both cheaper and
// faster. Every other card shows the plan its tier takes on that card. An
// unpriced plan is never the Best; without --gpu, a plan of over 8 times the
// Best's GPUs is cut (rejected as LargerThanBest).
[[nodiscard]] Choice choose(std::vector<CardPlans> cards, const Request& request, const FindingsOf& findings_of);

}  // namespace gpu_advise
