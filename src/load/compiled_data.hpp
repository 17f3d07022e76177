// The shipped data, compiled at build time: src/codegen/compile_data.cpp parses
// and validates data/gpus.yaml, data/rules.yaml and data/models.yaml with the
// run-time loaders and writes them out as C++ (generated/compiled_*.cpp), so the
// binary starts with its data built instead of parsing YAML on every run
// (docs/performance.md).
#pragma once

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/rules.hpp"

namespace gpu_advise::compiled {

// Each exactly as the run-time loader reads its file (tests/unit/test_compiled_data.cpp).
[[nodiscard]] Catalog catalog();
[[nodiscard]] RuleSet rules();
[[nodiscard]] ModelCatalog models();

}  // namespace gpu_advise::compiled
