// The Hugging Face config.json importer: any bytes either import (with a
// finite, non-negative shape) or raise a DataError.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpu_advise/error.hpp"
#include "gpu_advise/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpu_advise;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const ModelShape m = parse_hf_config(text, "config.json");
    if (!std::isfinite(m.params) || m.params < 0 || !std::isfinite(m.kv_bytes(4096, 2.0))) {
      std::abort();
    }
  } catch (const DataError&) {
  }
  return 0;
}
