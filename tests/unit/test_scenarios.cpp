// The outcomes the default rules and scoring must produce (issue 4), on the
// shipped catalog, models and rules.
#include <catch2/catch.hpp>

#include "gpu_advise/advisor.hpp"
#include "gpu_advise/words.hpp"
#include "gpu_fixture.hpp"

using namespace gpu_advise;

namespace {
Report run(const Request& r) {
  static const Catalog catalog = load_embedded_catalog();
  static const RuleSet rules = load_embedded_rules();
  return advise(r, infer_shape(r.params), catalog, rules);
}
}  // namespace

TEST_CASE("70B QLoRA on a low budget: the cheapest priced plan is the Best", "[scenarios]") {
  for (const Region region : {Region::global, Region::cn}) {
    Request r = test::request(70e9, Task::qlora);
    r.budget = BudgetTier::low;
    r.region = region;
    const Report report = run(r);
    REQUIRE_FALSE(report.recommendations.empty());
    const auto& best = report.recommendations.front();
    CAPTURE(best.gpu.id, to_string(region));
    CHECK(best.cheapest);
    CHECK_FALSE(report.cheapest);  // no cheaper neighbour to name
    CHECK(best.estimate.sizing.stop == Sizing::Stop::cost_first);
    CHECK(best.estimate.count == best.estimate.sizing.smallest);
  }
}

TEST_CASE("405B pretraining on a high budget: Hopper or Blackwell on top, no Ampere in the top three", "[scenarios]") {
  Request r = test::request(405e9, Task::pretrain);
  r.budget = BudgetTier::high;
  const Report report = run(r);
  REQUIRE(report.recommendations.size() >= 3);
  const auto top = report.recommendations.front().gpu.architecture;
  CHECK((top == Architecture::hopper || top == Architecture::blackwell));
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(report.recommendations[i].gpu.id);
    CHECK(report.recommendations[i].gpu.architecture != Architecture::ampere);
  }
}

TEST_CASE("70B inference bought in China: nothing that cannot be bought there, with reasons and dates", "[scenarios]") {
  Request r = test::request(70e9, Task::inference);
  r.region = Region::cn;
  r.mode = CostMode::buy;
  const Report report = run(r);
  REQUIRE_FALSE(report.recommendations.empty());
  for (const auto& rec : report.recommendations) {
    CAPTURE(rec.gpu.id);
    const auto status = rec.gpu.availability_in(Region::cn)->status;
    CHECK(status != AvailabilityStatus::banned);
    CHECK(status != AvailabilityStatus::not_offered);
    // Nothing discontinued (H20) and nothing without a licensed shipment.
    CHECK(rec.gpu.availability_in(Region::cn)->new_supply == Supply::available);
    CHECK((status != AvailabilityStatus::case_by_case ||
           !rec.gpu.availability_in(Region::cn)->licensed_shipments_since.empty()));
  }
  bool h100_rejected_with_date = false;
  for (const auto& rej : report.rejected) {
    if (rej.gpu.id == "h100-sxm5") {
      h100_rejected_with_date =
          reasons(rej, report.request, Language::en).front().find("case by case (since 2026-01-15") !=
          std::string::npos;
    }
  }
  CHECK(h100_rejected_with_date);
}

TEST_CASE("7B inference on a low budget: the least cost per million output tokens wins", "[scenarios]") {
  Request r = test::request(7e9, Task::inference);
  r.budget = BudgetTier::low;
  const Report report = run(r);
  REQUIRE_FALSE(report.recommendations.empty());
  REQUIRE(report.best_priced);
  const auto& best = report.recommendations.front();
  CAPTURE(best.gpu.id);
  CHECK(best.objective.kind == PlanObjective::Kind::million_tokens);
  for (const auto& other : report.recommendations) {
    if (other.objective.usd) {
      CHECK(*best.objective.usd <= *other.objective.usd);
    }
  }
}

TEST_CASE("China-only SKUs are rejected outside China and kept in it", "[scenarios]") {
  Request r = test::request(70e9, Task::inference);
  auto rejected = [](const Report& report, const std::string& id) {
    return std::any_of(report.rejected.begin(), report.rejected.end(),
                       [&](const Rejection& x) { return x.gpu.id == id; });
  };
  CHECK(rejected(run(r), "h20"));
  r.region = Region::cn;
  CHECK_FALSE(rejected(run(r), "h20"));
}

TEST_CASE("a budget cap rejects plans over it, with the amount", "[scenarios]") {
  Request r = test::request(70e9, Task::lora);
  r.budget_usd = 60;
  const Report report = run(r);
  for (const auto& rec : report.recommendations) {
    CHECK(rec.estimate.cost.rent_usd->typical <= 60);
  }
  bool capped = false;
  for (const auto& rej : report.rejected) {
    for (const auto& reason : reasons(rej, report.request, Language::en)) {
      capped = capped || reason.find("over the $60.00 budget") != std::string::npos;
    }
  }
  CHECK(capped);
}
