// The command line read: the command is found before CLI11 parses (so that a
// misspelt command gets a did-you-mean and a flag the command would ignore is
// an error), then CLI11 fills the Flags from the flag table, and --help,
// --version and `gpu-advise help COMMAND` are answered here.
#pragma once

#include <optional>
#include <ostream>

#include "flags.hpp"

namespace gpu_advise::cli {

struct CommandLine {
  Command command = Command::recommend;
  Flags flags;
  std::optional<int> answered;  // the exit status when reading it answered already (help, version, a parse error)
};

// Throws UsageError for a misspelt command or flag, or a flag the command does not take.
[[nodiscard]] CommandLine read_command_line(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace gpu_advise::cli
