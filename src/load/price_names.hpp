// The values of price files and the SkyPilot accelerator names mapped onto
// the catalog's cards (docs/prices.md, "From SkyPilot's names to the catalog's cards"): apart from the
// file parser in price_files.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpu_advise/catalog.hpp"

namespace gpu_advise::price_values {

// A finite number written as from_chars reads it, the whole text.
[[nodiscard]] std::optional<double> parse_number(std::string_view s);
// Digits with an optional fraction: "2", "2.10", "0.5".
[[nodiscard]] bool plain_decimal(std::string_view s);
// YYYY-MM or YYYY-MM-DD, a day that exists.
[[nodiscard]] bool is_real_date(std::string_view s);
// Text that prints as it is, on one line.
[[nodiscard]] bool is_clean(std::string_view s);
// The parts of `s` between any of `separators`, empty parts dropped.
[[nodiscard]] std::vector<std::string> words_of(std::string_view s, std::string_view separators);
// The first 'SizeInMiB': N of a SkyPilot GpuInfo (one GPU's memory).
[[nodiscard]] std::optional<double> gpu_info_mib(std::string_view info);
// The catalog's ids and aliases, normalised once: a price file names each
// of a cloud's accelerators (and a hostile one a million names), so a lookup
// is a hash lookup, with no did-you-mean.
class CardNames {
 public:
  explicit CardNames(const Catalog& catalog);
  // As Catalog::find: the id first, then the aliases; no suggestion.
  [[nodiscard]] Catalog::Lookup find(std::string_view query) const;

 private:
  std::unordered_map<std::string, const GpuSpec*> m_ids;
  std::unordered_map<std::string, std::vector<const GpuSpec*>> m_aliases;
};

// A form-factor word: SXM, NVLINK or MEGA (a baseboard), PCIE, NVL.
enum class FormHint { none, baseboard, pcie, nvl };

// What an instance type's name says of its GPUs: the first memory word
// ("80gb") and the first form-factor word. All map_accelerator reads of it,
// so a file of a million distinct instance types maps each accelerator once
// per (name, GpuInfo, traits).
struct InstanceTraits {
  std::optional<double> memory_gb;
  FormHint hint = FormHint::none;
  friend bool operator==(const InstanceTraits&, const InstanceTraits&) = default;
};
[[nodiscard]] InstanceTraits instance_traits(std::string_view instance_type);

// The card a SkyPilot accelerator is, or nullptr (unknown, or still ambiguous):
// its name, memory (GpuInfo, or a -NNGB part) and form-factor words (SXM,
// NVLINK, MEGA, PCIE, NVL in the name or the instance type) narrow the cards
// the name's family names.
[[nodiscard]] const GpuSpec* map_accelerator(const CardNames& catalog, std::string_view name,
                                             const InstanceTraits& instance, std::optional<double> info_mib);

}  // namespace gpu_advise::price_values
