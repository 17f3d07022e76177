// The data compiled at build time (src/codegen/compile_data.cpp) must be what
// the run-time loaders read from data/gpus.yaml, data/rules.yaml and
// data/models.yaml, field for field.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/rules.hpp"
#include "load/files.hpp"

using namespace gpu_advise;

TEST_CASE("the compiled catalog equals data/gpus.yaml parsed at run time", "[catalog][data]") {
  const Catalog parsed = parse_catalog(read_data_file(GPU_ADVISE_SOURCE_DIR "/data/gpus.yaml"),
                                       "embedded:data/gpus.yaml", CatalogRole::base);
  const Catalog compiled = load_embedded_catalog();
  CHECK(compiled.info() == parsed.info());
  CHECK(compiled.efficiency() == parsed.efficiency());
  REQUIRE(compiled.size() == parsed.size());
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    const GpuSpec& want = parsed.gpus()[i];
    const GpuSpec& got = compiled.gpus()[i];
    CAPTURE(want.id);
    CHECK(got.id == want.id);
    CHECK(got.memory == want.memory);
    CHECK(got.compute == want.compute);
    CHECK(got.availability == want.availability);
    CHECK(got.rent_usd_per_gpu_hour == want.rent_usd_per_gpu_hour);
    CHECK(got.purchase_usd_per_card == want.purchase_usd_per_card);
    CHECK(got.sources == want.sources);
    CHECK(got.notes == want.notes);
    CHECK(got == want);
  }
  CHECK(compiled == parsed);
}

TEST_CASE("the compiled catalog keeps text that needs escaping", "[catalog][data]") {
  // data/gpus.yaml holds non-ASCII text (e.g. "—", Chinese provider names) and
  // quotes; a card that differs only in one such byte must compare unequal.
  const Catalog compiled = load_embedded_catalog();
  bool has_non_ascii = false;
  for (const auto& g : compiled.gpus()) {
    for (const char c : g.notes + g.name) {
      has_non_ascii = has_non_ascii || static_cast<unsigned char>(c) >= 0x80;
    }
    for (const auto& q : g.rent_usd_per_gpu_hour) {
      for (const char c : q.provider + q.source) {
        has_non_ascii = has_non_ascii || static_cast<unsigned char>(c) >= 0x80;
      }
    }
  }
  CHECK(has_non_ascii);
  GpuSpec changed = compiled.gpus().front();
  changed.notes += "\xE2\x80\x94";
  CHECK_FALSE(changed == compiled.gpus().front());
}

TEST_CASE("the compiled rules equal data/rules.yaml parsed at run time", "[rules][data]") {
  const RuleSet parsed = parse_rules(read_data_file(GPU_ADVISE_SOURCE_DIR "/data/rules.yaml"),
                                     "embedded:data/rules.yaml", RulesRole::base);
  const RuleSet compiled = load_embedded_rules();
  REQUIRE(compiled.rules().size() == parsed.rules().size());
  REQUIRE_FALSE(parsed.rules().empty());
  for (std::size_t i = 0; i < parsed.rules().size(); ++i) {
    const Rule& want = parsed.rules()[i];
    const Rule& got = compiled.rules()[i];
    CAPTURE(want.id, want.origin);
    CHECK(got.when == want.when);
    CHECK(got.message == want.message);
    CHECK(got == want);
  }
  CHECK(compiled == parsed);
  // A one-byte change in a message must make them differ (the test can fail).
  RuleSet changed = parsed;
  Rule edited = parsed.rules().front();
  edited.message[Language::zh] += "\xe3\x80\x82";
  changed.merge(RuleSet({edited}));
  CHECK_FALSE(compiled == changed);
}

TEST_CASE("the compiled model presets equal data/models.yaml parsed at run time", "[model][data]") {
  const ModelCatalog parsed =
      parse_models(read_data_file(GPU_ADVISE_SOURCE_DIR "/data/models.yaml"), "embedded:data/models.yaml");
  const ModelCatalog compiled = load_embedded_models();
  REQUIRE(compiled.models().size() == parsed.models().size());
  bool moe = false;
  bool mla = false;
  bool window = false;
  for (std::size_t i = 0; i < parsed.models().size(); ++i) {
    const ModelShape& want = parsed.models()[i];
    CAPTURE(want.id);
    CHECK(compiled.models()[i] == want);
    moe = moe || want.moe.has_value();
    mla = mla || want.mla.has_value();
    window = window || want.sliding_window.has_value();
  }
  // Every optional part of a shape is exercised by the shipped presets.
  CHECK(moe);
  CHECK(mla);
  CHECK(window);
  CHECK(compiled == parsed);
}
