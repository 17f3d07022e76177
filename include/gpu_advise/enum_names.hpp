// Enum <-> text: each enum's names table, declared beside the enum as
// `names(E)`, and the look-ups made from it. The names are the ones used in
// YAML, JSON and on the command line.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpu_advise {

template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};

template <typename E>
[[nodiscard]] std::string_view to_string(E value) {
  for (const auto& entry : names(E{})) {
    if (entry.value == value) {
      return entry.name;
    }
  }
  return "?";
}

template <typename E>
[[nodiscard]] std::optional<E> enum_from_string(std::string_view name) {
  for (const auto& entry : names(E{})) {
    if (entry.name == name) {
      return entry.value;
    }
  }
  return std::nullopt;
}

template <typename E>
[[nodiscard]] std::vector<std::string> enum_names() {
  std::vector<std::string> out;
  for (const auto& entry : names(E{})) {
    out.emplace_back(entry.name);
  }
  return out;
}

}  // namespace gpu_advise
