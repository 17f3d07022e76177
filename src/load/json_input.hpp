// Private helper of the JSON readers (config.json, batch lines): strict
// parsing with structure limits, and values quoted safely in messages.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpu_advise::json_input {

// The deepest nesting accepted, as for YAML (docs/errors.md).
inline constexpr int max_depth = 64;

// Why a text is not acceptable JSON; `byte` is the 0-based offset of the
// problem where the parser knows it, else npos.
class Failure : public std::runtime_error {
 public:
  Failure(const std::string& message, std::size_t byte, std::string duplicate_key = {})
      : std::runtime_error(message), m_byte(byte), m_duplicate_key(std::move(duplicate_key)) {}
  [[nodiscard]] std::size_t byte() const noexcept { return m_byte; }
  // For a repeated key: the key (the parser does not say where it stands).
  [[nodiscard]] const std::string& duplicate_key() const noexcept { return m_duplicate_key; }

 private:
  std::size_t m_byte;
  std::string m_duplicate_key;
};

// Parses one JSON value. Refuses, with a Failure and before anything recurses
// into the document: syntax errors, invalid UTF-8, numbers beyond a double,
// nesting deeper than max_depth and a key repeated in one object. The
// message is short and printable whatever the text holds.
[[nodiscard]] nlohmann::json parse(std::string_view text);

// A value as a message shows it: strings quoted and cut to an excerpt,
// numbers as parsed (whole numbers exactly, signed or not), lists and
// objects by kind only. Never recurses.
[[nodiscard]] std::string describe(const nlohmann::json& value);

}  // namespace gpu_advise::json_input
