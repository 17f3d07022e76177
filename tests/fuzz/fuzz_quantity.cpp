// Every parser of typed-in quantities: any input either parses or raises the
// documented error, and parsed values are in their documented ranges.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpu_advise/error.hpp"
#include "gpu_advise/request.hpp"
#include "gpu_advise/units.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpu_advise;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const double count = parse_parameter_count(text);
    if (!(count >= min_parameter_count && count <= max_parameter_count)) {
      std::abort();
    }
  } catch (const QuantityError&) {
  }
  try {
    const auto value = parse_positive_integer(text, 100000);
    if (value < 1 || value > 100000) {
      std::abort();
    }
  } catch (const QuantityError&) {
  }
  try {
    const double hours = parse_duration_hours(text);
    if (!(hours > 0 && std::isfinite(hours))) {
      std::abort();
    }
  } catch (const QuantityError&) {
  }
  try {
    const double value = parse_positive_number(text, 1e6);
    if (!(value > 0 && value <= 1e6)) {
      std::abort();
    }
  } catch (const QuantityError&) {
  }
  try {
    const auto budget = parse_budget_choice(text, "--budget");
    if (budget.amount && !(budget.amount->value > 0 && std::isfinite(budget.amount->value))) {
      std::abort();
    }
  } catch (const UsageError&) {
  }
  try {
    (void)parse_task(text, "--task");
  } catch (const UsageError&) {
  }
  try {
    (void)parse_lora_targets(text, "--lora-targets");
  } catch (const UsageError&) {
  }
  return 0;
}
