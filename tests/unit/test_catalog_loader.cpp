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

TEST_CASE("the typical rent is one statistic: the median of the first tier with recent quotes", "[loader][tiers]") {
  auto quote = [](double usd, PriceTier tier, std::string date, Region region = Region::global) {
    PriceQuote q;
    q.low_usd = q.high_usd = usd;
    q.tier = tier;
    q.date = std::move(date);
    q.region = region;
    return q;
  };
  const std::string since = months_before("2026-12-07", 12);
  CHECK(since == "2025-12");
  CHECK(months_before("2026-01-15", 1) == "2025-12");
  CHECK(months_before("2026", 12).empty());
  CHECK(dated_since("2025-12-01", since));
  CHECK_FALSE(dated_since("2025-11-30", since));
  CHECK(dated_since("2026", since));  // a year alone reads as its January
  CHECK_FALSE(dated_since("2025", since));
  const std::vector<PriceQuote> quotes = {
      quote(2.0, PriceTier::specialist, "2026-09"),  quote(3.0, PriceTier::specialist, "2026-10-01"),
      quote(9.0, PriceTier::specialist, "2025-06"),  // too old: not in the typical, nor in the range
      quote(7.0, PriceTier::hyperscaler, "2026-11"), quote(1.0, PriceTier::marketplace, "2026-11"),
      quote(0.8, PriceTier::spot, "2026-11"),        quote(4.0, PriceTier::china_cloud, "2026-08", Region::cn)};
  const auto typical = rent_price(quotes, Region::global, std::nullopt, since);
  REQUIRE(typical);
  CHECK(typical->tier == PriceTier::specialist);
  CHECK(typical->quotes == 2);
  CHECK(typical->newest == "2026-10-01");
  CHECK(typical->range.typical == Approx(2.5));  // not 3.0 with the stale 9.0, nor the hyperscaler's 7.0
  CHECK(typical->range.low == Approx(0.8));      // the spread is every recent quote's
  CHECK(typical->range.high == Approx(7.0));
  // Without a specialist quote, the hyperscalers' list price; a tier asked for is its quotes alone.
  const std::vector<PriceQuote> no_specialist(quotes.begin() + 3, quotes.end());
  CHECK(rent_price(no_specialist, Region::global, std::nullopt, since)->tier == PriceTier::hyperscaler);
  const auto spot = rent_price(quotes, Region::global, PriceTier::spot, since);
  REQUIRE(spot);
  CHECK(spot->range.low == spot->range.high);
  CHECK(spot->range.typical == Approx(0.8));
  CHECK_FALSE(rent_price(quotes, Region::global, PriceTier::term, since));
  CHECK(rent_price(quotes, Region::cn, std::nullopt, since)->tier == PriceTier::china_cloud);
  // Every quote too old: no price (the caller says why).
  CHECK_FALSE(rent_price({quotes[2]}, Region::global, std::nullopt, since));
  CHECK(rent_price({quotes[2]}, Region::global, std::nullopt, "").has_value());
  const auto tiers = rent_tiers(quotes, Region::global, since);
  REQUIRE(tiers.size() == 4);
  CHECK(tiers[0].tier == PriceTier::specialist);
  CHECK(tiers[3].tier == PriceTier::spot);
}

TEST_CASE("a rent quote's market tier is stated where its seller decides, and implied elsewhere", "[loader]") {
  const Catalog catalog = parse_catalog(valid_catalog, "cards.yaml", CatalogRole::base);
  CHECK(catalog.gpus().front().rent_usd_per_gpu_hour[0].tier == PriceTier::specialist);
  CHECK(catalog.gpus().front().rent_usd_per_gpu_hour[1].tier == PriceTier::survey);
  CHECK_THAT(first_message(replace(valid_catalog, "tier: specialist, ", "")),
             Catch::Contains("rent_usd_per_gpu_hour[0].tier: required key is missing"));
  // An overlay may leave it out: its own on-demand price is a specialist's.
  const Catalog overlay =
      parse_catalog(replace(valid_catalog, "tier: specialist, ", ""), "o.yaml", CatalogRole::overlay);
  CHECK(overlay.gpus().front().rent_usd_per_gpu_hour[0].tier == PriceTier::specialist);
  CHECK_THAT(first_message(replace(valid_catalog, "tier: specialist, kind: on_demand", "tier: specialist, kind: spot")),
             Catch::Contains("a spot quote in region global is in the spot tier already: leave 'tier' out"));
  CHECK_THAT(first_message(replace(valid_catalog, "tier: specialist", "tier: term")),
             Catch::Contains("'term' is not the tier of a global on-demand or market-range quote"));
  CHECK_THAT(first_message(replace(valid_catalog, "tier: specialist", "tier: boutique")),
             Catch::Contains("'boutique' is not valid"));
  const Catalog term =
      parse_catalog(replace(valid_catalog, "tier: specialist, kind: on_demand", "kind: reserved, term_months: 36"),
                    "t.yaml", CatalogRole::base);
  CHECK(term.gpus().front().rent_usd_per_gpu_hour[0].tier == PriceTier::term);
  CHECK(term.gpus().front().rent_usd_per_gpu_hour[0].term_months == 36);
  CHECK_THAT(first_message(replace(valid_catalog, "kind: on_demand,", "kind: on_demand, term_months: 12,")),
             Catch::Contains("give term_months with kind: reserved"));
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
  const std::string with_region =
      replace(valid_catalog, "tier: specialist, kind: on_demand, date", "kind: on_demand, region: cn, date");
  const Catalog catalog = parse_catalog(with_region, "cards.yaml", CatalogRole::base);
  CHECK(catalog.gpus().front().rent_usd_per_gpu_hour.front().region == Region::cn);
  CHECK_THAT(first_message(replace(valid_catalog, "tier: specialist, kind: on_demand, date",
                                   "kind: on_demand, region: china, date")),
             Catch::Contains("'china' is not valid; expected global or cn"));
}
