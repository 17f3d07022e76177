// The renderers fed a Report built by hand: no catalog, no estimator, no
// rules. A change to the layout of the output fails here; a change to the
// estimates does not (the golden tests catch those end to end). Snapshots
// live in tests/data/render_fixture/; GPU_ADVISE_UPDATE_SNAPSHOTS=1 rewrites
// them (then read the diff).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gpu_advise/model.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_fixture.hpp"

using namespace gpu_advise;

namespace {

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

Recommendation pick(int rank, const std::string& id, double rent, double hours, double need_gib) {
  Recommendation r;
  r.rank = rank;
  r.gpu = test::card(id, 80, 3350, 989, 8, rent);
  r.gpu.name = id + " 80GB";
  Estimate& e = r.estimate;
  e.fits = true;
  e.count = 4;
  e.nodes = 1;
  e.layout = Layout{1, 1, 4, 3, Recompute::full};
  e.per_gpu.weights = need_gib * 0.5 * gib;
  e.per_gpu.gradients = need_gib * 0.1 * gib;
  e.per_gpu.optimizer = need_gib * 0.2 * gib;
  e.per_gpu.activations = need_gib * 0.15 * gib;
  e.per_gpu.reserve = need_gib * 0.05 * gib;
  e.capacity_bytes = 79.6 * gib;
  e.usable_bytes = 71.6 * gib;
  TrainingEstimate t;
  t.tokens = 1e8;
  t.flops = 4.2e19;
  t.mfu = {0.3, 0.4, 0.5};
  t.peak_tflops = 989;
  t.wall_hours = {hours * 0.8, hours, hours * 1.5};
  t.gpu_hours = {hours * 3.2, hours * 4, hours * 6};
  e.training = t;
  e.cost.rent_usd_per_gpu_hour = Range{rent * 0.8, rent, rent * 1.2};
  e.cost.rent_quotes = 3;
  e.cost.rent_newest = "2026-11";
  e.cost.rent_usd = Range{rent * hours * 3.2, rent * hours * 4, rent * hours * 6};
  e.notes.push_back(EstimateNote{EstimateNote::Kind::multi_node, 16, 2});
  r.objective = PlanObjective{PlanObjective::Kind::run, e.cost.rent_usd->typical, hours, 1.0 + 0.25 * (rank - 1)};
  r.cheapest = rank == 1;
  r.fastest = rank == 1;
  Finding warning{"w1", EffectKind::warning, true, {}};
  warning.message = {{Language::en, "check the supply"}, {Language::zh, "请确认供货"}};
  r.findings.push_back(warning);
  return r;
}

Report fixture() {
  Report report;
  report.tool_version = "0.0.0-fixture";
  report.catalog = CatalogInfo{1, "fixture", "2026-12-01", {}};
  report.request = test::request(70e9, Task::lora);
  report.request.budget = BudgetTier::low;
  report.model = infer_shape(70e9);
  report.recommendations = {pick(1, "alpha", 2.0, 7.0, 46.5), pick(2, "beta", 1.5, 12.0, 60.0)};
  report.best_priced = true;
  report.faster = Report::Neighbour{"gamma", 8, PlanObjective::Kind::run, 70.0, 3.5, 1.25, 0.5};
  Rejection small;
  small.gpu = test::card("gamma", 24, 1000, 165, 1, 0.4);
  small.gpu.name = "gamma 24GB";
  Shortfall shortfall;
  shortfall.kind = Shortfall::Kind::too_many_gpus;
  shortfall.need_gib = 30.5;
  shortfall.usable_gib = 19.6;
  shortfall.count = 64;
  shortfall.max_gpus = 64;
  small.reasons = {shortfall};
  Rejection banned;
  banned.gpu = test::card("delta", 80, 2000, 312, 8, std::nullopt);
  banned.gpu.name = "delta 80GB";
  banned.reasons = {RuleRejection{"no-export", {{Language::en, "banned in this region"}, {Language::zh, "该地区禁售"}}},
                    OverBudget{OverBudget::Cost::run, 120.0, 100.0}};
  Rejection other;
  other.gpu = test::card("epsilon", 48, 864, 181, 1, 0.8);
  other.gpu.name = "epsilon 48GB";
  other.reasons = {NotSelected{}, NoPriceForBudget{CostMode::rent, 100.0}};
  report.rejected = {small, banned, other};
  report.unmatched_rules = {UnmatchedRule{"my-rule", "mine.yaml:3"}};
  return report;
}

void check_snapshot(const std::string& name, const std::string& rendered) {
  const std::string path = std::string(GPU_ADVISE_TEST_DATA) + "/render_fixture/" + name;
  const char* update = std::getenv("GPU_ADVISE_UPDATE_SNAPSHOTS");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << rendered;
  }
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream expected;
  expected << in.rdbuf();
  CAPTURE(path);
  CHECK(rendered == expected.str());
}

}  // namespace

TEST_CASE("the text renderer lays out a fixed Report as its snapshot, in both languages", "[render][fixture]") {
  const Report report = fixture();
  check_snapshot("text-en.txt", render_text(report, Language::en, TextStyle{false, 100}));
  check_snapshot("text-zh.txt", render_text(report, Language::zh, TextStyle{false, 100}));
  check_snapshot("text-en-color.txt", render_text(report, Language::en, TextStyle{true, 80}));
}

TEST_CASE("the Markdown and JSON renderers lay out a fixed Report as their snapshots", "[render][fixture]") {
  const Report report = fixture();
  check_snapshot("report-en.md", render_markdown(report, Language::en));
  check_snapshot("report-zh.md", render_markdown(report, Language::zh));
  check_snapshot("report-en.json", render_json(report, Language::en));
}
