// Private helper of the loaders: reads YAML nodes into typed values with
// declared keys, key paths and 1-based marks, collecting every problem instead
// of stopping at the first. yaml-cpp appears only here and in the loaders.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "gpu_advise/error.hpp"
#include "gpu_advise/gpu.hpp"
#include "gpu_advise/text.hpp"

namespace gpu_advise::yaml {

// Limits on what a data file may expand to (docs/errors.md).
inline constexpr std::size_t max_yaml_nodes = 200000;
inline constexpr int max_yaml_depth = 64;
inline constexpr std::size_t max_diagnostics = 50;

// Collects diagnostics for one source (a file name or "embedded:data/gpus.yaml").
class Diagnostics {
 public:
  explicit Diagnostics(std::string source) : m_source(std::move(source)) {}

  void error(const YAML::Mark& mark, std::string key_path, std::string message);
  void error(const YAML::Node& node, std::string key_path, std::string message);

  [[nodiscard]] const std::string& source() const noexcept { return m_source; }
  [[nodiscard]] bool empty() const noexcept { return m_list.empty(); }
  [[nodiscard]] std::vector<Diagnostic> take() { return std::move(m_list); }
  void throw_if_any();

 private:
  std::string m_source;
  std::vector<Diagnostic> m_list;
};

// Parses text into a document; a syntax error becomes a located diagnostic and
// an undefined node.
[[nodiscard]] YAML::Node parse(std::string_view text, Diagnostics& diagnostics);

enum class Presence { required, optional };

// Whether text may span lines: names, ids, messages and sources are shown on
// one line of a report or a table (a line break there could forge a line of
// the report, a tab a TSV column); notes may be paragraphs.
enum class Lines { one, many };

// Inclusive bounds for numbers; `positive` forbids zero as well.
struct Bounds {
  double min = 0;
  double max = 1e300;
  bool positive = true;
};

// Reads one mapping. Every key read is declared; finish() reports the keys
// that were not declared (with a did-you-mean) and duplicated keys.
class MapReader {
 public:
  MapReader(Diagnostics& diagnostics, const YAML::Node& node, std::string path);

  [[nodiscard]] bool valid() const noexcept { return m_valid; }
  [[nodiscard]] const std::string& path() const noexcept { return m_path; }
  [[nodiscard]] std::string child_path(std::string_view key) const;

  // The value node of `key` (declares the key). Reports a missing required key.
  [[nodiscard]] std::optional<YAML::Node> node(std::string_view key, Presence presence);

  [[nodiscard]] std::optional<std::string> string(std::string_view key, Presence presence, Lines lines = Lines::one);
  [[nodiscard]] std::optional<double> number(std::string_view key, Presence presence, Bounds bounds = {});
  [[nodiscard]] std::optional<std::int64_t> integer(std::string_view key, Presence presence, std::int64_t min,
                                                    std::int64_t max);
  [[nodiscard]] std::optional<std::vector<std::string>> string_list(std::string_view key, Presence presence);

  template <typename E>
  [[nodiscard]] std::optional<E> enumeration(std::string_view key, Presence presence) {
    const auto value_node = node(key, presence);
    if (!value_node) {
      return std::nullopt;
    }
    const auto raw = scalar(*value_node, child_path(key));
    if (!raw) {
      return std::nullopt;
    }
    if (auto value = enum_from_string<E>(*raw)) {
      return value;
    }
    report_bad_enum(*value_node, child_path(key), *raw, enum_names<E>());
    return std::nullopt;
  }

  // Declares keys handled elsewhere, so finish() does not report them.
  void declare(std::string_view key) { m_declared.emplace(key); }
  void finish();

  // A scalar as a string; reports a non-scalar, a control character and, in
  // one-line text, a line break or a tab.
  std::optional<std::string> scalar(const YAML::Node& value, const std::string& path, Lines lines = Lines::one);
  void report_bad_enum(const YAML::Node& value, const std::string& path, const std::string& raw,
                       const std::vector<std::string>& valid);

 private:
  Diagnostics& m_diagnostics;
  YAML::Node m_node;
  std::string m_path;
  bool m_valid = false;
  std::set<std::string, std::less<>> m_declared;
};

// Reads a plain scalar as a finite number; reports what is wrong otherwise.
[[nodiscard]] std::optional<double> read_number(Diagnostics& diagnostics, const YAML::Node& value,
                                                const std::string& path, Bounds bounds);

// 1-based line of a node, for messages such as "first defined at line 12".
[[nodiscard]] int line_of(const YAML::Node& node);

// YYYY, YYYY-MM or YYYY-MM-DD with a plausible month and day.
[[nodiscard]] bool is_partial_date(std::string_view text);

}  // namespace gpu_advise::yaml
