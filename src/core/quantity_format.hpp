// Human formatting of quantities, shared by the rationale writer and the
// text renderer so a figure reads the same everywhere.
#pragma once

#include <string>

#include "gpu_advise/request.hpp"

namespace gpu_advise::format {

// The currency money is shown in, and how many of it make a US dollar.
struct MoneyUnit {
  Currency currency = Currency::usd;
  double per_usd = 1.0;
};
// The request's currency at the catalog's rate (USD when no rate is known).
[[nodiscard]] MoneyUnit money_unit(const Request& request);

[[nodiscard]] std::string gib(double bytes);  // "52.3" (GiB, one decimal)
// An amount given in USD, shown in `unit`: "$1.79", "$745", "$73k", "$1.20M";
// "¥12.71", "¥5283", "¥520k", "¥8.52M".
[[nodiscard]] std::string money(double usd, MoneyUnit unit = {});
[[nodiscard]] std::string currency_symbol(MoneyUnit unit);  // "$" or "¥"
[[nodiscard]] std::string currency_code(MoneyUnit unit);    // "USD" or "CNY"
[[nodiscard]] std::string number(double value);             // %g-style, up to 4 significant digits
// A catalog quote as quoted: "$2.99", "$25k-$30k", "¥1.98" (a CNY quote in CNY).
[[nodiscard]] std::string quoted_amount(const PriceQuote& quote);

}  // namespace gpu_advise::format
