// The one error hierarchy of gpu-advise and the exit-status contract.
//
// Errors are thrown at the edges (argument parsing, file loading) and caught
// once, in cli::run(). "Nothing fits" is a result, not an error.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace gpu_advise {

// The documented exit statuses. Library codes (CLI11's 100+) never leak.
enum class ExitCode : int {
  ok = 0,            // at least one recommendation
  nothing_fits = 1,  // valid request, but no card fits (the report is still printed)
  bad_input = 2,     // usage error or invalid data
};

// One located problem in a data file: FILE:LINE:COL: key.path: message.
// line and column are 1-based; 0 means unknown.
struct Diagnostic {
  std::string file;
  int line = 0;
  int column = 0;
  std::string key_path;
  std::string message;

  [[nodiscard]] std::string to_string() const;
};

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A bad flag or request value. The message names the flag, what was wrong and
// what would be valid.
class UsageError : public Error {
 public:
  using Error::Error;
};

// One or more problems in a data file, all reported together.
class DataError : public Error {
 public:
  explicit DataError(std::vector<Diagnostic> diagnostics);
  [[nodiscard]] const std::vector<Diagnostic>& diagnostics() const noexcept { return m_diagnostics; }

 private:
  std::vector<Diagnostic> m_diagnostics;
};

}  // namespace gpu_advise
