// The budget tier sizes the plan (docs/methodology.md §7). From the fewest
// GPUs on offer that fit and meet the deadline, speed first (high) takes the
// next count on offer at least twice as large while each step cuts the time
// by at least 30% and stays within the global batch, and while the run is
// long enough to be worth it: over an hour for a plan inside one server
// (which it does not leave), over a week for one that already spans several.
// That is the knee. Balanced (medium) takes one such step, for a run of over
// a day, when it costs at most 10% more. Cost first (low) and a --budget
// amount keep the smallest plan.
#include <algorithm>

#include "estimate/parts.hpp"

namespace gpu_advise {

std::span<const EnumName<Sizing::Stop>> names(Sizing::Stop) {
  using Stop = Sizing::Stop;
  static constexpr EnumName<Stop> table[] = {{Stop::fixed, "fixed"},
                                             {Stop::cost_first, "cost_first"},
                                             {Stop::cap, "cap"},
                                             {Stop::short_run, "short_run"},
                                             {Stop::small_cut, "small_cut"},
                                             {Stop::node, "node"},
                                             {Stop::batch, "batch"},
                                             {Stop::offer, "offer"},
                                             {Stop::cost, "cost"},
                                             {Stop::once, "once"}};
  return table;
}

namespace sizing {

namespace {

constexpr double min_cut = 0.30;                  // a step must save this share of the time
constexpr double server_run_hours = 1.0;          // speed first in one server: shorter runs are not worth more
constexpr double medium_server_run_hours = 24.0;  // balanced in one server: nor runs under a day
constexpr double cluster_run_hours = 168.0;       // a plan of several servers grows while the run takes a week
constexpr double medium_extra_cost = 0.10;        // balanced: a step may cost this much more

// What a step must cut: wall hours (training) or, serving, the time per output
// token at one sequence (at the operating point it is held at the target).
double time_of(const Estimate& e) { return e.training ? e.training->wall_hours.typical : e.inference->min_tpot_ms; }

// The plan's cost in the request's mode, or, unpriced, what it is made of
// (GPU-hours of a run, GPUs serving): enough to compare two plans on one card.
double cost_of(const Request& request, const Estimate& e) {
  const auto& cost = request.mode == CostMode::rent ? e.cost.rent_usd : e.cost.buy_usd;
  if (cost) {
    return cost->typical;
  }
  return e.training ? e.training->gpu_hours.typical : static_cast<double>(e.count);
}

}  // namespace

Estimate size_for_tier(const Request& request, const ModelShape& model, const GpuSpec& gpu, Estimate smallest) {
  Estimate plan = std::move(smallest);
  Sizing sizing = plan.sizing;
  auto done = [&](Sizing::Stop stop) {
    sizing.stop = stop;
    plan.sizing = sizing;
    return plan;
  };
  if (request.budget_usd) {
    return done(Sizing::Stop::cap);
  }
  if (request.budget == BudgetTier::low) {
    return done(Sizing::Stop::cost_first);
  }
  const bool balanced = request.budget == BudgetTier::medium;
  const CountLadder ladder = CountLadder::for_request(request, gpu);
  // A server, for this purpose, is what the scale-up link joins when that is
  // larger (an NVL72 rack of 4-GPU trays).
  const int node = std::max({1, gpu.node.gpus_per_node, gpu.interconnect.domain_size});
  const bool one_server = plan.count <= node;
  const double smallest_time = time_of(plan);
  for (;;) {
    sizing.next = 0;
    sizing.next_cut = 0;
    const double threshold = !one_server ? cluster_run_hours : balanced ? medium_server_run_hours : server_run_hours;
    if (plan.training && plan.training->wall_hours.typical < threshold) {
      sizing.run_hours_threshold = threshold;
      return done(Sizing::Stop::short_run);
    }
    const auto next = ladder.at_least(2 * plan.count);
    if (!next) {
      return done(Sizing::Stop::offer);
    }
    sizing.next = *next;
    if (one_server && *next > node) {
      return done(Sizing::Stop::node);
    }
    Request fixed = request;
    fixed.count = *next;
    Estimate bigger = plan_at_smallest(fixed, model, gpu);
    if (!bigger.fits) {  // more GPUs fit in every layout family; kept for safety
      return done(Sizing::Stop::offer);
    }
    // Past the global batch in every layout of the next count (only model
    // parallelism could take more GPUs, and none is left).
    if (bigger.training && bigger.layout.data > data_parallel_limit(request, bigger.layout.pipeline)) {
      sizing.batch_sequences = request.effective_global_batch();
      return done(Sizing::Stop::batch);
    }
    sizing.next_cut = 1.0 - time_of(bigger) / time_of(plan);
    if (sizing.next_cut < min_cut) {
      return done(Sizing::Stop::small_cut);
    }
    if (balanced && cost_of(request, bigger) > cost_of(request, plan) * (1.0 + medium_extra_cost)) {
      return done(Sizing::Stop::cost);
    }
    plan = std::move(bigger);
    sizing.cut = 1.0 - time_of(plan) / smallest_time;
    if (balanced) {
      sizing.next = 0;
      sizing.next_cut = 0;
      sizing.stop = Sizing::Stop::once;
      plan.sizing = sizing;
      return plan;
    }
  }
}

}  // namespace sizing

}  // namespace gpu_advise
