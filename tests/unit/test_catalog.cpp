#include <catch2/catch.hpp>

#include "catalog_fixture.hpp"
#include "errors_fixture.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"

using namespace gpu_advise;

namespace {
Catalog fixture() { return parse_catalog(test::valid_catalog, "cards.yaml", CatalogRole::base); }
}  // namespace

TEST_CASE("cards are found by id or alias, ignoring case, spaces and hyphens", "[catalog]") {
  const Catalog catalog = fixture();
  CHECK(catalog.find("test-80").match->id == "test-80");
  CHECK(catalog.find("TEST-80").match->id == "test-80");
  CHECK(catalog.find("test 80").match->id == "test-80");
  CHECK(catalog.find("t80").match->id == "test-80");
}

TEST_CASE("an alias shared by several cards is ambiguous and lists them", "[catalog]") {
  const Catalog catalog = fixture();
  const auto found = catalog.find("test");
  CHECK(found.match == nullptr);
  CHECK(found.candidates.size() == 2);
  CHECK_THROWS_WITH(catalog.resolve("Test"),
                    Catch::Contains("ambiguous") && Catch::Contains("test-80") && Catch::Contains("test-24"));
}

TEST_CASE("an unknown card gets a did-you-mean", "[catalog]") {
  const Catalog catalog = fixture();
  CHECK(catalog.find("tset-80").suggestion == std::optional<std::string>("test-80"));
  CHECK_THROWS_AS(catalog.resolve("tset-80"), UsageError);
  CHECK_THROWS_WITH(catalog.resolve("tset-80"), Catch::Contains("did you mean 'test-80'?"));
  CHECK_THROWS_WITH(catalog.resolve("zzzzzzzz"), Catch::Contains("catalog list"));
}

TEST_CASE("an overlay replaces cards by id and appends new ones", "[catalog]") {
  Catalog catalog = fixture();
  std::string overlay_text = test::valid_catalog;
  overlay_text.replace(overlay_text.find("id: test-24"), 11, "id: test-99");
  overlay_text.replace(overlay_text.find("name: \"Test 80GB\""), 17, "name: \"Replaced\"");
  const Catalog overlay = parse_catalog(overlay_text, "overlay.yaml", CatalogRole::overlay);
  catalog.merge(overlay);
  REQUIRE(catalog.size() == 3);
  CHECK(catalog.gpus()[0].name == "Replaced");
  CHECK(catalog.gpus()[0].origin == "overlay.yaml");
  CHECK(catalog.gpus()[1].id == "test-24");
  CHECK(catalog.gpus()[2].id == "test-99");
  CHECK(catalog.info().origins.size() == 2);
}

namespace {
std::string catalog_errors(const std::string& yaml, const Catalog* base) {
  return test::data_errors([&] { (void)parse_catalog(yaml, "overlay.yaml", CatalogRole::overlay, base); });
}

std::string with_replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}
}  // namespace

TEST_CASE("ids and aliases are compared the way lookups compare them", "[catalog][identity]") {
  const Catalog base = fixture();
  // Replacing a card needs its id as written; the same id spelt otherwise is an error naming both.
  CHECK(catalog_errors(test::valid_catalog, &base) == "no error");
  CHECK_THAT(catalog_errors(with_replaced(test::valid_catalog, "id: test-80", "id: test80"), &base),
             Catch::Contains("overlay.yaml:6:9: gpus[0].id: id 'test80' is the same as the card from cards.yaml "
                             "'test-80'"));
  // A new id that is an alias of a card below would hide that alias.
  CHECK_THAT(catalog_errors(with_replaced(test::valid_catalog, "id: test-24", "id: t80"), &base),
             Catch::Contains("id 't80' is also the alias 'T80' of test-80"));
  // An alias that is another card's id could never be used; one that normalises to nothing never matches.
  CHECK_THAT(
      catalog_errors(with_replaced(test::valid_catalog, "aliases: [\"Test\"]", "aliases: [\"TEST 80\"]"), nullptr),
      Catch::Contains("alias 'TEST 80' of 'test-24' is the id of card 'test-80'"));
  CHECK_THAT(catalog_errors(with_replaced(test::valid_catalog, "aliases: [\"Test\"]", "aliases: [\"- _\"]"), nullptr),
             Catch::Contains("alias '- _' is empty"));
  // Aliases shared by several cards stay allowed: lookups report them as ambiguous.
  CHECK(catalog_errors(test::valid_catalog, nullptr) == "no error");
}

