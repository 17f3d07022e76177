#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "catalog_fixture.hpp"
#include "gpu_advise/advisor.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_fixture.hpp"
#include "render/text_table.hpp"

using namespace gpu_advise;

namespace {
Report lora_report(double params = 7e9) {
  Request r;
  r.params = params;
  r.task = Task::lora;
  r.budget = BudgetTier::low;
  return advise(r, infer_shape(r.params), parse_catalog(test::valid_catalog, "cards.yaml", CatalogRole::base),
                load_embedded_rules());
}
}  // namespace

TEST_CASE("JSON carries the versioned contract", "[render][json]") {
  const auto doc = nlohmann::json::parse(render_json(lora_report()));
  CHECK(doc["schema_version"] == json_schema_version);
  CHECK(doc["tool"]["name"] == "gpu-advise");
  CHECK(doc["request"]["task"] == "lora");
  CHECK(doc["request"]["params"] == 7e9);
  CHECK(doc["outcome"] == "recommended");
  const auto& first = doc["recommendations"][0];
  for (const char* key : {"rank", "gpu", "count", "memory_gb", "objective", "rationale", "training", "cost_usd"}) {
    CAPTURE(key);
    CHECK(first.contains(key));
  }
  CHECK(first["gpu"].contains("id"));
  CHECK(first["gpu"].contains("name"));
  CHECK(first["memory_gb"].contains("per_gpu"));
  CHECK(first["memory_gb"].contains("capacity_per_gpu"));
  // An "80 GB" HBM card holds 80 GiB = 85.9 GB.
  for (const auto& r : doc["recommendations"]) {
    if (r["gpu"]["id"] == "test-80") {
      CHECK(r["memory_gb"]["capacity_per_gpu"].get<double>() == Approx(85.8993));
    }
  }
  CHECK(doc["recommendations"].size() + doc["rejected"].size() == 2);
}

TEST_CASE("rendering keeps no state between reports", "[render][json]") {
  // A, then other reports in both languages and every format, then A again: the same bytes.
  // (Byte-identical output across processes and builds is what the golden tests check.)
  const Report a = lora_report();
  const std::string first = render_json(a);
  Request other = test::request(7e9, Task::inference);
  const Report b = advise(other, infer_shape(other.params), load_embedded_catalog(), load_embedded_rules());
  for (const Language l : {Language::zh, Language::en}) {
    (void)render_json(b, l);
    (void)render_text(b, l);
    (void)render_markdown(b, l);
    (void)render_html(b, l);
  }
  CHECK(render_json(a) == first);
  CHECK(render_json(a, Language::zh) != first);  // the language is the renderer's, not the Report's
}

TEST_CASE("text output puts the answer first and explains it", "[render][text]") {
  const std::string text = render_text(lora_report());
  const auto best = text.find("Best: ");
  REQUIRE(best != std::string::npos);
  CHECK(best < text.find("Why #1"));
  CHECK_THAT(text, Catch::Contains("Assumptions:"));
}

TEST_CASE("text output says plainly when nothing fits", "[render][text]") {
  Request r;
  r.params = 1e14;
  r.task = Task::full;
  r.max_gpus = 8;
  const Report report =
      advise(r, infer_shape(r.params), parse_catalog(test::valid_catalog, "cards.yaml", CatalogRole::base),
             load_embedded_rules());
  const std::string text = render_text(report);
  CHECK_THAT(text, Catch::Contains("Nothing fits"));
  const auto doc = nlohmann::json::parse(render_json(report));
  CHECK(doc["outcome"] == "nothing_fits");
  CHECK(doc["recommendations"].empty());
  CHECK(doc["rejected"].size() == 2);
}

TEST_CASE("table columns align, counting wide characters as two", "[render][table]") {
  CHECK(render::display_width("abc") == 3);
  CHECK(render::display_width("显存") == 4);
  render::Table table({{"a", render::Align::left}, {"n", render::Align::right}});
  table.add_row({"xx", "1"});
  table.add_row({"显", "22"});
  CHECK(table.to_string() == "a    n\nxx   1\n显  22\n");
}

TEST_CASE("catalog views show every card and its sources", "[render]") {
  const Catalog catalog = parse_catalog(test::valid_catalog, "cards.yaml", CatalogRole::base);
  const std::string list = render_catalog_list_text(catalog);
  CHECK_THAT(list, Catch::Contains("test-80") && Catch::Contains("test-24"));
  const std::string show = render_gpu_text(catalog.gpus().front());
  CHECK_THAT(show, Catch::Contains("datasheet") && Catch::Contains("[estimate]"));
  const auto doc = nlohmann::json::parse(render_catalog_list_json(catalog));
  CHECK(doc["gpus"].size() == 2);
  CHECK(doc["gpus"][0]["compute"]["fp4_tflops"].is_null());
}
