#include "gpu_advise/error.hpp"

#include <fmt/format.h>

namespace gpu_advise {

std::string Diagnostic::to_string() const {
  std::string out = file;
  if (line > 0) {
    out += fmt::format(":{}:{}", line, column);
  }
  out += ": ";
  if (!key_path.empty()) {
    out += key_path + ": ";
  }
  out += message;
  return out;
}

namespace {
std::string summarise(const std::vector<Diagnostic>& diagnostics) {
  if (diagnostics.empty()) {
    return "invalid data";
  }
  if (diagnostics.size() == 1) {
    return diagnostics.front().to_string();
  }
  return fmt::format("{} (and {} more)", diagnostics.front().to_string(), diagnostics.size() - 1);
}
}  // namespace

DataError::DataError(std::vector<Diagnostic> diagnostics)
    : Error(summarise(diagnostics)), m_diagnostics(std::move(diagnostics)) {}

}  // namespace gpu_advise
