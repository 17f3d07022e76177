// Owning instead of renting: servers as the unit of purchase, the cost of
// ownership per GPU-hour used, and the break-even against renting
// (docs/methodology.md §6.2). The sourced figures are in ownership_data();
// own_or_rent() is the pure arithmetic on them.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "gpu_advise/gpu.hpp"

namespace gpu_advise {

// One figure of the ownership table, as quoted, with where it comes from.
struct OwnershipFigure {
  Range value;                         // low / typical / high, in quoted_in (shares and ratios: no currency)
  Currency quoted_in = Currency::usd;  // a CNY figure is converted at the catalog's rate
  std::string_view date;               // YYYY-MM
  std::string_view source;             // docs/research/ownership-costs.md has the pages
  Confidence confidence = Confidence::estimate;
};

// What an 8-GPU (or the card's) server costs. A row names one card (gpu_id),
// or every card of a form factor (gpu_id empty). `whole_server` rows price
// the server with its cards; the others price what the server adds to the
// cards (CPUs, memory, NVMe, baseboard, power supplies, chassis, integration),
// never the scale-out network.
struct ServerPrice {
  std::string_view gpu_id;  // empty: any card of `form_factor`
  FormFactor form_factor = FormFactor::sxm;
  Condition condition = Condition::new_card;
  Region region = Region::global;
  bool whole_server = false;
  OwnershipFigure price;
  double host_kw = 0;  // the server's maximum draw beyond its cards' TDP: CPUs, fans, NICs, NVSwitch
};

// Power and hosting where the servers stand.
struct RegionalOwnership {
  Region region = Region::global;
  OwnershipFigure power_per_kwh;            // electricity, per kWh
  OwnershipFigure colocation_per_kw_month;  // space, cooling plant and redundancy per provisioned IT kW; energy apart
  OwnershipFigure pue;                      // facility power / IT power
};

struct OwnershipData {
  std::span<const ServerPrice> servers;
  std::span<const RegionalOwnership> regions;
  OwnershipFigure scale_out_per_server;       // 8 x 400G NICs, switch ports and optics, per SXM/OAM/module server
  OwnershipFigure scale_out_per_pcie_server;  // 1-2 x 100-200G Ethernet
  OwnershipFigure average_draw;               // share of the servers' maximum power drawn while busy
  OwnershipFigure idle_draw;                  // share drawn while idle
  OwnershipFigure operations_per_year;        // maintenance, support, remote hands, staff: share of capex a year
  OwnershipFigure residual_decline_per_year;  // resale value lost a year: residual = (1 - d)^years
};

[[nodiscard]] const OwnershipData& ownership_data();
// A figure in USD: a CNY one converted at `rate` (a CNY figure is used only
// where the catalog has a rate; without one it is returned as quoted).
[[nodiscard]] Range in_usd(const OwnershipFigure& figure, const ExchangeRate& rate);
// The power and hosting figures of `region`: the global ones where it has none,
// or where its figures are in CNY and the catalog has no exchange rate.
[[nodiscard]] const RegionalOwnership& regional_ownership(Region region, const ExchangeRate& rate);

// The defaults of the inputs a user states (docs/methodology.md §6.2).
inline constexpr double default_ownership_years = 3.0;
inline constexpr double default_utilisation = 0.5;

// One corner (low, typical or high) of the arithmetic, in USD.
struct OwnershipInputs {
  int gpus = 0;          // GPUs owned
  double capex_usd = 0;  // servers, cards and scale-out network
  double years = default_ownership_years;
  double utilisation = default_utilisation;  // share of the hours the GPUs are busy
  double residual_fraction = 0;              // of capex, at the end of `years`
  double max_kw = 0;                         // the servers' maximum IT power
  double busy_draw = 0;                      // shares of max_kw
  double idle_draw = 0;
  double pue = 1;
  double usd_per_kwh = 0;
  double colocation_usd_per_kw_month = 0;  // per kW of max_kw
  double operations_per_year = 0;          // share of capex
  double rent_usd_per_gpu_hour = 0;        // 0: no rent to compare with
};

struct OwnershipResult {
  double hours = 0;  // years x 8760
  // The terms over the whole period, USD.
  double depreciation_usd = 0;  // capex - residual
  double residual_usd = 0;
  double power_usd = 0;  // at the stated utilisation
  double colocation_usd = 0;
  double operations_usd = 0;
  double total_usd = 0;
  double usd_per_gpu_hour_used = 0;    // total / (GPUs x hours x utilisation)
  double running_usd_per_month = 0;    // power, colocation and operations
  double rent_usd_at_utilisation = 0;  // the same busy GPU-hours rented
  // Busy share at which owning costs what renting does; nullopt when owning
  // never pays (above 100%) or there is no rent price.
  std::optional<double> break_even_utilisation;
  // Months until the purchase is paid back by the rent saved (less running
  // costs), at the stated utilisation; nullopt when it never is.
  std::optional<double> months_to_break_even;
};

[[nodiscard]] OwnershipResult own_or_rent(const OwnershipInputs& in);

}  // namespace gpu_advise
