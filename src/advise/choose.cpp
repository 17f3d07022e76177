#include "gpu_advise/choose.hpp"

#include <algorithm>
#include <limits>

namespace gpu_advise {

namespace {

constexpr int larger_factor = 8;       // a plan with more than this many times the Best's GPUs is cut
constexpr double faster_factor = 1.2;  // the faster neighbour named: at least this many times as fast

Report::Neighbour neighbour(const CardPlans& card, std::size_t plan, const Request& request, const PlanPoint& best) {
  const Estimate& e = card.plans[plan];
  Report::Neighbour n;
  n.gpu_name = card.gpu->name;
  n.count = e.count;
  n.kind = objective_kind(request, e);
  n.usd = objective_usd(request, e).value_or(0);
  n.time = plan_time(e);
  n.vs_best_usd = best.cost > 0 ? n.usd / best.cost : 0.0;
  n.vs_best_time = best.time > 0 ? n.time / best.time : 0.0;
  return n;
}

// The constraints a kept plan was checked against (all met: advisor.cpp drops the others).
std::vector<Constraint> constraints_met(const Request& request, const GpuSpec& gpu, const Estimate& e) {
  std::vector<Constraint> out{Constraint::memory};
  if (e.training && request.effective_deadline_hours()) {
    out.push_back(Constraint::deadline);
  }
  if (e.inference && (e.inference->tpot_target_ms || e.inference->ttft_target_ms)) {
    out.push_back(Constraint::latency);
  }
  if (e.inference && e.inference->request_rate) {
    out.push_back(Constraint::rate);
  }
  if (e.cost.offer) {
    out.push_back(Constraint::instance);
  }
  out.push_back(Constraint::rules);
  if (request.budget_usd) {
    out.push_back(Constraint::budget);
  }
  if (request.ecosystem) {
    out.push_back(Constraint::ecosystem);
  }
  if (gpu.interconnect.domain_size <= 2) {
    out.push_back(Constraint::pcie_spread);
  }
  return out;
}

Recommendation row(const CardPlans& card, std::size_t plan, const Request& request, const FindingsOf& findings_of) {
  Recommendation r;
  r.gpu = *card.gpu;
  r.plans_considered = static_cast<int>(card.plans.size());
  r.estimate = take_plan(request, card.plans, plan);
  r.objective.kind = objective_kind(request, r.estimate);
  r.objective.usd = objective_usd(request, r.estimate);
  r.objective.time = plan_time(r.estimate);
  r.constraints = constraints_met(request, *card.gpu, r.estimate);
  r.findings = findings_of(*card.gpu, r.estimate);
  r.tried = card.tried;
  int kept = 0;
  for (auto& t : r.tried) {
    t.taken = t.kept && kept++ == static_cast<int>(plan);
  }
  return r;
}

}  // namespace

std::span<const EnumName<Constraint>> names(Constraint) {
  static constexpr EnumName<Constraint> table[] = {
      {Constraint::memory, "memory"}, {Constraint::deadline, "deadline"},   {Constraint::latency, "latency"},
      {Constraint::rate, "rate"},     {Constraint::instance, "instance"},   {Constraint::rules, "rules"},
      {Constraint::budget, "budget"}, {Constraint::ecosystem, "ecosystem"}, {Constraint::pcie_spread, "pcie_spread"}};
  return table;
}

PlanObjective::Kind objective_kind(const Request& request, const Estimate& estimate) {
  if (estimate.training) {
    return PlanObjective::Kind::run;
  }
  if (estimate.inference && estimate.inference->request_rate) {
    return request.mode == CostMode::rent ? PlanObjective::Kind::hour : PlanObjective::Kind::month;
  }
  return PlanObjective::Kind::million_tokens;
}

Choice choose(std::vector<CardPlans> cards, const Request& request, const FindingsOf& findings_of) {
  Choice choice;
  // Every priced plan of every card, on the cost-time plane.
  struct Priced {
    std::size_t card;
    std::size_t plan;
  };
  std::vector<Priced> priced;
  std::vector<PlanPoint> points;
  for (std::size_t c = 0; c < cards.size(); ++c) {
    for (std::size_t p = 0; p < cards[c].plans.size(); ++p) {
      if (const auto usd = objective_usd(request, cards[c].plans[p])) {
        PlanPoint point = plan_point(request, cards[c].plans[p]);
        point.cost = *usd;
        priced.push_back({c, p});
        points.push_back(point);
      }
    }
  }
  const std::optional<std::size_t> best = pick_for_tier(points, tier_premium(request.budget));
  std::vector<Recommendation> rows;
  for (std::size_t c = 0; c < cards.size(); ++c) {
    const bool is_best = best && priced[*best].card == c;
    const std::size_t plan = is_best ? priced[*best].plan : tier_pick(request, cards[c].plans);
    rows.push_back(row(cards[c], plan, request, findings_of));
  }
  if (best) {
    choice.best_priced = true;
    const CardPlans& best_card = cards[priced[*best].card];
    const PlanPoint& b = points[*best];
    // The neighbours: the cheapest plan, and the cheapest of those at least 1.2x as fast.
    std::optional<std::size_t> cheapest;
    std::optional<std::size_t> faster;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const PlanPoint& p = points[i];
      if (!cheapest || p.cost < points[*cheapest].cost ||
          (p.cost == points[*cheapest].cost && p.time < points[*cheapest].time)) {
        cheapest = i;
      }
      if (p.time * faster_factor <= b.time && (!faster || p.cost < points[*faster].cost ||
                                               (p.cost == points[*faster].cost && p.time < points[*faster].time))) {
        faster = i;
      }
    }
    // The frontier: by cost, each plan faster than every cheaper one.
    std::vector<std::size_t> order(points.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      order[i] = i;
    }
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return points[x].cost != points[y].cost ? points[x].cost < points[y].cost : points[x].time < points[y].time;
    });
    double fastest = std::numeric_limits<double>::infinity();
    for (const std::size_t i : order) {
      if (points[i].time < fastest) {
        fastest = points[i].time;
        choice.frontier.push_back(neighbour(cards[priced[i].card], priced[i].plan, request, b));
      }
    }
    if (cheapest && points[*cheapest].cost < b.cost) {
      choice.cheapest = neighbour(cards[priced[*cheapest].card], priced[*cheapest].plan, request, b);
    }
    if (faster) {
      choice.faster = neighbour(cards[priced[*faster].card], priced[*faster].plan, request, b);
    }
    const int best_count = best_card.plans[priced[*best].plan].count;
    const std::size_t best_row = priced[*best].card;
    std::rotate(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(best_row),
                rows.begin() + static_cast<std::ptrdiff_t>(best_row) + 1);
    const double best_usd = *rows.front().objective.usd;
    // Without --gpu, plans of many times the Best's GPUs are not what anyone asked.
    if (request.gpu_ids.empty()) {
      const auto cut = std::stable_partition(rows.begin() + 1, rows.end(), [&](const Recommendation& r) {
        return r.estimate.count <= larger_factor * best_count;
      });
      for (auto it = cut; it != rows.end(); ++it) {
        choice.larger.push_back({it->gpu, {LargerThanBest{it->estimate.count, best_count}}, std::move(it->findings)});
      }
      rows.erase(cut, rows.end());
    }
    for (auto& r : rows) {
      if (r.objective.usd && best_usd > 0) {
        r.objective.vs_best = *r.objective.usd / best_usd;
      }
    }
  }
  // Renting, an unpriced plan's place at the median rent of the priced plans.
  if (choice.best_priced && request.mode == CostMode::rent) {
    std::vector<double> rents;
    for (const auto& r : rows) {
      if (r.objective.usd && r.estimate.cost.rent_usd_per_gpu_hour) {
        rents.push_back(r.estimate.cost.rent_usd_per_gpu_hour->typical);
      }
    }
    if (!rents.empty()) {
      std::sort(rents.begin(), rents.end());
      const double median = rents.size() % 2 == 1 ? rents[rents.size() / 2]
                                                  : (rents[rents.size() / 2 - 1] + rents[rents.size() / 2]) / 2.0;
      for (auto& r : rows) {
        if (r.objective.usd) {
          continue;
        }
        PlanObjective::Assumed a{median, objective_at_price(request, r.estimate, median), 1};
        for (const auto& other : rows) {
          a.rank += other.objective.usd && *other.objective.usd < a.usd ? 1 : 0;
        }
        r.objective.assumed = a;
      }
    }
  }
  // The rest: priced by cost per unit of work, then unpriced by time; then by id.
  const auto first = rows.begin() + (choice.best_priced ? 1 : 0);
  std::stable_sort(first, rows.end(), [](const Recommendation& a, const Recommendation& b) {
    if (a.objective.usd.has_value() != b.objective.usd.has_value()) {
      return a.objective.usd.has_value();
    }
    if (a.objective.usd && *a.objective.usd != *b.objective.usd) {
      return *a.objective.usd < *b.objective.usd;
    }
    if (a.objective.time != b.objective.time) {
      return a.objective.time < b.objective.time;
    }
    return a.gpu.id < b.gpu.id;
  });
  double least_usd = std::numeric_limits<double>::infinity();
  double least_time = std::numeric_limits<double>::infinity();
  for (const auto& r : rows) {
    if (r.objective.usd) {
      least_usd = std::min(least_usd, *r.objective.usd);
    }
    least_time = std::min(least_time, r.objective.time);
  }
  int rank = 1;
  for (auto& r : rows) {
    r.rank = rank++;
    r.cheapest = r.objective.usd && *r.objective.usd <= least_usd;
    r.fastest = r.objective.time <= least_time;
  }
  choice.rows = std::move(rows);
  return choice;
}

}  // namespace gpu_advise
