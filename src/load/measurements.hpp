// Measurement records (docs/calibration.md, "Records"): JSON Lines, one
// measured run a line, or a CSV whose header names the same keys. Every key is
// declared; an unknown one, a missing one, a value out of range, a card or
// model the tool does not know is a located problem (FILE:LINE), all of them
// collected and thrown together as a DataError.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpu_advise/calibrate.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/model.hpp"

namespace gpu_advise {

// The most records one file, and one calibrate run, may hold: each is sized
// at 241 speed factors (5,000 take about ten seconds on two cores), and the
// calibration file keeps some 30 values of each (the YAML reader's limit is
// 200,000).
inline constexpr std::size_t max_measurements = 5000;

// The records of one file's text, with the cards and models they name;
// `file` is how messages name it, and a model_config path is read relative
// to its folder. CSV when `file` ends in .csv, else JSON Lines.
[[nodiscard]] std::vector<MeasuredRun> parse_measurements(std::string_view text, const std::string& file,
                                                          const Catalog& catalog, const ModelCatalog& models);

// The same for a file on disk (read with read_data_file's checks).
[[nodiscard]] std::vector<MeasuredRun> load_measurements(const std::string& file, const Catalog& catalog,
                                                         const ModelCatalog& models);

}  // namespace gpu_advise
