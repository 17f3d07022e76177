// The batch command: JSON Lines requests in, JSON Lines results out, one line
// at a time in bounded memory (docs/json.md, docs/errors.md).
#pragma once

#include <cstddef>
#include <deque>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>

#include "flags.hpp"
#include "gpu_advise/language.hpp"
#include "gpu_advise/rules.hpp"

namespace gpu_advise::cli {

// The answers to requests already seen in this run, by the request's flags:
// a sweep repeats requests, and a repeat costs a look-up instead of sizing
// every card again. Bounded in bytes (oldest out first), so memory stays flat
// however long the batch. Lines that name a config.json are not cached.
class ResultCache {
 public:
  struct Entry {
    std::string json_line;  // without its "line" member (inserted when written)
    int status = 0;
  };
  static constexpr std::size_t max_bytes = std::size_t{64} << 20;

  [[nodiscard]] const Entry* find(const std::string& key) const;
  void insert(std::string key, Entry entry);

 private:
  static std::size_t footprint(const std::string& key, const Entry& entry);

  std::unordered_map<std::string, Entry> m_entries;
  std::deque<std::string> m_order;  // keys, oldest first
  std::size_t m_bytes = 0;
};

// What every line of one batch shares.
struct BatchContext {
  const Flags& defaults;  // --catalog, --rules and --lang of the command line
  const Catalog& catalog;
  const RuleSet& rules;
  Presets& presets;
  Language language;
  ResultCache cache{};
};

struct BatchAnswer {
  std::string json_line;  // the result, or the error object, ending in a newline
  int status = 0;         // 0 recommended, 1 nothing fits, 2 the line is bad
};

// One request line (without its newline) answered. Never throws: a failure
// of any kind becomes the line's error object.
[[nodiscard]] BatchAnswer answer_batch_line(std::string_view line, std::size_t number, BatchContext& context) noexcept;

// Answers every line of `flags.batch_file` (a data file) or, for "-" or none,
// of standard input as it arrives; writes the answers to `out` in blocks,
// flushed whenever the input has no complete line left (so a client that
// waits for an answer before it writes the next line gets it), and stops
// when `out` fails. Returns the exit status of the run.
[[nodiscard]] int run_batch(const Flags& flags, BatchContext& context, std::ostream& out, bool stdin_closed);

}  // namespace gpu_advise::cli
