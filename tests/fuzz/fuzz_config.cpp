// The Hugging Face config.json importer: any bytes either import (with a
// finite shape of 1M to 100T parameters) or raise a DataError whose messages
// are valid UTF-8, whatever bytes the input held.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gpu_advise/error.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"

namespace {

void require_utf8(const std::string& message) {
  if (gpu_advise::text::invalid_utf8_at(message) != std::string_view::npos) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpu_advise;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const ModelShape m = parse_hf_config(text, "config.json");
    // The importer refuses shapes outside what --params accepts (units.hpp).
    if (!std::isfinite(m.params) || !(m.params >= min_parameter_count && m.params <= max_parameter_count)) {
      std::abort();
    }
    if (!std::isfinite(m.kv_bytes(4096, 2.0))) {
      std::abort();
    }
  } catch (const DataError& e) {
    if (e.diagnostics().empty()) {
      std::abort();
    }
    require_utf8(e.what());
    for (const Diagnostic& d : e.diagnostics()) {
      require_utf8(d.to_string());
    }
  }
  return 0;
}
