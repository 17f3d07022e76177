#include "gpu_advise/gpu.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iterator>
#include <utility>

#include <fmt/format.h>

#include "gpu_advise/units.hpp"

namespace gpu_advise {

#define GPU_ADVISE_NAMES(Type, ...)                          \
  std::span<const EnumName<Type>> names(Type) {              \
    static constexpr EnumName<Type> table[] = {__VA_ARGS__}; \
    return table;                                            \
  }

GPU_ADVISE_NAMES(Vendor, {Vendor::nvidia, "nvidia"}, {Vendor::amd, "amd"}, {Vendor::huawei, "huawei"},
                 {Vendor::intel, "intel"}, {Vendor::baidu, "baidu"}, {Vendor::cambricon, "cambricon"},
                 {Vendor::hygon, "hygon"})
GPU_ADVISE_NAMES(Architecture, {Architecture::turing, "turing"}, {Architecture::ampere, "ampere"},
                 {Architecture::ada, "ada"}, {Architecture::hopper, "hopper"}, {Architecture::blackwell, "blackwell"},
                 {Architecture::cdna3, "cdna3"}, {Architecture::cdna4, "cdna4"}, {Architecture::davinci, "davinci"},
                 {Architecture::gaudi, "gaudi"}, {Architecture::kunlun, "kunlun"}, {Architecture::dcu, "dcu"})
GPU_ADVISE_NAMES(FormFactor, {FormFactor::sxm, "sxm"}, {FormFactor::pcie, "pcie"}, {FormFactor::oam, "oam"},
                 {FormFactor::module, "module"})
GPU_ADVISE_NAMES(SoftwareStack, {SoftwareStack::cuda, "cuda"}, {SoftwareStack::rocm, "rocm"},
                 {SoftwareStack::cann, "cann"}, {SoftwareStack::gaudi, "gaudi"}, {SoftwareStack::xpu, "xpu"},
                 {SoftwareStack::neuware, "neuware"}, {SoftwareStack::dtk, "dtk"})
GPU_ADVISE_NAMES(Confidence, {Confidence::datasheet, "datasheet"}, {Confidence::secondary, "secondary"},
                 {Confidence::estimate, "estimate"})
GPU_ADVISE_NAMES(AvailabilityStatus, {AvailabilityStatus::available, "available"},
                 {AvailabilityStatus::licence_required, "licence_required"},
                 {AvailabilityStatus::case_by_case, "case_by_case"}, {AvailabilityStatus::restricted, "restricted"},
                 {AvailabilityStatus::banned, "banned"}, {AvailabilityStatus::not_offered, "not_offered"})
GPU_ADVISE_NAMES(PriceKind, {PriceKind::on_demand, "on_demand"}, {PriceKind::spot, "spot"},
                 {PriceKind::reserved, "reserved"}, {PriceKind::serverless, "serverless"},
                 {PriceKind::market_range, "market_range"})
GPU_ADVISE_NAMES(PriceTier, {PriceTier::specialist, "specialist"}, {PriceTier::hyperscaler, "hyperscaler"},
                 {PriceTier::marketplace, "marketplace"}, {PriceTier::survey, "survey"},
                 {PriceTier::serverless, "serverless"}, {PriceTier::spot, "spot"}, {PriceTier::term, "term"},
                 {PriceTier::china_cloud, "china_cloud"}, {PriceTier::china_lease, "china_lease"})
GPU_ADVISE_NAMES(Condition, {Condition::new_card, "new"}, {Condition::used, "used"})
GPU_ADVISE_NAMES(Region, {Region::global, "global"}, {Region::cn, "cn"})
GPU_ADVISE_NAMES(Supply, {Supply::available, "available"}, {Supply::discontinued, "discontinued"})
GPU_ADVISE_NAMES(Stance, {Stance::encouraged, "encouraged"}, {Stance::neutral, "neutral"},
                 {Stance::discouraged, "discouraged"}, {Stance::blocked, "blocked"})
GPU_ADVISE_NAMES(Currency, {Currency::usd, "usd"}, {Currency::cny, "cny"})

#undef GPU_ADVISE_NAMES

std::string_view display_name(Vendor vendor) {
  switch (vendor) {
    case Vendor::nvidia: return "NVIDIA";
    case Vendor::amd: return "AMD";
    case Vendor::huawei: return "Huawei";
    case Vendor::intel: return "Intel";
    case Vendor::baidu: return "Baidu Kunlunxin";
    case Vendor::cambricon: return "Cambricon";
    case Vendor::hygon: return "Hygon";
  }
  return "?";
}

std::string_view display_name(Architecture architecture) {
  switch (architecture) {
    case Architecture::turing: return "Turing";
    case Architecture::ampere: return "Ampere";
    case Architecture::ada: return "Ada Lovelace";
    case Architecture::hopper: return "Hopper";
    case Architecture::blackwell: return "Blackwell";
    case Architecture::cdna3: return "CDNA 3";
    case Architecture::cdna4: return "CDNA 4";
    case Architecture::davinci: return "Da Vinci";
    case Architecture::gaudi: return "Gaudi";
    case Architecture::kunlun: return "Kunlun XPU";
    case Architecture::dcu: return "Hygon DCU";
  }
  return "?";
}

std::string_view display_name(SoftwareStack stack) {
  switch (stack) {
    case SoftwareStack::cuda: return "CUDA";
    case SoftwareStack::rocm: return "ROCm";
    case SoftwareStack::cann: return "CANN";
    case SoftwareStack::gaudi: return "Gaudi software";
    case SoftwareStack::xpu: return "Kunlun XPU software";
    case SoftwareStack::neuware: return "Cambricon Neuware";
    case SoftwareStack::dtk: return "Hygon DTK";
  }
  return "?";
}

Confidence GpuSpec::confidence_of(std::string_view key_path) const {
  const auto it = field_confidence.find(std::string(key_path));
  return it == field_confidence.end() ? confidence : it->second;
}

std::optional<double> GpuSpec::dense_tflops(Precision precision) const {
  switch (precision) {
    case Precision::fp64: return compute.fp64_tflops;
    case Precision::tf32: return compute.tf32_tflops;
    case Precision::bf16: return compute.bf16_tflops;
    case Precision::fp16: return compute.fp16_tflops;
    case Precision::fp8: return compute.fp8_tflops;
    case Precision::fp4: return compute.fp4_tflops;
    case Precision::int8: return compute.int8_tops;
  }
  return std::nullopt;
}

const Availability* GpuSpec::availability_in(Region region) const {
  const auto it = availability.find(region);
  return it == availability.end() ? nullptr : &it->second;
}

double GpuSpec::capacity_gb() const { return gib_to_gb(memory.capacity_gib); }

bool GpuSpec::legal_stock_in(Region region) const {
  const Availability* a = availability_in(region);
  if (a == nullptr || a->banned_since.empty() || !a->licensed_shipments_since.empty()) {
    return true;
  }
  // Dates compare as text: YYYY, YYYY-MM and YYYY-MM-DD sort by time when
  // the shorter is a prefix ("2022" < "2022-10"); a launch in the month of
  // the ban counts as after it.
  return !launched.empty() && launched < a->banned_since.substr(0, launched.size());
}

namespace {

// The median of a non-empty list.
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return (n % 2 == 1) ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

}  // namespace

std::optional<Range> price_range(const std::vector<PriceQuote>& quotes) {
  if (quotes.empty()) {
    return std::nullopt;
  }
  Range range{quotes.front().low_usd, 0.0, quotes.front().high_usd};
  std::vector<double> on_demand_mids;
  std::vector<double> all_mids;
  for (const auto& quote : quotes) {
    range.low = std::min(range.low, quote.low_usd);
    range.high = std::max(range.high, quote.high_usd);
    const double mid = (quote.low_usd + quote.high_usd) / 2.0;
    all_mids.push_back(mid);
    if (quote.kind == PriceKind::on_demand) {
      on_demand_mids.push_back(mid);
    }
  }
  range.typical = median(on_demand_mids.empty() ? std::move(all_mids) : std::move(on_demand_mids));
  return range;
}

std::optional<Range> price_range(const std::vector<PriceQuote>& quotes, Region region) {
  std::vector<PriceQuote> local;
  std::copy_if(quotes.begin(), quotes.end(), std::back_inserter(local),
               [&](const PriceQuote& q) { return q.region == region; });
  return price_range(local);
}

std::optional<PriceTier> implied_tier(PriceKind kind, Region region) {
  if (kind == PriceKind::spot) {
    return PriceTier::spot;
  }
  if (region == Region::cn) {
    return kind == PriceKind::reserved ? PriceTier::china_lease : PriceTier::china_cloud;
  }
  if (kind == PriceKind::reserved) {
    return PriceTier::term;
  }
  if (kind == PriceKind::serverless) {
    return PriceTier::serverless;
  }
  return std::nullopt;
}

std::span<const PriceTier> typical_tiers(Region region) {
  static constexpr PriceTier global[] = {PriceTier::specialist, PriceTier::hyperscaler, PriceTier::marketplace,
                                         PriceTier::serverless, PriceTier::survey};
  static constexpr PriceTier cn[] = {PriceTier::china_cloud, PriceTier::china_lease};
  if (region == Region::cn) {
    return cn;
  }
  return global;
}

std::string months_before(std::string_view date, int months) {
  int year = 0;
  int month = 0;
  if (date.size() < 7 || std::sscanf(std::string(date.substr(0, 7)).c_str(), "%d-%d", &year, &month) != 2) {
    return {};
  }
  const int index = year * 12 + (month - 1) - months;
  return fmt::format("{:04d}-{:02d}", index / 12, index % 12 + 1);
}

bool dated_since(std::string_view date, std::string_view since) {
  if (since.empty()) {
    return true;
  }
  // A year alone reads as its January; text order is time order.
  const std::string month = date.size() >= 7 ? std::string(date.substr(0, 7)) : std::string(date) + "-01";
  return month >= since;
}

namespace {

double median_mid(const std::vector<const PriceQuote*>& quotes) {
  std::vector<double> mids;
  mids.reserve(quotes.size());
  for (const PriceQuote* q : quotes) {
    mids.push_back((q->low_usd + q->high_usd) / 2.0);
  }
  return median(std::move(mids));
}

RentPrice price_of(const std::vector<const PriceQuote*>& typical, const std::vector<const PriceQuote*>& spread) {
  RentPrice p;
  p.tier = typical.front()->tier;
  p.quotes = static_cast<int>(typical.size());
  p.range = Range{spread.front()->low_usd, median_mid(typical), spread.front()->high_usd};
  for (const PriceQuote* q : spread) {
    p.range.low = std::min(p.range.low, q->low_usd);
    p.range.high = std::max(p.range.high, q->high_usd);
  }
  for (const PriceQuote* q : typical) {
    p.newest = std::max(p.newest, q->date);
  }
  return p;
}

std::vector<const PriceQuote*> recent_in(const std::vector<PriceQuote>& quotes, Region region, std::string_view since) {
  std::vector<const PriceQuote*> recent;
  for (const auto& q : quotes) {
    if (q.region == region && dated_since(q.date, since)) {
      recent.push_back(&q);
    }
  }
  return recent;
}

std::vector<const PriceQuote*> of_tier(const std::vector<const PriceQuote*>& quotes, PriceTier tier) {
  std::vector<const PriceQuote*> out;
  std::copy_if(quotes.begin(), quotes.end(), std::back_inserter(out),
               [&](const PriceQuote* q) { return q->tier == tier; });
  return out;
}

}  // namespace

std::optional<RentPrice> rent_price(const std::vector<PriceQuote>& quotes, Region region,
                                    std::optional<PriceTier> asked, std::string_view since) {
  const auto recent = recent_in(quotes, region, since);
  if (asked) {
    const auto mine = of_tier(recent, *asked);
    return mine.empty() ? std::nullopt : std::optional<RentPrice>(price_of(mine, mine));
  }
  for (const PriceTier tier : typical_tiers(region)) {
    if (const auto mine = of_tier(recent, tier); !mine.empty()) {
      return price_of(mine, recent);
    }
  }
  return std::nullopt;
}

std::vector<RentPrice> rent_tiers(const std::vector<PriceQuote>& quotes, Region region, std::string_view since) {
  const auto recent = recent_in(quotes, region, since);
  std::vector<RentPrice> out;
  for (const auto& name : names(PriceTier{})) {
    if (const auto mine = of_tier(recent, name.value); !mine.empty()) {
      out.push_back(price_of(mine, mine));
    }
  }
  return out;
}

bool over_twice_typical(const PriceQuote& quote, const std::vector<PriceQuote>& quotes, std::string_view since) {
  const auto typical = rent_price(quotes, quote.region, std::nullopt, since);
  return typical && (quote.low_usd + quote.high_usd) / 2.0 > 2.0 * typical->range.typical;
}

std::vector<std::string_view> stale_facts(const GpuSpec& gpu, Region region, std::string_view catalog_date) {
  std::vector<std::string_view> stale;
  const std::string six = months_before(catalog_date, 6);
  if (const Availability* a = gpu.availability_in(region); a != nullptr && !dated_since(a->verified, six)) {
    stale.emplace_back("status");
  }
  const auto rent = rent_price(gpu.rent_usd_per_gpu_hour, region, std::nullopt, months_before(catalog_date, 12));
  const bool quoted = std::any_of(gpu.rent_usd_per_gpu_hour.begin(), gpu.rent_usd_per_gpu_hour.end(),
                                  [&](const PriceQuote& q) { return q.region == region; });
  // Quoted here but without a recent typical (every quote over a year old) is the worst case.
  if ((rent && !dated_since(rent->newest, six)) || (!rent && quoted)) {
    stale.emplace_back("rent");
  }
  return stale;
}

std::span<const std::string_view> confidence_key_paths() {
  static constexpr std::array<std::string_view, 26> paths = {"memory.size_gb",
                                                             "memory.capacity_gib",
                                                             "memory.type",
                                                             "memory.bandwidth_gb_per_s",
                                                             "compute.fp64_tflops",
                                                             "compute.tf32_tflops",
                                                             "compute.bf16_tflops",
                                                             "compute.fp16_tflops",
                                                             "compute.fp8_tflops",
                                                             "compute.fp4_tflops",
                                                             "compute.int8_tops",
                                                             "interconnect.name",
                                                             "interconnect.bandwidth_gb_per_s",
                                                             "interconnect.domain_size",
                                                             "pcie_gen",
                                                             "tdp_w",
                                                             "release_year",
                                                             "launched",
                                                             "node.gpus_per_node",
                                                             "node.scale_out_gbps_per_gpu",
                                                             "node.scale_out_fabric",
                                                             "node.rent_shapes",
                                                             "availability.global",
                                                             "availability.cn",
                                                             "prices.rent_usd_per_gpu_hour",
                                                             "prices.purchase_usd_per_card"};
  return paths;
}

}  // namespace gpu_advise
