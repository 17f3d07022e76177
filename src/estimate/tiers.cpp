// The plans a card offers and the one a budget tier takes (docs/methodology.md
// "How a plan is chosen"). From the fewest GPUs on offer that fit and meet the
// deadline, the candidates double the count while each step cuts the time by
// at least 30%, stays within the global batch and the run is long enough to be
// worth it: over an hour for a plan inside one server (which it does not
// leave), over a week for one that already spans several. Of those, and of the
// plans of every card in the advisor, a tier takes the fastest plan whose cost
// is at most its premium per halving of the time above the cheapest: low 0,
// medium 10%, high 100% (cost x time does not grow).
#include <algorithm>
#include <cmath>

#include "estimate/parts.hpp"

namespace gpu_advise {

std::span<const EnumName<Sizing::Stop>> names(Sizing::Stop) {
  using Stop = Sizing::Stop;
  static constexpr EnumName<Stop> table[] = {
      {Stop::fixed, "fixed"},         {Stop::cost_first, "cost_first"}, {Stop::cap, "cap"},
      {Stop::short_run, "short_run"}, {Stop::small_cut, "small_cut"},   {Stop::node, "node"},
      {Stop::batch, "batch"},         {Stop::offer, "offer"},           {Stop::cost, "cost"}};
  return table;
}

double tier_premium(BudgetTier tier) {
  switch (tier) {
    case BudgetTier::low: return 0.0;
    case BudgetTier::medium: return 0.10;
    case BudgetTier::high: return 1.0;
  }
  return 0.0;
}

std::optional<double> objective_usd(const Request& request, const Estimate& e) {
  const auto& cost = request.mode == CostMode::rent ? e.cost.rent_usd : e.cost.buy_usd;
  if (e.inference && !e.inference->request_rate) {
    return e.cost.usd_per_million_tokens ? std::optional<double>(e.cost.usd_per_million_tokens->typical) : std::nullopt;
  }
  return cost ? std::optional<double>(cost->typical) : std::nullopt;
}

double objective_at_price(const Request& request, const Estimate& e, double usd_per_gpu_hour) {
  const double per_hour = e.count * usd_per_gpu_hour;
  if (e.training) {
    return per_hour * (e.training->wall_hours.typical + e.training->job_overhead_hours);
  }
  if (e.inference && !e.inference->request_rate && e.inference->tokens_per_s.typical > 0) {
    return per_hour / (e.inference->tokens_per_s.typical * 3600.0) * 1e6;
  }
  return request.mode == CostMode::rent ? per_hour : per_hour * 730.0;
}

double plan_time(const Estimate& e) {
  if (e.training) {
    return e.training->wall_hours.typical;
  }
  return e.inference ? e.inference->min_tpot_ms : 0.0;
}

bool within_premium(const PlanPoint& cheapest, const PlanPoint& plan, double premium) {
  if (plan.time <= 0 || cheapest.time <= 0) {
    return false;
  }
  const double halvings = std::log2(cheapest.time / plan.time);
  const double allowed = std::pow(1.0 + premium, std::max(0.0, halvings));
  const double slack = 1e-9;  // equal costs compare equal
  if (plan.cost > cheapest.cost * allowed * (1 + slack)) {
    return false;
  }
  return !(plan.capex && cheapest.capex && *plan.capex > *cheapest.capex * allowed * (1 + slack));
}

std::optional<std::size_t> pick_for_tier(std::span<const PlanPoint> plans, double premium) {
  if (plans.empty()) {
    return std::nullopt;
  }
  std::size_t cheapest = 0;
  for (std::size_t i = 1; i < plans.size(); ++i) {
    const PlanPoint& p = plans[i];
    const PlanPoint& c = plans[cheapest];
    if (p.cost < c.cost || (p.cost == c.cost && p.time < c.time)) {
      cheapest = i;
    }
  }
  std::size_t pick = cheapest;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const PlanPoint& p = plans[i];
    const PlanPoint& best = plans[pick];
    const bool faster = p.time < best.time || (p.time == best.time && p.cost < best.cost);
    if (faster && within_premium(plans[cheapest], p, premium)) {
      pick = i;
    }
  }
  return pick;
}

PlanPoint plan_point(const Request& request, const Estimate& e) {
  PlanPoint point;
  // Unpriced, what the plan is made of (GPU-hours of a run, GPUs serving):
  // enough to compare two plans of one card.
  point.cost =
      objective_usd(request, e).value_or(e.training ? e.training->gpu_hours.typical : static_cast<double>(e.count));
  point.time = plan_time(e);
  if (request.mode == CostMode::buy && e.cost.purchase_usd) {
    point.capex = e.cost.purchase_usd->typical;
  }
  return point;
}

