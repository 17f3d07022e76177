// Loads the user's defaults file (config.hpp).
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "gpu_advise/error.hpp"
#include "gpu_advise/language.hpp"
#include "gpu_advise/request.hpp"
#include "load/config.hpp"
#include "load/files.hpp"
#include "load/yaml_reader.hpp"

namespace gpu_advise {

std::vector<ConfigEntry> load_config_file(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_regular_file(path, error) && std::filesystem::file_size(path, error) == 0 && !error) {
    return {};  // an empty file sets nothing (the data files' loader calls it a mistake)
  }
  const std::string text = read_data_file(path);
  yaml::Diagnostics diagnostics(path.string());
  const YAML::Node root = yaml::parse(text, diagnostics);
  std::vector<ConfigEntry> entries;
  if (!root.IsDefined() || root.IsNull()) {
    diagnostics.throw_if_any();
    return entries;  // an empty file sets nothing
  }
  yaml::MapReader map(diagnostics, root, "");
  if (map.valid()) {
    const auto add = [&](std::string_view key, const std::optional<std::string>& value) {
      if (value) {
        entries.push_back({std::string(key), *value, yaml::line_of(*map.node(key, yaml::Presence::optional))});
      }
    };
    const auto spelled = [](auto parsed) {
      return parsed ? std::optional<std::string>(std::string(to_string(*parsed))) : std::nullopt;
    };
    add("region", spelled(map.enumeration<Region>("region", yaml::Presence::optional)));
    add("lang", spelled(map.enumeration<Language>("lang", yaml::Presence::optional)));
    add("currency", spelled(map.enumeration<Currency>("currency", yaml::Presence::optional)));
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
    map.finish();
  }
  diagnostics.throw_if_any();
  return entries;
}

}  // namespace gpu_advise
