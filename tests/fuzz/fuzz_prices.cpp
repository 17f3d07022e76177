// The price file reader: any bytes, as a SkyPilot file or a quotes file,
// either parse into quotes with sane figures or raise a DataError with
// located diagnostics; nothing else escapes.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/prices.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpu_advise;
  static const Catalog catalog = load_embedded_catalog();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* provider : {"fuzzcloud", ""}) {
    try {
      const PriceBook book = parse_price_file(text, PriceFileArg{"fuzz/vms.csv", provider}, "2026-12-01", catalog);
      for (const auto& q : book.quotes) {
        if (!(q.quote.low_usd > 0) || !std::isfinite(q.quote.low_usd) || q.quote.gpus_per_instance < 0 ||
            catalog.find(q.gpu_id).match == nullptr) {
          std::abort();
        }
      }
      (void)with_prices(catalog, book);
    } catch (const DataError& e) {
      if (e.diagnostics().empty()) {
        std::abort();
      }
    }
  }
  return 0;
}
