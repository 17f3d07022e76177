// The batch command: JSON Lines requests in, JSON Lines results out, one line
// at a time in bounded memory (docs/json.md, docs/errors.md).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

#include "flags.hpp"
#include "gpu_advise/rules.hpp"
#include "gpu_advise/wording.hpp"

namespace gpu_advise::cli {

// What every line of one batch shares.
struct BatchContext {
  const Flags& defaults;  // --catalog, --rules and --lang of the command line
  const Catalog& catalog;
  const RuleSet& rules;
  Presets& presets;
  Language language;
};

struct BatchAnswer {
  std::string json_line;  // the result, or the error object, ending in a newline
  int status = 0;         // 0 recommended, 1 nothing fits, 2 the line is bad
};

// One request line (without its newline) answered. Never throws: a failure
// of any kind becomes the line's error object.
[[nodiscard]] BatchAnswer answer_batch_line(std::string_view line, std::size_t number, BatchContext& context) noexcept;

// Answers every line of `flags.batch_file` (a data file) or, for "-" or none,
// of standard input as it arrives; writes each answer to `out` as soon as it
// is made, and stops when `out` fails. Returns the exit status of the run.
[[nodiscard]] int run_batch(const Flags& flags, BatchContext& context, std::ostream& out, bool stdin_closed);

}  // namespace gpu_advise::cli