TEST_CASE("merge matches ids in normalised form", "[catalog][identity]") {
  Catalog catalog = fixture();
  Catalog overlay = fixture();
  catalog.merge(overlay);
  CHECK(catalog.size() == 2);
}

TEST_CASE("overlays: CNY prices are bounded in USD, the rate is the catalog's, replaced cards keep their dates",
          "[catalog]") {
  const Catalog base = parse_catalog(test::valid_catalog, "cards.yaml", CatalogRole::base);
  Catalog with_rate = base;
  const std::string overlay_head = "schema_version: 1\ngpus:\n";
  // test-24 replaced by a card without launch month or node, with a CNY price.
  const std::string card = R"(  - id: test-24
    vendor: amd
    name: "Test 24GB"
    architecture: cdna3
    release_year: 2022
    form_factor: pcie
    memory: {size_gb: 24, capacity_gib: 24, type: GDDR6, bandwidth_gb_per_s: 1000}
    compute: {bf16_tflops: 150}
    interconnect: {name: "PCIe", bandwidth_gb_per_s: 64, domain_size: 1}
    software: rocm
    availability:
      global: {status: available, verified: "2026"}
      cn: {status: available, verified: "2026"}
    prices:
      rent_usd_per_gpu_hour:
        - {cny: PRICE, provider: "P", kind: on_demand, region: cn, date: "2026-10", source: "s"}
    confidence: secondary
    sources: ["review"]
)";
  auto overlay = [&](const std::string& price) {
    std::string text = card;
    text.replace(text.find("PRICE"), 5, price);
    return overlay_head + text;
  };
  // No rate in the built-in test catalog: a CNY price is an error that says why.
  CHECK_THAT(catalog_errors(overlay("14"), &base), Catch::Contains("needs the catalog's exchange_rate"));
  // With one, a price converts and is bounded after conversion (0.05 CNY is under $0.01).
  const std::string rated = with_replaced(test::valid_catalog, "  updated: \"2026-11-29\"\n",
                                          "  updated: \"2026-11-29\"\n  exchange_rate: {cny_per_usd: 7.0, date: "
                                          "\"2026-11\", source: \"test\"}\n");
  with_rate = parse_catalog(rated, "cards.yaml", CatalogRole::base);
  CHECK_THAT(catalog_errors(overlay("0.05"), &with_rate), Catch::Contains("outside 0.01 to 1000 USD"));
  const Catalog merged_from = parse_catalog(overlay("14"), "overlay.yaml", CatalogRole::overlay, &with_rate);
  const GpuSpec& replaced = merged_from.gpus().front();
  CHECK(replaced.rent_usd_per_gpu_hour.front().low_usd == Approx(2.0));
  CHECK(replaced.rent_usd_per_gpu_hour.front().quoted_in == Currency::cny);
  CHECK(replaced.launched == "2022-06");  // kept from the card it replaces
  CHECK(replaced.node.scale_out_gbps_per_gpu == Approx(25));
  // An overlay cannot bring its own rate.
  CHECK_THAT(
      catalog_errors(overlay_head.substr(0, 18) +
                         "catalog: {version: x, updated: \"2026-12-01\", exchange_rate: {cny_per_usd: 7.2, "
                         "date: \"2026-12\", source: s}}\ngpus:\n" +
                         card.substr(0, card.find("    prices:")) + "    confidence: secondary\n    sources: [\"r\"]\n",
                     &with_rate),
      Catch::Contains("an overlay cannot set the exchange rate"));
}
