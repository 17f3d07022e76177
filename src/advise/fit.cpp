#include "gpu_advise/fit.hpp"

#include <algorithm>
#include <cmath>

#include "gpu_advise/advisor.hpp"
#include "gpu_advise_version.hpp"

namespace gpu_advise {

namespace {

// The request of one row: the task's flags, this model, only this card.
Request row_request(const Request& task, const ModelShape& model, const Fleet& fleet) {
  Request r = task;
  r.params = model.params;
  r.model_id = model.source == ModelSource::preset ? model.id : std::string();
  r.active_params = model.source == ModelSource::inferred && model.active_params != model.params
                        ? std::optional<double>(model.active_params)
                        : std::nullopt;
  r.gpu_ids = {fleet.gpu_id};
  r.compare.clear();
  r.top = 1;
  r.ways_out = false;
  r.owned = true;
  if (is_training(r.task)) {
    r.count = fleet.count;  // a training run uses every card the user has
    r.max_gpus = std::max(r.max_gpus, fleet.count);
  } else {
    r.count.reset();  // a copy on the fewest cards (larger copies are tried in size_row); the rest hold more copies
    r.budget = BudgetTier::low;
    r.max_gpus = fleet.count;
  }
  return r;
}

FitRow size_row(const Request& task, const ModelShape& model, const Fleet& fleet, const Catalog& catalog,
                const RuleSet& rules) {
  FitRow row;
  row.model = model;
  row.task = task.task;
  const Request request = row_request(task, model, fleet);
  Report report = advise(request, model, catalog, rules);
  if (!report.recommendations.empty()) {
    row.plan = std::move(report.recommendations.front());
    auto serve = [&](FitRow& out) {
      const int sets = fleet.count / out.plan->estimate.count;
      out.copies = sets * out.plan->estimate.layout.model_copies();
      out.fleet_tokens_per_s = sets * out.plan->estimate.inference->tokens_per_s.typical;
    };
    if (row.plan->estimate.inference && row.plan->estimate.count > 0) {
      serve(row);
      // Serving: the copy size that gives the fleet the most tokens/s at the
      // targets (larger copies batch more; smaller ones are more copies).
      for (int copy = 2 * row.plan->estimate.count; copy <= fleet.count; copy *= 2) {
        Request larger = request;
        larger.count = copy;
        Report tried = advise(larger, model, catalog, rules);
        if (tried.recommendations.empty() || !tried.recommendations.front().estimate.inference) {
          continue;
        }
        FitRow candidate;
        candidate.plan = std::move(tried.recommendations.front());
        serve(candidate);
        if (candidate.fleet_tokens_per_s > row.fleet_tokens_per_s) {
          row.plan = std::move(candidate.plan);
          row.copies = candidate.copies;
          row.fleet_tokens_per_s = candidate.fleet_tokens_per_s;
        }
      }
    }
    return row;
  }
  for (auto& rejection : report.rejected) {
    if (rejection.gpu.id == fleet.gpu_id) {
      row.rejection = std::move(rejection);
      break;
    }
  }
  return row;
}

// Two significant figures, rounded down: 137.4B -> 130B.
double round_down(double params) {
  const double scale = std::pow(10.0, std::floor(std::log10(params)) - 1);
  return std::floor(params / scale) * scale;
}

FitLargest largest(const Request& task, const Fleet& fleet, const Catalog& catalog, const RuleSet& rules) {
  FitLargest out;
  out.task = task.task;
  const auto plan = [&](double params) { return size_row(task, infer_shape(params), fleet, catalog, rules).plan; };
  auto low_plan = plan(fit_sweep_min_params);
  if (!low_plan) {
    return out;  // not even the smallest model
  }
  double low = fit_sweep_min_params;
  double high = fit_sweep_max_params;
  if (auto top = plan(high)) {
    out.params = high;
    out.plan = std::move(top);
    return out;
  }
  // Bisect on the logarithm: fits at `low`, not at `high`, to within 1%.
  while (high / low > 1.01) {
    const double middle = std::sqrt(low * high);
    if (auto p = plan(middle)) {
      low = middle;
      low_plan = std::move(p);
    } else {
      high = middle;
    }
  }
  const double rounded = round_down(low);
  if (auto p = plan(rounded)) {
    out.params = rounded;
    out.plan = std::move(p);
  } else {
    out.params = low;  // fitting is not monotone here: keep the size that was seen to fit
    out.plan = std::move(low_plan);
  }
  return out;
}

}  // namespace

bool FitReport::anything_fits() const {
  return std::any_of(fleets.begin(), fleets.end(), [](const FitFleet& f) {
    return std::any_of(f.rows.begin(), f.rows.end(), [](const FitRow& r) { return r.plan.has_value(); }) ||
           std::any_of(f.largest.begin(), f.largest.end(), [](const FitLargest& l) { return l.params > 0; });
  });
}

FitReport fit(const FitRequest& request, const Catalog& catalog, const RuleSet& rules) {
  FitReport report;
  report.tool_version = version::string;
  report.catalog = catalog.info();
  report.request = request;
  for (const Fleet& fleet : request.fleets) {
    FitFleet out{fleet, catalog.resolve(fleet.gpu_id), {}, {}};
    // The fleet's card alone: each row sizes it, not the cards the user does not have.
    const Catalog card(catalog.info(), {out.gpu}, catalog.efficiency());
    for (const auto& model : request.models) {
      for (const auto& task : request.tasks) {
        out.rows.push_back(size_row(task, model, fleet, card, rules));
      }
    }
    if (request.find_largest) {
      for (const auto& task : request.tasks) {
        out.largest.push_back(largest(task, fleet, card, rules));
      }
    }
    report.fleets.push_back(std::move(out));
  }
  return report;
}

}  // namespace gpu_advise
