#include <catch2/catch.hpp>

#include <algorithm>

#include "gpu_advise/rules.hpp"
#include "gpu_advise/scoring.hpp"
#include "gpu_fixture.hpp"

using namespace gpu_advise;

namespace {
Recommendation option(const std::string& id, double rent_usd, double wall_hours, double headroom) {
  Recommendation r;
  r.gpu = test::card(id, 80, 2000, 312, 8, std::nullopt);
  r.estimate.fits = true;
  r.estimate.count = 1;
  r.estimate.usable_bytes = 100;
  r.estimate.per_gpu.weights = 100 * (1 - headroom);
  TrainingEstimate t;
  t.wall_hours = {wall_hours, wall_hours, wall_hours};
  t.gpu_hours = t.wall_hours;  // one GPU
  r.estimate.training = t;
  if (rent_usd > 0) {
    r.estimate.cost.rent_usd = Range{rent_usd, rent_usd, rent_usd};
  }
  return r;
}
}  // namespace

namespace {
ScoreWeights weights_for(BudgetTier tier) {
  static const RuleSet rules = load_embedded_rules();
  return rules.weights(tier);
}
}  // namespace

TEST_CASE("each budget profile's weights add up to one", "[scoring]") {
  for (const auto tier : {BudgetTier::low, BudgetTier::medium, BudgetTier::high}) {
    const auto w = weights_for(tier);
    CHECK(w.cost + w.speed + w.headroom + w.risk == Approx(1.0));
  }
  CHECK(weights_for(BudgetTier::low).cost > weights_for(BudgetTier::high).cost);
  CHECK(weights_for(BudgetTier::high).speed > weights_for(BudgetTier::low).speed);
}

TEST_CASE("rule points add to the score and can reorder it", "[scoring]") {
  std::vector<Recommendation> options = {option("a", 100, 10, 0.3), option("b", 110, 10, 0.3)};
  options[1].score.rules = 20;
  score_and_rank(options, weights_for(BudgetTier::medium), CostMode::rent);
  CHECK(options.front().gpu.id == "b");
  CHECK(options.front().score.rules == 20);
}

TEST_CASE("a low budget prefers the cheap plan, a high budget the fast one", "[scoring]") {
  std::vector<Recommendation> options = {option("fast", 400, 10, 0.3), option("cheap", 100, 40, 0.3)};
  score_and_rank(options, weights_for(BudgetTier::low), CostMode::rent);
  CHECK(options.front().gpu.id == "cheap");
  score_and_rank(options, weights_for(BudgetTier::high), CostMode::rent);
  CHECK(options.front().gpu.id == "fast");
  CHECK(options.front().rank == 1);
  CHECK(options.back().rank == 2);
}

TEST_CASE("scores are relative to the best option and bounded", "[scoring]") {
  std::vector<Recommendation> options = {option("a", 100, 10, 0.5), option("b", 200, 20, 0.1)};
  options[0].score.risk = 1.0;  // CUDA, datasheet
  options[1].score.risk = 0.6;  // e.g. ROCm
  // Weights of the test's own, so a change to the shipped profiles does not break this test.
  const ScoreWeights w{0.4, 0.3, 0.2, 0.1};
  score_and_rank(options, w, CostMode::rent);
  CHECK(options[0].score.total == Approx(100.0));
  CHECK(options[1].score.total == Approx(100 * (0.4 * 0.5 + 0.3 * 0.5 + 0.2 * 0.4 + 0.1 * 0.6)));
  CHECK(options[1].score.cost == Approx(0.5));
  CHECK(options[1].score.speed == Approx(0.5));
  CHECK(options[1].score.headroom == Approx(0.4));
}

