// A calibration: what `gpu-advise calibrate` fitted on a user's measurements
// of one card and one training stack (or serving engine), and what every
// estimate on that card and stack then uses (docs/calibration.md). Plain data:
// the fitting is in calibrate.hpp, the file in load/calibration_file.cpp.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_advise/enum_names.hpp"

namespace gpu_advise {

enum class CalibrationKind { training, serving };
[[nodiscard]] std::span<const EnumName<CalibrationKind>> names(CalibrationKind);  // "training", "serving"

// One figure of one measurement: as measured, as the model gave it before
// calibration, after it, and predicted from the other measurements alone.
struct CalibrationFigure {
  std::string metric;  // "tokens_per_s", "peak_memory_gib", "output_tokens_per_s", "tpot_ms", "ttft_ms"
  double measured = 0;
  double before = 0;
  double after = 0;
  std::optional<double> left_out;  // leave-one-out: fitted without this measurement
};

// Where a measurement came from, and how the calibration did on it.
struct CalibrationProvenance {
  std::string origin;  // FILE:LINE of the record
  std::string id;      // the record's id, or empty
  std::string what;    // "llama-3.1-8b lora, seq 4096 x 1, recompute none, 1 x h200-sxm"
  std::string source;  // the record's source, or empty
  std::string date;    // the record's date, or empty
  std::vector<CalibrationFigure> figures;
  // Why the measurement was not fitted: gpu-advise has no plan of its count
  // for it, or its speed is under the share of the card's weight-read bound
  // a serving engine reaches (calibrate.hpp).
  enum class Refusal { none, no_plan, below_bound, above_bound };
  Refusal refused = Refusal::none;
  double bound_share = 0;         // below_bound, above_bound: measured over the bound
  double bound_tokens_per_s = 0;  // below_bound, above_bound: the bound
};
[[nodiscard]] std::span<const EnumName<CalibrationProvenance::Refusal>> names(CalibrationProvenance::Refusal);

struct Calibration {
  CalibrationKind kind = CalibrationKind::training;
  std::string gpu;       // catalog id
  std::string key;       // the training stack ("hf") or serving engine ("vllm") it holds for
  std::string created;   // the date calibrate ran (YYYY-MM-DD)
  std::string newest;    // the newest measurement's date, or empty when none is dated
  int measurements = 0;  // fitted (refused ones are in `provenance`, not counted)
  // Speed: training multiplies the kernel efficiency by `factor`, serving the
  // engine's speed. The band is measured / predicted at the leave-one-out
  // extremes (fitted on three or more measurements; else the global band).
  // A fit whose left-out error is no smaller than the model's own error on
  // the same measurements is not applied (factor 1, no band).
  struct Speed {
    double factor = 1.0;
    int fitted_on = 0;
    bool applied = true;
    std::optional<double> model_error;   // the uncalibrated model's median error on the measurements
    std::optional<double> median_error;  // leave-one-out, |predicted - measured| / measured
    std::optional<double> max_error;
    std::optional<double> band_low;   // at most 1
    std::optional<double> band_high;  // at least 1
  };
  // Memory (training): the peak the model gives, less the runtime reserve,
  // becomes scale x it + offset.
  struct Memory {
    double scale = 1.0;
    double offset_gib = 0;
    int fitted_on = 0;
    bool applied = true;
    std::optional<double> model_error;
    std::optional<double> median_error;
    std::optional<double> max_error;
  };
  Speed speed;
  Memory memory;
  std::string file;  // where it was read from (stated in the output)
  std::vector<CalibrationProvenance> provenance;
};

// The calibration of `gpu` and `key` in `calibrations`, or nullptr.
[[nodiscard]] const Calibration* find_calibration(std::span<const Calibration> calibrations, CalibrationKind kind,
                                                  std::string_view gpu, std::string_view key);

}  // namespace gpu_advise
