// The data the binary ships with (compiled at build time), and the --catalog
// and --rules overlays on top of it.
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/rules.hpp"
#include "load/compiled_data.hpp"
#include "load/files.hpp"
#include "load/overlays.hpp"

namespace gpu_advise {

Catalog load_embedded_catalog() { return compiled::catalog(); }
RuleSet load_embedded_rules() { return compiled::rules(); }
ModelCatalog load_embedded_models() { return compiled::models(); }

Catalog load_catalog(const std::vector<std::string>& overlay_files) {
  return merge_overlays(load_embedded_catalog(), overlay_files, [](const std::string& file, const Catalog& base) {
    return load_catalog_file(file, CatalogRole::overlay, &base);
  });
}

RuleSet load_rules(const std::vector<std::string>& overlay_files) {
  return merge_overlays(load_embedded_rules(), overlay_files, [](const std::string& file, const RuleSet&) {
    return parse_rules(read_data_file(file), file, RulesRole::overlay);
  });
}

}  // namespace gpu_advise
