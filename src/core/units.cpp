#include "gpu_advise/units.hpp"

#include <charconv>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "gpu_advise/text.hpp"

namespace gpu_advise {

namespace {

constexpr std::string_view parameter_examples = "a positive count such as 70B, 7b, 1.5T, 500M or 405e9";

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

// Parses a plain decimal number ("70", "1.5", "405e9") that must use the whole
// string. No sign, no "nan"/"inf", no hex.
std::optional<double> parse_plain_number(std::string_view s) {
  if (s.empty() || !(is_ascii_digit(s.front()) || s.front() == '.')) {
    return std::nullopt;
  }
  double value = 0.0;
  const auto* const end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, value, std::chars_format::general);
  if (ptr != end) {
    return std::nullopt;
  }
  if (ec == std::errc::result_out_of_range) {
    return HUGE_VAL;  // reported as "too large" by the caller
  }
  if (ec != std::errc{}) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

double parse_parameter_count(std::string_view raw) {
  const std::string_view text = text::trim(raw);
  if (text.empty()) {
    throw QuantityError(fmt::format("empty value; expected {}", parameter_examples));
  }
  if (text.front() == '-') {
    throw QuantityError(fmt::format("'{}' is negative; expected {}", text::excerpt(raw), parameter_examples));
  }
  if (text.front() == '+') {
    throw QuantityError(fmt::format("'{}' has a sign; expected {}", text::excerpt(raw), parameter_examples));
  }

  double multiplier = 1.0;
  std::string_view number = text;
  const char last = text.back();
  if (!is_ascii_digit(last) && last != '.') {
    number = text.substr(0, text.size() - 1);
    switch (last) {
      case 'k':
      case 'K': multiplier = 1e3; break;
      case 'm':
      case 'M': multiplier = 1e6; break;
      case 'b':
      case 'B': multiplier = 1e9; break;
      case 't':
      case 'T': multiplier = 1e12; break;
      default:
        if (parse_plain_number(number)) {
          throw QuantityError(fmt::format("'{}' has an unknown suffix '{}'; use K, M, B or T, as in {}",
                                          text::excerpt(raw), text.substr(text.size() - 1), parameter_examples));
        }
        throw QuantityError(fmt::format("'{}' is not a number; expected {}", text::excerpt(raw), parameter_examples));
    }
  }

  const auto value = parse_plain_number(number);
  if (!value) {
    throw QuantityError(fmt::format("'{}' is not a number; expected {}", text::excerpt(raw), parameter_examples));
  }
  const double count = *value * multiplier;
  if (!std::isfinite(count) || count > max_parameter_count) {
    throw QuantityError(fmt::format("'{}' is too large; the largest accepted is 100T parameters", text::excerpt(raw)));
  }
  if (count <= 0.0) {
    throw QuantityError(fmt::format("'{}' is zero; expected {}", text::excerpt(raw), parameter_examples));
  }
  if (count < min_parameter_count) {
    throw QuantityError(fmt::format(
        "'{}' is {} parameters, below the smallest accepted (1M); did you forget a suffix such as B?", raw, count));
  }
  return count;
}

std::int64_t parse_positive_integer(std::string_view raw, std::int64_t max) {
  const std::string_view text = text::trim(raw);
  const auto expected = fmt::format("a whole number from 1 to {}", max);
  if (text.empty()) {
    throw QuantityError(fmt::format("empty value; expected {}", expected));
  }
  if (text.front() == '-') {
    throw QuantityError(fmt::format("'{}' is negative; expected {}", text::excerpt(raw), expected));
  }
  for (const char c : text) {
    if (!is_ascii_digit(c)) {
      throw QuantityError(fmt::format("'{}' is not a whole number; expected {}", text::excerpt(raw), expected));
    }
  }
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range || (ec == std::errc{} && value > max)) {
    throw QuantityError(fmt::format("'{}' is too large; expected {}", text::excerpt(raw), expected));
  }
  if (ec != std::errc{} || ptr != text.data() + text.size()) {
    throw QuantityError(fmt::format("'{}' is not a whole number; expected {}", text::excerpt(raw), expected));
  }
  if (value == 0) {
    throw QuantityError(fmt::format("'{}' is zero; expected {}", text::excerpt(raw), expected));
  }
  return value;
}

double parse_positive_number(std::string_view raw, double max) {
  const std::string_view text = text::trim(raw);
  const auto expected = fmt::format("a positive number up to {}", max);
  if (text.empty()) {
    throw QuantityError(fmt::format("empty value; expected {}", expected));
  }
  if (text.front() == '-') {
    throw QuantityError(fmt::format("'{}' is negative; expected {}", text::excerpt(raw), expected));
  }
  const auto value = parse_plain_number(text);
  if (!value) {
    throw QuantityError(fmt::format("'{}' is not a number; expected {}", text::excerpt(raw), expected));
  }
  if (!std::isfinite(*value) || *value > max) {
    throw QuantityError(fmt::format("'{}' is too large; expected {}", text::excerpt(raw), expected));
  }
  if (*value <= 0) {
    throw QuantityError(fmt::format("'{}' is zero; expected {}", text::excerpt(raw), expected));
  }
  return *value;
}

double parse_duration_hours(std::string_view raw) {
  const std::string_view text = text::trim(raw);
  constexpr std::string_view expected = "a duration such as 36h, 30d or 2w";
  if (text.empty()) {
    throw QuantityError(fmt::format("empty value; expected {}", expected));
  }
  double unit = 0;
  switch (text.back()) {
    case 'h':
    case 'H': unit = 1; break;
    case 'd':
    case 'D': unit = 24; break;
    case 'w':
    case 'W': unit = 168; break;
    default: throw QuantityError(fmt::format("'{}' has no unit; expected {}", text::excerpt(raw), expected));
  }
  double value = 0;
  try {
    value = parse_positive_number(text.substr(0, text.size() - 1), 1e6);
  } catch (const QuantityError&) {
    throw QuantityError(fmt::format("'{}' is not a positive duration; expected {}", text::excerpt(raw), expected));
  }
  const double hours = value * unit;
  if (hours > 100 * 8760.0) {
    throw QuantityError(fmt::format("'{}' is more than 100 years; expected {}", text::excerpt(raw), expected));
  }
  return hours;
}

std::string format_parameter_count(double count) {
  struct Scale {
    double factor;
    const char* suffix;
  };
  constexpr Scale scales[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}};
  for (const auto& scale : scales) {
    if (count >= scale.factor) {
      const double scaled = count / scale.factor;
      // Up to two decimals, trailing zeros dropped: 70B, 1.5T, 8.03B.
      std::string digits = fmt::format("{:.2f}", scaled);
      while (digits.back() == '0') {
        digits.pop_back();
      }
      if (digits.back() == '.') {
        digits.pop_back();
      }
      return digits + scale.suffix;
    }
  }
  return fmt::format("{:.0f}", count);
}

}  // namespace gpu_advise
