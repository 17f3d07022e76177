// Card ids and aliases that lookups could not tell apart: duplicates once
// normalised, aliases that name nothing or another card, overlay ids that
// would shadow a built-in card (docs/errors.md, "Card identity").
#include "load/catalog_names.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpu_advise/text.hpp"

namespace gpu_advise {

namespace {

std::string describe_origin(const std::string& origin) {
  return origin.rfind("embedded:", 0) == 0 ? std::string("built-in card") : fmt::format("card from {}", origin);
}

// Ids are looked up ignoring case, spaces, '-' and '_', so they must differ in that form.
void check_duplicate_ids(yaml::Diagnostics& diagnostics, const CardNames& names) {
  std::map<std::string, std::pair<std::string, int>> first;
  for (const auto& entry : names.ids) {
    const auto [it, inserted] =
        first.emplace(text::normalise_name(entry.id), std::pair{entry.id, yaml::line_of(entry.node)});
    if (inserted) {
      continue;
    }
    if (it->second.first == entry.id) {
      diagnostics.error(entry.node, entry.path,
                        fmt::format("duplicate id '{}' (first defined at line {})", entry.id, it->second.second));
    } else {
      diagnostics.error(entry.node, entry.path,
                        fmt::format("id '{}' is the same as id '{}' (line {}) once case, spaces, '-' and '_' are "
                                    "ignored, as lookups ignore them; choose a distinct id",
                                    entry.id, it->second.first, it->second.second));
    }
  }
}

// Names that lookups could never reach, or that would silently shadow
// another card: aliases that normalise to nothing or to another card's id,
// and overlay ids that are a built-in card's id or alias spelt otherwise.
void check_names(yaml::Diagnostics& diagnostics, const CardNames& names, const std::vector<GpuSpec>& gpus,
                 const Catalog* base) {
  // Every card that stays visible next to this file's cards: the file's own
  // and the base's, less those this file replaces (same id).
  struct Known {
    std::string id;
    std::string where;  // "line 12" or "built-in card" / the file it came from
    const std::vector<std::string>* aliases;
  };
  std::vector<Known> known;
  known.reserve(gpus.size() + (base != nullptr ? base->size() : 0));
  for (const auto& gpu : gpus) {
    known.push_back({gpu.id, "in this file", &gpu.aliases});
  }
  if (base != nullptr) {
    for (const auto& gpu : base->gpus()) {
      const bool replaced = std::any_of(gpus.begin(), gpus.end(), [&](const GpuSpec& g) { return g.id == gpu.id; });
      if (!replaced) {
        known.push_back({gpu.id, describe_origin(gpu.origin), &gpu.aliases});
      }
    }
  }
  for (const auto& alias : names.aliases) {
    const std::string key = text::normalise_name(alias.alias);
    if (key.empty()) {
      diagnostics.error(alias.node, alias.path,
                        fmt::format("alias '{}' is empty once spaces, '-' and '_' are ignored, so it can never "
                                    "be looked up",
                                    text::excerpt(alias.alias)));
      continue;
    }
    for (const auto& other : known) {
      if (other.id != alias.card && text::normalise_name(other.id) == key) {
        diagnostics.error(alias.node, alias.path,
                          fmt::format("alias '{}' of '{}' is the id of card '{}' ({}); an id always wins, so the "
                                      "alias would never be used",
                                      text::excerpt(alias.alias), alias.card, other.id, other.where));
      }
    }
  }
  if (base == nullptr) {
    return;
  }
  std::vector<std::string> shadowed;
  for (const auto& entry : names.ids) {
    const std::string key = text::normalise_name(entry.id);
    for (const auto& built_in : base->gpus()) {
      if (built_in.id == entry.id) {
        continue;  // replaces that card, as documented
      }
      if (text::normalise_name(built_in.id) == key) {
        diagnostics.error(entry.node, entry.path,
                          fmt::format("id '{}' is the same as the {} '{}' once case, spaces, '-' and '_' are "
                                      "ignored; use '{}' to replace that card, or choose a distinct id",
                                      entry.id, describe_origin(built_in.origin), built_in.id, built_in.id));
        continue;
      }
      for (const auto& alias : built_in.aliases) {
        if (text::normalise_name(alias) == key) {
          shadowed.push_back(fmt::format("'{}' of {}", alias, built_in.id));
        }
      }
    }
    if (!shadowed.empty()) {
      diagnostics.error(entry.node, entry.path,
                        fmt::format("id '{}' is also the alias {}; a new id would hide that alias from "
                                    "lookups; choose a distinct id",
                                    entry.id, text::join(shadowed, ", ")));
      shadowed.clear();
    }
  }
}

}  // namespace

void check_card_names(yaml::Diagnostics& diagnostics, const CardNames& names, const std::vector<GpuSpec>& gpus,
                      const Catalog* base) {
  check_duplicate_ids(diagnostics, names);
  check_names(diagnostics, names, gpus, base);
}

}  // namespace gpu_advise
