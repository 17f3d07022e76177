#include "gpu_advise/catalog.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpu_advise/error.hpp"
#include "gpu_advise/text.hpp"

namespace gpu_advise {

Catalog::Catalog(CatalogInfo info, std::vector<GpuSpec> gpus, std::map<Architecture, Efficiency> efficiency)
    : m_info(std::move(info)), m_gpus(std::move(gpus)), m_efficiency(std::move(efficiency)) {
  apply_efficiency();
}

void Catalog::apply_efficiency() {
  for (auto& gpu : m_gpus) {
    if (const auto it = m_efficiency.find(gpu.architecture); it != m_efficiency.end()) {
      gpu.efficiency = it->second;
    }
  }
}

void Catalog::merge(const Catalog& overlay) {
  for (const auto& [architecture, efficiency] : overlay.efficiency()) {
    m_efficiency[architecture] = efficiency;
  }
  for (const auto& card : overlay.gpus()) {
    const std::string key = text::normalise_name(card.id);
    const auto it =
        std::find_if(m_gpus.begin(), m_gpus.end(), [&](const GpuSpec& g) { return text::normalise_name(g.id) == key; });
    if (it != m_gpus.end()) {
      *it = card;
    } else {
      m_gpus.push_back(card);
    }
  }
  m_info.origins.insert(m_info.origins.end(), overlay.info().origins.begin(), overlay.info().origins.end());
  apply_efficiency();
}

Catalog::Lookup Catalog::find(std::string_view query) const {
  Lookup result;
  const std::string key = text::normalise_name(query);
  if (key.empty()) {
    return result;
  }
  for (const auto& gpu : m_gpus) {
    if (text::normalise_name(gpu.id) == key) {
      result.match = &gpu;
      return result;
    }
  }
  for (const auto& gpu : m_gpus) {
    const bool named = std::any_of(gpu.aliases.begin(), gpu.aliases.end(),
                                   [&](const std::string& alias) { return text::normalise_name(alias) == key; });
    if (named) {
      result.candidates.push_back(&gpu);
    }
  }
  if (result.candidates.size() == 1) {
    result.match = result.candidates.front();
    result.candidates.clear();
    return result;
  }
  if (result.candidates.empty()) {
    std::vector<std::string> names;
    for (const auto& gpu : m_gpus) {
      names.push_back(gpu.id);
      names.insert(names.end(), gpu.aliases.begin(), gpu.aliases.end());
    }
    result.suggestion = text::did_you_mean(query, names);
  }
  return result;
}

const GpuSpec& Catalog::resolve(std::string_view query) const {
  const Lookup found = find(query);
  if (found.match != nullptr) {
    return *found.match;
  }
  if (!found.candidates.empty()) {
    std::vector<std::string> ids;
    for (const auto* gpu : found.candidates) {
      ids.push_back(fmt::format("{} ({})", gpu->id, gpu->name));
    }
    throw UsageError(fmt::format("'{}' is ambiguous: it names {} cards: {}; give one of these ids",
                                 text::excerpt(query), ids.size(), text::join(ids, ", ")));
  }
  std::string message = fmt::format("unknown GPU '{}'", text::excerpt(query));
  if (found.suggestion) {
    message += fmt::format("; did you mean '{}'?", *found.suggestion);
  }
  message += " ('gpu-advise catalog list' shows every id)";
  throw UsageError(message);
}

}  // namespace gpu_advise
