#include <catch2/catch.hpp>

#include "catalog_fixture.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"

using namespace gpu_advise;
using gpu_advise::test::valid_catalog;

namespace {

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::vector<Diagnostic> diagnostics_of(const std::string& yaml) {
  try {
    (void)parse_catalog(yaml, "cards.yaml", CatalogRole::base);
  } catch (const DataError& e) {
    return e.diagnostics();
  }
  FAIL("expected a DataError");
  return {};
}

std::string first_message(const std::string& yaml) {
  const auto list = diagnostics_of(yaml);
  REQUIRE_FALSE(list.empty());
  return list.front().to_string();
}

std::string all_messages(const std::string& yaml) {
  std::string out;
  for (const auto& d : diagnostics_of(yaml)) {
    out += d.to_string() + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("a valid catalog loads every field", "[loader]") {
  const Catalog catalog = parse_catalog(valid_catalog, "cards.yaml", CatalogRole::base);
  REQUIRE(catalog.size() == 2);
  const GpuSpec& g = catalog.gpus().front();
  CHECK(g.id == "test-80");
  CHECK(g.vendor == Vendor::nvidia);
  CHECK(g.architecture == Architecture::hopper);
  CHECK(g.memory.capacity_gib == 80);
  CHECK(g.memory.bandwidth_gb_per_s == 3000);
  CHECK(g.compute.bf16_tflops == 1000);
  CHECK(g.compute.fp8_tflops == std::optional<double>(2000));
  CHECK_FALSE(g.compute.fp4_tflops.has_value());
  CHECK(g.interconnect.domain_size == 8);
  CHECK(g.availability_in(Region::cn)->status == AvailabilityStatus::banned);
  CHECK(g.availability_in(Region::cn)->since == "2022-09");
  REQUIRE(g.rent_usd_per_gpu_hour.size() == 2);
  CHECK(g.rent_usd_per_gpu_hour[1].low_usd == 1.0);
  CHECK(g.rent_usd_per_gpu_hour[1].high_usd == 4.0);
  CHECK(g.confidence_of("tdp_w") == Confidence::estimate);
  CHECK(g.confidence_of("memory.size_gb") == Confidence::datasheet);
  CHECK(catalog.info().version == "test");
}

TEST_CASE("price ranges come from the quotes", "[loader]") {
  const Catalog catalog = parse_catalog(valid_catalog, "cards.yaml", CatalogRole::base);
  const auto range = price_range(catalog.gpus().front().rent_usd_per_gpu_hour);
  REQUIRE(range);
  CHECK(range->low == 1.0);
  CHECK(range->high == 4.0);
  CHECK(range->typical == 2.0);  // the on-demand quote, not the market range's midpoint
  CHECK_FALSE(price_range({}).has_value());
}

TEST_CASE("problems are located as FILE:LINE:COL: key.path: message", "[loader]") {
  const auto message = first_message(replace(valid_catalog, "bandwidth_gb_per_s: 3000", "bandwidth_gb_per_s: -3000"));
  CHECK(message == "cards.yaml:17:27: gpus[0].memory.bandwidth_gb_per_s: must not be negative, found -3000");
}

TEST_CASE("unknown keys are errors with a did-you-mean", "[loader]") {
  const auto messages = all_messages(replace(valid_catalog, "bandwidth_gb_per_s: 3000", "bandwith_gb_per_s: 3000"));
  CHECK_THAT(messages,
             Catch::Contains("gpus[0].memory.bandwith_gb_per_s: unknown key; did you mean 'bandwidth_gb_per_s'?"));
  CHECK_THAT(
      messages,
      Catch::Contains(
          "gpus[0].memory.bandwidth_gb_per_s: required key is missing (is 'bandwith_gb_per_s' a misspelling of it?)"));
}

TEST_CASE("bad enum values list the valid ones and suggest one", "[loader]") {
  const auto message = first_message(replace(valid_catalog, "vendor: nvidia", "vendor: nvdia"));
  CHECK_THAT(message,
             Catch::Contains(
                 "gpus[0].vendor: 'nvdia' is not valid; expected nvidia, amd, huawei, intel, baidu, cambricon or hygon "
                 "(did you mean 'nvidia'?)"));
}

TEST_CASE("wrong types, missing and out-of-range values are errors", "[loader]") {
  CHECK_THAT(first_message(replace(valid_catalog, "size_gb: 80", "size_gb: eighty")),
             Catch::Contains("memory.size_gb: expected a number, found 'eighty'"));
  CHECK_THAT(first_message(replace(valid_catalog, "size_gb: 80", "size_gb: \"80\"")),
             Catch::Contains("expected a number, found the quoted string \"80\""));
  CHECK_THAT(first_message(replace(valid_catalog, "      size_gb: 80\n", "")),
             Catch::Contains("gpus[0].memory.size_gb: required key is missing"));
  CHECK_THAT(first_message(replace(valid_catalog, "bf16_tflops: 1000", "bf16_tflops: 0")),
             Catch::Contains("compute.bf16_tflops: must be greater than 0"));
  CHECK_THAT(first_message(replace(valid_catalog, "bf16_tflops: 1000", "bf16_tflops: 990000000")),
             Catch::Contains("outside the plausible range"));
  CHECK_THAT(first_message(replace(valid_catalog, "bf16_tflops: 1000", "bf16_tflops: .nan")),
             Catch::Contains("expected a number"));
  CHECK_THAT(first_message(replace(valid_catalog, "release_year: 2023", "release_year: 2023.5")),
             Catch::Contains("release_year: expected a whole number"));
  CHECK_THAT(first_message(replace(valid_catalog, "verified: \"2026-05\"", "verified: \"May 2026\"")),
             Catch::Contains("availability.global.verified: 'May 2026' is not a date"));
  CHECK_THAT(first_message(replace(valid_catalog, "capacity_gib: 80", "capacity_gib: 800")),
             Catch::Contains("more than the card's 80 GB label allows"));
  CHECK_THAT(first_message(replace(valid_catalog, "usd: [1.0, 4.0]", "usd: [4.0, 1.0]")),
             Catch::Contains("low 4 is above high 1"));
  CHECK_THAT(all_messages(replace(valid_catalog, "tdp_w: estimate", "tdp: estimate")),
             Catch::Contains("field_confidence.tdp: unknown key; did you mean 'tdp_w'?"));
  CHECK_THAT(first_message(replace(valid_catalog, "id: test-80", "id: Test 80")),
             Catch::Contains("'Test 80' is not a valid id"));
}

TEST_CASE("duplicate ids and duplicate keys are errors", "[loader]") {
  CHECK_THAT(first_message(replace(valid_catalog, "id: test-24", "id: test-80")),
             Catch::Contains("duplicate id 'test-80' (first defined at line 6)"));
  CHECK_THAT(first_message(replace(valid_catalog, "    pcie_gen: 5\n", "    pcie_gen: 5\n    pcie_gen: 4\n")),
             Catch::Contains("gpus[0].pcie_gen: duplicate key (first defined at line 25)"));
}

TEST_CASE("every problem in a file is reported before failing", "[loader]") {
  std::string broken = replace(valid_catalog, "vendor: nvidia", "vendor: nvdia");
  broken = replace(broken, "size_gb: 24", "size_gb: -24");
  broken = replace(broken, "software: rocm", "sofware: rocm");
  const auto list = diagnostics_of(broken);
  CHECK(list.size() >= 4);  // bad vendor, negative size, unknown key, missing software
}

TEST_CASE("syntax errors and empty documents are located errors", "[loader]") {
  CHECK_THAT(first_message("gpus: [\n"), Catch::StartsWith("cards.yaml:") && Catch::Contains("not valid YAML"));
  CHECK_THAT(first_message(""), Catch::Contains("empty"));
  CHECK_THAT(first_message("- just\n- a list\n"), Catch::Contains("expected a mapping"));
  CHECK_THAT(first_message("schema_version: 2\ncatalog: {version: x, updated: '2026'}\ngpus: []\n"),
             Catch::Contains("version 2 is not supported"));
}

TEST_CASE("overlays may omit the catalog header, the base may not", "[loader]") {
  const std::string overlay = replace(valid_catalog, "catalog:\n  version: \"test\"\n  updated: \"2026-11-29\"\n", "");
  CHECK(parse_catalog(overlay, "overlay.yaml", CatalogRole::overlay).size() == 2);
  CHECK_THROWS_AS(parse_catalog(overlay, "overlay.yaml", CatalogRole::base), DataError);
}

TEST_CASE("files that are missing, directories or empty give located errors", "[loader]") {
  const std::string data = GPU_ADVISE_TEST_DATA;
  CHECK_THROWS_WITH(load_catalog_file(data + "/does-not-exist.yaml", CatalogRole::overlay),
                    Catch::Contains("no such file"));
  CHECK_THROWS_WITH(load_catalog_file(data, CatalogRole::overlay), Catch::Contains("directory"));
  CHECK_THROWS_WITH(load_catalog_file(data + "/empty.yaml", CatalogRole::overlay), Catch::Contains("empty"));
}

TEST_CASE("regional quotes price their region only", "[loader]") {
  PriceQuote global_quote{2.0, 2.0, "g", PriceKind::on_demand, Condition::new_card, Region::global, "2026", "s"};
  PriceQuote china_quote{1.0, 1.0, "c", PriceKind::on_demand, Condition::new_card, Region::cn, "2026", "s"};
  CHECK(price_range({global_quote, china_quote}, Region::global)->typical == 2.0);
  CHECK(price_range({global_quote, china_quote}, Region::cn)->typical == 1.0);
  CHECK_FALSE(price_range({china_quote}, Region::global).has_value());
  const std::string with_region = replace(valid_catalog, "kind: on_demand, date", "kind: on_demand, region: cn, date");
  const Catalog catalog = parse_catalog(with_region, "cards.yaml", CatalogRole::base);
  CHECK(catalog.gpus().front().rent_usd_per_gpu_hour.front().region == Region::cn);
  CHECK_THAT(first_message(replace(valid_catalog, "kind: on_demand, date", "kind: on_demand, region: china, date")),
             Catch::Contains("'china' is not valid; expected global or cn"));
}