TEST_CASE("an unknown price takes the median of the priced plans' cost part and is said to be unknown", "[scoring]") {
  // Costs 100, 200 and 400: cost parts 1, 0.5 and 0.25; the median is 0.5.
  std::vector<Recommendation> options = {option("cheap", 100, 10, 0.3), option("mid", 200, 10, 0.3),
                                         option("dear", 400, 10, 0.3), option("unpriced", 0, 10, 0.3)};
  score_and_rank(options, weights_for(BudgetTier::medium), CostMode::rent);
  const auto unpriced =
      std::find_if(options.begin(), options.end(), [](const Recommendation& r) { return r.gpu.id == "unpriced"; });
  REQUIRE(unpriced != options.end());
  CHECK_FALSE(unpriced->score.cost_known);
  CHECK(unpriced->score.cost == Approx(0.5));  // neutral, not zero
  CHECK(options.front().gpu.id == "cheap");
  CHECK(options.back().gpu.id == "dear");
  // Alone, with nothing to compare against, an unpriced plan sits in the middle.
  std::vector<Recommendation> alone = {option("unpriced", 0, 10, 0.3)};
  score_and_rank(alone, weights_for(BudgetTier::medium), CostMode::rent);
  CHECK(alone.front().score.cost == Approx(0.5));
}

TEST_CASE("ties break by cost, then by id, so the order is total", "[scoring]") {
  // Equal scores (the weights ignore cost) and different costs: the cheaper first, whatever its id.
  const ScoreWeights speed_only{0, 1, 0, 0};
  std::vector<Recommendation> priced = {option("a", 200, 10, 0.3), option("z", 100, 10, 0.3)};
  score_and_rank(priced, speed_only, CostMode::rent);
  REQUIRE(priced[0].score.total == Approx(priced[1].score.total));
  CHECK(priced[0].gpu.id == "z");
  CHECK(priced[1].gpu.id == "a");
  // Equal scores and equal costs: by id.
  std::vector<Recommendation> options = {option("b", 0, 10, 0.3), option("a", 0, 10, 0.3)};
  score_and_rank(options, weights_for(BudgetTier::medium), CostMode::rent);
  CHECK(options[0].gpu.id == "a");
  CHECK(options[1].gpu.id == "b");
}

TEST_CASE("plans sized to one deadline compare speed per GPU", "[scoring]") {
  // Both finish by the deadline; the first needs four times the GPU-hours.
  std::vector<Recommendation> options = {option("many-slow", 100, 10, 0.3), option("few-fast", 100, 10, 0.3)};
  options[0].estimate.training->gpu_hours = {400, 400, 400};
  options[1].estimate.training->gpu_hours = {100, 100, 100};
  score_and_rank(options, weights_for(BudgetTier::high), CostMode::rent, true);
  CHECK(options.front().gpu.id == "few-fast");
  CHECK(options.back().score.speed == Approx(0.25));
}

TEST_CASE("rank() is the total order and then the hand-overs: a tight Best gives way", "[scoring]") {
  // Speed alone puts the tight plan first; the roomy one costs 5% more.
  const ScoreWeights speed_only{0, 1, 0, 0};
  std::vector<Recommendation> options = {option("tight", 100, 10, 0.02), option("roomy", 105, 20, 0.5)};
  Request request;
  request.task = Task::lora;
  request.budget = BudgetTier::low;
  std::vector<Recommendation> ordered = options;
  score_and_rank(ordered, speed_only, CostMode::rent);
  REQUIRE(ordered.front().gpu.id == "tight");
  const Ranking ranking = rank(options, request, speed_only);
  CHECK(options.front().gpu.id == "roomy");
  CHECK(options.front().rank == 1);
  CHECK(options.back().rank == 2);
  REQUIRE(ranking.displaced_tight);
  CHECK(ranking.displaced_tight->gpu_name == "tight");
  CHECK(ranking.displaced_tight->headroom == Approx(0.02));
  CHECK_FALSE(ranking.displaced_oversized);
  // Cost first (the low budget): the cheaper tight plan, now ranked second, is named.
  REQUIRE(ranking.cheaper_below);
  CHECK(ranking.cheaper_below->gpu_name == "tight");
  CHECK(ranking.cheaper_below->rank == 2);
  // Not on the other budgets.
  std::vector<Recommendation> again = {option("tight", 100, 10, 0.02), option("roomy", 105, 20, 0.5)};
  request.budget = BudgetTier::medium;
  CHECK_FALSE(rank(again, request, speed_only).cheaper_below);
}
