// Loads the user's defaults file (config.hpp).
#include <filesystem>

#include <fmt/format.h>

#include "gpu_advise/error.hpp"
#include "gpu_advise/language.hpp"
#include "gpu_advise/request.hpp"
#include "gpu_advise/text.hpp"
#include "load/config.hpp"
#include "load/files.hpp"
#include "load/yaml_reader.hpp"

namespace gpu_advise {

std::vector<ConfigEntry> load_config_file(const std::filesystem::path& path) {
  // Read to its end whatever size it reports; empty sets nothing (the data
  // files' loader calls that a mistake).
  return parse_config(read_data_file(path, true), path.string());
}

std::vector<ConfigEntry> parse_config(std::string_view text, const std::string& source) {
  yaml::Diagnostics diagnostics(source);
  const YAML::Node root = yaml::parse(text, diagnostics);
  std::vector<ConfigEntry> entries;
  if (!root.IsDefined() || root.IsNull()) {
    diagnostics.throw_if_any();
    return entries;  // an empty file sets nothing
  }
  if (root.IsScalar()) {  // "region cn": a line without its colon
    diagnostics.error(
        root, "(document)",
        fmt::format("'{}' is not a default: write each as key: value on its own line, with a colon "
                    "and a space (region: cn); the keys are region, lang, currency, budget and calibration",
                    text::excerpt(root.Scalar())));
    diagnostics.throw_if_any();
  }
  yaml::MapReader map(diagnostics, root, "");
  if (map.valid()) {
    const auto add = [&](std::string_view key, const std::optional<std::string>& value) {
      if (value) {
        entries.push_back({std::string(key), *value, yaml::line_of(*map.node(key, yaml::Presence::optional))});
      }
    };
    // A word as its flag takes it: any case, spaces around ignored (CN, Zh).
    const auto word = [&]<typename E>(std::string_view key, E /*kind*/) -> std::optional<std::string> {
      const auto node = map.node(key, yaml::Presence::optional);
      const auto raw = node ? map.scalar(*node, std::string(key)) : std::nullopt;
      if (!raw) {
        return std::nullopt;
      }
      if (const auto value = enum_from_string<E>(text::to_lower(text::trim(*raw)))) {
        return std::string(to_string(*value));
      }
      map.report_bad_enum(*node, std::string(key), *raw, enum_names<E>());
      return std::nullopt;
    };
    add("region", word("region", Region{}));
    add("lang", word("lang", Language{}));
    add("currency", word("currency", Currency{}));
    if (const auto budget = map.string("budget", yaml::Presence::optional)) {
      try {
        (void)parse_budget_choice(*budget, "budget");
        add("budget", budget);
      } catch (const UsageError& e) {
        const std::string_view message = e.what();  // "budget: ...": the path says it already
        diagnostics.error(*map.node("budget", yaml::Presence::optional), "budget",
                          std::string(message.substr(message.find(": ") + 2)));
      }
    }
    // --calibration's default: one file, relative to the config file's folder.
    if (const auto file = map.string("calibration", yaml::Presence::optional)) {
      std::filesystem::path path(*file);
      if (path.is_relative()) {
        path = std::filesystem::path(source).parent_path() / path;
      }
      add("calibration", path.string());
    }
    map.finish();
  }
  diagnostics.throw_if_any();
  return entries;
}

}  // namespace gpu_advise
