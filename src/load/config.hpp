// The user's defaults file, $XDG_CONFIG_HOME/gpu-advise/config.yaml: a flat
// mapping of region, lang, currency and budget (docs/configuration.md).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gpu_advise {

struct ConfigEntry {
  std::string key;    // "region"
  std::string value;  // as written, already checked
  int line = 0;       // 1-based, for "config.yaml:3"
};

// The file's entries, each value checked as its flag would check it; every
// problem is a located diagnostic (DataError). Limits as for the other data files.
[[nodiscard]] std::vector<ConfigEntry> load_config_file(const std::filesystem::path& path);

// The same for the file's text (`source` names it in the diagnostics).
[[nodiscard]] std::vector<ConfigEntry> parse_config(std::string_view text, const std::string& source);

}  // namespace gpu_advise
