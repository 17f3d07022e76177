// The catalog: an ordered, immutable-after-loading list of accelerators with
// lookup by id or alias (case-insensitive, ambiguity reported, did-you-mean).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_advise/gpu.hpp"

namespace gpu_advise {

struct CatalogInfo {
  int schema_version = 1;
  std::string version;  // e.g. "2026.11"
  std::string updated;  // YYYY-MM-DD
  ExchangeRate exchange_rate;
  std::vector<std::string> origins;  // the files merged into it, in order

  friend bool operator==(const CatalogInfo&, const CatalogInfo&) = default;
};

class Catalog {
 public:
  Catalog() = default;
  Catalog(CatalogInfo info, std::vector<GpuSpec> gpus, std::map<Architecture, Efficiency> efficiency = {});

  [[nodiscard]] const CatalogInfo& info() const noexcept { return m_info; }
  [[nodiscard]] const std::vector<GpuSpec>& gpus() const noexcept { return m_gpus; }
  [[nodiscard]] std::size_t size() const noexcept { return m_gpus.size(); }
  [[nodiscard]] const std::map<Architecture, Efficiency>& efficiency() const noexcept { return m_efficiency; }

  // Cards of `overlay` replace cards with the same id (as a whole) and new ids
  // are appended, in the overlay's order. Ids compare in normalised form, as
  // lookups do (the overlay's loader refuses ids that differ only in spelling).
  void merge(const Catalog& overlay);

  struct Lookup {
    const GpuSpec* match = nullptr;          // exactly one card
    std::vector<const GpuSpec*> candidates;  // an ambiguous alias: all the cards it names
    std::optional<std::string> suggestion;   // no match: the closest id or alias
  };
  // By id first, then by alias; both ignore case, spaces, '-' and '_'.
  [[nodiscard]] Lookup find(std::string_view query) const;

  // find() or a UsageError that says what matched, or what might have been meant.
  [[nodiscard]] const GpuSpec& resolve(std::string_view query) const;

  // Field for field (the compiled catalog is tested equal to the parsed one).
  friend bool operator==(const Catalog&, const Catalog&) = default;

 private:
  void apply_efficiency();

  CatalogInfo m_info;
  std::vector<GpuSpec> m_gpus;
  std::map<Architecture, Efficiency> m_efficiency;
};

// Parses catalog text. `source` names it in diagnostics. Overlays (files given
// with --catalog) may omit the `catalog:` header block. Throws DataError with
// every problem found.
enum class CatalogRole { base, overlay };
// With `base`, the overlay's ids and aliases are also checked against the
// cards it goes on top of: an id spelt like a base id or alias under
// normalisation, or an alias that is another card's id, is an error.
[[nodiscard]] Catalog parse_catalog(std::string_view text, std::string_view source, CatalogRole role,
                                    const Catalog* base = nullptr);

// Reads (with the data-file checks of docs/errors.md) and parses a catalog file.
[[nodiscard]] Catalog load_catalog_file(const std::filesystem::path& path, CatalogRole role,
                                        const Catalog* base = nullptr);

// The catalog compiled into the binary (data/gpus.yaml at build time).
[[nodiscard]] Catalog load_embedded_catalog();

// The embedded catalog with each overlay file merged on top, in order.
[[nodiscard]] Catalog load_catalog(const std::vector<std::string>& overlay_files);

}  // namespace gpu_advise
