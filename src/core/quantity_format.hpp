// Human formatting of quantities, shared by the rationale writer and the
// text renderer so a figure reads the same everywhere.
#pragma once

#include <string>

namespace gpu_advise::format {

[[nodiscard]] std::string gib(double bytes);     // "52.3" (GiB, one decimal)
[[nodiscard]] std::string money(double usd);     // "$1.79", "$745", "$73k", "$1.20M"
[[nodiscard]] std::string number(double value);  // %g-style, up to 4 significant digits

}  // namespace gpu_advise::format
