// The identity checks of a catalog file's cards, apart from the parser.
#pragma once

#include <string>
#include <vector>

#include "gpu_advise/catalog.hpp"
#include "load/yaml_reader.hpp"

namespace gpu_advise {

// Where each id and alias of a file was read, to locate the errors.
struct CardNames {
  struct Id {
    std::string id;
    std::string path;
    YAML::Node node;
  };
  struct Alias {
    std::string card;
    std::string alias;
    std::string path;
    YAML::Node node;
  };
  std::vector<Id> ids;
  std::vector<Alias> aliases;
};

// Ids are looked up ignoring case, spaces, '-' and '_', so they must differ in
// that form; aliases must be reachable; an overlay (base != nullptr) may
// replace a card by its exact id but not shadow one spelt otherwise.
void check_card_names(yaml::Diagnostics& diagnostics, const CardNames& names, const std::vector<GpuSpec>& gpus,
                      const Catalog* base);

}  // namespace gpu_advise
