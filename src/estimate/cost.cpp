// Cost: rent from the catalog's quotes or --price, purchase, energy and the
// cost per million tokens (docs/methodology.md §6).
#include <algorithm>
#include <cmath>
#include <iterator>

#include "estimate/parts.hpp"

namespace gpu_advise {

std::span<const EnumName<PriceBasis>> names(PriceBasis) {
  static constexpr EnumName<PriceBasis> table[] = {{PriceBasis::catalog_quotes, "catalog quotes"},
                                                   {PriceBasis::user_price, "--price"},
                                                   {PriceBasis::price_file, "price file"}};
  return table;
}

std::span<const EnumName<OwnershipGap>> names(OwnershipGap) {
  static constexpr EnumName<OwnershipGap> table[] = {{OwnershipGap::none, "none"},
                                                     {OwnershipGap::no_purchase_price, "no_purchase_price"},
                                                     {OwnershipGap::no_new_price, "no_new_price"},
                                                     {OwnershipGap::no_used_price, "no_used_price"},
                                                     {OwnershipGap::no_power, "no_power"}};
  return table;
}

int sharded_group(const Layout& l, bool training) {
  if (training) {
    return l.zero_stage >= 3 ? l.gpus() : l.model_parallel();
  }
  return l.wide_expert() ? l.expert : l.model_parallel();
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

int gpus_together(const Layout& l, bool training, const GpuSpec& gpu) {
  return std::clamp(gpu_advise::sharded_group(l, training), 1, std::max(1, gpu.node.gpus_per_node));
}

int largest_instance(const Request& request, const GpuSpec& gpu) {
  if (request.mode != CostMode::rent || std::any_of(request.prices.begin(), request.prices.end(),
                                                    [&](const PriceOverride& p) { return p.gpu_id == gpu.id; })) {
    return 0;
  }
  int largest = 0;
  for (const PriceQuote* quote : file_quotes(request, gpu)) {
    if (quote->gpus_per_instance <= 0) {
      return 0;
    }
    largest = std::max(largest, quote->gpus_per_instance);
  }
  return largest;
}

std::optional<RentOffer> cheapest_offer(const std::vector<const PriceQuote*>& quotes, int count, int together) {
  std::optional<RentOffer> best;
  for (const PriceQuote* quote : quotes) {
    if (quote->gpus_per_instance > 0 && quote->gpus_per_instance < together) {
      continue;  // the sharded group would be split over instances
    }
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

// The first row for the card (or its form factor), condition and region that
// `pick` accepts: the request's region first, then the global figure.
template <typename Pick>
const ServerPrice* server_row(Region region, bool has_rate, Pick pick) {
  for (const Region where : {region, Region::global}) {
    for (const ServerPrice& row : ownership_data().servers) {
      const bool money_ok = row.price.quoted_in != Currency::cny || has_rate;
      if (row.region == where && money_ok && pick(row)) {
        return &row;
      }
    }
  }
  return nullptr;
}

struct TermRent {
  RentPrice price;
  int months = 0;
};

// The rent owning is set against when the plan is priced at the catalog's
// typical: the recent term quotes (leases in China) of the longest stated
// term from a year up to the years owned; nullopt where there is none.
std::optional<TermRent> term_rent(const Request& request, const GpuSpec& gpu) {
  const PriceTier tier = request.region == Region::cn ? PriceTier::china_lease : PriceTier::term;
  const int longest = static_cast<int>(std::floor(request.ownership.years * 12.0 + 1e-9));
  int months = 0;
  for (const auto& q : gpu.rent_usd_per_gpu_hour) {
    if (q.region == request.region && q.tier == tier && q.term_months >= 12 && q.term_months <= longest &&
        dated_since(q.date, request.quotes_since)) {
      months = std::max(months, q.term_months);
    }
  }
  if (months == 0) {
    return std::nullopt;
  }
  std::vector<PriceQuote> quotes;
  std::copy_if(gpu.rent_usd_per_gpu_hour.begin(), gpu.rent_usd_per_gpu_hour.end(), std::back_inserter(quotes),
               [&](const PriceQuote& q) { return q.tier == tier && q.term_months == months; });
  const auto price = rent_price(quotes, request.region, tier, request.quotes_since);
  return price ? std::optional<TermRent>(TermRent{*price, months}) : std::nullopt;
}

}  // namespace

void add_ownership(const Request& request, const GpuSpec& gpu, CostEstimate& c, int count) {
  const OwnershipCosts& asked = request.ownership;
  const ExchangeRate& rate = request.exchange_rate;
  const bool has_rate = rate.cny_per_usd > 0;
  const Condition condition = asked.condition;
  const int per_server = std::max(1, gpu.node.gpus_per_node);
  OwnershipCost own;
  own.condition = condition;
  own.gpus_per_server = per_server;
  own.servers = (count + per_server - 1) / per_server;
  own.years = asked.years;
  own.utilisation = asked.utilisation;
  double host_kw = 0;
  const ServerPrice* whole = server_row(request.region, has_rate, [&](const ServerPrice& row) {
    return row.whole_server && row.gpu_id == gpu.id && row.condition == condition;
  });
  if (whole) {
    own.whole_server = true;
    own.gpus = own.servers * per_server;
    own.servers_usd = scale(in_usd(whole->price, rate), own.servers);
    host_kw = whole->host_kw;
  } else {
    std::vector<PriceQuote> quotes;
    std::copy_if(gpu.purchase_usd_per_card.begin(), gpu.purchase_usd_per_card.end(), std::back_inserter(quotes),
                 [&](const PriceQuote& q) { return q.condition == condition; });
    const auto card = price_range(quotes, request.region);
    // A used server is priced with a new host: no used-host figure is sourced.
    const ServerPrice* host = server_row(request.region, has_rate, [&](const ServerPrice& row) {
      return !row.whole_server && row.gpu_id.empty() && row.form_factor == gpu.form_factor &&
             row.condition == Condition::new_card;
    });
    if (!card || !host) {
      const bool priced = price_range(gpu.purchase_usd_per_card, request.region).has_value();
      c.ownership_gap = condition == Condition::used ? OwnershipGap::no_used_price
                        : priced                     ? OwnershipGap::no_new_price
                                                     : OwnershipGap::no_purchase_price;
      return;
    }
    // PCIe cards are bought as needed into a server; the others come as whole boards.
    own.gpus = gpu.form_factor == FormFactor::pcie ? count : own.servers * per_server;
    // Host rows price an 8-GPU server: a node of another size carries its
    // share per GPU (a 1-GPU GH200 node an eighth, a 4-GPU GB200 tray half).
    const double host_share = per_server / 8.0;
    const Range host_usd = scale(in_usd(host->price, rate), own.servers * host_share);
    own.servers_usd = Range{card->low * own.gpus + host_usd.low, card->typical * own.gpus + host_usd.typical,
                            card->high * own.gpus + host_usd.high};
    host_kw = host->host_kw * host_share;
  }
  if (!gpu.tdp_w) {
    c.ownership_gap = OwnershipGap::no_power;
    return;
  }
  const OwnershipData& data = ownership_data();
  if (own.servers > 1) {
    const OwnershipFigure& net =
        gpu.form_factor == FormFactor::pcie ? data.scale_out_per_pcie_server : data.scale_out_per_server;
    own.network_usd = scale(in_usd(net, rate), own.servers);
  }
  const RegionalOwnership& where = regional_ownership(request.region, rate);
  own.usd_per_kwh = asked.usd_per_kwh ? Range{*asked.usd_per_kwh, *asked.usd_per_kwh, *asked.usd_per_kwh}
                                      : in_usd(where.power_per_kwh, rate);
  own.pue = where.pue.value;
  own.colocation_usd_per_kw_month = in_usd(where.colocation_per_kw_month, rate);
  own.max_kw = (own.gpus * *gpu.tdp_w / 1000.0) + own.servers * host_kw;
  const Range capex{own.servers_usd.low + own.network_usd.low, own.servers_usd.typical + own.network_usd.typical,
                    own.servers_usd.high + own.network_usd.high};
  own.term_sought = c.price_basis == PriceBasis::catalog_quotes && !request.spot && !request.market;
  own.rent_tier = c.rent_tier;
  if (const auto term = own.term_sought ? term_rent(request, gpu) : std::nullopt) {
    own.rent_usd_per_gpu_hour = term->price.range.typical;
    own.rent_term_months = term->months;
    own.rent_term_quotes = term->price.quotes;
  } else if (c.rent_usd_per_gpu_hour) {
    own.rent_usd_per_gpu_hour = c.rent_usd_per_gpu_hour->typical;
  }
  // One corner: every figure at its low (cheap), typical or high (dear) value.
  auto corner = [&](double Range::*at, double utilisation) {
    OwnershipInputs in;
    in.gpus = own.gpus;
    in.capex_usd = capex.*at;
    in.years = own.years;
    in.utilisation = utilisation;
    in.residual_fraction = std::pow(1.0 - data.residual_decline_per_year.value.*at, own.years);
    in.max_kw = own.max_kw;
    in.busy_draw = data.average_draw.value.*at;
    in.idle_draw = data.idle_draw.value.*at;
    in.pue = own.pue.*at;
    in.usd_per_kwh = own.usd_per_kwh.*at;
    in.colocation_usd_per_kw_month = own.colocation_usd_per_kw_month.*at;
    in.operations_per_year = data.operations_per_year.value.*at;
    in.rent_usd_per_gpu_hour = own.rent_usd_per_gpu_hour.value_or(0);
    return own_or_rent(in);
  };
  own.low = corner(&Range::low, own.utilisation);
  own.typical = corner(&Range::typical, own.utilisation);
  own.high = corner(&Range::high, own.utilisation);
  for (int percent = 10; percent <= 100; percent += 10) {
    own.usd_per_gpu_hour_by_utilisation.push_back(corner(&Range::typical, percent / 100.0).usd_per_gpu_hour_used);
  }
  if (own.rent_usd_per_gpu_hour) {
    own.owning_cheaper = own.typical.usd_per_gpu_hour_used < *own.rent_usd_per_gpu_hour;
  }
  c.purchase_usd = capex;
  c.ownership = std::move(own);
}

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
  } else if (const auto quotes = file_quotes(request, gpu); !quotes.empty()) {
    c.price_basis = PriceBasis::price_file;
    const int together = gpus_together(e.layout, e.training.has_value(), gpu);
    if (auto offer = cheapest_offer(quotes, e.count, together)) {
      c.rent_usd_per_gpu_hour = Range{offer->usd_per_gpu_hour, offer->usd_per_gpu_hour, offer->usd_per_gpu_hour};
      c.spot = offer->kind == PriceKind::spot;
      c.spot_missing = request.spot && !c.spot;
      paid = offer->paid_gpus;
      c.offer = std::move(offer);
    } else {
      // Only instances smaller than the plan's sharded group: no price,
      // rather than one server's time at the price of several instances.
      c.no_instance_for_gpus = together;
    }
  } else {
    c.price_basis = PriceBasis::catalog_quotes;
    const std::optional<PriceTier> asked = request.spot ? std::optional<PriceTier>(PriceTier::spot) : request.market;
    auto price = rent_price(gpu.rent_usd_per_gpu_hour, request.region, asked, request.quotes_since);
    if (!price && request.spot) {
      // Spot where a card has it, the typical where not; any other tier asked
      // for prices only the cards quoted in it (a card not rented there is
      // not an option at that price).
      price = rent_price(gpu.rent_usd_per_gpu_hour, request.region, std::nullopt, request.quotes_since);
      c.spot_missing = price.has_value();
      c.market_missing = price.has_value();
    } else if (!price && asked) {
      c.market_missing = true;
    }
    if (price) {
      c.rent_usd_per_gpu_hour = price->range;
      c.rent_tier = price->tier;
      c.rent_quotes = price->quotes;
      c.rent_newest = price->newest;
      c.spot = price->tier == PriceTier::spot;
      // Leases (a server-month or longer, divided by the hours) price a short
      // run low: said, unless a term is what was asked for.
      c.lease_rates_only = (price->tier == PriceTier::term || price->tier == PriceTier::china_lease) &&
                           (!asked || *asked != price->tier);
    } else {
      // Quotes here, and not one recent: too old (a region with only recent
      // spot or term quotes has no typical, and is simply unpriced).
      bool any = false;
      bool recent = false;
      for (const auto& q : gpu.rent_usd_per_gpu_hour) {
        if (q.region == request.region) {
          any = true;
          recent = recent || dated_since(q.date, request.quotes_since);
        }
      }
      c.quotes_too_old = any && !recent;
    }
  }
  add_ownership(request, gpu, c, e.count);  // in rent mode too, at the defaults: what owning would cost
  if (e.training) {
    // Rented, paid while it restarts, and while it starts, loads and saves.
    const double overhead = e.training->job_overhead_hours;
    const Range& wall = e.training->wall_hours;
    const Range held{wall.low + overhead, wall.typical + overhead, wall.high + overhead};
    if (c.rent_usd_per_gpu_hour) {
      c.rent_usd = multiply(scale(held, paid), *c.rent_usd_per_gpu_hour);
      c.rent_overhead_usd = overhead * paid * c.rent_usd_per_gpu_hour->typical;
    }
    if (const auto& own = c.ownership) {
      // The run holds every GPU bought (a whole server for a part of one) for its wall time.
      c.buy_usd = multiply(scale(own->usd_per_gpu_hour_used(), own->gpus), wall);
      c.energy_usd = own->max_kw * ownership_data().average_draw.value.typical * own->pue.typical *
                     own->usd_per_kwh.typical * wall.typical;
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
  if (const auto& own = c.ownership) {
    const double months = own->years * 12.0;
    c.buy_usd = Range{own->low.total_usd / months, own->typical.total_usd / months, own->high.total_usd / months};
    c.energy_usd = own->typical.power_usd / months;
    // An hour busy serving costs the owned GPUs' hour at the stated utilisation.
    own_per_hour = scale(own->usd_per_gpu_hour_used(), own->gpus);
  }
  const auto& basis = request.mode == CostMode::rent ? rent_per_hour : own_per_hour;
  if (basis) {
    c.usd_per_million_tokens = per_million(*basis);
  }
}

}  // namespace sizing

}  // namespace gpu_advise
