// The catalog the binary ships with, and the --catalog overlays on top of it.
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "load/compiled_catalog.hpp"
#include "load/overlays.hpp"

namespace gpu_advise {

Catalog load_embedded_catalog() { return compiled::catalog(); }

Catalog load_catalog(const std::vector<std::string>& overlay_files) {
  return merge_overlays(load_embedded_catalog(), overlay_files, [](const std::string& file, const Catalog& base) {
    return load_catalog_file(file, CatalogRole::overlay, &base);
  });
}

}  // namespace gpu_advise
