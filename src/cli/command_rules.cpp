// rules list and rules validate.
#include <fmt/format.h>

#include "commands.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/text.hpp"
#include "load/files.hpp"

namespace gpu_advise::cli {

int run_rules_list(const Session& session) {
  session.output.write(
      [&](OutputFormat, const TextStyle& style) { return render_rules_text(session.rules, session.language, style); });
  return static_cast<int>(ExitCode::ok);
}

int run_rules_validate(const Flags& flags, const Output& output) {
  const RuleSet checked =
      parse_rules(read_data_file(flags.rules_validate_file), flags.rules_validate_file, RulesRole::overlay);
  std::string verdict =
      fmt::format("{}: ok, {} rules\n", text::printable(flags.rules_validate_file), checked.rules().size());
  output.write([&](OutputFormat, const TextStyle&) { return verdict; });
  return static_cast<int>(ExitCode::ok);
}

}  // namespace gpu_advise::cli
