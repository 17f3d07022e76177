// fit(): the user's cards against models and tasks (issue 17), and the
// defaults file it shares the command line with.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "catalog_fixture.hpp"
#include "gpu_advise/advisor.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/fit.hpp"
#include "gpu_advise/text.hpp"
#include "load/config.hpp"

using namespace gpu_advise;

namespace {

const Catalog& shipped() {
  static const Catalog catalog = load_embedded_catalog();
  return catalog;
}
const RuleSet& rules() {
  static const RuleSet r = load_embedded_rules();
  return r;
}

FitRequest fit_request(const std::vector<Task>& tasks, std::vector<ModelShape> models, Fleet fleet) {
  FitRequest request;
  for (const Task task : tasks) {
    Request r;
    r.task = task;
    request.tasks.push_back(r);
  }
  request.models = std::move(models);
  request.fleets = {std::move(fleet)};
  return request;
}

}  // namespace

TEST_CASE("fit trains on every card and serves with the copy size that serves the most", "[fit]") {
  const FitRequest request =
      fit_request({Task::lora, Task::inference}, {infer_shape(8e9), infer_shape(70e9)}, Fleet{"h100-sxm5", 8});
  const FitReport report = fit(request, shipped(), rules());
  REQUIRE(report.fleets.size() == 1);
  const FitFleet& fleet = report.fleets.front();
  REQUIRE(fleet.rows.size() == 4);  // models x tasks, tasks within each model
  CHECK(fleet.rows[0].task == Task::lora);
  CHECK(fleet.rows[1].task == Task::inference);
  for (const auto& row : fleet.rows) {
    REQUIRE(row.plan);
    const Estimate& e = row.plan->estimate;
    if (e.training) {
      CHECK(e.count == 8);
      CHECK(row.copies == 0);
    } else {
      REQUIRE(e.inference);
      const int sets = 8 / e.count;
      CHECK(row.copies == sets * e.inference->replicas);
      CHECK(row.fleet_tokens_per_s == Approx(sets * e.inference->tokens_per_s.typical));
    }
  }
  // The 8B model: the copy size that serves the most tokens/s on the fleet,
  // at least as much as one copy on each card (or any other copy size).
  for (const int copy : {1, 2, 4, 8}) {
    Request one;
    one.task = Task::inference;
    one.params = 8e9;
    one.count = copy;
    const Estimate e = estimate(one, infer_shape(8e9), shipped().resolve("h100-sxm5"));
    REQUIRE(e.inference);
    CAPTURE(copy);
    const int copies = 8 / copy;
    CHECK(fleet.rows[1].fleet_tokens_per_s >= copies * e.inference->tokens_per_s.typical * 0.999);
  }
  CHECK(report.anything_fits());
}

TEST_CASE("fit finds the largest model of each task, and a larger one does not fit", "[fit]") {
  FitRequest request = fit_request({Task::qlora, Task::inference}, {}, Fleet{"rtx-4090", 2});
  const FitReport report = fit(request, shipped(), rules());
  const FitFleet& fleet = report.fleets.front();
  REQUIRE(fleet.largest.size() == 2);
  for (const auto& largest : fleet.largest) {
    CAPTURE(to_string(largest.task), largest.params);
    REQUIRE(largest.params > 1e9);
    REQUIRE(largest.plan);
    CHECK(largest.plan->estimate.fits);
    // Two significant figures, rounded down: what was found, and the next step up does not fit.
    FitRequest bigger = fit_request({largest.task}, {infer_shape(largest.params * 1.15)}, Fleet{"rtx-4090", 2});
    bigger.find_largest = false;
    CHECK_FALSE(fit(bigger, shipped(), rules()).fleets.front().rows.front().plan);
  }
  CHECK(fleet.largest[0].params > fleet.largest[1].params);  // QLoRA's 4-bit base beats BF16 serving
}

