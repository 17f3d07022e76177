// Cost: rent from the catalog's quotes or --price, purchase, energy and the
// cost per million tokens (docs/methodology.md §8).
#include "estimate/parts.hpp"

namespace gpu_advise {

std::span<const EnumName<PriceBasis>> names(PriceBasis) {
  static constexpr EnumName<PriceBasis> table[] = {{PriceBasis::catalog_quotes, "catalog quotes"},
                                                   {PriceBasis::user_price, "--price"}};
  return table;
}

std::optional<double> budget_cost_usd(const Request& request, const Estimate& estimate) {
  if (request.mode == CostMode::buy) {
    return estimate.cost.purchase_usd ? std::optional<double>(estimate.cost.purchase_usd->typical) : std::nullopt;
  }
  if (!estimate.cost.rent_usd) {
    return std::nullopt;
  }
  return estimate.training ? estimate.cost.rent_usd->typical
                           : estimate.cost.rent_usd->typical * sizing::hours_per_month;
}

namespace sizing {

namespace {

std::optional<Range> rent_price(const Request& request, const GpuSpec& gpu, PriceBasis& basis) {
  for (const auto& override_price : request.prices) {
    if (override_price.gpu_id == gpu.id) {
      basis = PriceBasis::user_price;
      const double usd = override_price.usd_per_gpu_hour;
      return Range{usd, usd, usd};
    }
  }
  basis = PriceBasis::catalog_quotes;
  return price_range(gpu.rent_usd_per_gpu_hour, request.region);
}

}  // namespace

void add_costs(const Request& request, const GpuSpec& gpu, Estimate& e) {
  CostEstimate& c = e.cost;
  c.rent_usd_per_gpu_hour = rent_price(request, gpu, c.price_basis);
  if (c.rent_usd_per_gpu_hour && c.price_basis == PriceBasis::catalog_quotes) {
    // Leases (a server-month or longer, divided by the hours) price a short run low.
    bool any = false;
    bool leases_only = true;
    for (const auto& quote : gpu.rent_usd_per_gpu_hour) {
      if (quote.region == request.region) {
        any = true;
        leases_only = leases_only && quote.kind == PriceKind::reserved;
      }
    }
    c.lease_rates_only = any && leases_only;
  }
  const double n = e.count;
  if (const auto purchase = price_range(gpu.purchase_usd_per_card, request.region)) {
    c.purchase_usd = scale(*purchase, n);
  }
  const OwnershipCosts& own = request.ownership;
  // Energy: TDP x utilisation x PUE x hours x $/kWh.
  const double kw = gpu.tdp_w.value_or(0) * n * own.utilisation * own.pue / 1000.0;
  const double amortisation_hours = own.amortisation_years * 8760.0;

  if (e.training) {
    const Range& wall = e.training->wall_hours;
    if (c.rent_usd_per_gpu_hour) {
      c.rent_usd = multiply(scale(wall, n), *c.rent_usd_per_gpu_hour);  // paid while it restarts, too
    }
    if (c.purchase_usd && gpu.tdp_w) {
      c.energy_usd = kw * wall.typical * own.usd_per_kwh;
      c.buy_usd = Range{c.purchase_usd->low * wall.low / amortisation_hours + kw * wall.low * own.usd_per_kwh,
                        c.purchase_usd->typical * wall.typical / amortisation_hours + *c.energy_usd,
                        c.purchase_usd->high * wall.high / amortisation_hours + kw * wall.high * own.usd_per_kwh};
    }
    return;
  }
  if (!e.inference) {
    return;
  }
  const Range& tps = e.inference->tokens_per_s;
  auto per_million = [&](const Range& per_hour) {
    return Range{per_hour.low / (tps.high * 3600.0) * 1e6, per_hour.typical / (tps.typical * 3600.0) * 1e6,
                 per_hour.high / (tps.low * 3600.0) * 1e6};
  };
  std::optional<Range> rent_per_hour;
  std::optional<Range> own_per_hour;
  if (c.rent_usd_per_gpu_hour) {
    rent_per_hour = scale(*c.rent_usd_per_gpu_hour, n);
    c.rent_usd = rent_per_hour;
  }
  if (c.purchase_usd && gpu.tdp_w) {
    c.energy_usd = kw * hours_per_month * own.usd_per_kwh;
    const double energy_per_hour = kw * own.usd_per_kwh;
    own_per_hour = Range{c.purchase_usd->low / amortisation_hours + energy_per_hour,
                         c.purchase_usd->typical / amortisation_hours + energy_per_hour,
                         c.purchase_usd->high / amortisation_hours + energy_per_hour};
    c.buy_usd = scale(*own_per_hour, hours_per_month);
  }
  const auto& basis = request.mode == CostMode::rent ? rent_per_hour : own_per_hour;
  if (basis) {
    c.usd_per_million_tokens = per_million(*basis);
  }
}

}  // namespace sizing

}  // namespace gpu_advise
