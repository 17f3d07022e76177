#include "core/quantity_format.hpp"

#include <fmt/format.h>

#include "gpu_advise/units.hpp"

namespace gpu_advise::format {

std::string gib(double bytes) { return fmt::format("{:.1f}", bytes / bytes_per_gib); }

std::string money(double usd) {
  if (usd >= 1e6) {
    return fmt::format("${:.2f}M", usd / 1e6);
  }
  if (usd >= 1e4) {
    return fmt::format("${:.0f}k", usd / 1e3);
  }
  if (usd >= 100) {
    return fmt::format("${:.0f}", usd);
  }
  return fmt::format("${:.2f}", usd);
}

std::string number(double value) { return fmt::format("{:.4g}", value); }

}  // namespace gpu_advise::format