namespace sizing {

namespace {

constexpr double min_cut = 0.30;                  // a step must save this share of the time
constexpr double server_run_hours = 1.0;          // speed first in one server: shorter runs are not worth more GPUs
constexpr double medium_server_run_hours = 24.0;  // balanced in one server: nor runs under a day
constexpr double cluster_run_hours = 168.0;       // a plan of several servers grows while the run takes a week

// What a step must cut: wall hours (training) or, serving, the time per output
// token at one sequence (at the operating point it is held at the target).
double time_of(const Estimate& e) { return plan_time(e); }

}  // namespace

std::vector<Estimate> candidate_plans(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                      Estimate smallest) {
  std::vector<Estimate> out;
  Sizing sizing = smallest.sizing;
  if (request.budget_usd || request.budget == BudgetTier::low) {  // the smallest plan alone
    smallest.sizing.stop = request.budget_usd ? Sizing::Stop::cap : Sizing::Stop::cost_first;
    out.push_back(std::move(smallest));
    return out;
  }
  const bool balanced = request.budget == BudgetTier::medium;
  const CountLadder ladder = CountLadder::for_request(request, gpu);
  // A server, for this purpose, is what the scale-up link joins when that is
  // larger (an NVL72 rack of 4-GPU trays).
  const int node = std::max({1, gpu.node.gpus_per_node, gpu.interconnect.domain_size});
  const bool one_server = smallest.count <= node;
  const double smallest_time = time_of(smallest);
  out.push_back(std::move(smallest));
  auto stop = [&](Sizing::Stop why) {
    sizing.stop = why;
    Estimate& last = out.back();
    last.sizing = sizing;
    last.sizing.cut = smallest_time > 0 ? 1.0 - time_of(last) / smallest_time : 0.0;
    return out;
  };
  for (;;) {
    const Estimate& plan = out.back();
    sizing.next = 0;
    sizing.next_cut = 0;
    const double threshold = !one_server ? cluster_run_hours : balanced ? medium_server_run_hours : server_run_hours;
    if (plan.training && plan.training->wall_hours.typical < threshold) {
      sizing.run_hours_threshold = threshold;
      return stop(Sizing::Stop::short_run);
    }
    const auto next = ladder.at_least(2 * plan.count);
    if (!next) {
      return stop(Sizing::Stop::offer);
    }
    sizing.next = *next;
    if (one_server && *next > node) {
      return stop(Sizing::Stop::node);
    }
    Request fixed = request;
    fixed.count = *next;
    Estimate bigger = plan_at_smallest(fixed, model, gpu);
    if (!bigger.fits) {  // more GPUs fit in every layout family; kept for safety
      return stop(Sizing::Stop::offer);
    }
    // Past the global batch in every layout of the next count (only model
    // parallelism could take more GPUs, and none is left).
    if (bigger.training && bigger.layout.data > data_parallel_limit(request, bigger.layout.pipeline)) {
      sizing.batch_sequences = request.effective_global_batch();
      return stop(Sizing::Stop::batch);
    }
    sizing.next_cut = 1.0 - time_of(bigger) / time_of(plan);
    if (sizing.next_cut < min_cut) {
      return stop(Sizing::Stop::small_cut);
    }
    Estimate& previous = out.back();
    previous.sizing = sizing;
    previous.sizing.stop = Sizing::Stop::cost;  // until a tier stops here
    previous.sizing.cut = smallest_time > 0 ? 1.0 - time_of(previous) / smallest_time : 0.0;
    bigger.sizing = sizing;
    out.push_back(std::move(bigger));
  }
}

void mark_stop(const Request& request, Estimate& chosen, const Estimate* next) {
  if (chosen.sizing.stop == Sizing::Stop::fixed || chosen.sizing.stop == Sizing::Stop::cap) {
    return;
  }
  if (request.budget == BudgetTier::low) {
    chosen.sizing.stop = Sizing::Stop::cost_first;
    return;
  }
  if (!next) {
    return;  // the largest candidate: the reason the candidates stop there
  }
  chosen.sizing.stop = Sizing::Stop::cost;
  chosen.sizing.next = next->count;
  chosen.sizing.next_cut = time_of(chosen) > 0 ? 1.0 - time_of(*next) / time_of(chosen) : 0.0;
  const PlanPoint a = plan_point(request, chosen);
  const PlanPoint b = plan_point(request, *next);
  chosen.sizing.next_extra_cost = a.cost > 0 ? b.cost / a.cost - 1.0 : 0.0;
}

}  // namespace sizing

Estimate take_plan(const Request& request, const std::vector<Estimate>& plans, std::size_t index) {
  Estimate chosen = plans.at(index);
  sizing::mark_stop(request, chosen, index + 1 < plans.size() ? &plans[index + 1] : nullptr);
  return chosen;
}

std::size_t tier_pick(const Request& request, const std::vector<Estimate>& plans) {
  std::vector<PlanPoint> points;
  points.reserve(plans.size());
  for (const Estimate& e : plans) {
    points.push_back(plan_point(request, e));
  }
  return pick_for_tier(points, tier_premium(request.budget)).value_or(0);
}

std::vector<Estimate> plans(const Request& request, const ModelShape& model, const GpuSpec& gpu) {
  Estimate e = sizing::plan_at_smallest(request, model, gpu);
  if (!e.fits) {
    return {std::move(e)};
  }
  sizing::first_sizing(request, model, gpu, e);
  if (request.count) {  // fixed: the one plan
    return {std::move(e)};
  }
  return sizing::candidate_plans(request, model, gpu, std::move(e));
}

Estimate estimate(const Request& request, const ModelShape& model, const GpuSpec& gpu) {
  std::vector<Estimate> candidates = plans(request, model, gpu);
  const std::size_t pick = candidates.front().fits ? tier_pick(request, candidates) : 0;
  return take_plan(request, candidates, pick);
}

}  // namespace gpu_advise
