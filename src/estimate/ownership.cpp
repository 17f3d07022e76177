// The cost of owning servers per GPU-hour used, and the break-even against
// renting the same busy hours (docs/methodology.md §6.2).
#include "gpu_advise/ownership.hpp"

namespace gpu_advise {

OwnershipResult own_or_rent(const OwnershipInputs& in) {
  OwnershipResult out;
  out.hours = in.years * 8760.0;
  const double months = in.years * 12.0;
  out.residual_usd = in.capex_usd * in.residual_fraction;
  out.depreciation_usd = in.capex_usd - out.residual_usd;
  out.colocation_usd = in.max_kw * in.colocation_usd_per_kw_month * months;
  out.operations_usd = in.capex_usd * in.operations_per_year * in.years;
  // Facility energy: IT draw (idle, plus the busy share above idle) x PUE.
  const double kwh_price = in.pue * in.usd_per_kwh * out.hours;
  const double idle_power = in.max_kw * in.idle_draw * kwh_price;
  const double busy_extra = in.max_kw * (in.busy_draw - in.idle_draw) * kwh_price;  // at 100% busy
  out.power_usd = idle_power + busy_extra * in.utilisation;
  out.total_usd = out.depreciation_usd + out.colocation_usd + out.operations_usd + out.power_usd;
  const double busy_gpu_hours = in.gpus * out.hours * in.utilisation;
  out.usd_per_gpu_hour_used = busy_gpu_hours > 0 ? out.total_usd / busy_gpu_hours : 0;
  out.running_usd_per_month = months > 0 ? (out.colocation_usd + out.operations_usd + out.power_usd) / months : 0;
  if (in.rent_usd_per_gpu_hour <= 0 || in.gpus <= 0) {
    return out;
  }
  out.rent_usd_at_utilisation = in.rent_usd_per_gpu_hour * busy_gpu_hours;
  // Owning costs F + V u over the period, renting R u: equal at u = F / (R - V).
  const double fixed = out.depreciation_usd + out.colocation_usd + out.operations_usd + idle_power;
  const double rent_full = in.rent_usd_per_gpu_hour * in.gpus * out.hours;
  if (rent_full > busy_extra) {
    const double u = fixed / (rent_full - busy_extra);
    if (u > 0 && u <= 1) {
      out.break_even_utilisation = u;
    }
  }
  const double saved_per_month =
      in.rent_usd_per_gpu_hour * in.gpus * 730.0 * in.utilisation - out.running_usd_per_month;
  if (saved_per_month > 0) {
    out.months_to_break_even = in.capex_usd / saved_per_month;
  }
  return out;
}

}  // namespace gpu_advise
