// The shipped catalog, compiled at build time: src/codegen/compile_catalog.cpp
// parses and validates data/gpus.yaml with the run-time loader and writes it out
// as C++ (generated/compiled_catalog.cpp), so the binary starts with the catalog
// built instead of parsing 85 KB of YAML on every run (docs/performance.md).
#pragma once

#include "gpu_advise/catalog.hpp"

namespace gpu_advise::compiled {

// The catalog exactly as parse_catalog() reads data/gpus.yaml (tested).
[[nodiscard]] Catalog catalog();

}  // namespace gpu_advise::compiled
