#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "catalog_fixture.hpp"
#include "gpu_advise/advisor.hpp"
#include "gpu_advise/words.hpp"
#include "gpu_fixture.hpp"

using namespace gpu_advise;

using test::request;

TEST_CASE("every card is either recommended or rejected with a reason", "[advisor]") {
  const Catalog catalog = load_embedded_catalog();
  for (const Task task : {Task::pretrain, Task::full, Task::lora, Task::qlora, Task::inference}) {
    const Report report = advise(request(70e9, task), infer_shape(70e9), catalog, load_embedded_rules());
    std::set<std::string> seen;
    for (const auto& r : report.recommendations) {
      seen.insert(r.gpu.id);
      CHECK_FALSE(rationale(report.request, r, Language::en).empty());
    }
    for (const auto& r : report.rejected) {
      seen.insert(r.gpu.id);
      CHECK_FALSE(r.reasons.empty());
      CHECK_FALSE(reasons(r, report.request, Language::zh).front().empty());
    }
    CHECK(seen.size() == catalog.size());
  }
}

TEST_CASE("ranks are 1..n: the Best, then priced plans by cost per unit of work, then unpriced by time", "[advisor]") {
  const Report report =
      advise(request(70e9, Task::lora), infer_shape(70e9), load_embedded_catalog(), load_embedded_rules());
  REQUIRE(report.recommendations.size() > 2);
  REQUIRE(report.best_priced);
  CHECK(report.recommendations.front().objective.vs_best == Approx(1.0));
  bool unpriced_seen = false;
  for (std::size_t i = 0; i < report.recommendations.size(); ++i) {
    const auto& r = report.recommendations[i];
    CHECK(r.rank == static_cast<int>(i + 1));
    if (!r.objective.usd) {
      unpriced_seen = true;
      continue;
    }
    CHECK_FALSE(unpriced_seen);  // priced plans come first
    if (i > 1) {
      CHECK(*report.recommendations[i - 1].objective.usd <= *r.objective.usd);
    }
  }
}

TEST_CASE("the --gpu filter keeps only the chosen cards and rejects the rest as not selected", "[advisor]") {
  Request r = request(7e9, Task::inference);
  r.gpu_ids = {"test-24"};
  const Report report =
      advise(r, infer_shape(r.params), parse_catalog(test::valid_catalog, "cards.yaml", CatalogRole::base),
             load_embedded_rules());
  REQUIRE(report.recommendations.size() == 1);
  CHECK(report.recommendations[0].gpu.id == "test-24");
  REQUIRE(report.rejected.size() == 1);
  CHECK(std::holds_alternative<NotSelected>(report.rejected[0].reasons[0]));
  CHECK(reasons(report.rejected[0], report.request, Language::en)[0] == "not selected by --gpu");
}

TEST_CASE("a --top limit cuts the list and counts what it cut", "[advisor]") {
  Request r = request(7e9, Task::inference);
  r.top = 1;
  const Report report =
      advise(r, infer_shape(r.params), parse_catalog(test::valid_catalog, "cards.yaml", CatalogRole::base),
             load_embedded_rules());
  CHECK(report.recommendations.size() == 1);
  CHECK(report.omitted == 1);
  CHECK(report.anything_fits());
}

TEST_CASE("when nothing fits, lighter tasks are offered as ways out", "[advisor]") {
  Request r = request(70e9, Task::full);
  r.gpu_ids = {"test-80"};
  r.max_gpus = 8;  // rented as 1 or 8
  r.budget = BudgetTier::low;
  const Report report =
      advise(r, infer_shape(r.params), parse_catalog(test::valid_catalog, "cards.yaml", CatalogRole::base),
             load_embedded_rules());
  CHECK_FALSE(report.anything_fits());
  REQUIRE(report.ways_out.size() >= 2);
  const auto& lora = report.ways_out[report.ways_out.size() - 2];
  CHECK(lora.task == Task::lora);
  CHECK(lora.count == 8);  // 2 would do, but the card is rented as 1 or 8
  CHECK(report.ways_out.back().task == Task::qlora);
  CHECK(report.ways_out.back().count == 1);
}

TEST_CASE("assumptions state the defaults that drive the result", "[advisor]") {
  const Report report =
      advise(request(70e9, Task::lora), infer_shape(70e9), load_embedded_catalog(), load_embedded_rules());
  const std::string all = [&] {
    std::string s;
    for (const auto& a : assumptions(report.request, report.model, best_of(report), Language::en)) {
      s += a + "\n";
    }
    return s;
  }();
  CHECK_THAT(all, Catch::Contains("inferred from Llama 3.1 70B"));
  CHECK_THAT(all, Catch::Contains("LoRA rank 16"));
  CHECK_THAT(all, Catch::Contains("100M"));
}

