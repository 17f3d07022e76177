// The calibration file `gpu-advise calibrate -o FILE` writes and
// --calibration reads (docs/calibration.md, "The calibration file"): plain
// YAML a person can read and edit, checked like the catalog, every problem
// located.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_advise/calibration.hpp"
#include "gpu_advise/catalog.hpp"

namespace gpu_advise {

inline constexpr int calibration_file_version = 1;

// The file's text for `calibrations`; `tool` names the version that made it.
[[nodiscard]] std::string write_calibration_file(std::span<const Calibration> calibrations, std::string_view tool);

// Parses a calibration file; cards must be the catalog's. Throws DataError
// with every problem located (`file` names it; each calibration keeps it).
[[nodiscard]] std::vector<Calibration> parse_calibration_file(std::string_view text, const std::string& file,
                                                              const Catalog& catalog);
[[nodiscard]] std::vector<Calibration> load_calibration_file(const std::string& file, const Catalog& catalog);

}  // namespace gpu_advise
