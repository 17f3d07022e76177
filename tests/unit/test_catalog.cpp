#include <catch2/catch.hpp>

#include "catalog_fixture.hpp"
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
  CHECK_THROWS_WITH(catalog.resolve("Test"), Catch::Contains("ambiguous") && Catch::Contains("test-80") &&
                                                 Catch::Contains("test-24"));
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
