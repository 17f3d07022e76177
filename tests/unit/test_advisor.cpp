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

TEST_CASE("ranks are 1..n in score order", "[advisor]") {
  const Report report =
      advise(request(70e9, Task::lora), infer_shape(70e9), load_embedded_catalog(), load_embedded_rules());
  REQUIRE(report.recommendations.size() > 2);
  for (std::size_t i = 0; i < report.recommendations.size(); ++i) {
    CHECK(report.recommendations[i].rank == static_cast<int>(i + 1));
    if (i > 0) {
      CHECK(report.recommendations[i - 1].score.total >= report.recommendations[i].score.total);
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
    for (const auto& a : assumptions(report.request, report.model, Language::en)) {
      s += a + "\n";
    }
    return s;
  }();
  CHECK_THAT(all, Catch::Contains("inferred from Llama 3.1 70B"));
  CHECK_THAT(all, Catch::Contains("LoRA rank 16"));
  CHECK_THAT(all, Catch::Contains("100M"));
}

TEST_CASE("a tight plan is not the Best when one within 10% of its cost has more room", "[advisor]") {
  // Two cards alike but for memory and price: find a model size that leaves the
  // smaller card under 5% headroom and the larger one over it.
  const GpuSpec small = test::card("small", 80, 2000, 312, 8, 2.00);
  const GpuSpec large = test::card("large", 84, 2000, 312, 8, 2.18);  // 9% dearer
  Request r = request(7e9, Task::lora);
  r.count = 1;
  bool found = false;
  for (double params = 10e9; params <= 40e9 && !found; params += 0.25e9) {
    r.params = params;
    const ModelShape shape = infer_shape(params);
    const Estimate a = estimate(r, shape, small);
    const Estimate b = estimate(r, shape, large);
    found = a.tight() && b.fits && !b.tight();
  }
  REQUIRE(found);
  const Catalog catalog(CatalogInfo{}, {small, large});
  const Report report = advise(r, infer_shape(r.params), catalog, load_embedded_rules());
  REQUIRE(report.recommendations.size() == 2);
  CHECK(report.recommendations.front().gpu.id == "large");
  CHECK(report.recommendations.front().rank == 1);
  REQUIRE(report.displaced_tight);
  CHECK(report.displaced_tight->gpu_name == "small");
  CHECK(report.displaced_tight->headroom < 0.05);
  // The tight plan is labelled in the facts people read.
  const auto lines = rationale(report.request, report.recommendations.back(), Language::en);
  CHECK(std::any_of(lines.begin(), lines.end(), [](const Sentence& s) { return s.text.rfind("tight:", 0) == 0; }));
}

TEST_CASE("an oversized top plan gives way to a right-sized one that costs less and is nearly as fast", "[advisor]") {
  // Speed first: the big card scores highest, though three quarters of its
  // memory would sit idle; the 48 GB card costs a third and serves 3/4 as fast.
  const GpuSpec big = test::card("big", 288, 8000, 2500, 8, 6.0);
  const GpuSpec right = test::card("right", 48, 6000, 2500, 8, 2.0);
  Request r = request(7e9, Task::inference);
  r.budget = BudgetTier::high;
  r.count = 1;        // one card each, as sized (speed first would add cards to both)
  r.concurrency = 8;  // the same load on both
  const Catalog catalog(CatalogInfo{}, {big, right});
  const Report report = advise(r, infer_shape(7e9), catalog, load_embedded_rules());
  REQUIRE(report.recommendations.size() == 2);
  CHECK(report.recommendations.front().gpu.id == "right");
  REQUIRE(report.displaced_oversized);
  CHECK(report.displaced_oversized->gpu_name == "big");
  CHECK(report.displaced_oversized->headroom > 0.75);
  // Without a right-sized plan within 1.5x of the time, the big card stays first.
  const GpuSpec slow = test::card("slow", 48, 2000, 2500, 8, 2.0);
  const Report kept = advise(r, infer_shape(7e9), Catalog(CatalogInfo{}, {big, slow}), load_embedded_rules());
  CHECK(kept.recommendations.front().gpu.id == "big");
  CHECK_FALSE(kept.displaced_oversized);
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