TEST_CASE("fit: the rules about getting cards do not apply to cards in hand", "[fit][rules]") {
  // Outside China an H20 is a China-only SKU: recommend rejects it...
  Request r;
  r.task = Task::inference;
  r.params = 7e9;
  r.gpu_ids = {"h20"};
  const Report report = advise(r, infer_shape(7e9), shipped(), rules());
  CHECK(report.recommendations.empty());
  // ... but the user who has one can serve on it.
  const FitRequest request = fit_request({Task::inference}, {infer_shape(7e9)}, Fleet{"h20", 1});
  const FitReport in_hand = fit(request, shipped(), rules());
  CHECK(in_hand.fleets.front().rows.front().plan);
  // And an H100 in China, where it cannot be bought or rented new.
  FitRequest cn = fit_request({Task::lora}, {infer_shape(70e9)}, Fleet{"h100-sxm5", 8});
  cn.tasks.front().region = Region::cn;
  CHECK(fit(cn, shipped(), rules()).fleets.front().rows.front().plan);
}

TEST_CASE("fit says why a row does not fit, and nothing fitting is an answer", "[fit]") {
  FitRequest request = fit_request({Task::full}, {infer_shape(405e9)}, Fleet{"rtx-4090", 1});
  request.find_largest = false;
  const FitReport report = fit(request, shipped(), rules());
  const FitRow& row = report.fleets.front().rows.front();
  CHECK_FALSE(row.plan);
  REQUIRE(row.rejection);
  CHECK_FALSE(row.rejection->reasons.empty());
  CHECK_FALSE(report.anything_fits());
}

TEST_CASE("the defaults file is read with located errors", "[fit][defaults]") {
  const auto dir = std::filesystem::temp_directory_path() / "gpu-advise-config-test";
  std::filesystem::create_directories(dir);
  const auto path = dir / "config.yaml";
  const auto write = [&](const char* text) {
    std::ofstream out(path);
    out << text;
  };
  write("# defaults\nregion: cn\nlang: zh\ncurrency: usd\nbudget: 50k cny\n");
  const auto entries = load_config_file(path);
  REQUIRE(entries.size() == 4);
  CHECK(entries[0].key == "region");
  CHECK(entries[0].value == "cn");
  CHECK(entries[0].line == 2);
  CHECK(entries[3].value == "50k cny");
  write("");
  CHECK(load_config_file(path).empty());
  write("regoin: cn\nlang: fr\nbudget: lots\nregion: [cn]\n");
  try {
    (void)load_config_file(path);
    FAIL("a bad file was accepted");
  } catch (const DataError& e) {
    std::string all;
    for (const auto& d : e.diagnostics()) {
      all += d.to_string() + "\n";
    }
    CAPTURE(all);
    CHECK(e.diagnostics().size() == 4);
    CHECK_THAT(all, Catch::Contains(":1:1: regoin") && Catch::Contains("did you mean 'region'?"));
    CHECK_THAT(all, Catch::Contains(":2:") && Catch::Contains("'fr'"));
    CHECK_THAT(all, Catch::Contains(":3:") && Catch::Contains("budget: 'lots'"));
  }
  write("region: cn\nregion: global\n");
  CHECK_THROWS_AS(load_config_file(path), DataError);  // a key given twice
  std::filesystem::remove_all(dir);
}

TEST_CASE("a YAML error quoting a raw byte is made valid UTF-8 (found by fuzz_defaults)", "[fit][defaults]") {
  // yaml-cpp names an escape's first byte raw: the backslash here precedes
  // U+202E, whose first byte alone is ill-formed UTF-8.
  try {
    (void)parse_config("\"lowoh\\\xe2\x80\xaenst\"\n", "config.yaml");
    FAIL("a bad escape was accepted");
  } catch (const DataError& e) {
    REQUIRE_FALSE(e.diagnostics().empty());
    for (const auto& d : e.diagnostics()) {
      const std::string message = d.to_string();
      CHECK(text::invalid_utf8_at(message) == std::string_view::npos);
      CHECK_THAT(message, Catch::Contains("\\xE2"));
    }
  }
}
