// The catalog loader: any bytes either load or raise a DataError with located
// diagnostics; nothing else escapes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpu_advise;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const Catalog catalog = parse_catalog(text, "fuzz.yaml", CatalogRole::overlay);
    for (const auto& gpu : catalog.gpus()) {
      if (gpu.memory.capacity_gib < 0 || gpu.compute.bf16_tflops < 0) {
        std::abort();
      }
    }
  } catch (const DataError& e) {
    if (e.diagnostics().empty()) {
      std::abort();
    }
  }
  try {
    (void)parse_models(text, "fuzz.yaml");
  } catch (const DataError&) {
  }
  return 0;
}
