// Cost: rent from the catalog's quotes or --price, purchase, energy and the
// cost per million tokens (docs/methodology.md §6).
#include <algorithm>

#include "estimate/parts.hpp"

namespace gpu_advise {

std::span<const EnumName<PriceBasis>> names(PriceBasis) {
  static constexpr EnumName<PriceBasis> table[] = {{PriceBasis::catalog_quotes, "catalog quotes"},
                                                   {PriceBasis::user_price, "--price"},
                                                   {PriceBasis::price_file, "price file"}};
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

std::vector<const PriceQuote*> file_quotes(const Request& request, const GpuSpec& gpu) {
  std::vector<const PriceQuote*> spot;
  std::vector<const PriceQuote*> other;
  for (const auto& quote : gpu.rent_usd_per_gpu_hour) {
    if (quote.region == request.region && !quote.origin.empty()) {
      (quote.kind == PriceKind::spot ? spot : other).push_back(&quote);
    }
  }
  if (request.spot && !spot.empty()) {
    return spot;
  }
  return other.empty() ? spot : other;  // a file of spot prices alone is what there is
}

std::vector<int> rent_shapes(const Request& request, const GpuSpec& gpu) {
  std::vector<int> shapes;
  for (const PriceQuote* quote : file_quotes(request, gpu)) {
    if (quote->gpus_per_instance <= 0) {
      return gpu.node.rent_shapes;  // rented by the GPU: any count the catalog lists
    }
    shapes.push_back(quote->gpus_per_instance);
  }
  if (shapes.empty()) {
    return gpu.node.rent_shapes;
  }
  std::sort(shapes.begin(), shapes.end());
  shapes.erase(std::unique(shapes.begin(), shapes.end()), shapes.end());
  // Several instances of a shape rent its multiples too (two 1-GPU instances
  // are 2 GPUs): the counts up to a server a plan may use (1, 2, 4 and the
  // server, as the catalog's shapes) that some shape divides, and the shapes.
  const int node = std::max(1, gpu.node.gpus_per_node);
  std::vector<int> counts = shapes;
  for (const int n : {1, 2, 4, node}) {
    if (n <= std::max(node, shapes.back()) &&
        std::any_of(shapes.begin(), shapes.end(), [&](int shape) { return n % shape == 0; })) {
      counts.push_back(n);
    }
  }
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

std::optional<RentOffer> cheapest_offer(const std::vector<const PriceQuote*>& quotes, int count) {
  std::optional<RentOffer> best;
  for (const PriceQuote* quote : quotes) {
    RentOffer offer;
    offer.gpus_per_instance = std::max(0, quote->gpus_per_instance);
    const int per_instance = std::max(1, offer.gpus_per_instance);
    offer.instances = (count + per_instance - 1) / per_instance;
    offer.paid_gpus = offer.instances * per_instance;
    offer.usd_per_gpu_hour = quote->low_usd;
    offer.usd_per_hour = offer.paid_gpus * quote->low_usd;
    if (best && (offer.usd_per_hour > best->usd_per_hour ||
                 (offer.usd_per_hour == best->usd_per_hour && offer.paid_gpus >= best->paid_gpus))) {
      continue;
    }
    offer.provider = quote->provider;
    offer.location = quote->location;
    offer.instance_type = quote->instance_type;
    offer.kind = quote->kind;
    offer.date = quote->date;
    offer.source = quote->source;
    offer.origin = quote->origin;
    best = std::move(offer);
  }
  return best;
}

namespace {

// Spot quotes alone with --spot, where the card has any in the market.
std::vector<PriceQuote> market_quotes(const Request& request, const GpuSpec& gpu, bool& spot) {
  std::vector<PriceQuote> all;
  std::vector<PriceQuote> spot_only;
  for (const auto& quote : gpu.rent_usd_per_gpu_hour) {
    if (quote.region == request.region) {
      all.push_back(quote);
      if (quote.kind == PriceKind::spot) {
        spot_only.push_back(quote);
      }
    }
  }
  spot = request.spot && !spot_only.empty();
  return spot ? spot_only : all;
}

}  // namespace

void add_costs(const Request& request, const GpuSpec& gpu, Estimate& e) {
  CostEstimate& c = e.cost;
  const auto user_price = std::find_if(request.prices.begin(), request.prices.end(),
                                       [&](const PriceOverride& p) { return p.gpu_id == gpu.id; });
  // GPUs paid for: a price file's instances may hold more than the plan uses.
  int paid = e.count;
  if (user_price != request.prices.end()) {
    c.price_basis = PriceBasis::user_price;
    const double usd = user_price->usd_per_gpu_hour;
    c.rent_usd_per_gpu_hour = Range{usd, usd, usd};
  } else if (auto offer = cheapest_offer(file_quotes(request, gpu), e.count)) {
    c.price_basis = PriceBasis::price_file;
    c.rent_usd_per_gpu_hour = Range{offer->usd_per_gpu_hour, offer->usd_per_gpu_hour, offer->usd_per_gpu_hour};
    c.spot = offer->kind == PriceKind::spot;
    c.spot_missing = request.spot && !c.spot;
    paid = offer->paid_gpus;
    c.offer = std::move(offer);
  } else {
    c.price_basis = PriceBasis::catalog_quotes;
    const std::vector<PriceQuote> quotes = market_quotes(request, gpu, c.spot);
    c.rent_usd_per_gpu_hour = price_range(quotes);
    c.spot_missing = request.spot && !c.spot && c.rent_usd_per_gpu_hour;
  }
  if (c.rent_usd_per_gpu_hour && c.price_basis == PriceBasis::catalog_quotes && !c.spot) {
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
      c.rent_usd = multiply(scale(wall, paid), *c.rent_usd_per_gpu_hour);  // paid while it restarts, too
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
    rent_per_hour = scale(*c.rent_usd_per_gpu_hour, paid);
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
