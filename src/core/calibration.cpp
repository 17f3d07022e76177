#include "gpu_advise/calibration.hpp"

#include <algorithm>

namespace gpu_advise {

std::span<const EnumName<CalibrationKind>> names(CalibrationKind) {
  static constexpr EnumName<CalibrationKind> table[] = {{CalibrationKind::training, "training"},
                                                        {CalibrationKind::serving, "serving"}};
  return table;
}

std::span<const EnumName<CalibrationProvenance::Refusal>> names(CalibrationProvenance::Refusal) {
  using R = CalibrationProvenance::Refusal;
  static constexpr EnumName<R> table[] = {
      {R::none, "none"}, {R::no_plan, "no_plan"}, {R::below_bound, "below_bound"}, {R::above_bound, "above_bound"}};
  return table;
}

const Calibration* find_calibration(std::span<const Calibration> calibrations, CalibrationKind kind,
                                    std::string_view gpu, std::string_view key) {
  const auto found = std::find_if(calibrations.begin(), calibrations.end(),
                                  [&](const Calibration& c) { return c.kind == kind && c.gpu == gpu && c.key == key; });
  return found == calibrations.end() ? nullptr : &*found;
}

}  // namespace gpu_advise
