// Quantities typed by people: parameter counts ("70B", "1.5T", "405e9") and
// plain positive integers. Units live in names everywhere else (memory_gb,
// bandwidth_gb_per_s, ...): 1 GB = 1e9 bytes, 1 GiB = 2^30 bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpu_advise {

inline constexpr double bytes_per_gb = 1e9;
inline constexpr double bytes_per_gib = 1073741824.0;

[[nodiscard]] constexpr double gib_to_gb(double gib) { return gib * bytes_per_gib / bytes_per_gb; }
[[nodiscard]] constexpr double gb_to_gib(double gb) { return gb * bytes_per_gb / bytes_per_gib; }

// Thrown by the parsers below; the message says what was wrong and what would
// be valid, without naming the flag (the caller adds that).
class QuantityError : public std::exception {
 public:
  explicit QuantityError(std::string message) : m_message(std::move(message)) {}
  [[nodiscard]] const char* what() const noexcept override { return m_message.c_str(); }

 private:
  std::string m_message;
};

// Smallest and largest parameter counts accepted (1 million to 100 trillion).
inline constexpr double min_parameter_count = 1e6;
inline constexpr double max_parameter_count = 1e14;

// "70B", "7b", "1.5T", "405e9", "671B", "500M", "13000000000".
// Suffixes (case-insensitive): K = 1e3, M = 1e6, B = 1e9, T = 1e12.
// Throws QuantityError for anything else, zero, negatives, NaN, infinity, or a
// value outside [min_parameter_count, max_parameter_count].
[[nodiscard]] double parse_parameter_count(std::string_view text);

// A positive decimal integer in [1, max]. Throws QuantityError.
[[nodiscard]] std::int64_t parse_positive_integer(std::string_view text, std::int64_t max);

// A positive decimal number ("3", "0.5", "1.79") in (0, max]. Throws QuantityError.
[[nodiscard]] double parse_positive_number(std::string_view text, double max);

// A duration with a unit: "36h", "30d", "2w" (hours, days, weeks). Returns hours.
[[nodiscard]] double parse_duration_hours(std::string_view text);

// "70B" style rendering of a parameter count: 7e10 -> "70B", 1.5e12 -> "1.5T".
[[nodiscard]] std::string format_parameter_count(double count);

}  // namespace gpu_advise