TEST_CASE("an unpriced plan is never the Best, however fast", "[advisor]") {
  GpuSpec fast = test::card("fast", 192, 8000, 2500, 8, 2.0);
  fast.rent_usd_per_gpu_hour.clear();  // no price
  const GpuSpec slow = test::card("slow", 80, 2000, 312, 8, 2.0);
  Request r = request(7e9, Task::lora);
  const Report report = advise(r, infer_shape(7e9), Catalog(CatalogInfo{}, {fast, slow}), load_embedded_rules());
  REQUIRE(report.recommendations.size() == 2);
  CHECK(report.best_priced);
  CHECK(report.recommendations.front().gpu.id == "slow");
  CHECK_FALSE(report.recommendations.back().objective.usd);
  CHECK_FALSE(report.recommendations.back().objective.vs_best);
  // Where it would stand at the priced plan's rent: faster at the same price, so first.
  REQUIRE(report.recommendations.back().objective.assumed);
  CHECK(report.recommendations.back().objective.assumed->usd_per_gpu_hour == Approx(2.0));
  CHECK(report.recommendations.back().objective.assumed->rank == 1);
  CHECK(describe_objective(report.recommendations.back(), r, false, Language::en).find("--price fast=USD") !=
        std::string::npos);
  // Nothing priced: no Best, the list by time, and the headline says so.
  const Report none = advise(r, infer_shape(7e9), Catalog(CatalogInfo{}, {fast}), load_embedded_rules());
  REQUIRE(none.recommendations.size() == 1);
  CHECK_FALSE(none.best_priced);
  const auto notes = headline_notes(none, Language::en);
  CHECK(std::any_of(notes.begin(), notes.end(),
                    [](const std::string& n) { return n.find("none is the Best") != std::string::npos; }));
}

TEST_CASE("the tiers are points on the cost-time frontier: low the cheapest, high faster for a premium", "[advisor]") {
  // Two cards: "cheap" is the cheapest plan; "quick" is 3x as fast for 40% more.
  const GpuSpec cheap = test::card("cheap", 80, 2000, 312, 8, 1.0);
  const GpuSpec quick = test::card("quick", 80, 6000, 936, 8, 4.2);
  Request r = request(7e9, Task::lora);
  r.count = 1;
  auto best = [&](BudgetTier tier) {
    r.budget = tier;
    return advise(r, infer_shape(7e9), Catalog(CatalogInfo{}, {cheap, quick}), load_embedded_rules());
  };
  const Report low = best(BudgetTier::low);
  REQUIRE(low.recommendations.size() == 2);
  CHECK(low.recommendations.front().gpu.id == "cheap");
  REQUIRE(low.faster);  // the neighbour the headline names
  CHECK(low.faster->gpu_name == "quick");
  CHECK(low.faster->vs_best_time < 0.5);
  const Report high = best(BudgetTier::high);
  CHECK(high.recommendations.front().gpu.id == "quick");
  REQUIRE(high.cheapest);
  CHECK(high.cheapest->gpu_name == "cheap");
  CHECK(high.cheapest->vs_best_usd < 1.0);
  // Medium pays at most 10% per halving of the time: not 40% for 1.6 halvings.
  CHECK(best(BudgetTier::medium).recommendations.front().gpu.id == "cheap");
}

TEST_CASE("a deadline the global batch caps is met with a larger --global-batch", "[advisor]") {
  const ModelShape model = load_embedded_models().resolve("llama-3.1-405b");
  Request r = request(model.params, Task::pretrain);
  CHECK(r.effective_global_batch() == 16777216 / r.seq_len);  // 16M tokens from 100B parameters
  r.gpu_ids = {"h100-sxm5"};
  r.deadline_hours = 20 * 24;
  const Report report = advise(r, model, load_embedded_catalog(), load_embedded_rules());
  CHECK_FALSE(report.anything_fits());
  const auto batch = std::find_if(report.ways_out.begin(), report.ways_out.end(), [](const WayOut& w) {
    return std::any_of(w.changes.begin(), w.changes.end(),
                       [](const WayOut::Change& c) { return c.lever == "global_batch"; });
  });
  REQUIRE(batch != report.ways_out.end());
  REQUIRE(batch->wall_hours);
  CHECK(*batch->wall_hours <= 20 * 24);
  Request small = request(7e9, Task::pretrain);
  CHECK(small.effective_global_batch() == 4194304 / small.seq_len);  // Llama 2's 4M tokens
  CHECK(request(7e9, Task::lora).effective_global_batch() == 128);
}
