#include "core/quantity_format.hpp"

#include <cmath>

#include <fmt/format.h>

#include "gpu_advise/units.hpp"

namespace gpu_advise::format {

std::string gib(double bytes) { return fmt::format("{:.1f}", bytes / bytes_per_gib); }

MoneyUnit money_unit(const Request& request) {
  if (request.currency == Currency::cny && request.exchange_rate.cny_per_usd > 0) {
    return {Currency::cny, request.exchange_rate.cny_per_usd};
  }
  return {};
}

std::string currency_symbol(MoneyUnit unit) { return unit.currency == Currency::cny ? "¥" : "$"; }
std::string currency_code(MoneyUnit unit) { return unit.currency == Currency::cny ? "CNY" : "USD"; }

std::string money(double usd, MoneyUnit unit) {
  const double amount = usd * unit.per_usd;
  const std::string symbol = currency_symbol(unit);
  if (amount >= 1e6) {
    return fmt::format("{}{:.2f}M", symbol, amount / 1e6);
  }
  if (amount >= 1e4) {
    return fmt::format("{}{:.0f}k", symbol, amount / 1e3);
  }
  if (amount >= 100) {
    return fmt::format("{}{:.0f}", symbol, amount);
  }
  return fmt::format("{}{:.2f}", symbol, amount);
}

// Four significant figures, and whole numbers from 10000 up ("7801234 GPU-hours",
// never "7.801e+06").
std::string number(double value) {
  return std::abs(value) >= 1e4 ? fmt::format("{:.0f}", value) : fmt::format("{:.4g}", value);
}

std::string quoted_amount(const PriceQuote& quote) {
  // Shown in the quote's own currency: the amount converted back is the amount quoted.
  const MoneyUnit unit = quote.quoted_in == Currency::cny && quote.low_usd > 0
                             ? MoneyUnit{Currency::cny, quote.low_quoted / quote.low_usd}
                             : MoneyUnit{};
  if (quote.low_usd == quote.high_usd) {
    return money(quote.low_usd, unit);
  }
  return fmt::format("{}-{}", money(quote.low_usd, unit), money(quote.high_usd, unit));
}

}  // namespace gpu_advise::format
