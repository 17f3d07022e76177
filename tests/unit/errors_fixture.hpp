// What a loader reports: every diagnostic of the DataError that `parse()`
// throws, one per line, or "no error".
#pragma once

#include <string>

#include "gpu_advise/error.hpp"

namespace gpu_advise::test {

template <typename Parse>
std::string data_errors(Parse&& parse) {
  try {
    parse();
  } catch (const DataError& e) {
    std::string all;
    for (const auto& d : e.diagnostics()) {
      all += d.to_string() + "\n";
    }
    return all;
  }
  return "no error";
}

}  // namespace gpu_advise::test
