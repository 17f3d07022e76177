// The calibration readers: any bytes, as measurement records (JSON Lines and
// CSV) or as a calibration file, either parse into records and calibrations
// with sane figures or raise a DataError with located diagnostics; nothing
// else escapes. (calibrate() itself sizes each record many times: it is
// exercised by the unit tests, not here.)
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/model.hpp"
#include "load/calibration_file.hpp"
#include "load/measurements.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpu_advise;
  static const Catalog catalog = load_embedded_catalog();
  static const ModelCatalog models = load_embedded_models();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* file : {"fuzz/records.jsonl", "fuzz/records.csv"}) {
    try {
      for (const MeasuredRun& run : parse_measurements(text, file, catalog, models)) {
        const Measurement& m = run.measurement;
        if (m.count < 1 || catalog.find(m.gpu).match == nullptr || run.model.params <= 0 ||
            (m.tokens_per_s && !std::isfinite(*m.tokens_per_s))) {
          std::abort();
        }
      }
    } catch (const DataError& e) {
      if (e.diagnostics().empty()) {
        std::abort();
      }
    }
  }
  try {
    for (const Calibration& c : parse_calibration_file(text, "fuzz/calibration.yaml", catalog)) {
      if (!(c.speed.factor > 0) || !std::isfinite(c.speed.factor) || catalog.find(c.gpu).match == nullptr) {
        std::abort();
      }
    }
  } catch (const DataError& e) {
    if (e.diagnostics().empty()) {
      std::abort();
    }
  }
  return 0;
}
