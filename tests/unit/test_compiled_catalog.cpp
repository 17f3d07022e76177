// The catalog compiled at build time (src/codegen/compile_catalog.cpp) must be
// the catalog the run-time loader reads from data/gpus.yaml, field for field.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "gpu_advise/catalog.hpp"
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
