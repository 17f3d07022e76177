// Price quotes in a catalog file: a USD or CNY amount (or [low, high]), the
// provider, kind or condition, region, date and source; CNY converted at the
// catalog's rate and bounded in USD (docs/catalog.md, "Prices").
#include "load/catalog_prices.hpp"

#include <fmt/format.h>

namespace gpu_advise {

using yaml::Bounds;
using yaml::MapReader;
using yaml::Presence;

std::optional<std::string> read_date(yaml::Diagnostics& diagnostics, MapReader& map, std::string_view key,
                                     Presence presence) {
  auto value = map.string(key, presence);
  if (value && !yaml::is_partial_date(*value)) {
    diagnostics.error(*map.node(key, presence), map.child_path(key),
                      fmt::format("'{}' is not a date; expected YYYY, YYYY-MM or YYYY-MM-DD", *value));
    return std::nullopt;
  }
  return value;
}

namespace {

void read_tier(yaml::Diagnostics& diagnostics, MapReader& quote_map, PriceQuote& quote, CatalogRole role) {
  const auto implied = implied_tier(quote.kind, quote.region);
  const auto node = quote_map.node("tier", Presence::optional);
  if (implied) {
    quote.tier = *implied;
    if (node) {
      diagnostics.error(*node, quote_map.child_path("tier"),
                        fmt::format("a {} quote in region {} is in the {} tier already: leave 'tier' out",
                                    to_string(quote.kind), to_string(quote.region), to_string(*implied)));
    }
    return;
  }
  const auto tier =
      quote_map.enumeration<PriceTier>("tier", role == CatalogRole::base ? Presence::required : Presence::optional);
  if (!tier) {
    return;  // specialist, or the error of a missing or unknown name
  }
  if (*tier != PriceTier::specialist && *tier != PriceTier::hyperscaler && *tier != PriceTier::marketplace &&
      *tier != PriceTier::survey) {
    diagnostics.error(*node, quote_map.child_path("tier"),
                      fmt::format("'{}' is not the tier of a global on-demand or market-range quote; expected "
                                  "specialist, hyperscaler, marketplace or survey",
                                  to_string(*tier)));
    return;
  }
  quote.tier = *tier;
}

}  // namespace

std::vector<PriceQuote> read_quotes(yaml::Diagnostics& diagnostics, MapReader& prices, std::string_view key,
                                    Bounds bounds, bool purchase, double cny_per_usd, CatalogRole role) {
  std::vector<PriceQuote> out;
  const auto list = prices.node(key, Presence::optional);
  if (!list) {
    return out;
  }
  const auto path = prices.child_path(key);
  if (!list->IsSequence()) {
    diagnostics.error(*list, path, "expected a list of price quotes");
    return out;
  }
  std::size_t index = 0;
  for (const auto& item : *list) {
    const auto item_path = fmt::format("{}[{}]", path, index++);
    MapReader quote_map(diagnostics, item, item_path);
    if (!quote_map.valid()) {
      continue;
    }
    PriceQuote quote;
    bool ok = false;
    const bool in_cny = quote_map.node("cny", Presence::optional).has_value();
    const char* amount_key = in_cny ? "cny" : "usd";
    if (in_cny && quote_map.node("usd", Presence::optional)) {
      diagnostics.error(item, item_path, "give the price in usd or in cny, not both");
    }
    if (const auto amount = quote_map.node(amount_key, Presence::required)) {
      const auto amount_path = quote_map.child_path(amount_key);
      // Bounds are in USD; a CNY amount is checked after conversion.
      const double rate = in_cny ? cny_per_usd : 1.0;
      const Bounds checked = in_cny ? Bounds{bounds.min * 0.5, bounds.max * 50, bounds.positive} : bounds;
      std::optional<double> low;
      std::optional<double> high;
      if (amount->IsSequence()) {
        if (amount->size() != 2) {
          diagnostics.error(*amount, amount_path, "a price range is [low, high]: two numbers");
        } else {
          low = yaml::read_number(diagnostics, (*amount)[0], amount_path + "[0]", checked);
          high = yaml::read_number(diagnostics, (*amount)[1], amount_path + "[1]", checked);
          if (low && high && *low > *high) {
            diagnostics.error(*amount, amount_path, fmt::format("low {} is above high {}", *low, *high));
            low.reset();
          }
        }
      } else {
        low = high = yaml::read_number(diagnostics, *amount, amount_path, checked);
      }
      if (in_cny && rate <= 0) {
        diagnostics.error(*amount, amount_path,
                          "a price in cny needs the catalog's exchange_rate (catalog.exchange_rate.cny_per_usd)");
      } else if (low && high && in_cny && (*low / rate < bounds.min || *high / rate > bounds.max)) {
        diagnostics.error(*amount, amount_path,
                          fmt::format("{} CNY is {:.4g} USD at {} CNY per USD, outside {} to {} USD", *low, *low / rate,
                                      rate, bounds.min, bounds.max));
      } else if (low && high) {
        quote.quoted_in = in_cny ? Currency::cny : Currency::usd;
        quote.low_quoted = *low;
        quote.high_quoted = *high;
        quote.low_usd = *low / rate;
        quote.high_usd = *high / rate;
        ok = true;
      }
    }
    quote.provider = quote_map.string("provider", Presence::required).value_or("");
    if (purchase) {
      quote.condition = quote_map.enumeration<Condition>("condition", Presence::required).value_or(Condition::new_card);
    } else {
      quote.kind = quote_map.enumeration<PriceKind>("kind", Presence::optional).value_or(PriceKind::on_demand);
    }
    quote.region = quote_map.enumeration<Region>("region", Presence::optional).value_or(Region::global);
    if (!purchase) {
      read_tier(diagnostics, quote_map, quote, role);
      quote.term_months = static_cast<int>(quote_map.integer("term_months", Presence::optional, 1, 120).value_or(0));
      if (quote.term_months > 0 && quote.kind != PriceKind::reserved) {
        diagnostics.error(*quote_map.node("term_months", Presence::optional), quote_map.child_path("term_months"),
                          "a term is the length of a reserved quote: give term_months with kind: reserved");
      }
    }
    quote.date = read_date(diagnostics, quote_map, "date", Presence::required).value_or("");
    quote.source = quote_map.string("source", Presence::required).value_or("");
    quote_map.finish();
    if (ok) {
      out.push_back(std::move(quote));
    }
  }
  return out;
}

}  // namespace gpu_advise
