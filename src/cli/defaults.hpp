// Defaults the user configures once instead of typing on every run:
// GPU_ADVISE_REGION, GPU_ADVISE_LANG, GPU_ADVISE_CURRENCY, GPU_ADVISE_BUDGET,
// and the same keys in $XDG_CONFIG_HOME/gpu-advise/config.yaml (or the file
// GPU_ADVISE_CONFIG names). Flags win, then the environment, then the file,
// then the built-in defaults (docs/configuration.md).
#pragma once

#include <optional>
#include <string>

#include "flags.hpp"

namespace gpu_advise::cli {

// The config file to read: GPU_ADVISE_CONFIG when set (empty: none), else
// $XDG_CONFIG_HOME/gpu-advise/config.yaml, else ~/.config/gpu-advise/config.yaml;
// nullopt when there is none. A missing file is not an error.
[[nodiscard]] std::optional<std::string> config_path();

// Fills the empty region, lang, currency and budget of `flags` from the
// environment and the config file, recording each in flags.configured. A bad
// value is an error naming the variable, or the file and line.
void apply_configured_defaults(Flags& flags);

}  // namespace gpu_advise::cli
