// The catalog the binary ships with, and the --catalog overlays on top of it.
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "load/compiled_catalog.hpp"

namespace gpu_advise {

Catalog load_embedded_catalog() { return compiled::catalog(); }

Catalog load_catalog(const std::vector<std::string>& overlay_files) {
  Catalog catalog = load_embedded_catalog();
  std::vector<Diagnostic> problems;
  for (const auto& file : overlay_files) {
    try {
      catalog.merge(load_catalog_file(file, CatalogRole::overlay, &catalog));
    } catch (const DataError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) {
    throw DataError(std::move(problems));
  }
  return catalog;
}

}  // namespace gpu_advise
