// What the catalog loader reads for prices and dates, apart from the card parser.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/gpu.hpp"
#include "load/yaml_reader.hpp"

namespace gpu_advise {

// A YYYY, YYYY-MM or YYYY-MM-DD string, or an error located at the key.
[[nodiscard]] std::optional<std::string> read_date(yaml::Diagnostics& diagnostics, yaml::MapReader& map,
                                                   std::string_view key, yaml::Presence presence);

// The quotes listed under `key` of a `prices` map. `bounds` are in USD; a cny
// amount is converted at `cny_per_usd` (0: none, an error) and checked after.
// A rent quote's market tier follows from its kind and region, or is stated
// (`tier`) for a global on-demand or market-range quote: required in the
// base catalog, specialist where an overlay leaves it out.
[[nodiscard]] std::vector<PriceQuote> read_quotes(yaml::Diagnostics& diagnostics, yaml::MapReader& prices,
                                                  std::string_view key, yaml::Bounds bounds, bool purchase,
                                                  double cny_per_usd, CatalogRole role);

}  // namespace gpu_advise
