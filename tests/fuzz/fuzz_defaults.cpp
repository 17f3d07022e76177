// The user's defaults: config.yaml and the GPU_ADVISE_* variables. The input
// is up to four NUL-ended values for GPU_ADVISE_REGION, _LANG, _CURRENCY and
// _BUDGET, then the text of a config.yaml. Each either gives defaults that
// their flags would accept, or is refused with a UsageError or DataError whose
// messages are valid UTF-8, whatever the bytes.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cli/defaults.hpp"
#include "cli/flags.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/gpu.hpp"
#include "gpu_advise/language.hpp"
#include "gpu_advise/request.hpp"
#include "gpu_advise/text.hpp"
#include "load/config.hpp"

namespace {

using namespace gpu_advise;

// Messages are valid UTF-8 (the CLI prints them through text::printable,
// which escapes control characters; a value is quoted as an excerpt).
void require_message(std::string_view message) {
  if (message.empty() || text::invalid_utf8_at(message) != std::string_view::npos) {
    std::abort();
  }
}

// A value a default set must be one its flag accepts.
void require_valid(const cli::Flags& flags) {
  try {
    if (!flags.region.empty()) {
      (void)cli::parse_choice<Region>(flags.region, "--region");
    }
    if (!flags.lang.empty()) {
      (void)cli::parse_choice<Language>(flags.lang, "--lang");
    }
    if (!flags.currency.empty()) {
      (void)cli::parse_choice<Currency>(flags.currency, "--currency");
    }
    if (!flags.budget.empty()) {
      (void)parse_budget_choice(flags.budget, "--budget");
    }
  } catch (const UsageError&) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  constexpr const char* variables[] = {"GPU_ADVISE_REGION", "GPU_ADVISE_LANG", "GPU_ADVISE_CURRENCY",
                                       "GPU_ADVISE_BUDGET"};
  for (const char* variable : variables) {
    const std::size_t end = rest.find('\0');
    if (end == std::string_view::npos) {
      ::unsetenv(variable);
      continue;
    }
    ::setenv(variable, std::string(rest.substr(0, end)).c_str(), 1);
    rest.remove_prefix(end + 1);
  }
  ::setenv("GPU_ADVISE_CONFIG", "", 1);  // no file: the environment alone
  try {
    cli::Flags flags;
    cli::apply_configured_defaults(flags);
    require_valid(flags);
  } catch (const UsageError& e) {
    require_message(e.what());
  }
  try {
    for (const ConfigEntry& entry : parse_config(rest, "config.yaml")) {
      cli::Flags flags;
      if (entry.key == "region") {
        flags.region = entry.value;
      } else if (entry.key == "lang") {
        flags.lang = entry.value;
      } else if (entry.key == "currency") {
        flags.currency = entry.value;
      } else if (entry.key == "budget") {
        flags.budget = entry.value;
      } else {
        std::abort();
      }
      require_valid(flags);
    }
  } catch (const DataError& e) {
    if (e.diagnostics().empty()) {
      std::abort();
    }
    for (const Diagnostic& d : e.diagnostics()) {
      require_message(d.to_string());
    }
  }
  return 0;
}
