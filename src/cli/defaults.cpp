#include "defaults.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>

#include "load/config.hpp"

namespace gpu_advise::cli {

namespace {

const char* environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? value : nullptr;
}

struct Key {
  std::string_view key;
  const char* variable;
  std::string Flags::*field;
};

constexpr std::array<Key, 4> keys{{
    {"region", "GPU_ADVISE_REGION", &Flags::region},
    {"lang", "GPU_ADVISE_LANG", &Flags::lang},
    {"currency", "GPU_ADVISE_CURRENCY", &Flags::currency},
    {"budget", "GPU_ADVISE_BUDGET", &Flags::budget},
}};

// A value from the environment, checked as its flag would be, under the variable's name.
std::string checked(const Key& key, const std::string& value) {
  if (key.key == "region") {
    return std::string(to_string(parse_choice<Region>(value, key.variable)));
  }
  if (key.key == "lang") {
    return std::string(to_string(parse_choice<Language>(value, key.variable)));
  }
  if (key.key == "currency") {
    return std::string(to_string(parse_choice<Currency>(value, key.variable)));
  }
  (void)parse_budget_choice(value, key.variable);
  return value;
}

// --calibration's default: GPU_ADVISE_CALIBRATION (files separated by ':'),
// else the config file's calibration key.
void apply_calibration_default(Flags& flags, const std::vector<ConfigEntry>& file, const std::string& file_name) {
  if (!flags.calibration_files.empty()) {
    return;
  }
  if (const char* value = environment("GPU_ADVISE_CALIBRATION")) {
    const std::string_view list(value);
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t end = std::min(list.find(':', start), list.size());
      if (end > start) {
        flags.calibration_files.emplace_back(list.substr(start, end - start));
      }
      start = end + 1;
    }
    flags.configured.push_back({"calibration", value, "GPU_ADVISE_CALIBRATION"});
    return;
  }
  for (const auto& entry : file) {
    if (entry.key == "calibration") {
      flags.calibration_files.push_back(entry.value);
      flags.configured.push_back({entry.key, entry.value, file_name + ":" + std::to_string(entry.line)});
    }
  }
}

}  // namespace

std::optional<std::string> config_path() {
  if (const char* named = std::getenv("GPU_ADVISE_CONFIG"); named != nullptr) {
    return named[0] == '\0' ? std::nullopt : std::optional<std::string>(named);
  }
  std::string path;
  if (const char* xdg = environment("XDG_CONFIG_HOME")) {
    path = std::string(xdg) + "/gpu-advise/config.yaml";
  } else if (const char* home = environment("HOME")) {
    path = std::string(home) + "/.config/gpu-advise/config.yaml";
  } else {
    return std::nullopt;
  }
  // No entry at all: nothing configured. Anything else there (a symlink
  // loop, a dangling link, a file we may not read) is the loader's to report,
  // as it would be if GPU_ADVISE_CONFIG named it.
  struct stat status {};
  if (::lstat(path.c_str(), &status) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
    return std::nullopt;
  }
  return path;
}

void apply_configured_defaults(Flags& flags) {
  std::vector<ConfigEntry> file;
  std::string file_name;
  if (const auto path = config_path()) {
    file_name = *path;
    file = load_config_file(*path);
  }
  for (const Key& key : keys) {
    if (!(flags.*key.field).empty()) {
      continue;  // the flag says
    }
    if (const char* value = environment(key.variable)) {
      flags.*key.field = checked(key, value);
      flags.configured.push_back({std::string(key.key), flags.*key.field, key.variable});
      continue;
    }
    for (const auto& entry : file) {
      if (entry.key == key.key) {
        flags.*key.field = entry.value;
        flags.configured.push_back({entry.key, entry.value, file_name + ":" + std::to_string(entry.line)});
      }
    }
  }
  apply_calibration_default(flags, file, file_name);
}

}  // namespace gpu_advise::cli
