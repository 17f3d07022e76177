// Estimates against published measurements (docs/validation.md): each case
// within its tolerance, and for ranged figures the published value inside the
// estimate's low-high range. docs/validation.md's table must match the code.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "cases.hpp"

using namespace gpu_advise;
using namespace gpu_advise::validation;

TEST_CASE("estimates agree with published measurements", "[validation]") {
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  const auto all = cases();
  REQUIRE(all.size() >= 12);
  for (const Case& c : all) {
    const Result r = evaluate(c, catalog, models);
    CAPTURE(c.id, c.published, r.estimate, r.error);
    CHECK(r.within_tolerance);
    CHECK(r.inside_range);
  }
}

TEST_CASE("docs/validation.md shows the current estimates", "[validation][docs]") {
  std::ifstream in(GPU_ADVISE_SOURCE_DIR "/docs/validation.md");
  REQUIRE(in);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string doc = buffer.str();
  const std::string begin = "<!-- validation-table:begin -->\n";
  const std::string end = "<!-- validation-table:end -->";
  const auto from = doc.find(begin);
  const auto to = doc.find(end);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  const std::string table = doc.substr(from + begin.size(), to - from - begin.size());
  INFO("regenerate with: build/dev/tests/validation_report --update docs/validation.md");
  CHECK(table == report_table(load_embedded_catalog(), load_embedded_models()));
}
