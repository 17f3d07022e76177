#include "render/own_rent.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/quantity_format.hpp"
#include "gpu_advise/words.hpp"

namespace gpu_advise::render {

namespace {

std::string percent_cell(double share) { return fmt::format("{:.0f}%", 100.0 * share); }

}  // namespace

std::string break_even_cell(const OwnershipCost& own, Language l) {
  if (!own.rent_usd_per_gpu_hour) {
    return "-";
  }
  const auto& even = own.typical.break_even_utilisation;
  return even ? percent_cell(*even) : say(l, Phrase::never_cell);
}

OwnRent own_rent(const Report& report, Language l) {
  const Request& r = report.request;
  OwnRent out;
  out.title = say(l, Phrase::section_own_rent, 100.0 * r.ownership.utilisation);
  out.header = {say(l, Phrase::col_gpu),           say(l, Phrase::col_servers),
                say(l, Phrase::col_capex),         say(l, Phrase::col_owned_gpu_hour),
                say(l, Phrase::col_rent_gpu_hour), say(l, Phrase::col_break_even),
                say(l, Phrase::col_payback)};
  if (r.mode != CostMode::buy) {
    return out;
  }
  const format::MoneyUnit unit = format::money_unit(r);
  for (const auto& rec : report.recommendations) {
    const auto& own = rec.estimate.cost.ownership;
    if (!own) {
      continue;
    }
    const std::string used = own->condition == Condition::used ? say(l, Phrase::condition_used) : "";
    const auto& months = own->typical.months_to_break_even;
    const bool rent = own->rent_usd_per_gpu_hour.has_value();
    out.rows.push_back({rec.gpu.name + used, say(l, Phrase::bought_cell, own->gpus, own->servers),
                        format::money(rec.estimate.cost.purchase_usd->typical, unit),
                        format::money(own->typical.usd_per_gpu_hour_used, unit),
                        rent ? format::money(*own->rent_usd_per_gpu_hour, unit) : say(l, Phrase::no_price),
                        break_even_cell(*own, l),
                        !rent    ? "-"
                        : months ? say(l, Phrase::months_cell, format::number(std::round(*months)))
                                 : say(l, Phrase::never_cell)});
  }
  return out;
}

std::optional<OwnCurve> own_curve(const Report& report, Language l) {
  const Request& r = report.request;
  if (r.mode != CostMode::buy || report.recommendations.empty()) {
    return std::nullopt;
  }
  const auto& best = report.recommendations.front();
  const auto& own = best.estimate.cost.ownership;
  if (!own) {
    return std::nullopt;
  }
  const format::MoneyUnit unit = format::money_unit(r);
  OwnCurve out;
  out.title = say(l, Phrase::section_own_curve, own->gpus, best.gpu.name);
  out.chart_title = say(l, Phrase::chart_own_curve, own->gpus, best.gpu.name);
  out.x_label = say(l, Phrase::axis_utilisation);
  out.y_label = say(l, Phrase::axis_cost_gpu_hour,
                    say(l, unit.currency == Currency::cny ? Phrase::currency_cny : Phrase::currency_usd));
  out.y_prefix = format::currency_symbol(unit);
  out.own_label = say(l, Phrase::legend_own);
  out.rent_label = say(l, Phrase::legend_rent);
  out.header = {say(l, Phrase::col_utilisation), say(l, Phrase::col_owned_gpu_hour), say(l, Phrase::col_rent_gpu_hour)};
  if (own->rent_usd_per_gpu_hour) {
    out.rent = *own->rent_usd_per_gpu_hour * unit.per_usd;
  }
  out.break_even = own->typical.break_even_utilisation;
  for (std::size_t i = 0; i < own->usd_per_gpu_hour_by_utilisation.size(); ++i) {
    const double share = static_cast<double>(i + 1) / 10.0;
    const double usd = own->usd_per_gpu_hour_by_utilisation[i];
    out.utilisation.push_back(share);
    out.own.push_back(usd * unit.per_usd);
    out.rows.push_back({percent_cell(share), format::money(usd, unit),
                        own->rent_usd_per_gpu_hour ? format::money(*own->rent_usd_per_gpu_hour, unit) : "-"});
  }
  return out;
}

}  // namespace gpu_advise::render
