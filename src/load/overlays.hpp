// The embedded data with each overlay file (--catalog, --rules) merged on top,
// in order. Every file is read even after one fails, so one run reports the
// problems of all of them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpu_advise/error.hpp"

namespace gpu_advise {

// `load_one(file, merged_so_far)` parses one overlay; `merged.merge(overlay)`
// puts it on top. Throws one DataError with every file's diagnostics.
template <typename Data, typename LoadOne>
Data merge_overlays(Data merged, const std::vector<std::string>& files, LoadOne&& load_one) {
  std::vector<Diagnostic> problems;
  for (const auto& file : files) {
    try {
      merged.merge(load_one(file, std::as_const(merged)));
    } catch (const DataError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) {
    throw DataError(std::move(problems));
  }
  return merged;
}

}  // namespace gpu_advise
