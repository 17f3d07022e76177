// The choice (issue 33), as properties over many requests on the shipped
// catalog, models and rules: the Best is priced and feasible; at low it is the
// cheapest priced plan; no listed plan is both cheaper and faster; serving a
// rate, what is served stays under twice what is asked once copies are needed.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "gpu_advise/advisor.hpp"
#include "gpu_advise/choose.hpp"
#include "gpu_fixture.hpp"

using namespace gpu_advise;

namespace {

const Catalog& catalog() {
  static const Catalog c = load_embedded_catalog();
  return c;
}
const RuleSet& rules() {
  static const RuleSet r = load_embedded_rules();
  return r;
}
const ModelCatalog& models() {
  static const ModelCatalog m = load_embedded_models();
  return m;
}

// The requests the properties are checked on: model sizes and presets, every
// task, tier, region and mode.
std::vector<std::pair<Request, ModelShape>> requests() {
  std::vector<std::pair<Request, ModelShape>> out;
  const std::vector<std::string> presets = {"llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b", "qwen3-32b"};
  for (const auto& preset : presets) {
    const ModelShape model = models().resolve(preset);
    for (const Task task : {Task::lora, Task::qlora, Task::full, Task::inference}) {
      for (const BudgetTier tier : {BudgetTier::low, BudgetTier::medium, BudgetTier::high}) {
        for (const Region region : {Region::global, Region::cn}) {
          for (const CostMode mode : {CostMode::rent, CostMode::buy}) {
            Request r = test::request(model.params, task);
            r.budget = tier;
            r.region = region;
            r.mode = mode;
            out.emplace_back(r, model);
          }
        }
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("the Best is priced, feasible and on the frontier, and at low the cheapest", "[choose]") {
  int checked = 0;
  for (const auto& [request, model] : requests()) {
    const Report report = advise(request, model, catalog(), rules());
    if (report.recommendations.empty()) {
      continue;
    }
    CAPTURE(model.name, to_string(request.task), to_string(request.budget), to_string(request.region),
            to_string(request.mode));
    const Recommendation& best = report.recommendations.front();
    CHECK(best.estimate.fits);
    if (!report.best_priced) {  // nothing listed is priced
      for (const auto& r : report.recommendations) {
        CHECK_FALSE(r.objective.usd);
      }
      continue;
    }
    ++checked;
    REQUIRE(best.objective.usd);
    for (const auto& r : report.recommendations) {
      if (!r.objective.usd) {
        continue;
      }
      // No listed plan is both cheaper and faster than the Best (buying, and
      // no dearer to buy: the capex obeys the tier's premium too).
      const auto capex = [](const Recommendation& x) {
        return x.estimate.cost.purchase_usd ? x.estimate.cost.purchase_usd->typical : 0.0;
      };
      const bool dominates = *r.objective.usd < *best.objective.usd && r.objective.time < best.objective.time &&
                             (request.mode == CostMode::rent || capex(r) <= capex(best));
      CAPTURE(r.gpu.id, r.estimate.count);
      CHECK_FALSE(dominates);
      if (request.budget == BudgetTier::low) {
        CHECK(*best.objective.usd <= *r.objective.usd);
      }
    }
    // Above low, the Best is within its tier's premium of the cheapest plan.
    if (report.cheapest) {
      CHECK(request.budget != BudgetTier::low);
      const PlanPoint cheapest{report.cheapest->usd, report.cheapest->time, std::nullopt};
      const PlanPoint chosen{*best.objective.usd, best.objective.time, std::nullopt};
      CHECK(within_premium(cheapest, chosen, tier_premium(request.budget)));
    }
    // The headline's neighbours are real and on the right side.
    if (report.cheapest) {
      CHECK(report.cheapest->usd < *best.objective.usd);
    }
    if (report.faster) {
      CHECK(report.faster->time * 1.2 <= best.objective.time * (1 + 1e-9));
    }
  }
  CHECK(checked > 100);
}

TEST_CASE("serving a request rate: served under twice the rate once several copies are needed", "[choose]") {
  int several = 0;
  for (const char* preset : {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "kimi-k2", "mixtral-8x7b"}) {
    const ModelShape model = models().resolve(preset);
    for (const double rate : {0.2, 1.0, 5.0, 40.0}) {
      for (const char* gpu : {"h100-sxm5", "a100-80gb-sxm4", "h200-sxm", "l40s"}) {
        Request r = test::request(model.params, Task::inference);
        r.request_rate = rate;
        r.gpu_ids = {gpu};
        const Report report = advise(r, model, catalog(), rules());
        if (report.recommendations.empty()) {
          continue;
        }
        const Estimate& e = report.recommendations.front().estimate;
        REQUIRE(e.inference);
        CAPTURE(preset, rate, gpu, e.count, e.inference->replicas, e.layout.expert);
        const double served = e.inference->requests_per_s.typical;
        CHECK(served >= rate * (1 - 1e-9));
        // Model copies: with wide expert parallelism one group of GPUs is one
        // copy however many requests it serves.
        if (e.layout.model_copies() > 1) {
          ++several;
          // The count is sized on the copies serving both phases; split into
          // prefill and decode pools, the same GPUs may serve more.
          const double colocated = e.inference->disaggregated ? e.inference->disaggregated->colocated_rps : served;
          CHECK(colocated < 2 * rate);
        }
      }
    }
  }
  CHECK(several > 0);
}
